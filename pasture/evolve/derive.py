"""Rows from a host's own catalog: how a new event is classified, and how a kept row is corrected.

Classification of an event the previous contract lacks (:func:`row_from_catalog`):

* A **pre-action** event (its output offers a refusal decision, ``deny``, or it is named for the
  moment before an action: ``Pre*``, ``*.before``) **whose output offers a decision** becomes a
  *gate consultation*: semantic gate-consultation, pre_action, blocking, with the surface's
  blocking failure mode declared (Claude ``exit-2-blocks``, Codex ``strict-output-exit-2-blocks``,
  OpenCode ``throw-fail-fast``) but **no evidence**: the failure-evidence rule runs it as
  report-and-continue (Claude, Codex) until a capture shows the refusal holding, and OpenCode's
  rule refuses an uncited throw, so there it is declared report-and-continue until then. It is
  never silently an observation: it waits for evidence, and the bump report lists it for review.
* Every other event becomes an observation row (never blocking).
* Identities: the catalog input fields the runtime knows how to correlate (:data:`IDENTITY_FIELDS`),
  with the schema's own required flag.

Corrections of a kept row (:func:`correct_row`): an identity field the input schema lacks is
dropped (its kind becomes unresolved); a required identity the schema makes optional becomes
optional; a known identity field the schema *requires*, or one specific to this event, that the
row does not declare yet is added.
"""

from __future__ import annotations

from typing import Any

from pasture.catalog import Catalog, EventSchema
from pasture.hosts import HOSTS
from pasture.profile.answers import STOP_ACTIVE
from pasture.profile.vocab import STOP_FAMILY_EVENTS

IDENTITY_FIELDS: dict[str, dict[str, str]] = {name: dict(h.identity_fields) for name, h in HOSTS.items()}
#: surface -> the order, reconciliation and failure axes of a new observation row (each host's ``observation_axes``)
OBSERVATION_AXES: dict[str, dict[str, str]] = {
    surface: dict(axes) for h in HOSTS.values() for surface, axes in h.observation_axes.items()
}
#: surface -> the order and reconciliation axes of a new gate row (each host's ``gate_axes``)
GATE_AXES: dict[str, dict[str, str]] = {
    surface: dict(axes) for h in HOSTS.values() for surface, axes in h.gate_axes.items()
}


def surface_of(harness: str, ev: EventSchema) -> str:
    return HOSTS[harness].surface_of(ev.kind == "bus").value


def is_bus_surface(harness: str, surface: Any) -> bool:
    """Whether ``surface`` is the host's event-bus surface (one of its own, apart from its hooks')."""
    the_host = HOSTS[harness]
    bus = the_host.surface_of(True)
    return bus is not the_host.surface_of(False) and surface == bus.value


def is_refusing_hook_surface(harness: str, surface: Any) -> bool:
    """Whether ``surface`` is that of a hook a throw from refuses (``HOST.throw_refuses``: OpenCode's named hooks)."""
    the_host = HOSTS[harness]
    return the_host.throw_refuses and surface == the_host.surface_of(False).value


def is_pre_action(ev: EventSchema) -> bool:
    if ev.pre_action is not None:  # the reader saw the refusal field the host reads before acting (Pi)
        return ev.pre_action and ev.kind != "bus"
    name = ev.name
    if name.startswith("After"):  # Gemini's After* events read "deny" too, once the action is done
        return False
    named_before = name.startswith(("Pre", "Before")) or name.endswith(".before")
    return ev.kind != "bus" and ("deny" in ev.decisions() or named_before)


def offers_decision(ev: EventSchema) -> bool:
    """A refusal the host reads from the event's own output (not Claude's shared decision: block)."""
    decisions = ev.decisions()
    return "deny" in decisions or "ask" in decisions or any(p != "decision" for p in decisions.get("block", []))


def classify(harness: str, ev: EventSchema) -> str:
    """'gate' (pre-action, decision offered: blocking waits for evidence) or 'observation'.

    Where a throw is the refusal the host reads (``HOST.throw_refuses``: an OpenCode named hook is
    awaited, and 1.x has no refusal field), every pre-action named hook offers one."""
    if ev.kind == "bus":
        return "observation"
    offered = offers_decision(ev) or HOSTS[harness].throw_refuses
    return "gate" if is_pre_action(ev) and offered else "observation"


