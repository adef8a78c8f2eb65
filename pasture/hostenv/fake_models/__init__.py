"""Scripted fake model servers for running the real hosts offline (stdlib only, 127.0.0.1 only).

Wire protocols, one per host API, and one for clients that call a model directly:

=====================  =========================  =======================================
protocol name          host                       endpoint
=====================  =========================  =======================================
``anthropic``          Claude Code                ``POST /v1/messages`` (SSE or JSON)
``openai-responses``   Codex CLI                  ``POST /v1/responses`` (SSE or JSON)
``openai-chat``        OpenCode, Copilot CLI,     ``POST /v1/chat/completions`` (SSE/JSON)
                       Pi
``gemini``             Gemini CLI                 ``POST /v1beta/models/<m>:streamGenerateContent``
                                                   (SSE) and ``:generateContent`` (JSON)
``openai-chat-replies``  the AI gate (any client)   ``POST /v1/chat/completions``, answers
                                                   from a queue (chat_replies.py)
=====================  =========================  =======================================

Typical use::

    script = Script.of(Turn.shell("echo hi > probe.txt"), Turn.reply("Done: {tool_result}"))
    with FakeModelServer("anthropic", script, log_path=run / "requests.jsonl") as fake:
        ...  # point the host at fake.url (Anthropic) or fake.base_url_v1 (OpenAI-style)
    fake.requests  # one dict per request: method, path, redacted headers, body, reply summary
"""

from __future__ import annotations

from pasture.hostenv.fake_models.anthropic import AnthropicMessages
from pasture.hostenv.fake_models.chat_replies import ChatReply, ChatReplyQueue, FakeChatServer
from pasture.hostenv.fake_models.gemini import GeminiGenerateContent
from pasture.hostenv.fake_models.openai import OpenAIChatCompletions, OpenAIResponses
from pasture.hostenv.fake_models.server import FakeModelServer, Reply, WireProtocol, protocol_for, redact_headers
from pasture.hostenv.fake_models.sse import SseEvent, parse_sse
from pasture.hosts.script import SHELL, TOOL_RESULT, Script, ScriptCursor, ToolCall, Turn

#: every wire protocol by name (each registers itself on definition; the imports above define them all)
PROTOCOLS: dict[str, type[WireProtocol]] = WireProtocol.registry


__all__ = [
    "PROTOCOLS",
    "SHELL",
    "TOOL_RESULT",
    "AnthropicMessages",
    "ChatReply",
    "ChatReplyQueue",
    "FakeChatServer",
    "FakeModelServer",
    "GeminiGenerateContent",
    "OpenAIChatCompletions",
    "OpenAIResponses",
    "Reply",
    "Script",
    "ScriptCursor",
    "SseEvent",
    "ToolCall",
    "Turn",
    "WireProtocol",
    "parse_sse",
    "protocol_for",
    "redact_headers",
]
