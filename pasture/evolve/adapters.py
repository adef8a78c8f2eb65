"""Capture adapters: the recording hooks (or plugin) `pasture capture` installs into a throwaway project.

They reuse :mod:`pasture.hostenv.recorder`: the recording command hook for Claude Code and Codex,
the recording plugin for OpenCode. Each adapter also knows how its host tells which events it
offers (its *catalog*):

* **Claude Code** names every valid hook event when its settings carry an unknown one. A catalog
  pass registers only the probe key :data:`CATALOG_PROBE`; the debug log then says
  ``Unknown hook event "PastureCatalogProbe" was ignored. Valid events: ...``.
* **Codex** silently ignores unknown keys in ``hooks.json``, but ``codex app-server``'s
  ``hooks/list`` (the hook-trust route) lists the hooks it loaded. A catalog pass registers every
  event name any Claude Code or Codex profile knows (Codex copies Claude's names) plus the probe
  key; what ``hooks/list`` returns is what this Codex accepts.
* **OpenCode** calls a plugin's hooks by looking them up on the object the plugin returns; the
  recording plugin answers with a Proxy that records every lookup, so every hook name the host asks
  for is seen, and every bus event arrives through the catch-all ``event`` hook. No catalog pass.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pasture.evolve.scenarios import Scenario
from pasture.hostenv import HostRun, install_recorder, opencode_recorder_plugin, read_records, recorder_command
from pasture.hostenv.recorder import OPENCODE_RECORDED_HOOKS

CATALOG_PROBE = "PastureCatalogProbe"
#: Claude Code / Codex events whose JSON refusal is hookSpecificOutput.permissionDecision (as their
#: catalogs' output schemas say), not the shared decision: block.
PERMISSION_DECISION_EVENTS = frozenset({"PreToolUse", "PreSkillShellCommand", "PreModelSwitch"})
HOOK_TIMEOUT = 30  # seconds, per recording command hook
_CLAUDE_VALID = re.compile(rf'Unknown hook event "{CATALOG_PROBE}" was ignored\. Valid events: ([A-Za-z, ]+)')


@dataclass
class HookRecord:
    """One hook call: the native event name, the payload the host handed over, the hook process."""

    event: str
    payload: Any
    process: dict[str, Any] | None = None  # {"cwd", "env"} for command hooks
    bus: bool = False  # OpenCode: a bus event seen through the catch-all event hook


@dataclass
class Records:
    calls: list[HookRecord] = field(default_factory=list)
    lookups: list[str] = field(default_factory=list)  # OpenCode: hook names the host looked up
    plugin_init: Any = None  # OpenCode: what the plugin function was given


def profile_event_names(repo_root: Path, harnesses: tuple[str, ...], surface: str | None = None) -> list[str]:
    """Event names of every committed profile of these harnesses (read leniently: a half-edited
    profile elsewhere must not stop a capture), sorted."""
    names: set[str] = set()
    profiles = Path(repo_root) / "profiles"
    if not profiles.is_dir():
        return []
    for folder in sorted(profiles.iterdir()):
        if folder.name.partition("@")[0] not in harnesses:
            continue
        try:
            data = yaml.safe_load((folder / "lifecycle.yaml").read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            continue
        for row in (data or {}).get("events") or []:
            if isinstance(row, dict) and isinstance(row.get("name"), str):
                if surface is None or row.get("surface") == surface:
                    names.add(row["name"])
    return sorted(names)


class CaptureAdapter:
    harness = ""
    options: dict[str, Any] = {}
    #: where the hook log goes, under the run root
    log_name = "hooks.jsonl"

    def candidates(self, repo_root: Path) -> list[str]:
        raise NotImplementedError

    def has_catalog_pass(self) -> bool:
        return False

    def install_catalog_probe(self, run: HostRun, candidates: list[str]) -> None:
        raise NotImplementedError

    def read_catalog(self, run: HostRun) -> list[str] | None:
        raise NotImplementedError

    def install(self, run: HostRun, scenario: Scenario, events: list[str]) -> None:
        raise NotImplementedError

    def records(self, run: HostRun) -> Records:
        raise NotImplementedError

    def catalog_method(self) -> str:
        raise NotImplementedError


class _CommandHookAdapter(CaptureAdapter):
    config_dir = ""
    config_file = ""

    def _hooks(self, run: HostRun, events: list[str], scenario: Scenario | None) -> dict[str, Any]:
        recorder = install_recorder(run.root)
        log = run.root / self.log_name
        table: dict[str, Any] = {}
        for event in events:
            mode = "observe"
            kwargs: dict[str, Any] = {}
            if scenario is not None and scenario.refused_event == event:
                mode = {"exit-2": "exit2", "json-deny": "deny", "json-ask": "ask"}[scenario.channel or ""]
                kwargs = {
                    "reason": scenario.reason(),
                    "block_event": event,
                    # PreToolUse answers with permissionDecision by default (recorder)
                    "permission_decision": (
                        mode in ("deny", "ask") and event != "PreToolUse" and event in PERMISSION_DECISION_EVENTS
                    ),
                }
            answer = scenario.answer if scenario is not None else None
            if scenario is not None and answer is not None and answer.event == event:
                # the answer document stays in a file: some hosts show the model the hook's command line
                answer_file = run.root / f"answer-{event}.json"
                answer_file.write_text(json.dumps(answer.filled(scenario.marker or ""), sort_keys=True) + "\n")
                mode, kwargs = (
                    "answer",
                    {
                        "answer_file": answer_file,
                        "answer_times": answer.times,
                        "merge_tool_input": answer.merge_tool_input,
                    },
                )
            command = recorder_command(recorder, log, event, mode=mode, **kwargs)
            table[event] = [{"hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}]
        return {"hooks": table}

    def _write(self, run: HostRun, document: dict[str, Any]) -> None:
        folder = run.project / self.config_dir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / self.config_file).write_text(json.dumps(document, indent=2) + "\n")

    def install_catalog_probe(self, run: HostRun, candidates: list[str]) -> None:
        self._write(run, self._hooks(run, candidates, None))

    def install(self, run: HostRun, scenario: Scenario, events: list[str]) -> None:
        self._write(run, self._hooks(run, events, scenario))

    def records(self, run: HostRun) -> Records:
        out = Records()
        for record in read_records(run.root / self.log_name):
            out.calls.append(
                HookRecord(
                    record["event"], record.get("payload"), {"cwd": record.get("cwd"), "env": record.get("env", {})}
                )
            )
        return out


class ClaudeCodeAdapter(_CommandHookAdapter):
    harness = "claude-code"
    config_dir = ".claude"
    config_file = "settings.json"
    options = {"debug_file": True}

    def candidates(self, repo_root: Path) -> list[str]:
        return profile_event_names(repo_root, ("claude-code",))

    def has_catalog_pass(self) -> bool:
        return True

    def install_catalog_probe(self, run: HostRun, candidates: list[str]) -> None:
        # Only the probe key: the host's error message lists every valid event.
        self._write(run, self._hooks(run, [CATALOG_PROBE], None))

    def read_catalog(self, run: HostRun) -> list[str] | None:
        log = run.root / "claude-debug.log"
        if not log.exists():
            return None
        match = _CLAUDE_VALID.search(log.read_text(errors="replace"))
        if match is None:
            return None
        return [name.strip() for name in match.group(1).split(",") if name.strip()]

    def catalog_method(self) -> str:
        return (
            f"settings.json registered the unknown hook event {CATALOG_PROBE}; the host's debug log "
            "listed its valid events"
        )


class CodexAdapter(_CommandHookAdapter):
    harness = "codex"
    config_dir = ".codex"
    config_file = "hooks.json"
    # The production trust route: codex app-server hooks/list, then [hooks.state] trusted_hash per hook.
    options = {"hook_trust": "persist"}

    def candidates(self, repo_root: Path) -> list[str]:
        return sorted(set(profile_event_names(repo_root, ("claude-code", "codex"))) | {CATALOG_PROBE})

    def has_catalog_pass(self) -> bool:
        return True

    def read_catalog(self, run: HostRun) -> list[str] | None:
        path = run.root / "codex-hook-trust.json"
        if not path.exists():
            return None
        hooks = json.loads(path.read_text())
        names = []
        for hook in hooks:
            event = hook.get("eventName")
            if isinstance(event, str) and event:
                pascal = event[0].upper() + event[1:]
                if pascal not in names:
                    names.append(pascal)
        return names

    def catalog_method(self) -> str:
        return (
            "hooks.json registered every event name the Claude Code and Codex profiles know plus "
            f"{CATALOG_PROBE}; codex app-server hooks/list named the ones this Codex loaded"
        )


class OpenCodeAdapter(CaptureAdapter):
    harness = "opencode"
    log_name = "plugin.jsonl"
    options: dict[str, Any] = {}

    def candidates(self, repo_root: Path) -> list[str]:
        named = set(profile_event_names(repo_root, ("opencode",), "opencode-named-output"))
        return sorted(named | set(OPENCODE_RECORDED_HOOKS))

    def install(self, run: HostRun, scenario: Scenario, events: list[str]) -> None:
        plugins = run.project / ".opencode" / "plugins"
        plugins.mkdir(parents=True, exist_ok=True)
        block = "bash" if scenario.channel == "throw" else None
        answers = None
        if scenario.answer is not None:
            answers = {scenario.answer.event: scenario.answer.filled(scenario.marker or "")}
        source = opencode_recorder_plugin(
            run.root / self.log_name,
            block_tool=block,
            reason=scenario.reason(),
            hooks=events,
            discover=True,
            answers=answers,
        )
        (plugins / "pasture-capture.js").write_text(source)

    def records(self, run: HostRun) -> Records:
        out = Records()
        for record in read_records(run.root / self.log_name):
            hook = record.get("hook")
            if hook == "plugin.init":
                out.plugin_init = record.get("input")
            elif hook == "plugin.lookup":
                name = (record.get("input") or {}).get("name")
                if isinstance(name, str) and name not in out.lookups:
                    out.lookups.append(name)
            elif hook == "event":
                event = (record.get("input") or {}).get("event") or {}
                out.calls.append(HookRecord(str(event.get("type")), event, bus=True))
            elif isinstance(hook, str):
                out.calls.append(HookRecord(hook, {"input": record.get("input"), "output": record.get("output")}))
        return out

    def catalog_method(self) -> str:
        return (
            "the recording plugin's hooks object is a Proxy that records every hook name the host looks "
            "up; bus events arrive through the catch-all event hook"
        )


class CopilotCliAdapter(_CommandHookAdapter):
    """GitHub Copilot CLI: ``.github/hooks/pasture-capture.json`` (``{"version": 1, "hooks": {event:
    [handler]}}``, no matcher groups, ``bash`` and ``timeoutSec``), loaded in a folder trusted the way
    ``pasture install`` trusts it (``~/.copilot/config.json`` ``trustedFolders``). Its JSON deny is the
    flat ``{"permissionDecision": "deny", "permissionDecisionReason"}`` on preToolUse and
    ``{"decision": "block", "reason"}`` elsewhere, printed from an answer file. No catalog pass: the
    catalog comes from the package the binary unpacks (pasture.catalog.copilot)."""

    harness = "copilot-cli"
    config_dir = ".github/hooks"
    config_file = "pasture-capture.json"
    options = {"trust": "persist"}

    def candidates(self, repo_root: Path) -> list[str]:
        from pasture.hosts.copilot_cli import ACCEPTED_EVENTS

        return sorted(ACCEPTED_EVENTS)

    def _hooks(self, run: HostRun, events: list[str], scenario: Scenario | None) -> dict[str, Any]:
        recorder = install_recorder(run.root)
        log = run.root / self.log_name
        table: dict[str, Any] = {}
        for event in events:
            kwargs: dict[str, Any] = {"mode": "observe"}
            if scenario is not None and scenario.refused_event == event:
                if scenario.channel == "exit-2":
                    kwargs = {"mode": "exit2", "reason": scenario.reason(), "block_event": event}
                else:
                    refusal = (
                        {"permissionDecision": "deny", "permissionDecisionReason": scenario.reason()}
                        if event == "preToolUse"
                        else {"decision": "block", "reason": scenario.reason()}
                    )
                    answer_file = run.root / f"refusal-{event}.json"
                    answer_file.write_text(json.dumps(refusal, sort_keys=True) + "\n")
                    kwargs = {"mode": "answer", "answer_file": answer_file, "answer_times": 1}
            answer = scenario.answer if scenario is not None else None
            if scenario is not None and answer is not None and answer.event == event:
                answer_file = run.root / f"answer-{event}.json"
                answer_file.write_text(json.dumps(answer.filled(scenario.marker or ""), sort_keys=True) + "\n")
                kwargs = {"mode": "answer", "answer_file": answer_file, "answer_times": answer.times}
            command = recorder_command(recorder, log, event, **kwargs)
            table[event] = [{"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT}]
        return {"version": 1, "hooks": table}

    def records(self, run: HostRun) -> Records:
        # the package the native binary unpacked into the run's cache (about 235 MB) is not a record
        shutil.rmtree(run.root / "home" / ".cache" / "copilot" / "pkg", ignore_errors=True)
        return super().records(run)

    def catalog_method(self) -> str:
        return (
            "no catalog pass: the hook events are the settings schema's hooks.<event> entries in the hook "
            "runtime the binary unpacks (captures/<version>/catalog.json); every one is registered"
        )


ADAPTERS: dict[str, CaptureAdapter] = {
    a.harness: a for a in (ClaudeCodeAdapter(), CodexAdapter(), OpenCodeAdapter(), CopilotCliAdapter())
}
