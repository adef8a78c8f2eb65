"""Issue 28 item 3 on the REAL Codex 0.171.0: ``write_stdin`` (bytes typed into a shell session that is
already running) fires no PreToolUse. The fake model starts an interactive ``bash`` with ``exec_command``
(``tty``: the one call the hook sees, as the shell command ``bash``), then types the probe command into it
with ``write_stdin``; the user layer denies that command. It runs: the probe is written and the journal has
no row for it. ``pasture doctor``'s ``codex-unhooked`` and docs/failures.md say so, with the mitigation.
If this starts failing, Codex began hooking ``write_stdin``: update the doctor and the docs.

Code Mode ``exec`` (reported in Codex's issue tracker to skip PreToolUse too) is not captured: no run
here offers it, so the doctor names it as reported, not verified.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from realhost_support import CODEX, COMMAND, deny_policy, run_host

from pasture.hostenv import Script, Turn
from pasture.hosts.script import SESSION_ID

pytestmark = pytest.mark.real_host


def test_write_stdin_types_into_an_approved_shell_with_no_pre_tool_use(npm_bin: Path, tmp_path: Path) -> None:
    script = Script.of(
        Turn.tool("exec_command", {"cmd": "bash", "tty": True, "yield_time_ms": 1000}),
        Turn.tool("write_stdin", {"session_id": SESSION_ID, "chars": COMMAND + "\n", "yield_time_ms": 1000}),
        Turn.reply("Done. {tool_result}"),
    )
    out = run_host(CODEX, npm_bin, tmp_path / "run", deny_policy(), script=script)
    results = [r["text"] or "" for r in out.tool_results()]
    assert len(results) == 2 and "session ID" in results[0], out.describe()  # the shell ran, then was typed into
    assert out.probe_exists, out.describe()  # the denied command ran
    pre = [r for r in out.journal(event="PreToolUse")]
    assert [(r["envelope"] or {}).get("command") for r in pre] == ["bash"], pre  # only the shell's start
    assert all(r["decision"] != "deny" for r in pre), pre
    done = out.pasture("doctor", "--host", "codex", "--json", cwd=out.project)
    assert "write_stdin fires no PreToolUse on 0.171.0" in done.stdout, done.stdout
