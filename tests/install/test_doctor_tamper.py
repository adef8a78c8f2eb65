"""Issue 18 in `pasture doctor` and `pasture install`: a repository's host settings that inject the
guard's roots are flagged (exit 1), and so is a rewritten policy cache or trust entry."""

from __future__ import annotations

import json
import marshal
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from pasture.cli import main
from pasture.runtime import effective, trust

REPO = Path(__file__).resolve().parents[2]
DENY_RM = (
    '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm -rf here"\ntool_kind = "shell"\n'
    'command = "rm\\\\s+-rf"\n'
)


@pytest.fixture
def doctor(monkeypatch: pytest.MonkeyPatch):
    def run(*args: str, cwd: Path | None = None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        result = CliRunner().invoke(main, ["doctor", *args, "--root", str(REPO), "--json"], catch_exceptions=False)
        return result.exit_code, json.loads(result.stdout), result

    return run


@pytest.fixture
def repo(project: Path, pasture) -> Path:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert pasture("install", "claude-code", "--project", str(project)).code in (0, 3)
    return project


def _by(body: dict, check: str) -> list[dict]:
    return [f for f in body["findings"] if f["check"] == check]


@pytest.mark.parametrize(
    "variable", ["PASTURE_BIN", "PASTURE_POLICY", "PASTURE_MANAGED_POLICY", "HOME", "XDG_STATE_HOME", "LD_PRELOAD"]
)
def test_doctor_flags_a_project_settings_env_that_injects_a_root(doctor, repo: Path, variable: str, monkeypatch):
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    doc["env"] = {variable: "/dev/null", "NODE_ENV": "development"}
    settings.write_text(json.dumps(doc))
    code, body, _ = doctor("--project", str(repo))
    (finding,) = _by(body, "host-env")
    assert finding["status"] == "off" and code == 1
    assert variable in finding["message"] and "NODE_ENV" not in finding["message"]
    assert finding["fix"] == f'remove {variable} from the "env" block of {settings}'
    # the host whose settings file it is (its wire declares the file): the one that hands the block to hooks
    assert finding["host"] == "claude-code" and "which Claude Code applies to every hook" in finding["message"]
    monkeypatch.chdir(repo)
    text = CliRunner().invoke(main, ["doctor", "--root", str(REPO)], catch_exceptions=False).stdout
    assert "enforcement is on here" not in text and "NOT fully on" in text


def test_settings_local_json_and_a_subfolder_start_are_flagged_too(doctor, repo: Path):
    (repo / ".claude" / "settings.local.json").write_text(json.dumps({"env": {"PASTURE_BIN": "true"}}))
    (repo / "src").mkdir()
    code, body, _ = doctor(cwd=repo / "src")
    (finding,) = _by(body, "host-env")
    assert code == 1 and "settings.local.json" in finding["where"] and "PASTURE_BIN" in finding["message"]


def test_no_finding_without_such_a_setting(doctor, repo: Path):
    code, body, _ = doctor("--project", str(repo))
    assert _by(body, "host-env") == []


def test_install_warns_about_a_settings_env_that_injects_a_root(pasture, project: Path):
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps({"env": {"PASTURE_BIN": "true"}}))
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code in (0, 3), run
    assert "PASTURE_BIN" in run.output and "env" in run.output and "pasture doctor" in run.output
    assert "which Claude Code hands to every hook" in " ".join(run.output.split())


def _policy_layers(repo: Path, private_home: Path) -> None:
    user = private_home / ".config" / "pasture"
    user.mkdir(parents=True, exist_ok=True)  # install wrote the starter policy here
    (user / "policy.toml").write_text(DENY_RM)


def _cache(private_home: Path) -> Path:
    (cached,) = (private_home / ".cache" / "pasture" / "policy").glob("*.cache")
    return cached


def _hook_load(repo: Path) -> None:
    import os

    effective._MEMO.clear()
    effective.load(str(repo), dict(os.environ))
    effective._MEMO.clear()


