"""`pasture doctor`: is enforcement really on here? Driven through the situations of issue 9.

Codex trust is asked of the real `codex app-server`: those situations are in
tests/install/test_doctor_codex_real.py (marker real_host).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from profiles_found import admitting, newest

from pasture.cli import main

NEWEST = newest("claude-code")  # found in profiles/: a bump needs no edit here
_major, _minor, _patch = (int(p) for p in NEWEST.partition("@")[2].split("."))
LATER = f"{_major}.{_minor}.{_patch + 100}"  # a later release the newest floor admits

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def doctor(monkeypatch: pytest.MonkeyPatch):
    def run(*args: str, cwd: Path | None = None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        result = CliRunner().invoke(main, ["doctor", *args, "--root", str(REPO), "--json"], catch_exceptions=False)
        body = json.loads(result.stdout) if result.stdout.strip().startswith("{") else None
        return result.exit_code, body, result

    return run


def _fake_host(folder: Path, name: str, version: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{version} (fake {name})'\n")
    path.chmod(0o755)


@pytest.fixture
def hosts_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Fake `claude`/`codex`/`opencode` that only answer --version, first on PATH."""
    folder = tmp_path / "fake-hosts"

    def put(name: str, version: str) -> None:
        _fake_host(folder, name, version)
        monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")

    return put


def _by(body: dict, check: str, host: str | None = "claude-code") -> list[dict]:
    return [f for f in body["findings"] if f["check"] == check and f["host"] == host]


def _install(pasture, project: Path, harness: str = "claude-code", *extra: str) -> None:
    run = pasture("install", harness, "--project", str(project), *extra)
    assert run.code in (0, 3), run


