"""Consult the gate a layer names when none of its rules matched, through the gate kinds' table.

pasture.runtime.gatekinds maps each kind to its runner (the command and AI gates' runners are here;
the agent gate's is pasture.gates.agent). Only a trusted layer's gate ever runs
(pasture.runtime.policy drops an untrusted project layer's).
Every gate gets the row's deadline: its own timeout is clamped to what is left before the host
would kill the hook, so a gate can never outlive the row and leave the host to decide for us.
"""

from __future__ import annotations

import time

from pasture.gates.errors import GateFailure  # stdlib only: the gates raise it, the runtime catches it
from pasture.runtime.fastjson import JSONError, dumps, loads
from pasture.runtime.policy import DECISIONS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable

MAX_REASON = 2000  # characters of a gate's reason passed on to the host (and the model)


def cap_reason(reason: str, detail: dict | None) -> tuple[str, dict | None]:
    """A reason over MAX_REASON is cut, with a marker, and the journal detail keeps its length."""
    if len(reason) <= MAX_REASON:
        return reason, detail
    cut = f"{reason[:MAX_REASON]} [pasture: reason cut at {MAX_REASON} of {len(reason)} characters]"
    return cut, dict(detail or {}, reason_cut=len(reason))


def parse_decision(raw: Any, source: str) -> tuple[str, str]:
    if not isinstance(raw, dict) or raw.get("decision") not in DECISIONS:
        raise GateFailure(
            f'{source} answered no valid decision (want {{"decision": "proceed|deny|ask", "reason": "..."}})'
        )
    reason = raw.get("reason", "")
    if not isinstance(reason, str):
        raise GateFailure(f"{source} answered a non-string reason")
    return raw["decision"], reason


def budget(layer: dict, deadline: float | None, clock: Callable[[], float] | None = None) -> tuple[float, str | None]:
    """The gate's timeout: its own, clamped to the time left before the row's deadline (with a note)."""
    wanted = layer["timeout"]
    if deadline is None:
        return wanted, None
    left = deadline - (clock or time.perf_counter)()
    if left <= 0:
        raise GateFailure("no time left before the host's hook timeout to consult the gate")
    if wanted > left:
        return left, (
            f"gate timeout {wanted:g}s clamped to {left:.1f}s: the host kills this hook at its own "
            "timeout, so the gate must answer before it"
        )
    return wanted, None


def command_gate(command: tuple, envelope: dict, root: str, timeout: float) -> tuple[str, str, None]:
    import subprocess  # only the command gate spawns: keep its import off the rules-gate hook path

    data = dumps(envelope, default=str).encode("ascii")
    try:
        done = subprocess.run(list(command), input=data, capture_output=True, timeout=timeout, cwd=root)
    except subprocess.TimeoutExpired:
        raise GateFailure(f"gate command timed out after {timeout:.1f}s") from None
    except OSError as exc:
        raise GateFailure(f"gate command {command[0]!r} could not start: {exc.strerror or exc}") from None
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise GateFailure(f"gate command exited {done.returncode}: {tail[0][:200]}")
    try:
        raw = loads(done.stdout.decode("utf-8"))
    except (UnicodeDecodeError, JSONError):
        raise GateFailure("gate command printed no JSON decision") from None
    decision, reason = parse_decision(raw, "gate command")
    return decision, reason or f"gate command decided {decision}", None


def ai_gate(ai: dict, envelope: dict, root: str, timeout: float) -> tuple[str, str, dict]:
    import dataclasses

    from pasture.gates._env import EnvAIConfig  # imported only when a policy asks for the AI gate
    from pasture.gates.errors import AIGateError
    from pasture.gates.gate import ai_gate_decide

    record: dict = {}
    settings = {k: v for k, v in ai.items() if k in ("model", "system_prompt")}
    settings["timeout"] = timeout  # the whole decision, retries and their backoff included, fits in it
    config = EnvAIConfig()
    if "base_url" in ai:
        # Only a trusted layer gets here, so the user's key goes only where a trusted layer points.
        config = dataclasses.replace(config, ai_base_url=ai["base_url"])
    try:
        answer = ai_gate_decide(envelope, settings, config, journal=record)
    except AIGateError as exc:
        raise GateFailure(f"AI gate: {type(exc).__name__}: {exc}", record) from None
    decision, reason = parse_decision(answer, "AI gate")
    return decision, reason, record


def run_gate(
    layer: dict, envelope: dict, root: str, deadline: float | None, clock: Callable[[], float] | None = None
) -> tuple[str, str, dict | None]:
    """(decision, reason, detail) from a trusted layer's gate, by its kind's runner; GateFailure otherwise."""
    from pasture.runtime.gatekinds import KINDS, runner

    kind = layer["kind"]
    if kind not in KINDS or KINDS[kind].runner is None:  # policy.py admits only the table's kinds
        raise GateFailure(f"gate kind {kind!r} has no runner; known kinds: {', '.join(KINDS)}")
    timeout, clamped = budget(layer, deadline, clock)
    try:
        decision, reason, detail = runner(kind)(layer[kind], envelope, root, timeout)
    except GateFailure as exc:
        if clamped:
            exc.detail = dict(exc.detail or {}, clamped=clamped)
            exc.args = (f"{exc.args[0]} ({clamped})",)
        raise
    if clamped:
        detail = dict(detail or {}, clamped=clamped)
    reason, detail = cap_reason(reason, detail)
    return decision, reason, detail