def test_doctor_reports_a_forged_cache_as_tampering_and_never_reports_from_it(doctor, repo: Path, private_home: Path):
    _policy_layers(repo, private_home)
    _hook_load(repo)
    code, body, _ = doctor("--project", str(repo))
    (ok,) = _by(body, "tamper")
    assert ok["status"] == "ok"
    cached = _cache(private_home)
    raw = cached.read_bytes()
    head, blob = raw[: len(effective.MAGIC) + 32], raw[len(effective.MAGIC) + 32 :]
    key, data = marshal.loads(blob)
    for layer in data["layers"]:
        layer.update(status="absent", rules=[])  # "the user layer absent and the guard off"
    cached.write_bytes(head + marshal.dumps((key, data)))
    code, body, _ = doctor("--project", str(repo))
    (forged,) = _by(body, "tamper")
    assert code == 1 and forged["status"] == "off" and "failed verification" in forged["message"]
    assert forged["fix"].startswith(f"rm {cached}")
    policy = [f for f in body["findings"] if f["check"] == "policy" and "user policy" in f["message"]]
    assert policy and policy[0]["status"] == "ok"  # the user layer is reported from its file, not the forgery


def test_doctor_recompiles_and_catches_a_signed_cache_that_differs(doctor, repo: Path, private_home: Path):
    """Even with the key (leaked, or the cache re-signed by something that read it) a cache whose content
    differs from what the layers compile to is tampering."""
    _policy_layers(repo, private_home)
    _hook_load(repo)
    import os

    env = dict(os.environ)
    secret, _ = effective.cache_key(env)
    cached = _cache(private_home)
    key, data = effective.read_cache(str(cached), secret)[0]
    data["layers"][1]["rules"][0]["decision"] = "proceed"
    effective._store(str(cached), (key, data), secret)
    code, body, _ = doctor("--project", str(repo))
    (found,) = _by(body, "tamper")
    assert code == 1 and found["status"] == "off" and "differs from the policy its files compile to" in found["message"]


def test_doctor_verifies_every_trust_entry_against_its_file(doctor, repo: Path, private_home: Path):
    import os

    policy = repo / ".pasture" / "policy.toml"
    policy.parent.mkdir(exist_ok=True)
    policy.write_text(DENY_RM)
    env = dict(os.environ)
    trust.trust(str(policy), env)
    code, body, _ = doctor("--project", str(repo))
    assert [f["status"] for f in _by(body, "tamper") if "trust entr" in f["message"]] == ["ok"]
    other = private_home / "elsewhere" / ".pasture"
    other.mkdir(parents=True)
    (other / "policy.toml").write_text(DENY_RM)
    trust.trust(str(other / "policy.toml"), env)
    (other / "policy.toml").write_text(DENY_RM.replace("deny", "proceed"))  # rewritten after it was trusted
    code, body, _ = doctor("--project", str(repo))
    (bad,) = [f for f in _by(body, "tamper") if "trust entry" in f["message"]]
    assert code == 1 and bad["status"] == "off" and str(other / "policy.toml") in bad["message"]
    assert "pasture policy trust --project" in bad["fix"]


def test_policy_show_and_check_never_report_from_a_forged_cache(repo: Path, private_home: Path):
    _policy_layers(repo, private_home)
    _hook_load(repo)
    cached = _cache(private_home)
    raw = cached.read_bytes()
    head, blob = raw[: len(effective.MAGIC) + 32], raw[len(effective.MAGIC) + 32 :]
    key, data = marshal.loads(blob)
    for layer in data["layers"]:
        layer.update(status="absent", rules=[])
    cached.write_bytes(head + marshal.dumps((key, data)))
    effective._MEMO.clear()
    shown = CliRunner().invoke(main, ["policy", "show", "--project", str(repo), "--json"], catch_exceptions=False)
    body = json.loads(shown.stdout)
    (user,) = [layer for layer in body["layers"] if layer["layer"] == "user"]
    assert user["status"] == "trusted" and [r["decision"] for r in body["rules"]] == ["deny"]
    assert any("failed verification" in w for w in body["warnings"])
    cached.write_bytes(head + marshal.dumps((key, data)))  # forged again: show rebuilt it
    effective._MEMO.clear()
    checked = CliRunner().invoke(main, ["policy", "check", "--project", str(repo), "--json"], catch_exceptions=False)
    assert "failed verification" in checked.output
    effective._MEMO.clear()
    assert effective.load(str(repo), dict(__import__("os").environ)).layer("user")["status"] == "trusted"


