"""The HTTP side shared by every fake model: bind, bounds, request log, dispatch.

A :class:`FakeModelServer` binds ``127.0.0.1`` only (port 0 by default, so the kernel picks a
free port), answers each request through its :class:`WireProtocol`, appends one JSON line per
request to its log (headers with credentials redacted, the parsed body, and a summary of the
reply), and stops by itself after ``deadline`` seconds or after ``max_requests`` requests.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit

from pasture.hosts.script import SESSION_ID, SHELL, TOOL_RESULT, Script, ScriptCursor, ToolCall

__all__ = [
    "LOOPBACK",
    "Decision",
    "FakeModelServer",
    "Reply",
    "RequestContext",
    "WireProtocol",
    "redact_headers",
]

LOOPBACK = "127.0.0.1"
REDACTED = "<redacted>"
_SECRET_HEADER = re.compile(r"auth|api[-_]?key|token|secret|cookie|password|session[-_]?key", re.I)


def redact_headers(headers: dict[str, str]) -> dict[str, str]:
    """Header dict with every credential-looking value replaced by ``<redacted>``."""
    return {k: (REDACTED if _SECRET_HEADER.search(k) else v) for k, v in headers.items()}


@dataclass
class Reply:
    status: int
    body: bytes
    content_type: str = "application/json"
    summary: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, status: int, obj: Any, **summary: Any) -> "Reply":
        return cls(status, json.dumps(obj).encode(), "application/json", dict(summary))


@dataclass(frozen=True)
class Decision:
    """What the model says in this request, with tool calls resolved to the host's own tools."""

    kind: str  # "turn" | "final" | "side"
    turn_index: int | None
    text: str | None
    tool_calls: tuple[ToolCall, ...]
    error: str | None = None

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tool_calls else "end_turn"

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "turn": self.turn_index,
            "text": self.text,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
        }
        if self.error:
            out["error"] = self.error
        return out


@dataclass
class RequestContext:
    seq: int
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any  # parsed JSON, or None
    server: "FakeModelServer"

    def new_id(self, prefix: str, n: int = 0) -> str:
        return f"{prefix}pasture{self.seq:04d}{n:02d}"


class WireProtocol:
    """One host API. Subclasses fill in the routes and the three hooks below."""

    name = "base"
    #: (HTTP method, path) -> name of the handler method on the subclass
    routes: dict[tuple[str, str], str] = {}
    #: every protocol by name, filled as each subclass is defined (the package imports them all)
    registry: dict[str, type["WireProtocol"]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" in cls.__dict__:  # a shared base class (no name of its own) is not a protocol
            WireProtocol.registry[cls.name] = cls

    @classmethod
    def turn_items(cls, body: dict[str, Any]) -> list[Any]:
        """The input items a request body appended after the model's previous answer (what ``pasture
        capture`` reads a turn's feedback from): here a chat ``messages`` list after the last assistant
        message; an API that lists its turns otherwise says so."""
        messages = body.get("messages") or []
        cut = 0
        for i, message in enumerate(messages):
            if isinstance(message, dict) and message.get("role") == "assistant":
                cut = i + 1
        return list(messages[cut:])

    # --- hooks for the shared turn logic -------------------------------------------------
    def offered_tools(self, body: Any) -> list[dict[str, Any]]:
        """The tools the request offers, each as ``{"name": ..., "type": ..., ...}``."""
        raise NotImplementedError

    def latest_tool_result(self, body: Any) -> str | None:
        """Text of the newest tool result in the conversation, or None."""
        raise NotImplementedError

    def resolve_shell(self, tools: list[dict[str, Any]], call: ToolCall) -> ToolCall | None:
        """Map a :data:`SHELL` call to the host's shell tool; None if none is offered."""
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"type": "invalid_request_error", "message": message}}

    # --- shared ---------------------------------------------------------------------------
    def decide(self, ctx: RequestContext) -> Decision:
        cursor: ScriptCursor = ctx.server.cursor
        tools = self.offered_tools(ctx.body)
        result = self.latest_tool_result(ctx.body)
        if not tools:
            turn, kind, index = cursor.side_turn(), "side", None
        else:
            index, turn = cursor.next_turn()
            kind = "final" if index is None else "turn"
        text = turn.text.replace(TOOL_RESULT, result or "") if turn.text is not None else None
        calls: list[ToolCall] = []
        errors: list[str] = []
        names = {t.get("name") for t in tools}
        for call in turn.tool_calls:
            if call.name == SHELL:
                resolved = self.resolve_shell(tools, call)
                if resolved is None:
                    errors.append(f"no shell tool offered (tools: {sorted(n for n in names if n)})")
                    continue
                calls.append(resolved)
            elif call.name in names:
                calls.append(_with_session(call, result))
            else:
                errors.append(f"tool {call.name!r} not offered (tools: {sorted(n for n in names if n)})")
        if errors:
            note = "fake model: " + "; ".join(errors)
            text = note if text is None else f"{text}\n{note}"
        return Decision(kind, index, text, tuple(calls), "; ".join(errors) or None)

    def dispatch(self, ctx: RequestContext) -> Reply:
        handler_name = self.routes.get((ctx.method, ctx.path.rstrip("/") or "/"))
        if handler_name is None:
            return Reply.json(404, self.error_body(404, f"no route {ctx.method} {ctx.path}"), kind="not_found")
        handler: Callable[[RequestContext], Reply] = getattr(self, handler_name)
        return handler(ctx)


