"""The Gemini CLI catalog reader (pasture/catalog/gemini.py) on small texts shaped like what the package
ships: what it reads, and the loud CatalogError for anything it cannot find (never an empty entry, never
an ``unknown`` type)."""

from __future__ import annotations

import pytest

from pasture.catalog.gemini import extract
from pasture.catalog.gemini import files as files_of
from pasture.profile.catalog import CatalogError

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
var BeforeToolHookOutput = class extends DefaultHookOutput {
  getModifiedToolInput() {
    if (this.hookSpecificOutput && "tool_input" in this.hookSpecificOutput) {
      const input = this.hookSpecificOutput["tool_input"];
      if (typeof input === "object" && input !== null && !Array.isArray(input)) {
        return input;
      }
    }
    return void 0;
  }
};
function createHookOutput(eventName, data) {
  switch (eventName) {
    case "BeforeTool":
      return new BeforeToolHookOutput(data);
    default:
      return new DefaultHookOutput(data);
  }
}
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
    # no (`type`) note in the reference: BeforeToolHookOutput's check says object
    assert tool["output"]["hookSpecificOutput"]["fields"] == {"tool_input": {"required": False, "type": "object"}}
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


# --- types the reference leaves out, read from the code that checks them --------------------------

OUTPUT_CLASSES = """
var DefaultHookOutput = class {
  isBlockingDecision() {
    return this.decision === "block" || this.decision === "deny";
  }
  getAdditionalContext() {
    if (this.hookSpecificOutput && "additionalContext" in this.hookSpecificOutput) {
      const context2 = this.hookSpecificOutput["additionalContext"];
      if (typeof context2 !== "string") {
        return void 0;
      }
      return context2;
    }
    return void 0;
  }
  getTailToolCallRequest() {
    if (this.hookSpecificOutput && "tailToolCallRequest" in this.hookSpecificOutput) {
      const request = this.hookSpecificOutput["tailToolCallRequest"];
      if (typeof request === "object" && request !== null && !Array.isArray(request)) {
        return request;
      }
    }
    return void 0;
  }
};
var AfterAgentHookOutput = class extends DefaultHookOutput {
  shouldClearContext() {
    if (this.hookSpecificOutput && "clearContext" in this.hookSpecificOutput) {
      return this.hookSpecificOutput["clearContext"] === true;
    }
    return false;
  }
};
var BeforeModelHookOutput = class extends DefaultHookOutput {
  applyLLMRequestModifications(target) {
    if (this.hookSpecificOutput && "llm_request" in this.hookSpecificOutput) {
      const hookRequest = this.hookSpecificOutput["llm_request"];
      if (hookRequest) {
        const sdkRequest = defaultHookTranslator.fromHookLLMRequest(
          // eslint-disable-next-line @typescript-eslint/no-unsafe-type-assertion
          hookRequest,
          target
        );
        return { ...target, ...sdkRequest };
      }
    }
    return target;
  }
};
function createHookOutput(eventName, data) {
  switch (eventName) {
    case "BeforeModel":
      return new BeforeModelHookOutput(data);
    case "AfterAgent":
      return new AfterAgentHookOutput(data);
    default:
      return new DefaultHookOutput(data);
  }
}
function toSerializableDetails(details) {
  const base = {
    type: details.type
  };
  switch (details.type) {
    case "edit":
      return { ...base, fileName: details.fileName };
    default:
      return base;
  }
}
function getNotificationMessage(confirmationDetails) {
  switch (confirmationDetails.type) {
    case "edit":
      return `Tool ${confirmationDetails.title} requires editing`;
    default:
      return `Tool requires confirmation`;
  }
}
var HookEventHandler = class {
  async fireNotificationEvent(type2, message, details) {
    const input = {
      ...this.createBaseInput("Notification" /* Notification */),
      notification_type: type2,
      message,
      details
    };
    return this.executeHooks("Notification" /* Notification */, input);
  }
};
var HookSystem = class {
  async fireToolNotificationEvent(confirmationDetails) {
    try {
      const message = getNotificationMessage(confirmationDetails);
      const serializedDetails = toSerializableDetails(confirmationDetails);
      await this.hookEventHandler.fireNotificationEvent(
        "ToolPermission" /* ToolPermission */,
        message,
        serializedDetails
      );
    } catch (error40) {
    }
  }
};
"""
RESOLVED_CODE = (
    """
var HookEventName = /* @__PURE__ */ ((HookEventName2) => {
  HookEventName2["AfterTool"] = "AfterTool";
  HookEventName2["AfterAgent"] = "AfterAgent";
  HookEventName2["BeforeModel"] = "BeforeModel";
  HookEventName2["Notification"] = "Notification";
  return HookEventName2;
})(HookEventName || {});
"""
    + OUTPUT_CLASSES
)
AFTER_TOOL = """### `AfterTool`

- **Input Fields**:
  - `tool_name`: (`string`)
- **Relevant Output Fields**:
  - `hookSpecificOutput.additionalContext`: Text that is **appended** to the
    tool result for the agent.
  - `hookSpecificOutput.tailToolCallRequest`: (`{ name: string, args: object }`)
    A request to execute another tool.
"""
AFTER_AGENT = """### `AfterAgent`

- **Input Fields**:
  - `prompt`: (`string`) The user's original request.
- **Relevant Output Fields**:
  - `hookSpecificOutput.clearContext`: If `true`, clears conversation history.
"""
BEFORE_MODEL = """### `BeforeModel`

- **Input Fields**:
  - `llm_request`: (`object`) Contains `model`.
- **Relevant Output Fields**:
  - `hookSpecificOutput.llm_request`: An object that **overrides** parts of the
    outgoing request.
"""
NOTIFICATION = """### `Notification`

- **Input Fields**:
  - `notification_type`: (`"ToolPermission"`)
  - `message`: Summary of the alert.
  - `details`: JSON object with alert-specific metadata.
- **Relevant Output Fields**:
  - `systemMessage`: Displayed alongside the system alert.
"""
STABLE_API = """
## Stable Model API

**LLMRequest**:

```typescript
{
  "model": string
}
```
"""
RESOLVED_REFERENCE = BASE + AFTER_TOOL + AFTER_AGENT + BEFORE_MODEL + NOTIFICATION + STABLE_API


