"""One policy layer's file (TOML), validated and compiled into plain data the hook path can cache.

Runs only when a layer's bytes change (pasture.runtime.effective caches the result), so it may
import `tomllib` and `re`. Every layer has the same format:

    [gate]
    kind = "rules"            # rules | command | ai | agent (pasture/runtime/gatekinds.py: each
                              # kind's keys; a key the kind does not take is an error)
    default = "proceed"       # the layer's decision when no rule matches (and no gate runs)
    events = ["PreToolUse"]   # optional: only these native events consult this layer
    command = ["./gate"]      # command: argv; gets the envelope JSON on stdin
    timeout = 5               # command, ai, agent: seconds; clamped to the row's deadline (the
                              # host's hook timeout minus a margin), with a note
    model = "..."             # ai: model, system_prompt, base_url (an OpenAI-compatible endpoint);
                              # key and defaults from the environment (pasture/gates/_env.py)
    host = "codex"            # agent: claude-code | codex | opencode, run headless as the judge;
                              # model, prompt (the judge's instructions), binary (default: on PATH)
    [journal]
    path = ".pasture/journal.sqlite3"   # relative to the project root
    keep_days = 90            # user and managed layers only: readers delete older records
    max_mb = 500              # user and managed layers only: readers delete the oldest beyond this
    [builtin]                 # user and managed layers only (ignored in a project layer)
    protect_guard_files = true          # the built-in rules that keep the agent off pasture's files
    [[rules]]                 # every rule weighed: deny > ask > rewrite > allow > proceed
    name = "no-rm"
    decision = "deny"         # proceed | deny | ask
    reason = "rm -rf is not allowed here"
    harness = "codex"         # each list matcher: a string or a list of strings (any of)
    event = ["PreToolUse", "tool.execute.before"]
    semantic = "gate-consultation"
    tool_kind = "shell"       # shell | write | edit | read | fetch | agent, or a lowercased tool name
    tool = "^(Bash|bash)$"    # regexes (re.search): tool (the tool's name), command, file_path,
    command = "rm\\s+-rf"     # and input.<field> (a field of the tool's input)
    instead = "..."           # the safer thing to do: the model reads "<reason> Instead: <instead>"
    except = ["x"]            # managed/user, allow|rewrite|proceed: the rules or pack rule ids it lifts
    [rules.input]
    url = "^http://"
    [rules.run]               # a structured shell rule (pasture.runtime.runrule, .invocation)
    program = "rm"

Top-level `packs = ["recommended"]` and `disable = ["git.push-force"]` select the protection packs
(pasture.runtime.packs). A layer evaluates to its strongest matching rule, else (a trusted command,
AI or agent gate) the gate, else its default; every layer is evaluated and the most restrictive
decision wins (pasture.runtime.effective).
A project layer the user has not trusted keeps its rules and default (they can only protect the
user) but loses everything that runs, connects or writes elsewhere: its command gate, its AI gate
(model, endpoint, prompt), its agent gate, and a journal path outside the project.
"""

from __future__ import annotations

import os

from pasture import PastureError
from pasture.runtime.gatekinds import COMMON_KEYS, KINDS, BadKey

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable

DECISIONS = ("proceed", "deny", "ask")  # a gate's answer and a layer's default
# A rule's decision: also allow (approve without a prompt) and rewrite (change the tool's input first).
RULE_DECISIONS = ("proceed", "deny", "ask", "allow", "rewrite")
ON_UNSUPPORTED = ("deny", "proceed")
CONTEXT_ON = ("session-start", "prompt", "after-tool")
PLACEHOLDERS = ("file_path",)  # {file_path} in an [[after]] command: one argv item, never code (argvcode.py)
MAX_UNTIL = 100
_REWRITE_KEYS = {"field", "pattern", "replace"}
_CONTEXT_KEYS = {"name", "on", "command", "text", "tool_kind", "on_unsupported"}
_AFTER_KEYS = {"name", "tool_kind", "file_path", "command", "on_unsupported"}
_UNTIL_KEYS = {"name", "command", "max", "on_unsupported"}
STEER_TABLES = ("context", "after", "until")
LIST_MATCHERS = ("harness", "event", "semantic", "tool_kind")
# Rule key -> the envelope field it matches: `tool` is the tool's name (envelope `tool_name`).
REGEX_MATCHERS = {"tool": "tool_name", "command": "command", "file_path": "file_path"}
_RULE_KEYS = {
    "name",
    "decision",
    "reason",
    "instead",
    "input",
    "rewrite",
    "on_unsupported",
    "run",
    "except",
    *LIST_MATCHERS,
    *REGEX_MATCHERS,
}
# A pack rule (pasture/packs/*.toml): an id instead of a name; it refuses or asks, nothing else.
PACK_RULE_KEYS = (_RULE_KEYS - {"name", "except", "rewrite", "on_unsupported"}) | {"id"}
PACK_DECISIONS = ("deny", "ask")
PACK_KEYS = ("name", "version", "recommended", "description")  # a pack file's [pack] table
TOP_KEYS = ("packs", "disable")  # top-level keys that are not tables: pack selection (pasture.runtime.packs)
_BUILTIN_KEYS = {"protect_guard_files"}
_JOURNAL_KEYS = {"path", "keep_days", "max_mb"}
_TABLES = ("gate", "journal", "builtin", "rules", *STEER_TABLES)
MAX_TIMEOUT = 600.0


