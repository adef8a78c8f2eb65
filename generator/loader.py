"""Read every profile of a project, check every rule, and build resolved contracts.

Validation runs over everything and collects every problem; nothing is returned (and so nothing
can be written) unless all profiles are clean.
"""

from __future__ import annotations

import gc
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from pydantic import BaseModel, ValidationError

from . import yamlsrc
from .catalog.rules import check as check_against_catalog
from .contracts import Binding, CapabilityBinding, Contract, EventRow, IdentityField, RuntimeContract
from .diagnostics import Problem, ProfileErrors
from .models import (
    AdmissionSpec,
    CapabilityContribution,
    LifecycleFile,
    OperationBinding,
    RuntimeFile,
)
from .versions import Admission, HostVersion, VersionError
from .vocab import (
    HARNESS_SURFACES,
    NATIVE_CALLS,
    STOP_FAMILY_EVENTS,
    SURFACE_FAILURE_MODES,
    UNSUPPORTED_HARNESSES,
    BlockingMode,
    CoreOperation,
    EventSemantic,
    Harness,
    HookSurface,
    MutationMode,
    RuntimeClass,
    StopLoopPolicy,
    members,
)

LIFECYCLE = "lifecycle.yaml"
RUNTIME = "runtime.yaml"
# Native names are identifier-like tokens on every host; anything else is a typo or an injection.
_NATIVE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9._-]*")
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
_CAPABILITY_VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")



def _vocab_table() -> dict[str, Any]:
    from . import vocab

    return {
        "semantic": vocab.EventSemantic,
        "surface": vocab.HookSurface,
        "blocking": vocab.BlockingMode,
        "mutation": vocab.MutationMode,
        "order": vocab.HandlerOrder,
        "reconciliation": vocab.ReconciliationMode,
        "failure": vocab.FailureMode,
        "stop_loop": vocab.StopLoopPolicy,
        "kind": vocab.IdentityKind,
        "unresolved": vocab.IdentityKind,
        "class": vocab.RuntimeClass,
        "operations": vocab.CoreOperation,
    }


@dataclass
class _File:
    """Problems for one profile file, located through its YAML source."""

    rel: str
    src: yamlsrc.Source | None
    contract: str
    problems: list[Problem]

    def add(self, loc: tuple, message: str, fix: str, *, row: str | None = None, field: str | None = None,
            at_key: bool = False) -> None:
        mark = yamlsrc.Mark(1, 1)
        if self.src is not None:
            mark = self.src.keys.get(tuple(loc)) if at_key else None
            mark = mark or self.src.mark(tuple(loc))
        self.problems.append(Problem(self.rel, mark.line, mark.col, self.contract, row, field, message, fix))


