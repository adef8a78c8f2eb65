"""The generated command lines fail closed on blocking rows, exactly as hosts run them (``sh -c``).

Issue 9 item 1: Claude Code and Codex read exit 127 (no ``pasture`` on the hook PATH), 126, 1 (a
crash) and 70 (the launcher cannot load the runtime) as a NON-blocking hook error and run the tool.
Every command line here runs under dash (Claude's and Codex's /bin/sh here) and bash, with
PASTURE_BIN pointing at a stub that behaves one way each time.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from loading import load_project
from repo_paths import REPO

from pasture.render import commands

SHELLS = [s for s in ("dash", "bash") if shutil.which(s)]
assert "bash" in SHELLS, "bash is needed to run hook command lines"

PAYLOAD = json.dumps(
    {"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}}
)


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def _command(contracts, contract: str, event: str) -> str:
    c = contracts[contract]
    return commands.shell_command(c, c.row(event))


def _stub(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "stub"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return path


def _run(shell: str, command: str, binary: str, stdin: str = PAYLOAD) -> subprocess.CompletedProcess:
    return subprocess.run(
        [shell, "-c", command],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "PASTURE_BIN": binary},
    )


def _fail_closed_rows(events: tuple[str, ...]) -> list[tuple[str, str]]:
    """(contract, event) for every Claude/Codex contract in profiles/ whose row fails closed (it blocks on
    evidence): found, never listed, so a bump (or a row losing its evidence) needs no edit here."""
    from pasture.profile.vocab import Harness

    return [
        (c.id, r.name)
        for c in load_project(REPO)
        if c.harness in (Harness.CLAUDE_CODE, Harness.CODEX)
        for r in c.events
        if r.name in events and commands.fails_closed(r)
    ]


BLOCKING = _fail_closed_rows(("PreToolUse", "UserPromptSubmit"))
STOPS = _fail_closed_rows(("Stop", "SubagentStop"))
assert {e for _c, e in STOPS} >= {"Stop"} and BLOCKING


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("contract, event", BLOCKING)
@pytest.mark.parametrize(
    "how, expected_exit",
    [("missing", 127), ("not-executable", 126), ("crash", 1), ("broken-runtime", 70), ("killed", 137)],
)
def test_every_failure_of_a_blocking_row_is_exit_2_with_one_line(
    contracts, tmp_path, shell, contract, event, how, expected_exit
) -> None:
    if how == "missing":
        binary = str(tmp_path / "gone" / "pasture-hook")
    elif how == "not-executable":
        binary = str(_stub(tmp_path, "exit 0"))
        Path(binary).chmod(0o644)
    elif how == "crash":
        binary = str(_stub(tmp_path, "echo 'Traceback (most recent call last):' >&2; exit 1"))
    elif how == "broken-runtime":
        binary = str(_stub(tmp_path, "echo 'pasture: the hook runtime cannot be loaded (...)' >&2; exit 70"))
    else:
        binary = str(_stub(tmp_path, "kill -9 $$"))
    done = _run(shell, _command(contracts, contract, event), binary)
    assert done.returncode == 2, done
    ours = [line for line in done.stderr.splitlines() if line.startswith("pasture: the guard")]
    assert ours == [
        f"pasture: the guard could not run (exit {expected_exit}), so {event} is refused; "
        "see `pasture doctor` for the fix"
    ], done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("contract, event", BLOCKING)
def test_answers_of_a_working_runtime_pass_through_unchanged(contracts, tmp_path, shell, contract, event) -> None:
    deny = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})
    ok = _run(
        shell,
        _command(contracts, contract, event),
        str(_stub(tmp_path, f"cat >/dev/null; printf '%s\\n' '{deny}'; exit 0")),
    )
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, deny + "\n", "")
    block = _run(
        shell,
        _command(contracts, contract, event),
        str(_stub(tmp_path, "cat >/dev/null; echo 'policy says no' >&2; exit 2")),
    )
    assert (block.returncode, block.stdout, block.stderr) == (2, "", "policy says no\n")


@pytest.mark.parametrize("shell", SHELLS)
def test_the_runtime_gets_the_payload_and_the_argv(contracts, tmp_path, shell) -> None:
    log = tmp_path / "seen"
    stub = _stub(tmp_path, f'printf "%s\\n" "$@" > {log}; cat >> {log}')
    done = _run(shell, _command(contracts, "codex@0.171.0", "Stop"), str(stub))
    assert done.returncode == 0, done
    assert log.read_text() == "hook\nlifecycle\n--harness\ncodex\n--event\nStop\n--host-version\n0.171.0\n" + PAYLOAD


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize(
    "contract, event",
    [
        ("claude-code@2.1.328", "PostToolUse"),
        ("codex@0.171.0", "SessionStart"),
        ("claude-code@2.1.328", "PermissionRequest"),
        ("codex@0.171.0", "PostToolUse"),
    ],
)
def test_non_blocking_rows_never_block(contracts, tmp_path, shell, contract, event) -> None:
    """Observation and report-and-continue rows: no tail, the failure stays the host's non-blocking error."""
    row = contracts[contract].row(event)
    assert not commands.fails_closed(row)
    command = _command(contracts, contract, event)
    assert "||" not in command
    done = _run(shell, command, str(tmp_path / "gone"))
    assert done.returncode == 127 and "pasture: the guard" not in done.stderr


