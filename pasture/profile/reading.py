"""Reading one profile file: bytes -> located YAML -> the pydantic model of its shape.

Every problem is collected with file:line:col (through yamlsrc's marks) instead of raised, so one run
reports everything. Cross-field rules on the shaped model live in `rules.py`; `loader.py` runs both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pasture.profile import yamlsrc
from pasture.profile.diagnostics import Problem
from pasture.profile.vocab import members

ModelT = TypeVar("ModelT", bound=BaseModel)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def _vocab_table() -> dict[str, Any]:
    from pasture.profile import vocab

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
class ProfileFile:
    """Problems for one profile file, located through its YAML source."""

    rel: str
    src: yamlsrc.Source | None
    contract: str
    problems: list[Problem]
    cited: set[str] | None = None  # collects the repository paths citations resolved to (check/quick.py)

    def add(
        self,
        loc: tuple,
        message: str,
        fix: str,
        *,
        row: str | None = None,
        field: str | None = None,
        at_key: bool = False,
    ) -> None:
        mark = yamlsrc.Mark(1, 1)
        if self.src is not None:
            at = self.src.keys.get(tuple(loc)) if at_key else None
            mark = at or self.src.mark(tuple(loc))
        self.problems.append(Problem(self.rel, mark.line, mark.col, self.contract, row, field, message, fix))

    def has_problems(self) -> bool:
        return any(p.file == self.rel for p in self.problems)


def relpath(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def read_yaml(
    root: Path, path: Path, contract: str, problems: list[Problem], cited: set[str] | None = None
) -> tuple[ProfileFile, Any]:
    rel = relpath(root, path)
    f = ProfileFile(rel, None, contract, problems, cited)
    if not path.is_file():
        f.add((), f"missing {path.name}", f"create {rel}; see profiles/README.md for the format")
        return f, None
    size = path.stat().st_size
    if size > yamlsrc.MAX_BYTES:
        f.add(
            (),
            f"profile is {size:,} bytes; a profile may hold at most {yamlsrc.MAX_BYTES:,}",
            "split the host's events across contracts, or remove what the host does not declare",
        )
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
    if (
        len(parts) >= 2
        and parts[0] in (collection, "operations")
        and not isinstance(parts[1], str)
        or (len(parts) >= 2 and parts[0] == "operations")
    ):
        parts = parts[2:]
    names = [str(p) for p in parts if isinstance(p, str) and p != "[key]"]
    return ".".join(names) or None


def _control_chars(f: ProfileFile, value: Any, loc: tuple, collection: str) -> None:
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
            char = bad.group(0) if isinstance(bad, re.Match) else "\n"
            f.add(
                loc,
                f"{value!r} contains the control character U+{ord(char):04X}",
                "remove it: profile strings are single-line text (prose fields may hold newlines)",
                row=_row_name(f.src.data if f.src else {}, loc, collection),
                field=_dotted(loc, collection),
            )


def validate_shape(f: ProfileFile, model: type[ModelT], data: dict, collection: str) -> ModelT | None:
    _control_chars(f, data, (), collection)
    if f.has_problems():
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
                enum = vocab.get(name) if name is not None else None
                allowed = members(enum) if enum else err.get("ctx", {}).get("expected", "")
                f.add(
                    loc[:2] if name == "operations" else loc,
                    f"{value!r} is not a member of {name}; allowed: {allowed}",
                    f"use one of: {allowed}",
                    row=row,
                    field=name,
                    at_key=name == "operations",
                )
            elif kind == "missing":
                f.add(
                    loc[:-1],
                    f"required field '{field}' is missing",
                    f"add '{field}:' to this entry",
                    row=row,
                    field=field,
                )
            elif kind == "extra_forbidden":
                allowed = _field_names(model, loc[:-1])
                f.add(
                    loc,
                    f"unknown field '{field}'",
                    f"remove it or correct its spelling; allowed fields: {allowed}",
                    row=row,
                    field=field,
                    at_key=True,
                )
            elif kind in ("string_type", "bool_type", "list_type", "dict_type", "model_type", "model_attributes_type"):
                want = {
                    "string_type": "a string",
                    "bool_type": "true or false",
                    "list_type": "a list",
                    "dict_type": "a mapping",
                }.get(kind, "a mapping")
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
            (fi for fi in getattr(current, "model_fields", {}).values() if fi.alias == part), None
        )
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
