"""The gates a bump added block on the REAL host through OUR generated adapter and runtime.

For the Claude Code version tests/npm pins, every event that the capture scenarios trigger with a
shell line (pasture/evolve/scenarios.py TRIGGER_SCENARIOS, e.g. PreSkillShellCommand: the shell
line of a slash command) and that the contract declares as a gate is run twice through the real
host with the generated settings.json and this repo's runtime: under a deny policy the shell line
must not run (and the journal says our gate refused it), under an allow policy it must run. The
issue this guards: a generated adapter that registered the new event as an observation let the
command through a deny policy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pasture.catalog import find_catalog
from pasture.evolve.scenarios import TRIGGER_SCENARIOS
from pasture.hostenv import Script, Turn, prepare_run

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "realhost"))

from realhost_support import (  # noqa: E402
    CLAUDE,
    DENY_REASON,
    Outcome,
    allow_policy,
    assert_loopback_only,
    deny_policy,
    install_adapter,
    point_launcher_at,
    read_calls,
    write_wrapper,
)

pytestmark = pytest.mark.real_host


def _shell_trigger_events() -> list[str]:
    """Events with a refusing scenario whose refused action is a project shell line."""
    return sorted(
        {
            s.refused_event
            for s in TRIGGER_SCENARIOS["claude-code"]
            if s.refused_event and s.files and s.refused_event not in ("UserPromptExpansion",)
        }
    )


def _scenario(event: str):
    return next(s for s in TRIGGER_SCENARIOS["claude-code"] if s.refused_event == event and s.channel == "exit-2")


def _run(tmp: Path, npm_bin: Path, policy: str, event: str) -> Outcome:
    scenario = _scenario(event)
    run = prepare_run("claude-code", npm_bin, tmp)
    work = run.root / "pasture"
    calls = run.root / "pasture-calls"
    wrapper = write_wrapper(work, calls)
    (work / "policy.toml").write_text(policy)
    journal = work / "journal.sqlite3"
    installed = install_adapter(CLAUDE, run, npm_bin)
    point_launcher_at(installed, str(wrapper))  # installed hooks name the launcher, never $PASTURE_BIN
    for rel, text in scenario.files:
        (run.project / rel).parent.mkdir(parents=True, exist_ok=True)
        (run.project / rel).write_text(text)
    env = {"PASTURE_BIN": str(wrapper), "PASTURE_JOURNAL": str(journal), "PASTURE_POLICY": str(work / "policy.toml")}
    result = run.execute(Script.of(Turn.reply("Done.")), scenario.prompt, timeout=90, extra_env=env)
    out = Outcome(CLAUDE, run, result, installed, journal, calls)
    assert_loopback_only(out)
    return out


def test_the_pinned_version_has_a_shell_trigger_gate_to_prove() -> None:
    """Not a silent pass: the pinned host's catalog lists the events this file proves."""
    catalog = find_catalog(REPO, "claude-code", CLAUDE.version)
    assert catalog is not None, f"no catalog for the pinned Claude Code {CLAUDE.version}"
    listed = [e for e in _shell_trigger_events() if catalog.event(e) is not None]
    assert listed, f"the catalog of {CLAUDE.version} lists none of {_shell_trigger_events()}"


@pytest.mark.parametrize("event", _shell_trigger_events())
def test_generated_adapter_refuses_the_new_gate_on_the_real_host(npm_bin: Path, tmp_path: Path, event: str) -> None:
    catalog = find_catalog(REPO, "claude-code", CLAUDE.version)
    assert catalog is not None
    if catalog.event(event) is None:
        pytest.skip(f"Claude Code {CLAUDE.version} has no {event} (its catalog does not list it)")
    row = CLAUDE.row(event)
    assert row.semantic == "gate-consultation" and row.failure == "exit-2-blocks", (CLAUDE.contract, row)

    denied = _run(tmp_path / "deny", npm_bin, deny_policy(), event)
    assert not denied.probe_exists, denied.describe()
    (call,) = [c for c in read_calls(denied.calls_dir) if c.event == event]
    assert call.payload["tool_input"]["command"] == "echo pasture-probe > probe.txt"
    answer = json.loads(call.stdout) if call.stdout.strip() else None
    assert call.rc == 2 or (answer or {}).get("hookSpecificOutput", {}).get("permissionDecision") == "deny", call
    (entry,) = denied.journal(event=event)
    assert (entry["decision"], entry["gate"], entry["reason"]) == ("deny", "rules:realhost-no-probe", DENY_REASON)
    # What the model was told: the host's own note that the line did not run, with our reason.
    prompt = json.dumps(denied.result.requests[0]["body"]["messages"][-1])
    assert "not run" in prompt and DENY_REASON in prompt, prompt[-2000:]

    allowed = _run(tmp_path / "allow", npm_bin, allow_policy(), event)
    assert allowed.probe_exists, allowed.describe()
    (entry,) = allowed.journal(event=event)
    assert entry["decision"] == "proceed"
