"""The gate kinds, one entry each: the [gate] keys a kind takes, its default timeout, whether it runs
something (and so needs a trusted layer), how its keys are checked, and its runner.

pasture.runtime.policy parses [gate] through this table and pasture.runtime.consult runs a
layer's gate through it; nothing else names a kind. Stdlib only, no imports at all: the runner is a
"module:function" string, imported only when a policy's layer selects the kind, so the hook path
pays nothing for the kinds no policy uses.

A kind's checked settings are stored on the compiled layer under the kind's own name
(layer["command"], layer["ai"], layer["agent"]); layer["kind"] stays "rules" for a layer whose gate
is not to run (an untrusted project layer), so "kind != rules" is what "has a gate to run" means.
The runner is called as runner(settings, envelope, root, timeout) and returns (decision, reason,
detail or None), or raises pasture.runtime.consult.GateFailure with one line saying what is wrong.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only (postponed): typing is not imported at run time
    from typing import Any, Callable

# Every kind takes these: which kind, the layer's decision when nothing matches, the events it
# covers, and the gate's timeout (clamped to the row's deadline when the gate runs).
COMMON_KEYS = frozenset({"kind", "default", "events", "timeout"})


class BadKey(ValueError):
    """A [gate] key with a bad value: (key, what it must be). The policy parser adds file:line."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class Kind:
    """One gate kind (a plain class, not a dataclass or NamedTuple: those would import more)."""

    __slots__ = ("keys", "timeout", "runs", "parse", "ignored", "runner")

    def __init__(
        self,
        keys: frozenset,
        timeout: float,
        runs: bool,
        parse: Callable[[dict], Any] | None,
        ignored: Callable[[Any], str] | None,
        runner: str | None,
    ) -> None:
        self.keys = keys  # the [gate] keys this kind takes besides COMMON_KEYS
        self.timeout = timeout  # seconds, when [gate] sets none
        self.runs = runs  # runs, connects or writes elsewhere: only a trusted layer's gate runs
        self.parse = parse  # [gate] table -> the settings kept on the layer; BadKey if a value is wrong
        self.ignored = ignored  # what an untrusted layer loses, for the notes ("command gate [...]")
        self.runner = runner  # "module:function", imported on first use


def _text(gate: dict, key: str, required: bool = False) -> str | None:
    value = gate.get(key)
    if value is None and not required:
        return None
    if not (isinstance(value, str) and value):
        raise BadKey(key, f"{key} must be a non-empty string")
    return value


def _command(gate: dict) -> tuple:
    command = gate.get("command")
    if not (isinstance(command, list) and command and all(isinstance(c, str) and c for c in command)):
        raise BadKey("command", 'kind \'command\' needs command = ["program", "arg", ...]')
    return tuple(command)


def _ai(gate: dict) -> dict:
    return {key: _text(gate, key) for key in ("model", "system_prompt", "base_url") if key in gate}


def agent_hosts() -> tuple:
    """The coding-agent hosts an agent gate can run as its judge: those whose wire has an ``AGENT_JUDGE``
    (pasture.runtime.agentgate; the policy parser imports no gate). Only a policy with an agent gate reads
    every wire."""
    from pasture.runtime.agentgate import judges

    return tuple(judges())


def __getattr__(name: str) -> tuple:
    if name == "AGENT_HOSTS":  # computed on first use: importing this module reads no wire
        return agent_hosts()
    raise AttributeError(name)


def _agent(gate: dict) -> dict:
    host = gate.get("host")
    hosts = agent_hosts()
    if host not in hosts:
        raise BadKey("host", f"kind 'agent' needs host = one of {', '.join(hosts)} (got {host!r})")
    settings = {"host": host}
    for key in ("model", "prompt", "binary"):
        if key in gate:
            settings[key] = _text(gate, key)
    return settings


def _agent_ignored(agent: dict) -> str:
    binary = f", binary {agent['binary']}" if "binary" in agent else ""
    return f"agent gate (host {agent['host']}{binary})"


KINDS: dict[str, Kind] = {
    "rules": Kind(frozenset(), 5.0, False, None, None, None),
    "command": Kind(
        frozenset({"command"}),
        5.0,
        True,
        _command,
        lambda command: f"command gate {list(command)!r}",
        "pasture.runtime.consult:command_gate",
    ),
    "ai": Kind(
        frozenset({"model", "system_prompt", "base_url"}),
        30.0,
        True,
        _ai,
        lambda ai: "AI gate" + (f" (endpoint {ai['base_url']})" if "base_url" in ai else ""),
        "pasture.runtime.consult:ai_gate",
    ),
    "agent": Kind(
        frozenset({"host", "model", "prompt", "binary"}),
        45.0,
        True,
        _agent,
        _agent_ignored,
        "pasture.runtime.agentgate:agent_gate",
    ),
}


def runner(kind: str) -> Callable:
    """The runner of `kind`, imported now (KeyError for a kind that is not in the table)."""
    import importlib

    module, _, name = KINDS[kind].runner.partition(":")  # type: ignore[union-attr]
    return getattr(importlib.import_module(module), name)
