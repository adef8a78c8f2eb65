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

from ..hostenv import Script, Turn

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
    channel: str | None = None  # exit-2 | json-deny | throw
    held_means_probe: bool | None = None  # refusals: True if the refusal holding leaves the probe present

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
