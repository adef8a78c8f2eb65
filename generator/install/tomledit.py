"""Careful, verified text edits of a TOML file (Codex's config.toml) with the stdlib only.

``tomllib`` can read TOML but not write it, and re-serialising a user's config would drop their
comments and layout. So we edit the text: a small scanner finds which lines start a table header
(it tracks strings, multi-line strings, comments and bracket depth, so a ``[`` inside a value is
never taken for a header), and each edit touches only the lines of the tables it names:

* :func:`set_value`: set ``key = value`` in table ``path`` (replacing that key's statement if the
  table has it, else inserting it under the header, else appending a new table at the end);
* :func:`delete_table`: remove table ``path`` (its header and statements, not the comments or
  blank lines after its last statement, which usually introduce the next table);
* :func:`rename_table`: rewrite the header of table ``old`` to name ``new``.

Every edit is verified: the edited text is parsed again and must equal the old document with
exactly that one change applied. Anything else (the table is written inline, with dotted keys, in
an array of tables, ...) raises :class:`TomlEditError` and the caller writes nothing.
"""

from __future__ import annotations

import copy
import re
import tomllib
from dataclasses import dataclass
from typing import Any

Path_ = tuple[str, ...]


class TomlEditError(ValueError):
    pass


def basic_string(value: str) -> str:
    """A TOML basic string (quotes, backslashes and control characters escaped)."""
    out = ['"']
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_BARE = re.compile(r"[A-Za-z0-9_-]+")


def key_text(key: str) -> str:
    return key if _BARE.fullmatch(key) else basic_string(key)


def header_text(path: Path_) -> str:
    return "[" + ".".join(key_text(k) for k in path) + "]"


@dataclass(frozen=True)
class _Line:
    start: int  # offset of the line in the text
    end: int  # offset just past its newline (or the end of the text)
    statement: bool  # starts at depth 0 outside any string: a header, a key/value, a comment or blank
    header: Path_ | None  # the table path when this line is a standard table header ([a.b])
    array_header: bool  # [[a.b]]


def _scan(text: str) -> list[_Line]:
    """Split ``text`` into lines and say which are statements and which are table headers."""
    starts_at_top: dict[int, bool] = {}
    depth = 0
    mode: str | None = None  # None, '"', "'", '"""', "'''", "#"
    i, n = 0, len(text)
    line_start = 0
    starts_at_top[0] = True
    while i < n:
        ch = text[i]
        if ch == "\n":
            if mode == "#":
                mode = None
            if mode in ('"', "'"):
                mode = None  # an unterminated one-line string: invalid TOML, let the parser say so
            line_start = i + 1
            starts_at_top[line_start] = mode is None and depth == 0
            i += 1
            continue
        if mode == "#":
            i += 1
        elif mode == '"':
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                mode = None
            i += 1
        elif mode == "'":
            if ch == "'":
                mode = None
            i += 1
        elif mode in ('"""', "'''"):
            if mode == '"""' and ch == "\\":
                i += 2
                continue
            if text.startswith(mode, i):
                j = i + 3
                while j < n and text[j] == mode[0] and j - i < 5:
                    j += 1
                mode = None
                i = j
            else:
                i += 1
        else:
            if ch == "#":
                mode = "#"
            elif text.startswith('"""', i) or text.startswith("'''", i):
                mode = text[i:i + 3]
                i += 3
                continue
            elif ch in "\"'":
                mode = ch
            elif ch in "[{":
                depth += 1
            elif ch in "]}":
                depth = max(0, depth - 1)
            i += 1
    lines: list[_Line] = []
    offsets = sorted(starts_at_top)
    for k, start in enumerate(offsets):
        end = offsets[k + 1] if k + 1 < len(offsets) else n
        if start >= n and start != 0:
            break
        top = starts_at_top[start]
        body = text[start:end]
        stripped = body.lstrip(" \t")
        header: Path_ | None = None
        array = False
        if top and stripped.startswith("[["):
            array = True
        elif top and stripped.startswith("["):
            header = _header_path(body)
        lines.append(_Line(start, end, top, header, array))
    return lines


