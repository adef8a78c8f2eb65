"""`pasture diff A B`: what changes for users when a host moves from contract A to contract B."""

from __future__ import annotations

from typing import Any

from pasture.profile.contracts import Binding, Contract, EventRow

_AXES = ("semantic", "surface", "blocking", "mutation", "order", "reconciliation", "stop_loop")


def _ident(i: Any) -> str:
    return f"{i.field} ({i.kind.value}, {'required' if i.required else 'optional'})"


def _row_changes(a: EventRow, b: EventRow) -> list[dict[str, Any]]:
    changes: list[dict[str, Any]] = []

    def add(axis: str, before: Any, after: Any) -> None:
        if before != after:
            changes.append({"axis": axis, "from": before, "to": after})

    for axis in _AXES:
        add(axis, getattr(a, axis).value, getattr(b, axis).value)
    add("declared failure", a.declared_failure.value, b.declared_failure.value)
    add("effective failure", a.failure.value, b.failure.value)
    add("evidence", a.evidence or None, b.evidence or None)
    add("pre_action", a.pre_action, b.pre_action)
    add("response", a.response.value, b.response.value)
    add("deny evidence", a.deny_evidence or None, b.deny_evidence or None)
    add("ask evidence", a.ask_evidence or None, b.ask_evidence or None)
    before = {i.field: _ident(i) for i in a.identities}
    after = {i.field: _ident(i) for i in b.identities}
    added = [after[f] for f in after if f not in before]
    removed = [before[f] for f in before if f not in after]
    changed = [f"{before[f]} -> {after[f]}" for f in before if f in after and before[f] != after[f]]
    if added or removed or changed:
        changes.append({"axis": "identities", "added": added, "removed": removed, "changed": changed})
    add("unresolved", [k.value for k in a.unresolved], [k.value for k in b.unresolved])
    add("matcher", a.matcher, b.matcher)
    add("timeout", a.timeout, b.timeout)
    if a.note != b.note:
        changes.append({"axis": "note", "changed": True})
    return changes


def _binding(b: Binding) -> dict[str, Any]:
    return {
        k: v
        for k, v in (
            ("class", b.klass.value),
            ("call", b.call),
            ("arguments", list(b.arguments)),
            ("result", b.result),
            ("context", b.context),
            ("mediator", b.mediator),
            ("instruction", b.instruction),
            ("reason", b.reason),
        )
        if v
    }


def diff_contracts(a: Contract, b: Contract) -> dict[str, Any]:
    names_a = [r.name for r in a.events]
    names_b = [r.name for r in b.events]
    added = [n for n in names_b if n not in names_a]
    removed = [n for n in names_a if n not in names_b]
    rows = []
    for name in names_b:
        ra, rb = a.row(name), b.row(name)
        if ra is None or rb is None:
            continue
        changes = _row_changes(ra, rb)
        if changes:
            rows.append({"event": name, "changes": changes})
    by_a, by_b = {r.name: r for r in a.events}, {r.name: r for r in b.events}  # Contract.row, never None here
    gained = [n for n in names_b if by_b[n].failure.blocks and (n not in by_a or not by_a[n].failure.blocks)]
    lost = [n for n in names_a if by_a[n].failure.blocks and (n not in by_b or not by_b[n].failure.blocks)]
    deny_gained = [
        n for n in names_b if by_b[n].response.allows_deny and (n not in by_a or not by_a[n].response.allows_deny)
    ]
    deny_lost = [
        n for n in names_a if by_a[n].response.allows_deny and (n not in by_b or not by_b[n].response.allows_deny)
    ]
    runtime: list[dict[str, Any]] = []
    ops_a = {x.key: _binding(x) for x in a.runtime.operations + a.runtime.effects}
    ops_b = {x.key: _binding(x) for x in b.runtime.operations + b.runtime.effects}
    for key in list(ops_a) + [k for k in ops_b if k not in ops_a]:
        if ops_a.get(key) != ops_b.get(key):
            runtime.append({"operation": key, "from": ops_a.get(key), "to": ops_b.get(key)})
    caps_a = {
        c.binding.key: (c.requested, c.supports_from, c.supports_through, _binding(c.binding))
        for c in a.runtime.capabilities
    }
    caps_b = {
        c.binding.key: (c.requested, c.supports_from, c.supports_through, _binding(c.binding))
        for c in b.runtime.capabilities
    }
    for key in list(caps_a) + [k for k in caps_b if k not in caps_a]:
        if caps_a.get(key) != caps_b.get(key):
            runtime.append({"capability": key, "changed": True})
    out: dict[str, Any] = {
        "from": a.id,
        "to": b.id,
        "harness_changed": a.harness is not b.harness,
        "admission": {"from": a.admission.describe(), "to": b.admission.describe()},
        "events": {"from": len(names_a), "to": len(names_b), "added": added, "removed": removed},
        "blocking": {"gained": gained, "lost": lost},
        "deny_channel": {"gained": deny_gained, "lost": deny_lost},
        "rows": rows,
        "runtime": runtime,
    }
    out["identical"] = not (added or removed or rows or runtime or out["harness_changed"] or a.admission != b.admission)
    return out


