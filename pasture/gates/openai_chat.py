"""A minimal OpenAI-compatible chat-completions client. Stdlib only (urllib), for the hook path.

Works against any server that speaks ``POST {base_url}/chat/completions`` (OpenAI, OpenRouter,
vLLM, Ollama, LiteLLM). Structured output goes through
``response_format = {"type": "json_schema", "json_schema": {...}}``.

Error messages are worded so that :func:`~pasture.gates.retry.is_transient_error` classifies
them the way the original did its SDK's: the HTTP status is in the message (so 500/502/503/504
are transient), 429 says "rate limit", connection failures say "connection refused/reset", and a
socket timeout says "timed out". The URL, and with it the port, is deliberately never part of
a message: the bare "500"-style patterns would match a port such as 35031.
"""

from __future__ import annotations

import asyncio
import http
import http.client
import ipaddress
import json
import math
import re
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from pasture import PastureError

T = TypeVar("T")

USER_AGENT = "pasture-gates/0.1"
DEFAULT_TIMEOUT_SECONDS = 60.0
_MESSAGE_LIMIT = 300
# A judge's answer is one short JSON decision: read at most this much of a response, in chunks.
MAX_BODY = 1 << 20
MAX_ERROR_BODY = 64 << 10  # of an error response, only for its message
_CHUNK = 64 << 10


class ChatCompletionError(PastureError):
    """Base class of the client's errors."""


class ChatHTTPError(ChatCompletionError):
    """The server answered with a non-2xx status."""

    def __init__(self, status: int, reason: str, detail: str) -> None:
        self.status = status
        self.reason = reason
        self.detail = detail
        hint = " (rate limit)" if status == 429 else ""
        text = f"HTTP {status} {reason}{hint}"
        super().__init__(f"{text}: {detail}" if detail else text)


class ChatConnectionError(ChatCompletionError):
    """No HTTP answer: refused, reset, timed out, DNS failure..."""


class ChatProtocolError(ChatCompletionError):
    """A 2xx answer that is not a chat completion (not JSON, no choices, no message)."""


class ChatResponseTooLarge(ChatProtocolError):
    """A response body over MAX_BODY: the rest is never read (not transient: asking again gets the same)."""


def read_capped(response: Any, limit: int) -> bytes:
    """The body of `response`, read in chunks; ChatResponseTooLarge past `limit` bytes (a declared
    Content-Length over it is refused before reading), so a judge cannot make the hook hold its flood."""
    declared = response.headers.get("Content-Length") if response.headers is not None else None
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise ChatResponseTooLarge(
            f"the judge's answer is larger than {limit >> 20} MiB; pasture reads at most that much of it"
        )
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = response.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise ChatResponseTooLarge(
                f"the judge's answer is larger than {limit >> 20} MiB; pasture reads at most that much of it"
            )
        chunks.append(chunk)


def read_error_body(response: Any) -> bytes:
    """At most MAX_ERROR_BODY bytes of an error response: enough for its message."""
    chunks: list[bytes] = []
    size = 0
    while size < MAX_ERROR_BODY:
        chunk = response.read(min(_CHUNK, MAX_ERROR_BODY - size))
        if not chunk:
            break
        size += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass
class ChatResult:
    """One chat completion. ``parsed`` is the JSON-decoded content, or None when it is not JSON."""

    content: str | None
    parsed: Any
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    model: str | None = None
    finish_reason: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    # Tells AIGateWrapper to look inside `parsed` rather than at this object.
    is_response_envelope = True


def _schema_name(schema: Any) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]", "_", getattr(schema, "__name__", "") or "")
    return name[:64] or "response"


def json_schema_response_format(schema: Any) -> dict[str, Any]:
    """``response_format`` for a schema class with ``model_json_schema()``.

    ``strict`` is requested only when the schema forbids additional properties at its root,
    because OpenAI's strict mode rejects schemas that do not (pydantic's defaults do not).
    """
    json_schema = schema.model_json_schema()
    return {
        "type": "json_schema",
        "json_schema": {
            "name": _schema_name(schema),
            "schema": json_schema,
            "strict": json_schema.get("additionalProperties") is False,
        },
    }


