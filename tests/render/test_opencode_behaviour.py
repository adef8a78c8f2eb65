"""The generated OpenCode plugins, run for real against a stub `pasture hook serve`.

Each plugin is loaded the way OpenCode loads it (the .ts file under the Bun built into the pinned
opencode binary, started with BUN_BE_BUN=1) and, for portability, as tsc-emitted JavaScript under
Node (in the slow tier). A driver (opencode_driver.mjs) instantiates it once per case with a fake
host (v1: PluginInput with a recording client.app.log; v2: a plugin context whose domains record
registrations) and plays the case's calls; the stub server (opencode_stub_server.py, on PASTURE_BIN)
speaks the runtime's JSON-lines protocol, records every process start and every request, and
answers as the case says.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from behaviour_contracts import V1, V2, played  # noqa: E402 - the contracts these tests play
from loading import load_project
from opencode_support import PLUGIN, npm_bin, run_driver, write_stub
from repo_paths import REPO

from pasture.hosts.opencode import FIX, opencode_artifacts

REASON = 'no: "quoted" \\ $HOME `tick` ${x} */ </script> \u2028 é ✓'
TOOL_INPUT = {"tool": "bash", "sessionID": "ses_1", "callID": "call_1"}
TOOL_OUTPUT = {"args": {"command": "echo hi > probe.txt", "description": "probe"}}
IDLE = {"id": "evt_1", "type": "session.idle", "properties": {"sessionID": "ses_1"}}
FAST = {"PASTURE_HOOK_TIMEOUT_MS": "400"}
CHAT = {
    "kind": "hook",
    "event": "chat.message",
    "input": {"sessionID": "ses_1"},
    "output": {"message": {"role": "user"}, "parts": [{"type": "text", "text": "hi"}]},
}
BUS = {"kind": "bus", "input": IDLE}


def _tool(mode: str = "proceed", **extra: Any) -> dict[str, Any]:
    return {
        "kind": "hook",
        "event": "tool.execute.before",
        "mode": mode,
        "reason": REASON,
        "input": TOOL_INPUT,
        "output": TOOL_OUTPUT,
        **extra,
    }


def _refused(event: str, problem: str) -> str:
    return f"pasture refused {event}: {problem}, and this hook fails fast"


V1_CASES: dict[str, dict[str, Any]] = {
    "proceed": _tool(),
    "deny": _tool("deny"),
    "ask": _tool("ask"),
    "crash": _tool("crash"),
    "crash_why": _tool("crash_why"),
    "garbage": _tool("garbage"),
    "two_objects": _tool("two"),
    "array": _tool("array"),
    "empty": _tool("empty"),
    "deny_without_reason": _tool("noreason"),
    "unknown_decision": _tool("unknown"),
    "refused_request": _tool("refused"),
    "signal": _tool("signal"),
    "flood": _tool("flood"),
    "timeout": _tool("sleep", env=FAST),
    "bin_from_path": _tool(unset=["PASTURE_BIN"]),
    "bin_from_launcher": _tool(unset=["PASTURE_BIN"], env={"XDG_DATA_HOME": "<data>"}),
    "chat_message_deny": {**CHAT, "mode": "deny", "reason": REASON},
    "awkward_payload": _tool(
        input={
            **TOOL_INPUT,
            "big": {"$bigint": "12345678901234567890"},
            "loop": {"$cycle": True, "k": 1},
            "text": '\u2028 é ✓ "q"',
        }
    ),
    "oversized_payload": _tool(input={**TOOL_INPUT, "blob": {"$repeat": "x", "times": 17 * 1024 * 1024}}),
    # The runtime unavailable: conversation and bus rows proceed, the tool row refuses with the fix.
    "missing_binary": {
        "env": {"PASTURE_BIN": "/nonexistent/pasture"},
        "expectRequests": 0,
        "calls": [CHAT, BUS, _tool()],
    },
    "interpreter_gone": {"env": {"PASTURE_BIN": "<orphan>"}, "expectRequests": 0, "calls": [_tool()]},
    "not_installed": {
        "unset": ["PASTURE_BIN"],
        "env": {"PATH": "/usr/bin:/bin", "XDG_DATA_HOME": "<empty>"},
        "expectRequests": 0,
        "calls": [CHAT, _tool()],
    },
    "handshake_error": {**_tool(), "control": {"start": "handshake-error"}, "expectRequests": 0},
    "launcher_exit_70": {**_tool(), "control": {"start": "exit70"}, "expectRequests": 0},
    "protocol_mismatch": {**_tool(), "control": {"start": "protocol2"}, "expectRequests": 0},
    "silent_exit": {**_tool(), "control": {"start": "silent-exit"}, "expectRequests": 0},
    "silent_start": {
        "control": {"start": "hang"},
        "env": {"PASTURE_HOOK_START_MS": "500"},
        "expectRequests": 0,
        "calls": [CHAT, _tool()],
    },
    "restart_once": {"control": {"start": "die-first-start"}, "calls": [_tool(), _tool()]},
    "slow_start": {**_tool(), "control": {"start": "slow", "delay": 0.5}},
    # Which events wait: the handshake's set, updated by later replies.
    "not_awaited": {
        "control": {"await": ["tool.execute.before"], "modes": {"chat.message": "deny"}},
        "reason": REASON,
        "calls": [CHAT],
        "expectReports": 1,
    },
    "await_update": {
        "control": {"await_next": []},
        "mode": "deny",
        "reason": REASON,
        "settleMs": 400,
        "calls": [_tool(), _tool()],
    },
    "twelve_at_once": {
        "parallel": True,
        "mode": "barrier",
        "control": {"barrier": 12},
        "calls": [
            {
                "kind": "hook",
                "event": "tool.definition",
                "input": {"toolID": f"t{i}"},
                "output": {"description": "d", "parameters": {}},
            }
            for i in range(12)
        ],
    },
    "notes_logged_once": {"mode": "noted", "calls": [_tool(), _tool(), BUS], "expectReports": 1},
    "many_events_one_process": {"calls": [CHAT, BUS, _tool(), BUS, _tool(), CHAT], "expectEof": True},
    "bus_proceed": {"kind": "bus", "input": IDLE},
    "bus_crash": {"kind": "bus", "mode": "crash", "input": IDLE, "expectReports": 1},
    "bus_deny": {"kind": "bus", "mode": "deny", "reason": REASON, "input": IDLE, "expectReports": 1},
    "bus_garbage": {"kind": "bus", "mode": "garbage", "input": IDLE, "expectReports": 1},
    "bus_timeout": {"kind": "bus", "mode": "sleep", "env": FAST, "input": IDLE},
    "bus_undeclared": {
        "kind": "bus",
        "mode": "crash",
        "expectRequests": 0,
        "input": {"id": "evt_2", "type": "pasture.undeclared.type", "properties": {}},
    },
    "bus_prototype_key": {
        "kind": "bus",
        "mode": "crash",
        "expectRequests": 0,
        "input": {"id": "evt_3", "type": "constructor"},
    },
    "bus_order": {
        "kind": "bus",
        "mode": "slow",
        "control": {"delay": 0.05},
        "events": [{**IDLE, "id": f"evt_{i}"} for i in range(1, 9)],
    },
    # Steering (issue 17): what a proceed carries is written into the output object, in place.
    "steer_rewrite": _tool(
        "raw", control={"stdout": json.dumps({"decision": "proceed", "set_args": {"command": "echo safe"}}) + "\n"}
    ),
    "steer_feedback": {
        "kind": "hook",
        "event": "tool.execute.after",
        "mode": "raw",
        "control": {"stdout": json.dumps({"decision": "proceed", "append_output": "E501 line too long"}) + "\n"},
        "input": {**TOOL_INPUT, "args": {"command": "ls"}},
        "output": {"title": "t", "output": "done", "metadata": {}},
    },
    "steer_context": {
        "kind": "hook",
        "event": "experimental.chat.system.transform",
        "mode": "raw",
        "control": {"stdout": json.dumps({"decision": "proceed", "system": ["Run the tests."]}) + "\n"},
        "input": {"sessionID": "ses_1"},
        "output": {"system": ["base"]},
    },
    # a row that does not offer an answer never gets it written (tool.execute.before offers no context)
    "steer_not_offered": _tool(
        "raw", control={"stdout": json.dumps({"decision": "proceed", "system": ["x"], "append_output": "y"}) + "\n"}
    ),
    "steer_bad_shape": _tool("raw", control={"stdout": json.dumps({"decision": "proceed", "set_args": ["x"]}) + "\n"}),
}

V2_TOOL = {
    "tool": "bash",
    "sessionID": "ses_1",
    "agent": "build",
    "messageID": "msg_1",
    "id": "call_1",
    "input": {"command": "echo hi"},
}
V2_PERMISSION = {"sessionID": "ses_1", "action": "shell", "resources": ["echo hi"], "effect": "allow"}
V2_CASES: dict[str, dict[str, Any]] = {
    "tool_proceed": {"kind": "hook", "event": "tool.execute.before", "input": V2_TOOL},
    "tool_deny": {"kind": "hook", "event": "tool.execute.before", "mode": "deny", "reason": REASON, "input": V2_TOOL},
    "tool_crash": {"kind": "hook", "event": "tool.execute.before", "mode": "crash", "input": V2_TOOL},
    "permission_proceed": {"kind": "hook", "event": "permission.evaluate", "input": {**V2_PERMISSION, "effect": "ask"}},
    "permission_deny": {
        "kind": "hook",
        "event": "permission.evaluate",
        "mode": "deny",
        "reason": REASON,
        "input": V2_PERMISSION,
    },
    "permission_ask": {
        "kind": "hook",
        "event": "permission.evaluate",
        "mode": "ask",
        "reason": REASON,
        "input": V2_PERMISSION,
    },
    "permission_crash": {"kind": "hook", "event": "permission.evaluate", "mode": "crash", "input": V2_PERMISSION},
    "prompt_garbage": {
        "kind": "hook",
        "event": "session.prompt",
        "mode": "garbage",
        "input": {"sessionID": "ses_1", "messageID": "msg_1", "prompt": {"text": "hi"}},
    },
    "bus_proceed": {"kind": "bus", "input": {"id": "evt_1", "type": "session.created", "data": {"sessionID": "ses_1"}}},
    "bus_crash": {
        "kind": "bus",
        "mode": "crash",
        "expectReports": 1,
        "input": {"id": "evt_2", "type": "session.created", "data": {"sessionID": "ses_1"}},
    },
    "missing_binary": {
        "env": {"PASTURE_BIN": "/nonexistent/pasture"},
        "expectRequests": 0,
        "calls": [
            {"kind": "hook", "event": "session.prompt", "input": {"sessionID": "ses_1", "prompt": {"text": "hi"}}},
            {"kind": "hook", "event": "tool.execute.before", "input": V2_TOOL},
            {"kind": "hook", "event": "permission.evaluate", "input": V2_PERMISSION},
        ],
    },
}


# Bun (how OpenCode loads a plugin) in the fast tier; Node (the tsc-emitted JavaScript, for
# portability) plays the same cases in the slow tier: about 20 s of the fast tier's run otherwise.
RUNTIMES = ["bun", pytest.param("node", marks=pytest.mark.slow)]


def _gate_events(contract) -> list[str]:
    return [row.name for row in contract.events if row.semantic.value == "gate-consultation"]


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def _play(
    contracts, tmp_path_factory, runtime: str, contract_id: str, cases: dict[str, dict[str, Any]], tsc_batch=None
):
    bin_dir = npm_bin()
    contract = contracts[contract_id]
    (artifact,) = opencode_artifacts(contract)
    v2 = contract.version.major == 2
    folder = tmp_path_factory.mktemp(f"{runtime}-{contract_id.replace('@', '-')}")
    project = folder / "project"
    project.mkdir()
    stub = write_stub(folder / "bin")
    if runtime == "bun":  # OpenCode's own way: Bun imports the .ts itself
        plugin = folder / "plugin" / PLUGIN
        plugin.parent.mkdir(parents=True)
        plugin.write_text(artifact.text, encoding="utf-8")
    else:  # Node runs what the session's one tsc run emitted for this very text
        plugin = tsc_batch.emitted(f"behaviour-{contract_id}", artifact.text)
    # For the cases that leave PASTURE_BIN unset: `pasture` on PATH, and a launcher under <data>.
    (folder / "bin" / "pasture").symlink_to(stub)
    launcher = folder / "data" / "pasture" / "bin" / "pasture-hook"
    launcher.parent.mkdir(parents=True)
    launcher.symlink_to(stub)
    (folder / "empty").mkdir()
    orphan = folder / "bin" / "orphan-launcher"  # a launcher whose interpreter was removed
    orphan.write_text("#!/nonexistent/venv/bin/python -IS\n")
    orphan.chmod(0o755)
    places = {"<data>": str(folder / "data"), "<empty>": str(folder / "empty"), "<orphan>": str(orphan)}

    def env_of(case: dict[str, Any]) -> dict[str, str]:
        # never the machine's own launcher: <data> is an empty folder unless the case names one
        env = {"PASTURE_BIN": str(stub), "XDG_DATA_HOME": "<empty>", **case.get("env", {})}
        return {k: places.get(v, v) for k, v in env.items()}

    spec = {
        "flavour": "v2" if v2 else "v1",
        "export": "PastureLifecycle",
        "directory": str(project),
        "await": _gate_events(contract),
        "cases": [{"id": key, **value, "env": env_of(value)} for key, value in cases.items()],
    }
    env = {"PATH": f"{folder / 'bin'}:{os.environ.get('PATH', '')}"}
    result = run_driver(runtime, bin_dir, folder, plugin, spec, env)
    result.update(stub=stub, project=project, launcher=launcher, empty=folder / "empty", orphan=orphan)
    return result


def _throwing(contracts, contract_id: str, names: tuple[str, ...]):
    """The contract with ``names`` as throw-fail-fast gates: what the template does on a row that may
    throw, whichever rows the committed profile currently has evidence for (a profile may declare
    throw-fail-fast only on a capture in which a throw held)."""
    import dataclasses

    from pasture.profile.vocab import FailureMode

    contract = contracts[contract_id]
    rows = tuple(
        dataclasses.replace(
            r,
            declared_failure=FailureMode.THROW_FAIL_FAST,
            evidence=r.evidence or "test: template behaviour on a throwing row",
        )
        if r.name in names
        else r
        for r in contract.events
    )
    return {contract_id: dataclasses.replace(contract, events=rows, _index={})}


@pytest.fixture(scope="module", params=RUNTIMES)
def v1(request, contracts, tmp_path_factory, tsc_batch):
    return _play(played(contracts), tmp_path_factory, request.param, V1, V1_CASES, tsc_batch)


@pytest.fixture(scope="module", params=RUNTIMES)
def v2(request, contracts, tmp_path_factory, tsc_batch):
    return _play(played(contracts), tmp_path_factory, request.param, V2, V2_CASES, tsc_batch)


def _unchanged(case: dict[str, Any]) -> None:
    for result in case["results"]:
        assert result["after"] == result["before"]
        assert result["argsSame"] is True


def _serve_argv(stub: Path | str, version: str) -> list[str]:
    return [str(stub), "hook", "serve", "--harness", "opencode", "--host-version", version]


# --- 1.x: one runtime process, started at init ------------------------------------------------


def test_v1_module_exports_only_the_plugin_function(v1):
    assert v1["exports"] == ["PastureLifecycle"]
    assert v1["exportTypes"] == {"PastureLifecycle": "function"}
    assert v1["hookKeys"][-2:] == ["event", "dispose"]
    assert len(v1["hookKeys"]) == 17  # 15 named hooks, the catch-all event handler, dispose


def test_v1_starts_one_detached_runtime_with_the_serve_argv_and_sends_the_native_payload(v1):
    case = v1["cases"]["proceed"]
    assert case["threw"] is False
    (start,) = case["starts"]
    assert start["argv"] == _serve_argv(v1["stub"], "1.18.33")
    assert start["cwd"] == str(v1["project"])
    # its own session, so a host that kills its process group on exit does not take it along
    assert start["sid"] == start["pid"] and start["parent_sid"] != start["sid"]
    (call,) = case["calls"]
    assert json.loads(call["line"]) == {
        "id": 1,
        "event": "tool.execute.before",
        "wait": True,
        "payload": {"event": "tool.execute.before", "input": TOOL_INPUT, "output": TOOL_OUTPUT},
    }
    assert call["line"].startswith('{"id":1,"event":"tool.execute.before","wait":true,"payload":')
    _unchanged(case)
    assert case["reports"] == []


def test_v1_many_events_share_one_process_which_exits_when_the_plugin_unloads(v1):
    case = v1["cases"]["many_events_one_process"]
    assert len(case["starts"]) == 1
    assert [c["request"]["event"] for c in case["calls"]] == [
        "chat.message",
        "session.idle",
        "tool.execute.before",
        "session.idle",
        "tool.execute.before",
        "chat.message",
    ]
    assert [c["request"]["id"] for c in case["calls"]] == [1, 2, 3, 4, 5, 6]
    assert [c["request"]["wait"] for c in case["calls"]] == [True, False, True, False, True, True]
    assert len(case["eof"]) == 1  # dispose ended the runtime's stdin


@pytest.mark.parametrize("key, where", [("bin_from_path", "path"), ("bin_from_launcher", "launcher")])
def test_v1_binary_is_the_launcher_else_pasture_on_path(v1, key, where):
    case = v1["cases"][key]
    assert case["threw"] is False
    (start,) = case["starts"]
    if where == "launcher":
        assert start["argv"][0] == str(v1["launcher"])
    else:
        assert start["argv"][0] == str(v1["stub"].parent / "pasture")
    assert start["argv"][1:] == _serve_argv(v1["stub"], "1.18.33")[1:]


@pytest.mark.parametrize("key", ["deny", "ask", "chat_message_deny"])
def test_v1_gate_refusal_throws_exactly_the_reason(v1, key):
    case = v1["cases"][key]
    assert case["threw"] is True and case["isError"] is True
    assert case["message"] == REASON
    _unchanged(case)


@pytest.mark.parametrize(
    "key, problem, starts",
    [
        ("crash", "the runtime failed on this event (status 3)", 1),
        (
            "crash_why",
            "the runtime failed on this event (status 3): gate failed on tool.execute.before: the gate said no",
            1,
        ),
        ("garbage", "its answer is not one JSON object", 1),
        ("two_objects", "its answer is not one JSON object", 1),
        ("array", "its answer is not one JSON object", 1),
        ("empty", "its answer is not one JSON object", 1),
        ("deny_without_reason", "a deny decision without a reason", 1),
        ("unknown_decision", "an unknown decision", 1),
        ("refused_request", "the runtime refused the request (malformed request (stub))", 1),
        ("signal", "the pasture runtime was killed by SIGTERM", 2),
        ("flood", "the pasture runtime wrote a line longer than 4194304 bytes", 2),
        ("timeout", "no answer within 400 ms", 1),
    ],
)
def test_v1_runtime_failure_on_a_fail_fast_gate_throws(v1, key, problem, starts):
    case = v1["cases"][key]
    assert case["threw"] is True
    assert case["message"] == _refused("tool.execute.before", problem)
    assert "SECRET-STDERR" not in case["message"]  # stderr is logged, never shown to the model
    _unchanged(case)
    errors = [r for r in case["reports"] if r["level"] == "error"]
    assert [r["message"] for r in errors] == [f"tool.execute.before: {problem}"]
    assert errors[0]["extra"]["failure"] == "throw-fail-fast"
    if key in ("crash", "crash_why"):
        assert "SECRET-STDERR" in errors[0]["extra"]["stderr"]
    # A runtime that died is started again, once; one that only answered badly keeps running.
    assert len(case["starts"]) == starts


def test_v1_runtime_that_never_says_hello_counts_as_not_started(v1):
    case = v1["cases"]["silent_start"]
    chat, tool = case["results"]
    assert chat["threw"] is False
    assert tool["message"] == (
        f"pasture refused tool.execute.before: the pasture runtime did not answer within 500 ms "
        f"of starting ({v1['stub']}: is it a pasture with `hook serve`?); fix: {FIX}"
    )
    assert len(case["starts"]) == 2


def test_v1_runtime_that_dies_is_restarted_once_and_the_next_call_is_answered(v1):
    case = v1["cases"]["restart_once"]
    first, second = case["results"]
    assert first["threw"] is True
    assert first["message"] == _refused("tool.execute.before", "the pasture runtime exited with status 1")
    assert second["threw"] is False
    assert len(case["starts"]) == 2
    assert any("starting it again (once)" in r["message"] for r in case["reports"])


def test_v1_a_runtime_that_starts_slowly_is_waited_for(v1):
    case = v1["cases"]["slow_start"]
    assert case["threw"] is False and len(case["calls"]) == 1


def test_v1_awkward_payload_is_encoded_not_fatal(v1):
    case = v1["cases"]["awkward_payload"]
    assert case["threw"] is False
    (call,) = case["calls"]
    sent = call["request"]["payload"]["input"]
    assert sent["big"] == "12345678901234567890"
    assert sent["loop"] == {"k": 1, "self": "[Circular]"}
    assert sent["text"] == '\u2028 é ✓ "q"'


def test_v1_oversized_payload_is_sent_as_a_payload_error(v1):
    case = v1["cases"]["oversized_payload"]
    (call,) = case["calls"]
    assert call["request"] == {
        "id": 1,
        "event": "tool.execute.before",
        "wait": True,
        "payload_error": "payload larger than 16777216 bytes",
    }


# --- the runtime unavailable ------------------------------------------------------------------


def test_v1_missing_binary_refuses_the_tool_with_one_line_and_the_fix(v1):
    case = v1["cases"]["missing_binary"]
    chat, bus, tool = case["results"]
    assert chat["threw"] is False and bus["threw"] is False  # conversation and bus rows proceed
    line = f"the pasture runtime is missing: /nonexistent/pasture ($PASTURE_BIN) does not exist; fix: {FIX}"
    assert tool["threw"] is True and tool["message"] == f"pasture refused tool.execute.before: {line}"
    assert case["starts"] == [] and case["calls"] == []
    _unchanged(case)
    messages = [r["message"] for r in case["reports"]]
    assert f"chat.message: {line}" in messages and f"tool.execute.before: {line}" in messages


def test_v1_a_launcher_whose_interpreter_is_gone_is_named_as_such(v1):
    case = v1["cases"]["interpreter_gone"]
    assert case["message"] == (
        f"pasture refused tool.execute.before: the pasture runtime cannot be started: "
        f"{v1['orphan']} ($PASTURE_BIN) is there but the interpreter it names is not (a "
        f"removed virtualenv?); fix: {FIX}"
    )


def test_v1_not_installed_names_path_and_the_launcher_it_looked_for(v1):
    case = v1["cases"]["not_installed"]
    chat, tool = case["results"]
    assert chat["threw"] is False
    launcher = v1["empty"] / "pasture" / "bin" / "pasture-hook"
    assert tool["message"] == (
        f"pasture refused tool.execute.before: the pasture runtime is not installed: "
        f"`pasture` is not on PATH (no $PASTURE_BIN, no {launcher}); fix: {FIX}"
    )


@pytest.mark.parametrize(
    "key, line",
    [
        (
            "handshake_error",
            "the pasture runtime cannot run: cannot load the generated contract tables "
            "(ModuleNotFoundError: No module named 'pasture_contracts'); fix: STUB-FIX",
        ),
        (
            "launcher_exit_70",
            "the pasture runtime cannot run: cannot import the runtime from /opt/gone "
            "(ModuleNotFoundError); fix: STUB-LAUNCHER-FIX",
        ),
        ("protocol_mismatch", f"the installed pasture speaks hook protocol 2, this plugin 1; fix: {FIX}"),
        (
            "silent_exit",
            "the pasture runtime exited with status 0 before it answered (its stderr is in the "
            f"OpenCode log); fix: {FIX}",
        ),
    ],
)
def test_v1_runtime_that_cannot_run_is_tried_twice_then_refuses_with_its_line(v1, key, line):
    case = v1["cases"][key]
    assert case["threw"] is True and case["message"] == f"pasture refused tool.execute.before: {line}"
    assert len(case["starts"]) == 2 and case["calls"] == []


# --- waiting only where the answer matters ----------------------------------------------------


def test_v1_an_event_the_policy_cannot_refuse_is_not_awaited(v1):
    case = v1["cases"]["not_awaited"]
    assert case["threw"] is False  # the stub denies chat.message, but nobody waited for it
    (call,) = case["calls"]
    assert call["request"]["wait"] is False
    warned = [r for r in case["reports"] if r["level"] == "warn"]
    assert [r["message"] for r in warned] == [
        "chat.message: the policy now refuses this event, which had already proceeded; later ones wait for the runtime"
    ]
    assert warned[0]["extra"]["reason"] == REASON


def test_v1_a_reply_updates_the_await_set(v1):
    case = v1["cases"]["await_update"]
    first, second = case["results"]
    assert first["threw"] is True and first["message"] == REASON
    assert second["threw"] is False  # the first reply said nothing needs an answer any more
    assert [c["request"]["wait"] for c in case["calls"]] == [True, False]


def test_v1_what_the_runtime_says_beside_an_answer_is_logged_once(v1):
    case = v1["cases"]["notes_logged_once"]
    assert [r["threw"] for r in case["results"]] == [False, False, False]
    assert [(r["level"], r["message"]) for r in case["reports"]] == [
        ("warn", "pasture: NOTE-LINE: run pasture policy trust")
    ]


def test_v1_twelve_simultaneous_calls_are_all_in_flight_at_once(v1):
    case = v1["cases"]["twelve_at_once"]
    assert [r["threw"] for r in case["results"]] == [False] * 12
    assert len(case["starts"]) == 1 and len(case["calls"]) == 12
    assert sorted(c["request"]["id"] for c in case["calls"]) == list(range(1, 13))
    # the runtime answered none until all twelve had arrived: waited for one at a time, it never would have
    assert all(c["met"] for c in case["calls"])


# --- bus events -------------------------------------------------------------------------------


def test_v1_bus_event_is_sent_with_its_type_and_not_awaited(v1):
    case = v1["cases"]["bus_proceed"]
    assert case["threw"] is False
    (call,) = case["calls"]
    assert json.loads(call["line"]) == {
        "id": 1,
        "event": "session.idle",
        "wait": False,
        "payload": {"event": "session.idle", "input": IDLE},
    }
    _unchanged(case)
    assert case["reports"] == []


@pytest.mark.parametrize(
    "key, message",
    [
        ("bus_crash", "session.idle: the runtime failed on this event (status 3)"),
        ("bus_deny", "session.idle: ignored a deny decision: this row cannot refuse"),
        ("bus_garbage", "session.idle: its answer is not one JSON object"),
        ("bus_timeout", None),
    ],
)
def test_v1_observation_bus_row_never_throws(v1, key, message):
    case = v1["cases"][key]
    assert case["threw"] is False
    assert len(case["calls"]) == 1
    _unchanged(case)
    assert [r["message"] for r in case["reports"]] == ([] if message is None else [message])
    assert all(r["level"] == "warn" for r in case["reports"])


def test_v1_undeclared_bus_types_are_not_forwarded(v1):
    for key in ("bus_undeclared", "bus_prototype_key"):
        case = v1["cases"][key]
        assert case["threw"] is False and case["calls"] == [] and case["reports"] == []


def test_v1_bus_events_are_sent_in_arrival_order(v1):
    calls = v1["cases"]["bus_order"]["calls"]
    assert [c["request"]["payload"]["input"]["id"] for c in calls] == [f"evt_{i}" for i in range(1, 9)]
    assert [c["request"]["id"] for c in calls] == list(range(1, 9))


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
    (start,) = ok["starts"]
    assert start["argv"] == _serve_argv(v2["stub"], "2.0.20")
    assert start["cwd"] == str(v2["project"])
    (call,) = ok["calls"]
    assert call["request"] == {
        "id": 1,
        "event": "tool.execute.before",
        "wait": True,
        "payload": {"event": "tool.execute.before", "input": V2_TOOL},
    }
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
        k: v for k, v in case["before"]["input"].items() if k != "effect"
    }
    assert case["calls"][0]["request"]["payload"] == {"event": "permission.evaluate", "input": case["before"]["input"]}


def test_v2_permission_ask_on_a_deny_only_row_denies(v2):
    after = v2["cases"]["permission_ask"]["after"]["input"]
    assert after["effect"] == "deny" and after["message"] == REASON


def test_v2_permission_proceed_writes_nothing(v2):
    case = v2["cases"]["permission_proceed"]
    assert case["threw"] is False
    _unchanged(case)


@pytest.mark.parametrize(
    "key, event, problem",
    [
        ("tool_crash", "tool.execute.before", "the runtime failed on this event (status 3)"),
        ("permission_crash", "permission.evaluate", "the runtime failed on this event (status 3)"),
        ("prompt_garbage", "session.prompt", "its answer is not one JSON object"),
    ],
)
def test_v2_runtime_failure_on_a_fail_fast_row_throws(v2, key, event, problem):
    case = v2["cases"][key]
    assert case["threw"] is True
    assert case["message"] == _refused(event, problem)
    _unchanged(case)


def test_v2_bus_event_is_observed_and_never_throws(v2):
    ok = v2["cases"]["bus_proceed"]
    (call,) = ok["calls"]
    assert call["request"] == {
        "id": 1,
        "event": "session.created",
        "wait": False,
        "payload": {"event": "session.created", "input": ok["before"]["input"]},
    }
    crash = v2["cases"]["bus_crash"]
    assert crash["threw"] is False and len(crash["calls"]) == 1
    (report,) = crash["reports"]
    assert report["channel"] == "console"
    assert "warn: session.created: the runtime failed on this event (status 3)" in report["args"][0]


def test_v2_missing_binary_refuses_tool_and_permission_rows_only(v2):
    prompt, tool, permission = v2["cases"]["missing_binary"]["results"]
    line = f"the pasture runtime is missing: /nonexistent/pasture ($PASTURE_BIN) does not exist; fix: {FIX}"
    assert prompt["threw"] is False
    assert tool["message"] == f"pasture refused tool.execute.before: {line}"
    assert permission["message"] == f"pasture refused permission.evaluate: {line}"


# --- rows that may not refuse: a named observation row and a report-and-continue gate ----------

MIXED_CASES: dict[str, dict[str, Any]] = {
    f"{event}_{mode}": {
        "kind": "hook",
        "event": event,
        "mode": mode,
        "reason": REASON,
        "input": {"sessionID": "ses_1"},
        "output": {"headers": {"x-a": "1"}, "args": {"k": "v"}},
        "expectReports": 0 if mode == "proceed" else 1,
    }
    for event in ("chat.params", "chat.headers")
    for mode in ("proceed", "deny", "ask", "crash", "garbage")
}


@pytest.fixture(scope="module")
def mixed(contracts, tmp_path_factory):
    """opencode@1.18.33 with chat.params made an observe-only observation and chat.headers a
    report-and-continue gate: neither may throw, whatever the runtime answers."""
    import dataclasses

    from pasture.profile.vocab import EventSemantic, FailureMode

    contract = contracts[V1]
    rows = []
    for row in contract.events:
        if row.name == "chat.params":
            row = dataclasses.replace(
                row, semantic=EventSemantic.OBSERVATION, declared_failure=FailureMode.OBSERVE_ONLY
            )
        elif row.name == "chat.headers":
            row = dataclasses.replace(row, declared_failure=FailureMode.REPORT_AND_CONTINUE)
        rows.append(row)
    changed = dataclasses.replace(contract, id="opencode@1.18.33-mixed", events=tuple(rows), _index={})
    return _play({changed.id: changed}, tmp_path_factory, "bun", changed.id, MIXED_CASES)


@pytest.mark.parametrize("key", sorted(MIXED_CASES))
def test_rows_that_cannot_refuse_are_not_awaited_and_only_log(mixed, key):
    case = mixed["cases"][key]
    assert case["threw"] is False
    (call,) = case["calls"]
    assert call["request"]["wait"] is False
    _unchanged(case)
    if key.endswith("_proceed"):
        assert case["reports"] == []
    else:
        (report,) = case["reports"]
        assert report["level"] == "warn"
        if key.endswith(("_deny", "_ask")):
            assert "ignored a" in report["message"] and report["extra"]["reason"] == REASON


# --- steering (issue 17) ------------------------------------------------------------------------


def test_v1_a_rewrite_sets_the_argument_in_place_on_the_same_args_object(v1):
    (result,) = v1["cases"]["steer_rewrite"]["results"]
    assert result["threw"] is False and result["argsSame"] is True
    assert result["after"]["output"]["args"] == {"command": "echo safe", "description": "probe"}


def test_v1_feedback_is_appended_to_the_tool_output(v1):
    (result,) = v1["cases"]["steer_feedback"]["results"]
    assert result["after"]["output"]["output"] == "done\n\nE501 line too long"
    assert v1["cases"]["steer_feedback"]["calls"][0]["request"]["wait"] is True


def test_v1_context_is_pushed_into_the_system_prompt(v1):
    (result,) = v1["cases"]["steer_context"]["results"]
    assert result["after"]["output"]["system"] == ["base", "Run the tests."]


def test_v1_an_answer_the_row_does_not_offer_is_never_written(v1):
    _unchanged(v1["cases"]["steer_not_offered"])


def test_v1_a_steering_answer_of_the_wrong_shape_fails_fast_like_garbage(v1):
    case = v1["cases"]["steer_bad_shape"]
    assert case["threw"] is True
    assert case["message"] == _refused("tool.execute.before", "a set_args that is not an object")
    _unchanged(case)
