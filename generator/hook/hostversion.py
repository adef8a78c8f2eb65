"""Semantic-version precedence keys for the hook path, without `re`.

`generator.versions.HostVersion` is the reference (a test holds the two to the same answers on
every input). It parses with a regular expression; importing `re` costs the hook ~8 ms, about as
much as starting the interpreter, so the runtime resolves contracts with this hand-written parser.
"""

from __future__ import annotations

_DIGITS = frozenset("0123456789")
_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-")


def _number(text: str) -> int | None:
    if not text or not set(text) <= _DIGITS or (len(text) > 1 and text[0] == "0"):
        return None
    return int(text)


def key(value: object) -> tuple | None:
    """The precedence key `HostVersion._key()` gives, or None when `value` is not a semantic version."""
    if not isinstance(value, str) or not value:
        return None
    text = value[1:] if value[0] == "v" else value
    core, plus, build = text.partition("+")
    if plus and not all(part and set(part) <= _ALNUM for part in build.split(".")):
        return None
    core, dash, pre = core.partition("-")
    parts = core.split(".")
    if len(parts) != 3:
        return None
    numbers = [_number(p) for p in parts]
    if None in numbers:
        return None
    major, minor, patch = numbers
    if not dash:
        return (major, minor, patch, 1, ())
    ids = []
    for ident in pre.split("."):
        if not ident or not set(ident) <= _ALNUM:
            return None
        if set(ident) <= _DIGITS:
            if len(ident) > 1 and ident[0] == "0":
                return None
            ids.append((0, int(ident), ""))
        else:
            ids.append((1, 0, ident))
    return (major, minor, patch, 0, tuple(ids))


def is_prerelease(version_key: tuple) -> bool:
    return version_key[3] == 0