def catalog_identities(
    harness: str, cat: Catalog, event: str, *, only_required_or_specific: bool
) -> list[dict[str, Any]]:
    fields = cat.identity_fields(event)
    common = cat.common_fields()
    out: list[dict[str, Any]] = []
    kinds: set[str] = set()
    for field_name, kind in IDENTITY_FIELDS[harness].items():
        if field_name not in fields or kind in kinds:
            continue
        required = fields[field_name]
        if only_required_or_specific and not required and field_name in common:
            continue
        out.append({"kind": kind, "field": field_name, "required": required})
        kinds.add(kind)
    order = {"session": 0, "turn": 1, "tool-call": 2, "agent": 3, "request": 4, "message": 5}
    return sorted(out, key=lambda i: order.get(i["kind"], 9))


def row_from_catalog(
    harness: str, cat: Catalog, ev: EventSchema, version: str, source: str
) -> tuple[dict[str, Any], str]:
    """A new row for ``ev`` and its classification ('gate' or 'observation')."""
    surface = surface_of(harness, ev)
    kind = "observation" if is_bus_surface(harness, surface) else classify(harness, ev)
    identities = catalog_identities(harness, cat, ev.name, only_required_or_specific=True)
    offered = ", ".join(f"{w} ({'; '.join(p)})" for w, p in sorted(ev.decisions().items())) or (
        "a refusal field the catalog reader marked pre_action" if ev.pre_action else "none"
    )
    row: dict[str, Any] = {"name": ev.name}
    if kind == "gate":
        failure = HOSTS[harness].gate_failure
        row.update(
            semantic="gate-consultation",
            surface=surface,
            blocking="blocking",
            mutation="none",
            **GATE_AXES[surface],
            failure=failure,
        )
        why = (
            f"Host catalog {version} ({source}): a pre-action event whose output offers a decision ({offered}), "
            "so a gate consultation. Its blocking waits for evidence: "
        )
        if HOSTS[harness].throw_refuses:
            why += (
                "report-and-continue unless a capture of this version shows a throw from it holding (then "
                "throw-fail-fast citing it)."
            )
        else:
            why += (
                f"{failure} blocks only with a citation of a capture of this version in which the refusal held "
                "(until then it runs report-and-continue)."
            )
        pre_action = True
    else:
        axes = OBSERVATION_AXES[surface]
        row.update(semantic="observation", surface=surface, blocking="nonblocking", mutation="none", **axes)
        why = (
            f"Host catalog {version} ({source}): "
            + ("a bus event of the SDK Event union" if ev.kind == "bus" else f"its output offers {offered}")
            + "; an observation row (never blocking) until someone documents what it can do."
        )
        pre_action = False
    # a stop gate whose input says whether an earlier block caused this stop is consulted only while it
    # says no (the host's own loop guard): Claude Code's shape, and its forks'
    stop_loop = "not-applicable"
    if kind == "gate" and ev.name in STOP_FAMILY_EVENTS and any(f in ev.input for f in STOP_ACTIVE):
        stop_loop = "consult-when-inactive"
        why += f" Its input carries {', '.join(f for f in STOP_ACTIVE if f in ev.input)}: consulted only while false."
    row.update(identities=identities, unresolved=[], stop_loop=stop_loop, pre_action=pre_action)
    if HOSTS[harness].tool_matchers and ("tool_name" in cat.identity_fields(ev.name)):
        row["matcher"] = "*"
    row["note"] = why
    return row, kind


