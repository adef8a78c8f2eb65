"""HarnessWrapper / AIGateWrapper against fake apps."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pydantic
import pytest
from gates_models import CWEExpansion, SeverityClassification

from pasture.gates import (
    AIGateWrapper,
    AIIntegrationError,
    EnvAIConfig,
    HarnessWrapper,
    build_schema_retry_prompt,
    harness_prompt,
)
from pasture.gates.openai_chat import ChatResult

CWD = "/tmp/secaf-hw"


def config(**kw: Any) -> EnvAIConfig:
    base = dict(
        provider="opencode",
        harness_model="h/model",
        ai_model="a/model",
        max_turns=12,
        max_retries=3,
        initial_backoff_seconds=2.0,
        max_backoff_seconds=8.0,
        harness_server=None,
    )
    base.update(kw)
    return EnvAIConfig(**base)


class Recorder:
    def __init__(self):
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)


@dataclass
class Result:
    parsed: Any = None
    is_error: bool = False
    error_message: str | None = None
    cost_usd: float | None = None


class FakeApp:
    """Answers `harness` and `ai` calls from queues; an Exception in a queue is raised."""

    def __init__(self, harness=(), ai=()):
        self.harness_queue = list(harness)
        self.ai_queue = list(ai)
        self.harness_calls: list[dict[str, Any]] = []
        self.ai_calls: list[dict[str, Any]] = []

    async def harness(self, prompt, **kwargs):
        self.harness_calls.append({"prompt": prompt, **kwargs})
        item = self.harness_queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    async def ai(self, **kwargs):
        self.ai_calls.append(kwargs)
        item = self.ai_queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


VALID = {"additional_cwes": ["CWE-918"], "rationale": "ssrf sink"}


def run(coro):
    return asyncio.run(coro)


# -- HarnessWrapper -----------------------------------------------------------------------------


def test_invoke_sends_the_composed_prompt_and_options(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("OPENROUTER_API_KEY", "or")
    app = FakeApp(harness=[Result(parsed=VALID, cost_usd=0.2)])
    wrapper = HarnessWrapper(app, config(harness_server="http://127.0.0.1:4096"))
    out = run(
        wrapper.invoke(prompt="Expand the CWE list.", schema=CWEExpansion, cwd=CWD, phase="hunt", project_dir="/repo")
    )
    assert out == CWEExpansion(**VALID)
    (call,) = app.harness_calls
    assert call == {
        "prompt": harness_prompt("Expand the CWE list.", "hunt", CWD, CWEExpansion),
        "schema": CWEExpansion,
        "cwd": CWD,
        "provider": "opencode",
        "model": "h/model",
        "max_turns": 12,
        "max_budget_usd": None,
        "env": {"OPENROUTER_API_KEY": "or", "AGENTFIELD_AFORGE_COMMAND": "exec", "XDG_DATA_HOME": str(tmp_path)},
        "schema_max_retries": 0,
        "server": "http://127.0.0.1:4096",
        "project_dir": "/repo",
    }
    assert wrapper.invocation_count == 1 and wrapper.total_cost_usd == 0.2


def test_invoke_overrides_and_omitted_extras():
    app = FakeApp(harness=[Result(parsed=VALID)])
    run(
        HarnessWrapper(app, config()).invoke(
            prompt="p", schema=CWEExpansion, cwd=CWD, model="other/model", max_turns=3, max_budget_usd=1.5
        )
    )
    call = app.harness_calls[0]
    assert (call["model"], call["max_turns"], call["max_budget_usd"]) == ("other/model", 3, 1.5)
    assert "server" not in call and "project_dir" not in call


def test_parsed_instance_and_result_instance_are_returned_as_is():
    instance = CWEExpansion(**VALID)
    app = FakeApp(harness=[Result(parsed=instance), instance])
    wrapper = HarnessWrapper(app, config())
    assert run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=CWD)) is instance
    assert run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=CWD)) is instance


def test_parsed_dict_is_validated_into_the_schema():
    app = FakeApp(harness=[Result(parsed={"additional_cwes": "not-a-list", "rationale": "r"})])
    with pytest.raises(pydantic.ValidationError):
        run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD))


@pytest.mark.parametrize(
    ("phase", "message"),
    [
        ("hunt", "Harness failure (hunt): agent crashed"),
        ("", "Harness failure: agent crashed"),
        (None, "Harness failure: agent crashed"),
    ],
)
def test_error_result_raises_without_retry(phase, message):
    sleep = Recorder()
    # transient wording on purpose: a harness that ran and failed is not retried
    app = FakeApp(harness=[Result(is_error=True, error_message="agent crashed", cost_usd=0.1)])
    wrapper = HarnessWrapper(app, config(), sleep=sleep)
    with pytest.raises(AIIntegrationError) as info:
        run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=CWD, phase=phase))
    assert str(info.value) == message
    assert len(app.harness_calls) == 1 and sleep.slept == []
    assert wrapper.total_cost_usd == 0.1


def test_error_result_without_message_attribute():
    app = FakeApp(harness=[SimpleNamespace(is_error=True, parsed=None)])
    with pytest.raises(AIIntegrationError, match=r"^Harness failure \(prove\): unknown harness error$"):
        run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD, phase="prove"))


def test_transient_call_errors_are_retried_and_counted_once():
    sleep = Recorder()
    app = FakeApp(harness=[RuntimeError("overloaded"), RuntimeError("HTTP 502"), Result(parsed=VALID, cost_usd=0.3)])
    wrapper = HarnessWrapper(app, config(), sleep=sleep)
    run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=CWD))
    assert sleep.slept == [2.0, 4.0]
    assert wrapper.invocation_count == 1 and wrapper.total_cost_usd == 0.3


def test_empty_parse_enters_the_schema_retry_loop_with_the_exact_prompt():
    app = FakeApp(harness=[Result(parsed=None, cost_usd=0.1), Result(parsed=VALID, cost_usd=0.2)])
    wrapper = HarnessWrapper(app, config())
    out = run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=CWD, phase="hunt"))
    assert out == CWEExpansion(**VALID)
    retry_task = build_schema_retry_prompt(CWEExpansion, "Retry attempt 1/3", CWD)
    assert app.harness_calls[1]["prompt"] == harness_prompt(retry_task, "hunt", CWD, CWEExpansion)
    assert wrapper.invocation_count == 1
    assert wrapper.total_cost_usd == pytest.approx(0.3)


def test_schema_retry_gives_up_after_three():
    app = FakeApp(harness=[Result(parsed=None)] * 4)
    wrapper = HarnessWrapper(app, config())
    with pytest.raises(AIIntegrationError, match="^Schema validation failed after 3 retries with schema context$"):
        run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=CWD))
    assert len(app.harness_calls) == 4
    for n, call in enumerate(app.harness_calls[1:], start=1):
        assert f"Error: Retry attempt {n}/3\n" in call["prompt"]


def test_schema_retry_error_result_and_invalid_payload():
    app = FakeApp(harness=[Result(parsed=None), Result(is_error=True, error_message="boom")])
    with pytest.raises(AIIntegrationError, match=r"^Harness failure \(recon\): boom$"):
        run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD, phase="recon"))
    app = FakeApp(harness=[Result(parsed=None), Result(parsed=["not", "a", "dict"])])
    with pytest.raises(AIIntegrationError, match="^Harness returned invalid payload for schema CWEExpansion$"):
        run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD))


def test_an_empty_dict_is_validated_not_schema_retried():
    # the dict branch comes before the `not parsed` branch, as in the original
    app = FakeApp(harness=[Result(parsed={})])
    with pytest.raises(pydantic.ValidationError):
        run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD))
    assert len(app.harness_calls) == 1


def test_truthy_non_dict_parse_is_an_invalid_payload():
    app = FakeApp(harness=[Result(parsed="some text")])
    with pytest.raises(AIIntegrationError, match="^Harness returned invalid payload for schema CWEExpansion$"):
        run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD))
    assert len(app.harness_calls) == 1


@pytest.mark.parametrize("phase", ["recon", "hunt", "prove", None])
def test_invoke_composes_the_phase_guidance(phase):
    app = FakeApp(harness=[Result(parsed=VALID)])
    run(HarnessWrapper(app, config()).invoke(prompt="p", schema=CWEExpansion, cwd=CWD, phase=phase))
    assert app.harness_calls[0]["prompt"] == harness_prompt("p", phase, CWD, CWEExpansion)


# -- AIGateWrapper ------------------------------------------------------------------------------

SEVERITY = {"severity": "high", "confidence": 0.9, "rationale": "r"}


def test_ai_gate_passes_system_user_schema_model():
    app = FakeApp(ai=[SEVERITY])
    gate = AIGateWrapper(app, config())
    out = run(gate.invoke(user="u", schema=SeverityClassification, system="s"))
    assert out == SeverityClassification(**SEVERITY)
    assert app.ai_calls == [{"system": "s", "user": "u", "schema": SeverityClassification, "model": "a/model"}]
    assert gate.invocation_count == 1 and gate.total_cost_usd == 0.0


def test_ai_gate_cost_comes_from_the_response():
    responses = [
        ChatResult(content="{}", parsed=SEVERITY, usage={"cost": 0.01}, cost_usd=0.01),
        ChatResult(content="{}", parsed=SEVERITY, cost_usd=None),
        ChatResult(content="{}", parsed=SEVERITY, cost_usd=0.02),
    ]
    gate = AIGateWrapper(FakeApp(ai=responses), config())
    for _ in responses:
        run(gate.invoke(user="u", schema=SeverityClassification))
    assert gate.invocation_count == 3
    assert gate.total_cost_usd == pytest.approx(0.03)


def test_ai_gate_retries_transient_and_counts_once():
    sleep = Recorder()
    app = FakeApp(ai=[RuntimeError("429 rate limit"), RuntimeError("connection reset"), SEVERITY])
    gate = AIGateWrapper(app, config(), sleep=sleep)
    run(gate.invoke(user="u", schema=SeverityClassification))
    assert len(app.ai_calls) == 3 and sleep.slept == [2.0, 4.0] and gate.invocation_count == 1


@pytest.mark.parametrize("payload", [None, "not json", ["list"], 42])
def test_ai_gate_invalid_payload_raises(payload):
    app = FakeApp(ai=[ChatResult(content=str(payload), parsed=payload, cost_usd=0.5)])
    gate = AIGateWrapper(app, config())
    with pytest.raises(
        AIIntegrationError, match="^AI gate returned invalid payload for schema SeverityClassification$"
    ):
        run(gate.invoke(user="u", schema=SeverityClassification))
    assert gate.total_cost_usd == 0.5  # spent even though the answer was unusable


def test_ai_gate_dict_that_does_not_validate_raises_validation_error():
    gate = AIGateWrapper(FakeApp(ai=[{"severity": "high"}]), config())
    with pytest.raises(pydantic.ValidationError):
        run(gate.invoke(user="u", schema=SeverityClassification))


def test_wrappers_without_config_read_the_environment(monkeypatch):
    monkeypatch.setenv("SEC_AF_PROVIDER", "codex")
    assert HarnessWrapper(FakeApp()).config.provider == "codex"
    assert AIGateWrapper(FakeApp()).config.provider == "codex"
