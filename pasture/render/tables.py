"""Python contract tables: what the hook runtime imports instead of parsing YAML at hook time.

The templates emit black's own layout (one element per line, magic trailing commas, black's quote
choice via encode.py_str), so the output is black-stable without running black on every generate;
a test holds black.format_str(text) == text.
"""

from __future__ import annotations

import re

from pasture import PastureError
from pasture.profile.contracts import Contract
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.render.encode import py_str
from pasture.render.env import environment, render_template

PACKAGE = "python/pasture_contracts"


class TableError(PastureError, ValueError):
    pass


def module_name(contract: Contract) -> str:
    return re.sub(r"[^0-9a-zA-Z]+", "_", contract.id).strip("_").lower()


def member_name(native: str) -> str:
    """SessionStart -> SESSION_START, tool.execute.before -> TOOL_EXECUTE_BEFORE."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", native)
    return re.sub(r"[^0-9A-Za-z]+", "_", spaced).strip("_").upper()


LINE = 88  # black's default line length


def _sequence(prefix: str, items: list[str], indent: int, close: str = ",") -> list[str]:
    """A tuple laid out as black lays it out: (), a one-tuple inline when it fits, else exploded."""
    pad = " " * indent
    if not items:
        return [f"{pad}{prefix}(){close}"]
    if len(items) == 1:
        inline = f"{pad}{prefix}({items[0]},){close}"
        if len(inline) <= LINE:
            return [inline]
    return [f"{pad}{prefix}("] + [f"{pad}    {item}," for item in items] + [f"{pad}){close}"]


def _view(contract: Contract) -> dict:
    members: dict[str, str] = {}
    rows = []
    for row in contract.events:
        member = member_name(row.name)
        if member in members:
            raise TableError(
                f"{contract.lifecycle_file}: events {members[member]!r} and {row.name!r} map to the "
                f"same enum member {member}; rename one"
            )
        members[member] = row.name
        rows.append(
            {
                "member": member,
                "name": row.name,
                "semantic": row.semantic.value,
                "surface": row.surface.value,
                "blocking": row.blocking.value,
                "mutation": row.mutation.value,
                "order": row.order.value,
                "reconciliation": row.reconciliation.value,
                "declared_failure": row.declared_failure.value,
                "failure": row.failure.value,
                "evidence": row.evidence,
                "identities": _sequence(
                    "identities=",
                    [f"Identity({py_str(i.kind.value)}, {py_str(i.field)}, {i.required})" for i in row.identities],
                    8,
                ),
                "unresolved": _sequence("unresolved=", [py_str(k.value) for k in row.unresolved], 8),
                "stop_loop": row.stop_loop.value,
                "pre_action": row.pre_action,
                "response": row.response.value,
                "timeout": commands.timeout(row),
                # the capability matrix: (capability, wire form) a capture of this version shows honoured
                "answers": _sequence("answers=", [f"({py_str(c)}, {py_str(w)})" for c, w in row.offered_answers], 8),
            }
        )
    return {
        "id": contract.id,
        "harness": contract.harness.value,
        "version": str(contract.version),
        "admission": contract.admission.describe(),
        "rows": rows,
    }


def _admission_row(contract: Contract) -> str:
    adm = contract.admission
    maximum = py_str(str(adm.maximum)) if adm.maximum is not None else "None"
    return (
        f"({py_str(contract.id)}, {py_str(module_name(contract))}, {py_str(str(adm.minimum))}, {maximum}, "
        f"{adm.include_prereleases})"
    )


def table_artifacts(contracts: list[Contract]) -> list[Artifact]:
    env = environment().overlay()
    env.filters["py"] = py_str
    out = [Artifact(f"{PACKAGE}/_row.py", render_template(env.get_template("python/row.py.j2")))]
    by_harness: dict[str, list[str]] = {}
    for contract in contracts:
        by_harness.setdefault(contract.harness.value, []).append(_admission_row(contract))
        text = render_template(
            env.get_template("python/contract.py.j2"),
            c=_view(contract),
            header=header("", contract.lifecycle_file).strip(),
        )
        out.append(Artifact(f"{PACKAGE}/{module_name(contract)}.py", text, contract.id))
    index = render_template(
        env.get_template("python/index.py.j2"),
        contracts=[{"id": c.id, "module": module_name(c)} for c in contracts],
        admissions=[_sequence(f"{py_str(h)}: ", rows, 4) for h, rows in sorted(by_harness.items())],
    )
    out.append(Artifact(f"{PACKAGE}/__init__.py", index))
    return out
