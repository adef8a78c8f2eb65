"""`pasture hook lifecycle --harness H --event E --host-version V`: payload on stdin, native answer out.

It never raises and never blocks on a coordinate it cannot name: an unknown harness, version or
event is journaled observe-only with a one-line diagnostic. Only gate-consultation rows consult the
gate; a gate (or pasture itself) that fails gets the row's effective failure mode, exactly.
"""

from __future__ import annotations

import json
import os
import sys
import time

from . import answer
from .answer import Reply

MAX_PAYLOAD = 16 * 1024 * 1024
USAGE = "usage: pasture hook lifecycle --harness H --event E --host-version V  (payload JSON on stdin)"


def _args(argv: list[str]) -> dict[str, str] | None:
    wanted = {"--harness": "harness", "--event": "event", "--host-version": "host_version"}
    out: dict[str, str] = {}
    items = iter(argv)
    for item in items:
        key, eq, value = item.partition("=")
        if key not in wanted:
            return None
        if not eq:
            value = next(items, None)
            if value is None:
                return None
        out[wanted[key]] = value
    return out if len(out) == 3 else None


def _read(stream: BinaryIO) -> tuple[Any, str | None]:
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        return None, f"payload larger than {MAX_PAYLOAD} bytes"
    if not data.strip():
        return None, "empty payload"
    try:
        payload = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"payload is not JSON ({type(exc).__name__})"
    if not isinstance(payload, dict):
        return None, f"payload is a JSON {type(payload).__name__}, not an object"
    return payload, None


def _journal_path(policy: Any, project: str, env: dict) -> str:
    if env.get("PASTURE_JOURNAL"):
        return env["PASTURE_JOURNAL"]
    if policy is not None and policy.journal is not None:
        return os.path.join(project, policy.journal)  # join keeps an absolute journal path as it is
    return os.path.join(project, ".pasture", "journal.sqlite3")


def decide(harness: str, event: str, row: Any, payload: Any, payload_error: str | None, envelope: dict,
           env: dict) -> tuple[Reply, dict]:
    """The reply and what the journal records about how it was reached."""
    from .policy import PolicyError, find, load, project_dir

    facts: dict = {"decision": "observe", "gate": None, "reason": None, "failure": None, "detail": None,
                   "policy": None}
    if row.semantic != "gate-consultation":
        # Observation rows journal and proceed; explicit-human rows never get a fabricated decision.
        return answer.proceed(harness), facts
    if payload_error is not None:
        facts.update(decision="none", failure=payload_error)
        return answer.fail(harness, row, f"{event}: {payload_error}"), facts
    if row.stop_loop == "consult-when-inactive" and payload.get("stop_hook_active") is True:
        facts.update(decision="proceed", reason="stop already continued by an earlier block: not consulted again")
        return answer.proceed(harness), facts
    project = project_dir(envelope.get("cwd"), env)
    try:
        path = find(project, env)
        policy = load(path) if path is not None else None
    except PolicyError as exc:
        facts.update(decision="none", failure=str(exc))
        return answer.fail(harness, row, f"invalid policy: {exc}"), facts
    facts["policy"] = policy
    from .gates import GateFailure, consult

    try:
        decision = consult(policy, envelope)
    except GateFailure as exc:
        facts.update(decision="none", gate=policy.kind if policy else None, failure=str(exc), detail=exc.detail)
        return answer.fail(harness, row, f"gate failed on {event}: {exc}"), facts
    facts.update(decision=decision.decision, gate=decision.gate, reason=decision.reason, detail=decision.detail)
    return answer.deliver(harness, event, row, decision.decision, decision.reason), facts


def respond(harness: str, event: str, host_version: str, payload: Any, payload_error: str | None, env: dict,
            started: float) -> Reply:
    """One event, start to finish: resolve the row, decide, journal, and the host's native reply.

    The seam both transports share: one process per event (`run`, Claude and Codex command hooks)
    and the long-lived JSON-lines server the OpenCode plugin talks to. Never raises.
    """
    row = None
    try:
        from .envelope import build
        from .tables import resolve

        resolved = resolve(harness, host_version, event)
        row = resolved.row
        envelope = build(harness, resolved.contract, host_version, event, row, payload)
        if row is None:
            reply, facts = answer.proceed(harness, f"{resolved.why}; observe-only"), {
                "decision": "observe", "gate": None, "reason": None, "failure": resolved.why, "detail": None,
                "policy": None}
        else:
            reply, facts = decide(harness, event, row, payload, payload_error, envelope, env)
            if payload_error and facts["failure"] is None:
                facts["failure"] = payload_error
        from .journal import record
        from .policy import project_dir

        journal = _journal_path(facts["policy"], project_dir(envelope.get("cwd"), env), env)
        record(journal, envelope, decision=facts["decision"], answer=reply.answer, gate=facts["gate"],
               reason=facts["reason"], failure=facts["failure"], detail=facts["detail"],
               latency_ms=(time.perf_counter() - started) * 1000)
    except Exception as exc:  # our own bug, or the journal unavailable: the row's failure mode, never a traceback
        reply = answer.fail(harness, row, f"internal error ({type(exc).__name__}: {exc})") if row is not None \
            else answer.proceed(harness, f"internal error ({type(exc).__name__}: {exc}); observe-only")
    return reply


def run(argv: list[str], stdin: BinaryIO, stdout: BinaryIO, stderr: BinaryIO, env: dict) -> int:
    started = time.perf_counter()
    args = _args(argv)
    if args is None:
        stderr.write(f"pasture: {USAGE}; proceeding without a decision\n".encode())
        return 0
    try:
        payload, payload_error = _read(stdin)
    except Exception as exc:  # an unreadable stdin is a payload problem, never a traceback
        payload, payload_error = None, f"payload unreadable ({type(exc).__name__})"
    reply = respond(args["harness"], args["event"], args["host_version"], payload, payload_error, env, started)
    stdout.write(reply.stdout.encode("utf-8"))
    stdout.flush()
    if reply.stderr:
        stderr.write(reply.stderr.encode("utf-8", "replace"))
        stderr.flush()
    return reply.exit_code


def main(argv: list[str] | None = None) -> int:
    return run(sys.argv[3:] if argv is None else argv, sys.stdin.buffer, sys.stdout.buffer, sys.stderr.buffer,
               dict(os.environ))
