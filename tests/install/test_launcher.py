"""The hook launcher `pasture install` writes and records (issue 9 item 1, issue 12).

Every test runs the command lines exactly as a host would: ``sh -c '<installed command>'`` with the
payload on stdin and a PATH that holds no `pasture` at all (the venv is not activated in the
terminal that started the host).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from profiles_found import newest as newest_contract

from pasture.install import launcher
from pasture.install.hooktable import OUR_COMMAND, recorded_binary

CONTRACT = "claude-code@2.1.328"
HOST_PATH = "/usr/bin:/bin"
DENY_POLICY = """[gate]
kind = "rules"

[[rules]]
name = "no-rm-rf"
decision = "deny"
reason = "no rm -rf here"
tool_kind = "shell"
command = "rm\\\\s+-rf"
"""


def _payload(project: Path, command: str = "rm -rf build") -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "transcript_path": "/dev/null",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_use_id": "t1",
            "tool_input": {"command": command},
        }
    )


def _settings(project: Path) -> dict:
    return json.loads((project / ".claude" / "settings.json").read_text())


def _command(project: Path, event: str = "PreToolUse") -> str:
    (group,) = [g for g in _settings(project)["hooks"][event] if recorded_binary(g["hooks"][0]["command"])]
    return group["hooks"][0]["command"]


def _as_host(command: str, payload: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["sh", "-c", command],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={"PATH": HOST_PATH, "HOME": str(cwd), **env},
    )


def _deny_project(project: Path) -> None:
    (project / ".pasture").mkdir(exist_ok=True)
    (project / ".pasture" / "policy.toml").write_text(DENY_POLICY)


def test_install_writes_a_checked_launcher_and_records_its_absolute_path(
    pasture, project: Path, private_home: Path
) -> None:
    run = pasture("install", "claude-code", "--project", str(project), "--json")
    assert run.code == 0, run
    path = private_home / ".local" / "share" / "pasture" / "bin" / "pasture-hook"
    report = run.json()["launcher"]
    assert report["path"] == str(path) and report["change"] == "created"
    assert json.loads(report["checked"])["ok"] is True
    assert report["recorded"] == f"{path} hook lifecycle ..."  # by absolute path, no variable (issue 18)
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    first = path.read_text().splitlines()[0]
    assert first == f"#!{sys.executable} -IS"
    for groups in _settings(project)["hooks"].values():
        for group in groups:
            assert recorded_binary(group["hooks"][0]["command"]) == str(path)
    text = pasture("install", "claude-code", "--project", str(project))
    assert f"hooks run: {path} hook lifecycle" in text.stdout
    assert "the hook launcher" in text.stdout and "checked: it runs" in text.stdout
    again = pasture("install", "claude-code", "--project", str(project), "--json")
    assert again.json()["launcher"]["change"] == "unchanged"


def test_xdg_data_home_decides_where_the_launcher_goes(
    pasture, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data with space"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    run = pasture("install", "claude-code", "--project", str(project), "--json")
    assert run.code == 0, run
    path = data / "pasture" / "bin" / "pasture-hook"
    assert run.json()["launcher"]["path"] == str(path)
    command = _command(project)
    assert command.startswith(f"'{path}' hook lifecycle ")
    assert recorded_binary(command) == str(path)
    _deny_project(project)
    done = _as_host(command, _payload(project), project)
    assert done.returncode == 0, done
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_the_hook_denies_without_pasture_on_the_path(pasture, project: Path) -> None:
    """Issue 9 item 1: under a deny policy, `rm -rf build` is refused although the host's PATH has no
    `pasture` (the old command line exited 127 there: a non-blocking error, the tool ran)."""
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    _deny_project(project)
    done = _as_host(_command(project), _payload(project), project)
    assert done.returncode == 0, done
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert (answer["permissionDecision"], answer["permissionDecisionReason"]) == ("deny", "no rm -rf here")
    allowed = _as_host(_command(project), _payload(project, "ls"), project)
    assert (allowed.returncode, allowed.stdout) == (0, "")


def test_pasture_bin_cannot_swap_the_installed_runtime(pasture, project: Path, tmp_path: Path) -> None:
    """Issue 18: a repository's `.claude/settings.json` env block reaches every hook command, and
    `PASTURE_BIN=true` there once made every hook a no-op. The installed command names the launcher by
    absolute path, so no variable decides what runs."""
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    _deny_project(project)
    command = _command(project)
    assert "PASTURE_BIN" not in command and command.startswith("/")
    for value in ("true", str(tmp_path / "missing")):
        done = _as_host(command, _payload(project), project, PASTURE_BIN=value)
        assert done.returncode == 0, done
        assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def _launcher(private_home: Path) -> Path:
    return private_home / ".local" / "share" / "pasture" / "bin" / "pasture-hook"


@pytest.mark.parametrize("breakage", ["launcher-deleted", "interpreter-gone", "runtime-moved", "not-executable"])
def test_a_broken_launcher_refuses_with_one_line(pasture, project: Path, private_home: Path, breakage: str) -> None:
    """Whatever breaks after install, the blocking row refuses (exit 2) and says so in one line."""
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    path = _launcher(private_home)
    text = path.read_text()
    if breakage == "launcher-deleted":
        path.unlink()
    elif breakage == "interpreter-gone":
        path.write_text(text.replace(sys.executable, str(private_home / "gone" / "python3"), 1))
    elif breakage == "runtime-moved":
        path.write_text(
            text.replace("PATHS = [", "PATHS = ['/nonexistent/checkout', ").replace(
                repr(launcher.import_dirs()[0]) + ",", "", 1
            )
        )
    else:
        path.chmod(0o644)
    done = _as_host(_command(project), _payload(project), project)
    assert done.returncode == 2, done
    assert "pasture: the guard could not run (exit " in done.stderr and "so PreToolUse is refused" in done.stderr
    if breakage == "runtime-moved":
        (line,) = [x for x in done.stderr.splitlines() if "cannot be loaded" in x]
        assert "No module named 'pasture'" in line and "pasture install claude-code" in line
        assert "(exit 70)" in done.stderr
    # observation rows never block on the same breakage
    post = _as_host(_command(project, "PostToolUse"), _payload(project), project)
    assert post.returncode not in (0, 2) and "pasture: the guard" not in post.stderr


def test_a_launcher_that_fails_its_self_test_never_replaces_a_working_one(
    private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"HOME": str(private_home)}
    first = launcher.ensure(env, "codex")
    assert first.change == "created" and first.check.ok
    before = first.path.read_bytes()
    monkeypatch.setattr(launcher, "import_dirs", lambda: ["/nonexistent/checkout"])
    with pytest.raises(launcher.LauncherError, match="does not run .*No module named 'pasture'"):
        launcher.ensure(env, "codex")
    assert first.path.read_bytes() == before
    assert [p.name for p in first.path.parent.iterdir()] == ["pasture-hook"]  # no temp file left


def test_the_self_test_knows_the_harness(private_home: Path) -> None:
    written = launcher.ensure({"HOME": str(private_home)}, "opencode")
    bad = launcher.self_test(written.path, "no-such-host")
    assert not bad.ok and bad.exit_code == launcher.EXIT_BROKEN and "no harness 'no-such-host'" in bad.detail


def test_an_interpreter_path_with_a_blank_goes_through_sh(tmp_path: Path) -> None:
    odd = tmp_path / "py thon" / "python3"
    odd.parent.mkdir()
    odd.symlink_to(sys.executable)
    text = launcher.render(str(odd), launcher.import_dirs())
    assert text.startswith(f'#!/bin/sh\n"exec" "{odd}" "-IS" "$0" "$@"\n')
    path = tmp_path / "pasture-hook"
    path.write_text(text)
    path.chmod(0o755)
    check = launcher.self_test(path, "claude-code")
    assert check.ok, check


def test_launcher_paths_the_shell_cannot_carry_are_refused(tmp_path: Path) -> None:
    assert launcher.shell_word("/a/b-c_d.e/pasture-hook") == "/a/b-c_d.e/pasture-hook"
    assert launcher.shell_word("/a b/x") == "'/a b/x'"
    for bad in ("/it's/x", "/a}b/x", "/a\nb/x"):
        with pytest.raises(launcher.LauncherError):
            launcher.shell_word(bad)


def test_every_form_of_our_command_is_recognised() -> None:
    for command, binary in [
        ("${PASTURE_BIN:-pasture} hook lifecycle --harness codex --event Stop --host-version 0.153.0", "pasture"),
        (
            "${PASTURE_BIN:-/h/.local/share/pasture/bin/pasture-hook} hook lifecycle --harness x || { r=$?; }",
            "/h/.local/share/pasture/bin/pasture-hook",
        ),
        ("${PASTURE_BIN:-'/a b/pasture-hook'} hook lifecycle --harness x", "/a b/pasture-hook"),
        (
            "/h/.local/share/pasture/bin/pasture-hook hook lifecycle --harness x || { r=$?; }",
            "/h/.local/share/pasture/bin/pasture-hook",
        ),  # what install records since issue 18
        ("'/a b/pasture-hook' hook lifecycle --harness x", "/a b/pasture-hook"),
    ]:
        assert OUR_COMMAND.match(command) and recorded_binary(command) == binary
    for foreign in (
        "pasture hook lifecycle --harness x",
        "${PASTURE_BIN} hook lifecycle",
        "lint-bash",
        "echo ${PASTURE_BIN:-pasture} hook lifecycle --harness x",
        "/bin/other hook lifecycle --harness x",
        "relative/pasture-hook hook lifecycle --harness x",
    ):
        assert recorded_binary(foreign) is None


def test_reinstall_and_uninstall_replace_commands_of_older_installs(pasture, project: Path) -> None:
    """An install from before the launcher recorded `${PASTURE_BIN:-pasture} ...` without the tail."""
    old = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-bash"}]},
                {
                    "matcher": "*",
                    "hooks": [
                        {
                            "type": "command",
                            "timeout": 60,
                            "command": (
                                "${PASTURE_BIN:-pasture} hook lifecycle --harness claude-code "
                                "--event PreToolUse --host-version 2.1.261"
                            ),
                        }
                    ],
                },
            ]
        }
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(old, indent=2) + "\n")
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    groups = _settings(project)["hooks"]["PreToolUse"]
    assert len(groups) == 2 and groups[0] == old["hooks"]["PreToolUse"][0]
    newest = newest_contract("claude-code").partition("@")[2]  # install picks the newest without a claude on PATH
    assert (
        f"pasture-hook hook lifecycle --harness claude-code --event PreToolUse --host-version {newest} ||"
        in groups[1]["hooks"][0]["command"]
    )
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert _settings(project)["hooks"]["PreToolUse"] == [old["hooks"]["PreToolUse"][0]]


def test_opencode_install_writes_the_launcher_too(pasture, project: Path, private_home: Path) -> None:
    run = pasture("install", "opencode", "--project", str(project), "--json")
    assert run.code == 0, run
    assert run.json()["launcher"]["path"] == str(_launcher(private_home))
    assert os.access(_launcher(private_home), os.X_OK)


def _launcher_of_pasture_generator(text: str) -> str:
    """The launcher as pasture-generator (the distribution before the rename, import package
    ``generator``) wrote it: the same file with ``generator`` where it now says ``pasture``."""
    old = (
        text.replace("from pasture.runtime.main import main", "from generator.runtime.main import main")
        .replace("    import pasture\n", "    import generator\n")
        .replace('"pasture": pasture.__file__', '"generator": generator.__file__')
    )
    assert old.count("generator") == 4, "the launcher template changed: update this copy of the old one"
    return old


@pytest.mark.parametrize("leftover", [False, True], ids=["clean", "stale-generator-pycache"])
def test_a_launcher_from_before_the_rename_refuses_until_install_runs_again(
    pasture, project: Path, private_home: Path, tmp_path: Path, leftover: bool
) -> None:
    """Upgrading from pasture-generator leaves its launcher in place until `pasture install` runs again:
    the hooks still name it, and it imports ``generator``, which the new package no longer has. Every
    blocking row then refuses with the launcher's one line naming the fix (and doctor's self-test
    fails with the same line); re-running install replaces the launcher and the hooks work again.
    ``stale-generator-pycache``: a checkout updated by git keeps the untracked ``generator/__pycache__``
    folders, which Python imports as a namespace package; the runtime still cannot be loaded."""
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    _deny_project(project)
    path = _launcher(private_home)
    old = _launcher_of_pasture_generator(path.read_text())
    if leftover:
        checkout = tmp_path / "checkout"
        (checkout / "generator" / "runtime" / "__pycache__").mkdir(parents=True)
        (checkout / "generator" / "runtime" / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"stale")
        old = old.replace("PATHS = [", f"PATHS = [{str(checkout)!r}, ", 1)
    path.write_text(old)
    done = _as_host(_command(project), _payload(project), project)
    assert done.returncode == 2, done
    (line,) = [x for x in done.stderr.splitlines() if "cannot be loaded" in x]
    assert (
        "No module named 'generator" in line
        and "fix: reinstall pasture, then run `pasture install claude-code`" in line
    )
    assert "(exit 70)" in done.stderr and "so PreToolUse is refused" in done.stderr
    check = launcher.self_test(path, "claude-code")  # what `pasture doctor` runs
    assert not check.ok and check.exit_code == launcher.EXIT_BROKEN and "No module named 'generator" in check.detail
    again = pasture("install", "claude-code", "--project", str(project), "--json")
    assert again.code == 0 and again.json()["launcher"]["change"] == "updated"
    assert "generator" not in path.read_text()
    fixed = _as_host(_command(project), _payload(project), project)
    assert fixed.returncode == 0, fixed
    assert json.loads(fixed.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
