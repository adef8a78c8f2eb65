"""Write lifecycle profiles in the hand-written style of profiles/ (and check the YAML reads back equal)."""

from __future__ import annotations

import json
import re
import textwrap
from typing import Any

import yaml

ROW_KEYS = ("name", "semantic", "surface", "blocking", "mutation", "order", "reconciliation", "failure", "evidence",
            "identities", "unresolved", "stop_loop", "pre_action", "matcher", "timeout", "response", "note")
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
        out += textwrap.wrap(paragraph, WIDTH + indent, break_long_words=False, break_on_hyphens=False,
                             initial_indent=pad, subsequent_indent=pad) or [pad]
    return out


def _prose(key: str, text: str, indent: int) -> list[str]:
    lines = [" " * (indent - 2) + f"{key}: >-", *_folded(text, indent)]
    if yaml.safe_load("\n".join(["x: >-", *[line[indent - 2:] if line else line for line in lines[1:]]]))["x"] == text:
        return lines
    return [" " * (indent - 2) + f"{key}: {json.dumps(text)}"]


def _identity(ident: dict[str, Any]) -> str:
    return (f"{{kind: {scalar(ident['kind'])}, field: {scalar(ident['field'])}, "
            f"required: {scalar(ident['required'])}}}")


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


def lifecycle_text(header: list[str], contract: str, admission: dict[str, str], sources: dict[str, str],
                   rows: list[dict[str, Any]]) -> str:
    lines = ["# yaml-language-server: $schema=../../generated/schema/lifecycle.schema.json"]
    for comment in header:
        lines += textwrap.wrap(comment, WIDTH + 2, initial_indent="# ", subsequent_indent="# ",
                               break_long_words=False, break_on_hyphens=False) or ["#"]
    lines.append(f"contract: {scalar(contract)}")
    lines.append("admission:")
    lines += [f"  {k}: {scalar(v)}" for k, v in admission.items()]
    if sources:
        lines.append("sources:")
        lines += [f"  {scalar(k)}: {scalar(v)}" for k, v in sources.items()]
    lines.append("events:")
    for row in rows:
        lines += row_lines(row)
    text = "\n".join(lines) + "\n"
    data = yaml.safe_load(text)
    expected = {"contract": contract, "admission": admission,
                "events": [{k: v for k, v in row.items() if v is not None} for row in rows]}
    if sources:
        expected["sources"] = sources
    if data != expected:
        raise ValueError("internal error: the written profile does not read back as written")
    return text
