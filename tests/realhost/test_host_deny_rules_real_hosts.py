"""Defence in depth on the REAL Claude Code: the permissions.deny rules `pasture install` writes
(pasture/install/denyrules.py) make the host itself refuse its file tools on the guard's files:
Edit, Write and NotebookEdit of `.pasture/` are refused by the one `Edit(//<project>/.pasture/**)`
rule ("File is in a directory that is denied by your permission settings"), in the bypass
permission mode these runs use. (2.1.332 offers no MultiEdit.)

The user layer switches the guard's own rules off (`[builtin] protect_guard_files = false`), so the
hook answers proceed to every call and the only thing that can refuse is the host's deny rule. The
control run is the same session after the rules are taken out of the settings file: then the same
Write goes through, so it was the rule that refused.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from file_tools import NOTEBOOK, POLICY, seed_project
from realhost_support import SPECS, run_host

from pasture.hostenv import Script, Turn

pytestmark = pytest.mark.real_host
GUARD_OFF = "[builtin]\nprotect_guard_files = false\n"


def _turns(project: Path) -> list[Turn]:
    policy = f"{project}/.pasture/policy.toml"
    return [
        Turn.tool("Read", {"file_path": policy}),
        Turn.tool("Edit", {"file_path": policy, "old_string": "must survive", "new_string": "was edited in"}),
        Turn.tool("Write", {"file_path": policy, "content": "[gate]\n"}),
        Turn.tool("ToolSearch", {"query": "select:NotebookEdit", "max_results": 1}),  # a deferred tool
        Turn.tool("Read", {"file_path": f"{project}/.pasture/notes.ipynb"}),
        Turn.tool(
            "NotebookEdit",
            {"notebook_path": f"{project}/.pasture/notes.ipynb", "cell_id": "c1", "new_source": "print(2)"},
        ),
        Turn.tool("Read", {"file_path": f"{project}/notes.txt"}),
        Turn.tool("Write", {"file_path": f"{project}/notes.txt", "content": "written\n"}),
    ]


def test_claude_code_refuses_edit_and_write_of_the_policy_by_its_own_deny_rule(npm_bin: Path, tmp_path: Path) -> None:
    spec = SPECS["claude-code"]
    root = tmp_path / "run"
    project = root.resolve() / "project"
    script = Script.of(*_turns(project), final_text="Done: {tool_result}")
    out = run_host(
        spec, npm_bin, root, GUARD_OFF, script=script, timeout=180, prepare=lambda run: seed_project(run.project)
    )
    assert out.result.exit_code == 0, out.describe()
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert f"Edit(/{project}/.pasture/**)" in settings["permissions"]["deny"]

    # The hook refused nothing; the host refused the two calls aimed at the policy itself.
    rows = out.journal(event=spec.pre_event)
    assert all(r["decision"] == "proceed" for r in rows), rows
    assert (project / ".pasture" / "policy.toml").read_text() == POLICY, out.describe()
    assert (project / "notes.txt").read_text() == "written\n", out.describe()  # an ordinary write still runs
    assert (project / ".pasture" / "notes.ipynb").read_text() == NOTEBOOK, out.describe()
    told = [r["text"] for r in out.tool_results()]
    assert len(told) == 8, told
    refused = ("denied by your permission settings", "has been denied")  # Edit and Write; NotebookEdit
    for index in (1, 2, 5):  # Edit, Write, NotebookEdit of the guard's files
        assert any(r in told[index] for r in refused), (index, told)
    assert not any(r in told[i] for i in (0, 3, 4, 6, 7) for r in refused), told

    # Control: the same session without the deny rules: every one of those calls goes through.
    del settings["permissions"]
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    seed_project(project)
    again = out.execute()
    assert again.result.exit_code == 0, again.describe()
    assert (project / ".pasture" / "policy.toml").read_text() == "[gate]\n", again.describe()
    assert "print(2)" in (project / ".pasture" / "notes.ipynb").read_text(), again.describe()
    assert not any(r in t["text"] for t in again.tool_results() for r in refused), again.describe()
