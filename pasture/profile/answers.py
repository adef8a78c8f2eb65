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
from typing import Any, Iterable

from pasture.profile.versions import HostVersion, VersionError
from pasture.profile.vocab import Harness, HookSurface, IdentityKind, MutationMode, StopLoopPolicy

#: The answer capabilities, in matrix order.
CAPABILITIES = ("allow", "rewrite", "context", "feedback", "continue")

# Wire forms, named as the capture scenarios name them (pasture/evolve/scenarios.py uses these).
W_ALLOW = "hookSpecificOutput.permissionDecision=allow"
W_BEHAVIOR_ALLOW = "hookSpecificOutput.decision.behavior=allow"
W_UPDATED_INPUT = "hookSpecificOutput.updatedInput+permissionDecision=allow"
W_CONTEXT = "hookSpecificOutput.additionalContext"
W_BLOCK_REASON = "decision=block+reason"
W_OC_SET_ARG = "output.args.<field> set in place"
W_OC_NEW_ARGS = "output.args replaced by a new object"
W_OC_STATUS = "output.status=allow"
W_OC_SYSTEM = "output.system.push(text)"
W_OC_OUTPUT = "output.output edited"
# Gemini CLI (bundled docs/hooks/reference.md, the hook output classes of its bundle)
W_GEM_TOOL_INPUT = "hookSpecificOutput.tool_input"
W_GEM_ALLOW = "decision=allow"
W_GEM_DENY_REASON = "decision=deny+reason"
# GitHub Copilot CLI (the flat outputs of copilot-sdk/types.d.ts)
W_COP_ALLOW = "permissionDecision=allow"
W_COP_MODIFIED_ARGS = "modifiedArgs+permissionDecision=allow"
W_COP_CONTEXT = "additionalContext"


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


def _field(output: dict[str, Any], path: str) -> dict[str, Any] | None:
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


def _offers(output: dict[str, Any], path: str, value: str) -> bool:
    """Whether the field at ``path`` exists and can take ``value`` (enum, literal, in some variant)."""
    head, _, last = path.rpartition(".")
    parent: dict[str, Any] | None = _field(output, head) if head else {"fields": output}
    if parent is None:
        return False
    specs = [(parent.get("fields") or {}).get(last)]
    specs += [(v.get("fields") or {}).get(last) for v in parent.get("variants") or []]
    return any(s is not None and value in (s.get("values") or []) for s in specs)


#: Input fields that carry a tool's outcome: a row whose input has one runs after a tool.
_TOOL_OUTCOME = ("tool_response", "error")


