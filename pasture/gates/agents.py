"""How each coding-agent host is run headless: the one place that knows their command lines.

Each host class turns a :class:`HostRequest` into a :class:`HostRun` (argv, extra environment,
stdin) and reads the host's stdout back into a :class:`HostOutput` (final text, error flag,
cost, turns). The prompt always goes on **stdin**: all three hosts read it from there when no
prompt argument is given, byte for byte (checked with Claude Code 2.1.328, Codex CLI 0.171.0 and
OpenCode 1.18.33), which sidesteps argv size limits and OpenCode's habit of quoting message
arguments that contain spaces.

Permissions. ``bypass_permissions=False`` (the default) lets the agent edit files in its
working directory and nothing more: Claude ``--permission-mode acceptEdits``, Codex
``--sandbox workspace-write`` with approvals off, OpenCode its own defaults (``run``
auto-rejects anything that would ask). ``True`` removes the guard rails: Claude
``--dangerously-skip-permissions`` (plus ``IS_SANDBOX=1`` when running as root, which Claude
otherwise refuses), Codex ``--dangerously-bypass-approvals-and-sandbox``, OpenCode ``--auto``.

What each host ignores: Codex and OpenCode have no turn limit or budget flag (``max_turns`` and
``max_budget_usd`` are dropped for them); only OpenCode can attach to a server
(``opencode_server``); OpenCode has no extra-directory flag (``project_dir`` is dropped).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Protocol

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
    "JUDGES",
    "ClaudeCodeHost",
    "CodexHost",
    "HostOutput",
    "HostRequest",
    "HostRun",
    "OpenCodeHost",
    "UnsupportedHostError",
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
    opencode_server: str | None = None
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

    def command(self, req: HostRequest) -> HostRun: ...

    def read_output(self, stdout: str, stderr: str, returncode: int, run: HostRun) -> HostOutput: ...


def _tail(text: str) -> str:
    text = text.strip()
    return text[-_TAIL:] if len(text) > _TAIL else text


def _json_lines(stdout: str) -> list[dict[str, Any]]:
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


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _exit_failure(returncode: int, stderr: str) -> str:
    detail = _tail(stderr)
    return f"exited with status {returncode}" + (f": {detail}" if detail else "")


class ClaudeCodeHost:
    """``claude -p --output-format json``; the result object carries text, cost and turns."""

    name = "claude-code"
    aliases: tuple[str, ...] = ("claude-code", "claude", "claude_code", "claudecode")
    default_binary = "claude"

    def command(self, req: HostRequest) -> HostRun:
        argv = [req.binary, "-p", "--output-format", "json"]
        if req.model:
            argv += ["--model", req.model]
        if req.max_turns:
            argv += ["--max-turns", str(req.max_turns)]
        if req.max_budget_usd is not None:
            argv += ["--max-budget-usd", repr(float(req.max_budget_usd))]
        if req.project_dir:
            argv += ["--add-dir", req.project_dir]
        env: dict[str, str] = {}
        if req.bypass_permissions:
            argv.append("--dangerously-skip-permissions")
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                env["IS_SANDBOX"] = "1"
        else:
            argv += ["--permission-mode", "acceptEdits"]
        argv += list(req.extra_args)
        return HostRun(argv=argv, env=env, stdin=req.prompt.encode("utf-8"))

    def read_output(self, stdout: str, stderr: str, returncode: int, run: HostRun) -> HostOutput:
        result: dict[str, Any] | None = None
        for event in _json_lines(stdout):
            if event.get("type") == "result" or "is_error" in event:
                result = event
        if result is None:
            try:
                parsed = json.loads(stdout)
                result = parsed if isinstance(parsed, dict) else None
            except ValueError:
                result = None
        if result is None:
            return HostOutput(
                final_text=stdout.strip() or None,
                is_error=True,
                error_message=_exit_failure(returncode, stderr) if returncode else "no result object on stdout",
            )
        text = result.get("result") if isinstance(result.get("result"), str) else None
        is_error = bool(result.get("is_error")) or returncode != 0
        message = None
        if is_error:
            message = text or str(result.get("subtype") or "") or _exit_failure(returncode, stderr)
        turns = result.get("num_turns")
        return HostOutput(
            final_text=text,
            is_error=is_error,
            error_message=message,
            cost_usd=_number(result.get("total_cost_usd")),
            num_turns=turns if isinstance(turns, int) else None,
        )


class CodexHost:
    """``codex exec --json``; JSONL events, the final message also written to ``-o FILE``."""

    name = "codex"
    aliases: tuple[str, ...] = ("codex", "codex-cli", "codex_cli")
    default_binary = "codex"

    def command(self, req: HostRequest) -> HostRun:
        last_message = os.path.join(req.scratch_dir, "codex-last-message.txt")
        argv = [req.binary, "exec", "--json", "--skip-git-repo-check", "-C", req.cwd, "-o", last_message]
        if req.model:
            argv += ["-m", req.model]
        if req.project_dir:
            argv += ["--add-dir", req.project_dir]
        if req.bypass_permissions:
            argv.append("--dangerously-bypass-approvals-and-sandbox")
        else:
            argv += ["--sandbox", "workspace-write", "-c", 'approval_policy="never"']
        argv += list(req.extra_args)
        return HostRun(argv=argv, stdin=req.prompt.encode("utf-8"), last_message_path=last_message)

    def read_output(self, stdout: str, stderr: str, returncode: int, run: HostRun) -> HostOutput:
        text: str | None = None
        failure: str | None = None
        fatal: str | None = None
        turns = 0
        for event in _json_lines(stdout):
            kind = event.get("type")
            item = event.get("item")
            if kind == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
                text = item.get("text") if isinstance(item.get("text"), str) else text
            elif kind == "turn.completed":
                turns += 1
            elif kind == "turn.failed":
                error = event.get("error")
                failure = (error.get("message") if isinstance(error, dict) else None) or "turn failed"
            elif kind == "error":  # top-level stream error (item-level "error" items are warnings)
                fatal = str(event.get("message") or "stream error")
        if run.last_message_path and os.path.exists(run.last_message_path):
            text = read_file_capped(run.last_message_path, "the judge's last message") or text
        is_error = failure is not None or returncode != 0
        message = None
        if is_error:
            message = failure or fatal or _exit_failure(returncode, stderr)
        return HostOutput(final_text=text, is_error=is_error, error_message=message, num_turns=turns)


class OpenCodeHost:
    """``opencode run --format json``; JSONL events with text parts and per-step cost."""

    name = "opencode"
    aliases: tuple[str, ...] = ("opencode", "open-code", "opencode-ai")
    default_binary = "opencode"

    def command(self, req: HostRequest) -> HostRun:
        argv = [req.binary, "run", "--format", "json"]
        if req.model:
            argv += ["-m", req.model]
        if req.opencode_server:
            argv += ["--attach", req.opencode_server, "--dir", req.cwd]
        if req.bypass_permissions:
            argv.append("--auto")
        argv += list(req.extra_args)
        return HostRun(argv=argv, stdin=req.prompt.encode("utf-8"))

    def read_output(self, stdout: str, stderr: str, returncode: int, run: HostRun) -> HostOutput:
        text: str | None = None
        error: str | None = None
        cost = 0.0
        saw_cost = False
        steps = 0
        for event in _json_lines(stdout):
            kind = event.get("type")
            part = found if isinstance(found := event.get("part"), dict) else {}
            if kind == "text" and isinstance(part.get("text"), str):
                text = part["text"]
            elif kind == "step_finish":
                steps += 1
                step_cost = _number(part.get("cost"))
                if step_cost is not None:
                    cost += step_cost
                    saw_cost = True
            elif kind == "error":
                detail = event.get("error")
                if isinstance(detail, dict):
                    data = found if isinstance(found := detail.get("data"), dict) else {}
                    error = str(data.get("message") or detail.get("message") or detail.get("name") or detail)
                else:
                    error = str(detail or "error")
        is_error = error is not None or returncode != 0
        return HostOutput(
            final_text=text,
            is_error=is_error,
            error_message=(error or _exit_failure(returncode, stderr)) if is_error else None,
            cost_usd=cost if saw_cost else None,
            num_turns=steps,
        )


JUDGES: dict[str, Judge] = {host.name: host for host in (ClaudeCodeHost(), CodexHost(), OpenCodeHost())}


def resolve_host(provider: str) -> Judge:
    key = (provider or "").strip().lower()
    for host in JUDGES.values():
        if key in host.aliases:
            return host
    supported = ", ".join(JUDGES)
    raise UnsupportedHostError(f"unsupported harness provider {provider!r}; supported: {supported}")
