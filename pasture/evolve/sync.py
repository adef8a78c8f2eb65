"""`pasture profile sync`: bring an existing profile in line with its host version's own catalog.

For a committed catalog that is newer than the profile (re-extracted, or extracted for the first
time), this rewrites the profile's rows the way `pasture bump` derives a new one:

* rows are kept in their order, corrected by :func:`pasture.evolve.derive.correct_row`
  (identity fields against the input schema);
* OpenCode: an uncited ``throw-fail-fast`` row, or one the binary never calls, is declared
  report-and-continue (:func:`pasture.evolve.derive.demote_uncited_throw`);
* every catalog event the profile lacks (and does not exclude) is added, classified from the
  catalog (:func:`pasture.evolve.derive.row_from_catalog`): OpenCode bus events after the last bus
  row, named hooks after the last named row, Claude/Codex events at the end;
* with a capture of this very version (``captures/<harness>@<version>/capture.json``): citations
  that are no evidence for this version (a capture of another version, a URL not pinned to it) are
  removed, and blocking claims and response channels cite the scenarios in which the refusal held,
  exactly as `pasture profile new` does. Only the paragraphs that derivation writes are derived
  afresh; every other note (a scenario that never triggered the event, an identity seen in the
  payloads, an honoured rewrite) is evidence sync cannot re-derive, and stays where it is.

The head of the file (comments, contract, admission) is kept byte for byte; every change is
noted in the row it touches, and the report lists only what changed (on unchanged inputs: no byte
and nothing). Nothing is written unless the result validates.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pasture import PastureError
from pasture.catalog import Catalog, CatalogError, find_catalog
from pasture.evolve.derive import catalog_additions, correct_row, demote_uncited_throw, insert_row
from pasture.evolve.yamlout import rewrite_body
from pasture.hosts import HOSTS


class SyncError(PastureError, RuntimeError):
    pass


@dataclass
class SyncReport:
    contract: str
    added: list[str] = field(default_factory=list)
    gates: list[str] = field(default_factory=list)
    corrected: list[str] = field(default_factory=list)
    demoted: list[str] = field(default_factory=list)
    proven: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    written: str | None = None  # the file rewritten, or None when the profile already matched

    def render(self) -> str:
        lines = [f"{self.contract}:"]
        for title, items in (
            ("added from the catalog", self.added),
            ("new gates awaiting evidence", self.gates),
            ("identities corrected", self.corrected),
            ("demoted (no evidence)", self.demoted),
            ("evidence from this version's capture", self.proven),
            ("citations removed (no evidence for this version)", self.removed),
        ):
            lines.append(f"  {title} ({len(items)})" + (":" if items else ""))
            lines += [f"    {i}" for i in items]
        lines.append(f"  wrote {self.written}" if self.written else "  unchanged: nothing to write")
        return "\n".join(lines) + "\n"


def catalog_source(cat: Catalog) -> str:
    rel = cat.path.as_posix() if cat.path else "catalog"
    return "captures/" + rel.split("/captures/", 1)[-1] if "/captures/" in rel else rel


def sync_rows(
    harness: str,
    version: str,
    cat: Catalog,
    rows: list[dict[str, Any]],
    excluded: set[str],
    report: SyncReport,
    source: str,
) -> list[dict[str, Any]]:
    """The rows after correction, demotion and the addition of missing catalog events."""
    for row in rows:
        ev = cat.event(row["name"])
        changes = correct_row(harness, cat, row, version, source)
        report.corrected += [f"{row['name']}: {c}" for c in changes]
        if HOSTS[harness].throw_refuses and demote_uncited_throw(row, ev, version, source):
            report.demoted.append(row["name"])
    for row, kind, _ev in catalog_additions(harness, cat, {r["name"] for r in rows}, excluded, version, source):
        report.added.append(row["name"])
        if kind == "gate":
            report.gates.append(row["name"])
        insert_row(rows, row)
    return rows


#: What `_evidence` (pasture.evolve.profile_new) writes about a capture of this very version: only
#: these paragraphs are derived afresh. Every other note (a scenario that never triggered the event,
#: an identity seen in the payloads, an honoured rewrite) is evidence sync cannot re-derive, so it stays.
_EVIDENCE_SENTENCE = (
    r"(exit 2 refused |a throw from |a refusal of |a JSON |"
    r"\S+ shows (an exit-2 refusal of |a throw from |a JSON deny of |a JSON ask of ))"
)


def _is_evidence_paragraph(paragraph: str, version: str) -> bool:
    return re.match(r"Capture " + re.escape(version) + r": " + _EVIDENCE_SENTENCE, paragraph) is not None


def _paragraphs(row: dict[str, Any]) -> list[str]:
    note = row.get("note")
    return note.split("\n") if note else []


def _merge_note(row: dict[str, Any], before: list[str], version: str) -> None:
    """The note after re-derivation: every paragraph of ``before`` in its place, less the evidence
    paragraphs the re-derivation no longer writes; paragraphs it writes anew at the end."""
    derived = [p for p in _paragraphs(row) if _is_evidence_paragraph(p, version)]
    after = [p for p in before if not _is_evidence_paragraph(p, version) or p in derived]
    after += [p for p in _paragraphs(row) if p not in after]
    if after:
        row["note"] = "\n".join(after)
    else:
        row.pop("note", None)


def _capture_evidence(
    root: Path, contract_id: str, rows: list[dict[str, Any]], sources: dict[str, str], report: SyncReport
) -> dict[str, str]:
    """Prune and cite evidence from the capture of this very version (if there is one); return the
    sources the rows still use (a source no row used before is kept: sync did not orphan it)."""
    from pasture.evolve.captured import ScenarioCapture, load_capture
    from pasture.evolve.profile_new import NewProfileReport, _evidence, _prune, _rel
    from pasture.profile.loader import load_project
    from pasture.profile.vocab import FailureMode

    def citations(rs: list[dict[str, Any]]) -> set[Any]:
        return {r.get("evidence") for r in rs} | {v for r in rs for v in (r.get("response") or {}).values()}

    used_before = citations(rows)
    version = contract_id.partition("@")[2]
    cap_dir = Path(root) / "captures" / contract_id
    cited: dict[str, str] = {}
    if (cap_dir / "capture.json").is_file():
        cap = load_capture(cap_dir)
        base = load_project(root, [contract_id], hosts=HOSTS)[0]

        def cite(scenario: ScenarioCapture) -> str:
            name = f"capture-{scenario.name}"
            cited[name] = _rel(scenario.scenario_file, root)
            return f"@{name}"

        for row in rows:
            before = copy.deepcopy(row)
            paragraphs = _paragraphs(row)
            row["note"] = "\n".join(p for p in paragraphs if not _is_evidence_paragraph(p, version))
            scratch = NewProfileReport(contract_id, contract_id, _rel(cap_dir, root), f"profiles/{contract_id}")
            _evidence(root, row, FailureMode(row["failure"]), cap, cite, version, base, scratch)
            _prune(root, row, {**sources, **cited}, version, scratch)
            _merge_note(row, paragraphs, version)
            # Only what changed is reported: a claim the capture proves again, unchanged, is no news.
            if _resolved(row, {**sources, **cited}) != _resolved(before, sources) or row != before:
                report.proven += scratch.proven
            report.removed += scratch.removed
    used = citations(rows)
    out = {name: value for name, value in sources.items() if f"@{name}" in used or f"@{name}" not in used_before}
    for name, value in cited.items():
        if f"@{name}" in used:
            out[name] = value
    return out


def _resolved(row: dict[str, Any], sources: dict[str, str]) -> tuple[Any, ...]:
    """The row's citations as the paths or URLs they name (a re-citation under a new name is no change)."""

    def value(v: Any) -> Any:
        return sources.get(v[1:], v) if isinstance(v, str) and v.startswith("@") else v

    response = row.get("response") or {}
    return (value(row.get("evidence")), tuple(sorted((k, value(v)) for k, v in response.items())))