def _fmt(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def render_text(d: dict[str, Any], a: Contract, b: Contract) -> str:
    lines = [f"pasture diff {d['from']} {d['to']}"]
    if d["harness_changed"]:
        lines.append(f"harness: {a.harness.value} -> {b.harness.value} (different hosts: most rows differ)")
    adm = d["admission"]
    lines.append(
        f"admission: {adm['from']} -> {adm['to']}"
        if adm["from"] != adm["to"]
        else f"admission: {adm['to']} (unchanged)"
    )
    ev = d["events"]
    lines.append(f"events: {ev['from']} -> {ev['to']} (+{len(ev['added'])} -{len(ev['removed'])})")
    for name in ev["added"]:
        row = b.row(name)
        assert row is not None  # an added name is one of b's events
        lines.append(
            f"  + {name}: {row.semantic.value}, {row.failure.value}"
            + (f" (declared {row.declared_failure.value})" if row.demoted else "")
        )
    for name in ev["removed"]:
        row = a.row(name)
        assert row is not None  # a removed name is one of a's events
        lines.append(f"  - {name}: was {row.semantic.value}, {row.failure.value}")
    blk = d["blocking"]
    lines.append(
        "blocking gained: "
        + (", ".join(blk["gained"]) or "none")
        + "  (a gate's denial or a failure now stops the host)" * bool(blk["gained"])
    )
    lines.append(
        "blocking lost: "
        + (", ".join(blk["lost"]) or "none")
        + "  (a denial or failure now only reports; the host proceeds)" * bool(blk["lost"])
    )
    deny = d["deny_channel"]
    if deny["gained"] or deny["lost"]:
        lines.append(
            f"deny channel gained: {', '.join(deny['gained']) or 'none'}; lost: {', '.join(deny['lost']) or 'none'}"
        )
    substantive = [r for r in d["rows"] if any(c["axis"] != "note" for c in r["changes"])]
    notes_only = [r["event"] for r in d["rows"] if r not in substantive]
    if substantive:
        lines.append(f"changed rows ({len(substantive)}):")
        for row in substantive:
            lines.append(f"  {row['event']}")
            for c in row["changes"]:
                if c["axis"] == "identities":
                    parts = [f"+ {x}" for x in c["added"]] + [f"- {x}" for x in c["removed"]] + c["changed"]
                    lines.append(f"    identities: {'; '.join(parts)}")
                elif c["axis"] == "note":
                    lines.append("    note: changed (see the profile)")
                else:
                    lines.append(f"    {c['axis']}: {_fmt(c['from'])} -> {_fmt(c['to'])}")
    else:
        lines.append("changed rows: none")
    if notes_only:
        lines.append(f"only the note changed ({len(notes_only)}): {', '.join(notes_only)}")
    if d["runtime"]:
        lines.append("runtime:")
        for r in d["runtime"]:
            key = r.get("operation") or r.get("capability")
            if "from" in r:
                lines.append(f"  {key}: {_fmt(r['from'])} -> {_fmt(r['to'])}")
            else:
                lines.append(f"  capability {key}: changed")
    else:
        lines.append("runtime: unchanged")
    return "\n".join(lines) + "\n"
