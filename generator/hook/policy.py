"""The project policy file (.pasture/policy.toml): which gate, its rules, where the journal lives.

Format:
    [gate]
    kind = "rules"            # rules | command | ai
    default = "proceed"       # rules: decision when no rule matches
    events = ["PreToolUse"]   # optional: only these native events consult the gate (others proceed)
    command = ["./gate"]      # command: argv; gets the envelope JSON on stdin
    timeout = 5               # command, ai: seconds
    model = "..."             # ai: model, system_prompt, base_url (an OpenAI-compatible endpoint);
                              # key and defaults from the environment (generator/gates/_env.py)
    [journal]
    path = ".pasture/journal.sqlite3"
    [[rules]]                 # first match wins
    name = "no-rm"
    decision = "deny"         # proceed | deny | ask
    reason = "rm -rf is not allowed here"
    harness = "codex"         # each matcher: a string or a list of strings (any of)
    event = ["PreToolUse", "tool.execute.before"]
    semantic = "gate-consultation"
    tool_kind = "shell"
    tool = "^(Bash|bash)$"    # regexes (re.search): tool, command, file_path, input.<field>
    command = "rm\\s+-rf"
    [rules.input]
    url = "^http://"
"""

from __future__ import annotations

import os

DECISIONS = ("proceed", "deny", "ask")
KINDS = ("rules", "command", "ai")
_LIST_MATCHERS = ("harness", "event", "semantic", "tool_kind")
_REGEX_MATCHERS = ("tool", "command", "file_path")
_RULE_KEYS = {"name", "decision", "reason", "input", *_LIST_MATCHERS, *_REGEX_MATCHERS}
_GATE_KEYS = {"kind", "default", "command", "timeout", "model", "system_prompt", "base_url", "events"}


class PolicyError(Exception):
    """An invalid policy; the message names the file and the rule."""


class Rule:
    # Plain classes: dataclasses (and the inspect module it imports) cost the hook ~4 ms.
    def __init__(self, name: str, decision: str, reason: str) -> None:
        self.name, self.decision, self.reason = name, decision, reason
        self.lists: dict[str, tuple[str, ...]] = {}
        self.regexes: dict[str, Any] = {}  # matcher -> compiled pattern
        self.inputs: dict[str, Any] = {}  # tool-input field -> compiled pattern


class Policy:
    def __init__(self, path: str | None, gate: dict | None = None) -> None:
        self.path = path
        self.kind = "rules"
        self.default = "proceed"
        self.command: tuple[str, ...] = ()
        self.timeout = 5.0
        self.gate = gate or {}
        self.events: tuple[str, ...] | None = None  # None: every gate-consultation row consults the gate
        self.rules: list[Rule] = []
        self.journal: str | None = None


def find(project: str, env: dict) -> str | None:
    configured = env.get("PASTURE_POLICY")
    if configured:
        return configured
    candidate = os.path.join(project, ".pasture", "policy.toml")
    return candidate if os.path.isfile(candidate) else None


def load(path: str) -> Policy:
    import tomllib

    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise PolicyError(f"{path}: policy file not found") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{path}: not valid TOML: {exc}") from None
    return parse(path, data)


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise PolicyError(f"{where}: '{key}' must be a string or a non-empty list of strings")


def _regex(where: str, key: str, value: Any):
    import re

    if not isinstance(value, str):
        raise PolicyError(f"{where}: '{key}' must be a regular expression string")
    try:
        return re.compile(value)
    except re.error as exc:
        raise PolicyError(f"{where}: '{key}' is not a valid regular expression: {exc}") from None


