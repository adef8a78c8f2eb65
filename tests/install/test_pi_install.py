"""`pasture install pi`: project scope writes .pi/extensions/pasture-lifecycle.ts (a file of our own beside the
repository's extensions; Pi loads project extensions with no trust step), user scope
``<agent dir>/extensions/`` (``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``). Uninstall gives every tree back
byte for byte. `pasture doctor` knows Pi and says off when Pi's settings exclude the extension. The guard's
own files cover Pi's extension folders and settings (Claude Code's deny rules, and the runtime's guard rules on
Pi's own tools)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_paths import REPO, committed

from pasture.cli import main

FOREIGN_EXTENSION = 'export default function (pi: any) { pi.on("input", () => undefined) }\n'
OURS = "pi@0.73.1/pasture-lifecycle.ts"


def _cli(*args: str):
    argv = list(args)
    if argv[0] in ("install", "doctor"):
        argv += ["--root", str(REPO)]
    return CliRunner().invoke(main, argv, catch_exceptions=False)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(autouse=True)
def _no_agent_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)


def test_project_install_writes_our_extension_and_uninstall_leaves_the_tree_as_it_was(
    project: Path, private_home: Path
) -> None:
    theirs = project / ".pi" / "extensions" / "mine.ts"
    theirs.parent.mkdir(parents=True)
    theirs.write_text(FOREIGN_EXTENSION)
    (project / ".pi" / "settings.json").write_text('{"theme": "dark"}\n')
    before = _tree(project)
    done = _cli("install", "pi", "--project", str(project))
    assert done.exit_code == 0, done.output
    ours = project / ".pi" / "extensions" / "pasture-lifecycle.ts"
    assert ours.read_text() == committed(OURS)  # the generated extension, byte for byte
    assert theirs.read_text() == FOREIGN_EXTENSION
    doctor = _cli("doctor", "--project", str(project), "--json")
    findings = [f for f in json.loads(doctor.stdout)["findings"] if f.get("host") == "pi"]
    assert {f["check"]: f["status"] for f in findings}["pi-extensions"] == "ok", findings
    assert any(f["check"] == "adapter" and f["status"] == "ok" for f in findings), findings
    again = _cli("install", "pi", "--project", str(project))
    assert again.exit_code == 0 and ours.read_text() == committed(OURS)
    gone = _cli("uninstall", "pi", "--project", str(project))
    assert gone.exit_code == 0, gone.output
    assert _tree(project) == before


def test_a_foreign_file_of_our_name_is_never_replaced(project: Path, private_home: Path) -> None:
    ours = project / ".pi" / "extensions" / "pasture-lifecycle.ts"
    ours.parent.mkdir(parents=True)
    ours.write_text(FOREIGN_EXTENSION)
    done = _cli("install", "pi", "--project", str(project))
    assert done.exit_code != 0 and "was not written by pasture" in done.output, done.output
    assert ours.read_text() == FOREIGN_EXTENSION


@pytest.mark.parametrize("where", ["home", "env"])
def test_user_install_goes_to_the_agent_dir_and_uninstall_gives_it_back(
    private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    agent = private_home / ".pi" / "agent" if where == "home" else tmp_path / "pi-agent"
    if where == "env":
        monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    agent.mkdir(parents=True)
    (agent / "models.json").write_text('{"providers": {}}\n')
    before = _tree(private_home.parent)
    done = _cli("install", "pi", "--user")
    assert done.exit_code == 0, done.output
    assert (agent / "extensions" / "pasture-lifecycle.ts").read_text() == committed(OURS)
    gone = _cli("uninstall", "pi", "--user")
    assert gone.exit_code == 0, gone.output
    after = {k: v for k, v in _tree(private_home.parent).items() if "/pasture/" not in f"/{k}"}
    assert after == {k: v for k, v in before.items() if "/pasture/" not in f"/{k}"}
    assert not (agent / "extensions").exists()


def test_doctor_says_off_when_pis_settings_exclude_the_extension(project: Path, private_home: Path) -> None:
    assert _cli("install", "pi", "--project", str(project)).exit_code == 0
    settings = project / ".pi" / "settings.json"
    settings.write_text(json.dumps({"extensions": ["-extensions/pasture-lifecycle.ts"]}))
    doctor = _cli("doctor", "--project", str(project), "--json")
    (finding,) = [f for f in json.loads(doctor.stdout)["findings"] if f["check"] == "pi-extensions"]
    assert finding["status"] == "off" and "will not load pasture's adapter" in finding["message"], finding
    assert finding["fix"] == f"remove '-extensions/pasture-lifecycle.ts' from 'extensions' in {settings}"
    assert doctor.exit_code != 0


def test_claude_codes_own_deny_rules_cover_pis_extensions_and_settings(project: Path, private_home: Path) -> None:
    """An agent in Claude Code must not switch Pi's extension off either."""
    from pasture.install.denyrules import rules_for

    rules, _ = rules_for(project.resolve(), os.environ)
    for path in (f"{project.resolve()}/.pi/extensions/**", f"{private_home}/.pi/agent/extensions/**"):
        assert f"Edit(/{path})" in rules, path
    for path in (f"{project.resolve()}/.pi/settings.json", f"{private_home}/.pi/agent/settings.json"):
        assert f"Edit(/{path})" in rules, path
    user, _ = rules_for(None, os.environ)
    assert "Edit(**/.pi/extensions/**)" in user and "Edit(**/.pi/settings.json)" in user


def _pi_call(tool: str, args: dict, env: dict, cwd: Path) -> dict:
    payload = {"type": "tool_call", "toolName": tool, "toolCallId": "c1", "input": args}
    done = subprocess.run(
        ["python", "-m", "pasture.entry", "hook", "lifecycle", "--harness", "pi", "--event", "tool_call"]
        + ["--host-version", "0.73.1"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_pis_own_tools_may_not_rewrite_its_extensions_or_settings(tmp_path: Path) -> None:
    """The built-in guard refuses Pi's write/edit/bash tools on the extension folder and Pi's settings."""
    project = tmp_path / "repo"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    home = tmp_path / "home"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "PYTHONPATH": str(REPO),
        "PASTURE_MANAGED_POLICY": str(tmp_path / "none.toml"),
        "PASTURE_JOURNAL": str(tmp_path / "journal.sqlite3"),
    }
    attempts = [
        ("write", {"path": str(project / ".pi" / "extensions" / "pasture-lifecycle.ts"), "content": ""}),
        ("write", {"path": ".pi/settings.json", "content": '{"extensions": ["-extensions/pasture-lifecycle.ts"]}'}),
        ("edit", {"path": f"{home}/.pi/agent/settings.json", "oldText": "a", "newText": "b"}),
        ("bash", {"command": "rm .pi/extensions/pasture-lifecycle.ts"}),
        ("bash", {"command": f"echo '{{}}' > {home}/.pi/agent/extensions/pasture-lifecycle.ts"}),
    ]
    for tool, args in attempts:
        answer = _pi_call(tool, args, env, project)
        assert answer["decision"] == "deny", (tool, args, answer)
    assert _pi_call("bash", {"command": "echo hi > notes.txt"}, env, project) == {"decision": "proceed"}
    assert _pi_call("write", {"path": ".pi/notes.md", "content": "x"}, env, project) == {"decision": "proceed"}
