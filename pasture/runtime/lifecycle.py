"""`pasture hook lifecycle --harness H --event E --host-version V`: payload on stdin, native answer out.

It never raises and never blocks on a coordinate it cannot name: an unknown harness, version or
event is journaled observe-only with a one-line diagnostic. Only gate-consultation rows consult the
policy; a gate (or pasture itself) that fails gets the row's effective failure mode, exactly. A stop
that an earlier block caused (`stop_hook_active`) is never blocked again, whatever else fails.

Speed: this module and everything it imports on the way to an answer use only the standard
library modules that cost next to nothing to import (see pasture/runtime/fastjson.py, policy.py (freeze),
journal.py for what is avoided and why); the rest is imported only where a policy needs it. The
modules on that path do without `from __future__ import annotations`: `__future__` is a module
too, and every module the hook imports costs ~0.4M instructions (callgrind).
"""

import sys
import time

from pasture.runtime import answer, fs
from pasture.runtime.answer import Reply
from pasture.runtime.fastjson import JSONError, loads
from pasture.runtime.journal import JournalError, record

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any

    from pasture.runtime.effective import Effective, Verdict

MAX_PAYLOAD = 16 * 1024 * 1024
USAGE = "usage: pasture hook lifecycle --harness H --event E --host-version V  (payload JSON on stdin)"
EXIT_BROKEN = 70  # the runtime cannot load its own tables: the adapters' fallback turns this into a block
REINSTALL = "pip install --force-reinstall pasture, then pasture install <host> again"


def _args(argv: list[str], wanted: dict[str, str] | None = None) -> dict[str, str] | None:
    """Every option of ``wanted`` (--name value or --name=value, each once), nothing else; None if not."""
    wanted = wanted or {"--harness": "harness", "--event": "event", "--host-version": "host_version"}
    out: dict[str, str] = {}
    items = iter(argv)
    for item in items:
        key, eq, value = item.partition("=")
        if key not in wanted:
            return None
        if not eq:
            following = next(items, None)
            if following is None:
                return None
            value = following
        out[wanted[key]] = value
    return out if len(out) == len(wanted) else None


def parse_payload(data: bytes) -> tuple[object, str | None]:
    if len(data) > MAX_PAYLOAD:
        return None, f"payload larger than {MAX_PAYLOAD} bytes"
    if not data.strip():
        return None, "empty payload"
    try:
        text = data.decode("utf-8-sig" if data[:3] == b"\xef\xbb\xbf" else "utf-8")
        payload = loads(text)
    except UnicodeDecodeError:
        return None, "payload is not JSON (UnicodeDecodeError)"
    except JSONError as exc:
        return None, f"payload is not JSON ({exc})"
    if not isinstance(payload, dict):
        kind = {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(payload), "number")
        return None, f"payload is a JSON {kind}, not an object"
    return payload, None


def _read(stream: "Any") -> tuple[object, str | None]:
    data = stream.read(MAX_PAYLOAD + 1)
    return parse_payload(data)


def _journal_path(effective: "Effective | None", root: str, env: dict) -> str:
    if env.get("PASTURE_JOURNAL") and fs.isabs(env["PASTURE_JOURNAL"]):
        return env["PASTURE_JOURNAL"]
    if effective is not None and effective.journal:
        return effective.journal
    return fs.join(root, ".pasture", "journal.sqlite3")


def journal_for(start: str, env: dict) -> str:
    """The journal the hooks write for a project (for `pasture journal` and `pasture doctor`)."""
    from pasture.runtime.effective import load
    from pasture.runtime.project import find_root

    root = find_root(start)
    try:
        effective = load(root, env)
    except Exception:
        effective = None
    return _journal_path(effective, root, env)


def _facts(decision: str, **more: "Any") -> dict:
    facts = {
        "decision": decision,
        "gate": None,
        "reason": None,
        "failure": None,
        "detail": None,
        "layer": None,
        "rule": None,
    }
    facts.update(more)
    return facts


