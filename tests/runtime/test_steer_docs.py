"""docs/policy.md's steering example (moved from the README, issue 30): its policy is the issue's, and its
matrix is what `pasture policy check` prints."""

from __future__ import annotations

import re

from click.testing import CliRunner
from repo_paths import REPO

from pasture.cli import main

USER = "~/.config/pasture/policy.toml"


def _blocks() -> tuple[str, str]:
    text = (REPO / "docs" / "policy.md").read_text(encoding="utf-8")
    at = text.index("**A policy that steers, not only refuses.**")
    policy = re.search(r"```toml\n(.*?)```", text[at:], re.S)
    matrix = re.search(r"<!-- steer-matrix:[^\n]*-->\n```text\n(.*?)```", text[at:], re.S)
    assert policy and matrix, "docs/policy.md lost its steering example"
    return policy.group(1), matrix.group(1)


def test_the_readme_matrix_is_what_policy_check_prints_for_the_readme_policy(tmp_path, monkeypatch):
    policy, matrix = _blocks()
    path = tmp_path / "policy.toml"
    path.write_text(policy, encoding="utf-8")
    env = {
        "PASTURE_POLICY": str(path),
        "PASTURE_MANAGED_POLICY": str(tmp_path / "managed.toml"),
        "PASTURE_TRUST_STORE": str(tmp_path / "state" / "trust.json"),
        "PASTURE_CACHE_DIR": str(tmp_path / "cache"),
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    (tmp_path / "project").mkdir()
    result = CliRunner().invoke(main, ["policy", "check", "--project", str(tmp_path / "project")])
    assert result.exit_code == 0, result.output
    assert result.output.replace(str(path), USER) == matrix


def test_the_readme_policy_uses_all_five_answers():
    policy, matrix = _blocks()
    for table in ('decision = "allow"', 'decision = "rewrite"', "[[context]]", "[[after]]", "[[until]]"):
        assert table in policy
    heads = [line.split(":")[0] for line in matrix.splitlines() if line and not line.startswith((" ", "answers", "ok"))]
    assert heads == ["allow", "rewrite", "context", "feedback", "continue"]
    assert "CANNOT" in matrix


def test_policy_show_lists_the_steering_entries_with_their_lines(tmp_path, monkeypatch):
    policy, _ = _blocks()
    path = tmp_path / "policy.toml"
    path.write_text(policy, encoding="utf-8")
    monkeypatch.setenv("PASTURE_POLICY", str(path))
    monkeypatch.setenv("PASTURE_MANAGED_POLICY", str(tmp_path / "managed.toml"))
    monkeypatch.setenv("PASTURE_TRUST_STORE", str(tmp_path / "state" / "trust.json"))
    monkeypatch.setenv("PASTURE_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "project").mkdir()
    result = CliRunner().invoke(main, ["policy", "show", "--project", str(tmp_path / "project")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "context  [user:18] status on session-start: git status --short" in lines
    assert "after    [user:23] ruff: ruff check {file_path}" in lines
    assert "until    [user:29] tests: pytest -q (max 3)" in lines
