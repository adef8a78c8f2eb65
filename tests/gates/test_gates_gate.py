"""ai_gate_decide: the `ai` gate kind the runtime calls, and its failure contract."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pasture.gates import (
    AIGateBackendError,
    AIGateConfigError,
    AIGateError,
    AIGateExhausted,
    AIGateInvalidOutput,
    AIGateTimeout,
    AIIntegrationError,
    EnvAIConfig,
    ai_gate_decide,
    is_transient_error,
)
from pasture.gates.gate import (
    DEFAULT_SYSTEM_PROMPT,
    GateDecision,
    _DeadlineReached,
    ai_gate_decide_async,
    gate_system_prompt,
    gate_user_prompt,
)
from pasture.gates.openai_chat import ChatResult
from pasture.hostenv.fake_models import ChatReply as Reply
from pasture.hostenv.fake_models import FakeChatServer

ENVELOPE = {
    "event": "PreToolUse",
    "host": "claude-code",
    "payload": {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}},
}


class FakeClock:
    """A clock that only moves when the gate sleeps."""

    def __init__(self):
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def config_for(fake: FakeChatServer, **kw) -> EnvAIConfig:
    base = EnvAIConfig(
        ai_base_url=fake.base_url, ai_api_key="sk-test", ai_model="cfg/model",
        max_retries=3, initial_backoff_seconds=2.0, max_backoff_seconds=8.0,
    )  # fmt: skip
    return dataclasses.replace(base, **kw)


def decide(fake, policy=None, clock=None, journal=None, **cfg):
    clock = clock or FakeClock()
    return ai_gate_decide(
        ENVELOPE, policy or {}, config_for(fake, **cfg), sleep=clock.sleep, clock=clock, journal=journal
    )


@pytest.mark.parametrize("decision", ["proceed", "deny", "ask"])
def test_each_decision(decision):
    with FakeChatServer([Reply.json({"decision": decision, "reason": f"because {decision}"})]) as fake:
        assert decide(fake) == {"decision": decision, "reason": f"because {decision}"}


def test_request_carries_envelope_policy_model_and_system_prompt():
    policy = {"kind": "ai", "model": "policy/model", "system_prompt": "Deny rm -rf.", "timeout": 10}
    with FakeChatServer([Reply.json({"decision": "deny", "reason": "rm -rf /", "extra": "ignored"})]) as fake:
        assert decide(fake, policy) == {"decision": "deny", "reason": "rm -rf /"}
        (request,) = fake.chat_requests
    body = request["body"]
    assert body["model"] == "policy/model"
    assert body["messages"] == [
        {"role": "system", "content": gate_system_prompt(policy)},
        {"role": "user", "content": gate_user_prompt(ENVELOPE)},
    ]
    assert body["messages"][0]["content"].startswith("Deny rm -rf.\n\n")
    assert json.loads(body["messages"][1]["content"]) == ENVELOPE
    assert body["response_format"]["json_schema"]["schema"] == GateDecision.model_json_schema()


def test_default_model_and_system_prompt():
    with FakeChatServer([Reply.json({"decision": "proceed", "reason": "ok"})]) as fake:
        decide(fake)
        body = fake.chat_requests[0]["body"]
    assert body["model"] == "cfg/model"
    assert body["messages"][0]["content"].startswith(DEFAULT_SYSTEM_PROMPT)


def test_journal_on_success_records_invocation_attempts_and_cost():
    journal: dict = {}
    clock = FakeClock()
    replies = [Reply.error(503), Reply.json({"decision": "deny", "reason": "r"}, usage={"cost": 0.004})]
    with FakeChatServer(replies) as fake:
        decide(fake, {"model": "m/1"}, clock=clock, journal=journal)
    assert journal == {
        "gate": "ai", "model": "m/1", "outcome": "deny", "invocations": 1,
        "attempts": 2, "cost_usd": 0.004, "elapsed_s": 2.0,
    }  # fmt: skip
    assert clock.slept == [2.0]


@pytest.mark.parametrize(
    "reply",
    [
        Reply.text("I would deny this."),
        Reply.json(["deny"]),
        Reply.json({"decision": "maybe", "reason": "r"}),
        Reply.json({"decision": "deny"}),
        Reply.json({"decision": "Deny", "reason": "r"}),  # exact spelling required
        Reply.json({"decision": "deny", "reason": 3}),
    ],
)
def test_invalid_output(reply):
    journal: dict = {}
    with FakeChatServer([reply]) as fake:
        with pytest.raises(AIGateInvalidOutput) as info:
            decide(fake, journal=journal)
        assert len(fake.chat_requests) == 1  # invalid output is not retried
    assert info.value.journal == journal
    assert journal["outcome"] == "invalid-output" and journal["invocations"] == 1 and journal["attempts"] == 1


def test_invalid_output_still_records_cost():
    journal: dict = {}
    with FakeChatServer([Reply.text("nope", usage={"cost": 0.01})]) as fake:
        with pytest.raises(AIGateInvalidOutput):
            decide(fake, journal=journal)
    assert journal["cost_usd"] == 0.01


def test_fenced_json_is_accepted():
    with FakeChatServer([Reply.text('```json\n{"decision": "ask", "reason": "unsure"}\n```')]) as fake:
        assert decide(fake) == {"decision": "ask", "reason": "unsure"}


def test_transient_errors_exhausted():
    clock = FakeClock()
    with FakeChatServer([Reply.error(503)] * 5) as fake:
        with pytest.raises(AIGateExhausted) as info:
            decide(fake, {"timeout": 60}, clock=clock)
        assert len(fake.chat_requests) == 4
    assert clock.slept == [2.0, 4.0, 8.0]
    assert info.value.journal["attempts"] == 4 and info.value.journal["outcome"] == "exhausted"
    assert "503" in str(info.value)


def test_timeout_when_the_next_sleep_would_overrun():
    clock = FakeClock()
    with FakeChatServer([Reply.error(503)] * 5) as fake:
        with pytest.raises(AIGateTimeout, match="^AI gate timed out after 5s$") as info:
            decide(fake, {"timeout": 5}, clock=clock)
        # attempt, sleep 2, attempt, then a 4 s sleep would cross the 5 s budget: stop
        assert len(fake.chat_requests) == 2
    assert clock.slept == [2.0]
    assert info.value.journal["outcome"] == "timeout" and info.value.journal["attempts"] == 2


def test_timeout_during_a_slow_request():
    with FakeChatServer([Reply.json({"decision": "proceed", "reason": "late"}, delay=3.0)]) as fake:
        # the reply comes after 3 s: AIGateTimeout is the 0.3 s budget (no wall-clock bound asserted)
        with pytest.raises(AIGateTimeout):
            ai_gate_decide(ENVELOPE, {"timeout": 0.3}, config_for(fake))


def test_deadline_message_is_not_transient():
    assert not is_transient_error(str(_DeadlineReached()))


def test_400_is_a_backend_error_without_retry():
    clock = FakeClock()
    replies = [Reply.error(400, "unknown model"), Reply.json({"decision": "proceed", "reason": "x"})]
    with FakeChatServer(replies) as fake:
        with pytest.raises(AIGateBackendError, match="HTTP 400 Bad Request: unknown model"):
            decide(fake, clock=clock)
        assert len(fake.chat_requests) == 1
    assert clock.slept == []


@pytest.mark.parametrize(
    "policy",
    [
        {"modle": "typo"},
        {"timeout": 0},
        {"timeout": -1},
        {"timeout": "10"},
        {"timeout": True},
        {"timeout": float("inf")},
        {"model": ""},
        {"model": 3},
        {"system_prompt": ["x"]},
        ["not", "a", "mapping"],
    ],
)
def test_bad_policy_is_a_config_error(policy):
    with FakeChatServer([]) as fake:
        with pytest.raises(AIGateConfigError):
            ai_gate_decide(ENVELOPE, policy, config_for(fake))
        assert fake.chat_requests == []


def test_negative_max_retries_is_a_config_error():
    with FakeChatServer([]) as fake:
        with pytest.raises(AIGateConfigError, match="no attempt"):
            decide(fake, max_retries=-1)


def test_bad_environment_is_a_config_error(monkeypatch):
    monkeypatch.setenv("SEC_AF_AI_MAX_RETRIES", "three")
    with pytest.raises(AIGateConfigError):
        ai_gate_decide(ENVELOPE, {}, None)


def test_config_from_the_environment(monkeypatch):
    with FakeChatServer([Reply.json({"decision": "proceed", "reason": "fine"})]) as fake:
        monkeypatch.setenv("PASTURE_AI_BASE_URL", fake.base_url)
        monkeypatch.setenv("SEC_AF_AI_MODEL", "env/model")
        assert ai_gate_decide(ENVELOPE, None) == {"decision": "proceed", "reason": "fine"}
        assert fake.chat_requests[0]["body"]["model"] == "env/model"


def test_accepts_the_pydantic_config_too():
    from pasture.gates import EnvAIConfig

    with FakeChatServer([Reply.json({"decision": "ask", "reason": "?"})]) as fake:
        cfg = EnvAIConfig(ai_base_url=fake.base_url, ai_model="p/model")
        assert ai_gate_decide(ENVELOPE, {}, cfg)["decision"] == "ask"
        assert cfg.ai_model == "p/model"  # the policy override never mutates the caller's config


def test_callable_from_inside_a_running_loop():
    async def runtime():
        with FakeChatServer([Reply.json({"decision": "deny", "reason": "no"})]) as fake:
            return ai_gate_decide(ENVELOPE, {}, config_for(fake))

    assert asyncio.run(runtime()) == {"decision": "deny", "reason": "no"}


def test_every_failure_is_an_ai_gate_error():
    for cls in (AIGateTimeout, AIGateExhausted, AIGateInvalidOutput, AIGateBackendError, AIGateConfigError):
        assert issubclass(cls, AIGateError) and issubclass(cls, AIIntegrationError)
    kinds = {
        cls.kind for cls in (AIGateTimeout, AIGateExhausted, AIGateInvalidOutput, AIGateBackendError, AIGateConfigError)
    }
    assert len(kinds) == 5


class ScriptedApp:
    """An `app` returning fixed content, no network."""

    def __init__(self, content):
        self.content = content

    async def ai(self, *, system, user, schema, model):
        from pasture.gates.openai_chat import decode_json_content

        return ChatResult(content=self.content, parsed=decode_json_content(self.content))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.sampled_from(["proceed", "deny", "ask"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["decision", "reason", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150)
@given(st.one_of(json_values.map(json.dumps), st.text(max_size=30)))
def test_any_answer_is_a_decision_or_invalid_output(content):
    clock = FakeClock()
    try:
        out = ai_gate_decide(ENVELOPE, {}, EnvAIConfig(), app=ScriptedApp(content), sleep=clock.sleep, clock=clock)
    except AIGateInvalidOutput:
        return
    assert out["decision"] in ("proceed", "deny", "ask") and isinstance(out["reason"], str)
    assert set(out) == {"decision", "reason"}


def test_async_entry_point():
    with FakeChatServer([Reply.json({"decision": "proceed", "reason": "ok"})]) as fake:
        out = asyncio.run(ai_gate_decide_async(ENVELOPE, {}, config_for(fake)))
    assert out == {"decision": "proceed", "reason": "ok"}
