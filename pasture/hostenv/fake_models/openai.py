"""The two OpenAI wire protocols: Responses (Codex CLI) and Chat Completions (OpenCode).

**Responses** (``POST /v1/responses``), SSE when ``"stream": true`` (Codex always streams):
``response.created``, then per output item ``response.output_item.added`` (a text item also gets
``response.output_text.delta``) and ``response.output_item.done``, then ``response.completed``
with ``usage``. A shell call is a ``function_call`` item for the offered ``exec_command`` tool
(``{"cmd": ...}``), falling back to ``shell_command`` / ``shell`` when that is what is offered. A call of
a tool the request offers as ``"type": "custom"`` (freeform, e.g. Codex's ``apply_patch``) is a
``custom_tool_call`` item whose ``input`` is the call's ``arguments["input"]`` text.

**Chat Completions** (``POST /v1/chat/completions``), SSE when ``"stream": true``: ``data:`` lines
of ``chat.completion.chunk`` objects: a role delta, a ``content`` or ``tool_calls`` delta, a chunk
with ``finish_reason`` (``tool_calls`` or ``stop``) and a chunk with ``usage``, then
``data: [DONE]``. A shell call is a call of the offered ``bash`` tool
(``{"command", "description"}``).

Both answer ``GET /v1/models`` with a one-model list.
"""

from __future__ import annotations

import json
import time
from typing import Any

from pasture.hostenv.fake_models.server import Decision, Reply, RequestContext, WireProtocol
from pasture.hostenv.fake_models.sse import encode_data, encode_event
from pasture.hosts.script import ToolCall

__all__ = ["OpenAIChatCompletions", "OpenAIResponses"]

DEFAULT_MODEL = "fake-model"
SSE = "text/event-stream; charset=utf-8"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                parts.append(_text_of(part.get("text", part.get("content", part.get("output", "")))))
            else:
                parts.append(str(part))
        return "\n".join(parts)
    if isinstance(content, dict):
        return _text_of(content.get("content", content.get("output", content.get("text", ""))))
    return "" if content is None else str(content)


