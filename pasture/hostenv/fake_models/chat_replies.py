"""A queue of scripted Chat Completions answers, for what calls a model directly (the AI gate).

The hosts' fakes play a :class:`~.script.Script` of turns (tool calls, text) in their own wire
format. An HTTP client such as the AI gate needs something else: exact answers in order, including
the failures it must survive (an error status with an OpenAI-style body, a 200 whose body is not
JSON, a slow answer, a ``usage`` block with a ``cost``). :class:`ChatReplyQueue` is that second
kind of wire protocol; it runs on the same :class:`~.server.FakeModelServer` (127.0.0.1 only,
request log with credentials redacted, deadline), so there is one fake OpenAI-compatible server.

In-process::

    with FakeChatServer([ChatReply.error(503), ChatReply.json({"decision": "deny"})]) as fake:
        client = OpenAIChatClient(fake.base_url)   # http://127.0.0.1:<port>/v1
        ...
        fake.chat_requests   # the logged POSTs; entry["reply"] = {"status", "index", ...}

As a process::

    python -m pasture.hostenv.fake_models --protocol openai-chat-replies --script replies.json \\
        --port-file port [--log requests.jsonl] [--deadline 240]

``replies.json`` is ``{"replies": [<reply>...], "default": <reply>}`` where a reply is
``{"status": 503, "error": "..."}``, ``{"content": "..."}``, ``{"json": {...}}`` or
``{"raw_body": "..."}``, each optionally with ``"usage"``, ``"delay"`` and ``"headers"``.
"""

from __future__ import annotations

import http
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterable

from pasture.hostenv.fake_models.server import FakeModelServer, Reply, RequestContext, WireProtocol
from pasture.hosts.script import Script

__all__ = ["ChatReply", "ChatReplyQueue", "FakeChatServer"]

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")


@dataclass(frozen=True)
class ChatReply:
    """One scripted answer. Build with the classmethods; ``from_dict`` reads the JSON form."""

    status: int = 200
    content: str | None = "ok"
    # Not named `error`: the classmethod of that name replaced the field's default (every reply's
    # error was the bound method, and a ChatReply(status=503) could not be answered).
    error_message: str | None = None
    raw_body: str | None = None
    usage: dict[str, Any] | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def text(cls, content: str, *, usage: dict[str, Any] | None = None, **kw: Any) -> "ChatReply":
        return cls(content=content, usage=usage, **kw)

    @classmethod
    def json(cls, payload: Any, *, usage: dict[str, Any] | None = None, **kw: Any) -> "ChatReply":
        return cls(content=json.dumps(payload), usage=usage, **kw)

    @classmethod
    def error(cls, status: int, message: str | None = None, **kw: Any) -> "ChatReply":
        return cls(status=status, content=None, error_message=message if message is not None else _phrase(status), **kw)

    @classmethod
    def raw(cls, body: str, *, status: int = 200, **kw: Any) -> "ChatReply":
        return cls(status=status, content=None, raw_body=body, **kw)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChatReply":
        common: dict[str, Any] = {
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

    def reply(self, request_body: Any, index: int | None) -> Reply:
        """The HTTP reply for one request (``index``: its place in the queue, None for the default)."""
        summary = {"kind": "queued" if index is not None else "default", "index": index}
        if self.raw_body is not None:
            return Reply(self.status, self.raw_body.encode("utf-8"), "application/json", summary, dict(self.headers))
        if self.status >= 400:
            body: dict[str, Any] = {"error": {"message": self.error_message, "type": "fake_error", "code": self.status}}
            return Reply(self.status, json.dumps(body).encode(), "application/json", summary, dict(self.headers))
        model = request_body.get("model") if isinstance(request_body, dict) else None
        body = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model or "fake-model",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": self.content}, "finish_reason": "stop"}
            ],
            "usage": self.usage or {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return Reply(200, json.dumps(body).encode(), "application/json", summary, dict(self.headers))


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase
    except ValueError:
        return "Error"


class ChatReplyQueue(WireProtocol):
    """``POST /v1/chat/completions`` answered from a queue of :class:`ChatReply`, then a default."""

    name = "openai-chat-replies"
    routes = {
        **{("POST", path): "handle_chat" for path in CHAT_PATHS},
        ("GET", "/v1/models"): "handle_models",
        ("GET", "/models"): "handle_models",
    }

    def __init__(self, replies: Iterable[ChatReply] = (), default: ChatReply | None = None) -> None:
        self._replies = list(replies)
        self._next = 0
        self._default = default or ChatReply.text("ok")
        self._lock = threading.Lock()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChatReplyQueue":
        default = ChatReply.from_dict(data["default"]) if "default" in data else None
        return cls([ChatReply.from_dict(r) for r in data.get("replies", [])], default)

    def add(self, replies: Iterable[ChatReply]) -> None:
        with self._lock:
            self._replies.extend(replies)

    def _take(self) -> tuple[int | None, ChatReply]:
        with self._lock:
            if self._next < len(self._replies):
                self._next += 1
                return self._next - 1, self._replies[self._next - 1]
        return None, self._default

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"message": message, "type": "fake_error", "code": status}}

    def handle_chat(self, ctx: RequestContext) -> Reply:
        index, reply = self._take()
        if reply.delay:
            time.sleep(reply.delay)  # the handler thread only: other requests are served meanwhile
        return reply.reply(ctx.body, index)

    def handle_models(self, ctx: RequestContext) -> Reply:
        return Reply.json(
            200,
            {"object": "list", "data": [{"id": "fake-model", "object": "model", "owned_by": "pasture"}]},
            kind="models",
        )


class FakeChatServer(FakeModelServer):
    """A :class:`FakeModelServer` speaking :class:`ChatReplyQueue` (stops by itself after ``deadline``)."""

    def __init__(
        self,
        replies: Iterable[ChatReply] = (),
        *,
        default: ChatReply | None = None,
        log_path: str | None = None,
        deadline: float | None = 240.0,
        max_requests: int = 100_000,
        port: int = 0,
    ) -> None:
        # port: 0 lets the kernel choose; a fixed one is for a fresh network namespace, where a
        # config written before the server starts must already name its address.
        self.queue = ChatReplyQueue(replies, default)
        super().__init__(
            self.queue,
            Script.of(),
            log_path=log_path,
            port=port,
            deadline=deadline if deadline else 24 * 3600.0,
            max_requests=max_requests,
        )

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (``.../v1``)."""
        return self.base_url_v1

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST" and r["path"].rstrip("/") in CHAT_PATHS]

    def add(self, *replies: ChatReply) -> None:
        self.queue.add(replies)
