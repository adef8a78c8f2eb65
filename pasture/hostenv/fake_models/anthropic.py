"""Anthropic Messages API, as Claude Code uses it.

* ``POST /v1/messages`` (Claude Code adds ``?beta=true``), answered with SSE when the body says
  ``"stream": true``, else with one JSON message. SSE events: ``message_start``, ``ping``, then per
  content block ``content_block_start`` / ``content_block_delta`` (``text_delta``, or
  ``input_json_delta`` carrying the tool input as ``partial_json``) / ``content_block_stop``, then
  ``message_delta`` (``stop_reason`` ``tool_use`` or ``end_turn``) and ``message_stop``.
* ``POST /v1/messages/count_tokens`` -> ``{"input_tokens": N}``.
* ``GET /v1/models`` -> a one-model list.
"""

from __future__ import annotations

import json
from typing import Any

from pasture.hostenv.fake_models.server import Decision, Reply, RequestContext, WireProtocol
from pasture.hostenv.fake_models.sse import encode_event
from pasture.hosts.script import ToolCall

__all__ = ["AnthropicMessages"]

DEFAULT_MODEL = "claude-sonnet-4-5"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            _text_of(c.get("text", c.get("content", ""))) if isinstance(c, dict) else str(c) for c in content
        )
    return "" if content is None else str(content)


class AnthropicMessages(WireProtocol):
    name = "anthropic"
    routes = {
        ("POST", "/v1/messages"): "handle_messages",
        ("POST", "/v1/messages/count_tokens"): "handle_count_tokens",
        ("GET", "/v1/models"): "handle_models",
    }

    def offered_tools(self, body: Any) -> list[dict[str, Any]]:
        tools = body.get("tools") if isinstance(body, dict) else None
        return [t for t in tools or [] if isinstance(t, dict)]

    def latest_tool_result(self, body: Any) -> str | None:
        for message in reversed((body or {}).get("messages") or []):
            content = message.get("content")
            if message.get("role") != "user" or not isinstance(content, list):
                continue
            results = [c for c in content if isinstance(c, dict) and c.get("type") == "tool_result"]
            if results:
                return _text_of(results[-1].get("content"))
        return None

    def resolve_shell(self, tools: list[dict[str, Any]], call: ToolCall) -> ToolCall | None:
        if any(t.get("name") == "Bash" for t in tools):
            args = {"command": call.arguments["command"]}
            if call.arguments.get("description"):
                args["description"] = call.arguments["description"]
            return ToolCall("Bash", args)
        return None

    def error_body(self, status: int, message: str) -> Any:
        kind = {404: "not_found_error", 500: "api_error"}.get(status, "invalid_request_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    # --- routes ---------------------------------------------------------------------------
    def handle_models(self, ctx: RequestContext) -> Reply:
        model = ctx.server.model or DEFAULT_MODEL
        entry = {
            "type": "model",
            "id": model,
            "display_name": "Pasture fake model",
            "created_at": "2025-01-01T00:00:00Z",
        }
        return Reply.json(200, {"data": [entry], "has_more": False, "first_id": model, "last_id": model}, kind="models")

    def handle_count_tokens(self, ctx: RequestContext) -> Reply:
        return Reply.json(200, {"input_tokens": _estimate_tokens(ctx.body)}, kind="count_tokens")

    def handle_messages(self, ctx: RequestContext) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        decision = self.decide(ctx)
        model = ctx.server.model or body.get("model") or DEFAULT_MODEL
        blocks = self.content_blocks(ctx, decision)
        usage_in = _estimate_tokens(body)
        usage_out = max(1, sum(len(json.dumps(b)) for b in blocks) // 4)
        message_id = ctx.new_id("msg_")
        summary = {**decision.summary(), "stream": bool(body.get("stream")), "stop_reason": decision.stop_reason}
        if not body.get("stream"):
            message = {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": decision.stop_reason,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": usage_in,
                    "output_tokens": usage_out,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            }
            return Reply(200, json.dumps(message).encode(), "application/json", summary)
        return Reply(
            200,
            self.stream(message_id, model, blocks, decision, usage_in, usage_out),
            "text/event-stream; charset=utf-8",
            summary,
        )

    # --- building blocks ------------------------------------------------------------------
    def content_blocks(self, ctx: RequestContext, decision: Decision) -> list[dict[str, Any]]:
        blocks: list[dict[str, Any]] = []
        if decision.text:
            blocks.append({"type": "text", "text": decision.text})
        for n, call in enumerate(decision.tool_calls):
            blocks.append(
                {"type": "tool_use", "id": ctx.new_id("toolu_", n), "name": call.name, "input": dict(call.arguments)}
            )
        return blocks

    def stream(
        self,
        message_id: str,
        model: str,
        blocks: list[dict[str, Any]],
        decision: Decision,
        usage_in: int,
        usage_out: int,
    ) -> bytes:
        out = [
            encode_event(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {
                            "input_tokens": usage_in,
                            "output_tokens": 1,
                            "cache_creation_input_tokens": 0,
                            "cache_read_input_tokens": 0,
                        },
                    },
                },
            ),
            encode_event("ping", {"type": "ping"}),
        ]
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                start: dict[str, Any] = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            out.append(
                encode_event(
                    "content_block_start", {"type": "content_block_start", "index": index, "content_block": start}
                )
            )
            out.append(
                encode_event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
            out.append(encode_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        out.append(
            encode_event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": decision.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": usage_out},
                },
            )
        )
        out.append(encode_event("message_stop", {"type": "message_stop"}))
        return b"".join(out)


def _estimate_tokens(body: Any) -> int:
    return max(1, len(json.dumps(body or {})) // 4)
