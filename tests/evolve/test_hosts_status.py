"""`pasture host status`: discovery order, versions, and the hook runtime's resolution rule."""

from __future__ import annotations

import json
import os

import pytest
from hosts_support import REPO, fake_host
from loading import load_project

from pasture.evolve import status as st
from pasture.profile.versions import HostVersion
from pasture.runtime.tables import resolve as runtime_resolve


@pytest.fixture(scope="module")
def contracts():
    return load_project(REPO)


@pytest.mark.parametrize(
    "harness,version",
    [
        ("claude-code", "2.1.261"),
        ("claude-code", "2.1.300"),
        ("claude-code", "2.1.328"),
        ("claude-code", "9.0.0"),
        ("claude-code", "2.1.0"),
        ("codex", "0.153.0"),
        ("codex", "0.171.0"),
        ("codex", "0.171.1-alpha.1"),
        ("opencode", "1.18.29"),
        ("opencode", "1.18.33"),
        ("opencode", "1.19.0"),
        ("opencode", "2.0.20"),
        ("opencode", "2.1.0"),
        ("opencode", "1.0.0"),
    ],
)
def test_resolution_agrees_with_the_hook_runtime(contracts, harness, version):
    ours = st.resolve(contracts, harness, version).winner
    theirs = runtime_resolve(harness, version, "x").contract
    assert (ours.id if ours else None) == theirs


def test_lookup_order_flag_env_path_cache_without_duplicates(tmp_path):
    flag = fake_host(tmp_path / "flag", "claude", "2.1.300 (Claude Code)")
    env_bin = fake_host(tmp_path / "env", "claude-dev", "2.1.301 (Claude Code)")
    on_path = fake_host(tmp_path / "path", "claude", "2.1.302 (Claude Code)")
    env = {"PASTURE_CLAUDE_BIN": str(env_bin), "PATH": f"{on_path.parent}{os.pathsep}/usr/bin"}
    found = st.candidates("claude-code", tmp_path, flag, env)
    assert found == [(flag, "--claude-bin"), (env_bin, "$PASTURE_CLAUDE_BIN"), (on_path, "PATH")]
    # The same binary named twice is reported once, under its first source.
    again = st.candidates("claude-code", tmp_path, on_path, env)
    assert [how for _, how in again] == ["--claude-bin", "$PASTURE_CLAUDE_BIN"]


def test_status_names_the_admitting_contract_in_its_own_words(pasture, project, tmp_path, no_hosts_on_path):
    claude = fake_host(tmp_path / "b", "claude", "2.1.300 (Claude Code)")
    result = pasture("--root", project, "host", "status", "--claude-bin", claude, "--json", env=no_hosts_on_path)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    (entry,) = [h for h in doc["hosts"] if h["harness"] == "claude-code"]
    contracts = {c.id: c for c in load_project(project)}
    winner = st.resolve(list(contracts.values()), "claude-code", "2.1.300").winner
    assert entry["version"] == "2.1.300" and entry["contract"] == winner.id
    assert entry["admission"] == winner.admission.describe()
    assert entry["found_by"] == "--claude-bin"
    assert set(doc["not_found"]) == {"codex", "opencode", "gemini-cli", "copilot-cli", "pi", "qwen-code", "cline"}


def test_status_says_what_to_do_when_no_contract_admits(pasture, project, tmp_path, no_hosts_on_path):
    codex = fake_host(tmp_path / "b", "codex", "codex-cli 0.100.0")
    result = pasture("--root", project, "host", "status", "--codex-bin", codex, env=no_hosts_on_path)
    assert result.exit_code == 1
    text = result.stdout
    assert "codex 0.100.0" in text and "contract: none" in text
    assert "no pinned contract admits codex 0.100.0" in text
    assert f"pasture capture codex --host-bin {codex}" in text
    assert "pasture profile new codex 0.100.0 --from codex@0.153.0 --capture captures/codex@0.100.0" in text
    # the admission text comes from the contract itself
    assert "codex@0.153.0 admits at or above 0.153.0" in text


def test_status_reports_a_binary_whose_version_cannot_be_read(pasture, project, tmp_path, no_hosts_on_path):
    broken = fake_host(tmp_path / "b", "opencode", "no version here")
    result = pasture("--root", project, "host", "status", "--opencode-bin", broken, "--json", env=no_hosts_on_path)
    assert result.exit_code == 1
    (entry,) = json.loads(result.stdout)["hosts"]
    assert entry["version"] is None and "cannot read its version" in entry["error"]
    missing = pasture("--root", project, "host", "status", "--opencode-bin", tmp_path / "nope", env=no_hosts_on_path)
    assert "does not exist" in missing.stdout


def test_closest_contract_is_the_newest_recorded_below(contracts):
    v = HostVersion.parse
    newest_1x = max(
        (c for c in contracts if c.harness.value == "opencode" and c.version.major == 1), key=lambda c: c.version
    )
    assert st.closest_contract(contracts, "opencode", "1.19.0") is newest_1x
    assert st.closest_contract(contracts, "opencode", "2.1.0").id == "opencode@2.0.20"
    oldest_codex = min((c for c in contracts if c.harness.value == "codex"), key=lambda c: c.version)
    assert st.closest_contract(contracts, "codex", "0.1.0") is oldest_codex
    assert v("0.1.0") < oldest_codex.version


def test_status_knows_gemini_cli(pasture, project, tmp_path, no_hosts_on_path):
    gemini = fake_host(tmp_path / "g", "gemini", "0.61.0")
    result = pasture("--root", project, "host", "status", "--gemini-bin", gemini, "--json", env=no_hosts_on_path)
    assert result.exit_code == 0, result.output
    (entry,) = [h for h in json.loads(result.stdout)["hosts"] if h["harness"] == "gemini-cli"]
    assert (entry["version"], entry["contract"], entry["found_by"]) == ("0.61.0", "gemini-cli@0.61.0", "--gemini-bin")
    older = fake_host(tmp_path / "o", "gemini", "0.60.9")
    result = pasture("--root", project, "host", "status", "--gemini-bin", older, env=no_hosts_on_path)
    assert result.exit_code == 1 and "gemini-cli" in result.stdout