def _resolved():
    return {e["name"]: e for e in extract(RESOLVED_REFERENCE, RESOLVED_CODE)}


def test_an_output_type_comes_from_the_check_of_the_events_output_class():
    events = _resolved()
    after_tool = events["AfterTool"]["output"]["hookSpecificOutput"]["fields"]
    # AfterTool has no class of its own in createHookOutput: DefaultHookOutput's checks
    assert after_tool["additionalContext"] == {"required": False, "type": "string"}  # typeof x !== "string"
    assert after_tool["tailToolCallRequest"] == {"required": False, "type": "object"}  # object, not null, not array
    clear = events["AfterAgent"]["output"]["hookSpecificOutput"]["fields"]["clearContext"]
    assert clear == {"required": False, "type": "boolean"}  # === true


def test_a_value_handed_to_the_translator_has_the_stable_model_api_type():
    fields = _resolved()["BeforeModel"]["output"]["hookSpecificOutput"]["fields"]
    assert fields["llm_request"] == {"required": False, "type": "object"}


def test_an_input_type_comes_from_what_every_caller_passes_to_the_code_building_the_input():
    notification = _resolved()["Notification"]["input"]
    assert notification["message"] == {"required": True, "type": "string"}  # getNotificationMessage's templates
    assert notification["details"] == {"required": True, "type": "object"}  # toSerializableDetails' objects
    assert notification["notification_type"] == {"required": True, "type": "enum", "values": ["ToolPermission"]}


def test_a_literal_passed_directly_by_the_caller_gives_the_type():
    code = RESOLVED_CODE.replace("        message,\n        serializedDetails", '        "x",\n        {}')
    notification = {e["name"]: e for e in extract(RESOLVED_REFERENCE, code)}["Notification"]["input"]
    assert notification["message"]["type"] == "string" and notification["details"]["type"] == "object"


