"""Qwen Code's catalog reader (pasture/catalog/qwen.py) on small hand-made copies of what the package ships:
the events are the reference's sections checked against the code's HookEventName enum, each field typed by
the output class's check or the reference's own type note, and `unknown` where it gives prose only."""

from __future__ import annotations

import pytest

from pasture.catalog.qwen import extract
from pasture.profile.catalog import CatalogError

CODE = """
var HookEventName = /* @__PURE__ */ ((HookEventName2) => {
  HookEventName2["PreToolUse"] = "PreToolUse";
  HookEventName2["Stop"] = "Stop";
  return HookEventName2;
})(HookEventName || {});
function createHookOutput(eventName, data) {
  switch (eventName) {
    case "PreToolUse" /* PreToolUse */:
      return new PreToolUseHookOutput(data);
    case "Stop" /* Stop */:
    case "SubagentStop" /* SubagentStop */:
      return new StopHookOutput(data);
    default:
      return new DefaultHookOutput(data);
  }
}
var DefaultHookOutput = class {
  isBlockingDecision() {
    return this.decision === "block" || this.decision === "deny";
  }
  getRawAdditionalContext() {
    if (this.hookSpecificOutput && "additionalContext" in this.hookSpecificOutput) {
      const context = this.hookSpecificOutput["additionalContext"];
      return typeof context === "string" ? context : void 0;
    }
  }
};
var PreToolUseHookOutput = class extends DefaultHookOutput {
  getPermissionDecision() {
    if (this.hookSpecificOutput && "permissionDecision" in this.hookSpecificOutput) {
      const decision = this.hookSpecificOutput["permissionDecision"];
      if (decision === "allow" || decision === "deny" || decision === "ask") {
        return decision;
      }
    }
    if (this.decision === "allow" || this.decision === "approve") {
      return "allow";
    }
  }
};
var StopHookOutput = class extends DefaultHookOutput {
  getStopReason() {
    return this.stopReason;
  }
};
"""

REFERENCE = """# Hooks

**Common Fields:**

```json
{
  "session_id": "string",
  "hook_event_name": "string",
  "permission_mode": "default | plan | yolo",
  "agent_id": "string (only when the event fires inside a subagent)"
}
```

### Individual Hook Event Details

#### PreToolUse

**Event-specific fields**:

```json
{
  "tool_name": "name of the tool being executed",
  "tool_input": "object containing the tool's input parameters",
  "tool_call_id": "the provider's id (optional)"
}
```

**Output Options**:

- `hookSpecificOutput.permissionDecision`: "allow", "deny", or "ask" (REQUIRED)
- `hookSpecificOutput.updatedInput`: modified tool input parameters
- `hookSpecificOutput.additionalContext`: additional context information

#### Stop

**Event-specific fields**:

```json
{
  "stop_hook_active": "true when this turn is continuing because a stop hook blocked",
  "background_tasks": "array of background tasks"
}
```

**Output Options**:

- `decision`: "allow", "deny", "block"
- `reason`: why
- `continue`: stop the turn

## Hook Configuration
"""


def _by_name(events):
    return {e["name"]: e for e in events}


def test_events_come_from_the_reference_checked_against_the_code():
    events = _by_name(extract(REFERENCE, CODE))
    assert list(events) == ["PreToolUse", "Stop"]
    pre = events["PreToolUse"]
    assert pre["input"]["hook_event_name"] == {"required": True, "type": "literal", "values": ["PreToolUse"]}
    assert pre["input"]["session_id"] == {"required": True, "type": "string"}
    assert pre["input"]["permission_mode"] == {"required": True, "type": "enum", "values": ["default", "plan", "yolo"]}
    assert pre["input"]["agent_id"] == {"required": False, "type": "string"}
    assert pre["input"]["tool_input"] == {"required": True, "type": "object"}
    assert pre["input"]["tool_name"] == {"required": True, "type": "unknown"}  # prose only: never guessed
    assert pre["input"]["tool_call_id"]["required"] is False
    stop = events["Stop"]
    assert stop["input"]["stop_hook_active"]["type"] == "boolean"
    assert stop["input"]["background_tasks"]["type"] == "array"


def test_output_types_come_from_the_output_class_first():
    pre = _by_name(extract(REFERENCE, CODE))["PreToolUse"]["output"]["hookSpecificOutput"]["fields"]
    # the class compares the value to three words (not the top-level decision's "approve")
    assert pre["permissionDecision"] == {"required": False, "type": "enum", "values": ["allow", "deny", "ask"]}
    assert pre["additionalContext"] == {"required": False, "type": "string"}  # DefaultHookOutput's typeof check
    assert pre["updatedInput"] == {"required": False, "type": "unknown"}  # no check, no quoted values


def test_a_decision_takes_only_the_words_its_class_reads():
    stop = _by_name(extract(REFERENCE, CODE))["Stop"]["output"]
    assert stop["decision"] == {"required": False, "type": "enum", "values": ["deny", "block"]}  # not "allow"
    assert stop["continue"] == {"required": False, "type": "boolean"}  # the common field keeps its type
    assert stop["reason"]["type"] == "unknown"


@pytest.mark.parametrize(
    ("reference", "code", "says"),
    [
        (REFERENCE.replace("#### Stop", "#### Halt"), CODE, "documents no section for Stop"),
        (REFERENCE, CODE.replace('HookEventName2["Stop"] = "Stop";', ""), "documents Stop, which the code"),
        (REFERENCE, CODE.replace("var HookEventName =", "var Events ="), "no HookEventName enum"),
        (REFERENCE.replace('"block"', '"halt"').replace('"deny"', '"no"'), CODE, "Stop's decision names none"),
        (REFERENCE.replace("**Common Fields:**", "**Fields:**"), CODE, "no 'Common Fields' block"),
        (REFERENCE.replace('"tool_name"', "tool_name"), CODE, "PreToolUse's Event-specific fields block is not"),
    ],
)
def test_what_is_not_found_is_a_loud_catalog_error(reference, code, says):
    with pytest.raises(CatalogError, match=says):
        extract(reference, code)
