"""Every path a patch touches reaches the policy (issue 28, item 3).

Codex 0.171.0 sends `apply_patch` as `tool_input.command` holding the whole patch (the captured
payloads in tests/runtime/file_tool_payloads/codex@0.171.0/); OpenCode's `apply_patch` as
`patchText`. The envelope carries every path the patch's headers name (`file_paths`, `file_path` the
first); a `file_path` rule that refuses refuses the patch if any of them matches, one that approves
approves it only if all do; `[[after]]` runs once for each file the patch leaves behind."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hookrun import call

from pasture.journal.db import query
from pasture.runtime import trust
from pasture.runtime.envelope import build

CODEX = ("codex", "PreToolUse", "0.171.0")
SECRETS = (
    '[[rules]]\nname = "no-secrets"\ndecision = "deny"\nreason = "secrets are off limits"\n'
    'tool_kind = ["write", "edit"]\nfile_path = "(^|/)secrets/"\n'
)
PATCHES = {
    "add": "*** Begin Patch\n*** Add File: secrets/key.txt\n+k\n*** End Patch\n",
    "update": "*** Begin Patch\n*** Update File: secrets/key.txt\n@@\n-a\n+b\n*** End Patch\n",
    "delete": "*** Begin Patch\n*** Delete File: secrets/key.txt\n*** End Patch\n",
    "move": "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: secrets/key.txt\n@@\n-a\n+b\n*** End Patch\n",
    "second-of-two": (
        "*** Begin Patch\n*** Add File: README.md\n+hi\n*** Update File: src/secrets/key.txt\n@@\n-a\n+b\n"
        "*** End Patch\n"
    ),
}


def _apply_patch(project: Path, patch: str) -> dict:
    return {
        "session_id": "s",
        "turn_id": "u",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_use_id": "t",
        "tool_input": {"command": patch},
    }


def test_the_envelope_carries_every_path_of_a_patch():
    payload = _apply_patch(Path("/p"), PATCHES["second-of-two"])
    envelope = build("codex", "codex@0.171.0", "0.171.0", "PreToolUse", None, payload)
    assert envelope["file_paths"] == ["README.md", "src/secrets/key.txt"]
    assert envelope["file_path"] == "README.md"
    moved = build("codex", None, "0.171.0", "PreToolUse", None, _apply_patch(Path("/p"), PATCHES["move"]))
    assert moved["file_paths"] == ["notes.txt", "secrets/key.txt"]
    opencode = {"input": {"tool": "apply_patch"}, "output": {"args": {"patchText": PATCHES["delete"]}}}
    assert build("opencode", None, "1.18.33", "tool.execute.before", None, opencode)["file_paths"] == [
        "secrets/key.txt"
    ]
    # a one-file tool: its one path; a shell call: none
    write = {"tool_name": "Write", "tool_input": {"file_path": "a.py", "content": ""}}
    assert build("claude-code", None, "2.1.332", "PreToolUse", None, write)["file_paths"] == ["a.py"]
    shell = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    assert build("claude-code", None, "2.1.332", "PreToolUse", None, shell)["file_paths"] == []


@pytest.mark.parametrize("layer", ["user", "project"])
@pytest.mark.parametrize("kind", sorted(PATCHES))
def test_a_file_path_rule_refuses_a_patch_if_any_path_matches(env, tmp_path, layer, kind):
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    if layer == "user":
        Path(env["PASTURE_POLICY"]).write_text(SECRETS)
    else:
        env = dict(env, PASTURE_POLICY=str(tmp_path / "no-user.toml"))
        policy = project / ".pasture" / "policy.toml"
        policy.write_text(SECRETS)
        trust.trust(str(policy), env)
    code, out, _ = call(*CODEX, _apply_patch(project, PATCHES[kind]), env)
    decision = json.loads(out)["hookSpecificOutput"]
    assert (code, decision["permissionDecision"]) == (0, "deny")
    assert decision["permissionDecisionReason"] == "secrets are off limits"
    row = query(env["PASTURE_JOURNAL"])[-1]
    assert row["rule"] == "no-secrets" and row["layer"] == layer
    assert any(path.endswith("secrets/key.txt") for path in row["envelope"]["file_paths"])


def test_a_patch_that_touches_no_matching_path_proceeds(env, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    Path(env["PASTURE_POLICY"]).write_text(SECRETS)
    patch = "*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** Update File: src/b.py\n@@\n-a\n+b\n*** End Patch\n"
    assert call(*CODEX, _apply_patch(project, patch), env)[:2] == (0, "")


def test_an_approving_file_path_rule_must_match_every_path(env, tmp_path):
    """`allow` for docs/ must not approve a patch that also writes elsewhere."""
    project = tmp_path / "project"
    project.mkdir()
    Path(env["PASTURE_POLICY"]).write_text(
        '[[rules]]\nname = "docs"\ndecision = "allow"\ntool_kind = ["write", "edit"]\nfile_path = "^docs/"\n'
    )
    both = "*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** Add File: run.sh\n+x\n*** End Patch\n"
    call(*CODEX, _apply_patch(project, both), env)
    assert query(env["PASTURE_JOURNAL"])[-1]["rule"] is None
    only_docs = "*** Begin Patch\n*** Add File: docs/a.md\n+x\n*** End Patch\n"
    call(*CODEX, _apply_patch(project, only_docs), env)
    assert query(env["PASTURE_JOURNAL"])[-1]["rule"] == "docs"


def test_after_runs_for_each_file_the_patch_leaves(env, tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("")
    (project / "src" / "moved.py").write_text("")
    lint = tmp_path / "lint.py"
    lint.write_text("import sys; print('checked', sys.argv[1]); sys.exit(1)")
    Path(env["PASTURE_POLICY"]).write_text(
        f'[[after]]\nname = "lint"\ntool_kind = ["edit", "write"]\nfile_path = "\\\\.py$"\n'
        f'command = [{json.dumps(sys.executable)}, {json.dumps(str(lint))}, "{{file_path}}"]\n'
    )
    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-a\n+b\n*** Add File: notes.md\n+x\n"
        "*** Delete File: src/gone.py\n*** Update File: src/old.py\n*** Move to: src/moved.py\n@@\n-a\n+b\n"
        "*** End Patch\n"
    )
    payload = dict(_apply_patch(project, patch), hook_event_name="PostToolUse", tool_response="ok")
    code, out, _ = call("codex", "PostToolUse", "0.171.0", payload, env)
    reason = json.loads(out)["reason"]
    assert "checked src/a.py" in reason and "checked src/moved.py" in reason
    assert "gone.py" not in reason and "old.py" not in reason and "notes.md" not in reason
    runs = [s for s in query(env["PASTURE_JOURNAL"])[-1]["detail"]["steer"] if s["kind"] == "after"]
    assert [r["command"][-1] for r in runs] == ["src/a.py", "src/moved.py"]


def test_the_envelope_and_the_patch_reader_look_in_the_same_keys():
    from pasture.runtime import envelope, patch

    assert envelope._PATCH_KEYS == patch.KEYS


def test_after_gets_a_patch_path_from_a_subfolder_session_relative_to_the_root(env, tmp_path):
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("")
    lint = tmp_path / "lint.py"
    lint.write_text(
        "import os, sys; print('exists' if os.path.exists(sys.argv[1]) else 'missing', sys.argv[1]); exit(1)"
    )
    Path(env["PASTURE_POLICY"]).write_text(
        f'[[after]]\nname = "lint"\ntool_kind = ["edit"]\n'
        f'command = [{json.dumps(sys.executable)}, {json.dumps(str(lint))}, "{{file_path}}"]\n'
    )
    payload = dict(_apply_patch(project / "src", PATCHES["update"].replace("secrets/key.txt", "a.py")))
    payload.update(hook_event_name="PostToolUse", tool_response="ok")
    _code, out, _ = call("codex", "PostToolUse", "0.171.0", payload, env)
    assert "exists src/a.py" in json.loads(out)["reason"]
