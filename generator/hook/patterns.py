"""Policy regular expressions, compiled once and cached as data, rebuilt without `re` on the hook path.

`re.compile` costs the hook twice: importing `re` (~8 ms: it pulls in `enum`) and parsing each
pattern in Python. Both happen only when a policy changes: `freeze` (off the hook path) validates
a pattern with `re` and keeps the compiler's output, the SRE program, as plain data that `marshal`
can store; `thaw` (on the hook path) hands that program straight to the C engine `_sre`, the same
call `re.compile` ends in. The program format is CPython's own and changes between versions, so
the cache that holds frozen patterns is keyed by `sys.hexversion` and `_sre.MAGIC`, and where the
program cannot be extracted (another implementation) a frozen pattern falls back to its source.
"""

from __future__ import annotations

_THAWED: dict = {}


def freeze(pattern: str) -> tuple:
    """Validate `pattern` (re.error propagates) and return its cacheable form."""
    import re

    compiled = re.compile(pattern)
    try:
        try:
            from re import _compiler as sre_compile, _parser as sre_parse  # 3.11+
        except ImportError:  # pragma: no cover - 3.10 names
            import sre_compile, sre_parse  # type: ignore[no-redef]
        parsed = sre_parse.parse(pattern, 0)
        code = [int(op) for op in sre_compile._code(parsed, 0)]
        groupindex = {str(name): int(index) for name, index in parsed.state.groupdict.items()}
        indexgroup = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        frozen = ("sre", pattern, int(parsed.state.flags), code, parsed.state.groups - 1, groupindex,
                  tuple(indexgroup))
        again = _build(frozen)
        if (again.pattern, again.flags, again.groups, dict(again.groupindex)) != (
                compiled.pattern, compiled.flags, compiled.groups, dict(compiled.groupindex)):
            raise ValueError("round trip differs")
        return frozen
    except Exception:  # no usable SRE program here: keep the source, compile it on use
        return ("re", pattern)


def _build(frozen: tuple):
    if frozen[0] == "sre":
        import _sre

        return _sre.compile(frozen[1], frozen[2], frozen[3], frozen[4], frozen[5], frozen[6])
    import re

    return re.compile(frozen[1])


def thaw(frozen: tuple):
    """The compiled pattern for a frozen one (memoized per process: the OpenCode server reuses it)."""
    key = frozen[1]
    pattern = _THAWED.get(key)
    if pattern is None:
        pattern = _THAWED[key] = _build(frozen)
    return pattern