def parse(path: str, data: dict) -> Policy:
    unknown = set(data) - {"gate", "journal", "rules"}
    if unknown:
        raise PolicyError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; allowed: gate, journal, rules")
    gate = data.get("gate", {})
    if not isinstance(gate, dict):
        raise PolicyError(f"{path}: [gate] must be a table")
    extra = set(gate) - _GATE_KEYS
    if extra:
        raise PolicyError(f"{path}: [gate] has unknown key(s) {', '.join(sorted(extra))}; "
                          f"allowed: {', '.join(sorted(_GATE_KEYS))}")
    policy = Policy(path=path, gate=dict(gate))
    policy.kind = gate.get("kind", "rules")
    if policy.kind not in KINDS:
        raise PolicyError(f"{path}: [gate] kind {policy.kind!r} is not one of {', '.join(KINDS)}")
    policy.default = gate.get("default", "proceed")
    if policy.default not in DECISIONS:
        raise PolicyError(f"{path}: [gate] default {policy.default!r} is not one of {', '.join(DECISIONS)}")
    timeout = gate.get("timeout", 5.0 if policy.kind != "ai" else 30.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 600:
        raise PolicyError(f"{path}: [gate] timeout must be a number of seconds in (0, 600]")
    policy.timeout = float(timeout)
    if "events" in gate:
        policy.events = _strings(f"{path}: [gate]", "events", gate["events"])
    if policy.kind == "command":
        command = gate.get("command")
        if not (isinstance(command, list) and command and all(isinstance(c, str) and c for c in command)):
            raise PolicyError(f"{path}: [gate] kind 'command' needs command = [\"program\", \"arg\", ...]")
        policy.command = tuple(command)
    journal = data.get("journal", {})
    if not isinstance(journal, dict) or set(journal) - {"path"}:
        raise PolicyError(f"{path}: [journal] takes only 'path'")
    if "path" in journal:
        if not isinstance(journal["path"], str) or not journal["path"]:
            raise PolicyError(f"{path}: [journal] path must be a non-empty string")
        policy.journal = journal["path"]
    rules = data.get("rules", [])
    if not isinstance(rules, list):
        raise PolicyError(f"{path}: 'rules' must be an array of tables ([[rules]])")
    for i, raw in enumerate(rules):
        name = raw.get("name") if isinstance(raw, dict) else None
        where = f"{path}: rule {name!r} (rules[{i}])" if isinstance(name, str) else f"{path}: rules[{i}]"
        if not isinstance(raw, dict):
            raise PolicyError(f"{where}: must be a table")
        extra = set(raw) - _RULE_KEYS
        if extra:
            raise PolicyError(f"{where}: unknown key(s) {', '.join(sorted(extra))}; "
                              f"allowed: {', '.join(sorted(_RULE_KEYS))}")
        if not isinstance(name, str) or not name:
            raise PolicyError(f"{where}: needs a non-empty 'name'")
        decision = raw.get("decision")
        if decision not in DECISIONS:
            raise PolicyError(f"{where}: decision {decision!r} is not one of {', '.join(DECISIONS)}")
        reason = raw.get("reason", f"pasture policy rule {name!r}")
        if not isinstance(reason, str) or not reason.strip():
            raise PolicyError(f"{where}: 'reason' must be a non-empty string")
        rule = Rule(name=name, decision=decision, reason=reason)
        for key in _LIST_MATCHERS:
            if key in raw:
                rule.lists[key] = _strings(where, key, raw[key])
        for key in _REGEX_MATCHERS:
            if key in raw:
                rule.regexes[key] = _regex(where, key, raw[key])
        inputs = raw.get("input", {})
        if not isinstance(inputs, dict):
            raise PolicyError(f"{where}: 'input' must be a table of field = regex")
        for key, value in inputs.items():
            rule.inputs[key] = _regex(where, f"input.{key}", value)
        policy.rules.append(rule)
    return policy


def project_dir(envelope_cwd: str | None, env: dict) -> str:
    for candidate in (env.get("CLAUDE_PROJECT_DIR"), envelope_cwd):
        if isinstance(candidate, str) and os.path.isabs(candidate) and os.path.isdir(candidate):
            return candidate
    return os.getcwd()
