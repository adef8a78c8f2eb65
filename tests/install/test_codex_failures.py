"""When Codex cannot vouch for our hooks, install says so loudly (exit 3) and never claims trust.

A stand-in `codex` plays the app-server badly in chosen ways; the real one is exercised in
test_install_codex.py and test_codex_exec_real.py.
"""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from profiles_found import newest as newest_contract

REPO = Path(__file__).resolve().parents[2]

FAKE = r"""#!{python}
import json, os, sys
mode = os.environ.get("FAKE_CODEX_MODE", "")
with open(os.environ["FAKE_CODEX_LOG"], "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\n")
if mode == "reject-disable" and "--disable" in sys.argv:
    sys.stderr.write("error: unexpected argument '--disable' found\n")
    sys.exit(2)
if mode == "crash":
    sys.stderr.write("boom: cannot start\n")
    sys.exit(1)
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    method = msg["method"]
    if method == "initialize":
        result = {{"userAgent": "fake"}}
    elif method == "hooks/list" and mode == "error":
        print(json.dumps({{"id": msg["id"], "error": {{"code": -32600, "message": "nope"}}}}), flush=True)
        continue
    elif method == "hooks/list":
        result = {{"data": [{{"cwd": msg["params"]["cwds"][0], "hooks": [], "warnings": ["fake warning"],
                             "errors": []}}]}}
    elif method == "config/read":
        result = {{"layers": [{{"name": {{"type": "project"}}, "disabledReason": "add it as a trusted project"}}]}}
    else:
        result = {{}}
    print(json.dumps({{"method": "configWarning", "params": {{}}}}), flush=True)
    print(json.dumps({{"id": msg["id"], "result": result}}), flush=True)
"""


@pytest.fixture
def fake_codex(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "fake-bin" / "codex"
    path.parent.mkdir()
    path.write_text(FAKE.format(python=sys.executable))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FAKE_CODEX_LOG", str(tmp_path / "fake-codex.log"))
    return path


@pytest.fixture
def trusted_repo(project: Path, private_home: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (private_home / ".codex").mkdir()
    (private_home / ".codex" / "config.toml").write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    return project


def _calls(tmp_path: Path) -> list[list[str]]:
    """The app-server calls (install first asks `codex --version` to choose the contract)."""
    calls = [json.loads(line) for line in (tmp_path / "fake-codex.log").read_text().splitlines()]
    return [c for c in calls if c != ["--version"]]


def test_older_codex_without_disable_flag_is_retried_and_unlisted_hooks_are_a_problem(
    pasture, trusted_repo: Path, fake_codex: Path, tmp_path: Path, private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CODEX_MODE", "reject-disable")
    config = (private_home / ".codex" / "config.toml").read_text()
    run = pasture("install", "codex", "--project", str(trusted_repo), "--codex-bin", str(fake_codex), "--json")
    assert run.code == 3, run
    assert _calls(tmp_path)[:2] == [["app-server", "--disable", "plugins"], ["app-server"]]
    report = run.json()
    assert "Codex does not list 12 of our 12 hooks" in report["problems"][0]
    assert "add it as a trusted project" in report["problems"][0]
    assert "codex: fake warning" in report["warnings"]
    assert (private_home / ".codex" / "config.toml").read_text() == config  # no trust claimed


@pytest.mark.parametrize(
    "mode, says",
    [("crash", "exited (code 1) before answering initialize"), ("error", "answered hooks/list with an error")],
)
def test_a_failing_app_server_leaves_the_hooks_untrusted_and_says_how_to_finish(
    pasture,
    trusted_repo: Path,
    fake_codex: Path,
    private_home: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    says: str,
) -> None:
    monkeypatch.setenv("FAKE_CODEX_MODE", mode)
    run = pasture("install", "codex", "--project", str(trusted_repo), "--codex-bin", str(fake_codex))
    assert run.code == 3, run
    assert says in run.stderr and "SILENTLY SKIP" in run.stderr
    assert f"--codex-bin {fake_codex} --trust-only" in run.stderr
    assert (trusted_repo / ".codex" / "hooks.json").is_file()
    assert "hooks" not in tomllib.loads((private_home / ".codex" / "config.toml").read_text())


def test_codex_bin_that_is_not_executable(pasture, trusted_repo: Path, tmp_path: Path) -> None:
    run = pasture("install", "codex", "--project", str(trusted_repo), "--codex-bin", str(tmp_path / "nope"))
    assert run.code == 3 and "is not an executable file" in run.stderr


def test_trust_project_replaces_an_explicit_untrusted_and_says_so(pasture, project: Path, private_home: Path) -> None:
    (private_home / ".codex").mkdir()
    (private_home / ".codex" / "config.toml").write_text(
        f'# keep me\n[projects."{project}"]\ntrust_level = "untrusted"  # decided earlier\n'
    )
    run = pasture("install", "codex", "--project", str(project), "--json")
    assert run.code == 2 and "marked 'untrusted'" in run.json()["error"]
    run = pasture("install", "codex", "--project", str(project), "--trust-project", "--json")
    assert run.code == 3  # no codex in this test
    config = run.json()["files"][1]
    assert "marked trusted (was 'untrusted')" in config["detail"]
    # the value changes in place; the user's comments stay theirs
    assert (
        private_home / ".codex" / "config.toml"
    ).read_text() == f'# keep me\n[projects."{project}"]\ntrust_level = "trusted"  # decided earlier\n'


def test_trust_project_is_for_project_installs_only(pasture) -> None:
    run = pasture("install", "codex", "--user", "--trust-project")
    assert run.code == 2 and "--trust-project applies to --project installs" in run.output


def test_trust_only_without_our_hooks_is_refused(pasture, trusted_repo: Path) -> None:
    run = pasture("install", "codex", "--project", str(trusted_repo), "--trust-only")
    assert run.code == 2 and "holds no pasture hooks to trust" in run.stderr
    assert f"run: pasture install codex --project {trusted_repo} --root {REPO}\n" in run.stderr


def test_stale_generated_copy_is_reported_and_the_profile_wins(
    pasture, project: Path, tmp_path: Path, generated
) -> None:
    import shutil

    root = tmp_path / "pasture-root"
    shutil.copytree(REPO / "profiles", root / "profiles")
    shutil.copytree(REPO / "captures", root / "captures")  # evidence the profiles cite
    newest = newest_contract("claude-code")
    stale = root / "generated" / newest / "settings.json"
    stale.parent.mkdir(parents=True)
    stale.write_text('{"hooks": {}}\n')
    run = pasture("install", "claude-code", "--project", str(project), "--root", str(root), "--json")
    assert run.code == 0, run
    assert any(f"generated/{newest}/settings.json differs from its profile" in w for w in run.json()["warnings"])
    installed = json.loads((project / ".claude" / "settings.json").read_text())
    installed.pop("permissions")  # Claude Code's own deny rules for the guard's files (denyrules.py)
    assert installed == json.loads(generated[f"{newest}/settings.json"])
