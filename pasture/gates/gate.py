"""The ``ai`` gate kind: ask a model whether a lifecycle event may proceed. Stdlib only.

Runtime contract
================

``ai_gate_decide(envelope, policy, config=None, *, journal=None) -> {"decision", "reason"}``

* ``envelope``: the event envelope (a JSON-able dict). It becomes the user prompt verbatim, as
  ``json.dumps(envelope, indent=2, ensure_ascii=False)``.
* ``policy``: the row's gate policy. Keys (all optional, anything else is a config error):
  ``kind`` (ignored, so the whole gate entry can be passed), ``model`` (overrides the config's
  ``ai_model``), ``system_prompt`` (replaces :data:`DEFAULT_SYSTEM_PROMPT`; the JSON answer
  contract :data:`DECISION_CONTRACT` is always appended), ``timeout`` (seconds, > 0, default
  :data:`DEFAULT_TIMEOUT_SECONDS`; a budget for the whole decision: every attempt, and every
  backoff sleep between attempts, must fit in it).
* ``config``: an ``EnvAIConfig`` or anything with the same
  attributes; None reads the environment without importing pydantic. Used: ``ai_model``,
  ``ai_base_url``, ``ai_api_key``, ``max_retries``, ``initial_backoff_seconds``,
  ``max_backoff_seconds``.
* ``journal``: a dict updated in place, on success and on failure alike, with ``gate`` ("ai"),
  ``model``, ``invocations`` (1 per decision), ``attempts`` (HTTP requests made), ``cost_usd``
  (from the responses' usage), ``outcome`` (the decision, or the error kind) and ``elapsed_s``.

Returns ``{"decision": "proceed" | "deny" | "ask", "reason": str}``. Whether "ask" can be honoured
(the row's response capability) is the runtime's call, not the gate's.

Failures. Every failure raises a subclass of :class:`~pasture.gates.errors.AIGateError`, and
every one of them means the same thing to the runtime: *no decision; apply the row's effective
failure mode*. The exception's ``journal`` attribute carries the same record as ``journal``.

======================  ============================================================================
exception               when
======================  ============================================================================
AIGateTimeout           the policy timeout elapsed, or the next backoff sleep would overrun it
AIGateExhausted         every attempt (1 + max_retries) failed with a transient error
AIGateInvalidOutput     the model answered, but not a JSON object with a valid decision and reason
AIGateBackendError      a non-transient failure: HTTP 4xx (other than 408/429), malformed response
AIGateConfigError       bad policy (unknown key, bad type) or unusable config (negative max_retries)
======================  ============================================================================
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import time
import types
from collections.abc import Mapping
from typing import Any, Callable

from pasture import PastureError
from pasture.gates._env import EnvAIConfig
from pasture.gates.errors import (
    AIGateBackendError,
    AIGateConfigError,
    AIGateError,
    AIGateExhausted,
    AIGateInvalidOutput,
    AIGateTimeout,
    AIIntegrationError,
)
from pasture.gates.retry import NO_ERROR_PAYLOAD, Sleeper, is_transient_error
from pasture.gates.wrappers import AIGateWrapper

__all__ = [
    "DECISIONS",
    "DECISION_CONTRACT",
    "DEFAULT_SYSTEM_PROMPT",
    "DEFAULT_TIMEOUT_SECONDS",
    "GateDecision",
    "GateDecisionInvalid",
    "ai_gate_decide",
    "ai_gate_decide_async",
    "gate_system_prompt",
    "gate_user_prompt",
]

DECISIONS: tuple[str, ...] = ("proceed", "deny", "ask")
DEFAULT_TIMEOUT_SECONDS = 30.0
POLICY_KEYS = frozenset({"kind", "model", "system_prompt", "timeout"})

DEFAULT_SYSTEM_PROMPT = (
    "You are a policy gate for an AI coding agent. The user message is one lifecycle event from "
    "the agent's host as a JSON envelope: which event it is, which host sent it, and the host's "
    "own payload (for a tool call: the tool name and its input).\n"
    "Decide whether the agent may go ahead:\n"
    "- proceed: the action is safe and within the agent's task.\n"
    "- deny: the action is destructive, leaks secrets or credentials, or is clearly outside the task.\n"
    "- ask: the action is risky but plausible; a human should decide."
)

DECISION_CONTRACT = (
    "Answer with one JSON object and nothing else, no markdown fences: "
    '{"decision": "proceed" | "deny" | "ask", "reason": "<one sentence the agent or the user will read>"}'
)

_DECISION_DESCRIPTION = "proceed lets the action run; deny refuses it; ask defers it to a human."
_REASON_DESCRIPTION = "One sentence explaining the decision, shown to the agent or the user."


class GateDecisionInvalid(PastureError, ValueError):
    """A payload that is not a valid gate decision."""


class GateDecision:
    """The gate's answer schema: ``{"decision": "proceed"|"deny"|"ask", "reason": str}``.

    Plain Python, so the hook path needs no pydantic; it offers the three things the wrappers and
    backends use from a pydantic model: keyword construction that validates (extra keys are
    ignored, as pydantic does by default), ``model_json_schema()`` and ``model_fields``.
    """

    __slots__ = ("decision", "reason")

    model_fields = {
        "decision": types.SimpleNamespace(description=_DECISION_DESCRIPTION),
        "reason": types.SimpleNamespace(description=_REASON_DESCRIPTION),
    }

    def __init__(self, **fields: Any) -> None:
        decision = fields.get("decision")
        reason = fields.get("reason")
        if decision not in DECISIONS:
            raise GateDecisionInvalid(f"decision must be one of {', '.join(DECISIONS)}; got {decision!r}")
        if not isinstance(reason, str):
            raise GateDecisionInvalid(f"reason must be a string; got {type(reason).__name__}")
        self.decision: str = decision
        self.reason: str = reason

    @classmethod
    def model_validate(cls, value: Any) -> "GateDecision":
        if not isinstance(value, Mapping):
            raise GateDecisionInvalid(f"expected a JSON object; got {type(value).__name__}")
        return cls(**{str(k): v for k, v in value.items()})

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        return {
            "additionalProperties": False,
            "properties": {
                "decision": {
                    "description": _DECISION_DESCRIPTION,
                    "enum": list(DECISIONS),
                    "title": "Decision",
                    "type": "string",
                },
                "reason": {"description": _REASON_DESCRIPTION, "title": "Reason", "type": "string"},
            },
            "required": ["decision", "reason"],
            "title": "GateDecision",
            "type": "object",
        }

    def to_dict(self) -> dict[str, str]:
        return {"decision": self.decision, "reason": self.reason}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GateDecision) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"GateDecision(decision={self.decision!r}, reason={self.reason!r})"


def gate_user_prompt(envelope: Any) -> str:
    """The envelope, verbatim, as the user message."""
    return json.dumps(envelope, indent=2, ensure_ascii=False, default=str)


def gate_system_prompt(policy: Mapping[str, Any] | None = None) -> str:
    """The policy's system prompt (or the default), then the answer contract."""
    base = (policy or {}).get("system_prompt") or DEFAULT_SYSTEM_PROMPT
    return f"{base.rstrip()}\n\n{DECISION_CONTRACT}"


