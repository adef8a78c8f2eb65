"""`pasture policy test` (a policy's regression suite) and the pack rules `pasture policy show` lists (issue 26)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

USER = """
[[rules]]
name = "no-rm"
decision = "deny"
reason = "recursive deletes outside build/ are not allowed"
[rules.run]
program = "rm"
options = [["-r", "--recursive"]]
outside = ["build"]
unknown = "ask"
"""

pytestmark = pytest.mark.usefixtures("sample_pack")  # tests/runtime/conftest.py: a fixed git pack


@pytest.fixture
def project(env, tmp_path, monkeypatch):
    """A project folder, the hook env of tests/runtime/conftest.py applied to this process, USER as the user policy."""
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    for key in [k for k in os.environ if k.startswith(("PASTURE_", "CLAUDE_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    Path(env["PASTURE_POLICY"]).write_text(USER)
    return folder


def test_policy_test_prints_decision_layer_rule_and_reason(cli, project):
    result = cli("policy", "test", "--project", str(project), "--", "git push --force", "rm -rf build", "rm -rf src")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "deny     packs:git.push-force  $ git push --force"
    assert lines[1].strip().startswith("pasture pack rule git.push-force: ")
    assert lines[2] == "proceed  user  $ rm -rf build"
    assert lines[4] == "deny     user:no-rm  $ rm -rf src"
    assert lines[5].strip() == "recursive deletes outside build/ are not allowed"


def test_policy_test_json_and_a_host_that_cannot_ask(cli, project):
    result = cli("policy", "test", "--project", str(project), "--json", "--harness", "codex", "--", 'rm -rf "$D"')
    found = json.loads(result.stdout)["results"][0]
    assert found["decision"] == "ask" and found["host_gives"] == "deny" and found["rule"] == "no-rm"
    result = cli("policy", "test", "--project", str(project), "--json", "--harness", "claude-code", "--", 'rm -rf "$D"')
    assert "host_gives" not in json.loads(result.stdout)["results"][0]


def test_policy_test_cases_exit_1_on_a_mismatch(cli, project, tmp_path):
    cases = tmp_path / "cases.toml"
    cases.write_text(
        '[[case]]\ncommand = "git push --force"\nexpect = "deny"\n\n'
        '[[case]]\ncommand = "rm -rf build"\nexpect = "proceed"\n\n'
        '[[case]]\ncommand = \'rm -rf "$X"\'\nexpect = "deny"\nharness = "codex"\n'
    )
    result = cli("policy", "test", "--project", str(project), "--cases", str(cases))
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("3 of 3 cases as expected\n")
    cases.write_text(cases.read_text() + '\n[[case]]\ncommand = "rm -rf src"\nexpect = "proceed"\n')
    result = cli("policy", "test", "--project", str(project), "--cases", str(cases), "--json")
    assert result.exit_code == 1
    body = json.loads(result.stdout)
    assert body["mismatches"] == 1
    assert [r["ok"] for r in body["results"]] == [True, True, True, False]
    assert body["results"][3]["at"] == f"{cases}:14"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[[case]]\ncommand = "ls"\nexpect = "maybe"\n', "expect 'maybe' is not one of deny, ask, rewrite"),
        ('[[case]]\ncommand = "ls"\nexpect = "deny"\nwhy = 1\n', "cases.toml:1: [[case]] has unknown key(s) why"),
        ('command = "ls"\n', "holds [[case]] tables"),
        ("[[case]\n", "not valid TOML"),
    ],
)
def test_a_bad_cases_file_is_one_error_line_exit_2(cli, project, tmp_path, text, said):
    cases = tmp_path / "cases.toml"
    cases.write_text(text)
    result = cli("policy", "test", "--project", str(project), "--cases", str(cases))
    assert result.exit_code == 2 and said in result.output, result.output
    assert "Traceback" not in result.output


def test_policy_test_needs_something_to_test(cli, project):
    result = cli("policy", "test", "--project", str(project))
    assert result.exit_code == 2 and "give commands after --, or --cases FILE" in result.output


def test_policy_show_lists_the_pack_rules_in_force(cli, project):
    shown = cli("policy", "show", "--project", str(project))
    assert "pack     git v1 (selected by the user layer)" in shown.stdout
    assert "pack rule git.push-force: deny when program=git subcommand=push option=-f|--force" in shown.stdout
    body = json.loads(cli("policy", "show", "--project", str(project), "--json").stdout)
    ids = [rule["id"] for rule in body["packs"]["rules"]]
    assert "git.push-force" in ids and body["packs"]["selected"] == [
        {"pack": "git", "selected_by": "user", "version": 1}
    ]
    Path(os.environ["PASTURE_POLICY"]).write_text('disable = ["git.push-force"]\n')
    body = json.loads(cli("policy", "show", "--project", str(project), "--json").stdout)
    assert "git.push-force" not in [rule["id"] for rule in body["packs"]["rules"]]
    Path(os.environ["PASTURE_POLICY"]).write_text("packs = []\n")
    body = json.loads(cli("policy", "show", "--project", str(project), "--json").stdout)
    assert body["packs"]["rules"] == [] and body["packs"]["selected"] == []
