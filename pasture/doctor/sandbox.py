"""Whether the agent's OS sandbox keeps the commands it runs from writing the guard's state.

No hook can stop a program the agent writes and then runs; an OS sandbox can. `pasture doctor`
reads what the host's own settings say and reports, per host with an adapter here (the host module's
``check_environment`` calls these; status ``ok`` or ``warn``; never ``off``: the hooks still enforce the
policy without a sandbox):

* **Claude Code** (read in pasture/hosts/claude_code.py with this module's readers): ``sandbox.enabled``
  (the first of ``.claude/settings.local.json``, ``.claude/settings.json`` and the user's
  ``settings.json`` that sets it; a managed-settings file is not read, and may override both). Its
  sandbox lets commands write only below the session's folder, so the user's policy, the trust store
  and pasture's state cannot be written; the project's ``.pasture/`` is inside that folder and stays
  writable unless ``sandbox.filesystem.denyWrite`` names it (merged from all three files).
* **Codex** (pasture/hosts/codex/sandbox.py, with this module's readers): ``sandbox_mode`` in
  ``$CODEX_HOME/config.toml`` (of the selected ``profile`` first). ``read-only`` keeps every file from
  being written; ``workspace-write`` keeps everything outside the workspace (the user's policy, trust
  store, pasture's state) but not the project's ``.pasture/``; ``danger-full-access`` keeps nothing.

Every file here is read as a regular file only, size-capped (a FIFO must not hang the doctor).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

_CAP = 4 * 1024 * 1024


def read_capped(path: Path) -> str | None:
    """A regular file's text (at most 4 MiB), else None: a FIFO must not hang the doctor."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with open(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        try:
            return fh.read(_CAP).decode("utf-8")
        except UnicodeDecodeError:
            return None


def read_json(path: Path) -> dict[str, Any]:
    """A regular file's JSON object (:func:`read_capped`), else {}."""
    text = read_capped(path)
    try:
        doc = json.loads(text) if text is not None else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}
