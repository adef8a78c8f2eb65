"""`pasture capture`: run a real host through the scripted scenarios and commit what its hooks saw.

Layout written (all JSON: sorted keys, two-space indent, UTF-8, one trailing newline)::

    <out>/<harness>@<version>/
      capture.json                 provenance, the host's event catalog, every scenario's outcome
      <scenario>/
        scenario.json              provenance + result: channel, refusal held?, probe file, model told
        events/<Event>.json        every payload the host handed that event's hook, in order
        hook-process.json          Claude/Codex: cwd and CLAUDE_*/CODEX_* env of the first hook of each event
        model.json                 the fake model's side: each main request's new input and the scripted answer

Everything is built in a staging folder beside the destination and renamed into place only when
every scenario ran; a missing binary, a version that cannot be read, a timeout, or a run in which no
hook fired raises :class:`CaptureError` and leaves nothing behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from pasture import PastureError
from pasture.evolve.adapters import ADAPTERS, CaptureAdapter, Records
from pasture.evolve.scenarios import ASKED_COMMAND, ASKED_FILE, PROBE_FILE, PROMPT, Scenario, scenarios_for
from pasture.evolve.scrub import Scrubber
from pasture.hostenv import HostRun, HostRunResult, Script, Turn, isolation_support, prepare_run
from pasture.hostenv.fake_models import PROTOCOLS
from pasture.hostenv.npm_tools import NpmInstallError, binary_version
from pasture.hosts import LAUNCHERS

CAPTURE_FORMAT = 1
_SAFE_NAME = __import__("re").compile(r"[A-Za-z][A-Za-z0-9._-]*")


class CaptureError(PastureError, RuntimeError):
    """The capture could not be made; nothing was written."""


@dataclass(frozen=True)
class CaptureSummary:
    harness: str
    version: str
    path: Path
    scenarios: list[dict[str, Any]]
    catalog: list[str] | None


def dump_json(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def read_version(binary: Path, timeout: float = 60.0) -> str:
    if not binary.exists():
        raise CaptureError(f"host binary {binary} does not exist; nothing was written")
    if not os.access(binary, os.X_OK):
        raise CaptureError(f"host binary {binary} is not executable; nothing was written")
    try:
        return binary_version(binary, timeout=timeout, wrapper=isolation_support().wrapper)
    except subprocess.TimeoutExpired:
        raise CaptureError(f"{binary} --version did not answer within {timeout:g}s; nothing was written") from None
    except (OSError, NpmInstallError) as exc:
        raise CaptureError(f"cannot read the version of {binary}: {exc}; nothing was written") from None


def require_isolation(allow_none: bool) -> str:
    """The isolation mode host runs will use; refuse when no loopback-only namespace can be made,
    unless the caller explicitly accepts running on the per-host offline settings alone."""
    iso = isolation_support()
    if not iso.private_network and not allow_none:
        raise CaptureError(
            f"no loopback-only network namespace can be made here ({iso.note}); a real host is "
            "not run without one. Run where `unshare --net` works (root, or user namespaces), or "
            "pass --no-isolation to rely on the per-host offline settings alone. Nothing was written."
        )
    return iso.mode


def capture(
    harness: str,
    binary: Path,
    out: Path,
    *,
    repo_root: Path,
    timeout: float = 120.0,
    say: Callable[[str], None] = lambda _m: None,
    allow_no_isolation: bool = False,
    catalog: Any = None,
    only: tuple[str, ...] = (),
) -> CaptureSummary:
    """Run every scenario of ``harness`` with the host at ``binary``; write ``out/<harness>@<version>``.

    ``catalog`` (the host version's :class:`~pasture.catalog.Catalog`, when known) adds the
    scenarios that trigger events only some versions have (see :func:`.scenarios.scenarios_for`).

    ``only``: run just these scenarios and merge them into the existing capture of this version
    (its other scenario folders are kept byte for byte; capture.json gets their summaries in
    scenario order and the event lists recomputed over all of them; the events registered are the
    ones that capture registered, so no catalog pass runs).
    """
    adapter = ADAPTERS.get(harness)
    if adapter is None:
        raise CaptureError(f"unknown harness {harness!r}; expected one of {', '.join(sorted(ADAPTERS))}")
    mode = require_isolation(allow_no_isolation)
    if mode == "none":
        say("  WARNING: no network namespace; the host runs on its per-host offline settings alone (--no-isolation)")
    binary = Path(binary).absolute()
    version = read_version(binary)
    say(f"{harness} {version} at {binary}")
    if catalog is None:
        from pasture.catalog import CatalogError, find_catalog

        try:
            catalog = find_catalog(repo_root, harness, version)
        except CatalogError:
            catalog = None
    final = Path(out) / f"{harness}@{version}"
    previous = _previous(final, harness, version, only)
    Path(out).mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".staging-{harness}@{version}-", dir=out))
    runs = Path(tempfile.mkdtemp(prefix="pasture-capture-"))
    try:
        candidates = adapter.candidates(repo_root)
        host_listed: list[str] | None = None
        if previous is not None:
            host_listed = previous["catalog"].get("host_listed")
            candidates = list(previous["catalog"]["registered"])
            for child in final.iterdir():  # keep every other scenario's folder (and file) as it is
                if child.is_dir() and child.name not in only:
                    shutil.copytree(child, stage / child.name)
                elif child.is_file() and child.name != "capture.json":
                    shutil.copy2(child, stage / child.name)
        elif adapter.has_catalog_pass():
            say("  catalog: asking the host which hook events it offers")
            run = prepare_run(harness, binary, runs / "catalog")
            adapter.install_catalog_probe(run, candidates)
            _execute(run, adapter, Script.of(Turn.reply("ok")), timeout, "catalog")
            host_listed = adapter.read_catalog(run)
            if host_listed is None:
                say("  catalog: the host did not list its events; registering every known event instead")
        registered = list(host_listed) if host_listed else list(candidates)
        summaries = []
        lookups: list[str] = []
        planned = scenarios_for(harness, host_listed or catalog_names(catalog))
        unknown = sorted(set(only) - {s.name for s in planned})
        if unknown:
            raise CaptureError(
                f"no scenario {', '.join(unknown)} for {harness} {version}; choose from "
                f"{', '.join(s.name for s in planned)}; nothing was written"
            )
        kept = {} if previous is None else {s["name"]: s for s in previous["scenarios"]}
        if previous is not None:
            lookups = [
                *previous["catalog"].get("looked_up", []),
                *previous["catalog"].get("other_plugin_fields_read", []),
            ]
        for scenario in planned:
            if only and scenario.name not in only:
                if scenario.name in kept:
                    summaries.append(kept[scenario.name])
                continue
            say(f"  scenario {scenario.name}")
            summary, seen_lookups = _scenario(
                adapter, scenario, binary, version, runs / scenario.name, stage, registered, timeout, repo_root
            )
            summaries.append(summary)
            lookups += [name for name in seen_lookups if name not in lookups]
        seen = sorted({e for s in summaries for e in s["events_seen"]})
        bus_seen = sorted({e for s in summaries for e in s.get("bus_events_seen", [])})
        document: dict[str, Any] = {
            "capture_format": CAPTURE_FORMAT,
            "generated_by": "pasture capture",
            "harness": harness,
            "host_version": version,
            "binary": binary.name,
            "catalog": {
                "method": adapter.catalog_method(),
                # Claude Code / Codex: the host's own complete list. None: the host listed nothing.
                "host_listed": host_listed,
                "registered": registered,
            },
            "events_seen": seen,
            "registered_not_seen": [e for e in registered if e not in seen],
            "seen_not_registered": [e for e in seen if e not in registered],
            "scenarios": summaries,
        }
        if bus_seen:
            document["bus_events_seen"] = bus_seen
        if lookups:
            # OpenCode: every hook name the host asked the plugin for during the scenarios (only the
            # hooks these scenarios trigger), and the plugin fields it read besides hooks.
            document["catalog"]["looked_up"] = sorted(n for n in lookups if "." in n)
            document["catalog"]["other_plugin_fields_read"] = sorted(n for n in lookups if "." not in n)
        (stage / "capture.json").write_text(dump_json(document), encoding="utf-8")
        _replace(stage, final)
        return CaptureSummary(
            harness,
            version,
            final,
            summaries,
            document["catalog"]["host_listed"] or document["catalog"].get("looked_up"),
        )
    finally:
        shutil.rmtree(runs, ignore_errors=True)
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)


def _previous(final: Path, harness: str, version: str, only: tuple[str, ...]) -> dict[str, Any] | None:
    """The existing capture.json a partial capture (``only``) merges into; None for a full capture."""
    if not only:
        return None
    head = final / "capture.json"
    try:
        doc = json.loads(head.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CaptureError(
            f"--scenario merges into an existing capture, but {head} cannot be read ({exc}); "
            "run a full capture first; nothing was written"
        ) from None
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("catalog"), dict)
        or not isinstance(doc["catalog"].get("registered"), list)
        or not isinstance(doc.get("scenarios"), list)
        or (doc.get("capture_format"), doc.get("harness"), doc.get("host_version"))
        != (CAPTURE_FORMAT, harness, version)
    ):
        raise CaptureError(
            f"{head} is not a format-{CAPTURE_FORMAT} capture of {harness} {version}; nothing was written"
        )
    return doc


def catalog_names(catalog: Any) -> list[str] | None:
    return list(catalog.names) if catalog is not None else None


#: Files of a capture folder that a capture does not write and must keep (the host catalog).
KEPT_FILES = ("catalog.json",)


def _replace(stage: Path, final: Path) -> None:
    """Rename the staged capture into place, replacing an older capture of the same version
    (keeping the files a capture does not write, such as the host catalog)."""
    old = None
    for name in KEPT_FILES:
        if (final / name).is_file() and not (stage / name).exists():
            shutil.copy2(final / name, stage / name)
    if final.exists():
        old = final.with_name(f".old-{final.name}-{os.getpid()}")
        os.rename(final, old)
    try:
        os.rename(stage, final)
    except OSError:
        if old is not None:
            os.rename(old, final)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _execute(
    run: HostRun,
    adapter: CaptureAdapter,
    script: Script,
    timeout: float,
    label: str,
    prompt: str = PROMPT,
    options: tuple[tuple[str, Any], ...] = (),
) -> HostRunResult:
    try:
        result = run.execute(script, prompt, timeout=timeout, options={**adapter.options, **_plain(dict(options))})
    except RuntimeError as exc:
        raise CaptureError(f"{adapter.harness} run '{label}' failed: {exc}; nothing was written") from None
    if result.timed_out:
        raise CaptureError(
            f"{adapter.harness} timed out after {timeout:g}s in '{label}' (host exit "
            f"{result.exit_code}); nothing was written.\nstderr tail:\n{result.stderr[-1500:]}"
        )
    outside = [r for r in result.requests if not str(r.get("headers", {}).get("host", "")).startswith("127.0.0.1:")]
    if outside:
        raise CaptureError(
            f"{adapter.harness} '{label}': a request reached the fake under another host name "
            f"({outside[0].get('headers', {}).get('host')!r}); nothing was written"
        )
    return result


def _plain(value: Any) -> Any:
    """Launcher options as JSON values (a scenario keeps its lists as tuples, to stay hashable)."""
    return json.loads(json.dumps(value))


def _scenario(
    adapter: CaptureAdapter,
    scenario: Scenario,
    binary: Path,
    version: str,
    root: Path,
    stage: Path,
    registered: list[str],
    timeout: float,
    repo_root: Path,
) -> tuple[dict[str, Any], list[str]]:
    harness = adapter.harness
    run = prepare_run(harness, binary, root)
    adapter.install(run, scenario, registered)
    for rel, text in scenario.files:
        path = run.project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    result = _execute(
        run, adapter, scenario.script, timeout, scenario.name, scenario.prompt or PROMPT, scenario.options
    )
    records = adapter.records(run)
    if not records.calls:
        raise CaptureError(
            f"{harness} '{scenario.name}': no hook fired, so the capture adapter was not loaded; nothing was "
            f"written.\n{result.describe()[-2500:]}"
        )
    probe = (run.project / PROBE_FILE).exists()
    scrubber = Scrubber(run.root, host_binary=binary, repo_root=repo_root)
    folder = stage / scenario.name
    (folder / "events").mkdir(parents=True)

    by_event: dict[str, list[Any]] = {}
    for call in records.calls:
        by_event.setdefault(call.event, []).append(call.payload)
    # Scrub grouped by event name (sorted), so placeholder numbers never depend on how concurrent
    # hooks of different events interleaved.
    for event in sorted(by_event):
        name = event if _SAFE_NAME.fullmatch(event) else "_unnamed"
        payloads = [scrubber.scrub(p) for p in by_event[event]]
        (folder / "events" / f"{name}.json").write_text(dump_json(payloads), encoding="utf-8")
    processes = {}
    for call in records.calls:
        if call.process is not None and call.event not in processes:
            processes[call.event] = call.process
    if processes:
        (folder / "hook-process.json").write_text(dump_json(scrubber.scrub(processes)), encoding="utf-8")
    if records.plugin_init is not None:
        (folder / "plugin-init.json").write_text(dump_json(scrubber.scrub(records.plugin_init)), encoding="utf-8")

    model = _model_side(harness, result, with_prompt=scenario.prompt is not None)
    (folder / "model.json").write_text(dump_json(scrubber.scrub(model)), encoding="utf-8")

    refused_fired = None if scenario.refused_event is None else scenario.refused_event in by_event
    told = None
    if scenario.refuses and scenario.prompt is not None and model["main_requests"]:
        told = model["main_requests"][0].get("prompt_text")  # the refusal shows in the expanded prompt
    elif scenario.refuses and len(model["main_requests"]) > 1:
        told = model["main_requests"][1]["told_text"]
    held = scenario.held(probe)
    answered = None if scenario.answer is None else _honoured(scenario, run.project, result, model, by_event)
    doc = {
        "capture_format": CAPTURE_FORMAT,
        "generated_by": "pasture capture",
        "harness": harness,
        "host_version": version,
        "scenario": scenario.name,
        "summary": scenario.summary,
        **({"prompt": scenario.prompt} if scenario.prompt else {}),
        **({"project_files": {rel: text for rel, text in scenario.files}} if scenario.files else {}),
        "channel": scenario.channel,
        "refused_event": scenario.refused_event,
        "reason_sent": scenario.reason() if scenario.refuses else None,
        **({"launcher_options": _plain(dict(scenario.options))} if scenario.options else {}),
        **({"control": scenario.control} if scenario.control else {}),
        **({"answer": answered["answer"]} if answered else {}),
        "isolation": result.isolation,
        "result": {
            **(answered["result"] if answered else {}),
            "host_exit_code": result.exit_code,
            "probe_file": "present" if probe else "absent",
            "refusing_hook_fired": refused_fired,
            "refusal_held": held if refused_fired is not False else False,
            "effect": _effect(scenario, probe, (run.project / ASKED_FILE).exists()),
            "model_told_after_refusal": told,
        },
        **_order(records),
        "event_counts": {e: len(v) for e, v in by_event.items()},
        "main_requests": len(model["main_requests"]),
        "side_requests": model["side_requests"],
    }
    if records.lookups:
        doc["hook_lookups"] = records.lookups
    doc = scrubber.scrub(doc)
    (folder / "scenario.json").write_text(dump_json(doc), encoding="utf-8")
    summary = {
        "name": scenario.name,
        "channel": scenario.channel,
        "refused_event": scenario.refused_event,
        "refusal_held": doc["result"]["refusal_held"],
        "probe_file": doc["result"]["probe_file"],
        "events_seen": sorted(by_event),
    }
    if answered:
        summary["answer"] = {k: doc["answer"][k] for k in ("capability", "event", "wire")}
        summary["honoured"] = doc["result"]["honoured"]
    bus = sorted({c.event for c in records.calls if c.bus})
    if bus:
        summary["bus_events_seen"] = bus
    return summary, records.lookups


def _honoured(
    scenario: Scenario, project: Path, result: HostRunResult, model: dict[str, Any], by_event: dict[str, list[Any]]
) -> dict[str, Any]:
    """Whether the host honoured the scenario's answer, and what showed it (see scenarios.py)."""
    answer = scenario.answer
    assert answer is not None
    mark = scenario.marker or ""
    probe = (project / PROBE_FILE).exists()
    asked = (project / ASKED_FILE).exists()
    bodies = [r.get("body") for r in result.requests if r.get("reply", {}).get("kind") in ("turn", "final")]
    with_marker = [i + 1 for i, body in enumerate(bodies) if mark in json.dumps(body, ensure_ascii=False)]
    main = model["main_requests"]
    told_next = (main[1].get("told_text") or "") if len(main) > 1 else ""
    calls = len(by_event.get(answer.event, []))
    out: dict[str, Any] = {"answer_event_calls": calls, "marker_in_main_requests": with_marker}
    if answer.capability == "rewrite":
        ok = probe and not asked
        out["asked_file"] = "present" if asked else "absent"
        # the history the model is sent next: does it still show the command it asked for?
        out["next_request_shows_asked_command"] = len(bodies) > 1 and ASKED_COMMAND in json.dumps(bodies[1])
        shown = (
            f"{PROBE_FILE} present and {ASKED_FILE} absent: the rewritten command ran, not the one asked"
            if ok
            else f"{PROBE_FILE} {'present' if probe else 'absent'}, {ASKED_FILE} "
            f"{'present' if asked else 'absent'}: the rewrite did not replace the command the model asked for"
        )
    elif answer.capability == "allow":
        ok = probe
        shown = (
            f"{PROBE_FILE} present: the call ran without a prompt (without the answer, control "
            f"'{scenario.control}' shows it is not run)"
            if ok
            else f"{PROBE_FILE} absent: the call still needed an approval nobody could give"
            if calls
            else f"{PROBE_FILE} absent: {answer.event} never fired, so the answer was never given and the call "
            "was not run"
        )
    elif answer.capability == "context":
        ok = 1 in with_marker
        out["marker_excerpt"] = _excerpt(bodies[0] if bodies else None, mark)
        shown = (
            "the marker text is in the first request the model received"
            if ok
            else "the marker text is not in the first request the model received"
        )
    elif answer.capability == "feedback":
        ok = mark in told_next
        shown = (
            "the marker reason is in what the next request added after the tool call"
            if ok
            else "the marker reason is not in what the next request added after the tool call"
        )
    else:  # continue
        again = mark in told_next
        ok = again and probe and calls == answer.times + 1
        shown = (
            f"the next request holds the reason, the next turn wrote {PROBE_FILE}, and the host stopped by "
            f"itself after {answer.times} continuations ({calls} {answer.event} calls)"
            if ok
            else f"reason in the next request: {'yes' if again else 'no'}; {PROBE_FILE} "
            f"{'present' if probe else 'absent'}; {calls} {answer.event} calls (continuing {answer.times} "
            f"times means {answer.times + 1})"
        )
    out.update(honoured=ok, honoured_shown_by=shown)
    return {
        "answer": {
            "capability": answer.capability,
            "event": answer.event,
            "wire": answer.wire,
            "sent": answer.filled(mark),
            "times": answer.times,
            "marker": mark,
        },
        "result": out,
    }


def _excerpt(body: Any, mark: str, width: int = 160) -> str | None:
    """The marker with up to ``width`` characters either side, from the string of ``body`` holding it."""
    if isinstance(body, str):
        at = body.find(mark)
        return None if at < 0 else body[max(0, at - width) : at + len(mark) + width]
    values = body.values() if isinstance(body, dict) else body if isinstance(body, list) else ()
    for value in values:
        found = _excerpt(value, mark, width)
        if found is not None:
            return found
    return None


def _order(records: Records) -> dict[str, list[str]]:
    """Call order. OpenCode delivers bus events asynchronously (the title session races the main
    one), so only the awaited named hooks keep an order; bus events keep their counts."""
    if any(c.bus for c in records.calls):
        return {"named_hooks_in_order": [c.event for c in records.calls if not c.bus]}
    return {"events_in_order": [c.event for c in records.calls]}


def _effect(scenario: Scenario, probe: bool, asked: bool = False) -> str:
    if scenario.answer is not None and scenario.answer.capability == "rewrite":
        return (
            "the rewritten command ran: the probe file was written"
            if probe and not asked
            else "the command the model asked for ran, not the rewrite"
            if asked
            else "neither the rewritten nor the asked command wrote its file"
        )
    if scenario.answer is not None and scenario.answer.capability == "continue":
        return (
            "the host went on after the answered stop and wrote the probe file"
            if probe
            else "the host stopped anyway: no probe file was written"
        )
    if not scenario.refuses:
        if scenario.files:
            return (
                "the project's own command ran: the probe file was written"
                if probe
                else "the project's own command did NOT run: no probe file"
            )
        if scenario.script.turns and scenario.script.turns[0].tool_calls:
            return "the tool ran: the probe file was written" if probe else "the tool did NOT run: no probe file"
        return "no tool was called; the host stopped"
    if scenario.held_means_probe:
        return (
            "the host went on after the refused stop and wrote the probe file"
            if probe
            else "the host stopped anyway: no probe file was written"
        )
    return (
        "the refused action never took effect: no probe file"
        if not probe
        else "the refused action took effect anyway: the probe file was written"
    )


# --- the fake model's side ---------------------------------------------------------------------


def _tail(harness: str, body: Any) -> list[Any]:
    """The input items a request appended after the model's previous answer, as the API the host speaks
    lists them (its fake's ``turn_items``)."""
    if not isinstance(body, dict):
        return []
    return PROTOCOLS[LAUNCHERS[harness].wire_protocol].turn_items(body)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(t for t in (_text(v) for v in value) if t)
    if isinstance(value, dict):
        for key in ("content", "output", "text"):
            if key in value:
                return _text(value[key])
    return ""


def _last_block_text(messages: list[Any]) -> str:
    """The text of the last content block of the last message (an expanded slash command's own
    text, after the environment reminders the host prepends)."""
    if not messages:
        return ""
    content = messages[-1].get("content") if isinstance(messages[-1], dict) else messages[-1]
    if isinstance(content, list):
        texts = [_text(block) for block in content if _text(block).strip()]
        return texts[-1] if texts else ""
    return _text(content)


def _model_side(harness: str, result: HostRunResult, with_prompt: bool = False) -> dict[str, Any]:
    """The fake model's view. ``with_prompt``: also the first request's own user turn (a scenario
    whose prompt the host expands, such as a slash command, shows there what the model was told)."""
    main: list[dict[str, Any]] = []
    side = 0
    for request in result.requests:
        reply = request.get("reply", {})
        kind = reply.get("kind")
        if kind == "side":
            side += 1
            continue
        if kind not in ("turn", "final"):
            continue
        first = not main
        tail = None if first else _tail(harness, request.get("body"))
        entry = {
            "answered": {"text": reply.get("text"), "tool_calls": [c.get("name") for c in reply.get("tool_calls", [])]},
            "told": tail,
            "told_text": None if tail is None else _text(tail),
        }
        if first and with_prompt:
            entry["prompt_text"] = _last_block_text(_tail(harness, request.get("body")))
        main.append(entry)
    return {
        "main_requests": main,
        "side_requests": side,
        "note": "told: what each main request after the first added after the model's previous answer",
    }
