"""The scripted scenarios `pasture capture` runs each host through.

Every scenario runs the real host once, headless, against the fake model, with the capture adapter
recording every hook call. The *probe file* (``probe.txt`` in the throwaway project, written only by
the scripted shell call ``echo pasture-probe > probe.txt``) shows whether the tool's effect happened:

* ``allow``: nothing refuses; the probe must appear.
* a tool refusal (``pre-tool-use-*``, ``tool-execute-before-throw``): the refusal held if the probe
  is absent.
* a prompt refusal (``user-prompt-submit-exit-2``): the model's first turn would write the probe; the
  refusal held if it is absent (the prompt never reached the model).
* a stop refusal (``stop-exit-2``): the model first stops without doing anything; only if the host
  refuses that stop and goes on does the next turn write the probe. The refusal held if the probe is
  present. The refusing hook refuses only the first stop (``stop_hook_active`` false).
* ``stop`` (hosts with no stop refusal channel): the model answers without a tool and the host stops;
  recorded for the stop-time events only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.hostenv import Script, Turn

PROBE_FILE = "probe.txt"
PROBE_COMMAND = f"echo pasture-probe > {PROBE_FILE}"
PROMPT = "Create the pasture probe file, then report."
REASON = "pasture capture refused this"
STOP_REASON = "pasture capture refused this stop: create the probe file first"

_PROBE = Script.of(
    Turn.shell(PROBE_COMMAND, "Write the pasture probe file"),
    Turn.reply("Done. The tool said: {tool_result}"),
)
_STOP_THEN_PROBE = Script.of(
    Turn.reply("Nothing to do, stopping."),
    Turn.shell(PROBE_COMMAND, "Write the pasture probe file"),
    Turn.reply("Done. The tool said: {tool_result}"),
)
_STOP = Script.of(Turn.reply("Nothing to do, stopping."))


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    script: Script
    refused_event: str | None = None  # the native event whose hook refuses
    channel: str | None = None  # exit-2 | json-deny | json-ask | throw
    held_means_probe: bool | None = None  # refusals: True if the refusal holding leaves the probe present
    prompt: str | None = None  # instead of PROMPT
    files: tuple[tuple[str, str], ...] = ()  # (project-relative path, text) written before the run
    triggers: tuple[str, ...] = ()  # run only for host versions whose catalog lists one of these events

    @property
    def refuses(self) -> bool:
        return self.refused_event is not None

    def held(self, probe_present: bool) -> bool | None:
        return None if self.held_means_probe is None else probe_present is self.held_means_probe

    def reason(self) -> str:
        return STOP_REASON if self.held_means_probe else REASON


ALLOW = Scenario("allow", "a tool call nothing refuses: the shell tool writes the probe file", _PROBE)


def _command_host_scenarios() -> tuple[Scenario, ...]:
    """Claude Code and Codex: command hooks refuse by exit 2 (reason on stderr) or by JSON on stdout."""
    return (
        ALLOW,
        Scenario("pre-tool-use-exit-2", "PreToolUse refuses the shell call by exiting 2 with the reason on stderr",
                 _PROBE, "PreToolUse", "exit-2", False),
        Scenario("pre-tool-use-json-deny", "PreToolUse refuses the shell call with hookSpecificOutput."
                 "permissionDecision deny and a permissionDecisionReason", _PROBE, "PreToolUse", "json-deny", False),
        Scenario("user-prompt-submit-exit-2", "UserPromptSubmit refuses the prompt by exiting 2; the first model "
                 "turn would write the probe file", _PROBE, "UserPromptSubmit", "exit-2", False),
        Scenario("stop-exit-2", "the model stops at once; Stop refuses that first stop by exiting 2, and only a "
                 "host that goes on lets the next turn write the probe file", _STOP_THEN_PROBE, "Stop", "exit-2",
                 True),
    )


# Claude Code's PreSkillShellCommand fires before a shell command embedded in a slash command or
# skill (a line "!`command`") runs, at prompt expansion, before the model sees the prompt. A
# project slash command whose only shell line writes the probe file triggers it offline: the
# prompt "/pasture-probe" expands it, and the fake model just answers.
_SKILL_COMMAND = (".claude/commands/pasture-probe.md", f"""---
description: Write the pasture probe file
allowed-tools: Bash(echo:*)
---
!`{PROBE_COMMAND}`
Report what the command above printed.
""")
_SKILL_REPLY = Script.of(Turn.reply("Done."))


def _slash_command_scenarios() -> tuple[Scenario, ...]:
    expansion: dict[str, Any] = dict(prompt="/pasture-probe", files=(_SKILL_COMMAND,))
    common: dict[str, Any] = dict(expansion, triggers=("PreSkillShellCommand",))
    return (
        Scenario("slash-command-allow", "the slash command /pasture-probe holds the shell line "
                 f"!`{PROBE_COMMAND}`; nothing refuses, so expanding it writes the probe file", _SKILL_REPLY,
                 **expansion, triggers=("UserPromptExpansion", "PreSkillShellCommand")),
        Scenario("user-prompt-expansion-exit-2", "UserPromptExpansion refuses the expansion of /pasture-probe by "
                 "exiting 2; the expansion (and its shell line) must not happen", _SKILL_REPLY,
                 "UserPromptExpansion", "exit-2", False, **expansion, triggers=("UserPromptExpansion",)),
        Scenario("pre-skill-shell-command-exit-2", "PreSkillShellCommand refuses the slash command's shell line by "
                 "exiting 2 with the reason on stderr", _SKILL_REPLY, "PreSkillShellCommand", "exit-2", False,
                 **common),
        Scenario("pre-skill-shell-command-json-deny", "PreSkillShellCommand refuses the slash command's shell line "
                 "with hookSpecificOutput.permissionDecision deny", _SKILL_REPLY, "PreSkillShellCommand",
                 "json-deny", False, **common),
    )


_ASK = Scenario("pre-tool-use-json-ask", "PreToolUse answers the shell call with hookSpecificOutput."
                "permissionDecision ask; a headless run has nobody to ask, so the call must not run", _PROBE,
                "PreToolUse", "json-ask", False)

#: Scenarios that exist to trigger one event, run only for host versions whose catalog lists it.
TRIGGER_SCENARIOS: dict[str, tuple[Scenario, ...]] = {
    "claude-code": _slash_command_scenarios(),
}
#: Scenarios run for every version of a host after the common ones.
EXTRA_SCENARIOS: dict[str, tuple[Scenario, ...]] = {"claude-code": (_ASK,)}


def scenarios_for(harness: str, catalog: list[str] | None) -> tuple[Scenario, ...]:
    """Every scenario to run for a host version: the common ones, then those that trigger an event
    the version's own catalog (or event list) names."""
    listed = set(catalog or ())
    extra = tuple(s for s in TRIGGER_SCENARIOS.get(harness, ()) if listed & set(s.triggers))
    return SCENARIOS[harness] + EXTRA_SCENARIOS.get(harness, ()) + extra


def trigger_scenario_events(harness: str) -> set[str]:
    """Events for which an offline scenario can be built."""
    return {e for s in TRIGGER_SCENARIOS.get(harness, ()) for e in s.triggers}


SCENARIOS: dict[str, tuple[Scenario, ...]] = {
    "claude-code": _command_host_scenarios(),
    "codex": _command_host_scenarios(),
    "opencode": (
        ALLOW,
        Scenario("tool-execute-before-throw", "the plugin throws from tool.execute.before for the bash call",
                 _PROBE, "tool.execute.before", "throw", False),
        Scenario("stop", "the model answers without a tool and the host stops (OpenCode 1.x offers no stop "
                 "refusal channel)", _STOP),
    ),
}
