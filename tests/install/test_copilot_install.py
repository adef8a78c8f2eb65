"""`pasture install copilot-cli`: project scope writes .github/hooks/pasture.json (a file of our own beside the
repository's hooks files) and handles Copilot's folder trust, without which Copilot runs no project hook and
says nothing; user scope merges inline hooks into ~/.copilot/settings.json without touching foreign ones.
Uninstall gives every foreign file back byte for byte. `pasture doctor` says off for an untrusted folder."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from repo_paths import REPO

from pasture.cli import main

FOREIGN_HOOKS = '{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"echo theirs","timeoutSec":5}]}}\n'
FOREIGN_SETTINGS = (
    '{\n    "model": "gpt-5",\n    "hooks": {\n        "preToolUse": [\n            {"type": "command", '
    '"bash": "echo mine", "timeoutSec": 5}\n        ]\n    }\n}\n'
)


def _cli(*args: str):
    argv = list(args)
    if argv[0] in ("install", "doctor"):
        argv += ["--root", str(REPO)]
    return CliRunner().invoke(main, argv, catch_exceptions=False)


def _hooks(path: Path) -> dict:
    return json.loads(path.read_text())["hooks"]


def test_project_install_is_loud_until_the_folder_is_trusted_then_uninstall_leaves_foreign_files(
    project: Path, private_home: Path
) -> None:
    theirs = project / ".github" / "hooks" / "theirs.json"
    theirs.parent.mkdir(parents=True)
    theirs.write_text(FOREIGN_HOOKS)
    ours = project / ".github" / "hooks" / "pasture.json"

    untrusted = _cli("install", "copilot-cli", "--project", str(project))
    assert untrusted.exit_code == 3, untrusted.output
    assert "runs no project hook in a folder it does not trust" in untrusted.stderr
    assert "--trust-project" in untrusted.stderr
    assert list(_hooks(ours)) == [
        "sessionStart", "sessionEnd", "userPromptSubmitted", "userPromptTransformed", "preToolUse",
        "preMcpToolCall", "postToolUse", "postToolUseFailure", "errorOccurred", "agentStop", "subagentStop",
        "subagentStart",
    ]  # fmt: skip
    assert (
        "pasture-hook hook lifecycle --harness copilot-cli --event preToolUse" in _hooks(ours)["preToolUse"][0]["bash"]
    )
    doctor = _cli("doctor", "--project", str(project))
    assert "copilot-trust" in doctor.output and "does not trust" in doctor.output, doctor.output
    assert doctor.exit_code != 0

    trusted = _cli("install", "copilot-cli", "--project", str(project), "--trust-project")
    assert trusted.exit_code == 0, trusted.output
    config = json.loads((private_home / ".copilot" / "config.json").read_text())
    assert config["trustedFolders"] == [str(project.resolve())]
    doctor = _cli("doctor", "--project", str(project))
    assert "is a trusted folder" in doctor.output, doctor.output

    gone = _cli("uninstall", "copilot-cli", "--project", str(project))
    assert gone.exit_code == 0, gone.output
    assert not ours.exists() and theirs.read_text() == FOREIGN_HOOKS


def test_user_install_merges_into_settings_and_uninstall_gives_the_bytes_back(private_home: Path) -> None:
    settings = private_home / ".copilot" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(FOREIGN_SETTINGS)
    done = _cli("install", "copilot-cli", "--user")
    assert done.exit_code == 0, done.output  # user-level hooks need no folder trust
    doc = json.loads(settings.read_text())
    assert doc["model"] == "gpt-5" and "version" not in doc
    pre = doc["hooks"]["preToolUse"]
    assert pre[0] == {"type": "command", "bash": "echo mine", "timeoutSec": 5}  # foreign first, untouched
    assert "--event preToolUse" in pre[1]["bash"] and len(pre) == 2
    assert settings.read_text().startswith('{\n    "model"')  # the file's own indent kept
    again = _cli("install", "copilot-cli", "--user")
    assert again.exit_code == 0 and len(json.loads(settings.read_text())["hooks"]["preToolUse"]) == 2
    gone = _cli("uninstall", "copilot-cli", "--user")
    assert gone.exit_code == 0, gone.output
    assert settings.read_text() == FOREIGN_SETTINGS


def test_user_install_into_no_settings_and_uninstall_removes_what_it_made(private_home: Path) -> None:
    settings = private_home / ".copilot" / "settings.json"
    assert _cli("install", "copilot-cli", "--user").exit_code == 0
    assert set(json.loads(settings.read_text())) == {"hooks"}
    assert _cli("uninstall", "copilot-cli", "--user").exit_code == 0
    assert not settings.exists()


FOREIGN_CONFIG = '{\n  "theme": "dark",\n  "trustedFolders": [\n    "/srv/other"\n  ]\n}\n'


def test_uninstall_removes_the_folder_trust_install_added_and_only_that(project: Path, private_home: Path) -> None:
    config = private_home / ".copilot" / "config.json"
    config.parent.mkdir()
    config.write_text(FOREIGN_CONFIG)
    assert _cli("install", "copilot-cli", "--project", str(project), "--trust-project").exit_code == 0
    assert json.loads(config.read_text())["trustedFolders"] == ["/srv/other", str(project.resolve())]
    gone = _cli("uninstall", "copilot-cli", "--project", str(project))
    assert gone.exit_code == 0, gone.output
    assert config.read_text() == FOREIGN_CONFIG  # the repository's own hooks are no longer trusted
    assert "trust" in gone.output


def test_uninstall_keeps_a_trust_the_user_had_recorded_before(project: Path, private_home: Path) -> None:
    config = private_home / ".copilot" / "config.json"
    config.parent.mkdir()
    mine = json.dumps({"trustedFolders": [str(project.resolve())]}) + "\n"
    config.write_text(mine)
    assert _cli("install", "copilot-cli", "--project", str(project), "--trust-project").exit_code == 0
    assert _cli("uninstall", "copilot-cli", "--project", str(project)).exit_code == 0
    assert config.read_text() == mine


def test_uninstall_after_more_trust_was_added_removes_only_ours(project: Path, private_home: Path) -> None:
    config = private_home / ".copilot" / "config.json"
    config.parent.mkdir()
    config.write_text(FOREIGN_CONFIG)
    assert _cli("install", "copilot-cli", "--project", str(project), "--trust-project").exit_code == 0
    doc = json.loads(config.read_text())
    doc["trustedFolders"].append("/srv/later")
    config.write_text(json.dumps(doc, indent=2) + "\n")
    assert _cli("uninstall", "copilot-cli", "--project", str(project)).exit_code == 0
    assert json.loads(config.read_text()) == {"theme": "dark", "trustedFolders": ["/srv/other", "/srv/later"]}
