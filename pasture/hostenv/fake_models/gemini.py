"""The Gemini API (``generativelanguage`` v1beta), as Gemini CLI uses it with an API key.

* ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``: SSE of ``data:`` frames, each a
  ``GenerateContentResponse`` chunk: one chunk per part (``{"text"}`` or
  ``{"functionCall": {"name", "args"}}`` in ``candidates[0].content.parts``), then a chunk with
  ``finishReason: "STOP"`` and ``usageMetadata``. Gemini has no "tool_use" stop reason: a turn with
  function calls also ends with ``STOP``.
* ``POST /v1beta/models/<model>:generateContent``: the same answer as one JSON response.
* ``POST /v1beta/models/<model>:countTokens`` -> ``{"totalTokens": N}``.
* ``GET /v1beta/models`` -> a one-model list.

The model is part of the path, so routes are matched by pattern (:meth:`GeminiGenerateContent.dispatch`).
Tools arrive as ``tools[].functionDeclarations[]``; a tool result is the newest
``functionResponse`` part, whose ``response`` is ``{"output": ...}`` or ``{"error": ...}`` (as the
Gemini CLI bundle builds it). A :data:`~.script.SHELL` call becomes ``run_shell_command
{command, description}``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pasture.hostenv.fake_models.server import Decision, Reply, RequestContext, WireProtocol
from pasture.hostenv.fake_models.sse import encode_data
from pasture.hosts.script import ToolCall

__all__ = ["GeminiGenerateContent"]

DEFAULT_MODEL = "gemini-2.5-pro"
SHELL_TOOL = "run_shell_command"
SSE = "text/event-stream; charset=utf-8"
_MODEL_PATH = re.compile(r"^/(?P<version>v1beta|v1alpha|v1)/models/(?P<model>[^/:]+):(?P<method>[A-Za-z]+)$")
_METHODS = {
    "streamGenerateContent": "handle_stream",
    "generateContent": "handle_generate",
    "countTokens": "handle_count_tokens",
}


def _text_of(response: Any) -> str:
    """The text a ``functionResponse.response`` carries (``output``, else ``error``, else its JSON)."""
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for key in ("output", "error", "content", "result"):
            if key in response:
                value = response[key]
                return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return json.dumps(response, ensure_ascii=False) if response else ""
    return "" if response is None else json.dumps(response, ensure_ascii=False)


def _tokens(obj: Any) -> int:
    return max(1, len(json.dumps(obj or {})) // 4)


class GeminiGenerateContent(WireProtocol):
    name = "gemini"

    @classmethod
    def turn_items(cls, body: dict[str, Any]) -> list[Any]:
        """The content parts after the model's last turn, a function response as its text."""
        contents = body.get("contents") or []
        cut = 0
        for i, content in enumerate(contents):
            if isinstance(content, dict) and content.get("role") == "model":
                cut = i + 1
        return [_part(p) for c in contents[cut:] if isinstance(c, dict) for p in c.get("parts") or []]

    routes = {("GET", "/v1beta/models"): "handle_models", ("GET", "/v1/models"): "handle_models"}

    def dispatch(self, ctx: RequestContext) -> Reply:
        match = _MODEL_PATH.match(ctx.path)
        if ctx.method == "POST" and match and match["method"] in _METHODS:
            return getattr(self, _METHODS[match["method"]])(ctx, match["model"])
        return super().dispatch(ctx)

    def offered_tools(self, body: Any) -> list[dict[str, Any]]:
        tools = body.get("tools") if isinstance(body, dict) else None
        out: list[dict[str, Any]] = []
        for tool in tools or []:
            if isinstance(tool, dict):
                out.extend(d for d in tool.get("functionDeclarations") or [] if isinstance(d, dict))
        return out

    def latest_tool_result(self, body: Any) -> str | None:
        contents = body.get("contents") if isinstance(body, dict) else None
        for content in reversed(contents or []):
            parts = content.get("parts") if isinstance(content, dict) else None
            results = [
                p["functionResponse"]
                for p in parts or []
                if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)
            ]
            if results:
                return _text_of(results[-1].get("response"))
        return None

    def resolve_shell(self, tools: list[dict[str, Any]], call: ToolCall) -> ToolCall | None:
        if any(t.get("name") == SHELL_TOOL for t in tools):
            return ToolCall(
                SHELL_TOOL,
                {
                    "command": call.arguments["command"],
                    "description": call.arguments.get("description") or "Run a shell command",
                },
            )
        return None

    def error_body(self, status: int, message: str) -> Any:
        kind = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 500: "INTERNAL"}.get(status, "INVALID_ARGUMENT")
        return {"error": {"code": status, "message": message, "status": kind}}

    # --- routes ---------------------------------------------------------------------------
    def handle_models(self, ctx: RequestContext) -> Reply:
        model = ctx.server.model or DEFAULT_MODEL
        return Reply.json(
            200,
            {
                "models": [
                    {
                        "name": f"models/{model}",
                        "displayName": "Pasture fake model",
                        "version": "001",
                        "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
                    }
                ]
            },
            kind="models",
        )

    def handle_count_tokens(self, ctx: RequestContext, model: str) -> Reply:
        return Reply.json(200, {"totalTokens": _tokens(ctx.body)}, kind="count_tokens")

    def handle_generate(self, ctx: RequestContext, model: str) -> Reply:
        decision = self.decide(ctx)
        parts = self.parts(decision)
        response = {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": self.usage(ctx, parts),
            "modelVersion": ctx.server.model or model,
            "responseId": ctx.new_id("resp_"),
        }
        return Reply.json(200, response, **decision.summary(), stream=False, model=model)

    def handle_stream(self, ctx: RequestContext, model: str) -> Reply:
        decision = self.decide(ctx)
        parts = self.parts(decision)
        version, response_id = ctx.server.model or model, ctx.new_id("resp_")

        def chunk(candidate: dict[str, Any], **extra: Any) -> bytes:
            return encode_data(
                {"candidates": [{**candidate, "index": 0}], **extra, "modelVersion": version, "responseId": response_id}
            )

        frames = [chunk({"content": {"role": "model", "parts": [part]}}) for part in parts]
        frames.append(
            chunk(
                {"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"},
                usageMetadata=self.usage(ctx, parts),
            )
        )
        return Reply(200, b"".join(frames), SSE, {**decision.summary(), "stream": True, "model": model})

    # --- building blocks ------------------------------------------------------------------
    def parts(self, decision: Decision) -> list[dict[str, Any]]:
        parts: list[dict[str, Any]] = [{"text": decision.text}] if decision.text else []
        parts.extend({"functionCall": {"name": c.name, "args": dict(c.arguments)}} for c in decision.tool_calls)
        return parts

    def usage(self, ctx: RequestContext, parts: list[dict[str, Any]]) -> dict[str, int]:
        prompt, out = _tokens((ctx.body or {}).get("contents") if isinstance(ctx.body, dict) else None), _tokens(parts)
        return {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}


def _part(part: Any) -> Any:
    """One content part as ``{"text": ...}`` (a function response: its output, else its error)."""
    if not isinstance(part, dict):
        return part
    response = part.get("functionResponse")
    if isinstance(response, dict):
        answer = response.get("response")
        body: dict[str, Any] = answer if isinstance(answer, dict) else {}
        value = body.get("output", body.get("error", ""))
        return {
            "type": "function_response",
            "name": response.get("name"),
            "text": value if isinstance(value, str) else json.dumps(value),
        }
    return part