def test_the_reference_and_the_code_must_agree_when_both_give_a_type():
    reference = RESOLVED_REFERENCE.replace(
        "`hookSpecificOutput.clearContext`: If", "`hookSpecificOutput.clearContext`: (`string`) If"
    )
    with pytest.raises(CatalogError, match="AfterAgent output field hookSpecificOutput.clearContext: .* says string"):
        extract(reference, RESOLVED_CODE)


@pytest.mark.parametrize(
    "reference,code,says",
    [
        # the made-up bundle: a field with no type note and no code that checks it
        (
            RESOLVED_REFERENCE.replace("`hookSpecificOutput.clearContext`: If", "`hookSpecificOutput.mystery`: If"),
            RESOLVED_CODE,
            "AfterAgent output field hookSpecificOutput.mystery: no type",
        ),
        (
            RESOLVED_REFERENCE.replace("`prompt`: (`string`) The user's original", "`mood`: The user's"),
            RESOLVED_CODE,
            "AfterAgent input field mood: no type",
        ),
        # the check is gone from the class: nothing says what additionalContext is
        (
            RESOLVED_REFERENCE,
            RESOLVED_CODE.replace('typeof context2 !== "string"', "!context2"),
            "AfterTool output field hookSpecificOutput.additionalContext: no type",
        ),
        # handed to the translator, but the reference no longer shows the LLMRequest structure
        (
            RESOLVED_REFERENCE.replace("**LLMRequest**", "**Request**"),
            RESOLVED_CODE,
            "BeforeModel output field hookSpecificOutput.llm_request: no type",
        ),
        # one of the function's returns is not a literal the code types
        (
            RESOLVED_REFERENCE,
            RESOLVED_CODE.replace("return `Tool requires confirmation`;", "return confirmationDetails.title;"),
            "Notification input field message: no type",
        ),
        # no code builds the Notification input any more
        (
            RESOLVED_REFERENCE,
            RESOLVED_CODE.replace('this.createBaseInput("Notification"', 'this.createBaseInput("Other"'),
            "Notification input field message: no type",
        ),
        # a top-level output field with no note that the common table does not list either
        (
            RESOLVED_REFERENCE.replace("  - `systemMessage`: Displayed alongside", "  - `banner`: Displayed alongside"),
            RESOLVED_CODE,
            "Notification output field banner: no type",
        ),
        (
            RESOLVED_REFERENCE.replace('"cwd": string', '"cwd": Path'),
            RESOLVED_CODE,
            r"base input schema gives no type this reader knows for cwd \(Path\)",
        ),
        (
            RESOLVED_REFERENCE.replace("| `boolean` | Hides.", "| `flag`    | Hides."),
            RESOLVED_CODE,
            r"common output table gives no type this reader knows for suppressOutput \(flag\)",
        ),
    ],
)
def test_a_type_found_nowhere_is_a_catalog_error_naming_the_event_and_field(reference, code, says):
    assert reference != RESOLVED_REFERENCE or code != RESOLVED_CODE  # each case really changes the bundle
    with pytest.raises(CatalogError, match=says):
        extract(reference, code)


# --- the code the CLI loads, and the output fields it reads -----------------------------------------

