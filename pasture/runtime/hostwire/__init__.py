"""The hook runtime's half of each host: how its answers are encoded, where its payload carries the tool.

One stdlib-only module per host (the build-time half is ``pasture/hosts/<host>.py``, whose ``wire`` names
the module here). The runtime imports only the one its ``--harness`` names: every tool call pays for each
import. Each module defines

* ``PROCEED_STDOUT``: what a proceed prints;
* ``BLOCKING_FAILURES``: the failure modes through which a deny can leave without a response capability;
* ``deny(event, row, reason)`` / ``ask(event, reason)``: ``(exit code, stdout, stderr, answer)``;
* ``tool_of(payload)``: ``(tool name or None, tool input)``.
"""

import sys

# harness -> module of this package. Kept equal to the hosts' registry (tests/render/test_hosts_registry.py).
WIRES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "opencode": "opencode",
    "gemini-cli": "gemini_cli",
    "copilot-cli": "copilot_cli",
    "pi": "pi",
}
# An unknown harness has no contract, so it only ever proceeds: the command hosts' empty answer.
DEFAULT = "claude_code"


def wire(harness: str):
    name = "pasture.runtime.hostwire." + WIRES.get(harness, DEFAULT)
    module = sys.modules.get(name)
    if module is None:
        __import__(name)  # not importlib: the package import is one more module on the hook path
        module = sys.modules[name]
    return module
