"""One launcher per host: flags, config files, env and trust settings, each in its own module.

==============  =====================================  ======================
host            module                                 fake wire protocol
==============  =====================================  ======================
``claude-code`` :mod:`.claude_code`                    ``anthropic``
``codex``       :mod:`.codex`                          ``openai-responses``
``opencode``    :mod:`.opencode`                       ``openai-chat``
==============  =====================================  ======================
"""

from __future__ import annotations

from generator.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext, RunLayout
from generator.hosts.claude_code import ClaudeCodeLauncher
from generator.hosts.codex import CodexLauncher
from generator.hosts.opencode import OpenCodeLauncher

LAUNCHERS: dict[str, HostLauncher] = {
    launcher.host: launcher for launcher in (ClaudeCodeLauncher(), CodexLauncher(), OpenCodeLauncher())
}


def launcher_for(host: str) -> HostLauncher:
    try:
        return LAUNCHERS[host]
    except KeyError:
        raise ValueError(f"unknown host {host!r}; expected one of {sorted(LAUNCHERS)}") from None


__all__ = [
    "FAKE_API_KEY",
    "LAUNCHERS",
    "ClaudeCodeLauncher",
    "CodexLauncher",
    "HostLauncher",
    "OpenCodeLauncher",
    "RunContext",
    "RunLayout",
    "launcher_for",
]
