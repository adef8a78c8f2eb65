"""Cline's answers (pasture/runtime/hostwire/cline.py): the refusal form follows the tool (an emptied input
where the tool needs one, else a cancel), and run_commands' commands are read one per line, with a command
that would run on into the next one put last, where the reader gives up on the whole text."""

from __future__ import annotations

import json

import pytest

from pasture.runtime import answer, envelope
from pasture.runtime.hostwire import cline
from pasture.runtime.shellparse import Unparsable, parse


def _call(name: str, tool_input: object) -> dict:
    return {"hookName": "tool_call", "tool_call": {"id": "c1", "name": name, "input": tool_input}}


def test_a_deny_of_a_tool_with_a_required_input_empties_it_and_says_why():
    cline.tool_of(_call("run_commands", {"commands": ["rm -rf build"]}))
    code, stdout, _, said = cline.deny("PreToolUse", None, "no deletes")
    assert (code, said) == (0, "deny")
    assert json.loads(stdout) == {"overrideInput": {}, "contextModification": "no deletes"}


@pytest.mark.parametrize("tool", ["submit_and_exit", "mcp__server__tool", None])
def test_a_deny_of_any_other_tool_cancels(tool):
    cline.tool_of(_call(tool, {}) if tool else {"hookName": "agent_start"})
    _, stdout, _, _ = cline.deny("PreToolUse", None, "no")
    assert json.loads(stdout) == {"cancel": True, "errorMessage": "no"}


def test_a_guard_that_cannot_decide_answers_the_same_refusal_with_the_line_saying_why():
    class Row:
        failure = "throw-fail-fast"
        semantic = "gate-consultation"
        name = "PreToolUse"

    cline.tool_of(_call("editor", {"path": "a"}))
    reply = answer.fail("cline", Row(), "the policy cannot be read")
    assert reply.exit_code == 0 and reply.answer == "fail-block"
    assert json.loads(reply.stdout) == {
        "overrideInput": {},
        "contextModification": "pasture: the policy cannot be read",
    }


def test_the_envelope_reads_the_shell_tools_commands():
    env = envelope.build("cline", None, "3.0.65", "PreToolUse", None, _call("run_commands", {"commands": ["ls"]}))
    assert (env["tool_kind"], env["command"]) == ("shell", "ls")


def test_commands_are_read_one_per_line_and_one_that_runs_on_goes_last():
    commands = ["echo 'open", "rm -rf /srv/data", "ls \\"]
    text = cline.joined(commands)
    assert text.splitlines()[0] == "rm -rf /srv/data"
    with pytest.raises(Unparsable):  # the whole text: the guard counts it as touching all it names
        parse(text)
    second = parse(cline.joined(["ls", "rm -rf /srv/data"]))[0][1]
    assert [w.text for w in second.words] == ["rm", "-rf", "/srv/data"]


def test_a_payload_without_a_call_has_no_tool():
    assert cline.tool_of({"hookName": "agent_start"}) == (None, None)
    assert cline.tool_of("not json") == (None, None)
