"""The OpenAI-compatible backend against the fake chat-completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time

import pydantic
import pytest
from gates_models import SeverityClassification

from pasture.gates import AIGateWrapper, AIIntegrationError, EnvAIConfig, OpenAIChatClient, is_transient_error
from pasture.gates.gate import GateDecision
from pasture.gates.openai_chat import (
    ChatConnectionError,
    ChatHTTPError,
    ChatProtocolError,
    decode_json_content,
    json_schema_response_format,
)
from pasture.hostenv.fake_models import ChatReply as Reply
from pasture.hostenv.fake_models import FakeChatServer

SEVERITY = {"severity": "high", "confidence": 0.9, "rationale": "sqli"}


class Recorder:
    def __init__(self):
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)


def gate_for(fake: FakeChatServer, sleep: Recorder, **kw) -> AIGateWrapper:
    cfg = EnvAIConfig(ai_base_url=fake.base_url, ai_api_key="sk-test", ai_model="fake/model", **kw)
    return AIGateWrapper(OpenAIChatClient.from_config(cfg, timeout=5), cfg, sleep=sleep)


def invoke(gate, schema=SeverityClassification, system="Be brief."):
    return asyncio.run(gate.invoke(user="Finding: SQL injection", schema=schema, system=system))


def test_503_then_success_is_retried_with_the_right_sleep():
    sleep = Recorder()
    with FakeChatServer([Reply.error(503), Reply.json(SEVERITY)]) as fake:
        gate = gate_for(fake, sleep)
        assert invoke(gate) == SeverityClassification(**SEVERITY)
        assert len(fake.chat_requests) == 2
    assert sleep.slept == [2.0]
    assert gate.invocation_count == 1


def test_three_5xx_then_success_sleeps_2_4_8():
    sleep = Recorder()
    replies = [Reply.error(500), Reply.error(502), Reply.error(504), Reply.json(SEVERITY)]
    with FakeChatServer(replies) as fake:
        gate = gate_for(fake, sleep)
        invoke(gate)
        assert len(fake.chat_requests) == 4
    assert sleep.slept == [2.0, 4.0, 8.0]


def test_5xx_exhausts_after_max_retries():
    sleep = Recorder()
    with FakeChatServer([Reply.error(503)] * 10) as fake:
        gate = gate_for(fake, sleep)
        with pytest.raises(ChatHTTPError) as info:
            invoke(gate)
        assert len(fake.chat_requests) == 4
    assert info.value.status == 503 and str(info.value).startswith("HTTP 503 Service Unavailable")
    assert sleep.slept == [2.0, 4.0, 8.0]


def test_400_is_not_retried():
    sleep = Recorder()
    replies = [Reply.error(400, "model 'fake/model' does not support json_schema"), Reply.json(SEVERITY)]
    with FakeChatServer(replies) as fake:
        gate = gate_for(fake, sleep)
        with pytest.raises(ChatHTTPError) as info:
            invoke(gate)
        assert len(fake.chat_requests) == 1
    assert str(info.value) == "HTTP 400 Bad Request: model 'fake/model' does not support json_schema"
    assert sleep.slept == [] and gate.invocation_count == 1


@pytest.mark.parametrize("status", [401, 403, 404, 422])
def test_other_4xx_are_not_transient(status):
    with FakeChatServer([Reply.error(status, "no")]) as fake:
        client = OpenAIChatClient(fake.base_url)
        with pytest.raises(ChatHTTPError) as info:
            client.create(messages=[{"role": "user", "content": "x"}], model="m")
    assert not is_transient_error(str(info.value))


@pytest.mark.parametrize(("status", "detail"), [(429, "slow down"), (408, "")])
def test_429_and_408_are_transient(status, detail):
    sleep = Recorder()
    with FakeChatServer([Reply.error(status, detail), Reply.json(SEVERITY)]) as fake:
        invoke(gate_for(fake, sleep))
    assert sleep.slept == [2.0]


def test_invalid_json_output_raises():
    sleep = Recorder()
    usage = {"prompt_tokens": 9, "completion_tokens": 4, "cost": 0.002}
    with FakeChatServer([Reply.text("Severity: high. Trust me.", usage=usage)]) as fake:
        gate = gate_for(fake, sleep)
        with pytest.raises(
            AIIntegrationError, match="^AI gate returned invalid payload for schema SeverityClassification$"
        ):
            invoke(gate)
        assert len(fake.chat_requests) == 1
    assert sleep.slept == []
    assert gate.total_cost_usd == pytest.approx(0.002)  # the unusable answer was still paid for


def test_json_that_misses_the_schema_raises_validation_error():
    with FakeChatServer([Reply.json({"severity": "high"})]) as fake:
        with pytest.raises(pydantic.ValidationError):
            invoke(gate_for(fake, Recorder()))


def test_usage_cost_accumulates():
    replies = [
        Reply.json(SEVERITY, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cost": 0.0125}),
        Reply.error(503),
        Reply.json(SEVERITY, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cost": 0.0075}),
        Reply.json(SEVERITY, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}),  # no cost
        Reply.json(SEVERITY, headers={"x-litellm-response-cost": "0.5"}),  # LiteLLM header
    ]
    sleep = Recorder()
    with FakeChatServer(replies) as fake:
        gate = gate_for(fake, sleep)
        for _ in range(4):
            invoke(gate)
    assert gate.invocation_count == 4
    assert gate.total_cost_usd == pytest.approx(0.52)
    assert sleep.slept == [2.0]


def test_request_shape():
    with FakeChatServer([Reply.json(SEVERITY), Reply.json({"decision": "deny", "reason": "r"})]) as fake:
        gate = gate_for(fake, Recorder())
        invoke(gate)
        asyncio.run(gate.invoke(user="only user", schema=GateDecision))  # system=None: omitted
        first, second = fake.chat_requests
    assert first["path"] == "/v1/chat/completions"
    assert first["headers"]["authorization"] == "<redacted>"  # sent, and redacted in the log
    assert first["headers"]["content-type"] == "application/json"
    body = first["body"]
    assert body["model"] == "fake/model"
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Finding: SQL injection"},
    ]
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "SeverityClassification",
            "schema": SeverityClassification.model_json_schema(),
            "strict": False,
        },
    }
    assert "usage" not in body  # usage accounting is only requested from OpenRouter
    assert second["body"]["messages"] == [{"role": "user", "content": "only user"}]
    assert second["body"]["response_format"]["json_schema"]["strict"] is True  # GateDecision is closed


def test_openrouter_base_url_requests_usage_accounting():
    cfg = EnvAIConfig(ai_base_url="https://openrouter.ai/api/v1", ai_api_key=None)
    assert OpenAIChatClient.from_config(cfg).extra_body == {"usage": {"include": True}}
    cfg = EnvAIConfig(ai_base_url="http://127.0.0.1:8000/v1", ai_api_key=None)
    assert OpenAIChatClient.from_config(cfg).extra_body == {}


def test_no_key_sends_no_authorization():
    with FakeChatServer([Reply.json(SEVERITY)]) as fake:
        OpenAIChatClient(fake.base_url).create(messages=[{"role": "user", "content": "x"}], model="m")
        headers = fake.chat_requests[0]["headers"]
        assert "authorization" not in headers and headers["content-type"] == "application/json"


def test_non_json_body_is_a_protocol_error():
    with FakeChatServer([Reply.raw("<html>gateway</html>"), Reply.raw('{"choices": []}')]) as fake:
        client = OpenAIChatClient(fake.base_url)
        for _ in range(2):
            with pytest.raises(ChatProtocolError) as info:
                client.create(messages=[{"role": "user", "content": "x"}], model="m")
            assert not is_transient_error(str(info.value))


def test_connection_refused_is_transient():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    client = OpenAIChatClient(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ChatConnectionError) as info:
        client.create(messages=[{"role": "user", "content": "x"}], model="m")
    assert str(info.value) == "connection refused"  # no port in the message
    assert is_transient_error(str(info.value))


def test_slow_server_times_out_transiently():
    with FakeChatServer([Reply.json(SEVERITY, delay=1.0)]) as fake:
        client = OpenAIChatClient(fake.base_url, timeout=0.2)
        # the reply comes after 1 s: "request timed out" is the 0.2 s timeout (no wall-clock bound asserted)
        with pytest.raises(ChatConnectionError, match="^request timed out$"):
            client.create(messages=[{"role": "user", "content": "x"}], model="m")


def test_error_messages_never_carry_the_port():
    # A port such as 35031 contains "503": it must not make a 400 look transient.
    with FakeChatServer([Reply.error(400, "bad")]) as fake:
        with pytest.raises(ChatHTTPError) as info:
            OpenAIChatClient(fake.base_url).create(messages=[], model="m")
        assert str(fake.port) not in str(info.value)


@pytest.mark.parametrize(
    ("content", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('  \n```json\n{"a": 1}\n```\n', {"a": 1}),
        ("```\n[1, 2]\n```", [1, 2]),
        ("not json", None),
        ("", None),
        (None, None),
        ('```json\n{"a": 1}', None),
    ],
)
def test_decode_json_content(content, value):
    assert decode_json_content(content) == value


def test_response_format_name_is_sanitized():
    Weird = type("My Schema/v2", (), {"model_json_schema": staticmethod(lambda: {"type": "object"})})

    assert json_schema_response_format(Weird)["json_schema"]["name"] == "My_Schema_v2"


def test_fake_server_runs_as_a_process(tmp_path):
    script = tmp_path / "replies.json"
    script.write_text(
        json.dumps(
            {"replies": [{"status": 503}, {"json": SEVERITY, "usage": {"cost": 0.1}}], "default": {"content": "later"}}
        )
    )
    port_file = tmp_path / "port"
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "pasture.hostenv.fake_models", "--protocol", "openai-chat-replies",
         "--script", str(script), "--port-file", str(port_file), "--log", str(log), "--deadline", "30"],
    )  # fmt: skip
    try:
        # until the server says where it listens (or ends): however long a busy machine takes
        while not (port_file.exists() and port_file.read_text().strip()) and proc.poll() is None:
            time.sleep(0.05)
        client = OpenAIChatClient(f"http://127.0.0.1:{port_file.read_text().strip()}/v1")
        with pytest.raises(ChatHTTPError):
            client.create(messages=[{"role": "user", "content": "x"}], model="m")
        result = client.create(messages=[{"role": "user", "content": "x"}], model="m")
        assert result.parsed == SEVERITY and result.cost_usd == 0.1
        assert client.create(messages=[], model="m").content == "later"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["reply"]["status"] for e in entries] == [503, 200, 200]
    assert [e["reply"]["index"] for e in entries] == [0, 1, None]


@pytest.mark.parametrize(
    ("exc", "message", "transient"),
    [
        (TimeoutError("read timed out"), "request timed out", True),
        (ConnectionRefusedError(111, "refused"), "connection refused", True),
        (ConnectionResetError(104, "reset"), "connection reset (ConnectionResetError)", True),
        (BrokenPipeError(32, "pipe"), "connection reset (BrokenPipeError)", True),
        (__import__("http.client").client.RemoteDisconnected("gone"),
         "connection reset (server closed the connection without a response)", True),
        (__import__("http.client").client.IncompleteRead(b"par"), "connection reset (response body cut short)", True),
        (__import__("urllib.error").error.URLError(__import__("socket").gaierror(-2, "Name or service not known")),
         "connection failed: gaierror: [Errno -2] Name or service not known", False),
    ],
)  # fmt: skip
def test_connection_error_wording(exc, message, transient):
    from pasture.gates.openai_chat import _connection_error

    error = _connection_error(exc)
    assert str(error) == message
    assert is_transient_error(str(error)) is transient
