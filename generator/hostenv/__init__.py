"""Run the real agent hosts (Claude Code, Codex CLI, OpenCode) offline against fake model servers."""

from .npm_tools import (
    HOST_PACKAGES,
    NpmInstallError,
    NpmUnavailable,
    ensure_npm_tools,
    host_binary,
    host_version,
    npm_available,
)

__all__ = [
    "HOST_PACKAGES",
    "NpmInstallError",
    "NpmUnavailable",
    "ensure_npm_tools",
    "host_binary",
    "host_version",
    "npm_available",
]