def decide(
    harness: str,
    event: str,
    row: "Any",
    payload: "Any",
    payload_error: str | None,
    envelope: dict,
    env: dict,
    root: str,
    started: float,
) -> "tuple[Reply, dict, Effective | None]":
    """The reply, what the journal records about how it was reached, and the effective policy."""
    from pasture.runtime.deadline import deadline_seconds
    from pasture.runtime.effective import load

    deadline = started + deadline_seconds(row)
    try:
        # A policy compile (after an edit) counts against the same deadline as the gates.
        effective = load(root, env, time.monotonic() + (deadline - time.perf_counter()))
    except Exception as exc:  # our own bug while loading: the row's failure mode, and say so
        if row.semantic != "gate-consultation":
            return answer.proceed(harness), _facts("observe", failure=f"policy: {type(exc).__name__}: {exc}"), None
        facts = _facts("none", failure=f"policy could not be loaded ({type(exc).__name__}: {exc})")
        return answer.fail(harness, row, facts["failure"]), facts, None
    keys = steering(effective, harness, event)
    if row.semantic != "gate-consultation":
        # Observation rows journal and proceed (or carry context/feedback the policy asks for); explicit-
        # human rows never get a fabricated decision.
        facts = _facts("observe")
        if keys and payload_error is None:
            reply = steer_reply(harness, event, row, envelope, effective, env, root, deadline, None, keys, facts)
            notes = facts["detail"].pop("steer_notes", [])
            if notes:
                facts["detail"]["notes"] = notes
            return answer.with_notes(reply, notes), facts, effective
        return answer.proceed(harness), facts, effective
    if payload_error is not None:
        return answer.fail(harness, row, f"{event}: {payload_error}"), _facts("none", failure=payload_error), effective
    from pasture.runtime.effective import evaluate

    verdict = evaluate(effective, envelope, deadline)
    facts = _facts(
        verdict.decision or "none",
        gate=verdict.gate,
        reason=verdict.reason,
        failure=verdict.failure,
        detail=verdict.detail,
        layer=verdict.layer,
        rule=verdict.rule,
    )
    notes = list(verdict.notes)
    clamped = verdict.detail.get("clamped") if isinstance(verdict.detail, dict) else None
    if clamped and verdict.failure is None:  # a failure's own line already names the clamp
        notes.append(f"{event}: {clamped}")
    if verdict.failure is not None and (verdict.decision is None or answer.fails_closed(row)):
        reply = answer.fail(harness, row, f"gate failed on {event}: {verdict.failure}")
    elif verdict.decision in ("allow", "rewrite") or (keys and verdict.decision == "proceed"):
        reply = steer_reply(harness, event, row, envelope, effective, env, root, deadline, verdict, keys, facts)
        if verdict.failure is not None:
            notes.append(f"{event}: {verdict.failure}; went by the decisions that were made")
    else:
        reply = answer.deliver(harness, event, row, verdict.decision, verdict.reason)
        if verdict.failure is not None:
            notes.append(f"{event}: {verdict.failure}; went by the decisions that were made")
    notes += (facts["detail"] or {}).pop("steer_notes", []) if isinstance(facts["detail"], dict) else []
    if notes:
        facts["detail"] = dict(facts["detail"] or {}, notes=notes)
        reply = answer.with_notes(reply, notes)
    return reply, facts, effective


# [[context]] on, [[after]], [[until]] -> the keys of Effective.steer each steering moment reads
_MOMENT_KEYS = {
    "session-start": ("context:session-start",),
    "prompt": ("context:prompt",),
    "after-tool": ("context:after-tool", "after"),
    "stop": ("until",),
    "system": ("context:session-start", "context:prompt"),  # OpenCode: the system prompt of every request
}


def steering(effective: "Any", harness: str, event: str) -> tuple:
    """The Effective.steer keys this event runs: () (and nothing imported) when the policy has none."""
    if effective is None or not effective.steer:
        return ()
    from pasture.runtime.hostwire import wire

    moment = getattr(wire(harness), "MOMENTS", {}).get(event)
    if moment is None:
        return ()
    return tuple(key for key in _MOMENT_KEYS.get(moment, ()) if key in effective.steer)