_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\n(.*)\n```\Z", re.DOTALL)


def decode_json_content(content: str | None) -> Any:
    """The JSON value in a message content, tolerating one surrounding markdown fence; else None."""
    if content is None:
        return None
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except ValueError:
        return None


def _finite_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def cost_from_response(body: dict[str, Any], headers: Any = None) -> float | None:
    """USD cost of one response: ``usage.cost`` (OpenRouter, LiteLLM), else LiteLLM's header."""
    usage = body.get("usage")
    if isinstance(usage, dict):
        cost = _finite_number(usage.get("cost"))
        if cost is not None:
            return cost
    if headers is not None:
        header = headers.get("x-litellm-response-cost")
        if header is not None:
            try:
                return _finite_number(float(header))
            except ValueError:
                return None
    return None


def _message_text(content: Any) -> str | None:
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return None


def _error_detail(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text[:_MESSAGE_LIMIT]
    message: Any = None
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict):
            message = err.get("message")
        elif isinstance(err, str):
            message = err
        if message is None:
            message = body.get("message") or body.get("detail")
    if not isinstance(message, str):
        message = text
    return message[:_MESSAGE_LIMIT]


def _is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _connection_error(exc: BaseException) -> ChatConnectionError:
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return ChatConnectionError("request timed out")
    if isinstance(reason, ConnectionRefusedError):
        return ChatConnectionError("connection refused")
    if isinstance(reason, http.client.RemoteDisconnected):
        return ChatConnectionError("connection reset (server closed the connection without a response)")
    if isinstance(reason, (ConnectionResetError, ConnectionAbortedError, BrokenPipeError)):
        return ChatConnectionError(f"connection reset ({type(reason).__name__})")
    if isinstance(reason, http.client.IncompleteRead):
        return ChatConnectionError("connection reset (response body cut short)")
    return ChatConnectionError(f"connection failed: {type(reason).__name__}: {reason}")


async def run_in_daemon_thread(fn: Callable[[], T]) -> T:
    """Await a blocking call without pinning interpreter exit on it (unlike ``to_thread``).

    If the awaiting task is cancelled (a deadline), the thread finishes on its own, bounded by
    its socket timeout, and nobody waits for it.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def _settle(value: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def _run() -> None:
        try:
            value, error = fn(), None
        except BaseException as exc:  # handed to the awaiting task
            value, error = None, exc
        try:
            loop.call_soon_threadsafe(_settle, value, error)
        except RuntimeError:  # the loop is gone: nobody is waiting any more
            pass

    threading.Thread(target=_run, name="pasture-chat-request", daemon=True).start()
    return await future


class OpenAIChatClient:
    """``POST {base_url}/chat/completions``; also usable directly as the ``app`` of AIGateWrapper."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        extra_body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.extra_body = dict(extra_body or {})
        self.headers = dict(headers or {})
        self.request_count = 0
        self._lock = threading.Lock()
        handlers: list[Any] = [urllib.request.ProxyHandler({})] if _is_loopback(self.base_url) else []
        self._opener = urllib.request.build_opener(*handlers)

    @classmethod
    def from_config(cls, config: Any, **kwargs: Any) -> "OpenAIChatClient":
        """From ``config.ai_base_url`` / ``config.ai_api_key``.

        OpenRouter only reports ``usage.cost`` when asked, so for an openrouter.ai base URL the
        request carries ``{"usage": {"include": true}}`` (other servers may reject that key).
        """
        base_url = config.ai_base_url
        host = urllib.parse.urlsplit(base_url).hostname or ""
        if "extra_body" not in kwargs and (host == "openrouter.ai" or host.endswith(".openrouter.ai")):
            kwargs["extra_body"] = {"usage": {"include": True}}
        return cls(base_url, getattr(config, "ai_api_key", None), **kwargs)

    def __repr__(self) -> str:
        return f"OpenAIChatClient(base_url={self.base_url!r})"

    # -- blocking core ---------------------------------------------------------------------------

    def create(
        self,
        *,
        messages: list[dict[str, Any]],
        model: str,
        response_format: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> ChatResult:
        """One chat completion request; raises a :class:`ChatCompletionError` on failure."""
        body: dict[str, Any] = {"model": model, "messages": messages, **self.extra_body}
        if response_format is not None:
            body["response_format"] = response_format
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": USER_AGENT,
            **self.headers,
        }
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(body).encode("utf-8"),
            headers=headers,
            method="POST",
        )
        with self._lock:
            self.request_count += 1
        try:
            with self._opener.open(request, timeout=timeout or self.timeout) as response:
                raw = read_capped(response, MAX_BODY)
                response_headers = response.headers
        except urllib.error.HTTPError as exc:
            try:
                detail = _error_detail(read_error_body(exc))
            except Exception:  # the error body itself failed to arrive
                detail = ""
            reason = exc.reason if isinstance(exc.reason, str) and exc.reason else _phrase(exc.code)
            raise ChatHTTPError(exc.code, reason, detail) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            raise _connection_error(exc) from None
        return self._parse(raw, response_headers)

    @staticmethod
    def _parse(raw: bytes, headers: Any) -> ChatResult:
        try:
            body = json.loads(raw)
        except ValueError:
            raise ChatProtocolError("chat completion response is not JSON") from None
        if not isinstance(body, dict):
            raise ChatProtocolError("chat completion response is not a JSON object")
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ChatProtocolError("chat completion response has no choices")
        message = choices[0].get("message")
        if not isinstance(message, dict):
            raise ChatProtocolError("chat completion choice has no message")
        content = _message_text(message.get("content"))
        usage = found if isinstance(found := body.get("usage"), dict) else {}
        return ChatResult(
            content=content,
            parsed=decode_json_content(content),
            usage=usage,
            cost_usd=cost_from_response(body, headers),
            model=body.get("model") if isinstance(body.get("model"), str) else None,
            finish_reason=choices[0].get("finish_reason"),
            raw=body,
        )

    # -- the `app.ai` seam -----------------------------------------------------------------------

    async def ai(
        self,
        *,
        system: str | None = None,
        user: str,
        schema: Any,
        model: str,
        timeout: float | None = None,
    ) -> ChatResult:
        """System (omitted when None) + user message, structured by ``schema``'s JSON schema."""
        messages: list[dict[str, Any]] = []
        if system is not None:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": user})
        response_format = json_schema_response_format(schema)
        return await run_in_daemon_thread(
            lambda: self.create(messages=messages, model=model, response_format=response_format, timeout=timeout)
        )


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"