def _with_session(call: ToolCall, result: str | None) -> ToolCall:
    """`call` with each argument that is exactly SESSION_ID set to the session number `result` names."""
    import re

    found = re.search(r"session ID (\d+)", result or "")
    if found is None or SESSION_ID not in call.arguments.values():
        return call
    arguments = {k: int(found.group(1)) if v == SESSION_ID else v for k, v in call.arguments.items()}
    return ToolCall(call.name, arguments)


class _Handler(BaseHTTPRequestHandler):
    # NB: never name a method ``responses`` here: it would shadow BaseHTTPRequestHandler.responses.
    protocol_version = "HTTP/1.1"
    server_version = "PastureFakeModel/1"
    timeout = 30  # idle keep-alive connections end by themselves
    server: "_HTTPServer"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        return

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        self.server.fake._serve(self)

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _handle


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: "FakeModelServer"


def protocol_for(name: str) -> WireProtocol:
    """A fresh protocol object by name (``anthropic``, ``openai-responses``, ``openai-chat``, ...)."""
    try:
        return WireProtocol.registry[name]()
    except KeyError:
        raise ValueError(f"unknown wire protocol {name!r}; expected one of {sorted(WireProtocol.registry)}") from None


class FakeModelServer:
    """A scripted fake model speaking one wire protocol on ``127.0.0.1``.

    Use as a context manager or call :meth:`start` / :meth:`stop`::

        with FakeModelServer("anthropic", Script.shell_then_reply("touch x")) as fake:
            env["ANTHROPIC_BASE_URL"] = fake.url
        fake.requests  # the parsed log
    """

    def __init__(
        self,
        protocol: str | WireProtocol,
        script: Script,
        *,
        log_path: str | Path | None = None,
        port: int = 0,
        host: str = LOOPBACK,
        deadline: float = 240.0,
        max_requests: int = 64,
        model: str | None = None,
    ) -> None:
        if host != LOOPBACK:
            raise ValueError(f"fake model servers bind {LOOPBACK} only, not {host!r}")
        self.protocol = protocol if isinstance(protocol, WireProtocol) else protocol_for(protocol)
        self.script = script
        self.cursor = ScriptCursor(script)
        self.log_path = Path(log_path) if log_path is not None else None
        self.deadline = float(deadline)
        self.max_requests = int(max_requests)
        self.model = model
        self._requested_port = port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()
        self._seq = 0
        self._log: list[dict[str, Any]] = []
        self._started = 0.0
        self._stopped = threading.Event()
        self._stopping = False
        self.stop_reason: str | None = None

    # --- lifecycle ------------------------------------------------------------------------
    def start(self) -> "FakeModelServer":
        if self._httpd is not None:
            raise RuntimeError("already started")
        httpd = _HTTPServer((LOOPBACK, self._requested_port), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._started = time.monotonic()
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self.log_path.touch()
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"fake-{self.protocol.name}",
            daemon=True,
        )
        self._thread.start()
        self._timer = threading.Timer(self.deadline, self._stop_async, args=("deadline",))
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self, reason: str = "stopped") -> None:
        """Stop serving (idempotent); :meth:`wait_stopped` returns once the socket is closed."""
        with self._lock:
            if self._httpd is None or self._stopping:
                return
            self._stopping = True
            self.stop_reason = reason
        if self._timer is not None:
            self._timer.cancel()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._stopped.set()

    def _stop_async(self, reason: str) -> None:
        threading.Thread(target=self.stop, args=(reason,), daemon=True).start()

    def wait_stopped(self, timeout: float | None = None) -> bool:
        return self._stopped.wait(timeout)

    def __enter__(self) -> "FakeModelServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # --- addresses ------------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (what ``ANTHROPIC_BASE_URL`` wants)."""
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def base_url_v1(self) -> str:
        """``http://127.0.0.1:PORT/v1`` (what OpenAI-style providers want)."""
        return self.url + "/v1"

    # --- log ------------------------------------------------------------------------------
    @property
    def requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._log)

    @property
    def request_count(self) -> int:
        with self._lock:
            return self._seq

    def _record(self, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, ensure_ascii=False, default=str)
        with self._lock:
            self._log.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as fh:
                    fh.write(line + "\n")

    # --- serving --------------------------------------------------------------------------
    def _serve(self, h: _Handler) -> None:
        with self._lock:
            self._seq += 1
            seq = self._seq
        split = urlsplit(h.path)
        headers = {k.lower(): v for k, v in h.headers.items()}
        raw = h._read_body()
        body, body_note = _decode_body(raw, headers)
        ctx = RequestContext(seq, h.command, split.path, parse_qs(split.query), headers, body, self)
        entry: dict[str, Any] = {
            "seq": seq,
            "t": round(time.monotonic() - self._started, 3),
            "method": h.command,
            "path": split.path,
            "query": split.query,
            "headers": redact_headers(headers),
            "body": body,
        }
        if body_note:
            entry["body_note"] = body_note
        over_limit = seq > self.max_requests
        try:
            if over_limit:
                reply = Reply.json(
                    400, self.protocol.error_body(400, "fake model: request limit reached"), kind="limit"
                )
            elif body is None and raw and h.command == "POST":
                reply = Reply.json(
                    400, self.protocol.error_body(400, f"fake model: unreadable body ({body_note})"), kind="bad_body"
                )
            else:
                reply = self.protocol.dispatch(ctx)
        except Exception as exc:  # noqa: BLE001 - a bug in the fake must not hang the host
            reply = Reply.json(500, self.protocol.error_body(500, f"fake model error: {exc!r}"), kind="exception")
        entry["reply"] = {"status": reply.status, "content_type": reply.content_type, **reply.summary}
        self._record(entry)
        try:
            h.send_response(reply.status)
            h.send_header("Content-Type", reply.content_type)
            h.send_header("Content-Length", str(len(reply.body)))
            h.send_header("Cache-Control", "no-cache")
            for k, v in reply.headers.items():
                h.send_header(k, v)
            if over_limit:
                h.send_header("Connection", "close")
                h.close_connection = True
            h.end_headers()
            if h.command != "HEAD":
                h.wfile.write(reply.body)
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True
        if over_limit:
            self._stop_async("max_requests")


def _decode_body(raw: bytes, headers: dict[str, str]) -> tuple[Any, str | None]:
    if not raw:
        return None, None
    encoding = headers.get("content-encoding", "").lower().strip()
    try:
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        elif encoding not in ("", "identity"):
            return None, (
                f"content-encoding {encoding!r} not supported; raw base64: " + base64.b64encode(raw[:4096]).decode()
            )
    except (OSError, zlib.error) as exc:
        return None, f"cannot decode {encoding}: {exc}"
    try:
        return json.loads(raw), None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return {"_raw": raw.decode("utf-8", errors="replace")}, "body is not JSON"
