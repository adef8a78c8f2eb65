"""The guard's own files on the REAL hosts: every file tool (and the shell) aimed at the project's
``.pasture/policy.toml`` is refused and the file keeps every byte; the same tool on an ordinary
file runs. The payloads the hosts sent are the committed test data of
tests/runtime/test_file_tool_payloads.py (tests/runtime/file_tool_payloads/README.md).

Set ``PASTURE_REFRESH_FILE_TOOL_PAYLOADS=1`` to rewrite that data from these runs (after a host
update); otherwise a payload that differs from the committed one fails the test with the diff.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
from file_tools import NOTEBOOK, POLICY, SESSIONS, Session, document, offered_tools, payload_dir, scrubbed, seed_project
from realhost_support import SPECS, run_host

from pasture.hostenv import Script
from pasture.runtime.builtin import RULE

pytestmark = pytest.mark.real_host
REFRESH = os.environ.get("PASTURE_REFRESH_FILE_TOOL_PAYLOADS") == "1"
GUARD_REASON = "belongs to the guard (its policy, journal, hook adapters or trust store) and is off limits"


def _pair(session: Session, rows: list[dict]) -> list[tuple]:
    """(case, journal row) for every evidence case: the next pre-tool row naming the case's tool."""
    pairs, index = [], 0
    for case in session.cases:
        while index < len(rows) and rows[index]["tool_name"] != case.tool:
            index += 1
        assert index < len(rows), (
            f"no pre-tool row for {case.name} ({case.tool}); rows: {[r['tool_name'] for r in rows]}"
        )
        if case.target:
            pairs.append((case, rows[index]))
        index += 1
    return pairs


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: f"{s.host}-{s.label.replace(' ', '-')}")
def test_file_tools_cannot_touch_the_guards_files(npm_bin: Path, tmp_path: Path, session: Session) -> None:
    spec = SPECS[session.host]
    root = tmp_path / "run"
    project = root.resolve() / "project"
    script = Script.of(*(case.turn(project) for case in session.cases), final_text="Done: {tool_result}")
    # The hooks alone: Claude Code's own deny rules (which install also writes) would refuse these
    # calls before the hook sees them (tests/realhost/test_host_deny_rules_real_hosts.py).
    out = run_host(
        spec,
        npm_bin,
        root,
        None,
        script=script,
        options=session.options,
        timeout=180,
        prepare=lambda run: seed_project(run.project),
        host_deny_rules=False,
    )
    assert out.result.exit_code == 0, out.describe()
    offered = set().union(*(offered_tools(r) for r in out.result.requests))
    # (hooks name every host's shell Bash/bash, whatever the model was offered: exec_command, ...)
    assert {c.tool for c in session.evidence} - {spec.shell_tool} <= offered, offered
    assert not offered & set(session.not_offered), offered  # the README's "not offered" claims

    # The guard's files keep every byte.
    assert (project / ".pasture" / "policy.toml").read_text() == POLICY, out.describe()
    assert (project / ".pasture" / "notes.ipynb").read_text() == NOTEBOOK, out.describe()

    told = {r["call_id"]: r["text"] for r in out.tool_results()}
    pairs = _pair(session, out.journal(event=spec.pre_event))
    for case, row in pairs:
        call_id = row["envelope"]["identities"].get("tool-call")
        if case.target == "protected":
            assert (row["decision"], row["answer"], row["layer"], row["rule"]) == ("deny", "deny", "builtin", RULE), (
                case.name,
                row,
            )
            assert GUARD_REASON in row["reason"]
            assert GUARD_REASON in told.get(call_id, ""), (case.name, told)  # the model was told why
        else:
            assert (row["decision"], row["answer"]) == ("proceed", "proceed"), (case.name, row)
            if case.effect:
                name, text = case.effect
                assert (project / name).read_text() == text, (case.name, out.describe())
    if any(c.tool == "NotebookEdit" and c.target == "ordinary" for c in session.cases):
        assert json.loads((project / "notes.ipynb").read_text())["cells"][0]["source"] in ("print(2)", ["print(2)"])

    # What the host sent is what the unit tests replay.
    payloads = scrubbed(out.run.root, out.run.binary, [row["envelope"]["payload"] for _, row in pairs])
    folder = payload_dir(session.host, spec.version)
    stale = []
    for (case, _), payload in zip(pairs, payloads, strict=True):
        text = document(session, case, spec.version, spec.pre_event, payload)
        path = folder / f"{case.name}.json"
        if REFRESH:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        elif not path.exists() or path.read_text() != text:
            old = path.read_text().splitlines(keepends=True) if path.exists() else []
            stale.append("".join(difflib.unified_diff(old, text.splitlines(keepends=True), str(path), "this run")))
    assert not stale, (
        "the host sent other payloads than the committed ones; if the host changed, refresh with "
        "PASTURE_REFRESH_FILE_TOOL_PAYLOADS=1 and read the diff:\n" + "\n".join(stale)
    )
