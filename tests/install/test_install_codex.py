"""pasture install/uninstall codex: merged hooks.json, project trust, and hook trust recorded the
way Codex records it. Trust is always checked by asking the real Codex (`codex app-server`
hooks/list) what it now thinks, never by reading our own output back."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from profiles_found import newest

from pasture.hosts.codex.server import AppServer
from pasture.install import tomledit
from pasture.install.hooktable import is_our_command

CONTRACT = newest("codex")
REPO = Path(__file__).resolve().parents[2]
FOREIGN_GROUP = {"matcher": "^Bash$", "hooks": [{"type": "command", "command": "echo foreign", "timeout": 5}]}
USER_CONFIG = '# mine\nmodel = "gpt-5"\n\n[tui]\nanimations = false\n'


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


@pytest.fixture
def codex_home(private_home: Path) -> Path:
    return private_home / ".codex"


def _trust_project_config(codex_home: Path, project: Path, extra: str = USER_CONFIG) -> str:
    codex_home.mkdir(parents=True, exist_ok=True)
    text = extra + f'\n[projects."{project}"]\ntrust_level = "trusted"\n'
    (codex_home / "config.toml").write_text(text)
    return text


def _hooks_file(project: Path) -> Path:
    return project / ".codex" / "hooks.json"


def _listing(codex: Path, codex_home: Path, cwd: Path) -> list[dict]:
    import os

    env = dict(os.environ, CODEX_HOME=str(codex_home))
    with AppServer(codex, cwd=cwd, env=env) as server:
        return server.list_hooks(cwd)["hooks"]


def _ours(hooks: list[dict]) -> list[dict]:
    return [h for h in hooks if is_our_command(h["command"])]


# --- without codex --------------------------------------------------------------------------------


def test_untrusted_project_is_refused_and_nothing_is_written(pasture, repo: Path, codex_home: Path) -> None:
    run = pasture("install", "codex", "--project", str(repo))
    assert run.code == 2, run
    assert f"Codex loads {repo}/.codex/ only for a trusted project" in run.stderr
    assert f'hint: add --trust-project to record [projects."{repo}"] trust_level' in run.stderr
    assert run.stderr.endswith(f"\nrun: pasture install codex --project {repo} --root {REPO} --trust-project\n")
    assert not (repo / ".codex").exists() and not codex_home.exists()


def test_without_codex_the_hooks_are_written_and_the_exit_is_loud(
    pasture, repo: Path, codex_home: Path, generated
) -> None:
    config = _trust_project_config(codex_home, repo)
    run = pasture("install", "codex", "--project", str(repo))
    assert run.code == 3, run
    assert _hooks_file(repo).read_text() == generated[f"{CONTRACT}/hooks.json"]
    assert (codex_home / "config.toml").read_text() == config  # nothing to record without codex
    assert "SILENTLY SKIP" in run.stderr and "no `codex` on PATH" in run.stderr
    assert (
        f"!! run: pasture install codex --project {repo} --contract {CONTRACT} --root {REPO} --trust-only\n"
        in run.stderr
    )
    assert "created" in run.stdout and "SILENTLY" not in run.stdout  # the report on stdout, the alarm on stderr
    report = pasture("install", "codex", "--project", str(repo), "--json")
    assert report.code == 3
    body = report.json()
    assert body["ok"] is False and body["exit_code"] == 3 and body["trust"]["codex"] is None
    assert body["next_steps"] == [
        f"pasture install codex --project {repo} --contract {CONTRACT} --root {REPO} --trust-only"
    ]
    assert body["files"][0]["change"] == "unchanged"


def test_invalid_config_toml_is_refused_untouched(pasture, repo: Path, codex_home: Path) -> None:
    codex_home.mkdir()
    (codex_home / "config.toml").write_text("model = \n")
    _hooks_file(repo).parent.mkdir()
    _hooks_file(repo).write_text('{"hooks": {}}')
    for action in ("install", "uninstall"):
        run = pasture(action, "codex", "--project", str(repo))
        assert run.code == 2 and "invalid TOML" in run.stderr, run
        assert _hooks_file(repo).read_text() == '{"hooks": {}}'
        assert (codex_home / "config.toml").read_text() == "model = \n"


def test_invalid_hooks_json_is_refused_untouched(pasture, repo: Path, codex_home: Path) -> None:
    config = _trust_project_config(codex_home, repo)
    _hooks_file(repo).parent.mkdir()
    _hooks_file(repo).write_text('{"hooks": {"PreToolUse": [}')
    run = pasture("install", "codex", "--project", str(repo), "--trust-project")
    assert run.code == 2 and "invalid JSON" in run.stderr
    assert _hooks_file(repo).read_text() == '{"hooks": {"PreToolUse": [}'
    assert (codex_home / "config.toml").read_text() == config
    assert sorted(p.name for p in _hooks_file(repo).parent.iterdir()) == ["hooks.json"]


def test_description_is_ours_only_when_we_wrote_it(pasture, repo: Path, codex_home: Path) -> None:
    _trust_project_config(codex_home, repo)
    _hooks_file(repo).parent.mkdir()
    _hooks_file(repo).write_text(json.dumps({"hooks": {"Stop": [FOREIGN_GROUP]}}))
    assert pasture("install", "codex", "--project", str(repo)).code == 3  # no codex here
    assert "description" not in json.loads(_hooks_file(repo).read_text())
    doc = {
        "description": "generated by pasture from profiles/codex@0.100.0/lifecycle.yaml; do not edit",
        "hooks": {"Stop": [FOREIGN_GROUP]},
    }
    _hooks_file(repo).write_text(json.dumps(doc))
    pasture("install", "codex", "--project", str(repo))
    assert json.loads(_hooks_file(repo).read_text())["description"].startswith(
        f"generated by pasture from profiles/{CONTRACT}/"
    )


def test_uninstall_without_codex_removes_ours_and_keeps_hooks_key(pasture, repo: Path, codex_home: Path) -> None:
    _trust_project_config(codex_home, repo)
    _hooks_file(repo).parent.mkdir()
    _hooks_file(repo).write_text(json.dumps({"description": "my hooks", "hooks": {"Stop": [FOREIGN_GROUP]}}))
    pasture("install", "codex", "--project", str(repo))
    run = pasture("uninstall", "codex", "--project", str(repo))
    assert run.code == 0, run
    assert json.loads(_hooks_file(repo).read_text()) == {"description": "my hooks", "hooks": {"Stop": [FOREIGN_GROUP]}}
    doc = json.loads(_hooks_file(repo).read_text())
    doc["hooks"] = {}
    _hooks_file(repo).write_text(json.dumps(doc))
    pasture("install", "codex", "--project", str(repo))
    assert pasture("uninstall", "codex", "--project", str(repo)).code == 0
    # Codex requires "hooks": an emptied file with a foreign description keeps it
    assert json.loads(_hooks_file(repo).read_text()) == {"description": "my hooks", "hooks": {}}


# --- with the real codex (tests/npm pins it) --------------------------------------------------------


@pytest.mark.real_host
def test_install_records_trust_that_codex_accepts(
    pasture, repo: Path, codex_home: Path, npm_bin: Path, generated
) -> None:
    codex = npm_bin / "codex"
    _hooks_file(repo).parent.mkdir()
    _hooks_file(repo).write_text(json.dumps({"hooks": {"PreToolUse": [FOREIGN_GROUP]}}, indent=2))
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(USER_CONFIG)
    run = pasture("install", "codex", "--project", str(repo), "--trust-project", "--codex-bin", str(codex), "--json")
    assert run.code == 0, run
    report = run.json()
    events = json.loads(generated[f"{CONTRACT}/hooks.json"])["hooks"]
    assert report["events"] == list(events) and len(report["trust"]["hooks"]) == len(events)
    assert all(h["before"] == "untrusted" and h["after"] == "trusted" for h in report["trust"]["hooks"])

    text = (codex_home / "config.toml").read_text()
    assert text.startswith(USER_CONFIG)  # the user's config is untouched; ours is appended
    config = tomllib.loads(text)
    assert config["projects"][str(repo)] == {"trust_level": "trusted"}
    assert (codex_home / "config.toml.pasture-backup").read_text() == USER_CONFIG

    listed = _listing(codex, codex_home, repo)
    ours, foreign = _ours(listed), [h for h in listed if not is_our_command(h["command"])]
    assert {h["trustStatus"] for h in ours} == {"trusted"} and len(ours) == len(events)
    assert [h["trustStatus"] for h in foreign] == ["untrusted"]  # we never vouch for someone else's hook
    assert foreign[0]["key"] == f"{_hooks_file(repo)}:pre_tool_use:0:0"  # foreign kept its position
    assert set(config["hooks"]["state"]) == {h["key"] for h in ours}
    assert all(config["hooks"]["state"][h["key"]] == {"trusted_hash": h["currentHash"]} for h in ours)


@pytest.mark.real_host
def test_reinstall_changes_no_byte(pasture, repo: Path, codex_home: Path, npm_bin: Path) -> None:
    _trust_project_config(codex_home, repo)
    args = ("install", "codex", "--project", str(repo), "--codex-bin", str(npm_bin / "codex"))
    assert pasture(*args).code == 0
    files = [_hooks_file(repo), codex_home / "config.toml", codex_home / "config.toml.pasture-backup"]
    before = [(p.read_bytes(), p.stat().st_mtime_ns) for p in files]
    run = pasture(*args, "--json")
    assert run.code == 0, run
    assert [f["change"] for f in run.json()["files"]] == ["unchanged", "unchanged"]
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in files] == before


@pytest.mark.real_host
def test_trust_only_after_an_install_without_codex(pasture, repo: Path, codex_home: Path, npm_bin: Path) -> None:
    _trust_project_config(codex_home, repo)
    assert pasture("install", "codex", "--project", str(repo)).code == 3
    hooks_bytes = _hooks_file(repo).read_bytes()
    run = pasture("install", "codex", "--project", str(repo), "--trust-only", "--codex-bin", str(npm_bin / "codex"))
    assert run.code == 0, run
    assert _hooks_file(repo).read_bytes() == hooks_bytes
    assert {h["trustStatus"] for h in _ours(_listing(npm_bin / "codex", codex_home, repo))} == {"trusted"}


@pytest.mark.real_host
def test_trust_only_never_trusts_a_tampered_pasture_lookalike(
    pasture, repo: Path, codex_home: Path, npm_bin: Path
) -> None:
    _trust_project_config(codex_home, repo)
    pasture("install", "codex", "--project", str(repo))
    doc = json.loads(_hooks_file(repo).read_text())
    evil = doc["hooks"]["PreToolUse"][0]["hooks"][0]
    evil["command"] += "; touch pwned"
    _hooks_file(repo).write_text(json.dumps(doc, indent=2))
    run = pasture("install", "codex", "--project", str(repo), "--trust-only", "--codex-bin", str(npm_bin / "codex"))
    assert "hooks.PreToolUse[0] look like pasture's but differ" in run.output
    status = {h["command"]: h["trustStatus"] for h in _listing(npm_bin / "codex", codex_home, repo)}
    assert status[evil["command"]] == "untrusted"
    assert sum(1 for s in status.values() if s == "trusted") == len(doc["hooks"]) - 1


@pytest.mark.real_host
def test_a_changed_hook_is_retrusted_in_place_and_enabled_false_survives(
    pasture, repo: Path, codex_home: Path, npm_bin: Path
) -> None:
    codex = npm_bin / "codex"
    _trust_project_config(codex_home, repo)
    args = ("install", "codex", "--project", str(repo), "--codex-bin", str(codex))
    assert pasture(*args).code == 0
    doc = json.loads(_hooks_file(repo).read_text())
    doc["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 7  # an older pasture wrote something else
    _hooks_file(repo).write_text(json.dumps(doc, indent=2) + "\n")
    key = f"{_hooks_file(repo)}:stop:0:0"
    text = (codex_home / "config.toml").read_text()
    # the user switched our Stop hook off in Codex's /hooks browser
    (codex_home / "config.toml").write_text(
        text.replace(f'[hooks.state."{key}"]\n', f'[hooks.state."{key}"]\nenabled = false\n')
    )
    run = pasture(*args, "--json")
    assert run.code == 0, run
    state = tomllib.loads((codex_home / "config.toml").read_text())["hooks"]["state"][key]
    assert state["enabled"] is False
    listed = {h["key"]: h for h in _listing(codex, codex_home, repo)}
    assert listed[key]["trustStatus"] == "trusted" and state["trusted_hash"] == listed[key]["currentHash"]
    assert listed[key]["timeoutSec"] != 7 and listed[key]["enabled"] is False


@pytest.mark.real_host
def test_uninstall_moves_foreign_trust_with_its_hook(pasture, repo: Path, codex_home: Path, npm_bin: Path) -> None:
    """A foreign hook added after ours moves down when ours go; its recorded trust follows it."""
    codex = npm_bin / "codex"
    _trust_project_config(codex_home, repo)
    _hooks_file(repo).parent.mkdir()
    _hooks_file(repo).write_text(json.dumps({"hooks": {"PreToolUse": [FOREIGN_GROUP]}}, indent=2))
    assert pasture("install", "codex", "--project", str(repo), "--codex-bin", str(codex)).code == 0
    doc = json.loads(_hooks_file(repo).read_text())
    later = {"hooks": [{"type": "command", "command": "echo later"}]}
    doc["hooks"]["PreToolUse"].append(later)
    _hooks_file(repo).write_text(json.dumps(doc, indent=2))
    # the user reviews and trusts both foreign hooks (what Codex's /hooks browser records)
    text = (codex_home / "config.toml").read_text()
    for hook in _listing(codex, codex_home, repo):
        if not is_our_command(hook["command"]):
            text = tomledit.set_value(text, ("hooks", "state", hook["key"]), "trusted_hash", hook["currentHash"])
    (codex_home / "config.toml").write_text(text)
    assert [h["key"].rsplit(":", 2)[1] for h in _listing(codex, codex_home, repo) if h["command"] == "echo later"] == [
        "2"
    ]

    run = pasture("uninstall", "codex", "--project", str(repo))
    assert run.code == 0, run
    assert json.loads(_hooks_file(repo).read_text()) == {"hooks": {"PreToolUse": [FOREIGN_GROUP, later]}}
    listed = _listing(codex, codex_home, repo)
    assert [(h["command"], h["key"].split(":", 1)[1], h["trustStatus"]) for h in listed] == [
        ("echo foreign", "pre_tool_use:0:0", "trusted"),
        ("echo later", "pre_tool_use:1:0", "trusted"),
    ]
    config = tomllib.loads((codex_home / "config.toml").read_text())
    assert set(config["hooks"]["state"]) == {h["key"] for h in listed}  # ours are gone from the state
    assert config["projects"][str(repo)] == {"trust_level": "trusted"}  # project trust is left alone
    assert (codex_home / "config.toml").read_text().startswith(USER_CONFIG)


@pytest.mark.real_host
def test_user_scope_uses_codex_home(
    pasture, tmp_path: Path, npm_bin: Path, monkeypatch: pytest.MonkeyPatch, private_home: Path
) -> None:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    run = pasture("install", "codex", "--user", "--codex-bin", str(npm_bin / "codex"), "--json")
    assert run.code == 0, run
    assert [f["path"] for f in run.json()["files"]] == [str(home / "hooks.json"), str(home / "config.toml")]
    assert {h["trustStatus"] for h in _ours(_listing(npm_bin / "codex", home, tmp_path))} == {"trusted"}
    assert not (private_home / ".codex").exists()
    assert pasture("uninstall", "codex", "--user").code == 0
    assert not (home / "hooks.json").exists()
    assert "hooks" not in tomllib.loads((home / "config.toml").read_text())
