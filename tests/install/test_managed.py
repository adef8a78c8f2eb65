"""``pasture install|uninstall <host> --managed [--managed-root DIR]`` and ``pasture doctor --managed``
(issue 28): the managed artifacts byte for byte (expected files under tests/install/managed_expected/),
foreign content of the system files byte-identical after install + uninstall, the refusals, and what
doctor says about a lock-out that holds or does not. The real hosts honouring the payload:
tests/realhost/test_managed_real_hosts.py."""

from __future__ import annotations

import difflib
import json
import os
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from pasture.cli import main
from pasture.hosts import HOSTS

REPO = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).parent / "managed_expected"
MANAGED = [name for name, host in HOSTS.items() if host.managed is not None]
TOKEN = "0123456789abcdef"  # Gemini CLI's hook-name token, fixed here for the exact bytes


@pytest.fixture(autouse=True)
def fixed_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("pasture.install.managed_json.secrets.token_hex", lambda n: TOKEN[: 2 * n])


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The managed root (the private HOME of conftest is beside it, never below it)."""
    folder = tmp_path / "system"
    folder.mkdir()
    return folder


def cli(*args: str) -> tuple[int, str, str]:
    argv = list(args)
    if argv[0] == "install":
        argv += ["--root", str(REPO)]
    result = CliRunner().invoke(main, argv, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def install(host: str, root: Path, *extra: str) -> tuple[int, str, str]:
    return cli("install", host, "--managed", "--managed-root", str(root), *extra)


def uninstall(host: str, root: Path) -> tuple[int, str, str]:
    return cli("uninstall", host, "--managed", "--managed-root", str(root))


def written(root: Path) -> dict[str, bytes]:
    """Every file below ``root`` but the launcher (its bytes name this interpreter) and backups."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_file() and not rel.startswith("usr/") and not rel.endswith(".pasture-backup"):
            out[rel] = path.read_bytes()
    return out


def _diff(want: bytes, got: bytes, name: str) -> str:
    return "".join(
        difflib.unified_diff(
            want.decode().splitlines(True), got.decode().splitlines(True), f"expected/{name}", f"written/{name}"
        )
    )


# --- exact bytes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", MANAGED)
def test_the_managed_artifacts_are_exactly_the_expected_bytes(host, root):
    """Into an empty root. ``PASTURE_UPDATE_EXPECTED=1`` rewrites the expected files (read their diff)."""
    code, out, err = install(host, root)
    assert code == 0, out + err
    got = written(root)
    folder = EXPECTED / host
    if os.environ.get("PASTURE_UPDATE_EXPECTED") == "1":
        for rel, data in got.items():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(data)
    want = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    assert sorted(got) == sorted(want)
    for rel in want:
        assert got[rel] == want[rel], _diff(want[rel], got[rel], rel)
    launcher = root / "usr/local/lib/pasture/bin/pasture-hook"
    assert launcher.is_file() and os.access(launcher, os.X_OK)


@pytest.mark.parametrize("host", MANAGED)
def test_a_second_install_changes_nothing(host, root):
    assert install(host, root)[0] == 0
    before = written(root)
    code, out, _ = install(host, root, "--json")
    assert code == 0
    assert {f["change"] for f in json.loads(out)["files"]} == {"unchanged"}
    assert written(root) == before


# --- foreign content --------------------------------------------------------------------------------

FOREIGN = {
    "claude-code": {
        "etc/claude-code/managed-settings.json": (
            '{\n    "model": "opus",\n    "allowManagedHooksOnly": false,\n    "env": {"FOO": "1"},\n'
            '    "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/audit stop"}]}]}\n}\n'
        ),
    },
    "codex": {
        "etc/codex/requirements.toml": (
            '# the organisation\'s requirements\nallowed_approval_policies = ["on-request"]\n\n'
            '[[hooks.PreToolUse]]\nmatcher = "Bash"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\n'
            'command = "/opt/audit pre"\n'
        ),
    },
    "gemini-cli": {
        "etc/gemini-cli/settings.json": (
            '{"general": {"vimMode": true}, "hooksConfig": {"disabled": ["legacy"]},\n'
            ' "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "name": "audit", "command": "/opt/audit"}]}]}}'
        ),
    },
    "copilot-cli": {
        "etc/github-copilot/managed-settings.json": '{\r\n  "allowedMcpServers": ["github"]\r\n}\r\n',
        "etc/github-copilot/policy.d/audit.json": '{"version": 1, "hooks": {}}\n',
    },
    "qwen-code": {
        "etc/qwen-code/settings.json": (
            '{"disableAllHooks": true, "security": {"auth": {"selectedType": "openai"}},\n'
            ' "hooks": {"PreToolUse": [{"matcher": "^run_shell_command$", "hooks": [{"type": "command", '
            '"command": "/opt/audit"}]}]}}'
        ),
    },
}


