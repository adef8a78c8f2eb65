"""Docs: the per-contract event matrix and the instruction fragment for CLAUDE.md / AGENTS.md."""

from __future__ import annotations

from typing import Any

from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import RuntimeClass
from pasture.render.artifact import Artifact, header
from pasture.render.env import render


def _matrix_row(row: EventRow) -> dict[str, Any]:
    failure = row.declared_failure.value
    if row.demoted:
        failure += f" → {row.failure.value}"
    idents = ", ".join(f"{i.field} ({i.kind.value}{'' if i.required else ', optional'})" for i in row.identities)
    if row.unresolved:
        idents += ("; " if idents else "") + "unresolved: " + ", ".join(k.value for k in row.unresolved)
    answers = ", ".join(dict.fromkeys(c for c, _ in row.offered_answers))
    return {
        "name": row.name,
        "semantic": row.semantic.value,
        "surface": row.surface.value,
        "blocking": row.blocking.value,
        "mutation": row.mutation.value,
        "failure": failure,
        "evidence": row.evidence or "—",
        "response": row.response.value,
        "identities": idents or "none",
        "answers": answers or "—",
    }


def _answer_rows(contract: Contract) -> list[dict]:
    """Every answer form the host's schema allows, per row, with what a capture of this version showed."""
    out = []
    for row in contract.events:
        for form in row.answers:
            if form.offered:
                shown = f"honoured: {form.evidence}"
            elif form.tried:
                shown = "tried, NOT honoured: " + ", ".join(form.tried)
            else:
                shown = f"no capture of {contract.version} tried it"
            out.append(
                {
                    "name": row.name,
                    "capability": form.capability,
                    "wire": form.wire,
                    "offered": "yes" if form.offered else "no",
                    "shown": shown,
                }
            )
    return out


def events_doc(contract: Contract) -> Artifact:
    view = {
        "id": contract.id,
        "version": str(contract.version),
        "admission": contract.admission.describe(),
        "count": len(contract.events),
        "rows": [_matrix_row(r) for r in contract.events],
        "answers": _answer_rows(contract),
    }
    text = render("docs/events.md.j2", c=view, header=header("", contract.lifecycle_file).strip())
    return Artifact(f"{contract.id}/events.md", text, contract.id)


def _prose(text: str) -> str:
    # Instruction text is Markdown prose: keep it from opening HTML comments or raw HTML blocks.
    return text.replace("<", "&lt;").replace(">", "&gt;").strip()


def instructions_doc(contract: Contract, host: str, target: str) -> Artifact:
    """The instructions doc of ``contract``: ``host`` is the host's display name, ``target`` the file it
    reads agent instructions from."""
    operations, native, unsupported = [], [], []
    for b in contract.runtime.operations:
        title = b.key.replace("_", " ")
        if b.klass is RuntimeClass.SEMANTIC_INSTRUCTION:
            operations.append({"title": title, "text": _prose(b.instruction)})
        elif b.klass is RuntimeClass.PARENT_MEDIATED:
            operations.append({"title": title, "text": f"Handled by the {_prose(b.mediator)}: {_prose(b.instruction)}"})
        elif b.klass is RuntimeClass.NATIVE:
            native.append(f"{title} (`{b.call}`)")
        else:
            unsupported.append(f"{title} ({_prose(b.reason)})")
    text = render(
        "docs/instructions.md.j2",
        header=header("", contract.runtime_file).strip(),
        host=host,
        contract=contract.id,
        target=target,
        operations=operations,
        native="; ".join(native),
        unsupported="; ".join(unsupported),
    )
    return Artifact(f"{contract.id}/instructions.md", text, contract.id)
