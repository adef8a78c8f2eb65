"""Issue 28, "done when", on the REAL hosts: every off-switch a host module declares
(pasture/runtime/hostwire/<host>.py OFF_SWITCHES) against a USER install. The repository holds the
switch, the user's adapter is installed with ``pasture install <host> --user`` and the user layer denies the
probe command; the fake model asks for it. Either the guard holds (the probe file is not written and the
journal has the deny) or ``pasture doctor`` run in that repository says off, naming the switch's file.

Project installs are the fast tier's (tests/install/test_offswitch.py: install refuses naming the file and
key, ``--force`` says the guard is off, doctor says off); managed installs are
tests/realhost/test_managed_real_hosts.py's. The switches come from the declarations themselves
(tests/offswitch_cases.py writes each), so a new declaration is tried here without an edit.

One host run per host tries all of its switches at once: a switch can only take hooks away, so where the
guard holds with every switch on it holds with each one. Where it does not, each switch is judged alone:
doctor must say off for it, or a run with that switch alone must show the guard holding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from offswitch_cases import case_id, switch_on
from realhost_support import (
    CLAUDE,
    CLINE,
    CODEX,
    COPILOT,
    DENY_REASON,
    GEMINI,
    OPENCODE,
    PI,
    QWEN,
    Outcome,
    deny_policy,
    hook_contexts,
    run_host,
)

from pasture.install.offswitch import switches
from pasture.runtime.hostwire import WIRES

pytestmark = pytest.mark.real_host

SPECS = {spec.host: spec for spec in (CLAUDE, CODEX, OPENCODE, GEMINI, COPILOT, PI, QWEN, CLINE)}


def test_every_host_with_declared_switches_is_tried() -> None:
    declared = {harness for harness in WIRES if switches(harness)}
    assert declared <= set(SPECS), f"no real-host spec for {sorted(declared - set(SPECS))}"


def _run(harness: str, npm_bin: Path, root: Path, chosen: list[dict], written: list | None = None) -> Outcome:
    written = [] if written is None else written
    return run_host(
        SPECS[harness],
        npm_bin,
        root,
        deny_policy(),
        install="user",
        # a user install guards the folders the user trusts: Gemini CLI runs nothing headless in another
        options={"trust": "env"} if harness == "gemini-cli" else None,
        prepare=lambda run: written.extend(switch_on(run.project, switch) for switch in chosen),
    )


def _held(out: Outcome) -> bool:
    """The guard refused the probe: not written, the deny journalled (and its reason told, where it ran)."""
    if out.probe_exists:
        return False
    rows = out.journal(event=out.spec.pre_event)
    return any(row["decision"] == "deny" and row["rule"] == "realhost-no-probe" for row in rows)


def _doctor_off(out: Outcome, npm_bin: Path) -> set[str]:
    """The files doctor, run in the repository, names in an ``off`` finding for this host."""
    out.env["PATH"] = f"{npm_bin}:{out.env['PATH']}"  # doctor asks the host for --version
    done = out.pasture("doctor", "--host", out.spec.host, "--json", cwd=out.project)
    body = json.loads(done.stdout)
    return {f["where"] for f in body["findings"] if f["host"] == out.spec.host and f["status"] == "off"}


@pytest.mark.parametrize("harness", sorted(h for h in WIRES if switches(h)))
def test_against_a_user_install_every_switch_leaves_the_guard_on_or_doctor_says_off(
    harness: str, npm_bin: Path, tmp_path: Path
) -> None:
    declared = list(switches(harness))
    written: list[Path] = []
    together = _run(harness, npm_bin, tmp_path / "all", declared, written)
    if _held(together):
        told = [r["text"] or "" for r in together.tool_results()] + hook_contexts(together.result.requests)
        assert any(DENY_REASON in text for text in told), together.describe()
        return
    off = _doctor_off(together, npm_bin)
    unexplained = []
    for index, switch in enumerate(declared):
        path = str(written[index])
        if path in off:
            continue  # doctor says off, naming this switch's file
        alone = _run(harness, npm_bin, tmp_path / f"one-{index}", [switch])
        if not _held(alone):
            unexplained.append((switch["file"], switch["key"], alone.describe()))
    assert not unexplained, f"the guard is off and doctor does not say so: {unexplained}"


#: the switches a host module declares without an established effect (doctor and install only warn)
UNSETTLED = [
    (harness, index)
    for harness in sorted(WIRES)
    for index, switch in enumerate(switches(harness))
    if not switch["certain"]
]


@pytest.mark.parametrize("case", UNSETTLED, ids=case_id)
def test_a_switch_only_warned_about_leaves_a_project_install_guarding(
    case: tuple[str, int], npm_bin: Path, tmp_path: Path
) -> None:
    """A switch declared without an established effect, written once the project adapter is in place: the
    real host still refuses the denied command, so doctor's warning (not "off") is the truth. If one starts
    switching the guard off, this fails: declare it certain (doctor says off, install refuses)."""
    harness, index = case
    switch = switches(harness)[index]
    out = run_host(
        SPECS[harness],
        npm_bin,
        tmp_path / "run",
        deny_policy(),
        after_install=lambda run: switch_on(run.project, switch),
    )
    assert _held(out), f"{switch['file']} {switch['key']} switches the guard off: {out.describe()}"
