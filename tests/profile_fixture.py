"""A small, valid project (one Claude contract) that tests break one rule at a time."""

from __future__ import annotations

from pathlib import Path

CONTRACT = "claude-code@2.1.261"

LIFECYCLE = """\
contract: claude-code@2.1.261
admission:
  floor: 2.1.261
sources:
  hooks: https://github.com/anthropics/claude-code/blob/v2.1.261/CHANGELOG.md
events:
  - name: PreToolUse
    semantic: gate-consultation
    surface: claude-command-json
    blocking: blocking
    mutation: input
    order: concurrent-native
    reconciliation: host-native
    failure: exit-2-blocks
    evidence: "@hooks"
    identities:
      - {kind: session, field: session_id, required: true}
      - {kind: tool-call, field: tool_use_id, required: true}
    unresolved: []
    stop_loop: not-applicable
    pre_action: true
    response: {deny: "@hooks", ask: "@hooks"}
  - name: Stop
    semantic: gate-consultation
    surface: claude-command-json
    blocking: blocking
    mutation: none
    order: concurrent-native
    reconciliation: host-native
    failure: exit-2-blocks
    evidence: ""
    identities:
      - {kind: session, field: session_id, required: true}
    unresolved: []
    stop_loop: consult-when-inactive
    pre_action: false
  - name: PostToolUse
    semantic: observation
    surface: claude-command-json
    blocking: nonblocking
    mutation: none
    order: concurrent-native
    reconciliation: none
    failure: report-and-continue
    identities: []
    unresolved: [tool-call]
    stop_loop: not-applicable
    pre_action: false
"""

RUNTIME = """\
contract: claude-code@2.1.261
operations:
  invoke_skill: {class: native, call: Skill, arguments: [skill], result: the skill output, context: caller}
  delegate_assignment: {class: native, call: Agent, arguments: [prompt], result: agent result, context: fresh}
  continue_assignment: {class: native, call: SendMessage, arguments: [to, message], result: ack, context: kept}
  send_assignment_message: {class: parent-mediated, mediator: parent session, instruction: relay it}
  collect_assignment_results: {class: semantic-instruction, instruction: wait for the results}
  stop_assignment: {class: native, call: TaskStop, arguments: [task_id], result: stopped, context: none}
  request_user_decision: {class: unsupported, reason: no bounded decision tool is bound}
"""


def write_project(root: Path, lifecycle: str = LIFECYCLE, runtime: str = RUNTIME, contract: str = CONTRACT) -> Path:
    folder = root / "profiles" / contract
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lifecycle.yaml").write_text(lifecycle, encoding="utf-8")
    (folder / "runtime.yaml").write_text(runtime, encoding="utf-8")
    return root
