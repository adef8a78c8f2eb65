"""Where each host reads its adapter, and which contract to install: the host registry asked
(``HOST.target``, ``HOST.pick_contract``; the mechanics are :mod:`.places`).

| harness     | --project DIR                            | --user                                              |
|-------------|------------------------------------------|-----------------------------------------------------|
| claude-code | DIR/.claude/settings.json (merged)       | $CLAUDE_CONFIG_DIR or ~/.claude, settings.json      |
| codex       | DIR/.codex/hooks.json (merged)           | $CODEX_HOME or ~/.codex, hooks.json                 |
| opencode    | DIR/.opencode/plugins/pasture-lifecycle.ts | $XDG_CONFIG_HOME or ~/.config, opencode/plugins/… |
| pi          | DIR/.pi/extensions/pasture-lifecycle.ts  | $PI_CODING_AGENT_DIR or ~/.pi/agent, extensions/…   |

(Gemini CLI and GitHub Copilot CLI: their host modules, pasture/hosts/gemini_cli.py and copilot_cli.py.)

Codex trust always lives in the user config: ``$CODEX_HOME/config.toml``.

Contract choice: ``--contract ID`` if given; otherwise, for Claude Code and Codex, the contract that admits
the installed version (``<bin> --version``) with the highest floor, or the newest when no binary answers. For
OpenCode, whose 1.x and 2.x plugin APIs are incompatible, the installed host decides: if
``opencode --version`` answers, the newest contract of that major version; if it does not, the
newest 1.x contract (said so in the report).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from pasture.install.hostview import InstallHost
from pasture.install.places import Target, TargetError, contract_ids, version_of
from pasture.profile.versions import HostVersion

__all__ = [
    "Target",
    "TargetError",
    "choose_contract",
    "detect_host_version",
    "target_for",
]


def target_for(host: InstallHost, project: Path | None, env: Mapping[str, str]) -> Target:
    """The target for ``host``: project scope when ``project`` is a folder, user scope when None."""
    return host.target(project, env)


def detect_host_version(
    host: InstallHost, binary: str | None, env: Mapping[str, str], timeout: float = 20.0
) -> tuple[HostVersion | None, str]:
    """(version, what was run/seen) of the installed host CLI; None when it cannot be told."""
    return version_of(host.binary, binary, env, timeout, host.version_env)


def choose_contract(
    root: Path, host: InstallHost, explicit: str | None, env: Mapping[str, str], binary: str | None = None
) -> tuple[str, str]:
    """(contract id, why it was chosen): ``explicit`` if it exists; otherwise what the host picks for the
    installed version (``binary --version``, else its binary on PATH)."""
    harness = host.name
    available = contract_ids(root, harness)
    ids = [cid for _v, cid in available]
    if explicit:
        if explicit not in ids:
            raise TargetError(f"no {harness} contract {explicit!r}; known: {', '.join(ids) or 'none'}")
        return explicit, "chosen with --contract"
    if not available:
        raise TargetError(f"profiles/ under {root} holds no {harness} contract")
    version, seen = detect_host_version(host, binary, env)
    return host.pick_contract(available, version, seen)
