"""The review report `pasture bump` writes for the maintainer (``captures/<harness>@<version>/bump-report.md``).

Deterministic Markdown (no timestamps, no absolute paths): what the new version changes and every
row that needs a human decision, from the previous and the new contract, their host catalogs and
their captures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pasture.catalog import Catalog
from pasture.evolve.captured import Capture
from pasture.evolve.diff import diff_contracts
from pasture.profile.contracts import Contract


def _field_paths(value: Any, prefix: str = "", depth: int = 2) -> set[str]:
    out: set[str] = set()
    if isinstance(value, dict):
        for key, sub in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            out.add(path)
            if depth > 1:
                out |= _field_paths(sub, path, depth - 1)
    return out


def payload_fields(cap: Capture | None) -> dict[str, set[str]]:
    """Event -> every payload field path (two levels) seen in any scenario of the capture."""
    out: dict[str, set[str]] = {}
    if cap is None:
        return out
    for scenario in cap.scenarios:
        for event, payloads in scenario.events.items():
            for payload in payloads:
                out.setdefault(event, set()).update(_field_paths(payload))
    return out


def _told(cap: Capture | None) -> dict[str, str | None]:
    if cap is None:
        return {}
    return {s.name: s.doc.get("result", {}).get("model_told_after_refusal") for s in cap.scenarios if s.refused_event}


def _short(text: str | None, width: int = 200) -> str:
    if text is None:
        return "(nothing)"
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _offered_answers(contract: Contract) -> set[str]:
    """Every answer a contract's rows offer, as "<event>: <capability> (<wire form>)"."""
    return {f"{row.name}: {capability} ({wire})" for row in contract.events for capability, wire in row.offered_answers}


def _nothing(new: Contract) -> dict[str, Any]:
    """The diff of a first contract against no contract: everything it has is gained."""
    names = [r.name for r in new.events]
    return {
        "events": {"added": names, "removed": []},
        "blocking": {"gained": [r.name for r in new.events if r.failure.blocks], "lost": []},
        "deny_channel": {"gained": [r.name for r in new.events if r.response.allows_deny], "lost": []},
    }


def build(
    old: Contract | None,
    new: Contract,
    old_cat: Catalog | None,
    new_cat: Catalog | None,
    old_cap: Capture | None,
    new_cap: Capture | None,
    profile_report: Any,
    extra: dict[str, Any],
) -> dict[str, Any]:
    diff = diff_contracts(old, new) if old is not None else _nothing(new)
    catalog_added = catalog_removed = None
    if old_cat is not None and new_cat is not None:
        catalog_added = [n for n in new_cat.names if old_cat.event(n) is None]
        catalog_removed = [n for n in old_cat.names if new_cat.event(n) is None]
    before, after = payload_fields(old_cap), payload_fields(new_cap)
    payloads = []
    for event in sorted(set(before) & set(after)):
        plus, minus = sorted(after[event] - before[event]), sorted(before[event] - after[event])
        if plus or minus:
            payloads.append({"event": event, "added": plus, "removed": minus})
    only_new = sorted(set(after) - set(before))
    only_old = sorted(set(before) - set(after))
    told_a, told_b = _told(old_cap), _told(new_cap)
    told = []
    for name in sorted(set(told_a) | set(told_b)):
        a, b = told_a.get(name, "(no such scenario)"), told_b.get(name, "(no such scenario)")
        if a != b:
            told.append({"scenario": name, "before": a, "after": b})
    human: list[str] = []
    for name in getattr(profile_report, "gates", []):
        row = new.row(name)
        if row is not None and not row.failure.blocks:
            human.append(
                f"{name}: a new gate (pre-action, its output offers a decision) whose blocking waits for "
                "evidence: no scenario showed a refusal of it holding; build one, or decide it is not a gate"
            )
        elif row is not None:
            human.append(f"{name}: a new gate that now blocks on {row.evidence}; read the capture and confirm")
    for entry in getattr(profile_report, "removed", []):
        human.append(f"evidence removed: {entry}")
    for name in diff["blocking"]["lost"]:
        human.append(f"{name}: blocking lost; find evidence on this version or accept that it runs without it")
    for row in new.events:
        if row.demoted:
            old_row = old.row(row.name) if old is not None else None
            still = " (as in " + old.id + ")" if old is not None and old_row is not None and old_row.demoted else ""
            human.append(
                f"{row.name}: declared {row.declared_failure.value} without evidence, runs "
                f"{row.failure.value}{still}; build a scenario that refuses it, or declare what it does"
            )
    answers_old, answers_new = _offered_answers(old) if old is not None else set(), _offered_answers(new)
    answers = {"gained": sorted(answers_new - answers_old), "lost": sorted(answers_old - answers_new)}
    for entry in answers["lost"]:
        human.append(
            f"answer lost: {entry}: no capture of {new.version} shows it honoured; re-capture, or accept "
            "that rows no longer offer it"
        )
    for item in getattr(profile_report, "identities", []):
        human.append(f"identity: {item}")
    for name in diff["events"]["added"]:
        row = new.row(name)
        if row is not None and row.semantic.value == "observation" and name not in getattr(profile_report, "gates", []):
            human.append(f"{name}: added as an observation; confirm it cannot refuse anything")
    return {
        "contract": new.id,
        "base": old.id if old is not None else "(none: the first contract of this host)",
        "events": {"added": diff["events"]["added"], "removed": diff["events"]["removed"]},
        "catalog": {"added": catalog_added, "removed": catalog_removed},
        "payload_fields": payloads,
        "events_only_in_new_capture": only_new,
        "events_only_in_old_capture": only_old,
        "model_told": told,
        "blocking": diff["blocking"],
        "deny": diff["deny_channel"],
        "answers": answers,
        "needs_human": human,
        **extra,
    }


