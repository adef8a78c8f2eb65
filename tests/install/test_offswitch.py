"""Issue 28: a repository that already switches a host's hooks off. Every switch each host declares
(pasture/runtime/hostwire/<host>.py OFF_SWITCHES) is tried: a project install refuses (exit 2, nothing
written) naming the file and key, ``--force`` installs and says the guard is off, ``pasture doctor`` says
off (exit 1) with the file, key and fix; a switch whose effect is not established only warns."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from offswitch_cases import case_id as _case_id
from offswitch_cases import switch_on as _switch_on

from pasture.cli import main
from pasture.hosts import HOSTS
from pasture.install.offswitch import TESTS, hits, switches
from pasture.runtime.hostwire import WIRES

REPO = Path(__file__).resolve().parents[2]
CASES = [(harness, index) for harness in WIRES for index in range(len(switches(harness)))]


def _install_args(harness: str, project: Path) -> list[str]:
    extra = ["--trust-project"] if "--trust-project" in HOSTS[harness].install_flags else []
    return ["install", harness, "--project", str(project), *extra]


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def _doctor(project: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(main, ["doctor", "--project", str(project), "--root", str(REPO), "--json"])
    return result.exit_code, json.loads(result.stdout)


def test_every_switch_is_declared_in_the_closed_vocabulary() -> None:
    keys = {"file", "key", "off_when", "why", "fix", "evidence", "certain"}
    assert CASES, "no host declares a switch"
    for harness in WIRES:
        for switch in switches(harness):
            assert keys <= set(switch) <= keys | {"also"}, switch
            assert switch["off_when"] in TESTS, switch
            assert switch["evidence"] and switch["fix"] and not switch["file"].startswith("/"), switch


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_a_project_install_refuses_where_the_repository_switches_the_hooks_off(pasture, repo: Path, case) -> None:
    harness, index = case
    switch = switches(harness)[index]
    path = _switch_on(repo, switch)
    before = sorted(p for p in repo.rglob("*") if ".git" not in p.parts)
    run = pasture(*_install_args(harness, repo))
    if not switch["certain"]:  # read in the host's code, effect not established: a warning, the install goes on
        assert run.code in (0, 3), run
        assert any(str(path) in w and "not established" in w for w in run.stdout.split("warning: ")[1:]), run
        return
    assert run.code == 2, run
    assert str(path) in run.stderr and (switch["key"] or str(path)) in run.stderr and "--force" in run.stderr, run
    assert sorted(p for p in repo.rglob("*") if ".git" not in p.parts) == before  # nothing written
    forced = pasture(*_install_args(harness, repo), "--force")
    assert forced.code in (0, 3), forced
    assert f"installed anyway (--force): the guard is OFF here while {path}" in forced.stdout, forced


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_doctor_says_off_naming_the_file_key_and_fix(pasture, repo: Path, case) -> None:
    harness, index = case
    switch = switches(harness)[index]
    run = pasture(*_install_args(harness, repo))
    assert run.code in (0, 3), run
    path = _switch_on(repo, switch)
    code, body = _doctor(repo)
    found = [f for f in body["findings"] if f["check"] == "off-switch" and f["host"] == harness]
    already = _reported_by_the_hosts_own_check(harness, switch, path, body)
    if already:  # one finding per cause: the host's own check names this one
        assert found == [] and already["status"] == "off" and already["where"] == str(path), body["findings"]
        return
    assert [f["where"] for f in found] == [str(path)], body["findings"]
    (finding,) = found
    assert finding["status"] == ("off" if switch["certain"] else "warn")
    assert switch["key"] in finding["message"] and finding["fix"] == switch["fix"]
    if switch["certain"]:
        assert code == 1


def _reported_by_the_hosts_own_check(harness: str, switch: dict, path: Path, body: dict) -> dict | None:
    check = switch.get("also")
    found = [
        f
        for f in body["findings"]
        if f["check"] == check and f["host"] == harness and f["where"] == str(path) and f["status"] != "ok"
    ]
    return found[0] if found else None


def test_a_user_install_warns_about_the_folder_it_runs_in(pasture, repo: Path, monkeypatch) -> None:
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    monkeypatch.chdir(repo)
    run = pasture("install", "gemini-cli", "--user")
    assert run.code == 0, run
    assert f"{repo}/.gemini/settings.json (hooksConfig.enabled) holds false" in run.stdout
    assert f"a session started in {repo} runs without pasture's hooks" in run.stdout


@pytest.mark.parametrize(
    "harness, rel, text",
    [
        ("gemini-cli", ".gemini/settings.json", '{"hooksConfig": {"enabled": true, "disabled": ["lint"]}}'),
        ("gemini-cli", ".gemini/settings.json", '// a comment\n{"hooksConfig": {"disabled": [],},}'),
        ("pi", ".pi/settings.json", '{"extensions": ["!other.ts", "-extensions/other.ts", "extra/*.ts"]}'),
        ("pi", ".pi/settings.json", '{"extensions": ["!**/pasture-*", "+extensions/pasture-lifecycle.ts"]}'),
        ("pi", ".pi/extensions/.gitignore", "node_modules\n*.log\n"),
        ("pi", ".pi/extensions/.ignore", "pasture-*\n!pasture-lifecycle.ts\n"),
        ("pi", ".pi/extensions/package.json", '{"name": "x", "pi": {"skills": ["a"]}}'),
        ("claude-code", ".claude/settings.json", '{"disableAllHooks": false, "env": {"FOO": "1"}}'),
        ("copilot-cli", ".github/copilot/settings.json", '{"disableAllHooks": false, "model": "x"}'),
        ("codex", ".codex/config.toml", "[features]\ncodex_hooks = true\n"),
        ("gemini-cli", ".gemini/settings.json", "{not json"),  # the host cannot read it either
        ("opencode", ".env", "OPENCODE_DISABLE_PROJECT_CONFIG=0\nOTHER=1\n"),
    ],
)
def test_what_does_not_switch_our_hooks_off_is_not_reported(tmp_path: Path, harness: str, rel: str, text: str) -> None:
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert hits(harness, tmp_path) == []


@pytest.mark.parametrize(
    "entries",
    [["!**/pasture-*"], ["!extensions/pasture-lifecycle.ts"], ["-extensions/pasture-lifecycle.ts"], ["!*.ts"]],
)
def test_pi_patterns_that_exclude_our_extension(tmp_path: Path, entries: list[str]) -> None:
    (tmp_path / ".pi").mkdir()
    (tmp_path / ".pi" / "settings.json").write_text(json.dumps({"extensions": entries}))
    (hit,) = hits("pi", tmp_path)
    assert hit.key == "extensions" and hit.certain


def test_doctor_in_a_subfolder_says_off_for_a_host_whose_project_adapter_is_not_loaded_there(
    pasture, repo: Path
) -> None:
    for harness in ("gemini-cli", "pi", "qwen-code"):
        assert pasture(*_install_args(harness, repo)).code in (0, 3)
    (repo / "src").mkdir()
    code, body = _doctor(repo / "src")
    assert code == 1
    found = {f["host"]: f for f in body["findings"] if f["check"] == "start-folder"}
    assert sorted(found) == ["gemini-cli", "pi", "qwen-code"], body["findings"]
    assert all(f["status"] == "off" and str(repo / "src") in f["message"] for f in found.values())
    assert found["pi"]["where"] == str(repo / ".pi" / "extensions" / "pasture-lifecycle.ts")
    code, body = _doctor(repo)  # started at the top: nothing to say
    assert not [f for f in body["findings"] if f["check"] == "start-folder"]


def test_doctor_in_a_subfolder_with_the_user_install_too_only_warns(pasture, repo: Path) -> None:
    assert pasture(*_install_args("pi", repo)).code == 0
    assert pasture("install", "pi", "--user").code == 0
    (repo / "src").mkdir()
    _code, body = _doctor(repo / "src")
    (finding,) = [f for f in body["findings"] if f["check"] == "start-folder"]
    assert finding["status"] == "warn" and "the user-scope adapter still runs" in finding["message"]


def test_doctor_names_a_repository_env_file_that_moves_a_root(pasture, repo: Path) -> None:
    assert pasture(*_install_args("gemini-cli", repo)).code in (0, 3)
    (repo / ".env").write_text("GEMINI_API_KEY=k\nPASTURE_POLICY=.pasture/mine.toml\n")
    code, body = _doctor(repo)
    (finding,) = [f for f in body["findings"] if f["check"] == "host-env" and f["host"] == "gemini-cli"]
    assert code == 1 and finding["status"] == "off" and finding["where"] == str(repo / ".env")
    assert "PASTURE_POLICY" in finding["message"] and "GEMINI_API_KEY" not in finding["message"]
    (repo / ".env").write_text("GEMINI_API_KEY=k\n")  # an ordinary .env: nothing to say
    _code, body = _doctor(repo)
    assert not [f for f in body["findings"] if f["check"] == "host-env"]


def test_a_fifo_where_a_switch_file_would_be_does_not_hang(tmp_path: Path) -> None:
    import os

    for rel in (".gemini/settings.json", ".pi/extensions/.gitignore", ".env"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(tmp_path / rel)
    assert hits("gemini-cli", tmp_path) == [] and hits("pi", tmp_path) == []
    from pasture.doctor.offswitch import env_findings

    assert env_findings("gemini-cli", str(tmp_path), str(tmp_path)) == []
