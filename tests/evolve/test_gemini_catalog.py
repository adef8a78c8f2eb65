"""The Gemini CLI catalog reader (pasture/catalog/gemini.py) on small texts shaped like what the package
ships: what it reads, and the loud CatalogError for anything it cannot find (never an empty entry)."""

from __future__ import annotations

import pytest

from pasture.catalog.gemini import extract
from pasture.catalog.model import CatalogError

CODE = """
var HookEventName = /* @__PURE__ */ ((HookEventName2) => {
  HookEventName2["BeforeTool"] = "BeforeTool";
  HookEventName2["SessionEnd"] = "SessionEnd";
  return HookEventName2;
})(HookEventName || {});
var DefaultHookOutput = class {
  isBlockingDecision() {
    return this.decision === "block" || this.decision === "deny";
  }
  isAskDecision() {
    return this.decision === "ask";
  }
};
"""
BASE = """## Base input schema

```typescript
{
  "session_id": string,
  "cwd": string,
  "hook_event_name": string
}
```

---

## Common output fields

| Field            | Type      | Description |
| :--------------- | :-------- | :---------- |
| `systemMessage`  | `string`  | Shown.      |
| `suppressOutput` | `boolean` | Hides.      |
| `reason`         | `string`  | Why.        |

---
"""
BEFORE_TOOL = """### `BeforeTool`

Fires before a tool.

- **Input Fields**:
  - `tool_name`: (`string`) The name of the tool.
  - `mcp_context`: (`object`) Optional metadata for MCP-based tools.
- **Relevant Output Fields**:
  - `decision`: Set to `"deny"` (or `"block"`) to prevent the tool from
    executing.
  - `reason`: Required if denied.
  - `hookSpecificOutput.tool_input`: An object that merges.
"""
SESSION_END = """### `SessionEnd`

- **Input Fields**:
  - `reason`: (`"exit" | "clear"`)
- **Relevant Output Fields**:
  - `systemMessage`: Displayed.
"""


def test_events_come_from_the_reference_checked_against_the_code():
    events = {e["name"]: e for e in extract(BASE + BEFORE_TOOL + SESSION_END, CODE)}
    assert list(events) == ["BeforeTool", "SessionEnd"]
    tool = events["BeforeTool"]
    assert tool["input"]["tool_name"] == {"required": True, "type": "string"}
    assert tool["input"]["mcp_context"] == {"required": False, "type": "object"}
    assert tool["input"]["hook_event_name"] == {"required": True, "type": "literal", "values": ["BeforeTool"]}
    assert tool["output"]["decision"] == {"required": False, "type": "enum", "values": ["deny", "block"]}
    assert tool["output"]["reason"] == {"required": False, "type": "string"}  # the common table's type
    assert tool["output"]["hookSpecificOutput"]["fields"] == {"tool_input": {"required": False, "type": "unknown"}}
    assert events["SessionEnd"]["input"]["reason"] == {"required": True, "type": "enum", "values": ["exit", "clear"]}
    assert "decision" not in events["SessionEnd"]["output"]


@pytest.mark.parametrize(
    "reference,code,says",
    [
        (BASE + BEFORE_TOOL, CODE, "documents no section for SessionEnd"),
        (BASE + BEFORE_TOOL + SESSION_END + SESSION_END.replace("SessionEnd", "Extra"), CODE, "Extra, which the code"),
        (BASE + BEFORE_TOOL + SESSION_END, CODE.replace("var HookEventName", "var Renamed"), "no HookEventName enum"),
        (BASE + BEFORE_TOOL + SESSION_END, CODE.replace('"deny"', '"nope"'), "reads no 'deny' decision"),
        (BEFORE_TOOL + SESSION_END, CODE, "no 'Base input schema'"),
        (BASE + BEFORE_TOOL + SESSION_END.replace("Relevant Output", "Output"), CODE, "no 'Relevant Output Fields'"),
        (BASE + BEFORE_TOOL.replace('"deny"', '"stop"').replace('"block"', '"halt"') + SESSION_END, CODE, "names none"),
    ],
)
def test_what_is_not_found_is_a_loud_catalog_error(reference, code, says):
    with pytest.raises(CatalogError, match=says):
        extract(reference, code)
