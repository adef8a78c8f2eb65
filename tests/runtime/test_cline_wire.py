"""Cline's answers (pasture/runtime/hostwire/cline.py): the refusal form follows the tool (an emptied input
where the tool needs one, else a cancel), and run_commands' commands are read one per line, with a command
that would run on into the next one put last, where the reader gives up on the whole text."""

from __future__ import annotations

import json

import pytest

from pasture.runtime import answer, envelope
from pasture.runtime.hostwire import cline
from pasture.runtime.shellparse import parse


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


def test_several_commands_are_each_read_as_the_script_of_its_own_bash_c():
    text = cline.joined(["echo 'open", "rm -rf /srv/data", "ls \\"])
    assert text.splitlines() == ["bash -c 'echo '\\''open'", "bash -c 'rm -rf /srv/data'", "bash -c 'ls \\'"]
    commands = parse(cline.joined(["ls", "rm -rf /srv/data"]))[0]
    assert [w.text for w in commands[1].words] == ["bash", "-c", "rm -rf /srv/data"]


@pytest.mark.parametrize(
    "tool_input",
    [
        {"commands": ["cat <<E", "rm -rf /srv/data"]},  # a here-document opener would take the next line as data
        {"commands": [": <<'X'", "rm -rf /srv/data", "X"]},
        {"commands": ["cat <<E", "rm -rf /srv/data \\"]},
        {"commands": ["for x in", "git push --force origin main"]},  # an open for-list
        {"commands": ["cat <<'E'", "echo '", "git push --force origin main"]},
        {"commands": "rm -rf /srv/data"},  # a string: Cline runs it
        {"commands": ["rm -rf /srv/data"], "command": "ls"},  # a stray command beside them is not what runs
        {"commands": [{"command": "rm", "args": ["-rf", "/srv/data"]}]},  # a program and its argv, no shell
        {"commands": {"command": "sh", "args": ["-c", "rm -rf /srv/data"]}},
        {"command": "git", "args": ["push", "--force", "origin", "main"]},
        {"cmd": "rm -rf /srv/data"},
        {"commands": '["rm -rf /srv/data"]'},  # JSON in a string, which Cline may parse
    ],
)
def test_every_shape_of_the_shell_tools_input_is_read(env, tmp_path, tool_input):
    """The shapes @cline/core's own reader (aZ) runs; the recommended packs refuse each destructive one."""
    from hookrun import call

    policy = tmp_path / "packs.toml"
    policy.write_text('packs = ["recommended"]\n')
    env = dict(env, PASTURE_POLICY=str(policy))
    payload = {"hookName": "tool_call", "taskId": "t", "workspaceRoots": [str(tmp_path)]}
    payload["tool_call"] = {"id": "c", "name": "run_commands", "input": tool_input}
    code, out, _ = call("cline", "PreToolUse", "3.0.65", payload, env)
    answer = json.loads(out)
    assert code == 0 and answer.get("overrideInput") == {}, (tool_input, out)
    assert "pasture pack rule" in answer["contextModification"], answer


def test_a_stray_command_beside_commands_is_not_what_the_guard_approves(env, tmp_path):
    from hookrun import call

    policy = tmp_path / "packs.toml"
    policy.write_text('packs = ["recommended"]\n')
    payload = {"hookName": "tool_call", "taskId": "t", "workspaceRoots": [str(tmp_path)]}
    payload["tool_call"] = {"id": "c", "name": "run_commands", "input": {"commands": ["ls"], "command": "git push -f"}}
    code, out, _ = call("cline", "PreToolUse", "3.0.65", payload, dict(env, PASTURE_POLICY=str(policy)))
    assert json.loads(out) == {}  # Cline runs `ls`; the stray key is not read in its place


def test_the_read_tool_names_every_file_it_reads():
    _, tool_input = cline.tool_of(_call("read_files", {"files": [{"path": "/a/secret"}, {"path": "/b"}]}))
    assert tool_input["file_paths"] == ["/a/secret", "/b"]
    env = envelope.build("cline", None, "3.0.65", "PreToolUse", None, _call("read_files", {"file_paths": ["/x", "/y"]}))
    assert env["file_paths"] == ["/x", "/y"] and env["file_path"] == "/x"


def test_a_loose_reading_keeps_a_programs_own_arguments_in_place():
    """A line the reader cannot follow is read loosely: each program's own words come first, so a rule on its
    arguments (`git push --force`) still matches inside `bash -c '...'` next to a script that does not parse."""
    from pasture.runtime.invocation import loose

    (inv,) = loose("bash -c 'git push --force origin main'\nbash -c 'for x in'", {"git"})
    assert [w.text for w in inv.args][:4] == ["push", "--force", "origin", "main"]


def test_a_payload_without_a_call_has_no_tool():
    assert cline.tool_of({"hookName": "agent_start"}) == (None, None)
    assert cline.tool_of("not json") == (None, None)
