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
  exactly as `pasture profile new` does.

The head of the file (comments, contract, admission) is kept byte for byte; every change is
noted in the row it touches. Nothing is written unless the result validates.
"""

from __future__ import annotations

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


def _capture_evidence(
    root: Path, contract_id: str, rows: list[dict[str, Any]], sources: dict[str, str], report: SyncReport
) -> dict[str, str]:
    """Prune and cite evidence from the capture of this very version (if there is one); return the
    sources the rows still use."""
    from pasture.evolve.captured import load_capture
    from pasture.evolve.profile_new import NewProfileReport, _evidence, _prune, _rel, drop_paragraphs_of
    from pasture.profile.loader import load_project
    from pasture.profile.vocab import FailureMode

    version = contract_id.partition("@")[2]
    cap_dir = Path(root) / "captures" / contract_id
    cited: dict[str, str] = {}
    if (cap_dir / "capture.json").is_file():
        cap = load_capture(cap_dir)
        base = load_project(root, [contract_id], hosts=HOSTS)[0]
        scratch = NewProfileReport(contract_id, contract_id, _rel(cap_dir, root), f"profiles/{contract_id}")

        def cite(scenario):
            name = f"capture-{scenario.name}"
            cited[name] = _rel(scenario.scenario_file, root)
            return f"@{name}"

        for row in rows:
            drop_paragraphs_of(row, version, ("Capture",))
            _evidence(root, row, FailureMode(row["failure"]), cap, cite, version, base, scratch)
            _prune(root, row, {**sources, **cited}, version, scratch)
        report.proven += scratch.proven
        report.removed += scratch.removed
    used = {r.get("evidence") for r in rows} | {v for r in rows for v in (r.get("response") or {}).values()}
    out = {name: value for name, value in sources.items() if f"@{name}" in used}
    for name, value in cited.items():
        if f"@{name}" in used:
            out[name] = value
    return out


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
        cat = find_catalog(root, harness, version)
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
    return report