@pytest.fixture
def repo(project: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


def test_nothing_installed_is_off(doctor, repo: Path) -> None:
    code, body, _ = doctor("--project", str(repo))
    assert code == 1
    (finding,) = [f for f in body["findings"] if f["check"] == "installed"]
    assert finding["status"] == "off" and "no pasture adapter is installed for any host" in finding["message"]
    assert (
        finding["fix"]
        == f"pasture install <claude-code|codex|opencode|gemini-cli|copilot-cli|pi|qwen-code|cline> --project {repo}"
    )
    assert body["not_installed"] == [
        "claude-code",
        "codex",
        "opencode",
        "gemini-cli",
        "copilot-cli",
        "pi",
        "qwen-code",
        "cline",
    ]


def test_a_fresh_claude_install_is_live(doctor, pasture, repo: Path, hosts_on_path) -> None:
    hosts_on_path("claude", NEWEST.partition("@")[2])
    _install(pasture, repo)
    code, body, result = doctor("--project", str(repo))
    assert code == 0, result.stdout
    assert [f["status"] for f in _by(body, "adapter")] == ["ok"]
    assert [f["status"] for f in _by(body, "launcher")] == ["ok"]
    (version,) = _by(body, "host-version")
    assert version["status"] == "ok" and f"admitted by {NEWEST}" in version["message"]
    assert body["root"] == str(repo)
    text = CliRunner().invoke(main, ["doctor", "--project", str(repo), "--root", str(REPO)])
    assert text.exit_code == 0 and "enforcement is on here" in text.stdout


def test_a_missing_or_broken_launcher_is_off_with_the_reinstall_command(
    doctor, pasture, repo: Path, private_home: Path
) -> None:
    _install(pasture, repo)
    path = private_home / ".local" / "share" / "pasture" / "bin" / "pasture-hook"
    text = path.read_text()
    path.write_text(text.replace("PATHS = [", "PATHS = ['/nonexistent', ").replace(repr(str(REPO)) + ",", "", 1))
    code, body, _ = doctor("--project", str(repo))
    assert code == 1
    (launcher,) = _by(body, "launcher")
    assert launcher["status"] == "off" and "does not run (exit 70" in launcher["message"]
    assert launcher["fix"] == f"pasture install claude-code --project {repo}"
    path.unlink()
    code, body, _ = doctor("--project", str(repo))
    (launcher,) = _by(body, "launcher")
    assert code == 1 and launcher["status"] == "off" and "is missing" in launcher["message"]
    assert pasture("install", "claude-code", "--project", str(repo)).code == 0  # the fix it names
    code, body, _ = doctor("--project", str(repo))
    assert [f["status"] for f in _by(body, "launcher")] == ["ok"]


def test_an_install_from_before_the_launcher_is_off(doctor, repo: Path) -> None:
    (repo / ".claude").mkdir()
    old = json.loads((REPO / "generated" / "claude-code@2.1.328" / "settings.json").read_text())
    (repo / ".claude" / "settings.json").write_text(json.dumps(old, indent=2))
    code, body, _ = doctor("--project", str(repo))
    assert code == 1
    (launcher,) = _by(body, "launcher")
    assert launcher["status"] == "off" and "installed before the launcher" in launcher["message"]
    assert [f["status"] for f in _by(body, "adapter")] == ["ok"]  # the same groups, `pasture` as the binary


def test_an_edited_adapter_is_off(doctor, pasture, repo: Path) -> None:
    _install(pasture, repo)
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    del doc["hooks"]["PreToolUse"]
    doc["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 1
    settings.write_text(json.dumps(doc, indent=2))
    code, body, _ = doctor("--project", str(repo))
    assert code == 1
    (adapter,) = _by(body, "adapter")
    assert adapter["status"] == "off" and "1 missing (PreToolUse)" in adapter["message"]
    assert "1 changed (Stop)" in adapter["message"]
    assert adapter["fix"] == f"pasture install claude-code --project {repo}"


def test_disable_all_hooks_is_off(doctor, pasture, repo: Path) -> None:
    _install(pasture, repo)
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["disableAllHooks"] = True
    settings.write_text(json.dumps(doc))
    code, body, _ = doctor("--project", str(repo))
    assert code == 1 and any("disableAllHooks" in f["message"] and f["status"] == "off" for f in _by(body, "adapter"))


@pytest.mark.parametrize(
    "installed, expected, words",
    [
        ("1.9.0", "off", f"which contract {NEWEST} does not admit"),
        ("2.1.300", "off", "does not admit"),
        (LATER, "ok", f"admitted by {NEWEST}"),
    ],
)
def test_the_installed_host_version_must_be_admitted(
    doctor, pasture, repo: Path, hosts_on_path, installed: str, expected: str, words: str
) -> None:
    _install(pasture, repo, "claude-code", "--contract", NEWEST)
    hosts_on_path("claude", installed)
    code, body, _ = doctor("--project", str(repo))
    (version,) = _by(body, "host-version")
    assert version["status"] == expected and words in version["message"], version
    assert code == (1 if expected == "off" else 0)


def test_an_older_contract_than_the_host_fits_is_a_warning(doctor, pasture, repo: Path, hosts_on_path) -> None:
    _install(pasture, repo, "claude-code", "--contract", "claude-code@2.1.261")
    hosts_on_path("claude", "2.1.330")
    code, body, _ = doctor("--project", str(repo))
    (version,) = _by(body, "host-version")
    assert version["status"] == "warn" and f"{admitting('claude-code', '2.1.330')} fits it better" in version["message"]


def test_claude_started_below_the_project_root_is_off_unless_the_user_adapter_covers_it(
    doctor, pasture, repo: Path
) -> None:
    """Issue 9 item 2, host side: Claude Code started in src/ loads no project settings at all; issue 18:
    so the doctor never ends "enforcement is on here" there (exit 1), unless the --user adapter runs."""
    _install(pasture, repo)
    (repo / "src").mkdir()
    code, body, result = doctor(cwd=repo / "src")
    assert body["root"] == str(repo) and body["start"] == str(repo / "src")
    (start,) = _by(body, "claude-start")
    assert (
        start["status"] == "off"
        and f"reads {repo}/.claude/settings.json only when started in {repo}" in start["message"]
    )
    assert code == 1
    assert pasture("install", "claude-code", "--user").code == 0
    code, body, _ = doctor(cwd=repo / "src")
    (start,) = _by(body, "claude-start")
    assert start["status"] == "warn" and "the user-scope adapter still runs" in start["message"]
    assert start["fix"].startswith(f"start claude in {repo}")
    code, body, _ = doctor("--project", str(repo))
    assert _by(body, "claude-start") == []


def test_the_project_root_is_the_repository_top_level(doctor, pasture, repo: Path) -> None:
    # one project, one layer (issue 18): a .pasture/ below the repository's top level replaces nothing
    inner = repo / "pkg" / "sub"
    inner.mkdir(parents=True)
    (repo / "pkg" / ".pasture").mkdir()
    code, body, _ = doctor("--project", str(inner))
    assert body["root"] == str(repo)
    root, ignored = [f for f in body["findings"] if f["check"] == "project-root"]
    assert "the repository's top level" in root["message"]
    assert (
        ignored["status"] == "warn" and f"{repo / 'pkg' / '.pasture'} is below the project root" in ignored["message"]
    )


def test_codex_with_a_shell_that_is_not_posix_is_off(
    doctor, pasture, repo: Path, private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (private_home / ".codex").mkdir()
    (private_home / ".codex" / "config.toml").write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    _install(pasture, repo, "codex")
    monkeypatch.setenv("SHELL", "/usr/bin/fish")
    code, body, _ = doctor("--project", str(repo))
    (shell,) = _by(body, "codex-shell", "codex")
    assert code == 1 and shell["status"] == "off" and "SHELL=/bin/sh" in shell["fix"]
    monkeypatch.setenv("SHELL", "/bin/bash")
    code, body, _ = doctor("--project", str(repo))
    assert _by(body, "codex-shell", "codex") == []


def test_codex_trust_cannot_be_asked_without_codex(doctor, pasture, repo: Path, private_home: Path) -> None:
    (private_home / ".codex").mkdir()
    (private_home / ".codex" / "config.toml").write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    _install(pasture, repo, "codex")
    code, body, _ = doctor("--project", str(repo))
    (trust,) = _by(body, "codex-trust", "codex")
    assert trust["status"] == "warn" and "no codex on PATH" in trust["message"]
    # issue 18: whether Codex runs the hooks at all is open, so the doctor never ends "on" here
    text = CliRunner().invoke(main, ["doctor", "--project", str(repo), "--root", str(REPO)], catch_exceptions=False)
    assert "enforcement is on here" not in text.stdout
    assert "enforcement is NOT confirmed here: whether codex runs pasture's hooks could not be checked" in text.stdout


def _trust(repo: Path) -> None:
    # `pasture policy trust` asks a person on the controlling terminal: answer it on a real one
    from terminal import run_at_terminal

    code, shown, out, err = run_at_terminal(
        [sys.executable, "-m", "pasture.entry", "policy", "trust", "--project", str(repo)],
        env=dict(os.environ),
        cwd=repo,
    )
    assert code == 0, (shown, out, err)


def test_policy_trust_journal_and_gate_findings(doctor, pasture, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _install(pasture, repo)
    (repo / ".pasture").mkdir()
    policy = repo / ".pasture" / "policy.toml"
    policy.write_text('[gate]\nkind = "nonsense"\n')
    code, body, _ = doctor("--project", str(repo))
    # the starter user policy install wrote is fine: the project layer is the one off
    (bad,) = [f for f in _by(body, "policy", None) if f["status"] != "ok"]
    assert code == 1 and bad["status"] == "off" and "nonsense" in bad["message"]
    assert bad["fix"] == f"fix {policy}, then: pasture policy check --project {repo}"

    policy.write_text('[gate]\nkind = "command"\ncommand = ["./gates/check"]\n')
    code, body, _ = doctor("--project", str(repo))
    (untrusted,) = _by(body, "policy-trust", None)
    assert code == 1 and untrusted["status"] == "off" and "command gate" in untrusted["message"]
    assert untrusted["fix"].startswith(f"pasture policy trust --project {repo}")
    assert _by(body, "gate", None) == []  # ignored until trusted: nothing to reach yet
    _trust(repo)
    code, body, _ = doctor("--project", str(repo))
    assert _by(body, "policy-trust", None) == []
    (gate,) = _by(body, "gate", None)
    assert code == 1 and gate["status"] == "off" and f"{repo}/gates/check is not an executable file" in gate["message"]
    (repo / "gates").mkdir()
    (repo / "gates" / "check").write_text('#!/bin/sh\necho \'{"decision": "proceed"}\'\n')
    (repo / "gates" / "check").chmod(0o755)
    code, body, _ = doctor("--project", str(repo))
    assert [f["status"] for f in _by(body, "gate", None)] == ["ok"]

    policy.write_text('[gate]\nkind = "ai"\nmodel = "m"\nbase_url = "https://example.invalid/v1"\n')
    _trust(repo)
    for var in ("PASTURE_AI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    code, body, _ = doctor("--project", str(repo))
    (gate,) = _by(body, "gate", None)
    assert code == 1 and gate["status"] == "off" and "no API key" in gate["message"]

    policy.write_text('[gate]\nkind = "agent"\nhost = "codex"\nbinary = "./judges/codex"\n')
    _trust(repo)
    code, body, _ = doctor("--project", str(repo))
    (gate,) = _by(body, "gate", None)
    assert (
        code == 1
        and gate["status"] == "off"
        and "agent gate: host codex is not installed (./judges/codex)" in gate["message"]
        and "npm install -g @openai/codex" in gate["message"]
    )
    (repo / "judges").mkdir()
    (repo / "judges" / "codex").write_text("#!/bin/sh\n")
    (repo / "judges" / "codex").chmod(0o755)
    code, body, _ = doctor("--project", str(repo))
    assert [(f["status"], f["message"]) for f in _by(body, "gate", None)] == [
        ("ok", f"project agent gate: host codex at {repo}/judges/codex")
    ]

    policy.write_text('[gate]\nkind = "rules"\n\n[journal]\npath = ".pasture/journal-dir/x.sqlite3"\n')
    _trust(repo)
    (repo / ".pasture" / "journal-dir").write_text("a file where the journal's folder should be")
    code, body, _ = doctor("--project", str(repo))
    (journal,) = _by(body, "journal", None)
    assert code == 1 and journal["status"] == "off" and "is not a folder" in journal["message"], journal


def test_usage_errors_exit_2(doctor, repo: Path) -> None:
    code, body, _ = doctor("--project", str(repo / "missing"))
    assert code == 2
    result = CliRunner().invoke(main, ["doctor", "--project", str(repo), "--user"])
    assert result.exit_code == 2


def test_user_scope_install_counts_for_every_project(doctor, pasture, repo: Path) -> None:
    assert pasture("install", "claude-code", "--user").code == 0
    code, body, _ = doctor("--project", str(repo))
    adapters = _by(body, "adapter")
    assert [a["status"] for a in adapters] == ["ok"] and "/.claude/settings.json" in adapters[0]["where"]
    code, body, _ = doctor("--user")
    assert body["scope"] == "user" and [a["status"] for a in _by(body, "adapter")] == ["ok"]


def test_every_finding_that_is_not_ok_names_a_fix(doctor, pasture, repo: Path, private_home: Path) -> None:
    _install(pasture, repo)
    (private_home / ".local" / "share" / "pasture" / "bin" / "pasture-hook").unlink()
    code, body, result = doctor("--project", str(repo))
    assert code == 1
    for finding in body["findings"]:
        assert finding["status"] == "ok" or finding["fix"], finding
    text = CliRunner().invoke(main, ["doctor", "--project", str(repo), "--root", str(REPO)])
    assert text.exit_code == 1 and "fix: pasture install claude-code --project" in text.stdout
    assert "enforcement is NOT fully on here" in text.stdout


def test_gemini_is_live_in_a_trusted_folder_and_off_when_the_trust_is_gone(
    doctor, pasture, repo: Path, hosts_on_path, private_home: Path
) -> None:
    hosts_on_path("gemini", "0.61.0")
    _install(pasture, repo, "gemini-cli", "--trust-project")
    code, body, result = doctor("--project", str(repo))
    assert code == 0, result.stdout
    assert [f["status"] for f in _by(body, "adapter", "gemini-cli")] == ["ok"]
    assert _by(body, "gemini-trust", "gemini-cli") == []
    (version,) = _by(body, "host-version", "gemini-cli")
    assert version["status"] == "ok" and "gemini-cli@0.61.0" in version["message"]
    # the user (or Gemini's /permissions dialog) takes the trust away: project hooks no longer load
    (private_home / ".gemini" / "trustedFolders.json").write_text(json.dumps({str(repo.resolve()): "DO_NOT_TRUST"}))
    code, body, result = doctor("--project", str(repo))
    assert code == 1, result.stdout
    (off,) = _by(body, "gemini-trust", "gemini-cli")
    assert off["status"] == "off" and "exits 55" in off["message"] and "--skip-trust" in off["message"]
    assert off["fix"] == f"pasture install gemini-cli --project {repo.resolve()} --trust-project"


def test_doctor_names_codex_tools_that_fire_no_pre_tool_use(doctor, pasture, repo: Path, private_home: Path) -> None:
    (private_home / ".codex").mkdir()
    (private_home / ".codex" / "config.toml").write_text(f'[projects."{repo}"]\ntrust_level = "trusted"\n')
    _install(pasture, repo, "codex")
    _code, body, _ = doctor("--project", str(repo))
    (unhooked,) = _by(body, "codex-unhooked", "codex")
    assert unhooked["status"] == "warn"
    assert "write_stdin fires no PreToolUse on 0.171.0" in unhooked["message"]
    assert "--sandbox" in unhooked["fix"]


def test_qwen_is_live_and_warns_only_when_folder_trust_is_turned_on(
    doctor, pasture, repo: Path, hosts_on_path, private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("QWEN_HOME", raising=False)
    hosts_on_path("qwen", "0.24.4")
    _install(pasture, repo, "qwen-code")
    code, body, result = doctor("--project", str(repo))
    assert code == 0, result.stdout
    assert [f["status"] for f in _by(body, "adapter", "qwen-code")] == ["ok"]
    assert [f["status"] for f in _by(body, "launcher", "qwen-code")] == ["ok"]
    (version,) = _by(body, "host-version", "qwen-code")
    assert version["status"] == "ok" and "qwen-code@0.24.4" in version["message"]
    assert _by(body, "qwen-trust", "qwen-code") == []
    # the user turns Qwen Code's folder trust on: project hooks then load only in a folder it trusts
    (private_home / ".qwen").mkdir(exist_ok=True)
    (private_home / ".qwen" / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": True}}}))
    code, body, result = doctor("--project", str(repo))
    (warn,) = _by(body, "qwen-trust", "qwen-code")
    assert warn["status"] == "warn" and "folder trust is on" in warn["message"] and "trust" in warn["fix"]
    assert warn["where"] == str(private_home / ".qwen" / "trustedFolders.json")


def test_cline_is_live_and_a_subfolder_session_of_the_repository_is_covered(
    doctor, pasture, repo: Path, hosts_on_path
) -> None:
    """Cline's workspace is the git work tree's top folder of where it starts: a session in src/ of the
    repository runs the project's hook files, so doctor there finds nothing off."""
    hosts_on_path("cline", "3.0.65")
    _install(pasture, repo, "cline")
    (repo / "src").mkdir()
    for where in (repo, repo / "src"):
        code, body, result = doctor("--project", str(where))
        assert [f["status"] for f in _by(body, "adapter", "cline")] == ["ok"], result.stdout
        assert [f["status"] for f in _by(body, "launcher", "cline")] == ["ok"]
        assert _by(body, "cline-start-folder", "cline") == [] and _by(body, "start-folder", "cline") == []


def test_cline_says_off_for_a_session_whose_workspace_is_not_the_project(tmp_path: Path) -> None:
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.cline import HOST, workspace_of
    from pasture.install.places import Installation

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    target = HOST.target(project, {"HOME": str(tmp_path)})
    inst = Installation("cline", target, "", None, "cline@3.0.65")
    ctx = DoctorContext({"HOME": str(tmp_path)}, project / "src", False, None, 5.0)
    (finding,) = HOST.check_session(inst, ctx)
    assert finding.check == "cline-start-folder" and finding.status == "off" and "--user" in finding.fix
    (project / ".git").mkdir()
    assert workspace_of(project / "src") == project and HOST.check_session(inst, ctx) == []