def steer_reply(
    harness: str,
    event: str,
    row: "Any",
    envelope: dict,
    effective: "Any",  # an Effective; None on events no layer was loaded for
    env: dict,
    root: str,
    deadline: float,
    verdict: "Any",  # the Verdict; None where only observation steering runs
    keys: tuple,
    facts: dict,
) -> Reply:
    """Allow, rewrite, context, feedback and continue-at-stop, as far as the row offers them (Row.answers);
    the rest degrades by the entry's on_unsupported, said on stderr and in the journal."""
    offers = answer.offers(row, harness)
    parts: dict = {}
    journal: list = []
    notes: list = []
    where = f"{event} of {envelope.get('contract')}"

    def unsupported(capability: str, entry: "Any", name: str, why: str = "") -> "Reply | None":
        why = why or f"{where} cannot give {capability!r} (no capture of this host version shows it honoured)"
        journal.append({"kind": capability, "name": name, "degraded": why, "on_unsupported": entry["on_unsupported"]})
        if entry["on_unsupported"] == "deny":
            return answer.deliver(harness, event, row, "deny", f"{why}; refused ({name}: on_unsupported = deny)")
        notes.append(f"{why}; proceeding without it ({name}: on_unsupported = proceed)")
        return None

    def done(reply: Reply) -> Reply:
        facts["detail"] = dict(facts["detail"] or {}, steer=journal, steer_notes=notes)
        return reply

    decision = verdict.decision if verdict is not None else None
    structured = verdict is not None and isinstance(verdict.entry, dict) and "run" in verdict.entry
    if decision == "allow" and not structured and _chained(envelope):
        # a structured allow was already checked command by command (pasture.runtime.effective._allow_given)
        # `^(ls|cat)\b` must not approve `ls; curl x | sh`: the host asks as it would without the rule
        notes.append(f"rule {verdict.rule!r}: {CHAINED}; no opinion, the host asks as usual")
        journal.append({"kind": "allow", "name": verdict.rule, "not_given": CHAINED})
        return done(answer.proceed(harness))
    if decision == "allow":
        if "allow" in offers:
            parts["allow"] = verdict.reason
        else:
            refused = unsupported("allow", verdict.entry, f"rule {verdict.rule!r}")
            if refused is not None:
                return done(refused)
    elif decision == "rewrite":
        refused = None
        if "rewrite" not in offers:
            refused = unsupported("rewrite", verdict.entry, f"rule {verdict.rule!r}")
        else:
            from pasture.runtime.steer import rewrite

            new, changes, problem = rewrite(verdict.rewrites, envelope.get("tool_input"), deadline)
            if problem is None and changes and _chained(envelope, new):  # a rewrite is an allow of its result
                problem = f"the rewritten {CHAINED} (a rewrite approves the call it makes)"
            if problem is not None:
                refused = unsupported("rewrite", verdict.entry, f"rule {verdict.rule!r}", f"cannot rewrite: {problem}")
            elif changes:
                said = "; ".join(f"{field} {before!r} -> {after!r}" for field, before, after, _ in changes)
                for field, before, after, rule in changes:
                    journal.append({"kind": "rewrite", "name": rule, "field": field, "before": before, "after": after})
                # What runs is the rewritten call: the guard and every layer judge it again, so a rewrite
                # never carries past a deny or an ask what its input would get (issue 17, an attacker's try).
                again = _judge_rewritten(envelope, new, effective, deadline, verdict.failure)
                if again is not None:
                    journal.append({"kind": "rewrite", "judged_again": again.decision, "rule": again.rule})
                    if again.decision not in ("deny", "ask"):  # by on_unsupported: never the original unchanged
                        facts["failure"] = again.failure
                        refused = unsupported(
                            "rewrite",
                            verdict.entry,
                            f"rule {verdict.rule!r}",
                            f"the rewritten call ({said}) could not be judged: {again.failure}",
                        )
                        return done(refused or answer.proceed(harness))
                    facts.update(
                        decision=again.decision,
                        gate=again.gate,
                        reason=again.reason,
                        failure=again.failure,
                        layer=again.layer,
                        rule=again.rule,
                    )
                    why = f"{again.reason} (the call as rule {verdict.rule!r} rewrote it: {said})"
                    return done(answer.deliver(harness, event, row, again.decision, why))
                told = f"pasture rewrote this call (rule {verdict.rule!r}): {said}"
                parts["rewrite"] = (new, told)
                notes.append(told.replace("pasture rewrote", "rewrote", 1))
                if "context" in offers:
                    parts.setdefault("context", []).append(told)
            elif verdict.entry.get("except"):
                # it lifted a deny to rewrite the call: unchanged, the call must not run as if excepted
                refused = unsupported(
                    "rewrite",
                    verdict.entry,
                    f"rule {verdict.rule!r}",
                    "cannot rewrite: its pattern changed nothing, and the rule is an exception to "
                    f"{', '.join(verdict.entry['except'])}",
                )
                if refused is None:
                    return done(answer.proceed(harness))
            else:
                notes.append(f"rule {verdict.rule!r}: its rewrite pattern changed nothing; no opinion")
        if refused is not None:
            return done(refused)
    if keys:
        from pasture.runtime import steer

        try:
            for key in keys:
                entries = effective.steer[key]
                if key == "until":
                    if "continue" not in offers:  # said, not run: a check nobody can act on costs time
                        for _, entry in entries:
                            refused = unsupported("continue", entry, f"[[until]] {entry['name']!r}")
                            if refused is not None:
                                return done(refused)
                        continue
                    try:
                        reason = steer.until(entries, envelope, root, env, deadline, journal)
                    except steer.CounterLost as exc:  # uncounted is unbounded: the agent may stop
                        notes.append(f"{event}: {exc}; the agent may stop")
                        continue
                    if reason is None:
                        continue
                    parts["continue"] = reason
                    continue
                if key == "after":
                    texts = steer.after(entries, envelope, root, deadline, journal)
                    capability = "feedback"
                elif key == "context:after-tool":
                    texts = steer.after_context(entries, envelope, root, deadline, journal)
                    capability = "context" if "context" in offers else "feedback"
                else:
                    texts = steer.context(entries, root, deadline, journal)
                    capability = "context"
                if not texts:
                    continue
                if capability in offers:
                    parts.setdefault(capability, []).extend(texts)
                    continue
                for _, entry in entries:
                    refused = unsupported(capability, entry, f"[[{key.split(':')[0]}]] {entry['name']!r}")
                    if refused is not None:
                        return done(refused)
        except steer.SteerFailure as exc:
            journal.append({"kind": "failure", "error": str(exc)})
            facts["failure"] = str(exc)
            return done(answer.fail(harness, row, f"{event}: {exc}"))
    reply = answer.steered(harness, event, row, parts)
    return done(reply)


