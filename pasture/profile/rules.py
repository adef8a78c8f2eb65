"""The rules a profile must satisfy beyond its shape, and the resolved contract they produce.

`reading.py` turns a file into a shaped model (models.py); the functions here check every cross-field
rule on it (identity, admission, citations, per-row surface/failure/mutation consistency, runtime
bindings and capabilities) and build the derived view in `contracts.py`. Each adds every problem it
finds to the file's ProfileFile and returns None where the result would be unusable.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pasture.profile.contracts import Binding, CapabilityBinding, EventRow, IdentityField, RuntimeContract
from pasture.profile.hostview import ProfileHost
from pasture.profile.models import AdmissionSpec, CapabilityContribution, LifecycleFile, OperationBinding, RuntimeFile
from pasture.profile.reading import ProfileFile
from pasture.profile.versions import Admission, HostVersion, VersionError
from pasture.profile.vocab import (
    CONTRACT_ID_EXAMPLE,
    MATCHER_SURFACES,
    STOP_FAMILY_EVENTS,
    SURFACE_FAILURE_MODES,
    UNSUPPORTED_HARNESSES,
    BlockingMode,
    CoreOperation,
    EventSemantic,
    Harness,
    MutationMode,
    RuntimeClass,
    StopLoopPolicy,
    members,
)

# Native names are identifier-like tokens on every host; anything else is a typo or an injection.
_NATIVE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAPABILITY_VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


# --- contract identity and admission ----------------------------------------------------------


def contract_identity(f: ProfileFile, value: Any, folder: str) -> tuple[Harness, HostVersion] | None:
    loc = ("contract",)
    if not isinstance(value, str):
        return None  # shape validation reports it
    harness_text, sep, version_text = value.partition("@")
    if not sep or not harness_text or not version_text:
        f.add(
            loc,
            f"contract id {value!r} is not <harness>@<version>",
            f"write e.g. '{CONTRACT_ID_EXAMPLE}'",
            field="contract",
        )
        return None
    if harness_text in UNSUPPORTED_HARNESSES:
        f.add(
            loc,
            UNSUPPORTED_HARNESSES[harness_text],
            f"remove profiles/{folder}; supported harnesses: {members(Harness)}",
            field="contract",
        )
        return None
    try:
        harness = Harness(harness_text)
    except ValueError:
        f.add(
            loc,
            f"{harness_text!r} is not a member of harness; allowed: {members(Harness)}",
            f"use one of: {members(Harness)}",
            field="contract",
        )
        return None
    try:
        version = HostVersion.parse(version_text)
    except VersionError as exc:
        f.add(loc, str(exc), "write the host version the contract was recorded against", field="contract")
        return None
    if value != folder:
        f.add(
            loc,
            f"contract id {value!r} does not match its folder {folder!r}",
            f"rename the folder to profiles/{value}/ or correct the id",
            field="contract",
        )
    return harness, version


def resolve_admission(f: ProfileFile, spec: AdmissionSpec, recorded: HostVersion | None) -> Admission | None:
    shapes = [name for name, v in (("exact", spec.exact), ("floor", spec.floor), ("from", spec.from_)) if v is not None]
    loc = ("admission",)
    if spec.through is not None and spec.from_ is None:
        f.add(
            loc + ("through",),
            "'through' needs 'from'",
            "add 'from:' (a closed range) or use 'floor:'",
            field="admission",
        )
        return None
    if len(shapes) != 1:
        got = ", ".join(shapes) or "none"
        f.add(
            loc,
            f"admission needs exactly one of exact, floor, from+through (got: {got})",
            "keep exactly one shape: 'exact: X', 'floor: X', or 'from: X' with 'through: Y'",
            field="admission",
        )
        return None
    parsed: dict[str, HostVersion] = {}
    for key, value in (("exact", spec.exact), ("floor", spec.floor), ("from", spec.from_), ("through", spec.through)):
        if value is None:
            continue
        try:
            parsed[key] = HostVersion.parse(value)
        except VersionError as exc:
            f.add(loc + (key,), str(exc), "write MAJOR.MINOR.PATCH, e.g. 2.1.261", field=f"admission.{key}")
    if len(parsed) != len([v for v in (spec.exact, spec.floor, spec.from_, spec.through) if v is not None]):
        return None
    shape = shapes[0]
    if shape == "exact":
        version = parsed["exact"]
        if spec.include_prereleases:
            f.add(
                loc + ("include_prereleases",),
                "an exact admission admits one version; include_prereleases has no meaning there",
                "remove include_prereleases",
                field="admission.include_prereleases",
            )
            return None
        if version.is_prerelease:
            f.add(
                loc + ("exact",),
                f"exact admission {spec.exact!r} is a prerelease; a pinned point is a release",
                "pin a release, or use from/through with include_prereleases: true",
                field="admission.exact",
            )
            return None
        admission = Admission.exactly(version)
    elif shape == "floor":
        version = parsed["floor"]
        if spec.include_prereleases:
            f.add(
                loc + ("include_prereleases",),
                "a floor never admits prereleases (a prerelease of a later release is not that release)",
                "remove include_prereleases, or use from/through",
                field="admission.include_prereleases",
            )
            return None
        if version.is_prerelease:
            f.add(
                loc + ("floor",),
                f"floor {spec.floor!r} is a prerelease; a floor starts at a release",
                "use the release version",
                field="admission.floor",
            )
            return None
        admission = Admission.floor(version)
    else:
        low, high = parsed["from"], parsed.get("through")
        if high is None:
            f.add(
                loc,
                "'from' needs 'through' (a closed range)",
                "add 'through:', or use 'floor:' for no upper bound",
                field="admission",
            )
            return None
        if low > high:
            f.add(
                loc + ("through",),
                f"range from {low} through {high} is empty: 'from' exceeds 'through'",
                "swap the bounds",
                field="admission.through",
            )
            return None
        if (low.is_prerelease or high.is_prerelease) and not spec.include_prereleases:
            f.add(
                loc,
                "a range bound is a prerelease but include_prereleases is false",
                "set include_prereleases: true, or use release bounds",
                field="admission",
            )
            return None
        admission = Admission.between(low, high, spec.include_prereleases)
    if recorded is not None and admission.minimum != recorded:
        f.add(
            loc,
            f"admission starts at {admission.minimum} but the contract id records {recorded}",
            "the contract id carries the lowest admitted version: make them equal",
            field="admission",
        )
    return admission


# --- evidence -----------------------------------------------------------------------------------


def resolve_citation(
    f: ProfileFile, root: Path, sources: dict[str, str], value: str | None, loc: tuple, row: str, field: str
) -> str:
    """Resolve '@name' and check a citation is a URL or an existing repository path."""
    if value is None or not value.strip():
        return ""  # whitespace is no evidence: the row simply has none
    if value != value.strip():
        f.add(
            loc,
            f"citation {value!r} has leading or trailing whitespace",
            "trim it to the exact URL or repository path",
            row=row,
            field=field,
        )
        return ""
    if value.startswith("@"):
        name = value[1:]
        if name not in sources:
            known = ", ".join(sorted(sources)) or "none"
            f.add(
                loc,
                f"citation {value!r} names no entry of 'sources' (known: {known})",
                "add it under 'sources:' or correct the name",
                row=row,
                field=field,
            )
            return ""
        value = sources[name]
    if value.startswith(("https://", "http://")):
        if " " in value or "\n" in value:
            f.add(loc, f"citation URL {value!r} contains whitespace", "write one exact URL", row=row, field=field)
            return ""
        return value
    candidate = Path(value)
    if candidate.is_absolute() or ".." in candidate.parts or "\\" in value:
        f.add(
            loc,
            f"citation {value!r} is not a repository-relative path",
            "cite an https URL or a path relative to the project root",
            row=row,
            field=field,
        )
        return ""
    if not (root / candidate).exists():
        f.add(
            loc,
            f"citation {value!r} is neither a URL nor a path that exists in this repository",
            "commit the cited file, cite the host documentation URL, or leave the evidence empty",
            row=row,
            field=field,
        )
        return ""
    if f.cited is not None:
        f.cited.add(value)
    return value


def resolve_rows(
    f: ProfileFile, root: Path, model: LifecycleFile, harness: Harness | None, host: ProfileHost | None
) -> tuple[EventRow, ...] | None:
    if not model.events:
        f.add(
            ("events",),
            "the event catalog is empty",
            "list every native event the host contract declares",
            field="events",
        )
        return None
    seen: dict[str, int] = {}
    out: list[EventRow] = []
    for i, row in enumerate(model.events):
        loc = ("events", i)
        label = f"event {row.name}" if row.name and not any(c.isspace() for c in row.name) else f"event {row.name!r}"
        if row.name == "" or row.name != row.name.strip() or any(c.isspace() for c in row.name):
            f.add(
                loc + ("name",),
                f"native name {row.name!r} is empty or contains whitespace",
                "use the exact native event spelling of the pinned host",
                row=label,
                field="name",
            )
        elif not _NATIVE_NAME.fullmatch(row.name):
            f.add(
                loc + ("name",),
                f"native name {row.name!r} is not a plain event token (letters, digits, "
                "'.', '_', '-', starting with a letter)",
                "use the exact native event spelling of the pinned host",
                row=label,
                field="name",
            )
        elif row.name in seen:
            f.add(
                loc + ("name",),
                f"duplicate native name {row.name!r} (first at row {seen[row.name] + 1})",
                "each native event appears exactly once; remove or rename one",
                row=label,
                field="name",
            )
        seen.setdefault(row.name, i)
        if harness is not None and host is not None and row.surface not in host.surfaces:
            allowed = ", ".join(s.value for s in host.surfaces)
            f.add(
                loc + ("surface",),
                f"surface {row.surface.value!r} is not a {harness.value} surface; allowed: {allowed}",
                f"use one of: {allowed}",
                row=label,
                field="surface",
            )
        arms = SURFACE_FAILURE_MODES[row.surface]
        if row.failure not in arms:
            allowed = ", ".join(a.value for a in arms)
            f.add(
                loc + ("failure",),
                f"failure mode {row.failure.value!r} does not exist on surface "
                f"{row.surface.value!r}; allowed: {allowed}",
                f"use one of: {allowed}",
                row=label,
                field="failure",
            )
        if row.blocking is BlockingMode.NONBLOCKING and row.failure.blocks:
            f.add(
                loc + ("failure",),
                f"a nonblocking row declares the blocking failure mode {row.failure.value!r}",
                "declare the surface's non-blocking arm, or correct 'blocking'",
                row=label,
                field="failure",
            )
        if row.semantic is not EventSemantic.GATE_CONSULTATION and row.mutation is not MutationMode.NONE:
            f.add(
                loc + ("mutation",),
                f"{_article(row.semantic.value)} row declares mutation {row.mutation.value!r}; "
                "observation and explicit-human-response rows never mutate",
                "set 'mutation: none'",
                row=label,
                field="mutation",
            )
        if row.stop_loop is StopLoopPolicy.CONSULT_WHEN_INACTIVE and row.name not in STOP_FAMILY_EVENTS:
            allowed = ", ".join(sorted(STOP_FAMILY_EVENTS))
            f.add(
                loc + ("stop_loop",),
                f"consult-when-inactive applies only to Stop-family events ({allowed})",
                "set 'stop_loop: not-applicable'",
                row=label,
                field="stop_loop",
            )
        evidence = resolve_citation(f, root, model.sources, row.evidence, loc + ("evidence",), label, "evidence")
        if evidence and not row.failure.blocks_by_exit_code:
            # A citation on a row that claims no exit-code block is harmless, but say nothing; it may
            # document the row's other behaviour.
            pass
        fields_seen: dict[str, int] = {}
        for j, ident in enumerate(row.identities):
            iloc = loc + ("identities", j, "field")
            if ident.field == "" or ident.field != ident.field.strip() or any(c.isspace() for c in ident.field):
                f.add(
                    iloc,
                    f"identity field {ident.field!r} is empty or contains whitespace",
                    "use the exact native field name",
                    row=label,
                    field="identities",
                )
            elif not _FIELD_NAME.fullmatch(ident.field):
                f.add(
                    iloc,
                    f"identity field {ident.field!r} is not a plain field name (letters, digits, '_')",
                    "use the exact native field name",
                    row=label,
                    field="identities",
                )
            elif ident.field in fields_seen:
                f.add(
                    iloc,
                    f"duplicate identity field {ident.field!r}",
                    "forward each native identity exactly once: remove the duplicate",
                    row=label,
                    field="identities",
                )
            fields_seen.setdefault(ident.field, j)
        declared_kinds = {ident.kind for ident in row.identities}
        unresolved_seen = set()
        for j, kind in enumerate(row.unresolved):
            if kind in unresolved_seen:
                f.add(
                    loc + ("unresolved", j),
                    f"duplicate unresolved identity kind {kind.value!r}",
                    "list each kind once",
                    row=label,
                    field="unresolved",
                )
            elif kind in declared_kinds:
                f.add(
                    loc + ("unresolved", j),
                    f"identity kind {kind.value!r} is both declared and unresolved",
                    "remove it from 'unresolved' or from 'identities'",
                    row=label,
                    field="unresolved",
                )
            unresolved_seen.add(kind)
        deny = ask = ""
        if row.response is not None:
            rloc = loc + ("response",)
            if not (row.pre_action and row.semantic is EventSemantic.GATE_CONSULTATION):
                f.add(
                    rloc,
                    "response-channel evidence on a row that is not a pre-action gate-consultation",
                    "remove 'response', or mark the row pre_action: true with semantic gate-consultation",
                    row=label,
                    field="response",
                )
            deny = resolve_citation(f, root, model.sources, row.response.deny, rloc + ("deny",), label, "response.deny")
            ask = resolve_citation(f, root, model.sources, row.response.ask, rloc + ("ask",), label, "response.ask")
            if ask and not deny:
                f.add(
                    rloc + ("ask",),
                    "an ask channel without a deny channel",
                    "cite the deny channel too, or remove 'ask'",
                    row=label,
                    field="response.ask",
                )
        if row.matcher is not None and row.surface not in MATCHER_SURFACES:
            f.add(
                loc + ("matcher",),
                f"surface {row.surface.value!r} registers no matcher",
                "remove 'matcher'",
                row=label,
                field="matcher",
            )
        if row.timeout is not None and not 1 <= row.timeout <= 600:
            f.add(
                loc + ("timeout",),
                f"timeout {row.timeout} is outside 1..600 seconds",
                "give the host's cap in whole seconds",
                row=label,
                field="timeout",
            )
        out.append(
            EventRow(
                name=row.name,
                semantic=row.semantic,
                surface=row.surface,
                blocking=row.blocking,
                mutation=row.mutation,
                order=row.order,
                reconciliation=row.reconciliation,
                declared_failure=row.failure,
                evidence=evidence,
                identities=tuple(IdentityField(i.kind, i.field, i.required) for i in row.identities),
                unresolved=tuple(row.unresolved),
                stop_loop=row.stop_loop,
                pre_action=row.pre_action,
                deny_evidence=deny,
                ask_evidence=ask,
                matcher=row.matcher,
                timeout=row.timeout,
                note=row.note or "",
                line=f.src.mark(loc).line if f.src else 0,
            )
        )
    return tuple(out)


# --- runtime ------------------------------------------------------------------------------------

_CLASS_FIELDS = {
    RuntimeClass.NATIVE: ("call", "arguments", "result", "context"),
    RuntimeClass.PARENT_MEDIATED: ("mediator", "instruction"),
    RuntimeClass.SEMANTIC_INSTRUCTION: ("instruction",),
    RuntimeClass.UNSUPPORTED: ("reason",),
}
_CLASS_REQUIRED = {
    RuntimeClass.NATIVE: ("call", "result"),
    RuntimeClass.PARENT_MEDIATED: ("mediator", "instruction"),
    RuntimeClass.SEMANTIC_INSTRUCTION: ("instruction",),
    RuntimeClass.UNSUPPORTED: ("reason",),
}


def resolve_binding(
    f: ProfileFile,
    key: str,
    spec: OperationBinding,
    loc: tuple,
    label: str,
    harness: Harness | None,
    host: ProfileHost | None,
) -> Binding:
    allowed = _CLASS_FIELDS[spec.klass]
    for name in ("call", "arguments", "result", "context", "mediator", "instruction", "reason"):
        value = getattr(spec, name)
        if value is not None and name not in allowed:
            f.add(
                loc + (name,),
                f"'{name}' does not belong to {_article(spec.klass.value)} binding (its fields: {', '.join(allowed)})",
                f"remove '{name}' or change 'class'",
                row=label,
                field=name,
                at_key=True,
            )
    for name in _CLASS_REQUIRED[spec.klass]:
        value = getattr(spec, name)
        if value is None or not value.strip():
            f.add(
                loc,
                f"{_article(spec.klass.value)} binding needs a non-empty '{name}'",
                f"add '{name}:'",
                row=label,
                field=name,
            )
    args = tuple(spec.arguments or ())
    if len(set(args)) != len(args):
        f.add(
            loc + ("arguments",),
            f"duplicate argument names in {list(args)!r}",
            "name each argument once",
            row=label,
            field="arguments",
        )
    if spec.klass is RuntimeClass.NATIVE and spec.call and harness is not None and host is not None:
        if spec.call not in host.native_calls:
            allowed_calls = ", ".join(sorted(host.native_calls))
            f.add(
                loc + ("call",),
                f"native call {spec.call!r} is not a documented {harness.value} tool; allowed: {allowed_calls}",
                "bind one of the allowed tools, or lower the operation as "
                "parent-mediated, semantic-instruction or unsupported",
                row=label,
                field="call",
            )
    return Binding(
        key=key,
        klass=spec.klass,
        call=spec.call or "",
        arguments=args,
        result=spec.result or "",
        context=spec.context or "",
        mediator=spec.mediator or "",
        instruction=spec.instruction or "",
        reason=spec.reason or "",
    )


def _capability_version(f: ProfileFile, value: str, loc: tuple, label: str, field: str) -> tuple[int, ...] | None:
    if not _CAPABILITY_VERSION.fullmatch(value):
        f.add(loc, f"capability version {value!r} is not MAJOR.MINOR.PATCH", "write e.g. 1.0.0", row=label, field=field)
        return None
    return tuple(int(p) for p in value.split("."))


def runtime_contract(
    f: ProfileFile, model: RuntimeFile, contract_id: str | None, harness: Harness | None, host: ProfileHost | None
) -> RuntimeContract | None:
    """The resolved runtime of a shaped runtime.yaml, or None when any rule failed (problems in f)."""
    if contract_id is not None and model.contract != contract_id:
        f.add(
            ("contract",),
            f"runtime profile names {model.contract!r} but its lifecycle profile is {contract_id!r}",
            f"write 'contract: {contract_id}'",
            field="contract",
        )
    missing = [op.value for op in CoreOperation if op not in model.operations]
    if missing:
        f.add(
            ("operations",),
            f"core operations not bound: {', '.join(missing)}",
            "bind every core operation exactly once (native, parent-mediated, semantic-instruction or unsupported)",
            field="operations",
        )
    for op in CoreOperation:
        why = host.unsupported_operations.get(op.value) if harness is not None and host is not None else None
        bound = model.operations.get(op)
        if why and bound is not None and bound.klass is not RuntimeClass.UNSUPPORTED:
            f.add(
                ("operations", op.value, "class"),
                f"{why}; {op.value} must be unsupported there",
                "set 'class: unsupported' with a reason",
                row=f"operation {op.value}",
                field="class",
            )
    operations = tuple(
        resolve_binding(
            f, op.value, model.operations[op], ("operations", op.value), f"operation {op.value}", harness, host
        )
        for op in CoreOperation
        if op in model.operations
    )
    effects: list[Binding] = []
    seen_effects: dict[str, int] = {}
    for i, eff in enumerate(model.effects):
        label = f"effect {eff.id}"
        if eff.id in seen_effects:
            f.add(("effects", i, "id"), f"duplicate effect {eff.id!r}", "bind each effect once", row=label, field="id")
        seen_effects.setdefault(eff.id, i)
        effects.append(resolve_binding(f, eff.id, eff, ("effects", i), label, harness, host))
    caps = resolve_capabilities(f, model, harness, host)
    if f.has_problems():
        return None
    return RuntimeContract(operations=operations, effects=tuple(effects), capabilities=caps)


def resolve_capabilities(
    f: ProfileFile, model: RuntimeFile, harness: Harness | None, host: ProfileHost | None
) -> tuple[CapabilityBinding, ...]:
    requested: dict[str, tuple[str, int]] = {}
    for i, req in enumerate(model.requested_capabilities):
        label = f"capability {req.id}"
        if req.id in requested:
            f.add(
                ("requested_capabilities", i, "id"),
                f"capability {req.id!r} is requested twice",
                "request each capability once",
                row=label,
                field="id",
            )
            continue
        _capability_version(f, req.version, ("requested_capabilities", i, "version"), label, "version")
        requested[req.id] = (req.version, i)
    contributed: dict[str, tuple[CapabilityContribution, int]] = {}
    out: list[CapabilityBinding] = []
    for i, cap in enumerate(model.capabilities):
        label = f"capability {cap.id}"
        loc = ("capabilities", i)
        if cap.id in contributed:
            first = contributed[cap.id][0]
            same = first.model_dump(by_alias=True) == cap.model_dump(by_alias=True)
            f.add(
                loc + ("id",),
                f"{'duplicate' if same else 'conflicting'} contribution for capability "
                f"{cap.id!r} (first at entry {contributed[cap.id][1] + 1})",
                "contribute each capability exactly once",
                row=label,
                field="id",
            )
            continue
        contributed[cap.id] = (cap, i)
        if cap.id not in requested:
            f.add(
                loc + ("id",),
                f"capability {cap.id!r} is contributed but not requested",
                "add it to 'requested_capabilities' or remove the contribution",
                row=label,
                field="id",
            )
            continue
        low = _capability_version(f, cap.supports.from_, loc + ("supports", "from"), label, "supports.from")
        high = _capability_version(f, cap.supports.through, loc + ("supports", "through"), label, "supports.through")
        want_text = requested[cap.id][0]
        want = _CAPABILITY_VERSION.fullmatch(want_text) and tuple(int(p) for p in want_text.split("."))
        if low and high:
            if low > high:
                f.add(
                    loc + ("supports",),
                    f"capability range from {cap.supports.from_} through {cap.supports.through} is empty",
                    "swap the bounds",
                    row=label,
                    field="supports",
                )
            elif want and not (low <= want <= high):
                f.add(
                    loc + ("supports",),
                    f"requested version {want_text} is outside the contributed range "
                    f"from {cap.supports.from_} through {cap.supports.through}",
                    "widen the range or contribute a binding for the requested version",
                    row=label,
                    field="supports",
                )
        binding = resolve_binding(f, cap.id, cap, loc, label, harness, host)
        out.append(CapabilityBinding(binding, want_text, cap.supports.from_, cap.supports.through))
    for cap_id, (_, i) in requested.items():
        if cap_id not in contributed:
            f.add(
                ("requested_capabilities", i, "id"),
                f"requested capability {cap_id!r} has no contribution",
                "contribute exactly one binding for it under 'capabilities'",
                row=f"capability {cap_id}",
                field="id",
            )
    return tuple(out)
