"""What the plugin hosts (OpenCode, Pi) share: their generated plugin starts one long-lived runtime
(``pasture hook serve``) and talks to it in its protocol, within the runtime's own limits.

Host-neutral: a plugin host module imports this, never another host's module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pasture.render import commands

if TYPE_CHECKING:
    from pasture.profile.contracts import Contract

MAX_PAYLOAD_BYTES = 16 * 1024 * 1024  # the runtime's own limit (pasture/runtime/serve.py)
MAX_REPLY_BYTES = 4 * 1024 * 1024
MAX_STDERR_BYTES = 8 * 1024
START_MS = 10_000  # a runtime silent this long after starting counts as not started (PASTURE_HOOK_START_MS)
LOG_SERVICE = "pasture-lifecycle"
SERVE_PROTOCOL = 1  # pasture/runtime/serve.py PROTOCOL (the hook path never imports this module)


def serve_argv(contract: Contract) -> list[str]:
    """The words after the binary that start the long-lived runtime for this contract."""
    return ["hook", "serve", "--harness", contract.harness.value, "--host-version", str(contract.version)]


def argv_frame(contract: Contract, error: type[Exception]) -> tuple[list[str], list[str]]:
    """commands.argv split around the event name: the plugin inserts the name it was called for. A row
    whose argv does not frame that way raises ``error`` (the host's render error)."""
    frame: tuple[list[str], list[str]] | None = None
    for row in contract.events:
        words = commands.argv(contract, row)
        at = [i for i, word in enumerate(words) if word == row.name]
        if len(at) != 1:
            raise error(f"{contract.id}: the runtime argv for {row.name!r} does not hold the event name exactly once")
        this = (words[: at[0]], words[at[0] + 1 :])
        if frame is not None and this != frame:
            raise error(f"{contract.id}: the runtime argv differs between rows beyond the event name")
        frame = this
    if frame is None:
        raise error(f"{contract.lifecycle_file}: no event rows to generate a plugin for")
    return frame
