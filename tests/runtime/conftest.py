from __future__ import annotations

import os

import pytest
from hookrun import DENY_PROBE, write_policy


@pytest.fixture
def env(tmp_path):
    """A hook environment with its own journal and the deny-probe policy."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PASTURE_", "CLAUDE_"))}
    # the suite's own XDG_STATE_HOME (tests/conftest.py) would move the state folder the guard protects
    # away from where these tests name it (~/.local/state/pasture); nothing here writes there
    base.pop("XDG_STATE_HOME", None)
    base["PASTURE_JOURNAL"] = str(tmp_path / "journal.sqlite3")
    base["PASTURE_POLICY"] = str(write_policy(tmp_path, DENY_PROBE))
    # Never the machine's own managed policy, trust store or cache.
    base["PASTURE_MANAGED_POLICY"] = str(tmp_path / "managed-policy.toml")
    base["PASTURE_TRUST_STORE"] = str(tmp_path / "state" / "trust.json")
    base["PASTURE_CACHE_DIR"] = str(tmp_path / "cache")
    return base


# The pack the structured-rule tests run against: fixed here, so they test the engine whatever the
# shipped packs (pasture/packs/*.toml) hold.
SAMPLE_PACK = """
[pack]
name = "git"
version = 1
recommended = true
description = "History- and work-tree-destroying git commands (test sample)."

[[rules]]
id = "git.push-force"
decision = "deny"
reason = "Force-pushing rewrites the remote's history."
instead = "git push --force-with-lease"
[rules.run]
program = "git"
subcommand = "push"
options = [["-f", "--force"]]
without = ["--force-with-lease", "--force-if-includes"]

[[rules]]
id = "git.reset-hard"
decision = "deny"
reason = "git reset --hard discards uncommitted changes for good."
instead = "git stash"
[rules.run]
program = "git"
subcommand = "reset"
options = ["--hard"]
"""


@pytest.fixture
def sample_pack(tmp_path, monkeypatch):
    """The packs folder holds SAMPLE_PACK only (pasture.runtime.packs.folder), nothing compiled in memory."""
    from pasture.runtime import effective, packs

    folder = tmp_path / "sample-packs"
    folder.mkdir()
    (folder / "git.toml").write_text(SAMPLE_PACK)
    monkeypatch.setattr(packs, "folder", lambda: str(folder))
    monkeypatch.setattr(packs, "_CATALOG", {})
    effective._MEMO.clear()
    return folder
