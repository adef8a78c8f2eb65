"""A structured shell rule's `[rules.run]` table, validated and compiled into plain data (issue 26).

Off the hook path (pasture.runtime.policy and pasture.runtime.packs call it when a layer or a pack
is compiled); pasture.runtime.invocation matches the compiled form against the commands of a line.

    [rules.run]
    program = "git"                    # required: a name or a list of names (any of them)
    subcommand = "push"                # a string or a list of strings (any of them); "stash drop" = two words
    options = [["-f", "--force"]]      # every item present; an item that is a list: any of its members
    without = ["--force-with-lease"]   # none of these present
    args = ["+*"]                      # some positional argument (after the subcommand) matches a glob
    outside = ["build", "/tmp/*"]      # some positional argument matches none of these globs
    text = "(?i)drop\\s+table"         # a regex over the program's words and what it reads on stdin
    script = "shutil\\.rmtree"         # a regex over an interpreter one-liner's code
    valued = ["-o"]                    # more options that take the next word as their value
    unknown = "ask"                    # the decision when an argument args/outside look at is dynamic
"""

from __future__ import annotations

from pasture import PastureError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable

RUN_KEYS = ("program", "subcommand", "options", "without", "args", "outside", "text", "script", "valued", "unknown")
UNKNOWN_DECISIONS = ("deny", "ask", "proceed")


class RunError(PastureError, ValueError):
    """What is wrong with a [rules.run] table (the caller adds file:line)."""


def _names(key: str, value: Any, allow_space: bool = False) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(v, str) and v.strip() for v in items):
        raise RunError(f"'{key}' must be a non-empty string or a non-empty list of non-empty strings")
    if not allow_space and any(any(c.isspace() for c in v) for v in items):
        raise RunError(f"'{key}' values are single words (no spaces): {items!r}")
    return tuple(items)


def _option(key: str, value: str) -> str:
    if not value.startswith("-") or value in ("-", "--") or any(c.isspace() for c in value):
        raise RunError(f"'{key}' value {value!r} is not an option (it starts with '-', e.g. \"-f\" or \"--force\")")
    if "=" in value:
        raise RunError(f'\'{key}\' value {value!r}: name the option without its value ("--force", not "--force=1")')
    return value


def compile_run(raw: Any, regex: Callable[[str, Any], tuple]) -> dict:
    """The compiled form of a [rules.run] table; `regex(key, value)` freezes a pattern (policy._regex).
    RunError names the key and what to write."""
    if not isinstance(raw, dict):
        raise RunError("'run' must be a table ([rules.run])")
    extra = sorted(set(raw) - set(RUN_KEYS))
    if extra:
        raise RunError(f"[rules.run] has unknown key(s) {', '.join(extra)}; allowed: {', '.join(RUN_KEYS)}")
    if "program" not in raw:
        raise RunError('[rules.run] needs program = "name" (or a list of names)')
    run: dict = {"program": tuple(p.rsplit("/", 1)[-1] or p for p in _names("program", raw["program"]))}
    if "subcommand" in raw:
        run["subcommand"] = tuple(tuple(s.split()) for s in _names("subcommand", raw["subcommand"], True))
    if "options" in raw:
        items = raw["options"]
        if not isinstance(items, list) or not items:
            raise RunError("'options' must be a non-empty list; each item an option or a list of options (any of)")
        options = []
        for item in items:
            group = [item] if isinstance(item, str) else item
            if not isinstance(group, list) or not group or not all(isinstance(o, str) for o in group):
                raise RunError(f"'options' item {item!r} must be an option or a non-empty list of options")
            options.append(tuple(_option("options", o) for o in group))
        run["options"] = tuple(options)
    if "without" in raw:
        run["without"] = tuple(_option("without", o) for o in _names("without", raw["without"]))
    if "valued" in raw:
        run["valued"] = tuple(_option("valued", o) for o in _names("valued", raw["valued"]))
    for key in ("args", "outside"):
        if key in raw:
            run[key] = _names(key, raw[key], True)
    for key in ("text", "script"):
        if key in raw:
            run[key] = regex(key, raw[key])
    if "unknown" in raw:
        if raw["unknown"] not in UNKNOWN_DECISIONS:
            raise RunError(f"'unknown' {raw['unknown']!r} is not one of {', '.join(UNKNOWN_DECISIONS)}")
        run["unknown"] = raw["unknown"]
    return run
