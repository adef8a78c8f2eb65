"""`pasture policy show | check | trust | untrust`: the layered policy as the hooks see it.

Exit codes: `show` 0; `check` 0 every layer valid and nothing ignored, 1 valid but something needs
the user (an untrusted or changed project layer whose gate or journal is ignored, a gate timeout
the row deadlines will clamp, a `.pasture/` below the project root that is ignored), 2 a layer is
invalid or unreadable; `trust`/`untrust` 0 done, 1 the person answered no, 2 refused (no terminal
to ask a person on, nothing to trust, an invalid file, or a policy that resolves into another project).

Trust needs a person: `trust` and `untrust` ask on the controlling terminal (/dev/tty, opened
directly, never standard input), showing the file, its digest and what its gates will run or
receive, and complete only on `y`. With no terminal they refuse; there is no flag, variable or
input that answers for the person. Provisioning scripts use the user or managed layer, which need
no trust.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from pasture.runtime.effective import Effective

import click

from pasture.cli.options import EXIT_DIFF, EXIT_ERROR

# The longest hook timeout any generated gate row registers (pasture.render.commands.GATE_TIMEOUT);
# a gate asking for more is clamped to that row's deadline at hook time.
_GATE_TIMEOUT = 60


def _project_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--project",
        "project",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="a folder of the project (default: the current folder); the root is found upwards the way git finds .git",
    )(func)


def _root(project: Path | None) -> str:
    from pasture.runtime.project import find_root

    return find_root(str((project or Path.cwd()).resolve()))


def _env() -> dict:
    return dict(os.environ)


def _matchers(rule: dict) -> dict:
    from pasture.runtime.policy import REGEX_MATCHERS

    back = {v: k for k, v in REGEX_MATCHERS.items()}
    out: dict = {key: list(values) for key, values in rule["lists"].items()}
    out.update({back[key]: frozen[1] for key, frozen in rule["regexes"].items()})
    out.update({f"input.{field}": frozen[1] for field, frozen in rule["inputs"].items()})
    if "run" in rule:
        out["run"] = run_text(rule["run"])
    if rule.get("except"):
        out["except"] = list(rule["except"])
    return out


def run_text(run: dict) -> str:
    """A [rules.run] table in one line, as `policy show` prints it."""
    parts = [f"program={'|'.join(run['program'])}"]
    if "subcommand" in run:
        parts.append("subcommand=" + "|".join(" ".join(s) for s in run["subcommand"]))
    for group in run.get("options", ()):
        parts.append("option=" + "|".join(group))
    for key in ("without", "args", "outside", "valued"):
        if key in run:
            parts.append(f"{key}=" + ",".join(run[key]))
    for key in ("text", "script"):
        if key in run:
            parts.append(f"{key}={run[key][1]!r}")
    if "unknown" in run:
        parts.append(f"unknown={run['unknown']}")
    return " ".join(parts)


def _never_matching(path: str, rule: dict) -> list[str]:
    """A warning, at the matcher's file:line, for each value that can never match (policy.never_matching)."""
    from pasture.runtime.policy import _Lines, never_matching

    found = never_matching(rule)
    if not found:
        return []
    lines = _Lines(_text_of(path))
    out = []
    for key, value, should in found:
        line = lines.key(key, rule["line"]) or rule["line"]
        dead = sum(1 for k, _, _ in found if k == key) == len(rule["lists"][key])
        effect = ", so this rule never applies" if dead else f" (only the rule's other {key} values can)"
        out.append(
            f"{path}:{line}: rule {rule['name']!r}: {key} value {value!r} can never match{effect}; write {should}"
        )
    return out


