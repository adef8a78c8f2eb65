"""Hostile profile strings stay data in every artifact kind, or are refused at validation."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import pytest
from loading import load_project
from profile_fixture import LIFECYCLE, RUNTIME, write_project

from pasture.hosts import HOSTS
from pasture.render.project import render_project

HOSTILE = "a\"b'c\\d$(touch pwned)`id`${HOME}*/</script>ü\u2028|x"
HOSTILE_URL = "https://example.invalid/a\"b'c\\d$(x)`id`*/</script>ü|q"


def _yaml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid YAML double-quoted scalar


@pytest.fixture
def hostile(tmp_path):
    lifecycle = LIFECYCLE.replace('evidence: "@hooks"', f"evidence: {_yaml(HOSTILE_URL)}", 1).replace(
        "    pre_action: true\n",
        f"    pre_action: true\n    matcher: {_yaml(HOSTILE)}\n    note: {_yaml(HOSTILE)}\n",
        1,
    )
    runtime = RUNTIME.replace("instruction: wait for the results", f"instruction: {_yaml(HOSTILE + chr(10) + HOSTILE)}")
    write_project(tmp_path, lifecycle, runtime)
    (contract,) = load_project(tmp_path)
    return tmp_path, contract, {a.path: a.text for a in render_project([contract], hosts=HOSTS)}


def test_json_keeps_the_matcher_as_data(hostile):
    _, _, files = hostile
    for path in ("claude-code@2.1.261/settings.json", "claude-code@2.1.261/plugin/hooks/hooks.json"):
        assert json.loads(files[path])["hooks"]["PreToolUse"][0]["matcher"] == HOSTILE


def test_python_table_keeps_the_evidence_as_data(hostile, tmp_path):
    root, contract, files = hostile
    package = tmp_path / "import" / "pasture_contracts"
    package.mkdir(parents=True)
    for path, text in files.items():
        if path.startswith("python/pasture_contracts/"):
            (package / path.rsplit("/", 1)[-1]).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(package.parent))
    try:
        for name in [m for m in sys.modules if m.startswith("pasture_contracts")]:
            del sys.modules[name]
        table = importlib.import_module("pasture_contracts.claude_code_2_1_261")
        assert table.ROWS["PreToolUse"].evidence == HOSTILE_URL
    finally:
        sys.path.remove(str(package.parent))
        for name in [m for m in sys.modules if m.startswith("pasture_contracts")]:
            del sys.modules[name]
    assert not (root / "pwned").exists()


def test_markdown_keeps_table_cells_and_comments_intact(hostile):
    _, _, files = hostile
    events = files["claude-code@2.1.261/events.md"]
    row = next(line for line in events.splitlines() if line.startswith("| `PreToolUse`"))
    assert row.count(" | ") == 9  # the hostile "|" is escaped, so the row keeps its ten cells (answers included)
    instructions = files["claude-code@2.1.261/instructions.md"]
    assert "</script>" not in instructions and "&lt;/script&gt;" in instructions
    assert instructions.count("-->") == 1  # only our own header comment closes


def test_shell_command_runs_exactly_our_argv(hostile, tmp_path):
    _, _, files = hostile
    stub = tmp_path / "stub"
    stub.write_text('#!/bin/sh\nfor a in "$@"; do printf \'%s\\n\' "$a"; done\n')
    stub.chmod(0o755)
    command = json.loads(files["claude-code@2.1.261/settings.json"])["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    out = subprocess.run(
        ["sh", "-c", command],
        env=dict(os.environ, PASTURE_BIN=str(stub)),
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert out.stdout.splitlines() == [
        "hook",
        "lifecycle",
        "--harness",
        "claude-code",
        "--event",
        "PreToolUse",
        "--host-version",
        "2.1.261",
    ]


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("note", "a\x00b", "contains the control character U+0000"),
        ("matcher", "a\nb", "contains the control character U+000A"),
        ("matcher", "a\x1b[31mb", "contains the control character U+001B"),
        ("note", "\ud800", "contains the control character U+D800"),
    ],
)
def test_control_characters_are_refused_at_validation(tmp_path, cli, field, value, message):
    lifecycle = LIFECYCLE.replace("    pre_action: true\n", f"    pre_action: true\n    {field}: {_yaml(value)}\n", 1)
    write_project(tmp_path, lifecycle)
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert message in result.stderr
    assert f"event PreToolUse field '{field}'" in result.stderr


def test_hostile_event_name_is_refused(tmp_path, cli):
    write_project(tmp_path, LIFECYCLE.replace("- name: PostToolUse", '- name: "Post$(rm`x`)"'))
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert "native name 'Post$(rm`x`)' is not a plain event token" in result.stderr