# What chains or substitutes commands in a shell line (redirections are not here: `echo x > f` is one command)
_CHAINS = (";", "&", "|", "\n", "\r", "`", "$(", "<(", ">(")
# ...but `&` in these is a redirection of one command's streams (agents append `2>&1` to most commands)
_DUPS = ("&>>", "&>", "2>&1", "1>&2", ">&2", ">&1")
CHAINED = "shell command line runs more than one command (; & | newline ` $( <( >(): allow is not given for it"


def _chained(envelope: dict, tool_input: dict | None = None) -> bool:
    """A shell call whose command line holds more than one command (or a substitution): an allow (or a
    rewrite, which the host runs as approved) given for its first words would approve all of it."""
    if envelope.get("tool_kind") != "shell":
        return False
    if tool_input is None:
        tool_input = envelope.get("tool_input")
    if not isinstance(tool_input, dict):
        return False
    value = tool_input.get("command", tool_input.get("cmd"))  # the command line (a string, or an argv list)
    words = value if isinstance(value, list) else [value]
    return any(isinstance(word, str) and any(mark in _undup(word) for mark in _CHAINS) for word in words)


def _undup(word: str) -> str:
    for dup in _DUPS:
        if dup in word:
            word = word.replace(dup, " ")
    return word


def _judge_rewritten(
    envelope: dict, new: dict, effective: "Effective", deadline: float, failed_before: "str | None"
) -> "Verdict | None":
    """The verdict on the rewritten call when it may not run as rewritten: a deny, an ask, or a failure
    (a gate that failed on it) the original call did not have; None when the rewrite stands."""
    from pasture.runtime.effective import evaluate
    from pasture.runtime.envelope import with_input

    again = evaluate(effective, with_input(envelope, new), deadline)
    if again.decision in ("deny", "ask") or (again.failure is not None and failed_before is None):
        return again
    return None


