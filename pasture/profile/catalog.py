"""A host's own catalog of lifecycle events, as committed in ``captures/<harness>@<version>/catalog.json``.

One catalog per host version, extracted from what the host ships (never from our notes):

* Claude Code: the hook input/output schemas and the list of valid hook events bundled into the
  CLI binary (``@anthropic-ai/claude-code``, native binary from its platform package).
* Codex CLI: the ``*.command.input`` / ``*.command.output`` JSON Schemas embedded in the binary
  (``@openai/codex``, native binary from its platform package; codex-rs ``hooks/schema``).
* OpenCode: the plugin ``Hooks`` interface of ``@opencode-ai/plugin``, the bus ``Event`` unions of
  ``@opencode-ai/sdk`` (v1 and v2 typings of the same version), and how often the shipped binary
  calls each named hook (``trigger("<name>"``).
* Pi: the ``ExtensionAPI.on`` overloads of ``@mariozechner/pi-coding-agent`` (pasture.catalog.pi).

File format (JSON, sorted keys, two-space indent, UTF-8, one trailing newline)::

    {"catalog_format": 1, "generated_by": "pasture catalog extract", "harness": ..., "host_version": ...,
     "refresh": "<the command that rewrites this file>",
     "sources": [{"package", "version", "file", "sha256", "read"}],
     "events": [{"name", "kind": "hook" | "bus", "input": {field: spec}, "output": {field: spec},
                 "host_calls": <int> | null, "pre_action": true (Pi: a refusal field the host reads),
                 "sources": [<package>...]}]}

A field spec is ``{"required": bool, "type": ..., "values": [...], "fields": {...}, "variants": [...]}``
(``values`` for enums and literals, ``fields`` for objects, ``variants`` for a union of objects).
Descriptions are never copied: a catalog records structure only.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from pasture import PastureError

CATALOG_FORMAT = 1
CATALOG_FILE = "catalog.json"
#: The decisions a host can read back from an event's output, by the value that names them.
DECISION_WORDS = ("deny", "ask", "defer", "block")


class CatalogError(PastureError, ValueError):
    """A catalog could not be read or extracted."""


def catalog_path(root: Path, harness: str, version: str) -> Path:
    return Path(root) / "captures" / f"{harness}@{version}" / CATALOG_FILE


def dump(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _values(spec: dict[str, Any], path: str) -> Iterable[tuple[str, Any]]:
    for value in spec.get("values") or []:
        yield path, value
    for name, sub in sorted((spec.get("fields") or {}).items()):
        yield from _values(sub, f"{path}.{name}" if path else name)
    for variant in spec.get("variants") or []:
        for name, sub in sorted((variant.get("fields") or {}).items()):
            yield from _values(sub, f"{path}.{name}" if path else name)
    of = spec.get("of")
    for sub in of if isinstance(of, list) else [of] if of else []:
        if isinstance(sub, dict):
            yield from _values(sub, path)


@dataclass(frozen=True)
class EventSchema:
    name: str
    kind: str  # "hook" (named hook / command hook) or "bus" (an event of the host's catch-all bus)
    input: dict[str, Any]
    output: dict[str, Any]
    host_calls: int | None = None  # call sites of this hook in the shipped code, where the reader counts them
    pre_action: bool | None = None  # Pi: the reader saw a refusal field (block, cancel) the host reads first

    def decisions(self) -> dict[str, list[str]]:
        """Decision word -> the output paths that can carry it (e.g. deny -> hookSpecificOutput.permissionDecision)."""
        out: dict[str, list[str]] = {}
        for path, value in _values({"fields": self.output}, ""):
            if isinstance(value, str) and value in DECISION_WORDS and path not in out.setdefault(value, []):
                out[value].append(path)
        return {k: v for k, v in out.items() if v}


def _reach(
    spec_fields: dict[str, Any], prefix: tuple[str, ...], depth: int, out: dict[tuple[str, ...], bool], required: bool
) -> None:
    for name, spec in spec_fields.items():
        path = prefix + (name,)
        req = required and bool(spec.get("required"))
        out[path] = req
        if depth > 1 and spec.get("fields"):
            _reach(spec["fields"], path, depth - 1, out, req)


class Catalog:
    """One host version's catalog. ``output_in_payload``: the host's hook payload carries a named hook's
    output object beside its input (the host's ``output_in_payload``), so its fields count as identities."""

    def __init__(self, doc: dict[str, Any], path: Path | None = None, *, output_in_payload: bool = False):
        if not isinstance(doc, dict) or doc.get("catalog_format") != CATALOG_FORMAT:
            found = doc.get("catalog_format") if isinstance(doc, dict) else None
            raise CatalogError(f"{path or 'catalog'}: catalog_format {found!r}, expected {CATALOG_FORMAT}")
        self.doc = doc
        self.path = path
        self.output_in_payload = output_in_payload
        self.harness: str = doc.get("harness", "")
        self.version: str = doc.get("host_version", "")
        self._events: dict[str, EventSchema] = {}
        for entry in doc.get("events") or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise CatalogError(f"{path or 'catalog'}: an event entry without a name")
            self._events[entry["name"]] = EventSchema(
                entry["name"],
                entry.get("kind", "hook"),
                entry.get("input") or {},
                entry.get("output") or {},
                entry.get("host_calls"),
                entry.get("pre_action"),
            )

    @property
    def names(self) -> list[str]:
        return list(self._events)

    @property
    def sources(self) -> list[dict[str, Any]]:
        return list(self.doc.get("sources") or [])

    def event(self, name: str) -> EventSchema | None:
        return self._events.get(name)

    def nearest(self, name: str) -> str | None:
        """The catalog name an author most likely meant: same letters ignoring case, else the closest."""
        folded = {n.casefold(): n for n in self._events}
        if name.casefold() in folded:
            return folded[name.casefold()]
        close = difflib.get_close_matches(name, list(self._events), n=1, cutoff=0.6)
        return close[0] if close else None

    def identity_fields(self, event: str) -> dict[str, bool]:
        """Field name -> required, for every field where the runtime looks for a native identity.

        The same places as :func:`pasture.runtime.envelope.identity_value`: the payload's top level (a
        command hook's input); for a bus event the event object, its ``properties`` and
        ``properties.info``; with ``output_in_payload`` also a named hook's ``output`` object.
        """
        schema = self._events.get(event)
        if schema is None:
            return {}
        paths: dict[tuple[str, ...], bool] = {}
        _reach(schema.input, (), 3, paths, True)
        found: dict[str, bool] = {}

        def put(name: str, required: bool) -> None:
            found[name] = found.get(name, False) or required

        if schema.kind == "bus":
            for path, req in paths.items():
                if (
                    len(path) == 1
                    or path[:1] == ("properties",)
                    and (len(path) == 2 or (len(path) == 3 and path[1] == "info"))
                ):
                    put(path[-1], req)
        else:
            for path, req in paths.items():
                if len(path) == 1:
                    put(path[0], req)
            if self.output_in_payload:
                out_paths: dict[tuple[str, ...], bool] = {}
                _reach(schema.output, (), 1, out_paths, True)
                for path, req in out_paths.items():
                    put(path[0], req and False)  # an output field is ours to fill, never a host identity
        return found

    def common_fields(self) -> set[str]:
        """Fields nearly every event of the catalog carries (Claude's session_id, cwd, agent_id...)."""
        counts: dict[str, int] = {}
        for name in self._events:
            for field_name in self.identity_fields(name):
                counts[field_name] = counts.get(field_name, 0) + 1
        return {n for n, c in counts.items() if c >= 0.8 * len(self._events)}

    def specific_ids(self, event: str) -> list[str]:
        """Identifier-like fields this event carries beyond the ones (nearly) every event has."""
        common = self.common_fields()
        return sorted(n for n in self.identity_fields(event) if n.endswith(("_id", "ID", "Id")) and n not in common)

    def nearest_field(self, event: str, name: str) -> str | None:
        """The field an author most likely meant: the same letters ignoring case, else the one
        identifier field specific to this event (``elicitation_id`` for a ``request_id``)."""
        fields = list(self.identity_fields(event))
        folded = {f.casefold(): f for f in fields}
        if name.casefold() in folded:
            return folded[name.casefold()]
        if name.endswith(("_id", "ID", "Id")):
            specific = self.specific_ids(event)
            return specific[0] if len(specific) == 1 else None
        close = difflib.get_close_matches(name, fields, n=1, cutoff=0.75)
        return close[0] if close else None


def load_catalog(path: Path, *, output_in_payload: bool = False) -> Catalog:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"cannot read {path}: {exc}") from None
    return Catalog(doc, Path(path), output_in_payload=output_in_payload)