#: TypeScript's own enum form (the loaded 0.61.0 chunk), the event named through the enum, the output
#: consulted in the functions that fire the event (one of them a wrapper that returns the output)
LOADED_CODE = """
var HookEventName;
(function(HookEventName2) {
  HookEventName2["BeforeTool"] = "BeforeTool";
  HookEventName2["AfterTool"] = "AfterTool";
  HookEventName2["AfterAgent"] = "AfterAgent";
  HookEventName2["BeforeModel"] = "BeforeModel";
})(HookEventName || (HookEventName = {}));
var DefaultHookOutput = class {
  continue;
  stopReason;
  decision;
  reason;
  hookSpecificOutput;
  constructor(data = {}) {
    this.continue = data.continue;
    this.stopReason = data.stopReason;
    this.decision = data.decision;
    this.reason = data.reason;
    this.hookSpecificOutput = data.hookSpecificOutput;
  }
  isBlockingDecision() {
    return this.decision === "block" || this.decision === "deny";
  }
  isAskDecision() {
    return this.decision === "ask";
  }
  shouldStopExecution() {
    return this.continue === false;
  }
  getEffectiveReason() {
    return this.stopReason || this.reason || "No reason provided";
  }
  getBlockingError() {
    if (this.isBlockingDecision()) {
      return { blocked: true, reason: this.getEffectiveReason() };
    }
    return { blocked: false, reason: "" };
  }
};
var HookEventHandler = class {
  async fireAfterToolEvent(toolName, mcpContext) {
    const input = {
      ...this.createBaseInput(HookEventName.AfterTool),
      tool_name: toolName,
      ...mcpContext && { mcp_context: mcpContext }
    };
    return this.executeHooks(HookEventName.AfterTool, input);
  }
  async fireAfterAgentEvent(prompt, stopHookActive = false) {
    const input = {
      ...this.createBaseInput(HookEventName.AfterAgent),
      prompt,
      stop_hook_active: stopHookActive
    };
    return this.executeHooks(HookEventName.AfterAgent, input);
  }
};
async function evaluateBeforeToolHook(hookSystem) {
  const beforeOutput = await hookSystem.fireBeforeToolEvent("x");
  if (beforeOutput.getBlockingError().blocked) {
    return { status: "error" };
  }
  if (beforeOutput.isAskDecision()) {
    return { status: "ask" };
  }
  return { status: "continue" };
}
var HookSystem = class {
  async fireBeforeModelEvent(llmRequest) {
    const result2 = await this.hookEventHandler.fireBeforeModelEvent(llmRequest);
    const hookOutput = result2.finalOutput;
    if (hookOutput?.shouldStopExecution()) {
      return { stopped: true, reason: hookOutput.getEffectiveReason() };
    }
    return { blocked: false };
  }
  async fireAfterAgentHookSafe(prompt) {
    const hookOutput = await this.config.getHookSystem()?.fireAfterAgentEvent(prompt, "", false);
    return hookOutput;
  }
  async *sendMessageStream(request) {
    const afterAgentOutput = await this.fireAfterAgentHookSafe(request);
    if (afterAgentOutput?.isBlockingDecision()) {
      yield afterAgentOutput.getEffectiveReason();
    }
  }
};
const blocked = `Tool execution blocked: ${reason}`;
"""
LOADED_REFERENCE = (
    BASE
    + BEFORE_TOOL.replace("  - `hookSpecificOutput.tool_input`: An object that merges.\n", "")
    + """### `AfterTool`

- **Input Fields**:
  - `tool_name`: (`string`)
  - `mcp_context`: (`object`)
- **Relevant Output Fields**:
  - `reason`: Required if denied.

### `AfterAgent`

- **Input Fields**:
  - `prompt`: (`string`) The user's original request.
  - `stop_hook_active`: (`boolean`) Indicates if this hook is already running as
    part of a retry sequence.
- **Relevant Output Fields**:
  - `decision`: Set to `"deny"` to reject the response.

### `BeforeModel`

- **Input Fields**:
  - `llm_request`: (`object`) Contains `model`.
- **Relevant Output Fields**:
  - `decision`: Set to `"deny"` to block the request.
"""
).replace(
    "| `reason`         | `string`  | Why.        |",
    "| `reason`         | `string`  | Why.        |\n"
    "| `continue`       | `boolean` | Stops.      |\n| `stopReason`     | `string`  | Shown.      |",
)


def _loaded():
    return {e["name"]: e for e in extract(LOADED_REFERENCE, LOADED_CODE)}


def test_the_typescript_enum_form_and_the_enum_spelling_of_the_event_are_read():
    events = _loaded()
    assert list(events) == ["BeforeTool", "AfterTool", "AfterAgent", "BeforeModel"]
    assert events["AfterTool"]["input"]["tool_name"] == {"required": True, "type": "string"}


