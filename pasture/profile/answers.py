"""The capability matrix: which answers beyond deny/ask a row can give, in which wire form (issue 17).

Two sources decide, and both must agree before a row *offers* an answer:

1. **The host's own definition.** The row's output schema in its version's catalog
   (``captures/<harness>@<version>/catalog.json``) and the row's mutation mode say which wire forms
   exist at all (:func:`candidates`): an ``updatedInput`` only rewrites on a row whose mutation mode
   is ``input``, an OpenCode ``output`` field only on an ``output-object`` row, and so on.
2. **The failure-evidence rule, applied to answers.** A form counts only where a capture of that
   very host version (``captures/<contract>/<scenario>/scenario.json``, written by `pasture capture`)
   tried it on that very event and the host **honoured** it. A capture of another version, of
   another event or of another wire form proves nothing; one where the host did not honour the
   answer is kept as ``tried`` (shown by `pasture explain`), never as evidence.

Build time only: the generated tables carry the result as plain data; nothing here runs on the hook path.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Protocol

from pasture.profile.versions import HostVersion, VersionError
from pasture.profile.vocab import IdentityKind, MutationMode, StopLoopPolicy

#: The answer capabilities, in matrix order.
CAPABILITIES = ("allow", "rewrite", "context", "feedback", "continue")

# Wire forms of the JSON command hosts (Claude Code's hookSpecificOutput ones, shared by Codex; Gemini CLI and
# Copilot CLI reuse W_CONTEXT and W_BLOCK_REASON), named as the capture scenarios name them. Each other host's
# own forms are in its host module (pasture/hosts/<host>.py, W_*).
W_ALLOW = "hookSpecificOutput.permissionDecision=allow"
W_BEHAVIOR_ALLOW = "hookSpecificOutput.decision.behavior=allow"
W_UPDATED_INPUT = "hookSpecificOutput.updatedInput+permissionDecision=allow"
W_CONTEXT = "hookSpecificOutput.additionalContext"
W_BLOCK_REASON = "decision=block+reason"


@dataclass(frozen=True)
class AnswerForm:
    """One answer a row's schema allows: the capability, its wire form, and the captures of this
    version that tried it (``evidence``: the first where the host honoured it, "" if none)."""

    capability: str
    wire: str
    evidence: str = ""
    tried: tuple[str, ...] = ()  # captures where the host did NOT honour it

    @property
    def offered(self) -> bool:
        return bool(self.evidence)


# --- 1. what the host's own schema allows ----------------------------------------------------------


def schema_field(output: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The field spec at a dotted path (through object fields and object-union variants)."""
    spec: dict[str, Any] | None = {"fields": output}
    for part in path.split("."):
        if spec is None:
            return None
        found = (spec.get("fields") or {}).get(part)
        if found is None:
            for variant in spec.get("variants") or []:
                found = (variant.get("fields") or {}).get(part)
                if found is not None:
                    break
        spec = found
    return spec


def schema_offers(output: dict[str, Any], path: str, value: str) -> bool:
    """Whether the field at ``path`` exists and can take ``value`` (enum, literal, in some variant)."""
    head, _, last = path.rpartition(".")
    parent: dict[str, Any] | None = schema_field(output, head) if head else {"fields": output}
    if parent is None:
        return False
    specs = [(parent.get("fields") or {}).get(last)]
    specs += [(v.get("fields") or {}).get(last) for v in parent.get("variants") or []]
    return any(s is not None and value in (s.get("values") or []) for s in specs)


#: Input fields that carry a tool's outcome: a row whose input has one runs after a tool.
TOOL_OUTCOME = ("tool_response", "error")