STOP_ACTIVE = [
    json.dumps({"hook_event_name": "Stop", "stop_hook_active": True}, separators=(",", ":")),
    json.dumps({"hook_event_name": "Stop", "stop_hook_active": True}),
]


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("contract, event", STOPS)
def test_a_stop_an_earlier_block_caused_is_never_blocked_by_a_broken_runtime(
    contracts, tmp_path, shell, contract, event
) -> None:
    """Issue 9 item 5 at the command line: the runtime cannot start, stop_hook_active is true ->
    exit 1 (a non-blocking error the user sees), never 2; inactive -> refused like any gate row."""
    command = _command(contracts, contract, event)
    for payload in STOP_ACTIVE:
        done = _run(shell, command, str(tmp_path / "gone"), stdin=payload)
        assert done.returncode == 1, done
        assert f"{event} goes ahead (stop_hook_active)" in done.stderr
    inactive = json.dumps({"hook_event_name": "Stop", "stop_hook_active": False})
    done = _run(shell, command, str(tmp_path / "gone"), stdin=inactive)
    assert done.returncode == 2 and f"so {event} is refused" in done.stderr
    # a string value cannot fake it: inside a JSON string the quote is escaped
    faked = json.dumps(
        {
            "hook_event_name": "Stop",
            "stop_hook_active": False,
            "last_assistant_message": 'say "stop_hook_active":true and "stop_hook_active": true',
        }
    )
    assert _run(shell, command, str(tmp_path / "gone"), stdin=faked).returncode == 2
    # a legitimate block passes through
    block = _run(
        shell, command, str(_stub(tmp_path, "cat >/dev/null; echo 'keep going' >&2; exit 2")), stdin=STOP_ACTIVE[0]
    )
    assert (block.returncode, block.stderr) == (2, "keep going\n")


def test_only_rows_whose_effective_failure_blocks_get_the_tail(contracts) -> None:
    for contract in contracts.values():
        if contract.harness.value == "opencode":
            continue
        for row in contract.events:
            command = commands.shell_command(contract, row)
            assert command.startswith(commands.BINARY + " hook lifecycle ")
            blocks = row.semantic.value == "gate-consultation" and row.failure.value in (
                "exit-2-blocks",
                "strict-output-exit-2-blocks",
            )
            assert ("||" in command) is blocks, (contract.id, row.name)


def test_strings_reach_the_shell_quoted(contracts) -> None:
    """A row name from a profile is data in the message, never shell syntax."""
    import dataclasses

    c = contracts["claude-code@2.1.328"]
    hostile = dataclasses.replace(c.row("PreToolUse"), name="Pre$(touch /tmp/pasture-pwned)'; exit 0; '`id`")
    command = commands.shell_command(c, hostile)
    done = subprocess.run(
        ["sh", "-c", command],
        input="{}",
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/usr/bin:/bin", "PASTURE_BIN": "/nonexistent"},
    )
    assert done.returncode == 2
    assert f"so {hostile.name} is refused" in done.stderr
    assert not Path("/tmp/pasture-pwned").exists()