def find_catalog(root: Path, harness: str, version: str, *, output_in_payload: bool = False) -> Catalog | None:
    """The committed catalog of ``harness@version``, or None; ``output_in_payload``: the host's (see Catalog)."""
    path = catalog_path(root, harness, version)
    return load_catalog(path, output_in_payload=output_in_payload) if path.is_file() else None


def project_keeps_catalogs(root: Path) -> bool:
    """Whether the project commits host catalogs at all (then every contract needs one)."""
    captures = Path(root) / "captures"
    return captures.is_dir() and any(captures.glob(f"*/{CATALOG_FILE}"))


def normalize(tree: dict[str, Any], depth: int = 4) -> dict[str, Any]:
    """A schema tree (zod reader, JSON Schema or TypeScript reader) as a catalog field spec."""
    kind = tree.get("kind")
    spec: dict[str, Any] = {"required": not tree.get("optional", False)}
    if tree.get("nullable"):
        spec["nullable"] = True
    if kind == "object":
        spec["type"] = "object"
        if depth > 0:
            spec["fields"] = {k: normalize(v, depth - 1) for k, v in sorted(tree.get("fields", {}).items())}
    elif kind in ("enum", "literal"):
        found = tree.get("values") if kind == "enum" else [tree.get("value")]
        spec["type"] = kind
        spec["values"] = list(found or [])
    elif kind == "union":
        members = [m for m in tree.get("of", [])]
        if members and all(m.get("kind") in ("enum", "literal") for m in members):
            values: list[Any] = []
            for m in members:
                for v in (m.get("values") if m.get("kind") == "enum" else [m.get("value")]) or []:
                    if v not in values:
                        values.append(v)
            spec["type"] = "enum"
            spec["values"] = values
        elif members and all(m.get("kind") == "object" for m in members):
            spec["type"] = "object-union"
            if depth > 0:
                spec["variants"] = [
                    {"fields": {k: normalize(v, depth - 1) for k, v in sorted(m["fields"].items())}} for m in members
                ]
        else:
            spec["type"] = "union"
            if depth > 0:
                spec["of"] = [{k: v for k, v in normalize(m, depth - 1).items() if k != "required"} for m in members]
    elif kind == "array":
        spec["type"] = "array"
        if depth > 0 and tree.get("of"):
            spec["of"] = {k: v for k, v in normalize(tree["of"], depth - 1).items() if k != "required"}
    elif kind == "record":
        spec["type"] = "record"
    elif kind == "primitive":
        spec["type"] = tree.get("type", "value")
    else:
        spec["type"] = "unread"
        if tree.get("why"):
            spec["why"] = tree["why"]
    return spec
