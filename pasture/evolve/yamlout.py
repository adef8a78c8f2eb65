"""Write lifecycle profiles in the hand-written style of profiles/ (and check the YAML reads back equal)."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

import yaml

ROW_KEYS = (
    "name",
    "semantic",
    "surface",
    "blocking",
    "mutation",
    "order",
    "reconciliation",
    "failure",
    "evidence",
    "identities",
    "unresolved",
    "stop_loop",
    "pre_action",
    "matcher",
    "timeout",
    "response",
    "note",
)
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/@-]*")
_RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}
WIDTH = 100  # prose characters per line after the indent, as the hand-written profiles wrap


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "null"
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED and yaml.safe_load(text) == text:
        return text
    if re.fullmatch(r"https?://[^\s\"'#,\[\]{}]+", text):
        return text
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


def _folded(text: str, indent: int) -> list[str]:
    """A `>-` block for prose; paragraphs (split on newlines) are separated by a blank line."""
    pad = " " * indent
    out: list[str] = []
    for i, paragraph in enumerate(text.split("\n")):
        if i:
            out.append("")
        out += textwrap.wrap(
            paragraph,
            WIDTH + indent,
            break_long_words=False,
            break_on_hyphens=False,
            initial_indent=pad,
            subsequent_indent=pad,
        ) or [pad]
    return out


def _prose(key: str, text: str, indent: int) -> list[str]:
    lines = [" " * (indent - 2) + f"{key}: >-", *_folded(text, indent)]
    if yaml.safe_load("\n".join(["x: >-", *[line[indent - 2 :] if line else line for line in lines[1:]]]))["x"] == text:
        return lines
    return [" " * (indent - 2) + f"{key}: {json.dumps(text)}"]


def _identity(ident: dict[str, Any]) -> str:
    return f"{{kind: {scalar(ident['kind'])}, field: {scalar(ident['field'])}, required: {scalar(ident['required'])}}}"


def row_lines(row: dict[str, Any]) -> list[str]:
    unknown = set(row) - set(ROW_KEYS)
    if unknown:
        raise ValueError(f"row {row.get('name')!r} has fields the profile format lacks: {sorted(unknown)}")
    lines = [f"  - name: {scalar(row['name'])}"]
    for key in ROW_KEYS[1:]:
        if key not in row or row[key] is None:
            continue
        value = row[key]
        if key == "identities":
            if not value:
                lines.append("    identities: []")
            else:
                lines.append("    identities:")
                lines += [f"      - {_identity(i)}" for i in value]
        elif key == "unresolved":
            lines.append(f"    unresolved: [{', '.join(scalar(v) for v in value)}]")
        elif key == "response":
            lines.append("    response:")
            lines += [f"      {k}: {scalar(value[k])}" for k in ("deny", "ask") if value.get(k)]
        elif key == "note":
            lines += _prose("note", value, 6)
        else:
            lines.append(f"    {key}: {scalar(value)}")
    return lines


def _body(
    sources: dict[str, str],
    rows: list[dict[str, Any]],
    excluded: list[dict[str, str]] | None,
    catalog_unavailable: str | None,
) -> list[str]:
    lines: list[str] = []
    if sources:
        lines.append("sources:")
        lines += [f"  {scalar(k)}: {scalar(v)}" for k, v in sources.items()]
    if catalog_unavailable:
        lines += _prose("catalog_unavailable", catalog_unavailable, 2)
    lines.append("events:")
    for row in rows:
        lines += row_lines(row)
    if excluded:
        lines.append("excluded:")
        for entry in excluded:
            lines.append(f"  - name: {scalar(entry['name'])}")
            lines += _prose("reason", entry["reason"], 6)
    return lines


def _expected(
    contract: str,
    admission: dict[str, str] | None,
    sources: dict[str, str],
    rows: list[dict[str, Any]],
    excluded: list[dict[str, str]] | None,
    catalog_unavailable: str | None,
) -> dict[str, Any]:
    expected: dict[str, Any] = {
        "contract": contract,
        "events": [{k: v for k, v in row.items() if v is not None} for row in rows],
    }
    if admission is not None:
        expected["admission"] = admission
    if sources:
        expected["sources"] = sources
    if excluded:
        expected["excluded"] = excluded
    if catalog_unavailable:
        expected["catalog_unavailable"] = catalog_unavailable
    return expected


def lifecycle_text(
    header: list[str],
    contract: str,
    admission: dict[str, str],
    sources: dict[str, str],
    rows: list[dict[str, Any]],
    excluded: list[dict[str, str]] | None = None,
    catalog_unavailable: str | None = None,
) -> str:
    lines = ["# yaml-language-server: $schema=../../generated/schema/lifecycle.schema.json"]
    for comment in header:
        lines += textwrap.wrap(
            comment,
            WIDTH + 2,
            initial_indent="# ",
            subsequent_indent="# ",
            break_long_words=False,
            break_on_hyphens=False,
        ) or ["#"]
    lines.append(f"contract: {scalar(contract)}")
    lines.append("admission:")
    lines += [f"  {k}: {scalar(v)}" for k, v in admission.items()]
    lines += _body(sources, rows, excluded, catalog_unavailable)
    text = "\n".join(lines) + "\n"
    if yaml.safe_load(text) != _expected(contract, admission, sources, rows, excluded, catalog_unavailable):
        raise ValueError("internal error: the written profile does not read back as written")
    return text


def rewrite_body(
    text: str,
    sources: dict[str, str],
    rows: list[dict[str, Any]],
    excluded: list[dict[str, str]] | None = None,
    catalog_unavailable: str | None = None,
) -> str:
    """``text`` (a lifecycle.yaml) with everything from its ``sources:`` / ``events:`` key on rewritten.

    The head (comments, contract, admission and their comments) is kept byte for byte."""
    lines = text.splitlines()
    cut = next(
        (i for i, line in enumerate(lines) if re.match(r"(sources|catalog_unavailable|events|excluded):", line)), None
    )
    if cut is None:
        raise ValueError("no sources:/events: key at the start of a line")
    head = lines[:cut]
    out = "\n".join([*head, *_body(sources, rows, excluded, catalog_unavailable)]) + "\n"
    data = yaml.safe_load(out)
    expected = _expected(data.get("contract"), data.get("admission"), sources, rows, excluded, catalog_unavailable)
    if data != expected:
        raise ValueError("internal error: the rewritten profile does not read back as written")
    return out