@contextmanager
def _no_cycle_collection():
    """Pause the cyclic GC while profiles load.

    Loading allocates a few hundred thousand long-lived objects (YAML nodes, source marks, models) and
    frees almost none, so every collection the allocations trigger walks a growing heap for nothing:
    with the collector on, loading cost per event grew from 0.18 ms at 100 events to 0.43 ms at 5,000
    (benchmarks/bench_generate.py); paused, it stays at ~0.15 ms. Reference counting still frees
    everything acyclic; the collector resumes (and catches up) afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_project(root: Path, only: Iterable[str] | None = None) -> list[Contract]:
    """Load and validate every contract under root/profiles; raise ProfileErrors with all problems."""
    root = Path(root)
    profiles = root / "profiles"
    problems: list[Problem] = []
    contracts: list[Contract] = []
    if not profiles.is_dir():
        raise ProfileErrors([Problem("profiles", 1, 1, "-", None, None, "no profiles/ folder here",
                                     "run in a project root or pass --root DIR")])
    folders = sorted(p for p in profiles.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise ProfileErrors([Problem("profiles", 1, 1, "-", None, None, "profiles/ holds no contract folder",
                                     "add profiles/<harness>@<version>/lifecycle.yaml and runtime.yaml")])
    wanted = set(only) if only else None
    with _no_cycle_collection():
        for folder in folders:
            if wanted is not None and folder.name not in wanted:
                continue
            contract = _load_contract(root, folder, problems)
            if contract is not None:
                contracts.append(contract)
    if wanted is not None:
        for name in sorted(wanted - {f.name for f in folders}):
            problems.append(Problem("profiles", 1, 1, name, None, None, f"no contract {name!r} in profiles/",
                                    "choose one of: " + ", ".join(f.name for f in folders)))
    if problems:
        raise ProfileErrors(problems)
    return contracts


def _rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _read(root: Path, path: Path, contract: str, problems: list[Problem]) -> tuple[_File, Any]:
    rel = _rel(root, path)
    f = _File(rel, None, contract, problems)
    if not path.is_file():
        f.add((), f"missing {path.name}", f"create {rel}; see profiles/README.md for the format")
        return f, None
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        f.add((), f"not UTF-8 text ({exc.reason} at byte {exc.start})", "save the file as UTF-8")
        return f, None
    try:
        f.src = yamlsrc.load(path, text)
    except yamlsrc.YamlProblem as exc:
        problems.append(Problem(rel, exc.mark.line, exc.mark.col, contract, None, None, exc.message, exc.fix))
        return f, None
    if not isinstance(f.src.data, dict):
        f.add((), "the document must be a mapping with a 'contract' key", "see profiles/README.md for the format")
        return f, None
    return f, f.src.data


def _row_name(data: Any, loc: tuple, collection: str) -> str | None:
    """A readable row label for a pydantic error location, e.g. "event PreToolUse"."""
    if len(loc) >= 2 and loc[0] == collection and isinstance(loc[1], int):
        try:
            name = data[collection][loc[1]].get("name" if collection == "events" else "id")
        except (IndexError, KeyError, AttributeError, TypeError):
            name = None
        label = "event" if collection == "events" else collection.rstrip("s")
        return f"{label} {name}" if isinstance(name, str) else f"{label} #{loc[1] + 1}"
    if len(loc) >= 2 and loc[0] == "operations":
        return f"operation {loc[1]}"
    return None


def _dotted(loc: tuple, collection: str) -> str | None:
    """The field path a reader recognises: 'admission.floor', or 'identities.kind' inside a row."""
    parts = list(loc)
    if len(parts) >= 2 and parts[0] in (collection, "operations") and not isinstance(parts[1], str) or (
            len(parts) >= 2 and parts[0] == "operations"):
        parts = parts[2:]
    names = [str(p) for p in parts if isinstance(p, str) and p != "[key]"]
    return ".".join(names) or None


def _article(word: str) -> str:
    return ("an " if word[:1] in "aeiou" else "a ") + word


def _control_chars(f: _File, value: Any, loc: tuple, collection: str) -> None:
    """No profile string may carry control characters (NUL, ESC, CR...); a newline only in prose."""
    if isinstance(value, dict):
        for key, item in value.items():
            _control_chars(f, item, loc + (key,), collection)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _control_chars(f, item, loc + (i,), collection)
    elif isinstance(value, str):
        prose = bool(loc) and loc[-1] in ("note", "instruction", "reason", "result", "context")
        bad = _CONTROL.search(value) or (not prose and "\n" in value)
        if bad:
            char = bad.group(0) if hasattr(bad, "group") else "\n"
            f.add(loc, f"{value!r} contains the control character U+{ord(char):04X}",
                  "remove it: profile strings are single-line text (prose fields may hold newlines)",
                  row=_row_name(f.src.data if f.src else {}, loc, collection), field=_dotted(loc, collection))


def _shape(f: _File, model: type[BaseModel], data: dict, collection: str) -> BaseModel | None:
    _control_chars(f, data, (), collection)
    if _has_problems(f):
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        vocab = _vocab_table()
        for err in exc.errors(include_url=False):
            loc = tuple(err["loc"])
            kind = err["type"]
            field = _dotted(loc, collection)
            row = _row_name(data, loc, collection)
            value = err.get("input")
            if kind == "enum":
                # A map key (operation name) fails with its key as the last loc element.
                name = "operations" if loc[:1] == ("operations",) and len(loc) == 3 and loc[2] == "[key]" else field
                enum = vocab.get(name)
                allowed = members(enum) if enum else err.get("ctx", {}).get("expected", "")
                f.add(loc[:2] if name == "operations" else loc,
                      f"{value!r} is not a member of {name}; allowed: {allowed}",
                      f"use one of: {allowed}", row=row, field=name, at_key=name == "operations")
            elif kind == "missing":
                f.add(loc[:-1], f"required field '{field}' is missing", f"add '{field}:' to this entry",
                      row=row, field=field)
            elif kind == "extra_forbidden":
                allowed = _field_names(model, loc[:-1])
                f.add(loc, f"unknown field '{field}'",
                      f"remove it or correct its spelling; allowed fields: {allowed}", row=row, field=field,
                      at_key=True)
            elif kind in ("string_type", "bool_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
                want = {"string_type": "a string", "bool_type": "true or false", "list_type": "a list",
                        "dict_type": "a mapping"}.get(kind, "a mapping")
                hint = " (quote it)" if kind == "string_type" and not isinstance(value, (dict, list)) else ""
                f.add(loc, f"{value!r} must be {want}{hint}", f"write {want} here{hint}", row=row, field=field)
            else:
                f.add(loc, f"{err['msg']} (got {value!r})", "correct the value", row=row, field=field)
        return None


def _field_names(model: type[BaseModel], loc: tuple) -> str:
    current: Any = model
    for part in loc:
        if isinstance(part, int) or part == "[key]":
            continue
        info = getattr(current, "model_fields", {}).get(part) or next(
            (fi for fi in getattr(current, "model_fields", {}).values() if fi.alias == part), None)
        if info is None:
            break
        ann = info.annotation
        for candidate in getattr(ann, "__args__", ()) + (ann,):
            inner = getattr(candidate, "__args__", ())
            for c in inner + (candidate,):
                if isinstance(c, type) and issubclass(c, BaseModel):
                    current = c
                    break
    names = [fi.alias or name for name, fi in getattr(current, "model_fields", {}).items()]
    return ", ".join(names)


# --- contract identity and admission ----------------------------------------------------------

def _contract_id(f: _File, value: Any, folder: str) -> tuple[Harness, HostVersion] | None:
    loc = ("contract",)
    if not isinstance(value, str):
        return None  # shape validation reports it
    harness_text, sep, version_text = value.partition("@")
    if not sep or not harness_text or not version_text:
        f.add(loc, f"contract id {value!r} is not <harness>@<version>",
              "write e.g. 'claude-code@2.1.261'", field="contract")
        return None
    if harness_text in UNSUPPORTED_HARNESSES:
        f.add(loc, UNSUPPORTED_HARNESSES[harness_text],
              f"remove profiles/{folder}; supported harnesses: {members(Harness)}", field="contract")
        return None
    try:
        harness = Harness(harness_text)
    except ValueError:
        f.add(loc, f"{harness_text!r} is not a member of harness; allowed: {members(Harness)}",
              f"use one of: {members(Harness)}", field="contract")
        return None
    try:
        version = HostVersion.parse(version_text)
    except VersionError as exc:
        f.add(loc, str(exc), "write the host version the contract was recorded against", field="contract")
        return None
    if value != folder:
        f.add(loc, f"contract id {value!r} does not match its folder {folder!r}",
              f"rename the folder to profiles/{value}/ or correct the id", field="contract")
    return harness, version


def _admission(f: _File, spec: AdmissionSpec, recorded: HostVersion | None) -> Admission | None:
    shapes = [name for name, v in (("exact", spec.exact), ("floor", spec.floor), ("from", spec.from_)) if v is not None]
    loc = ("admission",)
    if spec.through is not None and spec.from_ is None:
        f.add(loc + ("through",), "'through' needs 'from'", "add 'from:' (a closed range) or use 'floor:'",
              field="admission")
        return None
    if len(shapes) != 1:
        got = ", ".join(shapes) or "none"
        f.add(loc, f"admission needs exactly one of exact, floor, from+through (got: {got})",
              "keep exactly one shape: 'exact: X', 'floor: X', or 'from: X' with 'through: Y'", field="admission")
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
            f.add(loc + ("include_prereleases",), "an exact admission admits one version; include_prereleases "
                  "has no meaning there", "remove include_prereleases", field="admission.include_prereleases")
            return None
        if version.is_prerelease:
            f.add(loc + ("exact",), f"exact admission {spec.exact!r} is a prerelease; a pinned point is a release",
                  "pin a release, or use from/through with include_prereleases: true", field="admission.exact")
            return None
        admission = Admission.exactly(version)
    elif shape == "floor":
        version = parsed["floor"]
        if spec.include_prereleases:
            f.add(loc + ("include_prereleases",), "a floor never admits prereleases (a prerelease of a later "
                  "release is not that release)", "remove include_prereleases, or use from/through",
                  field="admission.include_prereleases")
            return None
        if version.is_prerelease:
            f.add(loc + ("floor",), f"floor {spec.floor!r} is a prerelease; a floor starts at a release",
                  "use the release version", field="admission.floor")
            return None
        admission = Admission.floor(version)
    else:
        low, high = parsed["from"], parsed.get("through")
        if high is None:
            f.add(loc, "'from' needs 'through' (a closed range)", "add 'through:', or use 'floor:' for no upper "
                  "bound", field="admission")
            return None
        if low > high:
            f.add(loc + ("through",), f"range from {low} through {high} is empty: 'from' exceeds 'through'",
                  "swap the bounds", field="admission.through")
            return None
        if (low.is_prerelease or high.is_prerelease) and not spec.include_prereleases:
            f.add(loc, "a range bound is a prerelease but include_prereleases is false",
                  "set include_prereleases: true, or use release bounds", field="admission")
            return None
        admission = Admission.between(low, high, spec.include_prereleases)
    if recorded is not None and admission.minimum != recorded:
        f.add(loc, f"admission starts at {admission.minimum} but the contract id records {recorded}",
              "the contract id carries the lowest admitted version: make them equal", field="admission")
    return admission


# --- evidence -----------------------------------------------------------------------------------

def _citation(f: _File, root: Path, sources: dict[str, str], value: str | None, loc: tuple, row: str,
              field: str) -> str:
    """Resolve '@name' and check a citation is a URL or an existing repository path."""
    if value is None or not value.strip():
        return ""  # whitespace is no evidence: the row simply has none
    if value != value.strip():
        f.add(loc, f"citation {value!r} has leading or trailing whitespace",
              "trim it to the exact URL or repository path", row=row, field=field)
        return ""
    if value.startswith("@"):
        name = value[1:]
        if name not in sources:
            known = ", ".join(sorted(sources)) or "none"
            f.add(loc, f"citation {value!r} names no entry of 'sources' (known: {known})",
                  "add it under 'sources:' or correct the name", row=row, field=field)
            return ""
        value = sources[name]
    if value.startswith(("https://", "http://")):
        if " " in value or "\n" in value:
            f.add(loc, f"citation URL {value!r} contains whitespace", "write one exact URL", row=row, field=field)
            return ""
        return value
    candidate = Path(value)
    if candidate.is_absolute() or ".." in candidate.parts or "\\" in value:
        f.add(loc, f"citation {value!r} is not a repository-relative path",
              "cite an https URL or a path relative to the project root", row=row, field=field)
        return ""
    if not (root / candidate).exists():
        f.add(loc, f"citation {value!r} is neither a URL nor a path that exists in this repository",
              "commit the cited file, cite the host documentation URL, or leave the evidence empty",
              row=row, field=field)
        return ""
    return value


# --- lifecycle ----------------------------------------------------------------------------------

def _lifecycle(root: Path, folder: Path, problems: list[Problem]):
    f, data = _read(root, folder / LIFECYCLE, folder.name, problems)
    if data is None:
        return None
    ident = _contract_id(f, data.get("contract"), folder.name)
    if ident is not None:
        f.contract = data["contract"]
    model = _shape(f, LifecycleFile, data, "events")
    if model is None:
        return None
    harness, recorded = ident if ident else (None, None)
    admission = _admission(f, model.admission, recorded)
    for name, url in model.sources.items():
        _citation(f, root, {}, url, ("sources", name), f"source {name}", "sources")
    rows = _rows(f, root, model, harness)
    check_against_catalog(f, root, model, harness, recorded)
    if ident is None or admission is None or rows is None or _has_problems(f):
        return None
    return harness, recorded, admission, rows


def _has_problems(f: _File) -> bool:
    return any(p.file == f.rel for p in f.problems)


def _rows(f: _File, root: Path, model: LifecycleFile, harness: Harness | None) -> tuple[EventRow, ...] | None:
    if not model.events:
        f.add(("events",), "the event catalog is empty", "list every native event the host contract declares",
              field="events")
        return None
    seen: dict[str, int] = {}
    out: list[EventRow] = []
    for i, row in enumerate(model.events):
        loc = ("events", i)
        label = f"event {row.name}" if row.name and not any(c.isspace() for c in row.name) else f"event {row.name!r}"
        if row.name == "" or row.name != row.name.strip() or any(c.isspace() for c in row.name):
            f.add(loc + ("name",), f"native name {row.name!r} is empty or contains whitespace",
                  "use the exact native event spelling of the pinned host", row=label, field="name")
        elif not _NATIVE_NAME.fullmatch(row.name):
            f.add(loc + ("name",), f"native name {row.name!r} is not a plain event token (letters, digits, "
                  "'.', '_', '-', starting with a letter)", "use the exact native event spelling of the pinned "
                  "host", row=label, field="name")
        elif row.name in seen:
            f.add(loc + ("name",), f"duplicate native name {row.name!r} (first at row {seen[row.name] + 1})",
                  "each native event appears exactly once; remove or rename one", row=label, field="name")
        seen.setdefault(row.name, i)
        if harness is not None and row.surface not in HARNESS_SURFACES[harness]:
            allowed = ", ".join(s.value for s in HARNESS_SURFACES[harness])
            f.add(loc + ("surface",), f"surface {row.surface.value!r} is not a {harness.value} surface; "
                  f"allowed: {allowed}", f"use one of: {allowed}", row=label, field="surface")
        arms = SURFACE_FAILURE_MODES[row.surface]
        if row.failure not in arms:
            allowed = ", ".join(a.value for a in arms)
            f.add(loc + ("failure",), f"failure mode {row.failure.value!r} does not exist on surface "
                  f"{row.surface.value!r}; allowed: {allowed}", f"use one of: {allowed}", row=label, field="failure")
        if row.blocking is BlockingMode.NONBLOCKING and row.failure.blocks:
            f.add(loc + ("failure",), f"a nonblocking row declares the blocking failure mode {row.failure.value!r}",
                  "declare the surface's non-blocking arm, or correct 'blocking'", row=label, field="failure")
        if row.semantic is not EventSemantic.GATE_CONSULTATION and row.mutation is not MutationMode.NONE:
            f.add(loc + ("mutation",), f"{_article(row.semantic.value)} row declares mutation {row.mutation.value!r}; "
                  "observation and explicit-human-response rows never mutate",
                  "set 'mutation: none'", row=label, field="mutation")
        if row.stop_loop is StopLoopPolicy.CONSULT_WHEN_INACTIVE and row.name not in STOP_FAMILY_EVENTS:
            allowed = ", ".join(sorted(STOP_FAMILY_EVENTS))
            f.add(loc + ("stop_loop",), f"consult-when-inactive applies only to Stop-family events ({allowed})",
                  "set 'stop_loop: not-applicable'", row=label, field="stop_loop")
        evidence = _citation(f, root, model.sources, row.evidence, loc + ("evidence",), label, "evidence")
        if evidence and not row.failure.blocks_by_exit_code:
            # A citation on a row that claims no exit-code block is harmless, but say nothing; it may
            # document the row's other behaviour.
            pass
        fields_seen: dict[str, int] = {}
        for j, ident in enumerate(row.identities):
            iloc = loc + ("identities", j, "field")
            if ident.field == "" or ident.field != ident.field.strip() or any(c.isspace() for c in ident.field):
                f.add(iloc, f"identity field {ident.field!r} is empty or contains whitespace",
                      "use the exact native field name", row=label, field="identities")
            elif not _FIELD_NAME.fullmatch(ident.field):
                f.add(iloc, f"identity field {ident.field!r} is not a plain field name (letters, digits, '_')",
                      "use the exact native field name", row=label, field="identities")
            elif ident.field in fields_seen:
                f.add(iloc, f"duplicate identity field {ident.field!r}",
                      "forward each native identity exactly once: remove the duplicate", row=label,
                      field="identities")
            fields_seen.setdefault(ident.field, j)
        declared_kinds = {ident.kind for ident in row.identities}
        unresolved_seen = set()
        for j, kind in enumerate(row.unresolved):
            if kind in unresolved_seen:
                f.add(loc + ("unresolved", j), f"duplicate unresolved identity kind {kind.value!r}",
                      "list each kind once", row=label, field="unresolved")
            elif kind in declared_kinds:
                f.add(loc + ("unresolved", j), f"identity kind {kind.value!r} is both declared and unresolved",
                      "remove it from 'unresolved' or from 'identities'", row=label, field="unresolved")
            unresolved_seen.add(kind)
        deny = ask = ""
        if row.response is not None:
            rloc = loc + ("response",)
            if not (row.pre_action and row.semantic is EventSemantic.GATE_CONSULTATION):
                f.add(rloc, "response-channel evidence on a row that is not a pre-action gate-consultation",
                      "remove 'response', or mark the row pre_action: true with semantic gate-consultation",
                      row=label, field="response")
            deny = _citation(f, root, model.sources, row.response.deny, rloc + ("deny",), label, "response.deny")
            ask = _citation(f, root, model.sources, row.response.ask, rloc + ("ask",), label, "response.ask")
            if ask and not deny:
                f.add(rloc + ("ask",), "an ask channel without a deny channel",
                      "cite the deny channel too, or remove 'ask'", row=label, field="response.ask")
        if row.matcher is not None and row.surface not in (HookSurface.CLAUDE_COMMAND_JSON,
                                                           HookSurface.CODEX_STRICT_COMMAND_JSON):
            f.add(loc + ("matcher",), f"surface {row.surface.value!r} registers no matcher",
                  "remove 'matcher'", row=label, field="matcher")
        if row.timeout is not None and not 1 <= row.timeout <= 600:
            f.add(loc + ("timeout",), f"timeout {row.timeout} is outside 1..600 seconds",
                  "give the host's cap in whole seconds", row=label, field="timeout")
        out.append(EventRow(
            name=row.name, semantic=row.semantic, surface=row.surface, blocking=row.blocking,
            mutation=row.mutation, order=row.order, reconciliation=row.reconciliation,
            declared_failure=row.failure, evidence=evidence,
            identities=tuple(IdentityField(i.kind, i.field, i.required) for i in row.identities),
            unresolved=tuple(row.unresolved), stop_loop=row.stop_loop, pre_action=row.pre_action,
            deny_evidence=deny, ask_evidence=ask, matcher=row.matcher, timeout=row.timeout, note=row.note or "",
            line=f.src.mark(loc).line if f.src else 0,
        ))
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


def _binding(f: _File, key: str, spec: OperationBinding, loc: tuple, label: str, harness: Harness | None) -> Binding:
    allowed = _CLASS_FIELDS[spec.klass]
    for name in ("call", "arguments", "result", "context", "mediator", "instruction", "reason"):
        value = getattr(spec, name)
        if value is not None and name not in allowed:
            f.add(loc + (name,), f"'{name}' does not belong to {_article(spec.klass.value)} binding "
                  f"(its fields: {', '.join(allowed)})", f"remove '{name}' or change 'class'", row=label, field=name,
                  at_key=True)
    for name in _CLASS_REQUIRED[spec.klass]:
        value = getattr(spec, name)
        if value is None or not value.strip():
            f.add(loc, f"{_article(spec.klass.value)} binding needs a non-empty '{name}'", f"add '{name}:'",
                  row=label, field=name)
    args = tuple(spec.arguments or ())
    if len(set(args)) != len(args):
        f.add(loc + ("arguments",), f"duplicate argument names in {list(args)!r}", "name each argument once",
              row=label, field="arguments")
    if spec.klass is RuntimeClass.NATIVE and spec.call and harness is not None:
        if spec.call not in NATIVE_CALLS[harness]:
            allowed_calls = ", ".join(sorted(NATIVE_CALLS[harness]))
            f.add(loc + ("call",), f"native call {spec.call!r} is not a documented {harness.value} tool; "
                  f"allowed: {allowed_calls}", "bind one of the allowed tools, or lower the operation as "
                  "parent-mediated, semantic-instruction or unsupported", row=label, field="call")
    return Binding(key=key, klass=spec.klass, call=spec.call or "", arguments=args, result=spec.result or "",
                   context=spec.context or "", mediator=spec.mediator or "", instruction=spec.instruction or "",
                   reason=spec.reason or "")


def _capability_version(f: _File, value: str, loc: tuple, label: str, field: str) -> tuple[int, ...] | None:
    if not _CAPABILITY_VERSION.fullmatch(value):
        f.add(loc, f"capability version {value!r} is not MAJOR.MINOR.PATCH", "write e.g. 1.0.0",
              row=label, field=field)
        return None
    return tuple(int(p) for p in value.split("."))


def _runtime(root: Path, folder: Path, problems: list[Problem], contract_id: str | None,
             harness: Harness | None) -> RuntimeContract | None:
    f, data = _read(root, folder / RUNTIME, contract_id or folder.name, problems)
    if data is None:
        return None
    model = _shape(f, RuntimeFile, data, "capabilities")
    if model is None:
        return None
    if contract_id is not None and model.contract != contract_id:
        f.add(("contract",), f"runtime profile names {model.contract!r} but its lifecycle profile is "
              f"{contract_id!r}", f"write 'contract: {contract_id}'", field="contract")
    missing = [op.value for op in CoreOperation if op not in model.operations]
    if missing:
        f.add(("operations",), f"core operations not bound: {', '.join(missing)}",
              "bind every core operation exactly once (native, parent-mediated, semantic-instruction or "
              "unsupported)", field="operations")
    if harness is Harness.OPENCODE:
        stop = model.operations.get(CoreOperation.STOP_ASSIGNMENT)
        if stop is not None and stop.klass is not RuntimeClass.UNSUPPORTED:
            f.add(("operations", "stop_assignment", "class"), "OpenCode documents no tool that stops a running "
                  "assignment; stop_assignment must be unsupported there", "set 'class: unsupported' with a reason",
                  row="operation stop_assignment", field="class")
    operations = tuple(
        _binding(f, op.value, model.operations[op], ("operations", op.value), f"operation {op.value}", harness)
        for op in CoreOperation if op in model.operations
    )
    effects: list[Binding] = []
    seen_effects: dict[str, int] = {}
    for i, eff in enumerate(model.effects):
        label = f"effect {eff.id}"
        if eff.id in seen_effects:
            f.add(("effects", i, "id"), f"duplicate effect {eff.id!r}", "bind each effect once", row=label,
                  field="id")
        seen_effects.setdefault(eff.id, i)
        effects.append(_binding(f, eff.id, eff, ("effects", i), label, harness))
    caps = _capabilities(f, model, harness)
    if _has_problems(f):
        return None
    return RuntimeContract(operations=operations, effects=tuple(effects), capabilities=caps)


def _capabilities(f: _File, model: RuntimeFile, harness: Harness | None) -> tuple[CapabilityBinding, ...]:
    requested: dict[str, tuple[str, int]] = {}
    for i, req in enumerate(model.requested_capabilities):
        label = f"capability {req.id}"
        if req.id in requested:
            f.add(("requested_capabilities", i, "id"), f"capability {req.id!r} is requested twice",
                  "request each capability once", row=label, field="id")
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
            f.add(loc + ("id",), f"{'duplicate' if same else 'conflicting'} contribution for capability "
                  f"{cap.id!r} (first at entry {contributed[cap.id][1] + 1})",
                  "contribute each capability exactly once", row=label, field="id")
            continue
        contributed[cap.id] = (cap, i)
        if cap.id not in requested:
            f.add(loc + ("id",), f"capability {cap.id!r} is contributed but not requested",
                  "add it to 'requested_capabilities' or remove the contribution", row=label, field="id")
            continue
        low = _capability_version(f, cap.supports.from_, loc + ("supports", "from"), label, "supports.from")
        high = _capability_version(f, cap.supports.through, loc + ("supports", "through"), label, "supports.through")
        want_text = requested[cap.id][0]
        want = _CAPABILITY_VERSION.fullmatch(want_text) and tuple(int(p) for p in want_text.split("."))
        if low and high:
            if low > high:
                f.add(loc + ("supports",), f"capability range from {cap.supports.from_} through "
                      f"{cap.supports.through} is empty", "swap the bounds", row=label, field="supports")
            elif want and not (low <= want <= high):
                f.add(loc + ("supports",), f"requested version {want_text} is outside the contributed range "
                      f"from {cap.supports.from_} through {cap.supports.through}",
                      "widen the range or contribute a binding for the requested version", row=label,
                      field="supports")
        binding = _binding(f, cap.id, cap, loc, label, harness)
        out.append(CapabilityBinding(binding, want_text, cap.supports.from_, cap.supports.through))
    for cap_id, (_, i) in requested.items():
        if cap_id not in contributed:
            f.add(("requested_capabilities", i, "id"), f"requested capability {cap_id!r} has no contribution",
                  "contribute exactly one binding for it under 'capabilities'", row=f"capability {cap_id}",
                  field="id")
    return tuple(out)


def _load_contract(root: Path, folder: Path, problems: list[Problem]) -> Contract | None:
    before = len(problems)
    life = _lifecycle(root, folder, problems)
    contract_id = folder.name
    harness = None
    if life is not None:
        harness = life[0]
    else:
        # Still check the runtime profile, against the id the folder claims, so every problem shows.
        text = folder.name.partition("@")[0]
        harness = Harness(text) if text in Harness._value2member_map_ else None
    runtime = _runtime(root, folder, problems, contract_id, harness)
    if life is None or runtime is None or len(problems) != before:
        return None
    harness, version, admission, rows = life
    return Contract(
        id=contract_id, harness=harness, version=version, admission=admission, events=rows, runtime=runtime,
        folder=_rel(root, folder), lifecycle_file=_rel(root, folder / LIFECYCLE),
        runtime_file=_rel(root, folder / RUNTIME),
    )