def sync_profile(root: Path, contract_id: str, *, unavailable: str | None = None) -> SyncReport:
    from pasture.profile.diagnostics import ProfileErrors
    from pasture.profile.loader import load_project

    root = Path(root).resolve()
    folder = root / "profiles" / contract_id
    path = folder / "lifecycle.yaml"
    if not path.is_file():
        raise SyncError(f"no profile {path.relative_to(root)}")
    harness, _, version = contract_id.partition("@")
    text = path.read_text(encoding="utf-8")
    raw = yaml.safe_load(text)
    rows = list(raw.get("events") or [])
    excluded_entries = list(raw.get("excluded") or [])
    report = SyncReport(contract_id)
    try:
        cat = find_catalog(root, harness, version, output_in_payload=HOSTS[harness].output_in_payload)
    except CatalogError as exc:
        raise SyncError(str(exc)) from None
    catalog_unavailable = raw.get("catalog_unavailable") or unavailable
    if cat is None:
        if not catalog_unavailable:
            raise SyncError(
                f"no catalog for {contract_id}: run `pasture catalog extract {harness} --version "
                f"{version}` first (or pass the reason none exists)"
            )
        if HOSTS[harness].throw_refuses:
            for row in rows:
                if demote_uncited_throw(row, None, version, "no catalog"):
                    report.demoted.append(row["name"])
    else:
        rows = sync_rows(
            harness, version, cat, rows, {e["name"] for e in excluded_entries}, report, catalog_source(cat)
        )
    sources = dict(raw.get("sources") or {})
    sources = _capture_evidence(root, contract_id, rows, sources, report)
    new_text = rewrite_body(text, sources, rows, excluded_entries or None, catalog_unavailable if cat is None else None)
    if new_text == text:
        return report
    path.write_text(new_text, encoding="utf-8")
    try:
        load_project(root, [contract_id], hosts=HOSTS)
    except ProfileErrors as exc:
        path.write_text(text, encoding="utf-8")
        raise SyncError(
            "the synced profile does not validate; nothing was changed:\n" + "\n".join(p.render() for p in exc.problems)
        ) from None
    report.written = path.relative_to(root).as_posix()
    return report
