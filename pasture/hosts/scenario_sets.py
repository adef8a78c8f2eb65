"""The scripted scenarios `pasture capture` runs a host through, and the sets a host's capture adapter
composes from them (:class:`ScenarioSet`; :mod:`.scenarios` collects every host's).

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
    channel: str | None = None  # exit-2 | json-deny | json-ask | throw | block (Pi: {block: true, reason} returned)
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


ALLOW = Scenario("allow", "a tool call nothing refuses: the shell tool writes the probe file", _PROBE)


def command_host_scenarios() -> tuple[Scenario, ...]:
    """Claude Code and Codex: command hooks refuse by exit 2 (reason on stderr) or by JSON on stdout."""
    return (
        ALLOW,
        Scenario(
            "pre-tool-use-exit-2",
            "PreToolUse refuses the shell call by exiting 2 with the reason on stderr",
            _PROBE,
            "PreToolUse",
            "exit-2",
            False,
        ),
        Scenario(
            "pre-tool-use-json-deny",
            "PreToolUse refuses the shell call with hookSpecificOutput."
            "permissionDecision deny and a permissionDecisionReason",
            _PROBE,
            "PreToolUse",
            "json-deny",
            False,
        ),
        Scenario(
            "user-prompt-submit-exit-2",
            "UserPromptSubmit refuses the prompt by exiting 2; the first model turn would write the probe file",
            _PROBE,
            "UserPromptSubmit",
            "exit-2",
            False,
        ),
        Scenario(
            "stop-exit-2",
            "the model stops at once; Stop refuses that first stop by exiting 2, and only a "
            "host that goes on lets the next turn write the probe file",
            _STOP_THEN_PROBE,
            "Stop",
            "exit-2",
            True,
        ),
    )


# Claude Code's PreSkillShellCommand fires before a shell command embedded in a slash command or
# skill (a line "!`command`") runs, at prompt expansion, before the model sees the prompt. A
# project slash command whose only shell line writes the probe file triggers it offline: the
# prompt "/pasture-probe" expands it, and the fake model just answers.
_SKILL_COMMAND = (
    ".claude/commands/pasture-probe.md",
    f"""---
