"""pasture install claude-code also writes Claude Code's own permissions.deny rules for the guard's
files (defence in depth: the host refuses its file tools there even where no hook runs), merged
without touching foreign entries and removed exactly on uninstall (pasture/install/denyrules.py)."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import host_schemas
import jsonschema

from pasture.install import denyrules

SCHEMA = host_schemas.load("claude-code-settings.schema.json")
RULE = re.compile(SCHEMA["$defs"]["permissionRule"]["pattern"])


def _settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def _deny(path: Path) -> list[str]:
    return json.loads(path.read_text())["permissions"]["deny"]


def test_project_install_denies_edits_of_every_guard_path(pasture, project: Path, private_home: Path) -> None:
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    deny = _deny(_settings(project))
    real = project.resolve()
    for wanted in (
        f"Edit(/{real}/.pasture/**)",
        f"Edit(/{real}/.claude/settings.json)",
        f"Edit(/{real}/.claude/settings.local.json)",
        f"Edit(/{private_home}/.config/pasture/**)",
        f"Edit(/{private_home}/.local/state/pasture/**)",
        f"Edit(/{private_home}/.claude/settings.json)",
        "Edit(//etc/pasture/**)",
    ):
        assert wanted in deny, (wanted, deny)
    assert all(RULE.fullmatch(rule) for rule in deny), deny  # each one a rule the host's schema accepts
    jsonschema.validate({"permissions": {"deny": deny}}, SCHEMA)
    assert len(deny) == len(set(deny))


def test_a_user_policy_and_trust_store_elsewhere_get_their_own_rules(
    pasture, project: Path, tmp_path: Path, monkeypatch
) -> None:
    policy, store = tmp_path / "elsewhere" / "policy.toml", tmp_path / "state2" / "trust.json"
    monkeypatch.setenv("PASTURE_POLICY", str(policy))
    monkeypatch.setenv("PASTURE_TRUST_STORE", str(store))
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    deny = _deny(_settings(project))
    assert f"Edit(/{policy})" in deny and f"Edit(/{store})" in deny


def test_user_scope_names_project_paths_at_any_depth(pasture, private_home: Path) -> None:
    assert pasture("install", "claude-code", "--user").code == 0
    deny = _deny(private_home / ".claude" / "settings.json")
    assert {
        "Edit(**/.pasture/**)",
        "Edit(**/.claude/settings.json)",
        "Edit(**/.claude/settings.local.json)",
        f"Edit(/{private_home}/.claude/settings.json)",
    } <= set(deny)
    assert not any("nonexistent" in rule for rule in deny)


FOREIGN = {"permissions": {"allow": ["Bash(ls:*)"], "deny": ["Read(./.env)", "Bash(rm:*)"]}, "model": "opus"}


def _write(project: Path, doc: dict) -> bytes:
    path = _settings(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(doc, indent=3) + "\n").encode()
    path.write_bytes(data)
    return data


def test_foreign_entries_stay_first_and_uninstall_gives_the_bytes_back(pasture, project: Path) -> None:
    before = _write(project, FOREIGN)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    deny = _deny(_settings(project))
    assert deny[:2] == FOREIGN["permissions"]["deny"] and len(deny) > 2
    assert json.loads(_settings(project).read_text())["permissions"]["allow"] == ["Bash(ls:*)"]
    again = pasture("install", "claude-code", "--project", str(project), "--json")
    assert again.json()["files"][0]["change"] == "unchanged"  # idempotent
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert _settings(project).read_bytes() == before


def test_a_rule_the_file_already_had_is_foreign_and_survives_uninstall(pasture, project: Path) -> None:
    ours = denyrules.rules_for(project.resolve(), os.environ)[0]
    doc = {"permissions": {"deny": ["Bash(rm:*)", ours[3]]}}
    _write(project, doc)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    deny = _deny(_settings(project))
    assert deny.count(ours[3]) == 1 and deny[:2] == doc["permissions"]["deny"]
    # the user edits the file afterwards (the backup no longer matches): still only ours go
    current = json.loads(_settings(project).read_text())
    current["permissions"]["deny"].append("WebFetch")
    _settings(project).write_text(json.dumps(current, indent=2))
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    left = json.loads(_settings(project).read_text())
    assert left == {"permissions": {"deny": ["Bash(rm:*)", ours[3], "WebFetch"]}}


def test_uninstall_drops_only_the_containers_install_created(pasture, project: Path) -> None:
    _write(project, {"model": "opus"})
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert json.loads(_settings(project).read_text()) == {"model": "opus"}
    _write(project, {"permissions": {"deny": []}})
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    current = json.loads(_settings(project).read_text())
    current["model"] = "opus"  # an edit after install: uninstall cannot use the backup's bytes
    _settings(project).write_text(json.dumps(current))
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert json.loads(_settings(project).read_text()) == {"permissions": {"deny": []}, "model": "opus"}


def test_a_file_only_pasture_wrote_is_removed_with_its_deny_rules(pasture, project: Path) -> None:
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert list(project.iterdir()) == []


def test_the_record_of_what_was_added_is_private_and_goes_with_uninstall(pasture, project: Path) -> None:
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    record = denyrules.record_path(_settings(project), os.environ, "claude-deny")
    assert stat.S_IMODE(record.stat().st_mode) == 0o600 and stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    assert json.loads(record.read_text())["added"] == _deny(_settings(project))
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert not record.exists()


def test_a_deny_that_is_not_a_list_is_refused_untouched(pasture, project: Path) -> None:
    data = _write(project, {"permissions": {"deny": "Edit"}})
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 2 and "permissions.deny is not an array" in run.stderr
    assert _settings(project).read_bytes() == data
