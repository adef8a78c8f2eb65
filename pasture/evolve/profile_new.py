"""`pasture profile new`: the next profile of a host, from the previous contract and a committed capture.

What it does, row by row (everything it changes gets a sentence in the row's note):

* **Rows** are the previous contract's, in its order. With the version's host catalog
  (``captures/<harness>@<version>/catalog.json``, from `pasture catalog extract`): a row whose event
  the catalog no longer names is removed; every catalog event the previous contract lacks is added,
  classified from the catalog (:mod:`.derive`): a pre-action event whose output offers a decision
  becomes a **gate consultation** whose blocking waits for evidence (cited below when a scenario
  triggered and refused it), anything else an observation; identities are corrected against the
  input schemas. Without a catalog, an event the capture saw that the previous contract lacks is
  appended as an observation row. An event never seen is kept, and noted.
* **Identities**: a declared identity field missing from any captured payload of its event is made
  optional (one real payload without it disproves "required"). A known identity field (Claude/Codex
  ``session_id``, ``turn_id``, ``tool_use_id``, ``agent_id``, ``request_id``, ``message_id``;
  OpenCode ``sessionID``, ``callID``, ``messageID``, ``requestID``) present in real payloads, whose
  kind the row does not declare yet, is added as **optional**: a capture shows it can be there, not
  that it always is. A kind the row listed as unresolved is then no longer unresolved.
* **Blocking evidence** is never invented. A row's exit-code blocking claim cites this capture's
  ``scenario.json`` only when a scenario of this host version refused that very event by exit 2 and
  the refusal held (the probe file shows it); the citation is written directly (`pasture check`
  fails on a clean checkout if the capture is not committed with it). Likewise the deny / ask
  response channels cite a held JSON deny / ask scenario, and an OpenCode gate a held throw
  scenario (it becomes throw-fail-fast). A scenario whose refusal did NOT hold removes the row's
  evidence (the row is demoted). A citation that cannot back a claim on this version (a capture of
  another version, a URL not pinned to this version) is removed: the row is demoted and listed for
  review. No evidence is carried over from the previous contract.
* **Admission**: a floor at the new version. The runtime profile is carried over unchanged (a capture
  records hook payloads, not orchestration tools).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from pasture import PastureError
from pasture.catalog import Catalog, CatalogError, find_catalog
from pasture.evolve.captured import Capture, ScenarioCapture, load_capture
from pasture.evolve.derive import (
    OBSERVATION_AXES,
    catalog_additions,
    correct_row,
    demote_uncited_throw,
    insert_row,
    is_bus_surface,
    is_refusing_hook_surface,
)
from pasture.evolve.evidence import pinned_to
from pasture.evolve.yamlout import lifecycle_text
from pasture.hosts import HOSTS
from pasture.profile.contracts import Contract
from pasture.profile.diagnostics import ProfileErrors
from pasture.profile.loader import load_project
from pasture.profile.versions import HostVersion, VersionError
from pasture.profile.vocab import DECISION_FIELD_SURFACES, FailureMode
from pasture.runtime.envelope import identity_value

IDENTITY_FIELDS: dict[str, dict[str, str]] = {name: dict(h.capture_identity_fields) for name, h in HOSTS.items()}
#: Hooks a capture sees that are not lifecycle events, and why they never become rows.
NOT_EVENTS: dict[str, dict[str, str]] = {name: dict(h.not_events) for name, h in HOSTS.items() if h.not_events}
HOST_NAMES = {h.name: h.display_name for h in HOSTS.values()}


class ProfileNewError(PastureError, RuntimeError):
    """The profile could not be written; nothing was written."""


@dataclass
class NewProfileReport:
    contract: str
    base: str
    capture: str
    folder: str
    added: list[str] = field(default_factory=list)
    unseen: list[str] = field(default_factory=list)
    not_in_host_catalog: list[str] = field(default_factory=list)
    identities: list[str] = field(default_factory=list)
    proven: list[str] = field(default_factory=list)
    carried: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    removed_events: list[str] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def render(self) -> str:
        def block(title: str, items: list[str]) -> list[str]:
            return [f"{title} ({len(items)}):", *[f"  {i}" for i in items]] if items else [f"{title}: none"]

        lines = [f"wrote {self.folder}/ ({self.contract}) from {self.base} and {self.capture}"]
        lines += block("events added", self.added)
        if self.removed_events:
            lines += block("events removed (the host catalog no longer names them)", self.removed_events)
        lines += block("events kept but not seen in the capture", self.unseen)
        if self.not_in_host_catalog:
            lines += block("kept events the host's own catalog does not list (review!)", self.not_in_host_catalog)
        lines += block("identity changes", self.identities)
        lines += block("blocking claims proven by this capture", self.proven)
        lines += block("blocking claims carried on the previous citation (not exercised)", self.carried)
        lines += block(
            "evidence removed (a refusal did not hold, or the citation is not evidence for this version)", self.removed
        )
        if self.skipped:
            lines += block("seen but not lifecycle events (no row)", self.skipped)
        for w in self.warnings:
            lines.append(f"warning: {w}")
        lines.append(f"next: read it, `pasture diff {self.base} {self.contract}`, then `pasture generate`.")
        return "\n".join(lines) + "\n"


def _shape(harness: str, event: str, payload: Any, bus: bool) -> Any:
    """The payload as the generated adapter hands it to `pasture hook lifecycle`."""
    return HOSTS[harness].lifecycle_payload(event, payload, bus)


_DERIVED = re.compile(r"(Capture|Evidence|Host catalog) \d+\.\d+\.\d+\S*[: (]")


def _drop_derived_paragraphs(row: dict[str, Any]) -> None:
    """Forget what an earlier derivation wrote about its own version's capture and catalog: the new
    derivation says what holds for the new version. Hand-written paragraphs stay."""
    note = row.get("note")
    if not note:
        return
    kept = [p for p in note.split("\n") if not _DERIVED.match(p)]
    row["note"] = "\n".join(kept)
    if not row["note"].strip():
        row.pop("note")


def _paragraph(row: dict[str, Any], text: str) -> None:
    if row.get("note") and text in row["note"].split("\n"):
        return  # said already (a re-derivation)
    row["note"] = f"{row['note']}\n{text}" if row.get("note") else text


def drop_paragraphs_of(row: dict[str, Any], version: str, kinds: tuple[str, ...] = ("Capture", "Evidence")) -> None:
    """Forget what an earlier derivation for this very version wrote (it is derived afresh)."""
    note = row.get("note")
    if not note:
        return
    pattern = re.compile(r"(" + "|".join(kinds) + r") " + re.escape(version) + r"[: (]")
    row["note"] = "\n".join(p for p in note.split("\n") if not pattern.match(p))
    if not row["note"].strip():
        row.pop("note")


def new_profile(
    root: Path,
    harness: str,
    version: str,
    base_id: str | None,
    capture_dir: Path | None = None,
    *,
    force: bool = False,
    catalog: Catalog | None = None,
) -> NewProfileReport:
    root = Path(root).resolve()
    try:
        HostVersion.parse(version)
    except VersionError as exc:
        raise ProfileNewError(str(exc)) from None
    new_id = f"{harness}@{version}"
    try:
        contracts = {c.id: c for c in load_project(root, hosts=HOSTS)}
    except ProfileErrors as exc:
        raise ProfileNewError(
            "the committed profiles do not validate; fix them first:\n" + "\n".join(p.render() for p in exc.problems)
        ) from None
    base = contracts.get(base_id) if base_id is not None else None
    if base_id is None:
        mine = sorted(c for c in contracts if c.partition("@")[0] == harness and c != new_id)
        if mine:
            raise ProfileNewError(f"{harness} has contracts already ({', '.join(mine)}); derive from one of them")
    elif base is None:
        raise ProfileNewError(f"no contract {base_id!r}; known: {', '.join(sorted(contracts))}")
    elif base.harness.value != harness:
        raise ProfileNewError(f"--from {base_id} is a {base.harness.value} contract, not {harness}")
    target = root / "profiles" / new_id
    if target.exists() and not force:
        raise ProfileNewError(f"{target.relative_to(root)} exists; pass --force to replace it")
    capture_dir = Path(capture_dir) if capture_dir is not None else root / "captures" / new_id
    capture_dir = capture_dir if capture_dir.is_absolute() else (Path.cwd() / capture_dir)
    if not capture_dir.is_dir():
        raise ProfileNewError(
            f"no capture at {capture_dir}: run `pasture capture {harness}` with the {version} "
            "binary first (and commit it)"
        )
    try:
        capture_dir.resolve().relative_to(root)
    except ValueError:
        raise ProfileNewError(
            f"{capture_dir} is outside the project: evidence can only cite a capture committed in this repository"
        ) from None
    try:
        cap = load_capture(capture_dir)
    except ValueError as exc:
        raise ProfileNewError(str(exc)) from None
    if cap.harness != harness or cap.version != version:
        raise ProfileNewError(f"{capture_dir} is a capture of {cap.harness} {cap.version}, not {harness} {version}")

    if catalog is None:
        try:
            catalog = find_catalog(root, harness, version, output_in_payload=HOSTS[harness].output_in_payload)
        except CatalogError as exc:
            raise ProfileNewError(str(exc)) from None
    if base is None:
        if catalog is None:
            raise ProfileNewError(
                f"the first {harness} profile is derived from the host's own catalog: run "
                f"`pasture catalog extract {harness} --version {version}` first"
            )
        return _first_profile(root, harness, version, target, cap, catalog, capture_dir)
    raw = yaml.safe_load((root / base.lifecycle_file).read_text(encoding="utf-8"))
    report = NewProfileReport(new_id, base.id, _rel(capture_dir, root), f"profiles/{new_id}")
    rows, sources = _rows(root, harness, version, base, raw, cap, report, catalog)
    catalog_rel = _rel(catalog.path, root) if catalog is not None and catalog.path else None
    header = [
        f"{HOST_NAMES[harness]} {version} lifecycle contract, written by `pasture profile new` from {base.id}, "
        f"the capture {report.capture}/"
        + (f" and the host catalog {catalog_rel}" if catalog_rel else "")
        + " (then reviewed).",
        (
            f"Rows are {base.id}'s, in its order, less events the catalog no longer names, plus every catalog event "
            f"{base.id} lacks, classified from the catalog (a pre-action event whose output offers a decision is a "
            "gate whose blocking waits for evidence)."
            if catalog_rel
            else f"Rows are {base.id}'s, in its order, then events the capture saw that {base.id} lacks, "
            "as observation rows."
        )
        + f" Blocking evidence cites this capture's scenario.json where a scenario refused that event on {version} "
        "and the refusal held; no citation is carried from an older version (see each note).",
    ]
    excluded = [e for e in raw.get("excluded") or [] if catalog is None or catalog.event(e["name"]) is not None]
    text = lifecycle_text(header, new_id, {"floor": version}, sources, rows, excluded or None)
    runtime = _runtime_text(root, base, new_id)
    _write(root, target, text, runtime, new_id)
    return report


def _refusal_words(scenario: ScenarioCapture) -> str:
    """What refused in a capture of the adapter-carried arm: a plugin's throw, or a hook file's refusal."""
    return "the refusal pasture's hook file prints from" if scenario.channel == "adapter" else "a throw from"


def _first_profile(
    root: Path, harness: str, version: str, target: Path, cap: Capture, catalog: Catalog, capture_dir: Path
) -> NewProfileReport:
    """A host's first contract: every event of its own catalog, classified from the catalog (a pre-action
    event whose output offers a decision is a gate), blocking only where this version's capture shows a
    refusal of it holding; everything else report-and-continue (the failure-evidence rule)."""
    new_id = f"{harness}@{version}"
    report = NewProfileReport(new_id, "", _rel(capture_dir, root), f"profiles/{new_id}")
    # catalog events the host never fires (its not_events: Cline's PreCompact maps to no agent hook)
    excluded = [{"name": n, "reason": why} for n, why in HOSTS[harness].not_events.items() if catalog.event(n)]
    rows, sources = _rows(root, harness, version, None, {"events": [], "excluded": excluded}, cap, report, catalog)
    catalog_rel = _rel(catalog.path, root) if catalog.path else "its catalog"
    header = [
        f"{HOST_NAMES[harness]} {version} lifecycle contract, the first of this host, written by `pasture bump` "
        f"from the host catalog {catalog_rel} and the capture {report.capture}/ (then reviewed).",
        "Rows are the catalog's events in its order, classified from the catalog (a pre-action event whose "
        "output offers a decision is a gate whose blocking waits for evidence). Blocking evidence cites this "
        f"capture's scenario.json where a scenario refused that event on {version} and the refusal held.",
    ]
    text = lifecycle_text(header, new_id, {"floor": version}, sources, rows, excluded or None)
    _write(root, target, text, _first_runtime_text(harness, new_id), new_id)
    return report


def _first_runtime_text(harness: str, new_id: str) -> str:
    """A first host's runtime contract binds no native call: a capture records hook payloads, not the
    host's orchestration tools, so nothing here claims one (a reviewer binds them with evidence)."""
    name = HOST_NAMES[harness]
    ops = {
        "invoke_skill": f"This contract binds no native {name} skill call: carry out the skill's steps directly.",
        "delegate_assignment": f"The parent starts the delegated {name} assignment; this contract binds no native "
        "call that spawns an agent.",
        "continue_assignment": f"The parent resumes the {name} assignment and hands it its full context.",
        "send_assignment_message": f"The parent relays the message to the {name} assignment.",
        "collect_assignment_results": f"The parent gathers the {name} assignments' results.",
        "stop_assignment": f"The parent stops the {name} assignment; this contract binds no native stop call.",
        "request_user_decision": "Ask the user in the reply and wait for the answer; this contract binds no "
        "native question call.",
    }
    lines = [
        "# yaml-language-server: $schema=../../generated/schema/runtime.schema.json",
        f"# {name} runtime contract, the first of this host, written by `pasture bump`: it binds no native call",
        "# (a capture records hook payloads, not orchestration tools); a reviewer binds them with evidence.",
        f"contract: {new_id}",
        "operations:",
    ]
    for key, text in ops.items():
        lines.append(f"  {key}:")
        if key in ("invoke_skill", "request_user_decision"):
            lines.append("    class: semantic-instruction")
        else:
            lines += ["    class: parent-mediated", '    mediator: "parent orchestrator"']
        lines.append(f"    instruction: {json.dumps(text)}")
    lines += ["effects: []", "capabilities: []"]
    return "\n".join(lines) + "\n"


