"""Issue 18 on the REAL host: an agent cannot trust a project's policy for the user.

The fake model asks Claude Code's shell tool for `pasture policy trust` in spellings the landed
tree let through (one quote, a wrapper, the program's own option, the module entry point). With the
guard on, the built-in guard-command rule refuses each one before it runs, the model is told why,
and the trust store gains nothing. With the guard switched off by the user layer (so the command
really runs in the host's tool), `pasture policy trust` itself refuses: the tool call has no
controlling terminal to ask a person on, so nothing is trusted either.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from realhost_support import SPECS, run_host

from pasture.hostenv import Script, Turn
from pasture.runtime.builtin import RULE

pytestmark = pytest.mark.real_host

PROJECT_POLICY = (
    '[[rules]]\nname = "no-force-push"\ndecision = "deny"\ntool_kind = "shell"\ncommand = "push\\\\s+--force"\n'
)
GUARD_OFF = "[builtin]\nprotect_guard_files = false\n"


def _spellings(project: Path) -> list[str]:
    python = sys.executable
    return [
        f"timeout 60 pas''ture --root . policy trust --project {project}",
        f"{{ nice -n 5 {python} -m pasture.cli policy trust --project {project}; }}",
        f"if true; then env -i PATH=/usr/bin:/bin {python} -m pasture.entry policy tru\\\nst --project {project}; fi",
    ]


def _trusted(out) -> dict:
    store = Path(out.env["PASTURE_TRUST_STORE"])
    return json.loads(store.read_text())["trusted"] if store.exists() else {}


def test_an_agent_cannot_trust_the_project_policy_on_claude_code(npm_bin: Path, tmp_path: Path) -> None:
    spec = SPECS["claude-code"]
    project = (tmp_path / "run").resolve() / "project"
    spellings = _spellings(project)
    script = Script.of(
        *(Turn.shell(command, "Trust the project policy") for command in spellings), Turn.reply("Done: {tool_result}")
    )
    out = run_host(spec, npm_bin, tmp_path / "run", None, script=script, project_policy=PROJECT_POLICY, timeout=180)
    assert out.result.exit_code == 0, out.describe()
    rows = [r for r in out.journal(event=spec.pre_event) if "policy" in (r["envelope"].get("command") or "")]
    assert [r["envelope"]["command"] for r in rows] == spellings, out.describe()
    for row in rows:
        assert (row["decision"], row["answer"], row["layer"], row["rule"]) == ("deny", "deny", "builtin", RULE), row
        assert "changes what the guard enforces" in row["reason"]
    told = {r["call_id"]: r["text"] for r in out.tool_results()}
    for row in rows:
        assert "only the user runs it" in told.get(row["envelope"]["identities"].get("tool-call"), ""), told
    assert _trusted(out) == {}


def test_with_the_guard_off_trust_still_needs_a_person_on_claude_code(npm_bin: Path, tmp_path: Path) -> None:
    spec = SPECS["claude-code"]
    project = (tmp_path / "run").resolve() / "project"
    command = f"{sys.executable} -m pasture.entry policy trust --project {project} < /dev/null; echo exit=$?"
    out = run_host(
        spec,
        npm_bin,
        tmp_path / "run",
        GUARD_OFF,
        script=Script.shell_then_reply(command),
        project_policy=PROJECT_POLICY,
        timeout=180,
    )
    assert out.result.exit_code == 0, out.describe()
    (row,) = [r for r in out.journal(event=spec.pre_event) if r["envelope"].get("command") == command]
    assert row["decision"] == "proceed", row  # the guard was off: the command really ran in the host's tool
    (result,) = [r for r in out.tool_results() if r["call_id"] == row["envelope"]["identities"].get("tool-call")]
    assert "pasture policy trust needs a person" in result["text"] and "exit=2" in result["text"], result
    assert _trusted(out) == {}
