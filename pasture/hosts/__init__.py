"""Every host Pasture generates for, one module each, behind one interface (:class:`.protocol.Host`).

A host module holds its name and surfaces, how its catalog is read from what it ships, how its adapter
is rendered, and how it runs headless, offline, against a fake model (its launcher). The hook
runtime's half (answer encoding, where the payload carries the tool) is the stdlib-only
``pasture/runtime/hostwire/<wire>.py``; the runtime never imports this package.

==============  =====================================  ======================
host            module                                 fake wire protocol
==============  =====================================  ======================
``claude-code`` :mod:`.claude_code`                    ``anthropic``
``codex``       :mod:`.codex`                          ``openai-responses``
``opencode``    :mod:`.opencode`                       ``openai-chat``
``gemini-cli``  :mod:`.gemini_cli`                     ``gemini``
``copilot-cli`` :mod:`.copilot_cli`                    ``openai-chat``
``pi``          :mod:`.pi`                             ``openai-chat``
``qwen-code``   :mod:`.qwen_code`                      ``openai-chat``
``cline``       :mod:`.cline`                          ``openai-chat``
==============  =====================================  ======================

The rest of the code asks :data:`HOSTS` (or :func:`host`) instead of comparing harness strings.
"""

from __future__ import annotations

from pasture.hosts import claude_code, cline, codex, copilot_cli, gemini_cli, opencode, pi, qwen_code
from pasture.hosts.claude_code import ClaudeCodeLauncher
from pasture.hosts.codex import CodexLauncher
from pasture.hosts.copilot_cli import CopilotLauncher
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext, RunLayout
from pasture.hosts.opencode import OpenCodeLauncher
from pasture.hosts.protocol import Host

#: harness id -> host, in the order hosts are listed everywhere (CLI choices, doctor, status).
HOSTS: dict[str, Host] = {
    h.name: h
    for h in (
        claude_code.HOST,
        codex.HOST,
        opencode.HOST,
        gemini_cli.HOST,
        copilot_cli.HOST,
        pi.HOST,
        qwen_code.HOST,
        cline.HOST,
    )
}
#: harness id -> its launcher (the real-host drivers of pasture.hostenv).
LAUNCHERS: dict[str, HostLauncher] = {name: h.launcher for name, h in HOSTS.items()}
#: the harness ids, for click choices and loops.
NAMES: tuple[str, ...] = tuple(HOSTS)


def host(name: str) -> Host:
    try:
        return HOSTS[name]
    except KeyError:
        raise ValueError(f"unknown host {name!r}; expected one of {', '.join(HOSTS)}") from None


def launcher_for(name: str) -> HostLauncher:
    try:
        return LAUNCHERS[name]
    except KeyError:
        raise ValueError(f"unknown host {name!r}; expected one of {sorted(LAUNCHERS)}") from None


__all__ = [
    "FAKE_API_KEY",
    "HOSTS",
    "LAUNCHERS",
    "NAMES",
    "ClaudeCodeLauncher",
    "CodexLauncher",
    "CopilotLauncher",
    "Host",
    "HostLauncher",
    "OpenCodeLauncher",
    "RunContext",
    "RunLayout",
    "host",
    "launcher_for",
]