def command_candidates(row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    after_tool = any(i.kind is IdentityKind.TOOL_CALL for i in row.identities) and any(
        name in inputs for name in TOOL_OUTCOME
    )
    if row.pre_action and schema_offers(output, "hookSpecificOutput.permissionDecision", "allow"):
        out.append(("allow", W_ALLOW))
    if row.pre_action and schema_offers(output, "hookSpecificOutput.decision.behavior", "allow"):
        out.append(("allow", W_BEHAVIOR_ALLOW))
    if (
        row.mutation is MutationMode.INPUT
        and schema_field(output, "hookSpecificOutput.updatedInput") is not None
        and schema_offers(output, "hookSpecificOutput.permissionDecision", "allow")
    ):
        out.append(("rewrite", W_UPDATED_INPUT))
    if schema_field(output, "hookSpecificOutput.additionalContext") is not None:
        out.append(("context", W_CONTEXT))
    blocks = schema_offers(output, "decision", "block") and schema_field(output, "reason") is not None
    stop = row.stop_loop is StopLoopPolicy.CONSULT_WHEN_INACTIVE
    if blocks and not row.pre_action and after_tool and not stop:
        out.append(("feedback", W_BLOCK_REASON))
    if blocks and stop:
        out.append(("continue", W_BLOCK_REASON))
    return out


#: Input fields that mark a stop hook's forced continuation: a row whose input has one is the host's stop.
STOP_ACTIVE = ("stop_hook_active", "stopHookActive")


class AnswerHost(Protocol):
    """What the capability matrix asks of a host (every :class:`pasture.hosts.protocol.Host` has it)."""

    name: str

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        """(capability, wire form) pairs the row's catalog output schema and input fields allow, in its own
        wire forms (Claude Code's ``hookSpecificOutput`` ones: :func:`command_candidates`)."""
        ...


def candidates(
    host: AnswerHost, row: Any, output: dict[str, Any] | None, inputs: dict[str, Any] | None = None
) -> list[tuple[str, str]]:
    """(capability, wire form) pairs the row's catalog schema (``output``, and ``inputs`` to tell a
    row that runs after a tool) and its mutation mode allow, in matrix order; ``host`` decodes its forms."""
    if output is None:
        return []
    found = host.answer_candidates(row, output, inputs or {})
    return sorted(found, key=lambda pair: CAPABILITIES.index(pair[0]))


# --- 2. what a capture of this very version shows honoured ------------------------------------------


@dataclass(frozen=True)
class AnswerCapture:
    """One answer scenario of a committed capture, as the matrix reads it."""

    path: str  # repository-relative scenario.json
    harness: str
    version: str
    event: str
    capability: str
    wire: str
    honoured: bool | None


def read_answer_captures(root: Path, contract_id: str) -> list[AnswerCapture]:
    """Every answer scenario under ``captures/<contract_id>/`` (unreadable files are skipped: the
    matrix then offers less, never more)."""
    folder = Path(root) / "captures" / contract_id
    found = []
    for path in sorted(folder.glob("*/scenario.json")) if folder.is_dir() else ():
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        answer = doc.get("answer") if isinstance(doc, dict) else None
        if not isinstance(answer, dict):
            continue
        honoured = (doc.get("result") or {}).get("honoured")
        found.append(
            AnswerCapture(
                path.relative_to(root).as_posix(),
                str(doc.get("harness")),
                str(doc.get("host_version")),
                str(answer.get("event")),
                str(answer.get("capability")),
                str(answer.get("wire")),
                honoured if isinstance(honoured, bool) else None,
            )
        )
    return found


def _same_version(capture: AnswerCapture, harness: str, version: HostVersion) -> bool:
    try:
        return capture.harness == harness and HostVersion.parse(capture.version) == version
    except VersionError:
        return False


def row_answers(
    host: AnswerHost,
    version: HostVersion,
    row: Any,
    output: dict[str, Any] | None,
    captures: Iterable[AnswerCapture],
    inputs: dict[str, Any] | None = None,
) -> tuple[AnswerForm, ...]:
    """Every form the schema allows for ``row``, each with the captures of this version that tried it."""
    mine = [c for c in captures if c.event == row.name and _same_version(c, host.name, version)]
    forms = []
    for capability, wire in candidates(host, row, output, inputs):
        tried = [c for c in mine if (c.capability, c.wire) == (capability, wire)]
        honoured = [c.path for c in tried if c.honoured is True]
        forms.append(
            AnswerForm(
                capability,
                wire,
                honoured[0] if honoured else "",
                tuple(c.path for c in tried if c.honoured is not True),
            )
        )
    return tuple(forms)


def offered(forms: Iterable[AnswerForm]) -> tuple[tuple[str, str], ...]:
    """(capability, wire form) of every form a capture shows honoured: what the tables carry."""
    return tuple((f.capability, f.wire) for f in forms if f.offered)


def derive(
    root: Path, contract_id: str, host: AnswerHost, version: HostVersion, rows: tuple[Any, ...], catalog: Any
) -> dict[str, tuple[AnswerForm, ...]]:
    """Row name -> its answer forms, for every row (no catalog: no forms)."""
    captures = read_answer_captures(root, contract_id)
    out = {}
    for row in rows:
        schema = catalog.event(row.name) if catalog is not None else None
        out[row.name] = row_answers(
            host,
            version,
            row,
            schema.output if schema is not None else None,
            captures,
            schema.input if schema is not None else None,
        )
    return out