def _text_of(path: str) -> str:
    """The layer's text for line numbers only: a regular file, capped; '' for anything else."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return ""
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return ""
        return fh.read(4 * 1024 * 1024).decode("utf-8", "replace")


def _start(project: Path | None) -> str:
    return str((project or Path.cwd()).resolve())


def describe(root: str, env: dict, start: str | None = None) -> dict:
    """The effective policy as data: what `show --json` prints."""
    from pasture.runtime.deadline import deadline_seconds_for
    from pasture.runtime.effective import load
    from pasture.runtime.lifecycle import journal_for
    from pasture.runtime.project import ignored_markers

    effective = load(root, env)
    layers = []
    rules = []
    steer: list[dict] = []
    warnings = list(effective.notes)
    for marker in ignored_markers(start or root):
        warnings.append(
            f"{marker} is below the project root {root} and is ignored: one project, one layer "
            f"({root}/.pasture/policy.toml is the project's); remove it, or move what it holds there"
        )
    for layer in effective.layers:
        entry = {
            "layer": layer["name"],
            "path": layer["path"],
            "status": layer["status"],
            "digest": layer["digest"],
            "error": layer["error"],
            "ignored": list(layer["ignored"]),
        }
        if layer["name"] == "project" and layer["status"] != "absent":
            entry["pinned"] = layer.get("pinned")
        if layer["status"] in ("trusted", "untrusted"):
            entry["gate"] = {
                "kind": layer["kind"],
                "default": layer["default"],
                "events": list(layer["events"]) if layer["events"] else None,
                "timeout": layer["timeout"],
            }
            settings = layer.get(layer["kind"])  # a running kind's settings sit under its name (runtime.gatekinds)
            if layer["kind"] == "command":
                entry["gate"]["command"] = list(settings)
            elif isinstance(settings, dict):
                entry["gate"].update(settings)
            if layer.get("journal"):
                entry["journal"] = layer["journal"]
            if layer["kind"] != "rules" and layer["timeout"] > deadline_seconds_for(_GATE_TIMEOUT):
                warnings.append(
                    f"{layer['path']}: [gate] timeout {layer['timeout']:g}s is longer than a gate row "
                    f"may take ({deadline_seconds_for(_GATE_TIMEOUT):g}s of the host's "
                    f"{_GATE_TIMEOUT}s hook timeout): it will be clamped, and a gate that needs longer "
                    "gets the row's failure mode"
                )
            for array in ("context", "after", "until"):  # steering entries (issue 17): trusted layers only
                for item in layer.get(array) or ():
                    steer.append(
                        {
                            "layer": layer["name"],
                            "kind": array,
                            "name": item["name"],
                            "line": item["line"],
                            **{k: (list(v) if isinstance(v, tuple) else v) for k, v in item.items() if k in _SHOWN},
                        }
                    )
            for rule in layer["rules"]:
                warnings += _never_matching(layer["path"], rule)
                rules.append(
                    {
                        "layer": layer["name"],
                        "trust": layer["status"],
                        "name": rule["name"],
                        "decision": rule["decision"],
                        "reason": rule["reason"],
                        "line": rule["line"],
                        "match": _matchers(rule),
                    }
                )
        layers.append(entry)
    packs = effective.packs or {"status": "absent", "rules": [], "selected": {}, "versions": {}, "error": None}
    return {
        "root": root,
        "layers": layers,
        "builtin": {
            "protect_guard_files": effective.protect,
            "files": list(effective.files),
            "folders": list(effective.folders),
        },
        "rules": rules,
        "packs": {
            "status": packs["status"],
            "error": packs.get("error"),
            "selected": [
                {"pack": name, "selected_by": by, "version": packs["versions"].get(name)}
                for name, by in packs["selected"].items()
            ],
            "rules": [
                {
                    "id": rule["id"],
                    "pack": rule["pack"],
                    "selected_by": rule["selector"],
                    "decision": rule["decision"],
                    "reason": rule["reason"],
                    "run": run_text(rule["run"]),
                }
                for rule in packs["rules"]
            ],
        },
        **({"steer": steer} if steer else {}),
        "journal": journal_for(root, env),
        **({"retention": dict(effective.retention)} if effective.retention else {}),
        "warnings": warnings,
        "combination": (
            "every layer is evaluated, and every rule in it; the most restrictive decision wins "
            "(deny > ask > rewrite > allow > proceed); an exception (except = [...]) lifts only the rules it names"
        ),
    }


_SHOWN = ("on", "command", "text", "tool_kind", "max", "on_unsupported")


def _contracts() -> list[tuple[str, str, dict]]:
    """(harness, contract id, rows by event) of every pinned contract, in the tables' order."""
    import pasture_contracts

    out = []
    for harness, candidates in pasture_contracts.ADMISSIONS.items():
        for contract_id, module, *_ in candidates:
            rows = __import__(f"pasture_contracts.{module}", fromlist=["ROWS"]).ROWS
            out.append((harness, contract_id, rows))
    return out


