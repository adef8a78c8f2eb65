"""Verified edits of a user's TOML file (Codex's config.toml), comments and layout kept.

The edits go through tomlkit, a style-preserving TOML library: everything we do not touch keeps
its bytes (comments, blank lines, key order, quoting). Install is never on the hook path, so its
import cost does not matter here.

* :func:`set_value`: set ``key = "value"`` in table ``path`` (in place when the key exists, so its
  neighbours such as ``enabled = false`` stay; else added to the table, created when absent);
* :func:`delete_table`: remove table ``path``;
* :func:`rename_tables`: move tables to new names at once (a new name may be another's old name),
  their bodies untouched.

Every edit is verified: the edited text is parsed again with the standard library's ``tomllib``
(the reader Codex's format is defined by) and must equal the old document with exactly that change
applied; anything else raises :class:`TomlEditError` and the caller writes nothing.

Line endings: a file written with CRLF throughout comes back with CRLF throughout (tomlkit itself
would end the lines it adds with LF, leaving the file mixed).
"""

from __future__ import annotations

import copy
import re
import tomllib
from typing import Any, Callable

import tomlkit
import tomlkit.exceptions
from tomlkit.container import Container
from tomlkit.items import AoT, InlineTable, Table

from pasture import PastureError

Path_ = tuple[str, ...]


class TomlEditError(PastureError, ValueError):
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


def loads(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"invalid TOML: {exc}") from None


def newline_of(text: str) -> str:
    """ "\\r\\n" when every line of ``text`` ends with CRLF, else "\\n"."""
    lf = text.count("\n")
    return "\r\n" if lf and text.count("\r\n") == lf else "\n"


def _get(doc: dict[str, Any], path: Path_) -> Any:
    node: Any = doc
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def _without_empty_tables(node: Any) -> Any:
    """Removing a table's last sub-table may leave (or drop) the parents its header created
    implicitly ([hooks.state."k"] makes hooks and hooks.state): empty tables and absent ones compare
    equal."""
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


def _edit(text: str, what: str, expected: dict[str, Any], change: Callable[[Container], list[Table]]) -> str:
    """Parse with tomlkit, ``change`` the document, render, restore CRLF, verify against ``expected``.

    ``change`` returns the tables it created: one that did not land at the end of the file gets a
    blank line after it, as tables in hand-written files have (tomlkit would butt the next header
    against it).
    """
    newline = newline_of(text)
    source = text.replace("\r\n", "\n") if newline == "\r\n" else text
    try:
        doc = tomlkit.parse(source)
        created = change(doc)
        out = doc.as_string()
        spaced = False
        for table in created:
            if not out.endswith(table.as_string()):
                table.add(tomlkit.nl())
                spaced = True
        if spaced:
            out = doc.as_string()
    except TomlEditError:
        raise
    except (tomlkit.exceptions.TOMLKitError, KeyError, TypeError, ValueError) as exc:
        raise TomlEditError(f"{what}: {exc}") from None
    if newline == "\r\n":
        out = out.replace("\r\n", "\n").replace("\n", "\r\n")
    return _verify(out, expected, what)


def _is_table(item: Any) -> bool:
    return isinstance(item, (Table, InlineTable)) or (isinstance(item, dict) and not isinstance(item, AoT))


def _walk(doc: Container, path: Path_, *, created: list[Table] | None = None) -> Any:
    """The tomlkit item at ``path``; tables missing on the way are created (and appended to
    ``created``) when ``created`` is a list, else None is returned for a missing one."""
    node: Any = doc
    for depth, part in enumerate(path):
        if not _is_table(node):
            raise TomlEditError(f"{header_text(path[:depth])} is not a table")
        if part not in node:
            if created is None:
                return None
            # Parents only group their sub-tables ([hooks.state."k"] needs no [hooks] header).
            table = tomlkit.table(is_super_table=depth < len(path) - 1)
            node[part] = table
            if depth == len(path) - 1:
                created.append(node[part])
        node = node[part]
    return node


def set_value(text: str, path: Path_, key: str, value: str) -> str:
    """Set string ``key = value`` in table ``path``; verified. Unchanged text if already so."""
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

    def change(tdoc: Container) -> list[Table]:
        created: list[Table] = []
        table = _walk(tdoc, path, created=created)
        if not _is_table(table):
            raise TomlEditError(f"{header_text(path)} is not a table")
        table[key] = value
        return created

    return _edit(text, f"setting {key} in {header_text(path)}", expected, change)


def delete_table(text: str, path: Path_) -> str:
    """Remove table ``path``; verified. Unchanged text if there is no such table."""
    doc = loads(text)
    holder = _get(doc, path[:-1])
    if not isinstance(holder, dict) or path[-1] not in holder:
        return text
    expected = copy.deepcopy(doc)
    del _get(expected, path[:-1])[path[-1]]

    def change(tdoc: Container) -> list[Table]:
        del _walk(tdoc, path[:-1])[path[-1]]
        return []

    out = _edit(text, f"removing {header_text(path)}", expected, change)
    # The blank line that set a last table apart goes with it, so adding a table and removing it
    # again gives the same bytes back.
    newline = newline_of(text)
    if out.endswith(newline * 2) and not text.endswith(newline * 2):
        out = out.rstrip("\r\n") + newline if out.strip() else ""
    return out


def rename_tables(text: str, moves: dict[Path_, Path_]) -> str:
    """Several renames at once (a new name may be another table's old name); verified as a whole.

    A renamed table keeps its body (values, their comments); tomlkit places it where new sub-tables
    of its new parent go.
    """
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

    def change(tdoc: Container) -> list[Table]:
        items = {}
        for old in moves:
            parent = _walk(tdoc, old[:-1])
            items[old] = parent[old[-1]]
            del parent[old[-1]]
        for old, new in moves.items():
            _walk(tdoc, new[:-1], created=[])[new[-1]] = items[old]
        return []

    return _edit(text, f"renaming {len(moves)} table(s)", expected, change)


def rename_table(text: str, old: Path_, new: Path_) -> str:
    """Move table ``old`` to the name ``new`` (its body unchanged); verified."""
    doc = loads(text)
    holder = _get(doc, old[:-1])
    if not isinstance(holder, dict) or old[-1] not in holder:
        return text
    return rename_tables(text, {old: new})