def correct_row(harness: str, cat: Catalog, row: dict[str, Any], version: str, source: str) -> list[str]:
    """Correct ``row`` (a lifecycle row as loaded from YAML) against the catalog; return what changed."""
    ev = cat.event(row["name"])
    if ev is None:
        return []
    fields = cat.identity_fields(row["name"])
    changes: list[str] = []
    kept = []
    for ident in row.get("identities") or []:
        name = ident["field"]
        if name not in fields:
            changes.append(f"{name} dropped: not in {row['name']}'s input schema; {ident['kind']} is unresolved")
            unresolved = list(row.get("unresolved") or [])
            if ident["kind"] not in unresolved:
                unresolved.append(ident["kind"])
            row["unresolved"] = unresolved
            continue
        if ident["required"] and not fields[name]:
            ident = {**ident, "required": False}
            changes.append(f"{name} made optional: the input schema does not require it")
        kept.append(ident)
    declared_kinds = {i["kind"] for i in kept}
    declared_fields = {i["field"] for i in kept}
    for ident in catalog_identities(harness, cat, row["name"], only_required_or_specific=True):
        if ident["field"] in declared_fields:
            for mine in kept:
                if mine["field"] == ident["field"] and ident["required"] and not mine["required"]:
                    mine["required"] = True
                    changes.append(f"{ident['field']} made required: the input schema requires it")
            continue
        if ident["kind"] in declared_kinds:
            continue
        kept.append(ident)
        declared_kinds.add(ident["kind"])
        if ident["kind"] in (row.get("unresolved") or []):
            row["unresolved"] = [k for k in row["unresolved"] if k != ident["kind"]]
        changes.append(
            f"{ident['field']} added ({ident['kind']}, {'required' if ident['required'] else 'optional'}"
            ": in the input schema)"
        )
    order = {"session": 0, "turn": 1, "tool-call": 2, "agent": 3, "request": 4, "message": 5}
    row["identities"] = sorted(kept, key=lambda i: order.get(i["kind"], 9))
    if changes:
        _add(row, f"Host catalog {version} ({source}): " + "; ".join(changes) + ".")
    return changes


def _add(row: dict[str, Any], sentence: str) -> None:
    if row.get("note") and sentence in row["note"].split("\n"):
        return
    row["note"] = f"{row['note']}\n{sentence}" if row.get("note") else sentence


def demote_uncited_throw(row: dict[str, Any], ev: EventSchema | None, version: str, source: str) -> str | None:
    """Where a throw refuses (``HOST.throw_refuses``, OpenCode): a throw-fail-fast row without evidence (or
    one the host never calls) is declared report-and-continue: it must not count as blocking. Returns the
    sentence added, if any."""
    if row.get("failure") != "throw-fail-fast" or (ev is not None and ev.kind == "bus"):
        return None
    never_called = ev is not None and ev.host_calls == 0
    if row.get("evidence") and not never_called:
        return None
    row["failure"] = "report-and-continue"
    if never_called:
        row["blocking"] = "nonblocking"
        sentence = (
            f"Host catalog {version} ({source}): the shipped binary has no call site for {row['name']} "
            "(host_calls 0), so a throw from it refuses nothing; declared report-and-continue, nonblocking."
        )
    elif ev is None:
        sentence = (
            f"No capture of {version} shows a throw from {row['name']} holding (and no catalog shows the "
            "host calling it); declared report-and-continue until one does (then throw-fail-fast citing "
            "it), so it does not count as blocking."
        )
    else:
        calls = f"{ev.host_calls} call site(s) in the shipped binary" if ev.host_calls else "in the typings"
        sentence = (
            f"Host catalog {version} ({source}): {calls}, but no capture shows a throw from "
            f"{row['name']} holding; declared report-and-continue until one does (then throw-fail-fast "
            "citing it), so it does not count as blocking."
        )
    _add(row, sentence)
    return sentence


def catalog_additions(
    harness: str, cat: Catalog, known: set[str], excluded: set[str], version: str, source: str
) -> list[tuple[dict[str, Any], str, EventSchema]]:
    """A new row (with its classification and catalog entry) for every catalog event not yet known."""
    out = []
    for name in cat.names:
        if name in known or name in excluded:
            continue
        ev = cat.event(name)
        assert ev is not None
        row, kind = row_from_catalog(harness, cat, ev, version, source)
        out.append((row, kind, ev))
    return out


def insert_row(rows: list[dict[str, Any]], row: dict[str, Any]) -> None:
    """After the last row of the same surface (OpenCode bus rows before its named hooks), else at the end."""
    same = [i for i, r in enumerate(rows) if r.get("surface") == row["surface"]]
    rows.insert(same[-1] + 1 if same else len(rows), row)