def _command_candidates(row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    after_tool = any(i.kind is IdentityKind.TOOL_CALL for i in row.identities) and any(
        name in inputs for name in _TOOL_OUTCOME
    )
    if row.pre_action and _offers(output, "hookSpecificOutput.permissionDecision", "allow"):
        out.append(("allow", W_ALLOW))
    if row.pre_action and _offers(output, "hookSpecificOutput.decision.behavior", "allow"):
        out.append(("allow", W_BEHAVIOR_ALLOW))
    if (
        row.mutation is MutationMode.INPUT
        and _field(output, "hookSpecificOutput.updatedInput") is not None
        and _offers(output, "hookSpecificOutput.permissionDecision", "allow")
    ):
        out.append(("rewrite", W_UPDATED_INPUT))
    if _field(output, "hookSpecificOutput.additionalContext") is not None:
        out.append(("context", W_CONTEXT))
    blocks = _offers(output, "decision", "block") and _field(output, "reason") is not None
    stop = row.stop_loop is StopLoopPolicy.CONSULT_WHEN_INACTIVE
    if blocks and not row.pre_action and after_tool and not stop:
        out.append(("feedback", W_BLOCK_REASON))
    if blocks and stop:
        out.append(("continue", W_BLOCK_REASON))
    return out


def _opencode_candidates(row: Any, output: dict[str, Any]) -> list[tuple[str, str]]:
    if row.mutation is not MutationMode.OUTPUT_OBJECT:
        return []  # an OpenCode hook answers only by mutating its output object
    out = []
    if row.pre_action and _offers(output, "status", "allow"):
        out.append(("allow", W_OC_STATUS))
    if row.pre_action and _field(output, "args") is not None:
        out += [("rewrite", W_OC_SET_ARG), ("rewrite", W_OC_NEW_ARGS)]
    system = _field(output, "system")
    if system is not None and system.get("type") == "array":
        out.append(("context", W_OC_SYSTEM))
    result = _field(output, "output")
    if not row.pre_action and result is not None and result.get("type") == "string":
        out.append(("feedback", W_OC_OUTPUT))
    return out


#: Input fields that mark a stop hook's forced continuation: a row whose input has one is the host's stop.
_STOP_ACTIVE = ("stop_hook_active", "stopHookActive")


def _gemini_candidates(row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """Gemini CLI: ``decision`` (allow / deny) + ``reason`` and ``hookSpecificOutput`` fields per event. An
    ``additionalContext`` after a tool is appended to its result (feedback), elsewhere it is context; a deny
    after a tool replaces its result (feedback); on the stop event (AfterAgent, whose input carries
    ``stop_hook_active``) a deny sends the reason as a new prompt (continue)."""
    out = []
    after_tool = "tool_response" in inputs
    stop = any(name in inputs for name in _STOP_ACTIVE)
    if row.pre_action and _offers(output, "decision", "allow"):
        out.append(("allow", W_GEM_ALLOW))
    if (
        row.pre_action
        and row.mutation is MutationMode.INPUT
        and _field(output, "hookSpecificOutput.tool_input") is not None
    ):
        out.append(("rewrite", W_GEM_TOOL_INPUT))
    if _field(output, "hookSpecificOutput.additionalContext") is not None:
        out.append(("feedback" if after_tool else "context", W_CONTEXT))
    denies = _offers(output, "decision", "deny") and _field(output, "reason") is not None
    if denies and not row.pre_action and after_tool:
        out.append(("feedback", W_GEM_DENY_REASON))
    if denies and stop:
        out.append(("continue", W_GEM_DENY_REASON))
    return out


def _copilot_candidates(row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """GitHub Copilot CLI: flat outputs. ``permissionDecision`` allow, ``modifiedArgs`` (with allow) on an
    ``input`` row, ``additionalContext`` (after a tool: feedback), ``decision: block`` + ``reason`` on the stop
    event (agentStop, whose input carries ``stopHookActive``)."""
    out = []
    after_tool = "toolResult" in inputs or ("toolArgs" in inputs and "error" in inputs)
    stop = any(name in inputs for name in _STOP_ACTIVE)
    allows = _offers(output, "permissionDecision", "allow")
    if row.pre_action and allows:
        out.append(("allow", W_COP_ALLOW))
    if row.pre_action and allows and row.mutation is MutationMode.INPUT and _field(output, "modifiedArgs") is not None:
        out.append(("rewrite", W_COP_MODIFIED_ARGS))
    if _field(output, "additionalContext") is not None:
        out.append(("feedback" if after_tool and not row.pre_action else "context", W_COP_CONTEXT))
    if stop and _offers(output, "decision", "block") and _field(output, "reason") is not None:
        out.append(("continue", W_BLOCK_REASON))
    return out


def candidates(
    harness: Harness, row: Any, output: dict[str, Any] | None, inputs: dict[str, Any] | None = None
) -> list[tuple[str, str]]:
    """(capability, wire form) pairs the row's catalog schema (``output``, and ``inputs`` to tell a
    row that runs after a tool) and its mutation mode allow, in matrix order."""
    if output is None:
        return []
    if harness is Harness.OPENCODE:
        found = _opencode_candidates(row, output) if row.surface is HookSurface.OPENCODE_NAMED_OUTPUT else []
    elif harness is Harness.GEMINI_CLI:
        found = _gemini_candidates(row, output, inputs or {})
    elif harness is Harness.COPILOT_CLI:
        found = _copilot_candidates(row, output, inputs or {})
    else:
        found = _command_candidates(row, output, inputs or {})
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


def _same_version(capture: AnswerCapture, harness: Harness, version: HostVersion) -> bool:
    try:
        return capture.harness == harness.value and HostVersion.parse(capture.version) == version
    except VersionError:
        return False


def row_answers(
    harness: Harness,
    version: HostVersion,
    row: Any,
    output: dict[str, Any] | None,
    captures: Iterable[AnswerCapture],
    inputs: dict[str, Any] | None = None,
) -> tuple[AnswerForm, ...]:
    """Every form the schema allows for ``row``, each with the captures of this version that tried it."""
    mine = [c for c in captures if c.event == row.name and _same_version(c, harness, version)]
    forms = []
    for capability, wire in candidates(harness, row, output, inputs):
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
    root: Path, contract_id: str, harness: Harness, version: HostVersion, rows: tuple[Any, ...], catalog: Any
) -> dict[str, tuple[AnswerForm, ...]]:
    """Row name -> its answer forms, for every row (no catalog: no forms)."""
    captures = read_answer_captures(root, contract_id)
    out = {}
    for row in rows:
        schema = catalog.event(row.name) if catalog is not None else None
        out[row.name] = row_answers(
            harness,
            version,
            row,
            schema.output if schema is not None else None,
            captures,
            schema.input if schema is not None else None,
        )
    return out
