"""`pasture policy check` warns, at the matcher's file:line, on a list-matcher value no envelope can
carry (`tool_kind = "Shell"`, an alias such as "bash", a harness or semantic outside its vocabulary),
because such a rule silently never applies."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hookrun import call, write_policy

from pasture.cli import main

PAYLOAD = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t"}


def _check(env: dict, *args: str):
    return CliRunner().invoke(main, ["policy", "check", *args], env=env, catch_exceptions=False)


def _rule(**matchers) -> str:
    lines = [f"{key} = {json.dumps(value)}" for key, value in matchers.items()]
    return '# the user layer\n\n[[rules]]\nname = "r"\ndecision = "deny"\n' + "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "matchers, key, value, should",
    [
        ({"tool_kind": "Shell"}, "tool_kind", "Shell", "'shell'"),
        ({"tool_kind": "SHELL"}, "tool_kind", "SHELL", "'shell'"),
        ({"tool_kind": "bash"}, "tool_kind", "bash", "'shell'"),
        ({"tool_kind": "Bash"}, "tool_kind", "Bash", "'shell'"),
        ({"tool_kind": "MultiEdit"}, "tool_kind", "MultiEdit", "'edit'"),
        ({"tool_kind": "Mcp__Github__Issue"}, "tool_kind", "Mcp__Github__Issue", "'mcp__github__issue'"),
        ({"harness": "Claude-Code"}, "harness", "Claude-Code", "'claude-code'"),
        (
            {"harness": "claude"},
            "harness",
            "claude",
            "one of claude-code, codex, opencode, gemini-cli, copilot-cli, pi, qwen-code, cline",
        ),
        ({"semantic": "Gate-Consultation"}, "semantic", "Gate-Consultation", "'gate-consultation'"),
    ],
)
def test_a_value_that_can_never_match_is_a_warning_at_its_line(env, tmp_path, matchers, key, value, should):
    path = write_policy(tmp_path, _rule(**matchers))
    result = _check(env)
    assert result.exit_code == 1, result.output
    assert (
        f"warning: {path}:6: rule 'r': {key} value {value!r} can never match, so this rule never applies; "
        f"write {should}"
    ) in result.stderr
    doc = json.loads(_check(env, "--json").stdout)
    assert doc["ok"] is False and len(doc["warnings"]) == 1


def test_one_dead_value_in_a_list_is_named_as_such(env, tmp_path):
    path = write_policy(tmp_path, _rule(tool_kind=["shell", "Bash", "mcp__thing"]))
    result = _check(env)
    assert result.exit_code == 1
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert line.startswith(
        f"warning: {path}:6: rule 'r': tool_kind value 'Bash' can never match (only the rule's "
        "other tool_kind values can); write 'shell'"
    )


@pytest.mark.parametrize(
    "matchers",
    [
        {"tool_kind": "shell"},
        {"tool_kind": ["edit", "write", "mcp__thing"]},
        {"harness": "codex", "semantic": "gate-consultation"},
    ],
)
def test_values_that_can_match_are_ok(env, tmp_path, matchers):
    write_policy(tmp_path, _rule(**matchers))
    result = _check(env)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: ")


@pytest.mark.parametrize("kind, decision", [("Shell", None), ("bash", None), ("shell", "deny")])
def test_the_warning_is_true_the_hook_never_matches_those_values(env, tmp_path, kind, decision):
    write_policy(tmp_path, "[builtin]\nprotect_guard_files = false\n" + _rule(tool_kind=kind))
    code, out, _ = call("claude-code", "PreToolUse", "2.1.332", PAYLOAD, env)
    assert code == 0
    said = json.loads(out)["hookSpecificOutput"].get("permissionDecision") if out.strip() else None
    assert said == decision, out
