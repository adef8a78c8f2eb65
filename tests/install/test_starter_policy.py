"""`pasture install` writes a starter user policy naming the recommended packs when the user has none (issue 26)."""

from __future__ import annotations

from pathlib import Path


def test_install_writes_a_starter_user_policy_once_and_says_so(pasture, project: Path, private_home: Path) -> None:
    policy = private_home / ".config" / "pasture" / "policy.toml"
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 0, run
    assert policy.read_text().splitlines()[-1] == 'packs = ["recommended"]'
    assert f"created   {policy} — a starter user policy (you had none)" in run.stdout
    policy.write_text("packs = []\n")  # the user's own choice is never touched again
    run = pasture("install", "claude-code", "--project", str(project), "--json")
    assert run.code == 0, run
    assert run.json()["starter_policy"] is None and policy.read_text() == "packs = []\n"


def test_the_starter_policy_goes_where_the_runtime_reads_it(pasture, project: Path, tmp_path: Path) -> None:
    chosen = tmp_path / "elsewhere" / "mine.toml"
    run = pasture("install", "claude-code", "--project", str(project), "--json", env={"PASTURE_POLICY": str(chosen)})
    assert run.code == 0, run
    assert run.json()["starter_policy"] == str(chosen) and 'packs = ["recommended"]' in chosen.read_text()