def _uses(effective: Effective) -> list[dict]:
    """Every answer beyond deny/ask the effective policy uses: capability, what asks for it, where,
    the moment it is given at, the rule's event/harness matchers, and its on_unsupported."""
    found = []
    for layer in effective.layers:
        if layer["status"] not in ("trusted", "untrusted"):
            continue
        where = layer["path"]
        for rule in layer["rules"]:
            if rule["decision"] in ("allow", "rewrite"):
                found.append(
                    {
                        "capability": rule["decision"],
                        "what": f"rule {rule['name']!r}",
                        "at": f"{where}:{rule['line']}" if rule.get("line") else where,
                        "moment": None,
                        "events": rule["lists"].get("event"),
                        "harnesses": rule["lists"].get("harness"),
                        "on_unsupported": rule.get("on_unsupported", "proceed"),
                    }
                )
        for array, capability in (("context", "context"), ("after", "feedback"), ("until", "continue")):
            for entry in layer.get(array) or ():
                found.append(
                    {
                        "capability": capability,
                        "what": f"[[{array}]] {entry['name']!r}"
                        + (f" (on = {entry['on']})" if array == "context" else ""),
                        "at": f"{where}:{entry['line']}" if entry.get("line") else where,
                        "moment": entry["on"] if array == "context" else ("after-tool" if array == "after" else "stop"),
                        "events": None,
                        "harnesses": None,
                        "on_unsupported": entry["on_unsupported"],
                    }
                )
    return found


def _carriers(use: dict, harness: str, rows: dict) -> list[tuple[str, str]]:
    """(event, wire form) of each row of one contract that gives the answer `use` asks for."""
    from pasture.runtime.answer import offers as offered
    from pasture.runtime.hostwire import WIRES, wire
    from pasture.runtime.lifecycle import _MOMENT_KEYS

    moments = getattr(wire(harness), "MOMENTS", {}) if harness in WIRES else {}
    out = []
    for event, row in rows.items():
        # what the row's captures show honoured AND the runtime's wire for the host can give
        offers = offered(row, harness) if harness in WIRES else {}
        if use["harnesses"] is not None and harness not in use["harnesses"]:
            continue
        if use["events"] is not None and event not in use["events"]:
            continue
        capability = use["capability"]
        if use["moment"] is not None:
            keys = _MOMENT_KEYS.get(moments.get(event) or "", ())
            wanted = {"after-tool": "after" if capability == "feedback" else "context:after-tool", "stop": "until"}
            if wanted.get(use["moment"], f"context:{use['moment']}") not in keys:
                continue
            if use["moment"] == "after-tool" and capability == "context" and "context" not in offers:
                capability = "feedback"  # after-tool context goes by the row's feedback form
        elif row.semantic != "gate-consultation":
            continue
        if capability in offers:
            out.append((event, offers[capability]))
    return out


def answer_matrix(effective: Effective) -> list[str]:
    """The lines `pasture policy check` prints: for each answer the policy uses, what each pinned host
    contract does with it (Row.answers), and CANNOT, with what happens instead, where none can."""
    uses = _uses(effective)
    if not uses:
        return []
    contracts = _contracts()
    width = max(len(cid) for _, cid, _ in contracts)
    lines = [
        "answers the policy uses, per pinned host contract (evidenced on that version: Row.answers; "
        "given by pasture's runtime for that host):"
    ]
    for use in uses:
        lines.append(f"{use['capability']}: {use['what']} at {use['at']}")
        instead = (
            "refused where the event can refuse, else proceeds (on_unsupported = deny)"
            if use["on_unsupported"] == "deny"
            else "proceeds without it (on_unsupported = proceed)"
        )
        for harness, contract_id, rows in contracts:
            carriers = _carriers(use, harness, rows)
            said = "; ".join(f"{event}: {form}" for event, form in carriers) if carriers else f"CANNOT: {instead}"
            lines.append(f"  {contract_id:<{width}}  {said}")
    return lines


@click.group()
def policy() -> None:
    """The layered policy (managed, user, project) the hooks enforce, and which project layers you trust."""