def _header_path(line: str) -> Path_ | None:
    """The key path of a standard table header line, read by tomllib itself."""
    try:
        doc = tomllib.loads(line.rstrip("\n") + "\n")
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    node: Any = doc
    while isinstance(node, dict) and len(node) == 1:
        (key, node), = node.items()
        path.append(key)
    return tuple(path) if isinstance(node, dict) and not node else None


def _tables(lines: list[_Line]) -> list[tuple[int, int]]:
    """(header line index, index past the table's last line) for every header, in order."""
    heads = [i for i, ln in enumerate(lines) if ln.header is not None or ln.array_header]
    return [(h, heads[k + 1] if k + 1 < len(heads) else len(lines)) for k, h in enumerate(heads)]


def _find_table(lines: list[_Line], path: Path_) -> tuple[int, int] | None:
    found = [(h, e) for h, e in _tables(lines) if lines[h].header == path]
    return found[0] if len(found) == 1 else None


def _last_statement(text: str, lines: list[_Line], head: int, end: int) -> int:
    """Index past the last line of the table that is not blank/comment (continuations included)."""
    last = head
    for i in range(head + 1, end):
        body = text[lines[i].start:lines[i].end].strip()
        if not lines[i].statement or (body and not body.startswith("#")):
            last = i
    return last + 1


_KEY_LINE = re.compile(r"""\s*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')\s*=""")


def _statement_key(line: str) -> str | None:
    match = _KEY_LINE.match(line)
    if not match:
        return None
    if match.group(1) is not None:
        return match.group(1)
    if match.group(3) is not None:
        return match.group(3)
    try:
        return tomllib.loads(f'k = "{match.group(2)}"')["k"]
    except tomllib.TOMLDecodeError:
        return None


def loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"invalid TOML: {exc}") from None


def _get(doc: dict[str, Any], path: Path_) -> Any:
    node: Any = doc
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _without_empty_tables(node: Any) -> Any:
    """Removing a table's last sub-table also removes the parents its header created implicitly
    ([hooks.state."k"] makes hooks and hooks.state): empty tables and absent ones compare equal."""
    if isinstance(node, dict):
        pruned = {k: _without_empty_tables(v) for k, v in node.items()}
        return {k: v for k, v in pruned.items() if not (isinstance(v, dict) and not v)}
    return node


def _verify(new_text: str, expected: dict[str, Any], what: str) -> str:
    try:
        got = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"{what} would make the file invalid TOML ({exc})") from None
    if _without_empty_tables(got) != _without_empty_tables(expected):
        raise TomlEditError(f"{what} would change more than that table")
    return new_text


def _ensure_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def set_value(text: str, path: Path_, key: str, value: str) -> str:
    """Set string ``key = value`` in standard table ``path``; verified. Unchanged text if already so."""
    doc = loads(text)
    if _get(doc, path + (key,)) == value and isinstance(_get(doc, path), dict):
        return text
    expected = copy.deepcopy(doc)
    node = expected
    for part in path:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise TomlEditError(f"{'.'.join(path)} is not a table")
    node[key] = value
    statement = f"{key_text(key)} = {basic_string(value)}\n"
    lines = _scan(text)
    where = _find_table(lines, path)
    what = f"setting {key} in {header_text(path)}"
    if where is None:
        if _get(doc, path) is not None:
            raise TomlEditError(f"{what}: the table is written in a form pasture does not edit "
                                "(inline table, dotted keys or repeated header)")
        base = _ensure_newline(text)
        sep = "\n" if base.strip() else ""
        return _verify(base + sep + header_text(path) + "\n" + statement, expected, what)
    head, end = where
    for i in range(head + 1, end):
        line = lines[i]
        if line.statement and _statement_key(text[line.start:line.end]) == key:
            stop = i + 1
            while stop < end and not lines[stop].statement:
                stop += 1
            new = text[:line.start] + statement + text[lines[stop - 1].end:]
            return _verify(new, expected, what)
    insert_at = lines[head].end
    prefix = text[:insert_at] if text[:insert_at].endswith("\n") else text[:insert_at] + "\n"
    return _verify(prefix + statement + text[insert_at:], expected, what)