# -- deadline plumbing --------------------------------------------------------------------------


class _DeadlineReached(Exception):
    # Worded to stay clear of every transient pattern: the retry loop must not retry it.
    def __init__(self) -> None:
        super().__init__("AI gate deadline reached")


class _Deadline:
    def __init__(self, budget: float, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.at = clock() + budget

    def remaining(self) -> float:
        return self.at - self.clock()


class _GateConfig:
    """The caller's config with the policy's model; everything else read through."""

    def __init__(self, base: Any, ai_model: str) -> None:
        self._base = base
        self.ai_model = ai_model

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


class _DeadlineApp:
    """Wraps ``app.ai``: refuses to start past the deadline, bounds each call by what is left."""

    def __init__(self, inner: Any, deadline: _Deadline) -> None:
        self.inner = inner
        self.deadline = deadline
        self.attempts = 0
        try:
            self._passes_timeout = "timeout" in inspect.signature(inner.ai).parameters
        except (TypeError, ValueError):
            self._passes_timeout = False

    async def ai(self, *, system: str | None, user: str, schema: Any, model: str) -> Any:
        remaining = self.deadline.remaining()
        if remaining <= 0:
            raise _DeadlineReached()
        self.attempts += 1
        extra = {"timeout": remaining} if self._passes_timeout else {}
        try:
            return await asyncio.wait_for(
                self.inner.ai(system=system, user=user, schema=schema, model=model, **extra), remaining
            )
        except asyncio.TimeoutError:
            raise _DeadlineReached() from None


def _deadline_sleeper(inner: Sleeper, deadline: _Deadline) -> Sleeper:
    async def sleep(seconds: float) -> None:
        if seconds >= deadline.remaining():  # the next attempt could not start in time
            raise _DeadlineReached()
        await inner(seconds)

    return sleep


def _check_policy(policy: Any) -> tuple[str | None, str | None, float]:
    if policy is None:
        policy = {}
    if not isinstance(policy, Mapping):
        raise AIGateConfigError(f"ai gate policy must be a mapping; got {type(policy).__name__}")
    unknown = sorted(set(policy) - POLICY_KEYS)
    if unknown:
        raise AIGateConfigError(
            f"unknown ai gate policy key(s): {', '.join(map(str, unknown))}; allowed: {', '.join(sorted(POLICY_KEYS))}"
        )
    model = policy.get("model")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        raise AIGateConfigError("ai gate policy 'model' must be a non-empty string")
    system_prompt = policy.get("system_prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        raise AIGateConfigError("ai gate policy 'system_prompt' must be a string")
    timeout = policy.get("timeout", DEFAULT_TIMEOUT_SECONDS)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        raise AIGateConfigError(f"ai gate policy 'timeout' must be a positive number of seconds; got {timeout!r}")
    return model, system_prompt, float(timeout)


# -- the gate -----------------------------------------------------------------------------------


async def ai_gate_decide_async(
    envelope: Mapping[str, Any],
    policy: Mapping[str, Any] | None,
    config: Any = None,
    *,
    app: Any = None,
    sleep: Sleeper | None = None,
    clock: Callable[[], float] | None = None,
    journal: dict[str, Any] | None = None,
) -> dict[str, str]:
    """:func:`ai_gate_decide` for callers already inside an event loop."""
    record: dict[str, Any] = {"gate": "ai"}
    clock = clock or time.monotonic
    started = clock()

    def finish(outcome: str, gate: AIGateWrapper | None = None, attempts: int = 0) -> dict[str, Any]:
        record["outcome"] = outcome
        record["invocations"] = gate.invocation_count if gate else 0
        record["attempts"] = attempts
        record["cost_usd"] = gate.total_cost_usd if gate else 0.0
        record["elapsed_s"] = round(clock() - started, 6)
        if journal is not None:
            journal.update(record)
        return record

    try:
        model, system_prompt, timeout = _check_policy(policy)
        cfg = config if config is not None else EnvAIConfig.from_env()
        record["model"] = model or cfg.ai_model
    except AIGateConfigError as exc:
        exc.journal = finish(exc.kind)
        raise
    except ValueError as exc:  # the environment holds a non-number where a number belongs
        err = AIGateConfigError(f"ai gate config: {exc}")
        err.journal = finish(err.kind)
        raise err from None

    if app is None:
        from pasture.gates.openai_chat import OpenAIChatClient

        app = OpenAIChatClient.from_config(cfg)
    deadline = _Deadline(timeout, clock)
    bounded_app = _DeadlineApp(app, deadline)
    gate = AIGateWrapper(
        bounded_app,
        _GateConfig(cfg, record["model"]),
        sleep=_deadline_sleeper(sleep or asyncio.sleep, deadline),
    )
    system = gate_system_prompt({"system_prompt": system_prompt})
    user = gate_user_prompt(envelope)

    error: AIGateError
    try:
        decision = await gate.invoke(user=user, schema=GateDecision, system=system)
    except _DeadlineReached:
        error = AIGateTimeout(f"AI gate timed out after {timeout:g}s")
    except GateDecisionInvalid as exc:
        error = AIGateInvalidOutput(f"AI gate output is not a valid decision: {exc}")
    except AIIntegrationError as exc:
        message = str(exc)
        if message == NO_ERROR_PAYLOAD:
            error = AIGateConfigError(f"AI gate made no attempt (max_retries={cfg.max_retries}): {message}")
        elif message.startswith("AI gate returned invalid payload"):
            error = AIGateInvalidOutput(f"{message}: the answer was not a JSON object")
        else:
            error = AIGateBackendError(message)
    except Exception as exc:
        message = str(exc) or type(exc).__name__
        if is_transient_error(message):
            if deadline.remaining() <= 0:
                error = AIGateTimeout(f"AI gate timed out after {timeout:g}s (last error: {message})")
            else:
                error = AIGateExhausted(
                    f"AI gate gave up after {bounded_app.attempts} attempt(s) with transient errors: {message}"
                )
        else:
            error = AIGateBackendError(f"AI gate backend failed: {message}")
    else:
        finish(decision.decision, gate, bounded_app.attempts)
        return decision.to_dict()
    error.journal = finish(error.kind, gate, bounded_app.attempts)
    raise error


def ai_gate_decide(
    envelope: Mapping[str, Any],
    policy: Mapping[str, Any] | None,
    config: Any = None,
    *,
    app: Any = None,
    sleep: Sleeper | None = None,
    clock: Callable[[], float] | None = None,
    journal: dict[str, Any] | None = None,
) -> dict[str, str]:
    """Decide one event with a model: ``{"decision": "proceed"|"deny"|"ask", "reason": str}``.

    Synchronous (the hook runtime is). Raises an :class:`AIGateError` subclass on any failure;
    see the module docstring for the contract. ``app``, ``sleep`` and ``clock`` are seams for
    tests and alternative backends (``app.ai(system=, user=, schema=, model=[, timeout=])``).
    """
    coro = ai_gate_decide_async(envelope, policy, config, app=app, sleep=sleep, clock=clock, journal=journal)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from inside a running loop: run ours on a private thread instead of nesting.
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