@policy.command()
@_project_option
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def show(project: Path | None, as_json: bool) -> None:
    """Print the effective policy: every layer, its trust state, and every rule with its layer."""
    info = describe(_root(project), _env(), _start(project))
    if as_json:
        click.echo(json.dumps(info, indent=2, ensure_ascii=False))
        return
    click.echo(f"project root: {info['root']}")
    click.echo(f"combination: {info['combination']}")
    for layer in info["layers"]:
        pinned = ""
        if layer["layer"] == "project" and layer["status"] == "untrusted":
            pinned = " (changed since you trusted it)" if layer.get("pinned") else " (never trusted)"
        click.echo(f"{layer['layer']:8s} {layer['status']}{pinned}: {layer['path']}")
        if layer.get("error"):
            click.echo(f"         error: {layer['error']}")
        gate = layer.get("gate")
        if gate:
            what = gate["kind"] + (f" {gate['command']}" if gate.get("command") else "")
            what += f" endpoint {gate['base_url']}" if gate.get("base_url") else ""
            what += f" host {gate['host']}" if gate.get("host") else ""
            events = f", events {', '.join(gate['events'])}" if gate.get("events") else ""
            click.echo(f"         gate: {what}, default {gate['default']}{events}")
        for item in layer["ignored"]:
            click.echo(f"         ignored: {item}")
    state = "on" if info["builtin"]["protect_guard_files"] else "OFF (switched off by the user or managed policy)"
    click.echo(f"builtin  guard files protected: {state}")
    for rule in info["rules"]:
        match = ", ".join(f"{k}={v}" for k, v in rule["match"].items()) or "every event"
        line = f":{rule['line']}" if rule["line"] else ""
        click.echo(f"rule     [{rule['layer']}{line}] {rule['name']}: {rule['decision']} when {match}")
    if info["packs"]["error"]:
        click.echo(f"packs    error: {info['packs']['error']}")
    for item in info["packs"]["selected"]:
        click.echo(f"pack     {item['pack']} v{item['version']} (selected by the {item['selected_by']} layer)")
    for rule in info["packs"]["rules"]:
        click.echo(f"pack rule {rule['id']}: {rule['decision']} when {rule['run']}")
        click.echo(f"          {rule['reason']}")
    for item in info.get("steer", ()):
        what = " ".join(item["command"]) if item.get("command") else repr(item.get("text", ""))
        when = f" on {item['on']}" if item.get("on") else ""
        most = f" (max {item['max']})" if item.get("max") else ""
        click.echo(f"{item['kind']:8s} [{item['layer']}:{item['line']}] {item['name']}{when}: {what}{most}")
    click.echo(f"journal  {info['journal']}")
    if info.get("retention"):  # [journal] keep_days / max_mb of the user or managed layer
        kept = ", ".join(f"{k} = {v:g}" for k, v in sorted(info["retention"].items()))
        click.echo(f"         retention: {kept} (applied by pasture journal and pasture journal prune)")
    for warning in info["warnings"]:
        click.echo(f"warning: {warning}")


