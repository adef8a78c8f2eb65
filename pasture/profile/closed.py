"""Validation of a lifecycle profile against its host version's own catalog (the closed catalog rules).

Called once per lifecycle file by the loader, after the file's own rules. Every problem is located
(file:line:col through the YAML source) and names the nearest catalog spelling where there is one:

* every row names an event of the catalog (``pretooluse`` -> ``PreToolUse``);
* every catalog event has a row, or is listed under ``excluded:`` with a reason;
* every identity field is in the event's input schema (where the runtime looks for it), and a
  required identity is one the schema requires;
* a ``response.deny`` / ``response.ask`` channel is one the event's output schema offers;
* a row's surface is the one its host gives the event's kind (a named hook or a bus event:
  ``surface_of``);
* a ``throw-fail-fast`` row cites evidence that a throw from it holds, and is one the shipped code
  calls where the catalog counts call sites (otherwise it must not count as blocking).

What differs per host comes from the host handed in (:class:`~pasture.profile.hostview.ProfileHost`).

A project that commits catalogs (any ``captures/*/catalog.json``) needs one for every contract,
unless the profile says why none can exist (``catalog_unavailable``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pasture.profile.catalog import Catalog, CatalogError, catalog_path, find_catalog, project_keeps_catalogs
from pasture.profile.hostview import ProfileHost
from pasture.profile.vocab import FailureMode


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def check(f: Any, root: Path, model: Any, harness: Any, version: Any, host: ProfileHost | None) -> Catalog | None:
    """Add every catalog problem of ``model`` (a LifecycleFile) to ``f``; return the catalog used. Without
    its ``host`` (the loader has already said it is missing) nothing is checked here."""
    if harness is None or version is None or host is None:
        return None
    harness_id, version_id = harness.value, str(version)
    contract = f"{harness_id}@{version_id}"
    if host.throw_refuses:
        _throw_evidence(f, model, host.display_name, harness_id)
    path = catalog_path(root, harness_id, version_id)
    rel = _rel(Path(root), path)
    try:
        cat = find_catalog(root, harness_id, version_id, output_in_payload=host.output_in_payload)
    except CatalogError as exc:
        f.add(
            ("contract",),
            f"the host catalog cannot be read: {exc}",
            f"re-extract it: pasture catalog extract {harness_id} --version {version_id}",
            field="contract",
        )
        return None
    unavailable = (model.catalog_unavailable or "").strip()
    if cat is None:
        if model.catalog_unavailable is not None and not unavailable:
            f.add(
                ("catalog_unavailable",),
                "catalog_unavailable needs the reason no catalog can be extracted",
                "say why (e.g. no package of this version is published), or extract the catalog",
                field="catalog_unavailable",
            )
        elif not unavailable and project_keeps_catalogs(root):
            f.add(
                ("contract",),
                f"no host catalog for {contract}: {rel} is missing, so this profile cannot be "
                "checked against the host's own definition of its events",
                f"run `pasture catalog extract {harness_id} --version {version_id}` and commit {rel} (or, if no "
                "package of this version exists, say so in catalog_unavailable)",
                field="contract",
            )
        if model.excluded:
            f.add(
                ("excluded",),
                "'excluded' names catalog events, but there is no catalog to name them from",
                "extract the catalog, or remove 'excluded'",
                field="excluded",
                at_key=True,
            )
        return None
    if unavailable or model.catalog_unavailable is not None:
        f.add(
            ("catalog_unavailable",),
            f"catalog_unavailable is set, but {rel} exists",
            "remove catalog_unavailable: the profile is checked against that catalog",
            field="catalog_unavailable",
            at_key=True,
        )
    if cat.harness != harness_id or cat.version != version_id:
        f.add(
            ("contract",),
            f"{rel} is the catalog of {cat.harness} {cat.version}, not of {contract}",
            f"re-extract it: pasture catalog extract {harness_id} --version {version_id}",
            field="contract",
        )
        return cat

    rows = {row.name for row in model.events}
    for i, row in enumerate(model.events):
        _row(f, cat, rel, contract, host, i, row)

    excluded: set[str] = set()
    for k, entry in enumerate(model.excluded):
        loc = ("excluded", k)
        label = f"excluded {entry.name}"
        if cat.event(entry.name) is None:
            near = cat.nearest(entry.name)
            f.add(
                loc + ("name",),
                f"{entry.name!r} is not an event of {contract} ({rel})",
                f"write {near!r} (names are exact and case-sensitive)" if near else "remove it",
                row=label,
                field="excluded.name",
            )
        elif entry.name in rows:
            f.add(
                loc + ("name",),
                f"{entry.name!r} has a row and is also excluded",
                "remove one of the two",
                row=label,
                field="excluded.name",
            )
        elif entry.name in excluded:
            f.add(
                loc + ("name",),
                f"{entry.name!r} is excluded twice",
                "exclude it once",
                row=label,
                field="excluded.name",
            )
        if not entry.reason.strip():
            f.add(
                loc + ("reason",),
                "an excluded event needs a reason",
                "say why pasture has no row for it",
                row=label,
                field="excluded.reason",
            )
        excluded.add(entry.name)

    for name in cat.names:
        if name not in rows and name not in excluded:
            ev = cat.event(name)
            kind = "bus event" if ev is not None and ev.kind == "bus" else "event"
            f.add(
                ("events",),
                f"the host's own catalog ({rel}) has the {kind} {name!r}, which this profile "
                "neither lists nor excludes",
                f"add a row for {name} (`pasture bump` derives one), or list it under 'excluded:' with a reason",
                field="events",
                at_key=True,
            )
    return cat


def _row(f: Any, cat: Catalog, rel: str, contract: str, host: ProfileHost, i: int, row: Any) -> None:
    loc = ("events", i)
    label = f"event {row.name}"
    ev = cat.event(row.name)
    if ev is None:
        near = cat.nearest(row.name)
        f.add(
            loc + ("name",),
            f"{row.name!r} is not an event of {contract}: the host's own catalog ({rel}) does not "
            "name it" + (f"; nearest catalog name: {near!r}" if near else ""),
            f"write {near!r} (names are exact and case-sensitive)"
            if near
            else "remove the row, or re-extract the catalog if this host version added the event",
            row=label,
            field="name",
        )
        return
    wanted = host.surface_of(ev.kind == "bus")
    if row.surface in host.surfaces and row.surface is not wanted:  # a foreign surface: rules.py says so
        f.add(
            loc + ("surface",),
            f"{row.name} is a {'bus event' if ev.kind == 'bus' else 'named hook'} in the "
            f"host's catalog, so its surface is {wanted.value}",
            f"set 'surface: {wanted.value}'",
            row=label,
            field="surface",
        )
    fields = cat.identity_fields(row.name)
    for j, ident in enumerate(row.identities):
        iloc = loc + ("identities", j, "field")
        if ident.field not in fields:
            near = cat.nearest_field(row.name, ident.field)
            ids = cat.specific_ids(row.name)
            f.add(
                iloc,
                f"identity field {ident.field!r} is not in {row.name}'s input schema ({rel})"
                + (f"; nearest field: {near!r}" if near else ""),
                (f"use {near!r}, or " if near else "")
                + f"drop it and list '{ident.kind.value}' under 'unresolved'"
                + (
                    f" ({row.name}'s own identifier fields: {', '.join(ids)})"
                    if ids and not near
                    else ""
                    if ids
                    else f" ({row.name} carries no identifier field of its own)"
                ),
                row=label,
                field="identities",
            )
        elif ident.required and not fields[ident.field]:
            f.add(
                iloc,
                f"identity field {ident.field!r} is declared required, but {row.name}'s input schema makes it optional",
                "set 'required: false': the host may leave it out",
                row=label,
                field="identities",
            )
    if row.response is not None:
        decisions = ev.decisions()
        offered = ", ".join(f"{w} ({'; '.join(p)})" for w, p in sorted(decisions.items())) or "none"
        for side in ("deny", "ask"):
            if getattr(row.response, side) is not None and side not in decisions:
                f.add(
                    loc + ("response", side),
                    f"{row.name}'s output schema offers no {side} decision (it offers: {offered})",
                    f"remove 'response.{side}'",
                    row=label,
                    field=f"response.{side}",
                )
    if row.failure is FailureMode.THROW_FAIL_FAST and ev.kind == "hook" and ev.host_calls == 0:
        f.add(
            loc + ("failure",),
            f"the host never calls {row.name}: its shipped binary has no call site for it "
            f"({rel}: host_calls 0), so a throw from it refuses nothing",
            "declare 'failure: report-and-continue' (and 'blocking: nonblocking')",
            row=label,
            field="failure",
        )


def _throw_evidence(f: Any, model: Any, display: str, harness_id: str) -> None:
    """A host that reads a throw as a refusal: a row counts as blocking only where evidence shows the host
    honours a throw from it."""
    for i, row in enumerate(model.events):
        if row.failure is FailureMode.THROW_FAIL_FAST and not (row.evidence or "").strip():
            f.add(
                ("events", i, "failure"),
                f"throw-fail-fast claims {display} honours a throw from {row.name}, but no evidence is cited",
                f"cite a capture in which a throw from it held (`pasture capture {harness_id}`), "
                "or declare 'failure: report-and-continue'",
                row=f"event {row.name}",
                field="failure",
            )