def respond(
    harness: str,
    event: str,
    host_version: str,
    payload: "Any",
    payload_error: str | None,
    env: dict,
    started: float,
    cpu_started: float | None = None,
) -> Reply:
    """One event, start to finish: resolve the row, decide, journal, and the host's native reply.

    The seam both transports share: one process per event (`run`, Claude and Codex command hooks)
    and the long-lived JSON-lines server the OpenCode plugin talks to. Never raises. `started`: the
    time.perf_counter() at which this event's handling began. `cpu_started`: None for a one-event
    process (its CPU since exec, interpreter start-up included, is the event's cost), else the
    time.thread_time() at which this thread began the event (the server's threads share one process).
    """
    row = None
    settled = False  # a stop an earlier block caused: never blocked again, whatever fails below
    try:
        try:
            from pasture.runtime.tables import resolve

            resolved = resolve(harness, host_version, event)
        except ImportError as exc:
            return Reply(
                EXIT_BROKEN,
                "",
                f"pasture: cannot load its contract tables ({type(exc).__name__}: {exc}); "
                f"the install is broken: {REINSTALL}\n",
                "fail-block",
            )
        from pasture.runtime.envelope import build
        from pasture.runtime.project import root_for

        row = resolved.row
        envelope = build(harness, resolved.contract, host_version, event, row, payload)
        settled = (
            row is not None
            and row.stop_loop == "consult-when-inactive"
            and isinstance(payload, dict)
            and payload.get("stop_hook_active") is True
        )
        env, alerts = _screen(env, envelope)
        root = root_for(envelope.get("cwd"), env)
        effective: "Effective | None" = None
        if row is None:
            reply, facts = (
                answer.proceed(harness, f"{resolved.why}; observe-only"),
                _facts("observe", failure=resolved.why),
            )
        elif settled and row.semantic == "gate-consultation":
            reply, facts = (
                answer.proceed(harness),
                _facts("proceed", reason="stop already continued by an earlier block: not consulted again"),
            )
            try:
                from pasture.runtime.effective import load

                effective = load(root, env)
            except Exception:
                effective = None
            keys = steering(effective, harness, event)
            if keys:  # [[until]] bounds itself (its per-session max): it may continue a stop again
                from pasture.runtime.deadline import deadline_seconds

                deadline = started + deadline_seconds(row)
                reply = steer_reply(harness, event, row, envelope, effective, env, root, deadline, None, keys, facts)
                notes = facts["detail"].pop("steer_notes", [])
                if notes:
                    facts["detail"]["notes"] = notes
                reply = answer.with_notes(reply, notes)
        else:
            reply, facts, effective = decide(harness, event, row, payload, payload_error, envelope, env, root, started)
            if payload_error and facts["failure"] is None:
                facts["failure"] = payload_error
        if effective is not None:
            alerts += effective.alerts
        if alerts:  # the roots a repository tried to move, a cache not believed: said on every row
            said = (facts["detail"] or {}).get("notes", []) if isinstance(facts["detail"], dict) else []
            fresh = [note for note in alerts if note not in said]
            if fresh:
                facts["detail"] = dict(facts["detail"] or {}, notes=list(said) + fresh)
                reply = answer.with_notes(reply, fresh)
        record(
            _journal_path(effective, root, env),
            envelope,
            decision=facts["decision"],
            answer=reply.answer,
            gate=facts["gate"],
            reason=facts["reason"],
            failure=facts["failure"],
            detail=facts["detail"],
            layer=facts["layer"],
            rule=facts["rule"],
            runtime_ms=(time.perf_counter() - started) * 1000,
            cpu_ms=(time.process_time() if cpu_started is None else time.thread_time() - cpu_started) * 1000,
        )
    except Exception as exc:  # our own bug, or the journal unavailable: the row's failure mode, never a traceback
        if isinstance(exc, JournalError):
            # Seen on the real hosts with a journal folder that is a file: say what and how to fix,
            # not "internal error" (an event that cannot be journaled gets the row's failure mode).
            message = (
                f"cannot journal {event}: {exc}; make that folder writable, or point PASTURE_JOURNAL "
                "or the policy's [journal] path at one (pasture policy show names the journal in use)"
            )
        else:
            message = f"internal error ({type(exc).__name__}: {exc})"
        if settled:
            reply = answer.proceed(harness, f"{message}; a stop an earlier block caused is never blocked again")
        elif row is not None:
            reply = answer.fail(harness, row, message)
        else:
            reply = answer.proceed(harness, f"{message}; observe-only")
    return reply


def _screen(env: dict, envelope: dict) -> tuple[dict, list[str]]:
    """The environment without what the project's host settings injected (pasture.runtime.injected,
    imported only when a project `.claude/` folder is there to read)."""
    from pasture.runtime.layers import project_host_settings

    try:
        here = fs.getcwd()
    except OSError:
        here = None
    from pasture.runtime.hostwire import PROJECT_DIR_VARIABLES

    starts = (envelope.get("cwd"), *(env.get(name) for name in PROJECT_DIR_VARIABLES), here)
    files = project_host_settings(starts)
    notes: list[str] = []
    if files:
        from pasture.runtime.injected import screen

        env, notes = screen(env, starts, files)
    # the dotenv files the host itself loads (its hostwire ENV_FILES: Gemini CLI's .env, OpenCode's)
    from pasture.runtime import hostwire

    names = getattr(hostwire.wire(envelope.get("harness") or ""), "ENV_FILES", ())
    if names:
        from pasture.runtime import envfiles

        dotenv = envfiles.find(starts, names)
        if dotenv:
            env, more = envfiles.screen(env, dotenv)
            notes = list(notes) + more
    return env, list(notes)


def run(argv: list[str], stdin: "Any", stdout: "Any", stderr: "Any", env: dict) -> int:
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
        stderr.write(reply.stderr.encode("utf-8", "backslashreplace"))
        stderr.flush()
    return reply.exit_code


def main(argv: list[str] | None = None) -> int:
    return run(
        sys.argv[3:] if argv is None else argv, sys.stdin.buffer, sys.stdout.buffer, sys.stderr.buffer, fs.environ()
    )