def freeze(pattern: str, reuse: dict | None = None) -> tuple:
    """Validate `pattern` (re.error propagates; ValueError for a catastrophic one) and return its
    cacheable form, ("re", pattern, literal, plan): the source, compiled again (`re`) by the hook when a
    rule that has it is evaluated and its subject holds `literal` (see required_literal), unless the
    pattern has a plan (pasture.runtime.plainre: no repeat, so no engine needed). Never the
    engine's compiled program: a cache is a file, and a crafted SRE program thawed from one made the
    hook crash (SIGSEGV).

    `reuse` maps a source to its form from the previous, verified compile (pasture.runtime.effective),
    so an edited policy re-validates only the patterns it changed."""
    if reuse is not None:
        known = reuse.get(pattern)
        if known is not None:
            return known
    from re import _compiler, _parser  # type: ignore[attr-defined]  # typeshed lists neither

    # Parsed once (re.error propagates): the same tree is compiled, checked for exponential
    # backtracking and searched for its required literal (a parse per use made compile 3x slower).
    parsed = _parser.parse(pattern, 0)
    _compiler.compile(parsed, 0)
    why = catastrophic(parsed)
    if why:
        raise ValueError(why)
    from pasture.runtime.plainre import plan

    return ("re", pattern, required_literal(parsed, parsed.state.flags), plan(parsed))


_CASELESS = 2 | 4  # re.IGNORECASE | re.LOCALE: a literal then stands for more than one string


def required_literal(pattern: Any, flags: int) -> str:
    """The longest run of plain characters every match of `pattern` contains ("" if none can be told):
    the hook skips a rule whose subject lacks it without compiling the pattern, so the common case
    (no rule matches) never imports `re`. Only a top-level concatenation counts: whatever sits in an
    alternation, an optional part or a lookaround may be absent from a match."""
    if flags & _CASELESS:
        return ""
    best, run = "", []
    for op, av in _tree(pattern).data:
        if str(op) == "LITERAL":
            run.append(chr(av))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    if len(run) > len(best):
        best = "".join(run)
    return best


_REPEATS = ("MAX_REPEAT", "MIN_REPEAT")


def _tree(pattern: Any) -> Any:
    """The parsed form of `pattern` (a source string, or a tree freeze already parsed)."""
    if isinstance(pattern, str):
        from re import _parser  # type: ignore[attr-defined]

        return _parser.parse(pattern)
    return pattern


def catastrophic(pattern: Any) -> str | None:
    """Why `pattern` can backtrack exponentially, else None: a repeat (`+`, `*`, `{2,}`) around something
    that can match in more than one way: another variable repeat, or an alternation (`(a+)+`,
    `(a|aa)+$`, `(\\w+\\s?)*`). Possessive repeats and atomic groups never backtrack into, so they pass;
    polynomial patterns (`a*a*a*b`) pass too and are bounded by the row's deadline instead."""

    def variable(items: Any) -> bool:
        for op, av in items:
            name = str(op)
            if name == "BRANCH":
                return True
            if name in _REPEATS:
                if av[0] != av[1] or variable(av[2]):
                    return True
            elif name == "SUBPATTERN":
                if variable(av[3]):
                    return True
            elif name in ("ASSERT", "ASSERT_NOT"):
                if variable(av[1]):
                    return True
            elif name == "GROUPREF_EXISTS":
                return True
        return False

    def walk(items: Any) -> str | None:
        for op, av in items:
            name = str(op)
            if name in _REPEATS:
                if av[1] > 1 and variable(av[2]):
                    return "a repeat around a sub-pattern that can match the same text in more than one way"
                found = walk(av[2])
            elif name == "SUBPATTERN":
                found = walk(av[3])
            elif name == "BRANCH":
                found = next((w for w in map(walk, av[1]) if w), None)
            elif name in ("ASSERT", "ASSERT_NOT"):
                found = walk(av[1])
            elif name == "GROUPREF_EXISTS":
                found = walk(av[1]) or (walk(av[2]) if av[2] else None)
            else:  # ATOMIC_GROUP, POSSESSIVE_REPEAT: no backtracking into them
                found = None
            if found:
                return found
        return None

    return walk(_tree(pattern).data)


