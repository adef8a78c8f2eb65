"""The generated OpenCode plugins, run for real against a stub `pasture` runtime.

Each plugin is loaded the way OpenCode loads it (the .ts file under the Bun built into the pinned
opencode binary, started with BUN_BE_BUN=1) and, for portability, as tsc-emitted JavaScript under
Node. A driver (opencode_driver.mjs) instantiates it with a fake host (v1: PluginInput with a
recording client.app.log; v2: a plugin context whose domains record registrations) and plays the
cases below; the stub (PASTURE_BIN) records argv, stdin and cwd and answers as each case says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from repo_paths import REPO
from generator.loader import load_project
from generator.render.opencode import opencode_artifacts
from opencode_support import PLUGIN, npm_bin, run_driver, write_stub

V1 = "opencode@1.18.29"
V2 = "opencode@2.0.20"
REASON = 'no: "quoted" \\ $HOME `tick` ${x} */ </script> \u2028 é ✓'
TOOL_INPUT = {"tool": "bash", "sessionID": "ses_1", "callID": "call_1"}
TOOL_OUTPUT = {"args": {"command": "echo hi > probe.txt", "description": "probe"}}
IDLE = {"id": "evt_1", "type": "session.idle", "properties": {"sessionID": "ses_1"}}
FAST = {"PASTURE_HOOK_TIMEOUT_MS": "400"}


def _tool(mode: str, **extra: Any) -> dict[str, Any]:
    return {"kind": "hook", "event": "tool.execute.before", "mode": mode, "reason": REASON,
            "input": TOOL_INPUT, "output": TOOL_OUTPUT, **extra}


V1_CASES: dict[str, dict[str, Any]] = {
    "proceed": _tool("proceed"),
    "deny": _tool("deny"),
    "ask": _tool("ask"),
    "crash": _tool("crash"),
    "garbage": _tool("garbage"),
    "two_objects": _tool("two"),
    "array": _tool("array"),
    "empty": _tool("empty"),
    "deny_without_reason": _tool("noreason"),
    "unknown_decision": _tool("unknown"),
    "signal": _tool("signal"),
    "flood": _tool("flood"),
    "timeout": _tool("sleep", env=FAST),
    "missing_binary": _tool("proceed", env={"PASTURE_BIN": "/nonexistent/pasture"}),
    "bin_from_path": _tool("proceed", unset=["PASTURE_BIN"]),
    "chat_message_deny": {"kind": "hook", "event": "chat.message", "mode": "deny", "reason": REASON,
                          "input": {"sessionID": "ses_1"},
                          "output": {"message": {"role": "user"}, "parts": [{"type": "text", "text": "hi"}]}},
    "awkward_payload": _tool("proceed", input={**TOOL_INPUT, "big": {"$bigint": "12345678901234567890"},
                                               "loop": {"$cycle": True, "k": 1}, "text": "\u2028 é ✓ \"q\""}),
    "bus_proceed": {"kind": "bus", "mode": "proceed", "input": IDLE},
    "bus_crash": {"kind": "bus", "mode": "crash", "input": IDLE},
    "bus_deny": {"kind": "bus", "mode": "deny", "reason": REASON, "input": IDLE},
    "bus_garbage": {"kind": "bus", "mode": "garbage", "input": IDLE},
    "bus_timeout": {"kind": "bus", "mode": "sleep", "env": FAST, "input": IDLE},
    "bus_undeclared": {"kind": "bus", "mode": "crash",
                       "input": {"id": "evt_2", "type": "permission.asked", "properties": {}}},
    "bus_prototype_key": {"kind": "bus", "mode": "crash", "input": {"id": "evt_3", "type": "constructor"}},
    "bus_order": {"kind": "bus", "mode": "slow",
                  "events": [{**IDLE, "id": f"evt_{i}"} for i in range(1, 5)]},
}

V2_CASES: dict[str, dict[str, Any]] = {
    "tool_proceed": {"kind": "hook", "event": "tool.execute.before", "mode": "proceed",
                     "input": {"tool": "bash", "sessionID": "ses_1", "agent": "build", "messageID": "msg_1",
                               "id": "call_1", "input": {"command": "echo hi"}}},
    "tool_deny": {"kind": "hook", "event": "tool.execute.before", "mode": "deny", "reason": REASON,
                  "input": {"tool": "bash", "sessionID": "ses_1", "agent": "build", "messageID": "msg_1",
                            "id": "call_1", "input": {"command": "echo hi"}}},
    "tool_crash": {"kind": "hook", "event": "tool.execute.before", "mode": "crash",
                   "input": {"tool": "bash", "sessionID": "ses_1", "id": "call_1", "input": {}}},
    "permission_proceed": {"kind": "hook", "event": "permission.evaluate", "mode": "proceed",
                           "input": {"sessionID": "ses_1", "action": "shell", "resources": ["echo hi"],
                                     "effect": "ask"}},
    "permission_deny": {"kind": "hook", "event": "permission.evaluate", "mode": "deny", "reason": REASON,
                        "input": {"sessionID": "ses_1", "action": "shell", "resources": ["echo hi"],
                                  "effect": "allow"}},
    "permission_ask": {"kind": "hook", "event": "permission.evaluate", "mode": "ask", "reason": REASON,
                       "input": {"sessionID": "ses_1", "action": "shell", "resources": ["echo hi"],
                                 "effect": "allow"}},
    "permission_crash": {"kind": "hook", "event": "permission.evaluate", "mode": "crash",
                         "input": {"sessionID": "ses_1", "action": "shell", "resources": [], "effect": "allow"}},
    "prompt_garbage": {"kind": "hook", "event": "session.prompt", "mode": "garbage",
                       "input": {"sessionID": "ses_1", "messageID": "msg_1", "prompt": {"text": "hi"}}},
    "bus_proceed": {"kind": "bus", "mode": "proceed",
                    "input": {"id": "evt_1", "type": "session.created", "data": {"sessionID": "ses_1"}}},
    "bus_crash": {"kind": "bus", "mode": "crash",
                  "input": {"id": "evt_2", "type": "session.created", "data": {"sessionID": "ses_1"}}},
}


def _argv(stub: Path, event: str, version: str) -> list[str]:
    return [str(stub), "hook", "lifecycle", "--harness", "opencode", "--event", event, "--host-version", version]


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def _play(contracts, tmp_path_factory, runtime: str, contract_id: str, cases: dict[str, dict[str, Any]],
          tsc_batch=None):
    bin_dir = npm_bin()
    (artifact,) = opencode_artifacts(contracts[contract_id])
    v2 = contract_id == V2
    folder = tmp_path_factory.mktemp(f"{runtime}-{contract_id.replace('@', '-')}")
    project = folder / "project"
    project.mkdir()
    stub = write_stub(folder / "bin")
    if runtime == "bun":  # OpenCode's own way: Bun imports the .ts itself
        plugin = folder / "plugin" / PLUGIN
        plugin.parent.mkdir(parents=True)
        plugin.write_text(artifact.text, encoding="utf-8")
    else:  # Node runs what the session's one tsc run emitted for this very text
        plugin = tsc_batch.emitted(f"committed-{contract_id}", artifact.text)
    # For the case that leaves PASTURE_BIN unset, `pasture` must come from PATH.
    (folder / "bin" / "pasture").symlink_to(stub)
    spec = {
        "flavour": "v2" if v2 else "v1",
        "export": "PastureLifecycle",
        "directory": str(project),
        "cases": [{"id": key, **value, "env": {"PASTURE_BIN": str(stub), **value.get("env", {})}}
                  for key, value in cases.items()],
    }
    env = {"PATH": f"{folder / 'bin'}:{__import__('os').environ.get('PATH', '')}"}
    result = run_driver(runtime, bin_dir, folder, plugin, spec, env)
    result["stub"] = stub
    result["project"] = project
    return result


@pytest.fixture(scope="module", params=["bun", "node"])
def v1(request, contracts, tmp_path_factory, tsc_batch):
    return _play(contracts, tmp_path_factory, request.param, V1, V1_CASES, tsc_batch)


@pytest.fixture(scope="module", params=["bun", "node"])
def v2(request, contracts, tmp_path_factory, tsc_batch):
    return _play(contracts, tmp_path_factory, request.param, V2, V2_CASES, tsc_batch)


def _unchanged(case: dict[str, Any]) -> None:
    assert case["after"] == case["before"]
    assert case["argsSame"] is True


# --- 1.x --------------------------------------------------------------------------------------


def test_v1_module_exports_only_the_plugin_function(v1):
    assert v1["exports"] == ["PastureLifecycle"]
    assert v1["exportTypes"] == {"PastureLifecycle": "function"}
    assert v1["hookKeys"][-1] == "event"
    assert len(v1["hookKeys"]) == 16  # 15 named hooks + the catch-all event handler


def test_v1_proceed_spawns_the_exact_argv_with_the_native_payload(v1):
    case = v1["cases"]["proceed"]
    assert case["threw"] is False
    (call,) = case["calls"]
    assert call["argv"] == _argv(v1["stub"], "tool.execute.before", "1.18.29")
    assert json.loads(call["stdin"]) == {"event": "tool.execute.before", "input": TOOL_INPUT, "output": TOOL_OUTPUT}
    assert call["cwd"] == str(v1["project"])
    _unchanged(case)
    assert case["reports"] == []


def test_v1_binary_defaults_to_pasture_on_path(v1):
    case = v1["cases"]["bin_from_path"]
    assert case["threw"] is False
    (call,) = case["calls"]
    assert call["argv"][0].endswith("/pasture")
    assert call["argv"][1:] == _argv(v1["stub"], "tool.execute.before", "1.18.29")[1:]


@pytest.mark.parametrize("key", ["deny", "ask", "chat_message_deny"])
def test_v1_gate_refusal_throws_exactly_the_reason(v1, key):
    case = v1["cases"][key]
    assert case["threw"] is True and case["isError"] is True
    assert case["message"] == REASON
    _unchanged(case)


@pytest.mark.parametrize("key, problem", [
    ("crash", "the runtime exited with status 3"),
    ("garbage", "its stdout is not one JSON object"),
    ("two_objects", "its stdout is not one JSON object"),
    ("array", "its stdout is not one JSON object"),
    ("empty", "its stdout is not one JSON object"),
    ("deny_without_reason", "a deny decision without a reason"),
    ("unknown_decision", "an unknown decision"),
    ("signal", "the runtime was killed by SIGTERM"),
    ("flood", "more than 1048576 bytes on stdout"),
    ("timeout", "no answer within 400 ms"),
    ("missing_binary", "the runtime could not be run"),
])
def test_v1_runtime_failure_on_a_fail_fast_gate_throws(v1, key, problem):
    case = v1["cases"][key]
    assert case["threw"] is True
    assert case["message"] == f"pasture refused tool.execute.before: {problem}, and this hook fails fast"
    assert "SECRET-STDERR" not in case["message"]  # stderr is logged, never shown to the model
    _unchanged(case)
    (report,) = case["reports"]
    assert report["channel"] == "client.app.log" and report["level"] == "error"
    assert report["extra"]["failure"] == "throw-fail-fast"
    if key == "crash":
        assert "SECRET-STDERR" in report["extra"]["stderr"]


def test_v1_timeout_kills_the_runtime_promptly(v1):
    assert v1["cases"]["timeout"]["ms"] < 5000


def test_v1_awkward_payload_is_encoded_not_fatal(v1):
    case = v1["cases"]["awkward_payload"]
    assert case["threw"] is False
    (call,) = case["calls"]
    sent = json.loads(call["stdin"])["input"]
    assert sent["big"] == "12345678901234567890"
    assert sent["loop"] == {"k": 1, "self": "[Circular]"}
    assert sent["text"] == "\u2028 é ✓ \"q\""


def test_v1_bus_event_is_forwarded_with_its_type(v1):
    case = v1["cases"]["bus_proceed"]
    assert case["threw"] is False
    (call,) = case["calls"]
    assert call["argv"] == _argv(v1["stub"], "session.idle", "1.18.29")
    assert json.loads(call["stdin"]) == {"event": "session.idle", "input": IDLE}
    _unchanged(case)


@pytest.mark.parametrize("key", ["bus_crash", "bus_deny", "bus_garbage", "bus_timeout"])
def test_v1_observation_bus_row_never_throws(v1, key):
    case = v1["cases"][key]
    assert case["threw"] is False
    assert len(case["calls"]) == 1
    _unchanged(case)
    (report,) = case["reports"]
    assert report["level"] == "warn"


def test_v1_undeclared_bus_types_are_not_forwarded(v1):
    for key in ("bus_undeclared", "bus_prototype_key"):
        case = v1["cases"][key]
        assert case["threw"] is False and case["calls"] == [] and case["reports"] == []


def test_v1_bus_events_are_delivered_in_order_one_at_a_time(v1):
    calls = v1["cases"]["bus_order"]["calls"]
    assert [json.loads(c["stdin"])["input"]["id"] for c in calls] == ["evt_1", "evt_2", "evt_3", "evt_4"]
    for earlier, later in zip(calls, calls[1:]):
        assert earlier["end"] <= later["start"]


# --- 2.x --------------------------------------------------------------------------------------


def test_v2_default_export_registers_every_row_through_the_context(v2, contracts):
    assert v2["exports"] == ["default"]
    assert v2["plugin"] == {"id": "pasture-lifecycle", "setup": "function"}
    named = [row.name for row in contracts[V2].events if row.surface.value == "opencode-named-output"]
    assert [f"{d}.{h}" for d, h, _ in v2["registrations"]] == named
    assert len(named) == 16
    assert ["permission", "evaluate", 0] in v2["registrations"]
    assert v2["subscribed"] == ["session.created"]


def test_v2_tool_hook_proceeds_and_refuses_by_throwing(v2):
    ok = v2["cases"]["tool_proceed"]
    assert ok["threw"] is False
    (call,) = ok["calls"]
    assert call["argv"] == _argv(v2["stub"], "tool.execute.before", "2.0.20")
    assert json.loads(call["stdin"])["event"] == "tool.execute.before"
    assert call["cwd"] == str(v2["project"])
    _unchanged(ok)
    deny = v2["cases"]["tool_deny"]
    assert deny["threw"] is True and deny["message"] == REASON
    _unchanged(deny)


def test_v2_permission_evaluate_denies_through_the_effect(v2):
    case = v2["cases"]["permission_deny"]
    assert case["threw"] is False
    after = case["after"]["input"]
    assert after["effect"] == "deny" and after["message"] == REASON
    assert {k: v for k, v in after.items() if k not in ("effect", "message")} == {
        k: v for k, v in case["before"]["input"].items() if k != "effect"}
    sent = json.loads(case["calls"][0]["stdin"])
    assert sent == {"event": "permission.evaluate", "input": case["before"]["input"]}


def test_v2_permission_ask_on_a_deny_only_row_denies(v2):
    after = v2["cases"]["permission_ask"]["after"]["input"]
    assert after["effect"] == "deny" and after["message"] == REASON


def test_v2_permission_proceed_writes_nothing(v2):
    case = v2["cases"]["permission_proceed"]
    assert case["threw"] is False
    _unchanged(case)


@pytest.mark.parametrize("key, event, problem", [
    ("tool_crash", "tool.execute.before", "the runtime exited with status 3"),
    ("permission_crash", "permission.evaluate", "the runtime exited with status 3"),
    ("prompt_garbage", "session.prompt", "its stdout is not one JSON object"),
])
def test_v2_runtime_failure_on_a_fail_fast_row_throws(v2, key, event, problem):
    case = v2["cases"][key]
    assert case["threw"] is True
    assert case["message"] == f"pasture refused {event}: {problem}, and this hook fails fast"
    _unchanged(case)


def test_v2_bus_event_is_observed_and_never_throws(v2):
    ok = v2["cases"]["bus_proceed"]
    (call,) = ok["calls"]
    assert call["argv"] == _argv(v2["stub"], "session.created", "2.0.20")
    assert json.loads(call["stdin"]) == {"event": "session.created", "input": ok["before"]["input"]}
    crash = v2["cases"]["bus_crash"]
    assert crash["threw"] is False and len(crash["calls"]) == 1
    (report,) = crash["reports"]
    assert report["channel"] == "console" and "warn: session.created: the runtime exited with status 3" in report["args"][0]


# --- rows that may not refuse: a named observation row and a report-and-continue gate ----------

MIXED_CASES: dict[str, dict[str, Any]] = {
    f"{event}_{mode}": {"kind": "hook", "event": event, "mode": mode, "reason": REASON,
                        "input": {"sessionID": "ses_1"}, "output": {"headers": {"x-a": "1"}, "args": {"k": "v"}}}
    for event in ("chat.params", "chat.headers")
    for mode in ("proceed", "deny", "ask", "crash", "garbage")
}


@pytest.fixture(scope="module")
def mixed(contracts, tmp_path_factory):
    """opencode@1.18.29 with chat.params made an observe-only observation and chat.headers a
    report-and-continue gate: neither may throw, whatever the runtime answers."""
    import dataclasses

    from generator.vocab import EventSemantic, FailureMode

    contract = contracts[V1]
    rows = []
    for row in contract.events:
        if row.name == "chat.params":
            row = dataclasses.replace(row, semantic=EventSemantic.OBSERVATION,
                                      declared_failure=FailureMode.OBSERVE_ONLY)
        elif row.name == "chat.headers":
            row = dataclasses.replace(row, declared_failure=FailureMode.REPORT_AND_CONTINUE)
        rows.append(row)
    changed = dataclasses.replace(contract, id="opencode@1.18.29-mixed", events=tuple(rows), _index={})
    return _play({changed.id: changed}, tmp_path_factory, "bun", changed.id, MIXED_CASES)


@pytest.mark.parametrize("key", sorted(MIXED_CASES))
def test_rows_that_cannot_refuse_only_log_and_proceed(mixed, key):
    case = mixed["cases"][key]
    assert case["threw"] is False
    assert len(case["calls"]) == 1
    _unchanged(case)
    if key.endswith("_proceed"):
        assert case["reports"] == []
    else:
        (report,) = case["reports"]
        assert report["level"] == "warn"
        if key.endswith(("_deny", "_ask")):
            assert "ignored a" in report["message"] and report["extra"]["reason"] == REASON
