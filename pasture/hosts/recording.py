"""What every capture adapter shares: the recording hooks (or plugin) `pasture capture` installs into a
throwaway project, and what it reads back. Each host's adapter (``HOST.capture``) lives in its host
module (``pasture/hosts/<host>.py``) and also knows how its host tells which events it offers (its
*catalog pass*, where it has one).

Host-neutral, and light at import: the host registry imports it, so the recorder (pasture.hostenv,
which imports the registry) and the scenarios are imported only when a capture runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pasture.hosts.scenario_sets import Scenario, ScenarioSet


class Run(Protocol):
    """The part of a prepared host run (pasture.hostenv.HostRun) an adapter writes into and reads from."""

    @property
    def root(self) -> Path: ...

    @property
    def project(self) -> Path: ...


CATALOG_PROBE = "PastureCatalogProbe"
#: Claude Code / Codex events whose JSON refusal is hookSpecificOutput.permissionDecision (as their
#: catalogs' output schemas say), not the shared decision: block.
PERMISSION_DECISION_EVENTS = frozenset({"PreToolUse", "PreSkillShellCommand", "PreModelSwitch"})
HOOK_TIMEOUT = 30  # seconds, per recording command hook


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
    import yaml  # only when capturing, not for the registry

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
    """How ``pasture capture`` records one host (``HOST.capture``). Subclasses live in the host modules."""

    harness = ""
    options: dict[str, Any] = {}
    #: where the hook log goes, under the run root
    log_name = "hooks.jsonl"

    def candidates(self, repo_root: Path) -> list[str]:
        raise NotImplementedError

    def has_catalog_pass(self) -> bool:
        return False

    def install_catalog_probe(self, run: Run, candidates: list[str]) -> None:
        raise NotImplementedError

    def read_catalog(self, run: Run) -> list[str] | None:
        raise NotImplementedError

    def install(self, run: Run, scenario: Scenario, events: list[str]) -> None:
        raise NotImplementedError

    def records(self, run: Run) -> Records:
        raise NotImplementedError

    def catalog_method(self) -> str:
        raise NotImplementedError

    def scenario_set(self) -> ScenarioSet:
        """The scenarios this host runs (built from :mod:`.scenario_sets`)."""
        raise NotImplementedError


class CommandHookCapture(CaptureAdapter):
    """A host whose hooks are commands in a JSON file of the throwaway project (``config_dir/config_file``)."""

    config_dir = ""
    config_file = ""
    #: the host's unit of a hook's "timeout" (Gemini CLI counts milliseconds)
    timeout_scale = 1
    #: the JSON refusal's decision word where the event reads the shared "decision"
    decision_word = "block"

    def _hooks(self, run: Run, events: list[str], scenario: Scenario | None) -> dict[str, Any]:
        from pasture.hosts.recorder import install_recorder, recorder_command

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
                    "decision_word": self.decision_word,
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
            hook = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT * self.timeout_scale}
            table[event] = [{"hooks": [hook]}]
        return {"hooks": table}

    def _write(self, run: Run, document: dict[str, Any]) -> None:
        folder = run.project / self.config_dir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / self.config_file).write_text(json.dumps(document, indent=2) + "\n")

    def install_catalog_probe(self, run: Run, candidates: list[str]) -> None:
        self._write(run, self._hooks(run, candidates, None))

    def install(self, run: Run, scenario: Scenario, events: list[str]) -> None:
        self._write(run, self._hooks(run, events, scenario))

    def records(self, run: Run) -> Records:
        from pasture.hosts.recorder import read_records

        out = Records()
        for record in read_records(run.root / self.log_name):
            out.calls.append(
                HookRecord(
                    record["event"], record.get("payload"), {"cwd": record.get("cwd"), "env": record.get("env", {})}
                )
            )
        return out