def delete_table(text: str, path: Path_) -> str:
    """Remove standard table ``path`` (which must have no sub-tables); verified."""
    doc = loads(text)
    parent, last = path[:-1], path[-1]
    holder = _get(doc, parent)
    if not isinstance(holder, dict) or last not in holder:
        return text
    expected = copy.deepcopy(doc)
    del _get(expected, parent)[last]
    lines = _scan(text)
    where = _find_table(lines, path)
    what = f"removing {header_text(path)}"
    if where is None:
        raise TomlEditError(f"{what}: the table is written in a form pasture does not edit")
    head, end = where
    stop = _last_statement(text, lines, head, end)
    before, after = text[:lines[head].start], text[lines[stop - 1].end:]
    # the blank line that set the table apart goes with it (set_value appends "\n[table]\n..."),
    # so appending a table and deleting it again gives the same bytes back
    if before.endswith("\n\n"):
        before = before[:-1]
    elif not before and after.startswith("\n"):
        after = after[1:]
    return _verify(before + after, expected, what)


def rename_table(text: str, old: Path_, new: Path_) -> str:
    """Rewrite the header of table ``old`` so it names ``new`` (its body unchanged); verified."""
    doc = loads(text)
    holder_old = _get(doc, old[:-1])
    if not isinstance(holder_old, dict) or old[-1] not in holder_old:
        return text
    expected = copy.deepcopy(doc)
    value = _get(expected, old[:-1]).pop(old[-1])
    node = expected
    for part in new[:-1]:
        node = node.setdefault(part, {})
    if new[-1] in node:
        raise TomlEditError(f"cannot rename {header_text(old)}: {header_text(new)} exists")
    node[new[-1]] = value
    lines = _scan(text)
    where = _find_table(lines, old)
    what = f"renaming {header_text(old)} to {header_text(new)}"
    if where is None:
        raise TomlEditError(f"{what}: the table is written in a form pasture does not edit")
    line = lines[where[0]]
    newline = "\n" if text[line.start:line.end].endswith("\n") else ""
    return _verify(text[:line.start] + header_text(new) + newline + text[line.end:], expected, what)


def rename_tables(text: str, moves: dict[Path_, Path_]) -> str:
    """Several renames at once (a new name may be another table's old name); verified as a whole."""
    if not moves:
        return text
    doc = loads(text)
    expected = copy.deepcopy(doc)
    values = {}
    for old in moves:
        holder = _get(expected, old[:-1])
        if not isinstance(holder, dict) or old[-1] not in holder:
            raise TomlEditError(f"no table {header_text(old)} to rename")
        values[old] = holder.pop(old[-1])
    for old, new in moves.items():
        node = expected
        for part in new[:-1]:
            node = node.setdefault(part, {})
        if new[-1] in node:
            raise TomlEditError(f"cannot rename {header_text(old)}: {header_text(new)} exists")
        node[new[-1]] = values[old]
    lines = _scan(text)
    edits = []
    for old, new in moves.items():
        where = _find_table(lines, old)
        if where is None:
            raise TomlEditError(f"renaming {header_text(old)}: the table is written in a form pasture "
                                "does not edit")
        line = lines[where[0]]
        newline = "\n" if text[line.start:line.end].endswith("\n") else ""
        edits.append((line.start, line.end, header_text(new) + newline))
    out, pos = [], 0
    for start, end, repl in sorted(edits):
        out += [text[pos:start], repl]
        pos = end
    out.append(text[pos:])
    return _verify("".join(out), expected, f"renaming {len(moves)} table(s)")
