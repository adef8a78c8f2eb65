"""`pasture explain`: one lifecycle row in words, including why its failure mode is what it is."""

from __future__ import annotations

from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import BlockingMode, EventSemantic, FailureMode, ResponseCapability, StopLoopPolicy

_SEMANTIC = {
    EventSemantic.OBSERVATION: "observation: the event is journaled; the gate is never consulted and the host "
    "always proceeds",
    EventSemantic.GATE_CONSULTATION: "gate-consultation: the gate decides whether the host proceeds",
    EventSemantic.EXPLICIT_HUMAN_RESPONSE: "explicit-human-response: a person's answer; pasture never fabricates one",
}
_BLOCKING = {
    BlockingMode.NONBLOCKING: "nonblocking: the host does not wait for or act on the hook's answer",
    BlockingMode.BLOCKING: "blocking: the host waits for the hook and can act on its answer",
    BlockingMode.CONDITIONALLY_BLOCKING: "conditionally-blocking: the host blocks except for a documented "
    "matcher variant",
}


def _failure(row: EventRow) -> list[str]:
    declared, effective = row.declared_failure, row.failure
    lines = [f"failure: declared {declared.value}, effective {effective.value}"]
    if row.demoted:
        lines.append(
            f"  why: the host contract declares {declared.value}, but the row cites no evidence for that "
            "blocking claim, so the failure-evidence rule demotes it to report-and-continue: a failure "
            "never refuses the user's operation."
        )
        lines.append("  to make it block: cite the host documentation URL or a committed capture path in 'evidence'.")
    elif declared.blocks_by_exit_code:
        lines.append(f"  why: the blocking exit code is cited: {row.evidence}")
    elif declared is FailureMode.THROW_FAIL_FAST:
        lines.append(
            "  why: the generated plugin throws to refuse; that channel is pasture's own committed "
            "plugin, not a host exit code, so no citation is required."
        )
    else:
        lines.append(
            f"  why: the host contract declares {declared.value} for this row: it never blocks, "
            "with or without evidence."
        )
    return lines


def _answers(contract: Contract, row: EventRow) -> list[str]:
    """The row's capability matrix: each form the host's schema allows and whether it is offered."""
    if not row.answers:
        return [
            "answers: none (the output schema in this version's catalog, if it has one, and this row's "
            "mutation mode allow no allow, rewrite, context, feedback or continue answer)"
        ]
    offered = [f for f in row.answers if f.offered]
    lines = ["answers: " + ("; ".join(f"{f.capability} ({f.wire})" for f in offered) if offered else "none offered")]
    for form in row.answers:
        if form.offered:
            lines.append(f"  {form.capability} by {form.wire}: offered; honoured in {form.evidence}")
        elif form.tried:
            lines.append(
                f"  {form.capability} by {form.wire}: not offered; tried and NOT honoured in {', '.join(form.tried)}"
            )
        else:
            lines.append(
                f"  {form.capability} by {form.wire}: not offered; the schema allows it, but no "
                f"capture of {contract.version} shows it honoured"
            )
    return lines


def explain(contract: Contract, row: EventRow) -> str:
    idents = (
        ", ".join(f"{i.field} ({i.kind.value}, {'required' if i.required else 'optional'})" for i in row.identities)
        or "none"
    )
    unresolved = ", ".join(k.value for k in row.unresolved) or "none"
    response = row.response
    if response is ResponseCapability.NONE:
        why = (
            "not a pre-action gate-consultation"
            if not (row.pre_action and row.semantic is EventSemantic.GATE_CONSULTATION)
            else "no response-channel evidence"
        )
        resp = f"none ({why})"
    else:
        resp = f"{response.value} (deny cited by {row.deny_evidence}"
        resp += f"; ask cited by {row.ask_evidence})" if response.allows_ask else ")"
    stop = (
        "consult-when-inactive: a stop that an earlier block triggered is never blocked again"
        if row.stop_loop is StopLoopPolicy.CONSULT_WHEN_INACTIVE
        else "not-applicable"
    )
    lines = [
        f"{contract.id} {row.name}  ({contract.lifecycle_file}:{row.line})",
        f"admission: {contract.admission.describe()}",
        f"semantic: {_SEMANTIC[row.semantic]}",
        f"surface: {row.surface.value}",
        f"blocking: {_BLOCKING[row.blocking]}",
        f"mutation: {row.mutation.value}",
        f"handler order: {row.order.value}; reconciliation: {row.reconciliation.value}",
        *_failure(row),
        f"identities: {idents}; identity policy: {row.identity_policy.value}",
        f"unresolved identities: {unresolved}",
        f"stop loop: {stop}",
        f"pre-action: {'yes' if row.pre_action else 'no'}",
        f"response capability: {resp}",
        *_answers(contract, row),
    ]
    if row.note:
        lines.append(f"note: {row.note}")
    return "\n".join(lines) + "\n"
