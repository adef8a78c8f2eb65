"""The hook runtime's half of each host: how its answers are encoded, where its payload carries the tool.

One stdlib-only module per host (the build-time half is ``pasture/hosts/<host>.py``, whose ``wire`` names
the module here). The runtime imports only the one its ``--harness`` names: every tool call pays for each
import. Each module defines

* ``PROCEED_STDOUT``: what a proceed prints;
* ``BLOCKING_FAILURES``: the failure modes through which a deny can leave without a response capability;
* ``deny(event, row, reason)`` / ``ask(event, reason)``: ``(exit code, stdout, stderr, answer)``;
* ``tool_of(payload)``: ``(tool name or None, tool input)``.

and, as plain data (issue 28: the host's off-switches, found in its own shipped code; each entry cites the
file of the pinned npm package and the identifier it was read from), read by pasture.runtime.hostwire.guarded
(the built-in guard's file lists, the env-file screen) and by ``pasture install`` / ``pasture doctor``
(pasture.doctor.offswitch):

* ``OFF_SWITCHES``: dicts ``{file, key, off_when, why, fix, evidence, certain}``: a project file (relative
  to the folder the host is started in; ``*`` in its last part), the dotted key in it (``""``: the file
  itself) and when it switches our adapter off: ``true`` / ``false`` (the value), ``set`` (any non-empty
  value), ``exists`` (the file is there), ``event-hook`` (a hook file there for the event ``key``, named as
  the host reads names: ``offswitch.names_event``), ``foreign-hook`` (the same, not pasture's),
  ``names-ours`` (a list entry names a hook of ours),
  ``excludes-ours`` (Pi's ``!``/``-`` patterns match our extension), ``ignores-ours`` (an ignore file's
  pattern matches it), ``env-true`` (a dotenv file sets the variable ``key`` to ``1`` or ``true``).
  ``certain: False``: read in the code, its effect not established (warn, not refuse); optional ``also``:
  the host's own doctor check that reports the same file (doctor then says it once);
* ``ENV_FILES``: the dotenv files the host loads into its own environment (hooks inherit it), looked up
  from the start folder up to ``/`` (the user's own home is skipped); ``()`` when it loads none;
* ``GUARDED_FILES`` / ``GUARDED_FOLDERS``: project-relative files and folders the agent may not write
  (settings holding switches or hooks, the adapter's folder); ``USER_DIR`` ``(variable, base, relative)``
  and ``GUARDED_USER_FILES`` / ``GUARDED_USER_FOLDERS`` the same below the host's user folder; optional
  ``GUARDED_HOME_FOLDERS``: folders below the home folder itself that the host reads hooks from, whatever
  moves its user folder (Cline's ``Documents/Cline/Hooks``);
* ``GUARDED_SYSTEM_FILES`` / ``GUARDED_SYSTEM_FOLDERS``: absolute paths of the host's managed (administrator)
  channel, which ``pasture install --managed`` writes (the host module's ``MANAGED`` names them);
* ``PROJECT_ADAPTER_ROOT_ONLY``: the host reads the project adapter only in the folder it is started in
  (a session started in a subfolder runs none of it); a string names the host's own doctor check that
  reports it (doctor's generic ``start-folder`` then stays silent).
"""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


# harness -> module of this package. Kept equal to the hosts' registry (tests/render/test_hosts_registry.py).
WIRES = {
    "claude-code": "claude_code",
    "codex": "codex",
    "opencode": "opencode",
    "gemini-cli": "gemini_cli",
    "copilot-cli": "copilot_cli",
    "pi": "pi",
    "qwen-code": "qwen_code",
    "cline": "cline",
}
# An unknown harness has no contract, so it only ever proceeds: the command hosts' empty answer.
DEFAULT = "claude_code"

# What every hook event reads whatever its harness, before (or without) its own wire: each a copy of what
# the hosts' own wires declare, kept equal to them by tests/runtime/test_host_runtime_data.py (importing
# every wire would cost each event a module per host).
#: the variables that move a host's user folder (each wire's USER_DIR variable): the compiled policy
#: protects the folders they name, so its cache key holds their values (pasture.runtime.effective)
USER_DIR_VARIABLES = (
    "CODEX_HOME",
    "COPILOT_HOME",
    "PI_CODING_AGENT_DIR",
    "CLAUDE_CONFIG_DIR",
    "QWEN_HOME",
    "CLINE_DIR",
)
#: the variables a host sets to the project's folder for its hooks (wire PROJECT_DIR_VARIABLE): where the
#: project is looked for first (pasture.runtime.project), a start folder of the env screen
PROJECT_DIR_VARIABLES = ("CLAUDE_PROJECT_DIR", "QWEN_PROJECT_DIR")
#: project settings files whose "env" block a host hands to every hook (wire ENV_BLOCK_FILES): what they set
#: is screened out, whichever host runs (pasture.runtime.layers.project_host_settings, pasture.runtime.injected)
ENV_BLOCK_FILES = (".claude/settings.json", ".claude/settings.local.json", ".qwen/settings.json")
#: the prefixes of a host's own variables (wire ENV_PREFIX: its endpoints and keys as an agent gate's judge,
#: its folders): a project's env block may not set them (pasture.runtime.injected)
ENV_PREFIXES = ("OPENCODE_", "CLAUDE_", "CODEX_", "QWEN_", "CLINE_")


def wire(harness: str) -> "Any":
    name = "pasture.runtime.hostwire." + WIRES.get(harness, DEFAULT)
    module = sys.modules.get(name)
    if module is None:
        __import__(name)  # not importlib: the package import is one more module on the hook path
        module = sys.modules[name]
    return module
