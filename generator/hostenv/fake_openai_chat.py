"""A fake OpenAI-compatible chat-completions server on 127.0.0.1, for the AI gate's tests.

Stdlib only. It answers ``POST /v1/chat/completions`` (and ``/chat/completions``) from a queue
of scripted :class:`Reply` objects, logs every request, and serves ``GET /v1/models``. It covers
what an HTTP client must survive: error statuses with OpenAI-style error bodies, a 200 whose
body is not JSON, slow answers, usage blocks with a ``cost``. It does not stream and does not
play tool-calling turns; the hosts' own protocols are faked elsewhere in this package.

In-process::

    with FakeChatServer([Reply.error(503), Reply.json({"decision": "deny", "reason": "r"})]) as fake:
        client = OpenAIChatClient(fake.base_url)   # http://127.0.0.1:<port>/v1
        ...
        fake.requests   # the logged requests, in arrival order

As a process (e.g. inside a network namespace next to a host)::

    python -m generator.hostenv.fake_openai_chat --script replies.json --port-file port \\
        [--log requests.jsonl] [--deadline 240]

``replies.json`` is ``{"replies": [<reply>...], "default": <reply>}`` where a reply is
``{"status": 503, "error": "..."}``, ``{"content": "..."}``, ``{"json": {...}}`` or
``{"raw_body": "..."}``, each optionally with ``"usage"``, ``"delay"`` and ``"headers"``.
"""

from __future__ import annotations

import argparse
import http
import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable

__all__ = ["FakeChatServer", "Reply", "main"]

DEFAULT_DEADLINE_SECONDS = 240.0
_REDACTED_HEADERS = {"authorization", "x-api-key", "api-key"}


@dataclass(frozen=True)
class Reply:
    """One scripted answer. Build with the classmethods; ``from_dict`` reads the JSON form."""

    status: int = 200
    content: str | None = "ok"
    error: str | None = None
    raw_body: str | None = None
    usage: dict[str, Any] | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def text(cls, content: str, *, usage: dict[str, Any] | None = None, **kw: Any) -> "Reply":
        return cls(content=content, usage=usage, **kw)

    @classmethod
    def json(cls, payload: Any, *, usage: dict[str, Any] | None = None, **kw: Any) -> "Reply":
        return cls(content=json.dumps(payload), usage=usage, **kw)

    @classmethod
    def error(cls, status: int, message: str | None = None, **kw: Any) -> "Reply":
        return cls(status=status, content=None, error=message if message is not None else _phrase(status), **kw)

    @classmethod
    def raw(cls, body: str, *, status: int = 200, **kw: Any) -> "Reply":
        return cls(status=status, content=None, raw_body=body, **kw)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Reply":
        common = {
            "usage": data.get("usage"),
            "delay": float(data.get("delay", 0.0)),
            "headers": dict(data.get("headers", {})),
        }
        if "raw_body" in data:
            return cls.raw(str(data["raw_body"]), status=int(data.get("status", 200)), **common)
        if int(data.get("status", 200)) >= 400:
            return cls.error(int(data["status"]), data.get("error"), **common)
        if "json" in data:
            return cls.json(data["json"], **common)
        return cls.text(str(data.get("content", "ok")), **common)

    def render(self, request_body: Any) -> tuple[int, dict[str, str], bytes]:
        """Status, headers and body bytes for one request."""
        headers = {"Content-Type": "application/json", **self.headers}
        if self.raw_body is not None:
            return self.status, headers, self.raw_body.encode("utf-8")
        if self.status >= 400:
            body = {"error": {"message": self.error, "type": "fake_error", "code": self.status}}
            return self.status, headers, json.dumps(body).encode("utf-8")
        model = request_body.get("model") if isinstance(request_body, dict) else None
        usage = self.usage or {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model or "fake-model",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.content},
                    "finish_reason": "stop",
                }
            ],
            "usage": usage,
        }
        return 200, headers, json.dumps(body).encode("utf-8")


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


class _Handler(BaseHTTPRequestHandler):
    server: "_Server"
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            body = {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "pasture"}]}
            self._send(200, {"Content-Type": "application/json"}, json.dumps(body).encode())
            return
        self._send(404, {"Content-Type": "application/json"}, b'{"error": {"message": "not found"}}')

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        path = self.path.split("?", 1)[0].rstrip("/")
        if path not in ("/v1/chat/completions", "/chat/completions"):
            self.server.record(self, body, None, 404)
            self._send(404, {"Content-Type": "application/json"}, b'{"error": {"message": "not found"}}')
            return
        index, reply = self.server.next_reply()
        status, headers, payload = reply.render(body)
        self.server.record(self, body, index, status)
        if reply.delay:
            time.sleep(reply.delay)
        try:
            self._send(status, headers, payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
            pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, replies: Iterable[Reply], default: Reply, log_path: str | None, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self._replies = list(replies)
        self._cursor = 0
        self._default = default
        self._lock = threading.Lock()
        self._log_path = log_path
        self.requests: list[dict[str, Any]] = []

    def next_reply(self) -> tuple[int | None, Reply]:
        with self._lock:
            if self._cursor < len(self._replies):
                self._cursor += 1
                return self._cursor - 1, self._replies[self._cursor - 1]
            return None, self._default

    def add(self, replies: Iterable[Reply]) -> None:
        with self._lock:
            self._replies.extend(replies)

    def record(self, handler: _Handler, body: Any, reply_index: int | None, status: int) -> None:
        headers = {
            k: ("<redacted>" if k.lower() in _REDACTED_HEADERS else v) for k, v in handler.headers.items()
        }
        entry = {
            "method": handler.command,
            "path": handler.path,
            "headers": headers,
            "body": body,
            "reply": reply_index,
            "status": status,
        }
        with self._lock:
            entry["seq"] = len(self.requests)
            self.requests.append(entry)
            if self._log_path:
                with open(self._log_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps(entry) + "\n")


class FakeChatServer:
    """The fake in a background thread. Stops by itself after ``deadline`` seconds."""

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        default: Reply | None = None,
        log_path: str | None = None,
        deadline: float | None = DEFAULT_DEADLINE_SECONDS,
        port: int = 0,
    ) -> None:
        # port: 0 lets the kernel choose; a fixed one is for a fresh network namespace, where a
        # config written before the server starts must already name its address.
        self._server = _Server(replies, default or Reply.text("ok"), log_path, port)
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._deadline = deadline

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (``.../v1``)."""
        return f"{self.url}/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        return list(self._server.requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]

    def add(self, *replies: Reply) -> None:
        self._server.add(replies)

    def start(self) -> "FakeChatServer":
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai-chat", daemon=True
        )
        self._thread.start()
        if self._deadline:
            self._timer = threading.Timer(self._deadline, self.stop)
            self._timer.daemon = True
            self._timer.start()
        return self

    def stop(self) -> None:
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> "FakeChatServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", help="JSON file: {replies: [...], default: {...}}")
    parser.add_argument("--port-file", required=True, help="the chosen port is written here")
    parser.add_argument("--log", help="append one JSON line per request here")
    parser.add_argument("--deadline", type=float, default=DEFAULT_DEADLINE_SECONDS)
    args = parser.parse_args(argv)

    replies: list[Reply] = []
    default = Reply.text("ok")
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            script = json.load(fh)
        replies = [Reply.from_dict(r) for r in script.get("replies", [])]
        if "default" in script:
            default = Reply.from_dict(script["default"])
    server = _Server(replies, default, args.log)
    tmp = f"{args.port_file}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    timer = threading.Timer(args.deadline, server.shutdown)
    timer.daemon = True
    timer.start()
    try:
        server.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