def _rows(
    root: Path,
    harness: str,
    version: str,
    base: Contract | None,
    raw: dict[str, Any],
    cap: Capture,
    report: NewProfileReport,
    catalog: Catalog | None = None,
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    capture_rel = report.capture
    host_listed = cap.host_listed
    seen = set(cap.events_seen())
    rows: list[dict[str, Any]] = []
    cited: dict[str, str] = {}
    base_sources = dict(raw.get("sources") or {})
    source = f"{_rel(catalog.path, root)}" if catalog is not None and catalog.path else "catalog"

    def cite(scenario: ScenarioCapture) -> str | None:
        name = f"capture-{scenario.name}"
        cited[name] = _rel(scenario.scenario_file, root)
        return f"@{name}"

    for original in raw.get("events") or []:
        row = copy.deepcopy(original)
        name = row["name"]
        _drop_derived_paragraphs(row)
        if catalog is not None and catalog.event(name) is None:
            report.removed_events.append(name)
            continue
        payloads = [p for _s, p in cap.payloads(name)]
        bus = name in cap.bus_events or is_bus_surface(harness, row.get("surface"))
        allowed = None
        if catalog is not None:  # the schema first; a real payload then has the last word on "required"
            report.identities += [f"{name}: {c}" for c in correct_row(harness, catalog, row, version, source)]
            allowed = set(catalog.identity_fields(name))
        if name not in seen:
            report.unseen.append(name)
            sentence = f"not seen in {capture_rel} (no scenario triggers it on {version})."
            if host_listed is not None and name not in host_listed:
                report.not_in_host_catalog.append(name)
                sentence += (
                    f" The host's own event list does not name it ({version}); a hook registered for it "
                    "would be ignored. Kept for review."
                )
            _paragraph(row, f"Capture {version}: {sentence}")
        else:
            _identities(harness, row, payloads, bus, version, report, allowed=allowed)
        _evidence(root, row, FailureMode(row["failure"]), cap, cite, version, base, report)
        _rewrite_mutation(root, row, cap, version)
        _prune(root, row, {**base_sources, **cited}, version, report)
        if (
            HOSTS[harness].throw_refuses
            and catalog is not None
            and demote_uncited_throw(row, catalog.event(name), version, source)
        ):
            report.removed.append(f"{name}: throw-fail-fast without evidence declared report-and-continue")
        rows.append(row)

    known = {r["name"] for r in rows}
    excluded = {e["name"] for e in raw.get("excluded") or []}
    if catalog is not None:
        for row, kind, ev in catalog_additions(harness, catalog, known, excluded, version, source):
            name = row["name"]
            payloads = [p for _s, p in cap.payloads(name)]
            if payloads:
                row["note"] += f" Seen {len(payloads)} time(s) in {capture_rel}."
                _identities(
                    harness,
                    row,
                    payloads,
                    ev.kind == "bus",
                    version,
                    report,
                    new_row=True,
                    allowed=set(catalog.identity_fields(name)),
                )
            else:
                row["note"] += f" Not triggered by any scenario of {capture_rel}."
            _evidence(root, row, FailureMode(row["failure"]), cap, cite, version, base, report)
            _rewrite_mutation(root, row, cap, version)
            report.added.append(
                f"{name}: {kind}"
                + (" (blocking waits for evidence)" if kind == "gate" and not row.get("evidence") else "")
            )
            if kind == "gate":
                report.gates.append(name)
            insert_row(rows, row)
            known.add(name)
    extra = [] if catalog is not None else [e for e in (host_listed or []) if e not in known]
    extra += [e for e in sorted(seen) if e not in known and e not in extra and catalog is None]
    extra += [e for e in cap.looked_up if e not in known and e not in extra and catalog is None]
    for name in extra:
        if name in NOT_EVENTS.get(harness, {}):
            report.skipped.append(f"{name}: {NOT_EVENTS[harness][name]}")
            continue
        bus = name in cap.bus_events
        surface = _surface(harness, bus)
        assert base is not None  # only without a catalog, and a first profile always has one
        row = _observation_row(base, name, surface)
        payloads = [p for _s, p in cap.payloads(name)]
        where = (
            f"seen {len(payloads)} time(s) in {capture_rel}"
            if payloads
            else f"listed by the host itself but not triggered by any scenario of {capture_rel}"
        )
        row["note"] = (
            f"Capture {version}: not in {base.id}; {where}. Added by `pasture profile new` as an "
            "observation row (never blocking) until someone documents what it can do."
        )
        if payloads:
            _identities(harness, row, payloads, bus, version, report, new_row=True)
        report.added.append(name)
        if is_bus_surface(harness, surface):
            last = max((i for i, r in enumerate(rows) if r.get("surface") == surface), default=len(rows) - 1)
            rows.insert(last + 1, row)
        else:
            rows.append(row)
    sources = {}
    used = {r.get("evidence") for r in rows} | {v for r in rows for v in (r.get("response") or {}).values()}
    for name, value in (raw.get("sources") or {}).items():
        if f"@{name}" in used:
            sources[name] = value
    for name, value in cited.items():
        if f"@{name}" in used:
            sources[name] = value
    return rows, sources


def _rewrite_mutation(root: Path, row: dict[str, Any], cap: Capture, version: str) -> None:
    """A gate row of a command-hook surface declared ``mutation: none`` whose tool input a capture of this
    version shows rewritten (a ``rewrite`` answer on this event that the host honoured) declares
    ``mutation: input``: the capability matrix (pasture.profile.answers) offers a rewrite only on such a row."""
    if (
        row.get("semantic") != "gate-consultation"
        or row.get("mutation") != "none"
        or not str(row.get("surface", "")).endswith("-command-json")
    ):
        return
    for scenario in cap.answers():
        answer = scenario.answer or {}
        if answer.get("event") == row["name"] and answer.get("capability") == "rewrite" and scenario.honoured:
            row["mutation"] = "input"
            _paragraph(
                row,
                f"Capture {version}: the host honoured a rewrite of the tool input ({answer.get('wire')}; "
                f"{_rel(scenario.scenario_file, root)}: {scenario.honoured_shown_by}), so mutation: input.",
            )
            return


def _surface(harness: str, bus: bool) -> str:
    return HOSTS[harness].surface_of(bus).value


def _observation_row(base: Contract, name: str, surface: str) -> dict[str, Any]:
    template = next(
        (
            r
            for r in base.events
            if r.surface.value == surface and r.semantic.value == "observation" and not r.failure.blocks
        ),
        None,
    )
    axes = dict(OBSERVATION_AXES[surface])
    if template is not None:
        axes = {
            "order": template.order.value,
            "reconciliation": template.reconciliation.value,
            "failure": template.declared_failure.value,
        }
    return {
        "name": name,
        "semantic": "observation",
        "surface": surface,
        "blocking": "nonblocking",
        "mutation": "none",
        "order": axes["order"],
        "reconciliation": axes["reconciliation"],
        "failure": axes["failure"],
        "identities": [],
        "unresolved": [],
        "stop_loop": "not-applicable",
        "pre_action": False,
    }


def _identities(
    harness: str,
    row: dict[str, Any],
    payloads: list[Any],
    bus: bool,
    version: str,
    report: NewProfileReport,
    new_row: bool = False,
    allowed: set[str] | None = None,
) -> None:
    shaped = [_shape(harness, row["name"], p, bus) for p in payloads]
    n = len(shaped)
    if not n:
        return
    sentences = []
    for ident in row.get("identities") or []:
        present = sum(1 for p in shaped if identity_value(p, ident["field"]) is not None)
        if present < n and ident["required"]:
            ident["required"] = False
            sentences.append(
                f"{ident['field']} was absent from {n - present} of {n} captured payloads, so it is "
                "optional here (it was required)"
            )
            report.identities.append(
                f"{row['name']}: {ident['field']} required -> optional (absent from {n - present} of {n} payloads)"
            )
        elif present == 0:
            sentences.append(f"the optional {ident['field']} was absent from all {n} captured payloads")
    declared_kinds = {i["kind"] for i in row.get("identities") or []}
    declared_fields = {i["field"] for i in row.get("identities") or []}
    added = []
    for field_name, kind in IDENTITY_FIELDS[harness].items():
        if field_name in declared_fields or kind in declared_kinds:
            continue
        if allowed is not None and field_name not in allowed:
            continue  # seen, but not in the host's input schema: not a field the host promises
        present = sum(1 for p in shaped if identity_value(p, field_name) is not None)
        if not present:
            continue
        row.setdefault("identities", []).append({"kind": kind, "field": field_name, "required": False})
        declared_kinds.add(kind)
        if kind in (row.get("unresolved") or []):
            row["unresolved"] = [k for k in row["unresolved"] if k != kind]
            added.append(f"{field_name} ({kind}, no longer unresolved; in {present} of {n})")
        else:
            added.append(f"{field_name} ({kind}; in {present} of {n})")
        report.identities.append(f"{row['name']}: + {field_name} ({kind}, optional; in {present} of {n} payloads)")
    if added:
        sentences.append(
            f"added as optional identities, seen in the captured payloads: {', '.join(added)} "
            "(one capture cannot show that a field is always there)"
        )
    if sentences and not new_row:
        _paragraph(row, f"Capture {version}: " + "; ".join(sentences) + ".")
    elif sentences:
        row["note"] = f"{row.get('note', '')} Identities: {'; '.join(sentences)}.".strip()


def _evidence(
    root: Path,
    row: dict[str, Any],
    declared: FailureMode,
    cap: Capture,
    cite: Callable[[ScenarioCapture], str | None],
    version: str,
    base: Contract | None,
    report: NewProfileReport,
) -> None:
    name = row["name"]

    def _rel_s(scenario: ScenarioCapture) -> str:
        return _rel(scenario.scenario_file, root)

    proofs = cap.proofs(name)
    by_channel: dict[str, list[ScenarioCapture]] = {}
    for scenario in proofs:
        by_channel.setdefault(scenario.channel or "", []).append(scenario)

    def outcome(channel: str) -> tuple[ScenarioCapture | None, ScenarioCapture | None]:
        # "adapter": the refusal a generated hook file prints (Cline), the same claim as a plugin's throw
        tried = by_channel.get(channel, []) + (by_channel.get("adapter", []) if channel == "throw" else [])
        held = next((s for s in tried if s.refusal_held is True), None)
        failed = next((s for s in tried if s.refusal_held is False), None)
        return held, failed

    if declared.blocks_by_exit_code:
        held, failed = outcome("exit-2")
        if failed is not None:
            row.pop("evidence", None)
            _paragraph(
                row,
                f"Capture {version}: {_rel_s(failed)} shows an exit-2 refusal of {name} NOT holding "
                f"on {version}; evidence removed, so the row runs report-and-continue.",
            )
            report.removed.append(f"{name}: exit 2 did not hold ({_rel_s(failed)})")
        elif held is not None and (ref := cite(held)) is not None:
            row["evidence"] = ref
            _paragraph(
                row,
                f"Capture {version}: exit 2 refused {name} and the refusal held ({_rel_s(held)}: "
                f"{held.doc.get('result', {}).get('effect')}); this row's blocking claim cites it." + _told(held),
            )
            report.proven.append(f"{name}: exit 2 held ({_rel_s(held)})")

    elif declared is FailureMode.THROW_FAIL_FAST or (
        is_refusing_hook_surface(report.contract.partition("@")[0], row.get("surface"))
        and row.get("semantic") == "gate-consultation"
    ):
        held, failed = outcome("throw")
        if failed is not None:
            row["failure"] = "report-and-continue"
            row.pop("evidence", None)
            _paragraph(
                row,
                f"Capture {version}: {_rel_s(failed)} shows {_refusal_words(failed)} {name} NOT refusing on "
                f"{version}; declared report-and-continue instead of throw-fail-fast.",
            )
            report.removed.append(f"{name}: a throw did not hold ({_rel_s(failed)})")
        elif held is not None and (ref := cite(held)) is not None:
            row["evidence"] = ref
            row["failure"] = "throw-fail-fast"
            row["blocking"] = "blocking"
            _paragraph(
                row,
                f"Capture {version}: {_refusal_words(held)} {name} refused the call and the refusal held "
                f"({_rel_s(held)}: {held.doc.get('result', {}).get('effect')}); throw-fail-fast cites it."
                + _told(held),
            )
            report.proven.append(f"{name}: throw held ({_rel_s(held)})")
    elif any(s.refusal_held for s in proofs):
        _paragraph(
            row,
            f"Capture {version}: a refusal of {name} held ({', '.join(_rel_s(s) for s in proofs)}), "
            f"but the row declares {declared.value}; left as declared for a reviewer to decide.",
        )

    response = row.get("response")
    held, failed = outcome("json-deny")
    if failed is not None and response:
        row.pop("response", None)
        _paragraph(
            row,
            f"Capture {version}: {_rel_s(failed)} shows a JSON deny of {name} NOT holding; the "
            "response channel evidence is removed.",
        )
        report.removed.append(f"{name}: JSON deny did not hold ({_rel_s(failed)})")
    elif held is not None and row.get("pre_action") and row.get("semantic") == "gate-consultation":
        ref = cite(held)
        if ref is not None:
            row["response"] = {"deny": ref, **({"ask": response["ask"]} if response and response.get("ask") else {})}
            _paragraph(
                row,
                f"Capture {version}: a JSON {_json_deny(row)} refused {name} and held "
                f"({_rel_s(held)}); the deny channel cites it." + _told(held),
            )
            report.proven.append(f"{name}: JSON deny held ({_rel_s(held)})")
    ask_held, ask_failed = outcome("json-ask")
    response = row.get("response")
    if ask_failed is not None and response and response.get("ask"):
        response.pop("ask")
        _paragraph(
            row,
            f"Capture {version}: {_rel_s(ask_failed)} shows a JSON ask of {name} NOT holding; the ask "
            "channel evidence is removed.",
        )
        report.removed.append(f"{name}: JSON ask did not hold ({_rel_s(ask_failed)})")
    elif ask_held is not None and response and response.get("deny") and (ref := cite(ask_held)) is not None:
        response["ask"] = ref
        _paragraph(
            row,
            f"Capture {version}: a JSON {_json_ask(row)} of {name} kept the call from running in "
            f"a headless run ({_rel_s(ask_held)}); the ask channel cites it." + _told(ask_held),
        )
        report.proven.append(f"{name}: JSON ask held ({_rel_s(ask_held)})")


def _resolve(value: str | None, sources: dict[str, str]) -> str | None:
    if not value or not value.strip():
        return None
    return sources.get(value[1:], value) if value.startswith("@") else value


def _not_evidence_for(root: Path, citation: str, version: str) -> str | None:
    """Why ``citation`` cannot back a claim about host ``version`` (None if it may)."""
    if citation.startswith(("https://", "http://")):
        return None if pinned_to(citation, version) else f"the URL {citation} is not pinned to {version}"
    path = Path(root) / citation
    if path.name == "scenario.json" and "captures" in Path(citation).parts:
        import json

        try:
            captured = json.loads(path.read_text(encoding="utf-8")).get("host_version")
        except (OSError, ValueError):
            return f"{citation} cannot be read"
        return None if captured == version else f"{citation} is a capture of {captured}, not of {version}"
    return None


def _prune(root: Path, row: dict[str, Any], sources: dict[str, str], version: str, report: NewProfileReport) -> None:
    """Remove every citation of the row that is no evidence for this version (the row is demoted)."""
    name = row["name"]
    why = None
    value = _resolve(row.get("evidence"), sources)
    if value is not None and (why := _not_evidence_for(root, value, version)):
        row.pop("evidence", None)
        _paragraph(
            row,
            f"Evidence {version}: the blocking claim's citation was removed: {why}. Until a capture of "
            f"{version} shows the refusal holding, the row runs without it.",
        )
        report.removed.append(f"{name}: {why}")
    response = dict(row.get("response") or {})
    for side in ("ask", "deny"):
        value = _resolve(response.get(side), sources)
        if value is not None and (why := _not_evidence_for(root, value, version)):
            response.pop(side, None)
            if side == "deny":
                response.pop("ask", None)
            _paragraph(row, f"Evidence {version}: the {side} channel's citation was removed: {why}.")
            report.removed.append(f"{name} {side} channel: {why}")
    if response:
        row["response"] = response
    else:
        row.pop("response", None)


def _json_deny(row: dict[str, Any]) -> str:
    """How the row's host spells a JSON deny (Gemini CLI reads the shared decision field)."""
    shared = row.get("surface") in {surface.value for surface in DECISION_FIELD_SURFACES}
    return 'decision "deny"' if shared else "permissionDecision deny"


def _json_ask(row: dict[str, Any]) -> str:
    """How the row's host spells a JSON ask (Gemini CLI reads the shared decision field)."""
    shared = row.get("surface") in {surface.value for surface in DECISION_FIELD_SURFACES}
    return 'decision "ask"' if shared else "permissionDecision ask"


def _told(scenario: ScenarioCapture) -> str:
    """What the model was told after the refusal, quoted (shortened), or nothing."""
    told = scenario.doc.get("result", {}).get("model_told_after_refusal")
    if not isinstance(told, str) or not told.strip():
        return ""
    text = " ".join(told.split())
    if len(text) > 240:
        text = text[:237] + "..."
    return f' The model was then told: "{text}".'


def _runtime_text(root: Path, base: Contract, new_id: str) -> str:
    lines = (root / base.runtime_file).read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.startswith("contract:"):
            out.append(f"contract: {new_id}")
        else:
            out.append(line)
        if i == 0 and line.startswith("# yaml-language-server"):
            out.append(
                f"# Carried unchanged from {base.id} by `pasture profile new`: a capture records hook payloads, not"
            )
            out.append(f"# orchestration tools. The comments below are {base.id}'s.")
    return "\n".join(out) + "\n"


def _write(root: Path, target: Path, lifecycle: str, runtime: str, new_id: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{new_id}-", dir=target.parent))
    old = None
    try:
        (stage / "lifecycle.yaml").write_text(lifecycle, encoding="utf-8")
        (stage / "runtime.yaml").write_text(runtime, encoding="utf-8")
        if target.exists():
            old = target.with_name(f".old-{new_id}-{os.getpid()}")
            os.rename(target, old)
        os.rename(stage, target)
        try:
            load_project(root, [new_id], hosts=HOSTS)
        except ProfileErrors as exc:
            shutil.rmtree(target)
            if old is not None:
                os.rename(old, target)
                old = None
            raise ProfileNewError(
                "internal error: the written profile does not validate; nothing was written:\n"
                + "\n".join(p.render() for p in exc.problems)
            ) from None
    finally:
        if stage.exists():
            shutil.rmtree(stage, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def _rel(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)
