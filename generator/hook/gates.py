"""The gates a gate-consultation row may consult: rules, an external command, or the AI gate."""

from __future__ import annotations

import json
from collections import namedtuple

from .policy import DECISIONS, Policy


# decision: proceed | deny | ask; gate: which gate decided (rules:<name>, rules:default, command, ai,
# none); detail: e.g. the AI gate's invocation and cost record.
Decision = namedtuple("Decision", "decision reason gate detail", defaults=(None,))


class GateFailure(Exception):
    """The gate produced no decision: crashed, hung past its timeout, or answered garbage."""

    def __init__(self, message: str, detail: dict | None = None):
        super().__init__(message)
        self.detail = detail


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def rules_gate(policy: Policy, envelope: dict) -> Decision:
    for rule in policy.rules:
        if all(envelope.get(key) in allowed for key, allowed in rule.lists.items()) and all(
            envelope.get(key) is not None and pattern.search(_text(envelope.get(key)))
            for key, pattern in rule.regexes.items()
        ) and all(
            isinstance(envelope.get("tool_input"), dict) and field in envelope["tool_input"]
            and pattern.search(_text(envelope["tool_input"][field]))
            for field, pattern in rule.inputs.items()
        ):
            return Decision(rule.decision, rule.reason, f"rules:{rule.name}")
    return Decision(policy.default, "no policy rule matched", "rules:default")


def parse_decision(raw: Any, source: str) -> tuple[str, str]:
    if not isinstance(raw, dict) or raw.get("decision") not in DECISIONS:
        raise GateFailure(f"{source} answered no valid decision (want {{\"decision\": \"proceed|deny|ask\", "
                          f"\"reason\": \"...\"}})")
    reason = raw.get("reason", "")
    if not isinstance(reason, str):
        raise GateFailure(f"{source} answered a non-string reason")
    return raw["decision"], reason


def command_gate(policy: Policy, envelope: dict) -> Decision:
    import subprocess  # only the command gate spawns: keep its ~3 ms import off the rules-gate hook path

    data = json.dumps(envelope, ensure_ascii=True).encode("ascii")
    try:
        done = subprocess.run(list(policy.command), input=data, capture_output=True, timeout=policy.timeout)
    except subprocess.TimeoutExpired:
        raise GateFailure(f"gate command timed out after {policy.timeout:g}s") from None
    except OSError as exc:
        raise GateFailure(f"gate command could not start: {exc.strerror or exc}") from None
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise GateFailure(f"gate command exited {done.returncode}: {tail[0][:200]}")
    try:
        raw = json.loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise GateFailure("gate command printed no JSON decision") from None
    decision, reason = parse_decision(raw, "gate command")
    return Decision(decision, reason or f"gate command decided {decision}", "command")


def ai_gate(policy: Policy, envelope: dict) -> Decision:
    import dataclasses

    from ..gates._env import EnvAIConfig  # imported only when a policy asks for the AI gate
    from ..gates.errors import AIGateError
    from ..gates.gate import ai_gate_decide

    record: dict = {}
    settings = {k: v for k, v in policy.gate.items() if k in ("model", "system_prompt", "timeout")}
    config = EnvAIConfig()
    if "base_url" in policy.gate:
        config = dataclasses.replace(config, ai_base_url=policy.gate["base_url"])
    try:
        answer = ai_gate_decide(envelope, settings, config, journal=record)
    except AIGateError as exc:
        raise GateFailure(f"AI gate: {type(exc).__name__}: {exc}", record) from None
    decision, reason = parse_decision(answer, "AI gate")
    return Decision(decision, reason, "ai", record)


def consult(policy: Policy | None, envelope: dict) -> Decision:
    if policy is None:
        return Decision("proceed", "no policy configured", "none")
    if policy.events is not None and envelope.get("event") not in policy.events:
        return Decision("proceed", "the policy's gate does not cover this event", "none")
    if policy.kind == "rules":
        return rules_gate(policy, envelope)
    if policy.kind == "command":
        return command_gate(policy, envelope)
    return ai_gate(policy, envelope)
