"""How a coding-agent host run headless as a judge is described: what a judge is handed
(:class:`HostRequest`), what it runs (:class:`HostRun`: argv, extra environment, stdin) and what is read
back (:class:`HostOutput`: final text, error flag, cost, turns). Each host that can judge writes its own
:class:`Judge` (its command line and how its stdout reads) in its runtime half
(``pasture/runtime/hostwire/<wire>.py``, ``AGENT_JUDGE``); the runtime hands the judges to the gate
(pasture.runtime.agentgate), so this package names no host. The prompt always goes on **stdin**, which
sidesteps argv size limits.

Permissions. ``bypass_permissions=False`` (the default) lets the agent edit files in its working
directory and nothing more; ``True`` removes the guard rails (each judge says how). A judge drops what
its host has no flag for (a turn limit, a budget, an extra directory, an attach server).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol

from pasture import PastureError

# What is read of a judge's output (stdout, or the file it writes its answer to): a decision is short.
MAX_OUTPUT = 4 << 20


class HostOutputTooLarge(PastureError, RuntimeError):
    """A judge printed (or wrote) more than MAX_OUTPUT: the rest is never read, the run is ended."""


def read_file_capped(path: str, what: str) -> str:
    """The text of `path`, at most MAX_OUTPUT bytes of it; HostOutputTooLarge past that."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_OUTPUT + 1)
    if len(data) > MAX_OUTPUT:
        raise HostOutputTooLarge(f"{what} is larger than {MAX_OUTPUT >> 20} MiB; pasture reads at most that much")
    return data.decode("utf-8", "replace")


__all__ = [
    "HostOutput",
    "HostRequest",
    "HostRun",
    "Judge",
    "UnsupportedHostError",
    "exit_failure",
    "json_lines",
    "number",
    "resolve_host",
]

_TAIL = 2000


class UnsupportedHostError(PastureError, ValueError):
    """The configured provider is not a host this backend can run."""


@dataclass(frozen=True)
class HostRequest:
    prompt: str
    cwd: str
    model: str | None
    binary: str
    scratch_dir: str
    max_turns: int | None = None
    max_budget_usd: float | None = None
    project_dir: str | None = None
    server: str | None = None  # a running host to attach to (only a judge whose host can)
    bypass_permissions: bool = False
    extra_args: tuple[str, ...] = ()


@dataclass(frozen=True)
class HostRun:
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    stdin: bytes = b""
    last_message_path: str | None = None


@dataclass
class HostOutput:
    final_text: str | None = None
    is_error: bool = False
    error_message: str | None = None
    cost_usd: float | None = None
    num_turns: int | None = None


class Judge(Protocol):
    name: str
    aliases: tuple[str, ...]
    default_binary: str
    install: str  # how a user gets the host, for the failure line

    def command(self, req: HostRequest) -> HostRun: ...

    def read_output(self, stdout: str, stderr: str, returncode: int, run: HostRun) -> HostOutput: ...


def _tail(text: str) -> str:
    text = text.strip()
    return text[-_TAIL:] if len(text) > _TAIL else text


def json_lines(stdout: str) -> list[dict[str, Any]]:
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def exit_failure(returncode: int, stderr: str) -> str:
    detail = _tail(stderr)
    return f"exited with status {returncode}" + (f": {detail}" if detail else "")


def resolve_host(provider: str, judges: Mapping[str, Judge]) -> Judge:
    """The judge of `judges` that `provider` names (its name or an alias, any case)."""
    key = (provider or "").strip().lower()
    for host in judges.values():
        if key in host.aliases:
            return host
    supported = ", ".join(judges)
    raise UnsupportedHostError(f"unsupported harness provider {provider!r}; supported: {supported}")
