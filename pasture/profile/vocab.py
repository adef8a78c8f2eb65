"""The closed vocabularies of a lifecycle profile, spelled exactly as the seed's wire names.

Stdlib only: the hook runtime imports these too.
"""

from __future__ import annotations

from enum import StrEnum


class Harness(StrEnum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    OPENCODE = "opencode"
    GEMINI_CLI = "gemini-cli"
    COPILOT_CLI = "copilot-cli"
    PI = "pi"
    QWEN_CODE = "qwen-code"
    CLINE = "cline"


#: the contract id the profile schema and its error messages give as an example of <harness>@<version>
CONTRACT_ID_EXAMPLE = f"{Harness.CLAUDE_CODE.value}@2.1.261"


class EventSemantic(StrEnum):
    OBSERVATION = "observation"
    GATE_CONSULTATION = "gate-consultation"
    EXPLICIT_HUMAN_RESPONSE = "explicit-human-response"


class HookSurface(StrEnum):
    CLAUDE_COMMAND_JSON = "claude-command-json"
    CODEX_STRICT_COMMAND_JSON = "codex-strict-command-json"
    OPENCODE_NAMED_OUTPUT = "opencode-named-output"
    OPENCODE_CATCH_ALL_SSE = "opencode-catch-all-sse"
    GEMINI_COMMAND_JSON = "gemini-command-json"
    COPILOT_COMMAND_JSON = "copilot-command-json"
    PI_EXTENSION_EVENT = "pi-extension-event"
    QWEN_COMMAND_JSON = "qwen-command-json"
    CLINE_HOOK_FILE = "cline-hook-file"


class BlockingMode(StrEnum):
    NONBLOCKING = "nonblocking"
    BLOCKING = "blocking"
    CONDITIONALLY_BLOCKING = "conditionally-blocking"


class MutationMode(StrEnum):
    NONE = "none"
    INPUT = "input"
    OUTPUT = "output"
    OUTPUT_OBJECT = "output-object"


class HandlerOrder(StrEnum):
    CONCURRENT_NATIVE = "concurrent-native"
    SEQUENTIAL_LOAD_ORDER = "sequential-load-order"
    OBSERVATION_STREAM = "observation-stream"


class ReconciliationMode(StrEnum):
    NONE = "none"
    HOST_NATIVE = "host-native"
    NO_ADAPTER_MERGE = "no-adapter-merge"
    SEQUENTIAL_MUTATION = "sequential-mutation"


class FailureMode(StrEnum):
    REPORT_AND_CONTINUE = "report-and-continue"
    EXIT_2_BLOCKS = "exit-2-blocks"
    STRICT_HOOK_FAILURE = "strict-hook-failure"
    STRICT_OUTPUT_EXIT_2_BLOCKS = "strict-output-exit-2-blocks"
    THROW_FAIL_FAST = "throw-fail-fast"
    OBSERVE_ONLY = "observe-only"

    @property
    def blocks_by_exit_code(self) -> bool:
        """Only these two arms turn our process's exit status into a host refusal.

        They are the claims about somebody else's program that must cite evidence.
        throw-fail-fast blocks too, but through our own generated plugin, not an exit code.
        """
        return self in (FailureMode.EXIT_2_BLOCKS, FailureMode.STRICT_OUTPUT_EXIT_2_BLOCKS)

    @property
    def blocks(self) -> bool:
        return self.blocks_by_exit_code or self is FailureMode.THROW_FAIL_FAST


class StopLoopPolicy(StrEnum):
    NOT_APPLICABLE = "not-applicable"
    CONSULT_WHEN_INACTIVE = "consult-when-inactive"


class IdentityKind(StrEnum):
    SESSION = "session"
    TURN = "turn"
    REQUEST = "request"
    TOOL_CALL = "tool-call"
    AGENT = "agent"
    MESSAGE = "message"


class IdentityPolicy(StrEnum):
    NONE = "none"
    DECLARED = "declared"


class ResponseCapability(StrEnum):
    NONE = "none"
    DENY = "deny"
    DENY_ASK = "deny+ask"

    @property
    def allows_deny(self) -> bool:
        return self is not ResponseCapability.NONE

    @property
    def allows_ask(self) -> bool:
        return self is ResponseCapability.DENY_ASK


class RuntimeClass(StrEnum):
    NATIVE = "native"
    PARENT_MEDIATED = "parent-mediated"
    SEMANTIC_INSTRUCTION = "semantic-instruction"
    UNSUPPORTED = "unsupported"


class CoreOperation(StrEnum):
    """The closed core orchestration vocabulary every runtime profile binds exactly once."""

    INVOKE_SKILL = "invoke_skill"
    DELEGATE_ASSIGNMENT = "delegate_assignment"
    CONTINUE_ASSIGNMENT = "continue_assignment"
    SEND_ASSIGNMENT_MESSAGE = "send_assignment_message"
    COLLECT_ASSIGNMENT_RESULTS = "collect_assignment_results"
    STOP_ASSIGNMENT = "stop_assignment"
    REQUEST_USER_DECISION = "request_user_decision"


# Harnesses that are named often but cannot get a profile, and what to tell the author.
UNSUPPORTED_HARNESSES: dict[str, str] = {
    "antigravity": (
        "unsupported: no public contract can be pinned for antigravity "
        "(no public event catalog or wire contract exists)"
    ),
}

# The native surfaces and native calls each harness may use: each host module's ``surfaces`` and
# ``native_calls`` (pasture/hosts/<host>.py; the registry pasture.hosts.HOSTS).

# The failure arms each surface can declare: a host contract has no other failure behaviour.
SURFACE_FAILURE_MODES: dict[HookSurface, tuple[FailureMode, ...]] = {
    HookSurface.CLAUDE_COMMAND_JSON: (FailureMode.REPORT_AND_CONTINUE, FailureMode.EXIT_2_BLOCKS),
    HookSurface.CODEX_STRICT_COMMAND_JSON: (
        FailureMode.REPORT_AND_CONTINUE,
        FailureMode.STRICT_HOOK_FAILURE,
        FailureMode.STRICT_OUTPUT_EXIT_2_BLOCKS,
    ),
    HookSurface.OPENCODE_NAMED_OUTPUT: (
        FailureMode.REPORT_AND_CONTINUE,
        FailureMode.THROW_FAIL_FAST,
        FailureMode.OBSERVE_ONLY,
    ),
    HookSurface.OPENCODE_CATCH_ALL_SSE: (FailureMode.REPORT_AND_CONTINUE, FailureMode.OBSERVE_ONLY),
    HookSurface.GEMINI_COMMAND_JSON: (FailureMode.REPORT_AND_CONTINUE, FailureMode.EXIT_2_BLOCKS),
    # Copilot CLI command hooks: exit 2 blocks preToolUse (with the reason lost), so the blocking arm is
    # exit-2-blocks; the adapter's own tail answers the JSON deny, which carries the reason (hosts/copilot_cli.py).
    HookSurface.COPILOT_COMMAND_JSON: (FailureMode.REPORT_AND_CONTINUE, FailureMode.EXIT_2_BLOCKS),
    # Pi extension events (pi.on(<event>, handler) in our generated extension): a throw from a tool_call
    # handler blocks the tool with the message as its result; a throw elsewhere is logged and Pi goes on.
    HookSurface.PI_EXTENSION_EVENT: (
        FailureMode.REPORT_AND_CONTINUE,
        FailureMode.THROW_FAIL_FAST,
        FailureMode.OBSERVE_ONLY,
    ),
    # Qwen Code command hooks: exit 2 is the documented blocking error; any other failure is a warning.
    HookSurface.QWEN_COMMAND_JSON: (FailureMode.REPORT_AND_CONTINUE, FailureMode.EXIT_2_BLOCKS),
    # Cline CLI hook files: a hook that fails, exits non-zero or prints no JSON lets the tool run (measured),
    # so no exit code refuses. The blocking arm is the seed's for a refusal carried by pasture's own generated
    # artefact (throw-fail-fast): the generated hook file prints Cline's refusal itself when the runtime fails.
    HookSurface.CLINE_HOOK_FILE: (
        FailureMode.REPORT_AND_CONTINUE,
        FailureMode.THROW_FAIL_FAST,
        FailureMode.OBSERVE_ONLY,
    ),
}

# The surfaces whose hooks register a matcher (a row's ``matcher``): the command-JSON settings files.
MATCHER_SURFACES: frozenset[HookSurface] = frozenset(
    {
        HookSurface.CLAUDE_COMMAND_JSON,
        HookSurface.CODEX_STRICT_COMMAND_JSON,
        HookSurface.GEMINI_COMMAND_JSON,
        HookSurface.QWEN_COMMAND_JSON,
    }
)

# The surfaces whose JSON deny is the shared ``decision`` field ("deny"), not ``permissionDecision``.
DECISION_FIELD_SURFACES: frozenset[HookSurface] = frozenset({HookSurface.GEMINI_COMMAND_JSON})

# Only these events carry host stop-loop state (Claude/Codex `stop_hook_active`).
STOP_FAMILY_EVENTS: frozenset[str] = frozenset({"Stop", "SubagentStop"})


def members(enum: type[StrEnum]) -> str:
    """The allowed members of a vocabulary, in declaration order, for diagnostics."""
    return ", ".join(m.value for m in enum)