def _tokens(obj: Any) -> int:
    return max(1, len(json.dumps(obj or {})) // 4)


class _OpenAIBase(WireProtocol):
    def error_body(self, status: int, message: str) -> Any:
        kind = {404: "not_found", 500: "server_error"}.get(status, "invalid_request_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def handle_models(self, ctx: RequestContext) -> Reply:
        model = ctx.server.model or DEFAULT_MODEL
        return Reply.json(
            200,
            {
                "object": "list",
                "data": [{"id": model, "object": "model", "created": 1735689600, "owned_by": "pasture-fake"}],
            },
            kind="models",
        )


class OpenAIResponses(_OpenAIBase):
    name = "openai-responses"

    @classmethod
    def turn_items(cls, body: dict[str, Any]) -> list[Any]:
        """The Responses API's input items after the model's last call, reasoning or message."""
        items = body.get("input") or []
        cut = 0
        for i, item in enumerate(items):
            if isinstance(item, dict) and (
                item.get("type") in ("function_call", "reasoning") or item.get("role") == "assistant"
            ):
                cut = i + 1
        return list(items[cut:])

    routes = {
        ("POST", "/v1/responses"): "handle_create_response",
        ("GET", "/v1/models"): "handle_models",
    }

    def offered_tools(self, body: Any) -> list[dict[str, Any]]:
        tools = body.get("tools") if isinstance(body, dict) else None
        out = []
        for tool in tools or []:
            if isinstance(tool, dict):
                out.append({**tool, "name": tool.get("name") or tool.get("type")})
        return out

    def latest_tool_result(self, body: Any) -> str | None:
        items = body.get("input") if isinstance(body, dict) else None
        if not isinstance(items, list):
            return None
        for item in reversed(items):
            if isinstance(item, dict) and str(item.get("type", "")).endswith("_call_output"):
                return _text_of(item.get("output"))
        return None

    def resolve_shell(self, tools: list[dict[str, Any]], call: ToolCall) -> ToolCall | None:
        names = {t.get("name") for t in tools if t.get("type") in ("function", None)}
        command = call.arguments["command"]
        if "exec_command" in names:
            return ToolCall("exec_command", {"cmd": command})
        if "shell_command" in names:
            return ToolCall("shell_command", {"command": command})
        if "shell" in names:
            return ToolCall("shell", {"command": ["bash", "-lc", command]})
        return None

    def output_items(self, ctx: RequestContext, decision: Decision) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        if decision.text:
            items.append(
                {
                    "type": "message",
                    "id": ctx.new_id("msg_"),
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": decision.text, "annotations": []}],
                }
            )
        custom = {
            t.get("name")
            for t in self.offered_tools(ctx.body if isinstance(ctx.body, dict) else {})
            if t.get("type") == "custom"
        }
        for n, call in enumerate(decision.tool_calls):
            if call.name in custom:  # a freeform tool (Codex's apply_patch): its input is raw text
                items.append(
                    {
                        "type": "custom_tool_call",
                        "id": ctx.new_id("ctc_", n),
                        "call_id": ctx.new_id("call_", n),
                        "name": call.name,
                        "input": str(call.arguments.get("input", "")),
                        "status": "completed",
                    }
                )
                continue
            items.append(
                {
                    "type": "function_call",
                    "id": ctx.new_id("fc_", n),
                    "call_id": ctx.new_id("call_", n),
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                    "status": "completed",
                }
            )
        return items

    def handle_create_response(self, ctx: RequestContext) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        decision = self.decide(ctx)
        model = ctx.server.model or body.get("model") or DEFAULT_MODEL
        items = self.output_items(ctx, decision)
        usage_in, usage_out = _tokens(body), _tokens(items)
        usage = {
            "input_tokens": usage_in,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage_in + usage_out,
        }
        created = int(time.time())
        response_id = ctx.new_id("resp_")
        base = {"id": response_id, "object": "response", "created_at": created, "model": model}
        summary = {**decision.summary(), "stream": bool(body.get("stream"))}
        if not body.get("stream"):
            return Reply(
                200,
                json.dumps({**base, "status": "completed", "output": items, "usage": usage}).encode(),
                "application/json",
                summary,
            )
        seq = iter(range(1_000_000))
        frames = [
            encode_event(
                "response.created",
                {
                    "type": "response.created",
                    "sequence_number": next(seq),
                    "response": {**base, "status": "in_progress", "output": []},
                },
            )
        ]
        for index, item in enumerate(items):
            pending = (
                {**item, "status": "in_progress", "content": []}
                if item["type"] == "message"
                else {**item, "status": "in_progress"}
            )
            frames.append(
                encode_event(
                    "response.output_item.added",
                    {
                        "type": "response.output_item.added",
                        "sequence_number": next(seq),
                        "output_index": index,
                        "item": pending,
                    },
                )
            )
            if item["type"] == "message":
                frames.append(
                    encode_event(
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "sequence_number": next(seq),
                            "item_id": item["id"],
                            "output_index": index,
                            "content_index": 0,
                            "delta": item["content"][0]["text"],
                        },
                    )
                )
            frames.append(
                encode_event(
                    "response.output_item.done",
                    {
                        "type": "response.output_item.done",
                        "sequence_number": next(seq),
                        "output_index": index,
                        "item": item,
                    },
                )
            )
        frames.append(
            encode_event(
                "response.completed",
                {
                    "type": "response.completed",
                    "sequence_number": next(seq),
                    "response": {**base, "status": "completed", "output": items, "usage": usage},
                },
            )
        )
        return Reply(200, b"".join(frames), SSE, summary)


class OpenAIChatCompletions(_OpenAIBase):
    name = "openai-chat"
    routes = {
        ("POST", "/v1/chat/completions"): "handle_chat_completions",
        ("GET", "/v1/models"): "handle_models",
    }

    def offered_tools(self, body: Any) -> list[dict[str, Any]]:
        tools = body.get("tools") if isinstance(body, dict) else None
        out = []
        for tool in tools or []:
            if isinstance(tool, dict):
                fn = found if isinstance(found := tool.get("function"), dict) else {}
                out.append({**tool, "name": fn.get("name") or tool.get("name")})
        return out

    def latest_tool_result(self, body: Any) -> str | None:
        messages = body.get("messages") if isinstance(body, dict) else None
        for message in reversed(messages or []):
            if isinstance(message, dict) and message.get("role") == "tool":
                return _text_of(message.get("content"))
        return None

    def resolve_shell(self, tools: list[dict[str, Any]], call: ToolCall) -> ToolCall | None:
        names = {t.get("name") for t in tools}
        for shell in ("bash", "run_shell_command"):  # the chat hosts' shell tools (Pi, OpenCode; Qwen Code)
            if shell not in names:
                continue
            return ToolCall(
                shell,
                {
                    "command": call.arguments["command"],
                    "description": call.arguments.get("description") or "Run a shell command",
                },
            )
        if "run_commands" in names:  # Cline CLI's shell tool takes a list of commands
            return ToolCall("run_commands", {"commands": [call.arguments["command"]]})
        return None

    def handle_chat_completions(self, ctx: RequestContext) -> Reply:
        body = ctx.body if isinstance(ctx.body, dict) else {}
        decision = self.decide(ctx)
        model = ctx.server.model or body.get("model") or DEFAULT_MODEL
        calls = [
            {
                "id": ctx.new_id("call_", n),
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for n, c in enumerate(decision.tool_calls)
        ]
        finish = "tool_calls" if calls else "stop"
        usage_in, usage_out = _tokens(body.get("messages")), _tokens([decision.text, calls])
        usage = {"prompt_tokens": usage_in, "completion_tokens": usage_out, "total_tokens": usage_in + usage_out}
        created = int(time.time())
        completion_id = ctx.new_id("chatcmpl-")
        summary = {**decision.summary(), "stream": bool(body.get("stream")), "finish_reason": finish}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": decision.text}
            if calls:
                message["tool_calls"] = calls
            return Reply.json(
                200,
                {
                    "id": completion_id,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": usage,
                },
                **summary,
            )

        def chunk(choices: list[dict[str, Any]], **extra: Any) -> bytes:
            return encode_data(
                {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": choices,
                    **extra,
                }
            )

        frames = [chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])]
        if decision.text:
            frames.append(chunk([{"index": 0, "delta": {"content": decision.text}, "finish_reason": None}]))
        for n, call in enumerate(calls):
            frames.append(chunk([{"index": 0, "delta": {"tool_calls": [{"index": n, **call}]}, "finish_reason": None}]))
        frames.append(chunk([{"index": 0, "delta": {}, "finish_reason": finish}]))
        frames.append(chunk([], usage=usage))
        frames.append(encode_data("[DONE]"))
        return Reply(200, b"".join(frames), SSE, summary)