@pytest.mark.parametrize("host", MANAGED)
def test_foreign_content_is_byte_identical_after_install_and_uninstall(host, root):
    for rel, text in FOREIGN[host].items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    code, out, err = install(host, root)
    assert code == 0, out + err
    hooks_file = HOSTS[host].managed.hooks_file(root, {})
    assert "pasture-hook hook lifecycle" in hooks_file.read_text()
    code, out, err = uninstall(host, root)
    assert code == 0, out + err
    assert written(root) == {rel: text.encode() for rel, text in FOREIGN[host].items()}


def test_claude_code_keeps_the_foreign_hooks_and_sets_the_lock_out(root):
    rel = "etc/claude-code/managed-settings.json"
    (root / rel).parent.mkdir(parents=True)
    (root / rel).write_text(FOREIGN["claude-code"][rel])
    assert install("claude-code", root)[0] == 0
    doc = json.loads((root / rel).read_text())
    assert doc["allowManagedHooksOnly"] is True and doc["model"] == "opus"
    assert doc["env"] == {"FOO": "1", "CLAUDE_CODE_SHELL_PREFIX": ""}
    assert doc["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "/opt/audit stop"}]}


def test_an_administrators_own_shell_prefix_stays(root):
    rel = root / "etc/claude-code/managed-settings.json"
    rel.parent.mkdir(parents=True)
    rel.write_text('{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/opt/wrap"}}\n')
    assert install("claude-code", root)[0] == 0
    assert json.loads(rel.read_text())["env"] == {"CLAUDE_CODE_SHELL_PREFIX": "/opt/wrap"}
    assert uninstall("claude-code", root)[0] == 0
    assert rel.read_text() == '{"env": {"CLAUDE_CODE_SHELL_PREFIX": "/opt/wrap"}}\n'


def test_codex_requirements_parse_to_the_foreign_document_plus_ours(root):
    rel = "etc/codex/requirements.toml"
    (root / rel).parent.mkdir(parents=True)
    (root / rel).write_text(FOREIGN["codex"][rel])
    assert install("codex", root)[0] == 0
    doc = tomllib.loads((root / rel).read_text())
    assert doc["allow_managed_hooks_only"] is True and doc["features"] == {"hooks": True}
    assert doc["allowed_approval_policies"] == ["on-request"]
    pre = doc["hooks"]["PreToolUse"]
    assert pre[0]["hooks"][0]["command"] == "/opt/audit pre"
    assert pre[1]["hooks"][0]["command"].startswith("/usr/local/lib/pasture/bin/pasture-hook hook lifecycle ")


@pytest.mark.parametrize(
    "text, says",
    [
        ("allow_managed_hooks_only = false\n", "allow_managed_hooks_only = false"),
        ("[features]\nweb_search = false\n", "features.hooks = true"),
        ("hooks = { PreToolUse = [] }\n", "cannot be added"),
    ],
    ids=["flag-false", "features-table", "inline-hooks"],
)
def test_codex_refuses_a_requirements_file_it_cannot_add_to_and_writes_nothing(root, text, says):
    rel = root / "etc/codex/requirements.toml"
    rel.parent.mkdir(parents=True)
    rel.write_text(text)
    code, out, err = install("codex", root)
    assert code == 2 and says in err, out + err
    assert rel.read_text() == text and not rel.with_name(rel.name + ".pasture-backup").exists()


def test_gemini_cli_hook_names_carry_a_token_kept_across_reinstalls(root, monkeypatch):
    assert install("gemini-cli", root)[0] == 0
    path = root / "etc/gemini-cli/settings.json"
    names = [h["name"] for gs in json.loads(path.read_text())["hooks"].values() for g in gs for h in g["hooks"]]
    assert names and all(n.startswith("pasture-") and n.endswith(f"-{TOKEN}") for n in names)
    monkeypatch.setattr("pasture.install.managed_json.secrets.token_hex", lambda n: "f" * 2 * n)
    assert install("gemini-cli", root)[0] == 0
    again = [h["name"] for gs in json.loads(path.read_text())["hooks"].values() for g in gs for h in g["hooks"]]
    assert again == names


def test_gemini_cli_follows_its_system_settings_variable(root, monkeypatch):
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "/opt/gemini/system.json")
    assert install("gemini-cli", root)[0] == 0
    assert (root / "opt/gemini/system.json").is_file() and not (root / "etc/gemini-cli").exists()


