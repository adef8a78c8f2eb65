"""Run the real agent hosts (Claude Code, Codex CLI, OpenCode) offline against scripted fake models.

* :mod:`.npm_tools`: install the pinned hosts from ``tests/npm/`` (``ensure_npm_tools``).
* :mod:`.fake_models`: scripted fake model servers on 127.0.0.1, one per wire protocol.
* :mod:`pasture.hosts`: one launcher per host (flags, config files, env, trust settings).
* :mod:`.runner`: one isolated headless host run (``prepare_run(...).execute(script)``).
* :mod:`pasture.hosts.recorder`: the recording command hook (a plugin host's recording plugin is in its
  host module).
* :mod:`.netns`: the network namespace the host and its fake share.
"""

from pasture.hostenv.fake_models import FakeModelServer, Script, ToolCall, Turn, parse_sse
from pasture.hostenv.netns import Isolation, isolation_support
from pasture.hostenv.npm_tools import (
    HOST_PACKAGES,
    NpmInstallError,
    NpmUnavailable,
    ensure_npm_tools,
    host_binary,
    host_version,
    npm_available,
)
from pasture.hostenv.runner import DEFAULT_PROMPT, HostRun, HostRunResult, prepare_run, run_host
from pasture.hosts import LAUNCHERS, RunLayout, launcher_for
from pasture.hosts.recorder import install_recorder, read_records, recorder_command

__all__ = [
    "DEFAULT_PROMPT",
    "HOST_PACKAGES",
    "LAUNCHERS",
    "FakeModelServer",
    "HostRun",
    "HostRunResult",
    "Isolation",
    "NpmInstallError",
    "NpmUnavailable",
    "RunLayout",
    "Script",
    "ToolCall",
    "Turn",
    "ensure_npm_tools",
    "host_binary",
    "host_version",
    "install_recorder",
    "isolation_support",
    "launcher_for",
    "npm_available",
    "parse_sse",
    "prepare_run",
    "read_records",
    "recorder_command",
    "run_host",
]