description: Write the pasture probe file
allowed-tools: Bash(echo:*)
---
!`{PROBE_COMMAND}`
Report what the command above printed.
""",
)
_SKILL_REPLY = Script.of(Turn.reply("Done."))


def slash_command_scenarios() -> tuple[Scenario, ...]:
    expansion: dict[str, Any] = dict(prompt="/pasture-probe", files=(_SKILL_COMMAND,))
    common: dict[str, Any] = dict(expansion, triggers=("PreSkillShellCommand",))
    return (
        Scenario(
            "slash-command-allow",
            "the slash command /pasture-probe holds the shell line "
            f"!`{PROBE_COMMAND}`; nothing refuses, so expanding it writes the probe file",
            _SKILL_REPLY,
            **expansion,
            triggers=("UserPromptExpansion", "PreSkillShellCommand"),
        ),
        Scenario(
            "user-prompt-expansion-exit-2",
            "UserPromptExpansion refuses the expansion of /pasture-probe by "
            "exiting 2; the expansion (and its shell line) must not happen",
            _SKILL_REPLY,
            "UserPromptExpansion",
            "exit-2",
            False,
            **expansion,
            triggers=("UserPromptExpansion",),
        ),
        Scenario(
            "pre-skill-shell-command-exit-2",
            "PreSkillShellCommand refuses the slash command's shell line by exiting 2 with the reason on stderr",
            _SKILL_REPLY,
            "PreSkillShellCommand",
            "exit-2",
            False,
            **common,
        ),
        Scenario(
            "pre-skill-shell-command-json-deny",
            "PreSkillShellCommand refuses the slash command's shell line "
            "with hookSpecificOutput.permissionDecision deny",
            _SKILL_REPLY,
            "PreSkillShellCommand",
            "json-deny",
            False,
            **common,
        ),
    )


ASK = Scenario(
    "pre-tool-use-json-ask",
    "PreToolUse answers the shell call with hookSpecificOutput."
    "permissionDecision ask; a headless run has nobody to ask, so the call must not run",
    _PROBE,
    "PreToolUse",
    "json-ask",
    False,
)


def plugin_host_scenarios() -> tuple[Scenario, ...]:
    """OpenCode: the plugin refuses by throwing from tool.execute.before; 1.x offers no stop refusal channel."""
    return (
        ALLOW,
        Scenario(
            "tool-execute-before-throw",
            "the plugin throws from tool.execute.before for the bash call",
            _PROBE,
            "tool.execute.before",
            "throw",
            False,
        ),
        Scenario(
            "stop",
            "the model answers without a tool and the host stops (OpenCode 1.x offers no stop refusal channel)",
            _STOP,
        ),
    )


# --- answers beyond deny/ask (issue 17) ----------------------------------------------------------

_REWRITE = Script.of(
    Turn.shell(ASKED_COMMAND, "Write the pasture probe file"),
    Turn.reply("Done. The tool said: {tool_result}"),
)
# Codex runs a call without asking unless it leaves the sandbox: the model asks for an unsandboxed
# run (require_escalated), which needs an approval.
_ESCALATED = Script.of(
    Turn.tool(
        "exec_command",
        {
            "cmd": PROBE_COMMAND,
            "sandbox_permissions": "require_escalated",
            "justification": "Write the pasture probe file",
        },
    ),
    Turn.reply("Done. The tool said: {tool_result}"),
)
# Claude Code's default permission mode (no --dangerously-skip-permissions): the redirect needs approval.
_CLAUDE_DEFAULT = (("permission_mode", "default"),)
# Codex with approvals on (no bypass flag): a read-only sandbox, approvals on request, and
# --approve-for-me, which routes an approval to a review (the hook's answer comes first).
_CODEX_APPROVALS = (
    ("approval_policy", "on-request"),
    ("sandbox_mode", "read-only"),
    ("bypass_approvals", False),
    ("extra_args", ("--approve-for-me",)),
)

_SPECIFIC = "hookSpecificOutput"
W_ALLOW = "hookSpecificOutput.permissionDecision=allow"
W_BEHAVIOR_ALLOW = "hookSpecificOutput.decision.behavior=allow"
W_UPDATED_INPUT = "hookSpecificOutput.updatedInput+permissionDecision=allow"
W_CONTEXT = "hookSpecificOutput.additionalContext"
W_BLOCK_REASON = "decision=block+reason"
W_OC_SET_ARG = "output.args.<field> set in place"
W_OC_NEW_ARGS = "output.args replaced by a new object"
W_OC_STATUS = "output.status=allow"
W_OC_SYSTEM = "output.system.push(text)"
W_OC_OUTPUT = "output.output edited"
W_PI_SYSTEM_PROMPT = "before_agent_start returns {systemPrompt}"
W_PI_CONTENT = "tool_result returns {content}"


def _specific(event: str, **fields: Any) -> dict[str, Any]:
    return {_SPECIFIC: {"hookEventName": event, **fields}}


def _rewrite(event: str = "PreToolUse") -> Answer:
    return Answer(
        "rewrite",
        event,
        W_UPDATED_INPUT,
        _specific(
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


#: Claude Code's default permission mode (no --dangerously-skip-permissions).
DEFAULT_PERMISSION_MODE = Approvals(_CLAUDE_DEFAULT, _PROBE, "in the default permission mode (no bypass flag)", True)
#: Codex with approvals on request, and a model that asks for an unsandboxed run.
APPROVALS_ON_REQUEST = Approvals(
    _CODEX_APPROVALS,
    _ESCALATED,
    "with approvals on (read-only sandbox, on-request, --approve-for-me; the model asks for an unsandboxed run)",
    False,
)


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
            _REWRITE,
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
                _specific("PreToolUse", permissionDecision="allow", permissionDecisionReason="{marker}"),
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
                _specific("PermissionRequest", decision={"behavior": "allow"}),
            ),
        ),
        Scenario(
            "session-start-context",
            "SessionStart adds hookSpecificOutput.additionalContext; honoured if "
            "the text is in the first request the model receives",
            _PROBE,
            answer=Answer(
                "context", "SessionStart", W_CONTEXT, _specific("SessionStart", additionalContext="{marker}")
            ),
        ),
        Scenario(
            "user-prompt-submit-context",
            "UserPromptSubmit adds hookSpecificOutput.additionalContext; "
            "honoured if the text is in the first request the model receives",
            _PROBE,
            answer=Answer(
                "context", "UserPromptSubmit", W_CONTEXT, _specific("UserPromptSubmit", additionalContext="{marker}")
            ),
        ),
        Scenario(
            "post-tool-use-feedback",
            "after the shell call PostToolUse answers decision block with a "
            "reason; honoured if the reason is in what the next request adds after the tool call",
            _PROBE,
            answer=Answer("feedback", "PostToolUse", W_BLOCK_REASON, {"decision": "block", "reason": "{marker}"}),
        ),
        Scenario(
            "stop-block-continue",
            f"the model stops at once; Stop answers decision block with a reason on "
            f"the first {CONTINUE_BOUND} stops (our bound), then lets the host stop; honoured if the next "
            "request holds the reason, the next turn writes the probe file, and the host stops by itself "
            f"after {CONTINUE_BOUND} continuations",
            _STOP_THEN_PROBE,
            answer=Answer(
                "continue", "Stop", W_BLOCK_REASON, {"decision": "block", "reason": "{marker}"}, times=CONTINUE_BOUND
            ),
        ),
    )


def plugin_answer_scenarios() -> tuple[Scenario, ...]:
    return (
        Scenario(
            "tool-execute-before-rewrite",
            "tool.execute.before sets output.args.command in place (the model "
            f"asked for {ASKED_COMMAND}); the rewritten command must be the one that ran",
            _REWRITE,
            answer=Answer(
                "rewrite",
                "tool.execute.before",
                W_OC_SET_ARG,
                plugin={"op": "set-arg", "tool": "bash", "field": "command", "value": PROBE_COMMAND},
            ),
        ),
        Scenario(
            "tool-execute-before-new-args",
            "tool.execute.before assigns a new output.args object with the "
            "rewritten command; honoured only if that command is the one that ran",
            _REWRITE,
            answer=Answer(
                "rewrite",
                "tool.execute.before",
                W_OC_NEW_ARGS,
                plugin={
                    "op": "replace-args",
                    "tool": "bash",
                    "value": {"command": PROBE_COMMAND, "description": "Write the pasture probe file"},
                },
            ),
        ),
        Scenario(
            "no-answer-approval",
            "control for the allow answer: permission bash = ask, nothing answers; "
            "opencode run auto-rejects what would need a prompt, so the call must not run",
            _PROBE,
            options=(("config", {"permission": {"bash": "ask"}}),),
        ),
        Scenario(
            "permission-ask-allow",
            "permission bash = ask; the plugin's permission.ask hook sets "
            "output.status allow; honoured if the call runs without a prompt",
            _PROBE,
            options=(("config", {"permission": {"bash": "ask"}}),),
            control="no-answer-approval",
            answer=Answer("allow", "permission.ask", W_OC_STATUS, plugin={"op": "set-status", "value": "allow"}),
        ),
        Scenario(
            "system-transform-context",
            "experimental.chat.system.transform pushes a text into "
            "output.system; honoured if the text is in the first request the model receives",
            _PROBE,
            answer=Answer(
                "context",
                "experimental.chat.system.transform",
                W_OC_SYSTEM,
                plugin={"op": "push-system", "value": "{marker}"},
            ),
        ),
        Scenario(
            "tool-execute-after-feedback",
            "tool.execute.after appends a text to output.output after the "
            "shell call; honoured if the text is in what the next request adds after the tool call",
            _PROBE,
            answer=Answer(
                "feedback",
                "tool.execute.after",
                W_OC_OUTPUT,
                plugin={"op": "append-output", "tool": "bash", "value": "\n{marker}"},
            ),
        ),
    )


def gemini_scenarios() -> tuple[Scenario, ...]:
    """Gemini CLI: command hooks refuse by exit 2 (reason on stderr) or by {"decision": "deny"} on stdout."""
    return (
        ALLOW,
        Scenario(
            "before-tool-exit-2",
            "BeforeTool refuses the shell call by exiting 2 with the reason on stderr",
            _PROBE,
            "BeforeTool",
            "exit-2",
            False,
        ),
        Scenario(
            "before-tool-json-deny",
            'BeforeTool refuses the shell call with {"decision": "deny", "reason": ...}',
            _PROBE,
            "BeforeTool",
            "json-deny",
            False,
        ),
        Scenario(
            "before-agent-exit-2",
            "BeforeAgent refuses the prompt by exiting 2; the first model turn would write the probe file",
            _PROBE,
            "BeforeAgent",
            "exit-2",
            False,
        ),
        Scenario(
            "before-model-exit-2",
            "BeforeModel refuses the model request by exiting 2; the first model turn would write the probe file",
            _PROBE,
            "BeforeModel",
            "exit-2",
            False,
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


def copilot_scenarios() -> tuple[Scenario, ...]:
    """GitHub Copilot CLI: preToolUse refuses by exit 2 (the model reads only the exit code) or by its flat
    JSON permission decision (the reason reaches the model)."""
    return (
        ALLOW,
        Scenario(
            "pre-tool-use-exit-2",
            "preToolUse refuses the shell call by exiting 2 with the reason on stderr",
            _PROBE,
            "preToolUse",
            "exit-2",
            False,
        ),
        Scenario(
            "pre-tool-use-json-deny",
            "preToolUse refuses the shell call with permissionDecision deny and a permissionDecisionReason",
            _PROBE,
            "preToolUse",
            "json-deny",
            False,
        ),
    )


def pi_scenarios() -> tuple[Scenario, ...]:
    """Pi: an extension's tool_call handler refuses by throwing (documented: "tool_call errors block the tool
    (fail-safe)"), or by returning ``{block: true, reason}``; in both the reason is the blocked call's
    tool result. Pi has no stop refusal channel (agent_end's result is never read)."""
    return (
        ALLOW,
        Scenario(
            "tool-call-throw",
            "the extension throws an Error carrying the reason from its tool_call handler for the bash call",
            _PROBE,
            "tool_call",
            "throw",
            False,
        ),
        Scenario(
            "tool-call-block",
            "the extension's tool_call handler returns {block: true, reason} for the bash call",
            _PROBE,
            "tool_call",
            "block",
            False,
        ),
    )


def pi_answer_scenarios() -> tuple[Scenario, ...]:
    """Pi: a handler answers by what it returns (ExtensionAPI's result types)."""
    return (
        Scenario(
            "before-agent-start-context",
            "before_agent_start returns a systemPrompt with a text appended; honoured if the text is in the "
            "first request the model receives",
            _PROBE,
            answer=Answer(
                "context",
                "before_agent_start",
                W_PI_SYSTEM_PROMPT,
                plugin={"op": "append-system-prompt", "value": "{marker}"},
            ),
        ),
        Scenario(
            "tool-result-feedback",
            "tool_result returns a content with a text after the shell call; honoured if the text is in what "
            "the next request adds after the tool call",
            _PROBE,
            answer=Answer(
                "feedback", "tool_result", W_PI_CONTENT, plugin={"op": "return-content", "value": "{marker}"}
            ),
        ),
    )


# --- answers beyond deny/ask on Gemini CLI and Copilot CLI (issue 17, issue 20) --------------------------

# wire forms as pasture/profile/answers.py names them
W_GEM_TOOL_INPUT = "hookSpecificOutput.tool_input"
W_GEM_ALLOW = "decision=allow"
W_GEM_DENY_REASON = "decision=deny+reason"
W_COP_ALLOW = "permissionDecision=allow"
W_COP_MODIFIED_ARGS = "modifiedArgs+permissionDecision=allow"
W_COP_CONTEXT = "additionalContext"

#: Gemini CLI without --yolo: the default approval mode, where a headless run cannot confirm a shell call.
GEMINI_DEFAULT_APPROVAL = (("yolo", False),)
#: Copilot CLI without --allow-all-tools: a shell call needs a permission nobody can give headless.
COPILOT_DEFAULT_PERMISSIONS = (("allow_all_tools", False),)


def gemini_answer_scenarios() -> tuple[Scenario, ...]:
    """Gemini CLI's answers in the forms its bundled docs/hooks/reference.md and the code that reads hook
    output (``BeforeToolHookOutput.getModifiedToolInput``, ``getAdditionalContext``, AfterAgent's
    ``isBlockingDecision`` retry) name."""
    where = "in the default approval mode (no --yolo)"
    return (
        Scenario(
            "before-tool-rewrite",
            f"BeforeTool answers hookSpecificOutput.tool_input with the rewritten command (the model asked for "
            f"{ASKED_COMMAND}); the rewritten command must be the one that ran",
            _REWRITE,
            answer=Answer(
                "rewrite",
                "BeforeTool",
                W_GEM_TOOL_INPUT,
                {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": PROBE_COMMAND}}},
            ),
        ),
        Scenario(
            "no-answer-approval",
            f"control for the allow answer: the shell call {where}, nothing answers; a headless run has "
            "nobody to confirm it, so it must not run",
            _PROBE,
            options=GEMINI_DEFAULT_APPROVAL,
        ),
        Scenario(
            "before-tool-allow",
            f'BeforeTool answers {{"decision": "allow"}} {where}; honoured if the call runs without a prompt',
            _PROBE,
            options=GEMINI_DEFAULT_APPROVAL,
            control="no-answer-approval",
            answer=Answer("allow", "BeforeTool", W_GEM_ALLOW, {"decision": "allow", "reason": "{marker}"}),
        ),
        Scenario(
            "session-start-context",
            "SessionStart adds hookSpecificOutput.additionalContext; honoured if the text is in the first "
            "request the model receives",
            _PROBE,
            answer=Answer(
                "context", "SessionStart", W_CONTEXT, _specific("SessionStart", additionalContext="{marker}")
            ),
        ),
        Scenario(
            "before-agent-context",
            "BeforeAgent adds hookSpecificOutput.additionalContext; honoured if the text is in the first "
            "request the model receives",
            _PROBE,
            answer=Answer("context", "BeforeAgent", W_CONTEXT, _specific("BeforeAgent", additionalContext="{marker}")),
        ),
        Scenario(
            "after-tool-context-feedback",
            "after the shell call AfterTool adds hookSpecificOutput.additionalContext (appended to the tool "
            "result); honoured if the text is in what the next request adds after the tool call",
            _PROBE,
            answer=Answer("feedback", "AfterTool", W_CONTEXT, _specific("AfterTool", additionalContext="{marker}")),
        ),
        Scenario(
            "after-tool-deny-feedback",
            'after the shell call AfterTool answers {"decision": "deny", "reason"} (the reason replaces the '
            "tool result); honoured if the reason is in what the next request adds after the tool call",
            _PROBE,
            answer=Answer("feedback", "AfterTool", W_GEM_DENY_REASON, {"decision": "deny", "reason": "{marker}"}),
        ),
        Scenario(
            "after-agent-continue",
            f'the model stops at once; AfterAgent answers {{"decision": "deny", "reason"}} on the first '
            f"{CONTINUE_BOUND} stops (our bound), then lets the host stop; honoured if the next request holds "
            f"the reason, the next turn writes the probe file, and the host stops by itself after "
            f"{CONTINUE_BOUND} continuations",
            _STOP_THEN_PROBE,
            answer=Answer(
                "continue",
                "AfterAgent",
                W_GEM_DENY_REASON,
                {"decision": "deny", "reason": "{marker}"},
                times=CONTINUE_BOUND,
            ),
        ),
    )


def copilot_answer_scenarios() -> tuple[Scenario, ...]:
    """GitHub Copilot CLI's answers in the flat forms of its SDK typings (copilot-sdk/types.d.ts of the
    unpacked package: ``PreToolUseHookOutput``, ``SessionStartHookOutput``, ``PostToolUseHookOutput``, ...)."""
    where = "without --allow-all-tools (its default permissions)"
    return (
        Scenario(
            "pre-tool-use-rewrite",
            f"preToolUse answers modifiedArgs (the model's toolArgs with the rewritten command; the model "
            f"asked for {ASKED_COMMAND}) and permissionDecision allow, {where}; the rewritten command must be "
            "the one that ran",
            _REWRITE,
            options=COPILOT_DEFAULT_PERMISSIONS,
            answer=Answer(
                "rewrite",
                "preToolUse",
                W_COP_MODIFIED_ARGS,
                {
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "{marker}",
                    "modifiedArgs": {"command": PROBE_COMMAND},
                },
                merge_tool_input=True,
            ),
        ),
        Scenario(
            "no-answer-approval",
            f"control for the allow answer: the shell call {where}, nothing answers; a headless run has "
            "nobody to approve it, so it must not run",
            _PROBE,
            options=COPILOT_DEFAULT_PERMISSIONS,
        ),
        Scenario(
            "pre-tool-use-allow",
            f"preToolUse answers permissionDecision allow {where}; honoured if the call runs without a prompt",
            _PROBE,
            options=COPILOT_DEFAULT_PERMISSIONS,
            control="no-answer-approval",
            answer=Answer(
                "allow",
                "preToolUse",
                W_COP_ALLOW,
                {"permissionDecision": "allow", "permissionDecisionReason": "{marker}"},
            ),
        ),
        Scenario(
            "session-start-context",
            "sessionStart answers additionalContext; honoured if the text is in the first request the model receives",
            _PROBE,
            answer=Answer("context", "sessionStart", W_COP_CONTEXT, {"additionalContext": "{marker}"}),
        ),
        Scenario(
            "user-prompt-submitted-context",
            "userPromptSubmitted answers additionalContext; honoured if the text is in the first request the "
            "model receives",
            _PROBE,
            answer=Answer("context", "userPromptSubmitted", W_COP_CONTEXT, {"additionalContext": "{marker}"}),
        ),
        Scenario(
            "post-tool-use-feedback",
            "after the shell call postToolUse answers additionalContext; honoured if the text is in what the "
            "next request adds after the tool call",
            _PROBE,
            answer=Answer("feedback", "postToolUse", W_COP_CONTEXT, {"additionalContext": "{marker}"}),
        ),
        Scenario(
            "agent-stop-continue",
            f'the model stops at once; agentStop answers {{"decision": "block", "reason"}} on the first '
            f"{CONTINUE_BOUND} stops (our bound), then lets the host stop; honoured if the next request holds "
            f"the reason, the next turn writes the probe file, and the host stops by itself after "
            f"{CONTINUE_BOUND} continuations",
            _STOP_THEN_PROBE,
            answer=Answer(
                "continue",
                "agentStop",
                W_BLOCK_REASON,
                {"decision": "block", "reason": "{marker}"},
                times=CONTINUE_BOUND,
            ),
        ),
    )