def test_copilot_cli_refuses_a_policy_file_that_is_not_ours(root):
    path = root / "etc/github-copilot/policy.d/pasture.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "hooks": {}}\n')
    code, out, err = install("copilot-cli", root)
    assert code == 2 and "is not pasture's" in err
    assert path.read_text() == '{"version": 1, "hooks": {}}\n'


# --- hosts without a channel, usage --------------------------------------------------------------------


@pytest.mark.parametrize("host", [name for name in HOSTS if name not in MANAGED])
@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_a_host_without_a_managed_channel_refuses_in_one_line(host, verb, root):
    code, out, err = cli(verb, host, "--managed", "--managed-root", str(root))
    assert code == 2 and out == ""
    assert err == (
        f"error: {HOSTS[host].display_name} has no managed (administrator) channel that pasture can lock: "
        f"install for the user instead: pasture install {host} --user\n"
    )
    assert list(root.iterdir()) == []


@pytest.mark.parametrize(
    "args, says",
    [
        (["--managed", "--user"], "--managed excludes --project and --user"),
        (["--managed-root", "/tmp"], "--managed-root applies to --managed"),
        (["--managed", "--trust-project"], "apply to --project and --user installs"),
        (["--managed", "--follow-symlinks"], "--follow-symlinks applies to --project"),
    ],
)
def test_usage_errors(args, says):
    code, _out, err = cli("install", "gemini-cli", *args)
    assert code == 2 and says in err


# --- doctor -------------------------------------------------------------------------------------------


def doctor(root: Path, project: Path, *extra: str) -> tuple[int, dict]:
    argv = ["doctor", "--project", str(project), "--managed-root", str(root), "--root", str(REPO), "--json", *extra]
    result = CliRunner().invoke(main, argv, catch_exceptions=False)
    return result.exit_code, json.loads(result.stdout)