@policy.command()
@_project_option
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
def check(project: Path | None, as_json: bool) -> None:
    """Validate every layer; print each problem with its file and line and what to change."""
    from pasture.runtime.effective import load

    root = _root(project)
    info = describe(root, _env(), _start(project))
    errors = [layer["error"] for layer in info["layers"] if layer["status"] in ("invalid", "unreadable")]
    if info["packs"]["status"] == "invalid":
        errors.append(info["packs"]["error"])
    matrix = answer_matrix(load(root, _env()))
    if as_json:
        click.echo(
            json.dumps(
                {
                    "ok": not errors and not info["warnings"],
                    "errors": errors,
                    "warnings": info["warnings"],
                    "answers": matrix,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        for line in matrix:
            click.echo(line)
        for error in errors:
            click.echo(f"error: {error}", err=True)
        for warning in info["warnings"]:
            click.echo(f"warning: {warning}", err=True)
        if not errors and not info["warnings"]:
            present = [f"{layer['layer']} ({layer['path']})" for layer in info["layers"] if layer["status"] != "absent"]
            click.echo("ok: " + (", ".join(present) if present else "no policy layer exists; every gate proceeds"))
    if errors:
        sys.exit(EXIT_ERROR)
    if info["warnings"]:
        sys.exit(EXIT_DIFF)


CASE_KEYS = ("command", "expect", "harness", "name")
EXPECTED = ("deny", "ask", "rewrite", "allow", "proceed")


def _gate_row(harness: str) -> tuple[str | None, Any]:
    """(event name, row) of the newest pinned contract's pre-tool gate row for `harness`."""
    import pasture_contracts

    candidates = pasture_contracts.ADMISSIONS.get(harness)
    if not candidates:
        known = ", ".join(sorted(pasture_contracts.ADMISSIONS))
        raise click.BadParameter(f"unknown harness {harness!r}; known: {known}", param_hint="--harness")
    module = candidates[-1][1]  # the newest pinned contract (the tables list them oldest first)
    rows = __import__(f"pasture_contracts.{module}", fromlist=["ROWS"]).ROWS
    event = _tool_event(harness)
    return (event, rows[event]) if event in rows else (None, None)


def _tool_event(harness: str) -> str | None:
    """The event `harness` consults the guard on before a tool runs: its wire's TOOL_EVENT."""
    from pasture.runtime.hostwire import WIRES
    from pasture.runtime.hostwire.guarded import module

    return getattr(module(WIRES[harness]), "TOOL_EVENT", None) if harness in WIRES else None


def judge(effective: Effective, command: str, harness: str | None) -> dict:
    """What the effective policy decides for one shell command (as a PreToolUse shell call)."""
    from pasture.runtime.effective import evaluate

    event, row = _gate_row(harness) if harness else ("PreToolUse", None)
    envelope = {
        "harness": harness,
        "event": event,
        "semantic": "gate-consultation",
        "tool_name": "Bash",
        "tool_kind": "shell",
        "tool_input": {"command": command},
        "command": command,
        "file_path": None,
        "cwd": effective.root,
    }
    verdict = evaluate(effective, envelope)
    decision = verdict.decision or "failure"
    result: dict[str, Any] = {
        "command": command,
        "decision": decision,
        "layer": verdict.layer,
        "rule": verdict.rule,
        "reason": verdict.reason or verdict.failure,
    }
    if harness:
        from pasture.runtime.answer import can_ask

        result["harness"] = harness
        if decision == "ask" and not can_ask(row):
            result["host_gives"] = "deny"  # an ask this host cannot put to the person is refused
    notes = [n for n in verdict.notes if n not in effective.notes]
    if notes:
        result["notes"] = notes
    return result


def _cases(path: Path) -> list[dict]:
    """The [[case]] tables of a cases file; PastureError (file:line, what to write) for anything else."""
    from pasture import PastureError
    from pasture.runtime.policy import _Lines, parse_text

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PastureError(f"{path}: cannot be read ({exc})") from None
    doc = parse_text(str(path), text)
    lines = _Lines(text)
    found = [n + 1 for n, line in enumerate(lines.lines) if line.strip().replace(" ", "").startswith("[[case]]")]
    if set(doc) - {"case"} or not isinstance(doc.get("case"), list) or not doc["case"]:
        raise PastureError(
            f'{path}: a cases file holds [[case]] tables (command = "...", expect = "deny"); '
            f"found {', '.join(sorted(doc)) or 'nothing'}"
        )
    out = []
    for index, case in enumerate(doc["case"]):
        where = f"{path}:{found[index]}" if index < len(found) else str(path)
        extra = sorted(set(case) - set(CASE_KEYS))
        if extra:
            raise PastureError(
                f"{where}: [[case]] has unknown key(s) {', '.join(extra)}; allowed: {', '.join(CASE_KEYS)}"
            )
        if not isinstance(case.get("command"), str) or not case["command"]:
            raise PastureError(f'{where}: [[case]] needs command = "the shell command"')
        if case.get("expect") not in EXPECTED:
            raise PastureError(f"{where}: [[case]] expect {case.get('expect')!r} is not one of {', '.join(EXPECTED)}")
        if "harness" in case and not isinstance(case["harness"], str):
            raise PastureError(f"{where}: [[case]] harness must be a host name")
        out.append(dict(case, line=found[index] if index < len(found) else None))
    return out


@policy.command(name="test", context_settings={"ignore_unknown_options": True})
@_project_option
@click.option("--harness", "harness", default=None, metavar="H", help="judge as this host's pre-tool event")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.option(
    "--cases",
    "cases_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help='a TOML file of [[case]] command = "...", expect = "deny|ask|rewrite|allow|proceed"; exit 1 on any mismatch',
)
@click.argument("commands", nargs=-1, type=click.UNPROCESSED)
def test_command(
    project: Path | None, harness: str | None, as_json: bool, cases_file: Path | None, commands: tuple[str, ...]
) -> None:
    """What the effective policy decides for shell commands: pasture policy test -- 'git push --force'.

    Each COMMAND is one shell line, judged as the agent's shell tool call (the built-in guard, every
    layer and the packs). Prints the decision, the layer and rule (or pack rule id) and the reason.
    With --cases FILE, runs a list of commands with the decision each should get and exits 1 on any
    mismatch: a policy's regression suite for CI or pre-commit."""
    from pasture.runtime.effective import load

    if not commands and cases_file is None:
        raise click.UsageError("give commands after --, or --cases FILE")
    root = _root(project)
    effective = load(root, _env())
    cases = [{"command": c} for c in commands]
    if cases_file is not None:
        cases += _cases(cases_file)
    results = []
    mismatches = 0
    for case in cases:
        result = judge(effective, case["command"], case.get("harness", harness))
        if "expect" in case:
            got = result.get("host_gives", result["decision"])
            result["expect"] = case["expect"]
            result["ok"] = got == case["expect"]
            if case.get("line"):
                result["at"] = f"{cases_file}:{case['line']}"
            mismatches += not result["ok"]
        results.append(result)
    if as_json:
        click.echo(json.dumps({"results": results, "mismatches": mismatches}, indent=2, ensure_ascii=False))
    else:
        for result in results:
            by = f"{result['layer']}:{result['rule']}" if result["rule"] else (result["layer"] or "-")
            shown = result["decision"] + (f" (this host: {result['host_gives']})" if "host_gives" in result else "")
            mark = ""
            if "expect" in result:
                mark = "ok   " if result["ok"] else f"FAIL (expected {result['expect']}) "
            click.echo(f"{mark}{shown:8s} {by}  $ {result['command']}")
            click.echo(f"         {result['reason']}")
            for note in result.get("notes", ()):
                click.echo(f"         note: {note}")
        if any("expect" in r for r in results):
            total = sum(1 for r in results if "expect" in r)
            click.echo(f"{total - mismatches} of {total} cases as expected")
    if mismatches:
        sys.exit(EXIT_DIFF)


NO_TERMINAL = (
    "error: pasture policy {verb} needs a person: it asks on the controlling terminal and there is none "
    "here ({why}); run it yourself in a terminal, outside any agent session. Nothing changed."
)


def _ask(text: str, question: str) -> tuple[bool | None, str]:
    """Show `text` and ask `question` on the controlling terminal, never on stdin: (answered yes?, why).
    None: no terminal to ask on."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError as exc:
        return None, f"/dev/tty: {exc.strerror or exc}"
    with open(fd, "r+b", buffering=0) as tty:
        try:  # what was typed (or pushed in with TIOCSTI) before the question is no answer to it
            import termios

            termios.tcflush(fd, termios.TCIFLUSH)
        except (ImportError, OSError):  # pragma: no cover - not a terminal that keeps an input queue
            pass
        tty.write(text.encode("utf-8", "replace") + question.encode())
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < 64:
            chunk = tty.read(1)
            if not chunk:
                break
            answer += chunk
    reply = answer.decode("utf-8", "replace").strip().lower()
    return reply in ("y", "yes"), reply


def _what_it_runs(root: str, layer: dict, entry: dict) -> list[str]:
    from pasture.runtime import trust as store

    lines = []
    for argv in store.runs(layer):
        lines.append(
            f"  runs {list(argv)} in {root}, with every event's payload (tool, command, file contents) "
            "on its standard input, as you"
        )
    for path, value in sorted(entry["programs"].items()):
        lines.append(f"  pins the program {path} ({value})")
    if layer.get("kind") == "ai":
        endpoint = layer["ai"].get("base_url", "the endpoint your environment configures")
        lines.append(
            f"  sends every event's payload to the AI gate at {endpoint} with your API key "
            "($PASTURE_AI_API_KEY, $OPENROUTER_API_KEY or $OPENAI_API_KEY)"
        )
    if layer.get("journal"):
        lines.append(f"  journals to {layer['journal']}")
    return lines or ["  runs nothing and sends nothing: its rules already apply untrusted"]


@policy.command()
@_project_option
def trust(project: Path | None) -> None:
    """Trust the project's .pasture/policy.toml and the programs it runs as they are now (their exact
    bytes), after you confirm on the terminal; any later change to any of them un-trusts it."""
    from pasture.runtime import trust as store
    from pasture.runtime.layers import project_path
    from pasture.runtime.policy import PolicyError

    root = _root(project)
    path = project_path(root)
    if not os.path.isfile(path):
        click.echo(f"error: {path} does not exist; nothing to trust", err=True)
        sys.exit(EXIT_ERROR)
    info = describe(root, _env())
    layer = next(entry for entry in info["layers"] if entry["layer"] == "project")
    if layer["status"] in ("invalid", "unreadable"):
        click.echo(f"error: {layer['error']}; fix it first, then trust it", err=True)
        sys.exit(EXIT_ERROR)
    if not store.resolves_into(path, root):
        click.echo(
            f"error: {path} resolves to {os.path.realpath(path)}, which belongs to another project; a policy "
            "is trusted only in the project it resolves into. Trust it there, or copy the file here. "
            "Nothing changed.",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        entry = store.pin(path, root, data)
        compiled = store.compiled(path, root, data)
    except (OSError, PolicyError) as exc:
        click.echo(f"error: {exc}; fix it first, then trust it", err=True)
        sys.exit(EXIT_ERROR)
    real = os.path.realpath(path)
    shown = data.decode("utf-8", "replace")
    text = (
        f"pasture policy trust: {path}" + (f" (the file {real})" if real != path else "") + "\n"
        f"digest {entry['policy']}\n----\n{shown}" + ("" if shown.endswith("\n") else "\n") + "----\n"
        "once trusted, this policy:\n" + "\n".join(_what_it_runs(root, compiled, entry)) + "\n"
    )
    answer, why = _ask(text, "Trust it? Only a person at this terminal can answer. [y/N] ")
    if answer is None:
        click.echo(NO_TERMINAL.format(verb="trust", why=why), err=True)
        sys.exit(EXIT_ERROR)
    if not answer:
        click.echo(f"not trusted: you answered {why!r}; nothing changed", err=True)
        sys.exit(EXIT_DIFF)
    try:
        digest = store.trust(path, _env(), root, entry)
    except (OSError, ValueError, store.TrustStoreError) as exc:
        click.echo(f"error: cannot record trust in {store.store_path(_env())}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"trusted {path} ({digest}) in {store.store_path(_env())}")
    for item in layer["ignored"]:
        click.echo(f"  now enabled: {item}")
    click.echo("  any change to the file or a program it runs un-trusts it again; pasture policy untrust forgets it")


@policy.command()
@_project_option
def untrust(project: Path | None) -> None:
    """Forget the trust recorded for the project's .pasture/policy.toml, after you confirm on the terminal."""
    from pasture.runtime import trust as store
    from pasture.runtime.layers import project_path

    path = project_path(_root(project))
    try:
        recorded = store.trusted_digest(path, _env())
    except (OSError, store.TrustStoreError) as exc:
        click.echo(f"error: cannot read {store.store_path(_env())}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if recorded is None:
        click.echo(f"{path} was not trusted; nothing changed")
        return
    answer, why = _ask(
        f"pasture policy untrust: {path}\npinned as {recorded}\n"
        "its gates and journal setting stop running; its rules still apply\n",
        "Untrust it? [y/N] ",
    )
    if answer is None:
        click.echo(NO_TERMINAL.format(verb="untrust", why=why), err=True)
        sys.exit(EXIT_ERROR)
    if not answer:
        click.echo(f"still trusted: you answered {why!r}; nothing changed", err=True)
        sys.exit(EXIT_DIFF)
    try:
        found = store.untrust(path, _env())
    except (OSError, store.TrustStoreError) as exc:
        click.echo(f"error: cannot update {store.store_path(_env())}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"untrusted {path}" if found else f"{path} was not trusted; nothing changed")
