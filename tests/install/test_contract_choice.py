"""install picks the contract the runtime would resolve for the installed host version."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from profiles_found import admitting, contract_ids, newest
from repo_paths import REPO

from pasture.hosts import HOSTS
from pasture.install.targets import TargetError, choose_contract


def _fake(tmp_path: Path, name: str, answer: str) -> dict:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\necho '{answer}'\n")
    script.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin"}


@pytest.mark.parametrize(
    "answer,expected",
    [
        ("2.1.300 (Claude Code)", admitting("claude-code", "2.1.300")),
        *[(f"{c.partition('@')[2]} (Claude Code)", c) for c in contract_ids("claude-code")],
        ("2.2.0 (Claude Code)", newest("claude-code")),
    ],
)
def test_claude_version_picks_the_admitting_contract(tmp_path, answer, expected):
    contract, why = choose_contract(REPO, HOSTS["claude-code"], None, _fake(tmp_path, "claude", answer))
    assert contract == expected
    assert why.endswith("the contract that admits it with the highest floor")


def test_codex_too_old_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(TargetError, match=r"no codex contract admits it .*pasture capture codex"):
        choose_contract(REPO, HOSTS["codex"], None, _fake(tmp_path, "codex", "codex-cli 0.150.0"))


def test_no_binary_falls_back_to_the_newest(tmp_path):
    contract, why = choose_contract(REPO, HOSTS["codex"], None, {"PATH": str(tmp_path)})
    assert contract == newest("codex") and why.startswith("codex is not on PATH: the newest codex contract")