def _findings(body: dict, host: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in body["findings"]:
        if f["host"] == host and f["check"].startswith("managed"):
            out.setdefault(f["check"], []).append(f["status"])
    return out


@pytest.mark.parametrize("host", MANAGED)
def test_doctor_reports_a_managed_install_and_its_lock_out(host, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    root = tmp_path / "system"
    root.mkdir()
    assert install(host, root)[0] == 0
    code, body = doctor(root, project)
    found = _findings(body, host)
    assert found["managed"] == ["ok"] and found["managed-lockout"] == ["ok"], body
    assert found["managed-launcher"] == ["ok"], body
    assert found.get("managed-gap", []) == ["warn"] * len(HOSTS[host].managed.gaps)
    assert code == 0, body  # the managed install counts as installed: nothing is off
    assert host not in body.get("absent", [])


@pytest.mark.parametrize(
    "host, rel, flip",
    [
        (
            "claude-code",
            "etc/claude-code/managed-settings.json",
            ('"allowManagedHooksOnly": true', '"allowManagedHooksOnly": false'),
        ),
        ("codex", "etc/codex/requirements.toml", ("features.hooks = true\n", "")),
        ("gemini-cli", "etc/gemini-cli/settings.json", ('"enabled": true', '"enabled": false')),
        ("copilot-cli", "etc/github-copilot/managed-settings.json", ("true", "false")),
        ("qwen-code", "etc/qwen-code/settings.json", ('"disableAllHooks": false', '"disableAllHooks": true')),
    ],
)
def test_doctor_says_off_when_the_lock_out_does_not_hold(host, rel, flip, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    root = tmp_path / "system"
    root.mkdir()
    assert install(host, root)[0] == 0
    path = root / rel
    text = path.read_text()
    assert flip[0] in text
    path.write_text(text.replace(flip[0], flip[1], 1))
    code, body = doctor(root, project)
    (lock,) = [f for f in body["findings"] if f["host"] == host and f["check"] == "managed-lockout"]
    assert (
        lock["status"] == "off" and lock["fix"] == f"pasture install {host} --managed --managed-root {root}  (as root)"
    )
    assert code == 1


def test_doctor_says_off_when_the_managed_launcher_is_gone(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    root = tmp_path / "system"
    root.mkdir()
    assert install("claude-code", root)[0] == 0
    (root / "usr/local/lib/pasture/bin/pasture-hook").unlink()
    code, body = doctor(root, project)
    assert _findings(body, "claude-code")["managed-launcher"] == ["off"] and code == 1


def test_doctor_managed_names_the_hosts_without_a_channel_and_without_an_install(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    code, body = doctor(tmp_path, project, "--managed")
    for host in HOSTS:
        (finding,) = [f for f in body["findings"] if f["host"] == host and f["check"] == "managed"]
        assert finding["status"] == "warn"
        if host in MANAGED:
            assert finding["fix"] == f"pasture install {host} --managed --managed-root {tmp_path}  (as root)"
        else:
            assert "no managed (administrator) channel" in finding["message"]
            assert finding["fix"] == f"pasture install {host} --user"
    code, body = doctor(tmp_path, project, "--managed", "--host", "pi")
    (finding,) = [f for f in body["findings"] if f["check"] == "managed"]
    assert finding["status"] == "off" and code == 1


def test_doctor_without_managed_installs_says_nothing_about_them(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _code, body = doctor(tmp_path, project)
    assert not [f for f in body["findings"] if f["check"].startswith("managed")]


def test_doctor_warns_about_a_host_older_than_the_version_the_channel_was_read_in(tmp_path, root, monkeypatch):
    project = tmp_path / "project"
    project.mkdir()
    assert install("claude-code", root)[0] == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text("#!/bin/sh\necho '2.1.100 (Claude Code)'\n")
    (bin_dir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    code, body = doctor(root, project)
    (old,) = [f for f in body["findings"] if f["check"] == "managed-version"]
    assert old["status"] == "warn" and "older than 2.1.332" in old["message"]
    assert old["fix"].endswith("pasture install claude-code --user") and code == 0


def test_doctor_says_off_for_a_broken_managed_file_only_when_it_holds_our_hooks(tmp_path, root):
    project = tmp_path / "project"
    project.mkdir()
    foreign = root / "etc/codex/requirements.toml"
    foreign.parent.mkdir(parents=True)
    foreign.write_text("not = [valid\n")  # someone else's broken file: not pasture's to report
    _code, body = doctor(root, project)
    assert not [f for f in body["findings"] if f["check"].startswith("managed")]
    assert install("claude-code", root)[0] == 0
    settings = root / "etc/claude-code/managed-settings.json"
    settings.write_text(settings.read_text()[:-3])  # ours, cut short: Claude Code cannot read it either
    code, body = doctor(root, project)
    (broken,) = [f for f in body["findings"] if f["check"] == "managed"]
    assert broken["status"] == "off" and broken["host"] == "claude-code" and code == 1


def test_a_launcher_other_users_cannot_run_is_named():
    """The managed hooks run as every user: a Python or a pasture below a private folder fails for them."""
    import tempfile

    from pasture.install.managed import private_paths

    with tempfile.TemporaryDirectory() as top:  # pytest's own temp folders are private (0700)
        base = Path(top)
        base.chmod(0o755)
        private = base / "private"
        (private / "venv").mkdir(parents=True)
        private.chmod(0o700)
        secret = base / "python"
        secret.write_text("")
        secret.chmod(0o700)
        shared = base / "pasture"
        shared.mkdir()
        shared.chmod(0o755)
        assert private_paths([str(private / "venv"), str(secret), str(shared)]) == [str(private), str(secret)]
        assert private_paths([str(shared)]) == []
