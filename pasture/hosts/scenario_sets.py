"""The scripted scenarios `pasture capture` runs a host through, and the sets a host's capture adapter
composes from them (:class:`ScenarioSet`; :mod:`pasture.evolve.scenarios` collects every host's). What is
the same for every host, or for every host of one adapter kind, is here; a host's own scenarios (its
refusal channels, its answers in its own wire forms) are in its host module (``pasture/hosts/<host>.py``).

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

*Answer* scenarios (:class:`Answer`; issue 17) try one answer beyond deny/ask in its native wire
form and record whether the host **honoured** it, from what the host did, never from what it said:

* ``rewrite``: the model asks for ``echo pasture-probe > probe-asked.txt``; the hook rewrites the
  command to write ``probe.txt``. Honoured if ``probe.txt`` appears and ``probe-asked.txt`` does not.
* ``allow``: the run uses the host's default permission mode (no bypass flags), where a
  ``*-no-answer`` control scenario shows the same call is not run (a headless run cannot prompt).
  Honoured if the probe file appears.
* ``context``: the hook adds a marker text; honoured if the marker is in the next main request the
  fake model receives (the first one: the hooks run before it).
* ``feedback``: after the shell call the hook sends a marker reason; honoured if the marker is in
  what the next main request added after the tool call.
* ``continue``: the model stops at once; the Stop hook blocks with a marker reason on the first
  :data:`CONTINUE_BOUND` stops (our bound, counted by the hook), then lets the host stop. Honoured
  if the next request holds the reason, the next turn writes the probe, and the host stopped by
  itself after exactly :data:`CONTINUE_BOUND` continuations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pasture.hosts.script import Script, Turn

PROBE_FILE = "probe.txt"
PROBE_COMMAND = f"echo pasture-probe > {PROBE_FILE}"
PROMPT = "Create the pasture probe file, then report."
REASON = "pasture capture refused this"
STOP_REASON = "pasture capture refused this stop: create the probe file first"

PROBE = Script.of(
    Turn.shell(PROBE_COMMAND, "Write the pasture probe file"),
    Turn.reply("Done. The tool said: {tool_result}"),
)
STOP_THEN_PROBE = Script.of(
    Turn.reply("Nothing to do, stopping."),
    Turn.shell(PROBE_COMMAND, "Write the pasture probe file"),
    Turn.reply("Done. The tool said: {tool_result}"),
)
STOP = Script.of(Turn.reply("Nothing to do, stopping."))


#: Answer scenarios: the file the model asks to write before a rewrite, and the markers.
ASKED_FILE = "probe-asked.txt"
ASKED_COMMAND = f"echo pasture-probe > {ASKED_FILE}"
CONTINUE_BOUND = 2  # continuations the Stop hook asks for before it lets the host stop

#: The answer capabilities (the capability matrix's vocabulary).
CAPABILITIES = ("allow", "rewrite", "context", "feedback", "continue")


def marker(scenario_name: str) -> str:
    """The text an answer scenario sends; plain ASCII so it survives every wire encoding."""
    return f"pasture-answer-marker {scenario_name}"


@dataclass(frozen=True)
class Answer:
    """One answer tried on a real host: the capability, the native event that gives it, the wire
    form (as the matrix names it), and what the hook sends (``output``: the JSON a command hook
    prints, with ``{marker}`` filled in; ``plugin``: the OpenCode recording plugin's answer op)."""

    capability: str
    event: str
    wire: str
    output: dict[str, Any] | None = None
    plugin: dict[str, Any] | None = None
    times: int = 1  # on the first N calls of the event
    merge_tool_input: bool = False  # updatedInput laid over the payload's tool_input

    def filled(self, text: str) -> Any:
        """The output (or plugin op) with every ``{marker}`` string replaced by ``text``."""

        def fill(value: Any) -> Any:
            if isinstance(value, str):
                return value.replace("{marker}", text)
            if isinstance(value, dict):
                return {k: fill(v) for k, v in value.items()}
            if isinstance(value, list):
                return [fill(v) for v in value]
            return value

        return fill(self.output if self.output is not None else self.plugin)


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    script: Script
    refused_event: str | None = None  # the native event whose hook refuses
    # exit-2 | json-deny | json-ask | throw | block (Pi: {block: true, reason} returned) | adapter (the refusal a
    # generated hook file prints: Cline's) | cancel (Cline: {cancel: true})
    channel: str | None = None
    held_means_probe: bool | None = None  # refusals: True if the refusal holding leaves the probe present
    prompt: str | None = None  # instead of PROMPT
    files: tuple[tuple[str, str], ...] = ()  # (project-relative path, text) written before the run
    triggers: tuple[str, ...] = ()  # run only for host versions whose catalog lists one of these events
    answer: Answer | None = None  # an answer scenario (see the module docstring)
    options: tuple[tuple[str, Any], ...] = ()  # launcher options over the adapter's (permission modes)
    control: str | None = None  # an allow scenario: the control scenario that shows the call is otherwise not run

    @property
    def refuses(self) -> bool:
        return self.refused_event is not None

    def held(self, probe_present: bool) -> bool | None:
        return None if self.held_means_probe is None else probe_present is self.held_means_probe

    def reason(self) -> str:
        return STOP_REASON if self.held_means_probe else REASON

    @property
    def marker(self) -> str | None:
        return marker(self.name) if self.answer is not None else None


ALLOW = Scenario("allow", "a tool call nothing refuses: the shell tool writes the probe file", PROBE)


def command_host_scenarios() -> tuple[Scenario, ...]:
    """Claude Code and Codex: command hooks refuse by exit 2 (reason on stderr) or by JSON on stdout."""
    return (
        ALLOW,
        Scenario(
            "pre-tool-use-exit-2",
            "PreToolUse refuses the shell call by exiting 2 with the reason on stderr",
            PROBE,
            "PreToolUse",
            "exit-2",
            False,
        ),
        Scenario(
            "pre-tool-use-json-deny",
            "PreToolUse refuses the shell call with hookSpecificOutput."
            "permissionDecision deny and a permissionDecisionReason",
            PROBE,
            "PreToolUse",
            "json-deny",
            False,
        ),
        Scenario(
            "user-prompt-submit-exit-2",
            "UserPromptSubmit refuses the prompt by exiting 2; the first model turn would write the probe file",
            PROBE,
            "UserPromptSubmit",
            "exit-2",
            False,
        ),
        Scenario(
            "stop-exit-2",
            "the model stops at once; Stop refuses that first stop by exiting 2, and only a "
            "host that goes on lets the next turn write the probe file",
            STOP_THEN_PROBE,
            "Stop",
            "exit-2",
            True,
        ),
    )


ASK = Scenario(
    "pre-tool-use-json-ask",
    "PreToolUse answers the shell call with hookSpecificOutput."
    "permissionDecision ask; a headless run has nobody to ask, so the call must not run",
    PROBE,
    "PreToolUse",
    "json-ask",
    False,
)


# --- answers beyond deny/ask (issue 17) ----------------------------------------------------------

REWRITE = Script.of(
    Turn.shell(ASKED_COMMAND, "Write the pasture probe file"),
    Turn.reply("Done. The tool said: {tool_result}"),
)

_SPECIFIC = "hookSpecificOutput"
W_ALLOW = "hookSpecificOutput.permissionDecision=allow"
W_BEHAVIOR_ALLOW = "hookSpecificOutput.decision.behavior=allow"
W_UPDATED_INPUT = "hookSpecificOutput.updatedInput+permissionDecision=allow"
W_CONTEXT = "hookSpecificOutput.additionalContext"
W_BLOCK_REASON = "decision=block+reason"


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {_SPECIFIC: {"hookEventName": event, **fields}}


def _rewrite(event: str = "PreToolUse") -> Answer:
    return Answer(
        "rewrite",
        event,
        W_UPDATED_INPUT,
        specific(
            event,
            permissionDecision="allow",
            permissionDecisionReason="{marker}",
            updatedInput={"command": PROBE_COMMAND},
        ),
        merge_tool_input=True,
    )


@dataclass(frozen=True)
class Approvals:
    """How a shell call comes to need an approval on a command-hook host (where the allow answers are tried)."""

    options: tuple[tuple[str, Any], ...]  # launcher options of that run
    probe: Script  # the model's turns there
    where: str  # in prose, for the scenario descriptions
    rewrite_too: bool  # the rewrite answer runs there too (else in the capture's usual bypass mode)


def command_answer_scenarios(approvals_at: Approvals) -> tuple[Scenario, ...]:
    """Claude Code and Codex share the wire forms; what differs is how a call comes to need an approval."""
    approvals, probe, where = approvals_at.options, approvals_at.probe, approvals_at.where
    rewrite_where = (approvals, where) if approvals_at.rewrite_too else ((), "in the capture's usual bypass mode")
    return (
        Scenario(
            "pre-tool-use-rewrite",
            "PreToolUse rewrites the shell call (the model asked for "
            f"{ASKED_COMMAND}) with updatedInput and permissionDecision allow, {rewrite_where[1]}; "
            "the rewritten command must be the one that ran",
            REWRITE,
            answer=_rewrite(),
            options=rewrite_where[0],
        ),
        Scenario(
            "no-answer-approval",
            f"control for the allow answers: the shell call {where}, nothing "
            "answers; a headless run has nobody to approve it, so it must not run",
            probe,
            options=approvals,
        ),
        Scenario(
            "pre-tool-use-allow",
            f"PreToolUse answers permissionDecision allow (no updatedInput) {where}; "
            "honoured if the call runs without a prompt",
            probe,
            options=approvals,
            control="no-answer-approval",
            answer=Answer(
                "allow",
                "PreToolUse",
                W_ALLOW,
                specific("PreToolUse", permissionDecision="allow", permissionDecisionReason="{marker}"),
            ),
        ),
        Scenario(
            "permission-request-allow",
            f"PermissionRequest answers decision.behavior allow {where}; honoured if the call runs without a prompt",
            probe,
            options=approvals,
            control="no-answer-approval",
            answer=Answer(
                "allow",
                "PermissionRequest",
                W_BEHAVIOR_ALLOW,
                specific("PermissionRequest", decision={"behavior": "allow"}),
            ),
        ),
        Scenario(
            "session-start-context",
            "SessionStart adds hookSpecificOutput.additionalContext; honoured if "
            "the text is in the first request the model receives",
            PROBE,
            answer=Answer("context", "SessionStart", W_CONTEXT, specific("SessionStart", additionalContext="{marker}")),
        ),
        Scenario(
            "user-prompt-submit-context",
            "UserPromptSubmit adds hookSpecificOutput.additionalContext; "
            "honoured if the text is in the first request the model receives",
            PROBE,
            answer=Answer(
                "context", "UserPromptSubmit", W_CONTEXT, specific("UserPromptSubmit", additionalContext="{marker}")
            ),
        ),
        Scenario(
            "post-tool-use-feedback",
            "after the shell call PostToolUse answers decision block with a "
            "reason; honoured if the reason is in what the next request adds after the tool call",
            PROBE,
            answer=Answer("feedback", "PostToolUse", W_BLOCK_REASON, {"decision": "block", "reason": "{marker}"}),
        ),
        Scenario(
            "stop-block-continue",
            f"the model stops at once; Stop answers decision block with a reason on "
            f"the first {CONTINUE_BOUND} stops (our bound), then lets the host stop; honoured if the next "
            "request holds the reason, the next turn writes the probe file, and the host stops by itself "
            f"after {CONTINUE_BOUND} continuations",
            STOP_THEN_PROBE,
            answer=Answer(
                "continue", "Stop", W_BLOCK_REASON, {"decision": "block", "reason": "{marker}"}, times=CONTINUE_BOUND
            ),
        ),
    )


@dataclass(frozen=True)
class ScenarioSet:
    """The scenarios one host runs (its capture adapter's ``scenario_set()``), in the order they run."""

    base: tuple[Scenario, ...]  # every version: the common ones
    extra: tuple[Scenario, ...] = ()  # every version, after the common ones
    trigger: tuple[Scenario, ...] = ()  # only for versions whose catalog names one of a scenario's triggers
    answer: tuple[Scenario, ...] = ()  # every version, after all the others (issue 17)

    def for_catalog(self, catalog: list[str] | None) -> tuple[Scenario, ...]:
        listed = set(catalog or ())
        return self.base + self.extra + tuple(s for s in self.trigger if listed & set(s.triggers)) + self.answer