class PolicyError(PastureError):
    """An invalid layer: the message names the file, the line where it can, and what to change."""


class PackError(PolicyError):
    """A shipped pack file (pasture/packs/*.toml) that does not load: a broken install or a bad pack edit."""


class PolicyTimeout(PolicyError):
    """A layer that did not compile before the event's deadline (not cached: the next event tries again)."""


class _Lines:
    """Best-effort line numbers for diagnostics (tomllib reports none for valid TOML)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self._rules: list[int] | None = None
        self._tables: dict[str, int] | None = None
        self._arrays: dict[str, list[int]] = {}

    def _find(self, predicate: Callable[[str], bool], start: int = 0) -> int | None:
        for number in range(start, len(self.lines)):
            if predicate(self.lines[number].strip()):
                return number
        return None

    def _index(self) -> None:
        # One scan finds every table header and every [[rules]] (a scan per rule made compile quadratic).
        self._tables, self._rules = {}, []
        for number, line in enumerate(self.lines):
            if "[" in line:
                head = line.strip().replace(" ", "")
                self._tables.setdefault(head, number + 1)
                if head.startswith("[[rules]]"):
                    self._rules.append(number + 1)
                for array in STEER_TABLES:
                    if head.startswith(f"[[{array}]]"):
                        self._arrays.setdefault(array, []).append(number + 1)

    def table(self, name: str) -> int | None:
        if self._tables is None:
            self._index()
        assert self._tables is not None
        return self._tables.get(f"[{name}]")

    def rule(self, index: int) -> int | None:
        if self._rules is None:
            self._index()
        assert self._rules is not None
        return self._rules[index] if index < len(self._rules) else None

    def entry(self, array: str, index: int) -> int | None:
        """The line of the index-th [[array]] table ([[context]], [[after]], [[until]])."""
        if self._tables is None:
            self._index()
        found = self._arrays.get(array, [])
        return found[index] if index < len(found) else None

    def key(self, name: str, after: int | None) -> int | None:
        start = after or 0
        found = self._find(lambda s: s.split("=", 1)[0].strip().strip('"') == name and "=" in s, max(start - 1, 0))
        return None if found is None else found + 1


def _at(path: str, line: int | None) -> str:
    return f"{path}:{line}" if line else path


def _table(doc: dict, name: str, allowed: set, lines: _Lines, path: str) -> tuple[dict, int | None]:
    """A top-level table ([gate], [journal], [builtin]) and its line; PolicyError, naming the file, line
    and allowed keys, for anything else in its place or a key it does not take."""
    table = doc.get(name, {})
    line = lines.table(name)
    if not isinstance(table, dict):
        raise PolicyError(f"{_at(path, line)}: [{name}] must be a table")
    extra = sorted(set(table) - allowed)
    if extra:
        raise PolicyError(
            f"{_at(path, lines.key(extra[0], line))}: [{name}] has unknown key(s) "
            f"{', '.join(extra)}; allowed: {', '.join(sorted(allowed))}"
        )
    return table, line


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise PolicyError(f"{where}: '{key}' must be a string or a non-empty list of strings")


def _regex(where: str, key: str, value: Any, reuse: dict | None = None) -> tuple:
    import re

    if not isinstance(value, str):
        raise PolicyError(f"{where}: '{key}' must be a regular expression string")
    try:
        frozen = freeze(value, reuse)
        if reuse is not None:
            reuse[value] = frozen
        return frozen
    except re.error as exc:
        raise PolicyError(f"{where}: '{key}' is not a valid regular expression: {exc}") from None
    except ValueError as exc:
        raise PolicyError(
            f"{where}: '{key}' {value!r} can take exponential time to match ({exc}), which would run "
            f"the hook past its deadline; rewrite it without the nesting, or make the inner part "
            f"possessive (`a++`, `(?>...)`)"
        ) from None


def inside(root: str, path: str) -> bool:
    real_root = os.path.realpath(root)
    real = os.path.realpath(path)
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def parse_text(path: str, text: str) -> dict:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{path}: not valid TOML: {exc}") from None


def compile_layer(
    name: str,
    path: str,
    data: bytes,
    root: str,
    trusted: bool,
    reuse: dict | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
) -> dict:
    """Validate one layer's bytes and compile them; PolicyError names the file, line and fix.

    `reuse`: frozen patterns of an earlier compile (see freeze). `deadline`: a time.monotonic() instant
    (`clock`, time.monotonic unless given, reads it); a layer whose rules are still compiling then, or
    whose text took until then to parse, is a PolicyTimeout (the event fails closed where its row says
    so) rather than an answer after the host gave up."""
    if deadline is not None and clock is None:
        import time

        clock = time.monotonic
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PolicyError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    doc = parse_text(path, text)
    lines = _Lines(text)
    unknown = sorted(set(doc) - set(_TABLES) - set(TOP_KEYS))
    if unknown:
        raise PolicyError(
            f"{_at(path, lines.table(unknown[0]) or lines.key(unknown[0], None))}: unknown table(s) "
            f"{', '.join(unknown)}; allowed: {', '.join(_TABLES + TOP_KEYS)}"
        )
    layer: dict = {
        "name": name,
        "path": path,
        "trusted": trusted,
        "kind": "rules",
        "default": "proceed",
        "events": None,
        "timeout": None,
        **{kind: None for kind in KINDS if kind != "rules"},
        "journal": None,
        "protect": None,
        "retention": {},
        "ignored": [],
        "rules": [],
        **{array: [] for array in STEER_TABLES},
    }

    raw_gate = doc.get("gate", {})
    kind = raw_gate.get("kind", "rules") if isinstance(raw_gate, dict) else "rules"
    if not isinstance(kind, str) or kind not in KINDS:
        raise PolicyError(
            f"{_at(path, lines.key('kind', lines.table('gate')))}: [gate] kind {kind!r} is not one of "
            f"{', '.join(KINDS)}"
        )
    entry = KINDS[kind]
    # the keys of this kind only: `command` under kind "ai" is an error, not silently unused
    gate, gate_line = _table(doc, "gate", set(COMMON_KEYS | entry.keys), lines, path)
    default = gate.get("default", "proceed")
    if default not in DECISIONS:
        raise PolicyError(
            f"{_at(path, lines.key('default', gate_line))}: [gate] default {default!r} is not one of "
            f"{', '.join(DECISIONS)}"
        )
    layer["default"] = default
    timeout = gate.get("timeout", entry.timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        raise PolicyError(
            f"{_at(path, lines.key('timeout', gate_line))}: [gate] timeout must be a number of "
            f"seconds in (0, {MAX_TIMEOUT:g}]"
        )
    layer["timeout"] = float(timeout)
    if "events" in gate:
        layer["events"] = _strings(f"{_at(path, lines.key('events', gate_line))}: [gate]", "events", gate["events"])
    if entry.parse is not None:
        try:
            settings = entry.parse(gate)
        except BadKey as exc:
            raise PolicyError(f"{_at(path, lines.key(exc.key, gate_line) or gate_line)}: [gate] {exc}") from None
        if entry.runs and not trusted:
            layer["ignored"].append(entry.ignored(settings) if entry.ignored else f"{kind} gate")
        else:
            layer["kind"], layer[kind] = kind, settings

    journal, journal_line = _table(doc, "journal", _JOURNAL_KEYS, lines, path)
    if "path" in journal:
        value = journal["path"]
        if not isinstance(value, str) or not value:
            raise PolicyError(
                f"{_at(path, lines.key('path', journal_line))}: [journal] path must be a non-empty string"
            )
        target = os.path.join(root, value)  # join keeps an absolute path as it is
        if trusted or inside(root, target):
            layer["journal"] = os.path.normpath(target)
        else:
            layer["ignored"].append(f"journal path {value!r} (outside the project)")
    for key in ("keep_days", "max_mb"):
        if key not in journal:
            continue
        value = journal[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1e9:
            raise PolicyError(f"{_at(path, lines.key(key, journal_line))}: [journal] {key} must be a positive number")
        if name == "project":  # the audit trail is the user's: a repository must not shorten it
            layer["ignored"].append(f"[journal] {key} (only the user or managed policy sets retention)")
        else:
            layer["retention"][key] = float(value)

    builtin, builtin_line = _table(doc, "builtin", _BUILTIN_KEYS, lines, path)
    if "protect_guard_files" in builtin:
        value = builtin["protect_guard_files"]
        if not isinstance(value, bool):
            raise PolicyError(
                f"{_at(path, lines.key('protect_guard_files', builtin_line))}: [builtin] "
                "protect_guard_files must be true or false"
            )
        if name == "project":
            if value is False:
                layer["ignored"].append(
                    "[builtin] protect_guard_files = false (only the user or managed "
                    "policy can switch the guard's self-protection off)"
                )
        else:
            layer["protect"] = value

    _selection(layer, doc, lines, path)
    rules = doc.get("rules", [])
    if not isinstance(rules, list):
        raise PolicyError(f"{_at(path, lines.key('rules', None))}: 'rules' must be an array of tables ([[rules]])")
    reuse = {} if reuse is None else reuse
    for index, raw in enumerate(rules):
        # once after parsing (a 4 MiB layer's text takes a while), then every 256 rules
        if clock is not None and deadline is not None and index % 256 in (0, 255) and clock() > deadline:
            raise PolicyTimeout(
                f"{path}: compiling its {len(rules)} rules did not finish within the hook's "
                f"deadline (stopped at rule {index + 1}); split the policy or drop rules, then "
                "run: pasture policy check"
            )
        line = lines.rule(index)
        rule_name = raw.get("name") if isinstance(raw, dict) else None
        where = (
            f"{_at(path, line)}: rule {rule_name!r} (rules[{index}])"
            if isinstance(rule_name, str)
            else f"{_at(path, line)}: rules[{index}]"
        )
        run_line = _run_line(lines, line)
        run_where = f"{_at(path, run_line)}: rule {rule_name!r} [rules.run]" if run_line else None
        compiled_rule = compile_rule(raw, where, reuse, run_where)
        decision = compiled_rule["decision"]
        if decision in ("allow", "rewrite") and not trusted:
            # an untrusted repository may only protect the user: its approvals and rewrites never count
            layer["ignored"].append(f"rule {rule_name!r} ({decision}, {_at(path, line)})")
            continue
        if compiled_rule.get("except") and name == "project":
            # an exception lifts a deny: only the user or an administrator may make one
            layer["ignored"].append(
                f"rule {rule_name!r} except = [...] ({_at(path, line)}): only the user or managed policy "
                "makes exceptions"
            )
            del compiled_rule["except"]
        compiled_rule["line"] = line
        layer["rules"].append(compiled_rule)
    for array in STEER_TABLES:
        entries = _steer_entries(array, doc.get(array, []), lines, path, reuse)
        if entries and not trusted:
            layer["ignored"] += [f"[[{array}]] {e['name']!r} ({_at(path, e['line'])})" for e in entries]
            entries = []
        layer[array] = entries
    return layer


def _run_line(lines: _Lines, rule_line: int | None) -> int | None:
    """The line of a rule's [rules.run] header (the next one after the rule's [[rules]])."""
    if rule_line is None:
        return None
    for number in range(rule_line, len(lines.lines)):
        head = lines.lines[number].strip().replace(" ", "")
        if head.startswith("[[rules]]"):
            return None
        if head.startswith("[rules.run]"):
            return number + 1
    return None


def compile_rule(
    raw: Any, where: str, reuse: dict | None, run_where: str | None = None, pack: str | None = None
) -> dict:
    """One [[rules]] table (of a layer, or of pack `pack`) as plain data; PolicyError names `where`."""
    from pasture.runtime.runrule import RunError, compile_run

    if not isinstance(raw, dict):
        raise PolicyError(f"{where}: must be a table")
    allowed = PACK_RULE_KEYS if pack else _RULE_KEYS
    extra = sorted(set(raw) - allowed)
    if extra:
        raise PolicyError(f"{where}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}")
    name_key = "id" if pack else "name"
    rule_name = raw.get(name_key)
    if not isinstance(rule_name, str) or not rule_name:
        raise PolicyError(f"{where}: needs a non-empty '{name_key}'")
    if pack and not rule_name.startswith(pack + "."):
        raise PolicyError(f"{where}: id {rule_name!r} must start with the pack's name ({pack!r}.)")
    decision = raw.get("decision")
    decisions = PACK_DECISIONS if pack else RULE_DECISIONS
    if decision not in decisions:
        raise PolicyError(f"{where}: decision {decision!r} is not one of {', '.join(decisions)}")
    rewrite = _rewrite(where, decision, raw.get("rewrite"), reuse)
    on_unsupported = _on_unsupported(where, raw, "deny" if decision == "rewrite" else "proceed")
    reason = raw.get("reason", f"pasture policy rule {rule_name!r}")
    if not isinstance(reason, str) or not reason.strip():
        raise PolicyError(f"{where}: 'reason' must be a non-empty string")
    instead = raw.get("instead")
    if instead is not None and (not isinstance(instead, str) or not instead.strip()):
        raise PolicyError(f"{where}: 'instead' must be a non-empty string (the safer thing to do)")
    if instead:
        reason = f"{reason} Instead: {instead}"
    if pack:
        reason = f"pasture pack rule {rule_name}: {reason}"
    lists = {key: _strings(where, key, raw[key]) for key in LIST_MATCHERS if key in raw}
    regexes = {REGEX_MATCHERS[key]: _regex(where, key, raw[key], reuse) for key in REGEX_MATCHERS if key in raw}
    inputs = raw.get("input", {})
    if not isinstance(inputs, dict):
        raise PolicyError(f"{where}: 'input' must be a table of field = regex")
    frozen_inputs = {field: _regex(where, f"input.{field}", value, reuse) for field, value in inputs.items()}
    compiled_rule: dict = {
        "name": rule_name,
        "decision": decision,
        "reason": reason,
        "lists": lists,
        "regexes": regexes,
        "inputs": frozen_inputs,
    }
    if "run" in raw:
        run_where = run_where or where
        try:
            compiled_rule["run"] = compile_run(
                raw["run"], lambda key, value: _regex(run_where, f"run.{key}", value, reuse)
            )
        except RunError as exc:
            raise PolicyError(f"{run_where}: {exc}") from None
        kinds = lists.get("tool_kind")
        if kinds is not None and kinds != ("shell",):
            raise PolicyError(f'{where}: a [rules.run] rule reads shell commands: tool_kind is "shell" or left out')
        lists["tool_kind"] = ("shell",)
    if instead:
        compiled_rule["instead"] = instead
    if pack:
        compiled_rule["id"] = rule_name
        compiled_rule["pack"] = pack
    if "except" in raw:
        if decision not in ("allow", "proceed", "rewrite"):
            raise PolicyError(
                f"{where}: 'except' makes an exception to other rules: its decision must be allow, rewrite "
                f"or proceed (this rule's is {decision!r})"
            )
        names = raw["except"]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
            raise PolicyError(f"{where}: 'except' must be a non-empty list of rule names or pack rule ids")
        compiled_rule["except"] = tuple(names)
    if decision in ("allow", "rewrite"):
        compiled_rule["on_unsupported"] = on_unsupported
    if rewrite is not None:
        compiled_rule["rewrite"] = rewrite
    return compiled_rule


def _selection(layer: dict, doc: dict, lines: _Lines, path: str) -> None:
    """The layer's `packs = [...]` and `disable = [...]`, checked against the packs pasture ships."""
    if "packs" not in doc and "disable" not in doc:
        return
    try:
        packs = pack_catalog()
    except PackError as exc:
        raise PolicyError(str(exc)) from None
    for key in TOP_KEYS:
        if key not in doc:
            continue
        where = _at(path, lines.key(key, None))
        value = doc[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise PolicyError(f"{where}: '{key}' must be a list of strings")
        ids = sorted(i for p in packs.values() for i in p["ids"])
        known = ["recommended", *sorted(packs)] if key == "packs" else ids
        wrong = [v for v in value if v not in known]
        if wrong:
            what = "pack(s)" if key == "packs" else "pack rule id(s)"
            raise PolicyError(f"{where}: unknown {what} {', '.join(map(repr, wrong))}; known: {', '.join(known)}")
        layer[key] = tuple(value)
        layer[key + "_line"] = lines.key(key, None)
    if layer["name"] == "project" and "disable" in layer:
        layer["ignored"].append("disable = [...] (a project policy can add packs, never turn their rules off)")
        del layer["disable"]


def _on_unsupported(where: str, raw: dict, default: str) -> str:
    value = raw.get("on_unsupported", default)
    if value not in ON_UNSUPPORTED:
        raise PolicyError(f"{where}: on_unsupported {value!r} is not one of {', '.join(ON_UNSUPPORTED)}")
    return value


def _rewrite(where: str, decision: Any, raw: Any, reuse: dict | None) -> dict | None:
    """A rule's rewrite = {field, pattern, replace}: required by decision "rewrite", refused elsewhere.
    `replace` is literal text (no group references): the hook substitutes it without importing `re`."""
    if decision != "rewrite":
        if raw is not None:
            raise PolicyError(f"{where}: 'rewrite' needs decision = \"rewrite\" (this rule's is {decision!r})")
        return None
    if not isinstance(raw, dict):
        raise PolicyError(
            f'{where}: decision "rewrite" needs rewrite = {{ field = "command", pattern = "...", replace = "..." }}'
        )
    extra = sorted(set(raw) - _REWRITE_KEYS)
    missing = sorted(_REWRITE_KEYS - set(raw))
    if extra or missing:
        what = f"unknown key(s) {', '.join(extra)}" if extra else f"missing key(s) {', '.join(missing)}"
        raise PolicyError(f"{where}: rewrite has {what}; it takes exactly: {', '.join(sorted(_REWRITE_KEYS))}")
    field, replace = raw["field"], raw["replace"]
    if not isinstance(field, str) or not field:
        raise PolicyError(f'{where}: rewrite.field must be the name of a field of the tool\'s input, e.g. "command"')
    if not isinstance(replace, str):
        raise PolicyError(f"{where}: rewrite.replace must be a string (literal text)")
    return {"field": field, "pattern": _regex(where, "rewrite.pattern", raw["pattern"], reuse), "replace": replace}


_PLACEHOLDER = "{file_path}"
_SAFE_FORM = '["sh", "-c", "ruff check \\"$1\\"", "sh", "{file_path}"]'


def _argv(where: str, value: Any, placeholders: tuple = ()) -> tuple:
    """An argv list. Only `{file_path}` is a placeholder (every other brace is literal: `{ ...; }`,
    `{print $1}`, find's `{}`), and only as an item of its own that nothing reads as code or as the
    program: the agent names the file, and `a;touch PWNED;b.py` is a valid name."""
    if not (isinstance(value, list) and value and all(isinstance(c, str) and c for c in value)):
        raise PolicyError(f'{where}: command must be an argv list, e.g. ["program", "arg"] (it never runs a shell)')
    for index, item in enumerate(value):
        if _PLACEHOLDER not in item:
            continue
        if not placeholders:
            raise PolicyError(
                f"{where}: command item {item!r}: {_PLACEHOLDER} is filled only in [[after]] commands; "
                'here nothing fills it (drop it, e.g. ["pytest", "-q"])'
            )
        if item != _PLACEHOLDER:
            raise PolicyError(
                f"{where}: command item {item!r} splices {_PLACEHOLDER} into other text; it is filled only as an "
                f'item of its own, e.g. ["ruff", "check", "{_PLACEHOLDER}"] or, for an option\'s value, '
                f'["tool", "--config", "{_PLACEHOLDER}"]; in a shell script, e.g. {_SAFE_FORM}'
            )
        from pasture.runtime.argvcode import code_use  # only a policy with a placeholder pays for it

        why = code_use(value, index)
        if why:
            raise PolicyError(
                f"{where}: command item {index + 1} ({item!r}) would be {why}, so the agent's file name would run "
                f"as code; pass it as an argument the program only reads, e.g. {_SAFE_FORM}"
            )
    return tuple(value)


def _steer_entries(array: str, raw_entries: Any, lines: _Lines, path: str, reuse: dict | None) -> list[dict]:
    """[[context]], [[after]] and [[until]] entries, checked; PolicyError names file:line and the fix."""
    if not isinstance(raw_entries, list):
        raise PolicyError(f"{_at(path, lines.key(array, None))}: '{array}' must be an array of tables ([[{array}]])")
    allowed = {"context": _CONTEXT_KEYS, "after": _AFTER_KEYS, "until": _UNTIL_KEYS}[array]
    out = []
    for index, raw in enumerate(raw_entries):
        line = lines.entry(array, index)
        name = raw.get("name") if isinstance(raw, dict) else None
        where = f"{_at(path, line)}: [[{array}]] " + (repr(name) if isinstance(name, str) else f"#{index + 1}")
        if not isinstance(raw, dict):
            raise PolicyError(f"{where}: must be a table")
        extra = sorted(set(raw) - allowed)
        if extra:
            raise PolicyError(f"{where}: unknown key(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}")
        if not isinstance(name, str) or not name:
            raise PolicyError(f"{where}: needs a non-empty 'name'")
        entry: dict = {"name": name, "line": line, "on_unsupported": _on_unsupported(where, raw, "proceed")}
        if array == "context":
            on = raw.get("on")
            if on not in CONTEXT_ON:
                raise PolicyError(f"{where}: on {on!r} is not one of {', '.join(CONTEXT_ON)}")
            if ("command" in raw) == ("text" in raw):
                raise PolicyError(f'{where}: give exactly one of command = ["program", ...] or text = "..."')
            entry["on"] = on
            if "text" in raw:
                if not isinstance(raw["text"], str) or not raw["text"].strip():
                    raise PolicyError(f"{where}: text must be a non-empty string")
                entry["text"] = raw["text"]
            else:
                entry["command"] = _argv(where, raw["command"])
            if "tool_kind" in raw:
                if on != "after-tool":
                    raise PolicyError(f'{where}: tool_kind applies only to on = "after-tool"')
                entry["tool_kind"] = _strings(where, "tool_kind", raw["tool_kind"])
        elif array == "after":
            if "command" not in raw:
                raise PolicyError(f'{where}: needs command = ["program", "arg", "{{file_path}}"]')
            entry["command"] = _argv(where, raw["command"], PLACEHOLDERS)
            if "tool_kind" in raw:
                entry["tool_kind"] = _strings(where, "tool_kind", raw["tool_kind"])
            if "file_path" in raw:
                entry["file_path"] = _regex(where, "file_path", raw["file_path"], reuse)
        else:
            if "command" not in raw:
                raise PolicyError(f'{where}: needs command = ["program", "arg"]')
            entry["command"] = _argv(where, raw["command"])
            most = raw.get("max", 3)
            if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= MAX_UNTIL:
                raise PolicyError(f"{where}: max must be a whole number of continuations from 1 to {MAX_UNTIL}")
            entry["max"] = most
        out.append(entry)
    return out


def never_matching(rule: dict) -> list[tuple[str, str, str]]:
    """(matcher, value, what it should say) for each list-matcher value of a compiled rule that no
    envelope can carry, so the rule silently never applies (`pasture policy check` warns on them).

    The envelope's tool_kind is a kind (shell, write, edit, read, fetch, agent) or else the tool's
    name lowercased: a value with a capital, or a tool name that maps to a kind, never matches.
    harness and semantic are closed vocabularies, spelled exactly."""
    from pasture.profile.vocab import EventSemantic, Harness
    from pasture.runtime.hostwire.guarded import tool_kinds

    known = tool_kinds()
    kinds = sorted(set(known.values()))
    closed = {"harness": [h.value for h in Harness], "semantic": [s.value for s in EventSemantic]}
    found = []
    for value in rule["lists"].get("tool_kind", ()):
        mapped = known.get(value.lower())
        if mapped is not None and mapped != value:
            found.append(
                (
                    "tool_kind",
                    value,
                    f"{mapped!r} (tool_kind is one of {', '.join(kinds)}, or an unlisted tool's name in lower case)",
                )
            )
        elif mapped is None and (value != value.lower() or not value.strip()):
            found.append(
                (
                    "tool_kind",
                    value,
                    f"{value.strip().lower()!r} (tool_kind is one of {', '.join(kinds)}, "
                    "or an unlisted tool's name in lower case)",
                )
            )
    for key, allowed in closed.items():
        for value in rule["lists"].get(key, ()):
            if value not in allowed:
                near = [a for a in allowed if a == value.strip().lower()]
                found.append((key, value, f"{near[0]!r}" if near else f"one of {', '.join(allowed)}"))
    return found


def pack_catalog() -> dict:
    """Every shipped pack, compiled (pasture.runtime.packs.catalog with this module's loader)."""
    from pasture.runtime.packs import catalog

    packs = catalog(load_pack)
    owner: dict = {}
    for pack in packs.values():
        for rule_id in pack["ids"]:
            if rule_id in owner:
                raise PackError(
                    f"{pack['path']}: rule id {rule_id!r} is also in pack {owner[rule_id]!r}; ids are unique"
                )
            owner[rule_id] = pack["name"]
    return packs


def load_pack(path: str) -> dict:
    """One shipped pack file (pasture/packs/<name>.toml), validated and compiled; PackError at file:line."""
    from pasture.runtime import fs

    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: the pack cannot be read ({exc}); reinstall pasture") from None
    doc = parse_text(path, text)
    lines = _Lines(text)
    extra = sorted(set(doc) - {"pack", "rules"})
    if extra:
        at = _at(path, lines.table(extra[0]))
        raise PackError(f"{at}: unknown table(s) {', '.join(extra)}; allowed: pack, rules")
    head = doc.get("pack")
    where = _at(path, lines.table("pack"))
    if not isinstance(head, dict):
        raise PackError(f"{path}: needs a [pack] table ({', '.join(PACK_KEYS)})")
    wrong = sorted(set(head) - set(PACK_KEYS))
    if wrong:
        raise PackError(f"{where}: [pack] has unknown key(s) {', '.join(wrong)}; allowed: {', '.join(PACK_KEYS)}")
    name = head.get("name")
    if name != fs.basename(path)[: -len(".toml")]:
        raise PackError(f"{where}: [pack] name {name!r} must be the file's name")
    version = head.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise PackError(f"{where}: [pack] version must be a whole number from 1")
    recommended = head.get("recommended", False)
    if not isinstance(recommended, bool):
        raise PackError(f"{where}: [pack] recommended must be true or false")
    description = head.get("description", "")
    if not isinstance(description, str):
        raise PackError(f"{where}: [pack] description must be a string")
    raw_rules = doc.get("rules", [])
    if not isinstance(raw_rules, list):
        raise PackError(f"{path}: 'rules' must be an array of tables ([[rules]])")
    rules, ids = [], []
    for index, raw in enumerate(raw_rules):
        line = lines.rule(index)
        rule_id = raw.get("id") if isinstance(raw, dict) else None
        label = f"rule {rule_id!r}" if isinstance(rule_id, str) else f"rules[{index}]"
        run_line = _run_line(lines, line)
        try:
            rule = compile_rule(
                raw,
                f"{_at(path, line)}: {label}",
                {},
                f"{_at(path, run_line)}: {label} [rules.run]" if run_line else None,
                pack=name,
            )
        except PackError:
            raise
        except PolicyError as exc:
            raise PackError(str(exc)) from None
        if "run" not in rule:
            raise PackError(f"{_at(path, line)}: {label}: a pack rule needs a [rules.run] table")
        if rule["name"] in ids:
            raise PackError(f"{_at(path, line)}: {label}: the id is used twice")
        rule["line"] = line
        rules.append(rule)
        ids.append(rule["name"])
    return {
        "name": name,
        "version": version,
        "recommended": recommended,
        "description": description,
        "path": path,
        "rules": rules,
        "ids": tuple(ids),
    }
