"""The fake model servers, spoken to with urllib on 127.0.0.1; every SSE stream must parse."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from pasture.hostenv.fake_models import (
    SHELL,
    FakeModelServer,
    Script,
    ToolCall,
    Turn,
    parse_sse,
    redact_headers,
)
from pasture.hostenv.fake_models.sse import encode_event

# --- helpers ---------------------------------------------------------------------------------


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, str, bytes]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), err.read()


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


PROBE = Script.shell_then_reply("echo pasture-probe > probe.txt", "Done: {tool_result}")

ANTHROPIC_TOOLS = [
    {"name": "Bash", "description": "run", "input_schema": {"type": "object"}},
    {"name": "Write", "description": "write", "input_schema": {"type": "object"}},
]
RESPONSES_TOOLS = [{"type": "function", "name": "exec_command", "parameters": {}}, {"type": "web_search"}]
CHAT_TOOLS = [
    {"type": "function", "function": {"name": "bash", "parameters": {}}},
    {"type": "function", "function": {"name": "read", "parameters": {}}},
]


# --- SSE codec -------------------------------------------------------------------------------


def test_sse_round_trip_and_truncation() -> None:
    raw = encode_event("a", {"x": 1}) + encode_event(None, "multi\nline") + b": comment\n\n"
    events = parse_sse(raw)
    assert [(e.event, e.data) for e in events] == [("a", '{"x":1}'), (None, "multi\nline")]
    assert events[0].json() == {"x": 1}
    with pytest.raises(ValueError):
        parse_sse(b"event: a\ndata: {}\n")  # no terminating blank line


# --- Anthropic Messages ----------------------------------------------------------------------


def test_anthropic_streams_tool_use_then_text_quoting_the_tool_result(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with FakeModelServer("anthropic", PROBE, log_path=log) as fake:
        assert fake.url.startswith("http://127.0.0.1:")
        body = {
            "model": "claude-sonnet-4-5",
            "stream": True,
            "max_tokens": 32000,
            "tools": ANTHROPIC_TOOLS,
            "messages": [{"role": "user", "content": "Create the probe"}],
        }
        status, ctype, raw = post(
            fake.url + "/v1/messages?beta=true",
            body,
            {"x-api-key": "sk-ant-secret", "anthropic-beta": "claude-code-20250219"},
        )
        assert status == 200 and ctype.startswith("text/event-stream")
        events = parse_sse(raw)
        assert [e.event for e in events] == [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        assert all(e.json()["type"] == e.event for e in events)
        start = events[2].json()["content_block"]
        assert start["type"] == "tool_use" and start["name"] == "Bash" and start["input"] == {}
        delta = events[3].json()["delta"]
        assert delta["type"] == "input_json_delta"
        assert json.loads(delta["partial_json"])["command"] == "echo pasture-probe > probe.txt"
        assert events[5].json()["delta"]["stop_reason"] == "tool_use"

        body["messages"] += [
            {"role": "assistant", "content": [{"type": "tool_use", "id": start["id"], "name": "Bash", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": start["id"],
                        "content": [{"type": "text", "text": "probe written"}],
                    }
                ],
            },
        ]
        _, _, raw = post(fake.url + "/v1/messages", body)
        events = parse_sse(raw)
        text = "".join(e.json()["delta"]["text"] for e in events if e.event == "content_block_delta")
        assert text == "Done: probe written"
        assert events[-2].json()["delta"]["stop_reason"] == "end_turn"

    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries == fake.requests
    first = entries[0]
    assert first["path"] == "/v1/messages" and first["query"] == "beta=true"
    assert first["headers"]["x-api-key"] == "<redacted>"
    assert first["headers"]["anthropic-beta"] == "claude-code-20250219"
    assert "sk-ant-secret" not in log.read_text()
    assert first["body"]["max_tokens"] == 32000
    assert first["reply"]["kind"] == "turn" and first["reply"]["turn"] == 0
    assert first["reply"]["tool_calls"] == [
        {
            "name": "Bash",
            "arguments": {"command": "echo pasture-probe > probe.txt", "description": "Run a shell command"},
        }
    ]


def test_anthropic_json_reply_count_tokens_models_and_side_queries() -> None:
    script = Script.of(Turn.tool("Write", {"file_path": "/x", "content": "y"}, text="Writing."), side_text="A title")
    with FakeModelServer("anthropic", script) as fake:
        # no tools offered: a side query, answered without consuming the turn
        status, _, raw = post(fake.url + "/v1/messages", {"model": "m", "messages": []})
        assert status == 200 and json.loads(raw)["content"] == [{"type": "text", "text": "A title"}]
        status, _, raw = post(fake.url + "/v1/messages", {"model": "m", "tools": ANTHROPIC_TOOLS, "messages": []})
        message = json.loads(raw)
        assert message["type"] == "message" and message["stop_reason"] == "tool_use"
        assert [b["type"] for b in message["content"]] == ["text", "tool_use"]
        assert message["content"][1]["input"] == {"file_path": "/x", "content": "y"}
        # script exhausted: final text, end_turn
        _, _, raw = post(fake.url + "/v1/messages", {"model": "m", "tools": ANTHROPIC_TOOLS, "messages": []})
        assert json.loads(raw)["stop_reason"] == "end_turn"
        status, _, raw = post(fake.url + "/v1/messages/count_tokens", {"messages": [{"role": "user", "content": "hi"}]})
        assert status == 200 and json.loads(raw)["input_tokens"] >= 1
        status, models = get(fake.url + "/v1/models")
        assert status == 200 and models["data"][0]["type"] == "model"
        status, err = get(fake.url + "/v1/nope")
        assert status == 404 and err["type"] == "error"
    kinds = [r["reply"]["kind"] for r in fake.requests]
    assert kinds == ["side", "turn", "final", "count_tokens", "models", "not_found"]


def test_a_tool_the_host_does_not_offer_becomes_an_explaining_text() -> None:
    with FakeModelServer("anthropic", Script.of(Turn.tool("Nope", {}))) as fake:
        _, _, raw = post(fake.url + "/v1/messages", {"tools": ANTHROPIC_TOOLS, "messages": []})
    message = json.loads(raw)
    assert message["stop_reason"] == "end_turn"
    assert "tool 'Nope' not offered" in message["content"][0]["text"]
    assert "not offered" in fake.requests[0]["reply"]["error"]


# --- OpenAI Responses (Codex) ----------------------------------------------------------------


def test_responses_stream_function_call_then_message() -> None:
    with FakeModelServer("openai-responses", PROBE) as fake:
        body = {
            "model": "fake-model",
            "stream": True,
            "store": False,
            "tools": RESPONSES_TOOLS,
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}],
        }
        status, ctype, raw = post(fake.base_url_v1 + "/responses", body, {"Authorization": "Bearer sk-secret"})
        assert status == 200 and ctype.startswith("text/event-stream")
        events = parse_sse(raw)
        assert [e.event for e in events] == [
            "response.created",
            "response.output_item.added",
            "response.output_item.done",
            "response.completed",
        ]
        assert [e.json()["sequence_number"] for e in events] == [0, 1, 2, 3]
        item = events[2].json()["item"]
        assert item["type"] == "function_call" and item["name"] == "exec_command"
        assert json.loads(item["arguments"]) == {"cmd": "echo pasture-probe > probe.txt"}
        completed = events[3].json()["response"]
        assert completed["status"] == "completed" and completed["output"] == [item]
        assert {"input_tokens", "output_tokens", "total_tokens"} <= set(completed["usage"])

        body["input"] += [item, {"type": "function_call_output", "call_id": item["call_id"], "output": "exit 0"}]
        _, _, raw = post(fake.base_url_v1 + "/responses", body)
        events = parse_sse(raw)
        assert [e.event for e in events] == [
            "response.created",
            "response.output_item.added",
            "response.output_text.delta",
            "response.output_item.done",
            "response.completed",
        ]
        assert events[2].json()["delta"] == "Done: exit 0"
        assert events[3].json()["item"]["content"][0] == {
            "type": "output_text",
            "text": "Done: exit 0",
            "annotations": [],
        }
    assert fake.requests[0]["headers"]["authorization"] == "<redacted>"


@pytest.mark.parametrize(
    ("tools", "expected"),
    [
        ([{"type": "function", "name": "shell_command"}], ("shell_command", {"command": "ls"})),
        ([{"type": "function", "name": "shell"}], ("shell", {"command": ["bash", "-lc", "ls"]})),
    ],
)
def test_responses_shell_falls_back_to_older_shell_tools(tools: list, expected: tuple) -> None:
    with FakeModelServer("openai-responses", Script.of(Turn.shell("ls"))) as fake:
        _, _, raw = post(fake.base_url_v1 + "/responses", {"tools": tools, "input": []})
    item = json.loads(raw)["output"][0]
    assert (item["name"], json.loads(item["arguments"])) == expected


# --- OpenAI Chat Completions (OpenCode) ------------------------------------------------------


def test_chat_stream_tool_call_then_text_and_done() -> None:
    with FakeModelServer("openai-chat", PROBE) as fake:
        # OpenCode's title request offers no tools: a side query
        _, _, raw = post(
            fake.base_url_v1 + "/chat/completions",
            {"model": "fake-model", "stream": True, "messages": [{"role": "user", "content": "title?"}]},
        )
        chunks = parse_sse(raw)
        assert chunks[-1].data == "[DONE]"
        assert (
            "".join(c.json()["choices"][0]["delta"].get("content", "") for c in chunks[:-1] if c.json()["choices"])
            == "Pasture probe"
        )

        body = {
            "model": "fake-model",
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": CHAT_TOOLS,
            "messages": [{"role": "user", "content": "go"}],
        }
        status, ctype, raw = post(fake.base_url_v1 + "/chat/completions", body)
        assert status == 200 and ctype.startswith("text/event-stream")
        chunks = parse_sse(raw)
        assert all(c.event is None for c in chunks) and chunks[-1].data == "[DONE]"
        objs = [c.json() for c in chunks[:-1]]
        assert all(o["object"] == "chat.completion.chunk" for o in objs)
        assert objs[0]["choices"][0]["delta"]["role"] == "assistant"
        call = objs[1]["choices"][0]["delta"]["tool_calls"][0]
        assert call["index"] == 0 and call["type"] == "function" and call["function"]["name"] == "bash"
        assert json.loads(call["function"]["arguments"])["command"] == "echo pasture-probe > probe.txt"
        assert objs[2]["choices"][0]["finish_reason"] == "tool_calls"
        assert objs[3]["choices"] == [] and objs[3]["usage"]["total_tokens"] > 0

        body["messages"] += [
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": "(no output)"},
        ]
        body["stream"] = False
        _, _, raw = post(fake.base_url_v1 + "/chat/completions", body)
        completion = json.loads(raw)
        assert completion["choices"][0]["message"]["content"] == "Done: (no output)"
        assert completion["choices"][0]["finish_reason"] == "stop"
    assert [r["reply"]["kind"] for r in fake.requests] == ["side", "turn", "turn"]
    status, _ = 0, None


def test_chat_multiple_tool_calls_in_one_turn() -> None:
    turn = Turn(text="two things", tool_calls=(ToolCall(SHELL, {"command": "a"}), ToolCall("read", {"filePath": "x"})))
    with FakeModelServer("openai-chat", Script.of(turn)) as fake:
        _, _, raw = post(fake.base_url_v1 + "/chat/completions", {"stream": True, "tools": CHAT_TOOLS, "messages": []})
    objs = [c.json() for c in parse_sse(raw)[:-1]]
    calls = [
        o["choices"][0]["delta"]["tool_calls"][0]
        for o in objs
        if o["choices"] and "tool_calls" in o["choices"][0]["delta"]
    ]
    assert [c["function"]["name"] for c in calls] == ["bash", "read"]
    assert [c["index"] for c in calls] == [0, 1]
    assert len({c["id"] for c in calls}) == 2


# --- Gemini generateContent (Gemini CLI) -----------------------------------------------------

GEMINI_TOOLS = [
    {
        "functionDeclarations": [
            {"name": "run_shell_command", "description": "run", "parametersJsonSchema": {"type": "object"}},
            {"name": "read_file", "description": "read", "parametersJsonSchema": {"type": "object"}},
        ]
    }
]


def gemini_chunks(raw: bytes) -> list[dict[str, Any]]:
    events = parse_sse(raw)
    assert all(e.event is None for e in events)
    return [e.json() for e in events]


def test_gemini_streams_a_function_call_then_text_quoting_the_function_response(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with FakeModelServer("gemini", PROBE, log_path=log) as fake:
        url = fake.url + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        body = {
            "contents": [{"role": "user", "parts": [{"text": "Create the probe"}]}],
            "tools": GEMINI_TOOLS,
            "systemInstruction": {"role": "user", "parts": [{"text": "You are an agent"}]},
        }
        status, ctype, raw = post(url, body, {"x-goog-api-key": "AIza-secret"})
        assert status == 200 and ctype.startswith("text/event-stream")
        chunks = gemini_chunks(raw)
        assert len(chunks) == 2
        call = chunks[0]["candidates"][0]["content"]["parts"][0]["functionCall"]
        assert call == {
            "name": "run_shell_command",
            "args": {"command": "echo pasture-probe > probe.txt", "description": "Run a shell command"},
        }
        assert chunks[0]["candidates"][0]["content"]["role"] == "model"
        assert "finishReason" not in chunks[0]["candidates"][0]
        last = chunks[-1]
        assert last["candidates"][0]["finishReason"] == "STOP"
        usage = last["usageMetadata"]
        assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"] > 0
        assert {c["responseId"] for c in chunks} == {chunks[0]["responseId"]}

        body["contents"] += [
            {"role": "model", "parts": [{"functionCall": call}]},
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "run_shell_command",
                            "response": {"output": "Output: (empty)"},
                        }
                    }
                ],
            },
        ]
        _, _, raw = post(url, body)
        chunks = gemini_chunks(raw)
        text = "".join(p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"])
        assert text == "Done: Output: (empty)"
        assert not any("functionCall" in p for c in chunks for p in c["candidates"][0]["content"]["parts"])

        # a refused call comes back as {"error": ...}: the model sees that text (turns used up: the final text)
        body["contents"][-1]["parts"][0]["functionResponse"]["response"] = {"error": "blocked: no probe"}
        _, _, raw = post(url, body)
        assert (
            gemini_chunks(raw)[0]["candidates"][0]["content"]["parts"][0]["text"]
            == "Done. Last tool result: blocked: no probe"
        )

    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert entries == fake.requests
    first = entries[0]
    assert first["path"] == "/v1beta/models/gemini-2.5-pro:streamGenerateContent" and first["query"] == "alt=sse"
    assert first["headers"]["x-goog-api-key"] == "<redacted>" and "AIza-secret" not in log.read_text()
    assert first["reply"]["kind"] == "turn" and first["reply"]["turn"] == 0 and first["reply"]["stream"] is True
    assert first["reply"]["model"] == "gemini-2.5-pro"
    assert [e["reply"]["kind"] for e in entries] == ["turn", "turn", "final"]


def test_gemini_generate_content_json_side_queries_count_tokens_and_models() -> None:
    script = Script.of(
        Turn(
            text="Running it.",
            tool_calls=(ToolCall(SHELL, {"command": "ls"}), ToolCall("read_file", {"file_path": "a"})),
        ),
        side_text="{}",
    )
    with FakeModelServer("gemini", script) as fake:
        base = fake.url + "/v1beta/models/gemini-2.5-flash"
        # no tools: a side query (Gemini CLI's JSON-mode helper calls), answered without consuming the turn
        status, ctype, raw = post(base + ":generateContent", {"contents": [{"role": "user", "parts": [{"text": "?"}]}]})
        assert status == 200 and ctype == "application/json"
        assert json.loads(raw)["candidates"][0]["content"]["parts"] == [{"text": "{}"}]

        status, _, raw = post(base + ":generateContent", {"contents": [], "tools": GEMINI_TOOLS})
        response = json.loads(raw)
        candidate = response["candidates"][0]
        assert candidate["finishReason"] == "STOP" and candidate["content"]["role"] == "model"
        assert candidate["content"]["parts"] == [
            {"text": "Running it."},
            {
                "functionCall": {
                    "name": "run_shell_command",
                    "args": {"command": "ls", "description": "Run a shell command"},
                }
            },
            {"functionCall": {"name": "read_file", "args": {"file_path": "a"}}},
        ]
        assert response["usageMetadata"]["totalTokenCount"] > 0

        status, _, raw = post(base + ":countTokens", {"contents": [{"role": "user", "parts": [{"text": "x"}]}]})
        assert status == 200 and json.loads(raw)["totalTokens"] > 0
        status, models = get(fake.url + "/v1beta/models")
        assert status == 200 and models["models"][0]["name"].startswith("models/")

        status, _, raw = post(base + ":embedContent", {})
        assert status == 404 and json.loads(raw)["error"]["status"] == "NOT_FOUND"
        status, _, raw = post(fake.url + "/v1beta/models/x/y:generateContent", {})
        assert status == 404
    assert [r["reply"].get("kind") for r in fake.requests] == [
        "side",
        "turn",
        "count_tokens",
        "models",
        "not_found",
        "not_found",
    ]


def test_gemini_without_a_shell_tool_says_so_in_text() -> None:
    tools = [{"functionDeclarations": [{"name": "read_file"}]}]
    with FakeModelServer("gemini", Script.of(Turn.shell("ls"))) as fake:
        _, _, raw = post(fake.url + "/v1beta/models/m:generateContent", {"contents": [], "tools": tools})
    parts = json.loads(raw)["candidates"][0]["content"]["parts"]
    assert len(parts) == 1 and "no shell tool offered (tools: ['read_file'])" in parts[0]["text"]


# --- bounds, binding, scripts ----------------------------------------------------------------


def test_request_limit_answers_an_error_then_stops() -> None:
    fake = FakeModelServer("openai-chat", PROBE, max_requests=2).start()
    try:
        assert get(fake.base_url_v1 + "/models")[0] == 200
        assert get(fake.base_url_v1 + "/models")[0] == 200
        status, err = get(fake.base_url_v1 + "/models")
        assert status == 400 and "request limit" in err["error"]["message"]
        assert fake.wait_stopped(120)
        assert fake.stop_reason == "max_requests"
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(fake.base_url_v1 + "/models", timeout=2)
    finally:
        fake.stop()


def test_deadline_stops_the_server_by_itself() -> None:
    fake = FakeModelServer("anthropic", PROBE, deadline=0.3).start()
    assert fake.wait_stopped(120)  # a bound for a busy machine: it returns when the server stops
    assert fake.stop_reason == "deadline"  # the deadline stopped it, nothing else (no wall time asserted)


def test_binds_loopback_only() -> None:
    with pytest.raises(ValueError):
        FakeModelServer("anthropic", PROBE, host="0.0.0.0")
    with FakeModelServer("anthropic", PROBE) as fake:
        assert fake._httpd.server_address[0] == "127.0.0.1"  # type: ignore[union-attr]


def test_gzip_request_bodies_are_logged_decoded() -> None:
    import gzip

    with FakeModelServer("openai-responses", PROBE) as fake:
        req = urllib.request.Request(
            fake.base_url_v1 + "/responses",
            method="POST",
            data=gzip.compress(json.dumps({"tools": RESPONSES_TOOLS, "input": []}).encode()),
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200
    assert fake.requests[0]["body"]["tools"][0]["name"] == "exec_command"


def test_redaction_covers_credential_headers() -> None:
    headers = {
        "authorization": "Bearer a",
        "x-api-key": "b",
        "api-key": "c",
        "cookie": "d",
        "proxy-authorization": "e",
        "x-goog-api-key": "f",
        "anthropic-version": "2023-06-01",
        "session-id": "s",
        "x-codex-turn-metadata": "{}",
    }
    out = redact_headers(headers)
    assert {k for k, v in out.items() if v == "<redacted>"} == {
        "authorization",
        "x-api-key",
        "api-key",
        "cookie",
        "proxy-authorization",
        "x-goog-api-key",
    }


def test_script_json_round_trip() -> None:
    script = Script.of(
        Turn.shell("echo hi", text="running"),
        Turn.tool("Write", {"a": 1}),
        Turn.reply("bye"),
        final_text="F",
        side_text="S",
    )
    assert Script.from_json(script.to_json()) == script
    assert Script.from_dict([{"text": "only"}]).turns == (Turn.reply("only"),)
    with pytest.raises(ValueError):
        Turn()


def test_a_chat_reply_has_no_error_unless_given_one() -> None:
    # The field was named like the classmethod ChatReply.error, which became its default: every
    # reply's error was that bound method, and a bare error status could not be encoded.
    from pasture.hostenv.fake_models import ChatReply

    assert ChatReply.text("hi").error_message is None and ChatReply.json({}).error_message is None
    assert ChatReply.error(503).error_message == "Service Unavailable"
    bare = ChatReply(status=503).reply({}, 0)
    assert bare.status == 503 and json.loads(bare.body)["error"]["message"] is None


def test_cli_entry_point_writes_its_port_and_serves(tmp_path: Path) -> None:
    import subprocess
    import sys

    from pasture.hostenv.netns import python_env

    script = tmp_path / "script.json"
    script.write_text(Script.of(Turn.reply("hello")).to_json())
    port_file = tmp_path / "port"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pasture.hostenv.fake_models",
            "--protocol",
            "openai-chat",
            "--script",
            str(script),
            "--port-file",
            str(port_file),
            "--log",
            str(tmp_path / "log.jsonl"),
            "--deadline",
            "30",
        ],
        env=python_env(),
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            if port_file.exists():
                break
            time.sleep(0.05)
        port = int(port_file.read_text())
        _, _, raw = post(f"http://127.0.0.1:{port}/v1/chat/completions", {"tools": CHAT_TOOLS, "messages": []})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "hello"
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
    assert json.loads((tmp_path / "log.jsonl").read_text().splitlines()[0])["reply"]["kind"] == "turn"


def test_chat_fake_maps_shell_to_clines_run_commands():
    from pasture.hostenv.fake_models.openai import OpenAIChatCompletions

    fake = OpenAIChatCompletions.__new__(OpenAIChatCompletions)
    call = ToolCall("shell", {"command": "ls -la"})
    assert fake.resolve_shell([{"name": "run_commands"}], call) == ToolCall("run_commands", {"commands": ["ls -la"]})
    assert fake.resolve_shell([{"name": "read_file"}], call) is None
