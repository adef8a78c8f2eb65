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