def render_markdown(rep: dict[str, Any]) -> str:
    def items(values: list[Any] | None, empty: str = "none") -> list[str]:
        if values is None:
            return ["- (no catalog of the previous version to compare with)"]
        return [f"- {v}" for v in values] or [f"- {empty}"]

    lines = [
        (
            f"# Bump review: {rep['base']} -> {rep['contract']}"
            if rep["base"] != rep["contract"]
            else f"# Bump review: {rep['contract']}, the host's first contract (compared with nothing)"
        ),
        "",
        "Written by `pasture bump`; read it before committing. Every line under *Needs a human decision* is a "
        "claim the tool would not make on its own.",
        "",
    ]
    for key, title in (("steps", "What was done"),):
        if rep.get(key):
            lines += [f"## {title}", "", *items(rep[key]), ""]
    lines += [
        "## Events",
        "",
        "Rows added:",
        *items(rep["events"]["added"]),
        "",
        "Rows removed:",
        *items(rep["events"]["removed"]),
        "",
        "In the host's own catalog, added since the previous version:",
        *items(rep["catalog"]["added"]),
        "",
        "... and removed:",
        *items(rep["catalog"]["removed"]),
        "",
    ]
    lines += ["## Payload fields, capture to capture", ""]
    if rep["payload_fields"]:
        for p in rep["payload_fields"]:
            lines.append(
                f"- {p['event']}: "
                + "; ".join(
                    part
                    for part in (
                        ("+ " + ", ".join(p["added"])) if p["added"] else "",
                        ("- " + ", ".join(p["removed"])) if p["removed"] else "",
                    )
                    if part
                )
            )
    else:
        lines.append("- no field changed in events both captures saw")
    lines += [
        "",
        "Events only the new capture saw:",
        *items(rep["events_only_in_new_capture"]),
        "",
        "Events only the old capture saw:",
        *items(rep["events_only_in_old_capture"]),
        "",
    ]
    lines += ["## What the model is told after a refusal", ""]
    if rep["model_told"]:
        for t in rep["model_told"]:
            lines += [f"- {t['scenario']}:", f"  - before: {_short(t['before'])}", f"  - after: {_short(t['after'])}"]
    else:
        lines.append("- unchanged in every scenario both captures ran")
    lines += [
        "",
        "## Blocking",
        "",
        "Gained:",
        *items(rep["blocking"]["gained"]),
        "",
        "Lost:",
        *items(rep["blocking"]["lost"]),
        "",
        "Deny channel gained:",
        *items(rep["deny"]["gained"]),
        "",
        "Deny channel lost:",
        *items(rep["deny"]["lost"]),
        "",
    ]
    if "answers" in rep:
        lines += [
            "## Answers beyond deny and ask",
            "",
            "Offered only where a capture of the version shows the host honoured them (the capability matrix).",
            "",
            "Gained:",
            *items(rep["answers"]["gained"]),
            "",
            "Lost:",
            *items(rep["answers"]["lost"]),
            "",
        ]
    lines += ["## Needs a human decision", "", *items(rep["needs_human"], "nothing"), ""]
    return "\n".join(lines)


def write(path: Path, rep: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(rep), encoding="utf-8")