def test_the_output_fields_the_code_consulting_an_event_reads_are_in_its_output():
    events = _loaded()
    tool = events["BeforeTool"]["output"]
    # evaluateBeforeToolHook: getBlockingError (decision, stopReason, reason) and isAskDecision ("ask")
    assert tool["decision"]["values"] == ["deny", "block", "ask"]
    assert tool["stopReason"] == {"required": False, "type": "string"}
    model = events["BeforeModel"]["output"]
    # HookSystem.fireBeforeModelEvent: shouldStopExecution (continue), getEffectiveReason (stopReason, reason)
    assert model["continue"] == {"required": False, "type": "boolean"}
    assert model["stopReason"] == {"required": False, "type": "string"}
    assert model["reason"] == {"required": False, "type": "string"}
    assert model["decision"]["values"] == ["deny"]  # nothing there compares "ask"
    # AfterAgent: consulted by the caller of the wrapper that returns the output
    assert events["AfterAgent"]["output"]["stopReason"] == {"required": False, "type": "string"}
    # AfterTool: nobody consults it here, so only what the reference lists
    assert "stopReason" not in events["AfterTool"]["output"]


def test_a_field_the_code_reads_that_the_common_table_does_not_type_is_a_catalog_error():
    reference = LOADED_REFERENCE.replace("| `stopReason`     | `string`  | Shown.      |", "")
    with pytest.raises(CatalogError, match="BeforeTool output field stopReason: no type"):
        extract(reference, LOADED_CODE)


def test_whether_an_input_field_is_always_sent_comes_from_the_code_building_the_input():
    events = _loaded()
    # `...mcpContext && { mcp_context }`: sent only sometimes, though the reference marks nothing optional
    assert events["AfterTool"]["input"]["mcp_context"] == {"required": False, "type": "object"}
    # `stop_hook_active: stopHookActive` with `stopHookActive = false`: always sent, though the text says "if"
    assert events["AfterAgent"]["input"]["stop_hook_active"] == {"required": True, "type": "boolean"}
    # a plain parameter: the reference's word stands
    assert events["AfterAgent"]["input"]["prompt"] == {"required": True, "type": "string"}


def _package(tmp_path, files: dict[str, str], bin_entry: str = "bundle/gemini.js"):
    import json

    folder = tmp_path / "node_modules" / "@google" / "gemini-cli"
    for rel, text in {**files, "bundle/docs/hooks/reference.md": "ref"}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    (folder / "package.json").write_text(json.dumps({"name": "@google/gemini-cli", "bin": {"gemini": bin_entry}}))
    found: list[str] = []
    files_of(tmp_path / "node_modules", lambda _folder, rel, _read: found.append(rel))
    return found


def test_the_code_read_is_the_file_the_bin_entry_loads_never_an_unloaded_chunk(tmp_path):
    found = _package(
        tmp_path,
        {
            # sorted first and complete, but nothing imports it
            "bundle/chunk-AAAA.js": LOADED_CODE,
            "bundle/gemini.js": 'import "./chunk-ENTRY.js";\nconst m = await import("./app-X.js");\n',
            "bundle/chunk-ENTRY.js": "export const x = 1;\n",
            "bundle/app-X.js": 'import {\n  a,\n  b\n} from "./chunk-LOADED.js";\n',
            "bundle/chunk-LOADED.js": LOADED_CODE,
        },
    )
    assert found == ["bundle/docs/hooks/reference.md", "bundle/chunk-LOADED.js"]


@pytest.mark.parametrize("bin_entry", ["../outside.js", "bundle/missing.js"])
def test_a_bin_entry_outside_the_package_or_missing_loads_no_code(tmp_path, bin_entry):
    found = _package(tmp_path, {"bundle/chunk-AAAA.js": LOADED_CODE}, bin_entry)
    assert found == ["bundle/docs/hooks/reference.md"]
