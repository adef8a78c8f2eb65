"""The guard keeps the agent off the managed (administrator) channels ``pasture install --managed`` writes
(each host's ``GUARDED_SYSTEM_*``, the system launcher): an agent running as root must not delete or
rewrite them for the next session."""

from __future__ import annotations

import json

import pytest
from hookrun import call

from pasture.hosts import HOSTS
from pasture.runtime.hostwire.guarded import SYSTEM_LAUNCHER, modules

SYSTEM_PATHS = sorted({p for wire in modules() for p in wire.GUARDED_SYSTEM_FILES + wire.GUARDED_SYSTEM_FOLDERS})


@pytest.fixture
def project(env, tmp_path):
    root = tmp_path / "project"
    (root / ".pasture").mkdir(parents=True)
    env.update(HOME=str(tmp_path / "home"), PASTURE_POLICY=str(tmp_path / "no-user-policy.toml"))
    env.pop("PASTURE_JOURNAL")
    return root


def _claude(env, root, tool, tool_input):
    payload = {"session_id": "s", "cwd": str(root), "tool_name": tool, "tool_input": tool_input, "tool_use_id": "t"}
    _code, out, _err = call("claude-code", "PreToolUse", "2.1.328", payload, env)
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def test_every_managed_channel_path_is_guarded():
    """What each host module's managed channel writes is declared in its runtime half (one source)."""
    for name, host in HOSTS.items():
        if host.managed is None:
            continue
        for path in host.managed.paths:
            assert path in SYSTEM_PATHS or any(path.startswith(f + "/") for f in SYSTEM_PATHS), (name, path)


@pytest.mark.parametrize("path", [*SYSTEM_PATHS, SYSTEM_LAUNCHER])
def test_the_agent_may_not_remove_a_managed_file(env, project, path):
    assert _claude(env, project, "Bash", {"command": f"rm -rf {path}"}) == "deny"
    assert _claude(env, project, "Write", {"file_path": path, "content": "{}"}) == "deny"


def test_reading_them_stays_allowed(env, project):
    assert _claude(env, project, "Bash", {"command": f"cat {SYSTEM_PATHS[0]}"}) == "proceed"
    # and a file of the same name elsewhere is not the guard's business
    elsewhere = str(project / "etc" / "claude-code" / "managed-settings.json")
    assert _claude(env, project, "Write", {"file_path": elsewhere, "content": "{}"}) == "proceed"