def test_doctor_flags_an_install_whose_hooks_still_obey_pasture_bin(doctor, repo: Path):
    """An install from before issue 18 recorded `${PASTURE_BIN:-<launcher>} hook lifecycle ...`."""
    settings = repo / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    for groups in doc["hooks"].values():
        for group in groups:
            for handler in group["hooks"]:
                launcher, rest = handler["command"].split(" hook lifecycle ", 1)
                assert launcher.endswith("/pasture-hook") and "PASTURE_BIN" not in launcher
                handler["command"] = f"${{PASTURE_BIN:-{launcher}}} hook lifecycle {rest}"
    settings.write_text(json.dumps(doc, indent=2))
    code, body, _ = doctor("--project", str(repo))
    old = [f for f in body["findings"] if f["check"] == "launcher" and "PASTURE_BIN" in f["message"]]
    assert code == 1 and old and old[0]["status"] == "off" and old[0]["fix"].startswith("pasture install claude-code")


def test_after_a_real_hook_ran_doctor_finds_no_tampering(repo: Path, private_home: Path):
    """Install, let a hook process compile and cache the policy, then ask doctor in a process of its
    own: the hook and doctor compile the same protected set, so the cache is not called rewritten
    (it was, whenever the hook had imported a package doctor had not: issue 28)."""
    import os
    import sys

    _policy_layers(repo, private_home)
    env = dict(os.environ)
    payload = {"session_id": "s", "cwd": str(repo), "tool_name": "Bash", "tool_input": {"command": "ls"}}
    hook = [sys.executable, "-m", "pasture.entry", "hook", "lifecycle", "--harness", "claude-code"]
    hook += ["--event", "PreToolUse", "--host-version", "2.1.332"]
    ran = subprocess.run(hook, input=json.dumps(payload).encode(), capture_output=True, env=env, cwd=repo)
    assert ran.returncode == 0, ran.stderr
    assert _cache(private_home).exists()
    doctor = [sys.executable, "-m", "pasture.entry", "doctor", "--project", str(repo), "--json"]
    done = subprocess.run(doctor + ["--root", str(REPO)], capture_output=True, env=env, cwd=repo, text=True)
    body = json.loads(done.stdout)
    tamper = _by(body, "tamper")
    assert tamper and all(f["status"] == "ok" for f in tamper), tamper


def test_the_env_block_host_is_the_one_whose_wire_declares_the_file():
    from pasture.hosts import HOSTS
    from pasture.install.envblock import host_of

    found = host_of("/p/.claude/settings.local.json", HOSTS.values())
    assert found is not None and found.name == "claude-code"
    assert host_of("/p/.codex/config.toml", HOSTS.values()) is None  # Codex hands no file's env to hooks
    assert host_of("/p/x.claude/settings.json", HOSTS.values()) is None  # a whole path part, not a suffix


def test_install_says_which_adapter_still_reads_pasture_bin(pasture, project: Path, monkeypatch):
    """The hooks name the launcher by path; the report names the adapters (a host's pasture_bin_reader) that
    still read PASTURE_BIN."""
    from pasture.hosts import HOSTS

    readers = [h.pasture_bin_reader for h in HOSTS.values() if h.pasture_bin_reader]
    assert readers == ["the OpenCode plugin", "the Cline hook files"]
    monkeypatch.setenv("PASTURE_BIN", "/somewhere/pasture")
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code in (0, 3), run
    said = " ".join(run.output.split())
    assert "PASTURE_BIN is set here (/somewhere/pasture): the installed hooks ignore it" in said
    assert "only the OpenCode plugin and the Cline hook files still read it" in said
