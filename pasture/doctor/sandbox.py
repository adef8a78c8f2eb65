"""Whether the agent's OS sandbox keeps the commands it runs from writing the guard's state.

No hook can stop a program the agent writes and then runs; an OS sandbox can. `pasture doctor`
reads what the host's own settings say and reports, per host with an adapter here (the host module's
``check_environment`` calls these; status ``ok`` or ``warn``; never ``off``: the hooks still enforce the
policy without a sandbox):

* **Claude Code**: ``sandbox.enabled`` (the first of ``.claude/settings.local.json``,
  ``.claude/settings.json`` and the user's ``settings.json`` that sets it; a managed-settings file
  is not read, and may override both). Its sandbox lets commands write only below the session's
  folder, so the user's policy, the trust store and pasture's state cannot be written; the project's
  ``.pasture/`` is inside that folder and stays writable unless ``sandbox.filesystem.denyWrite``
  names it (merged from all three files).
* **Codex**: ``sandbox_mode`` in ``$CODEX_HOME/config.toml`` (of the selected ``profile`` first).
  ``read-only`` keeps every file from being written; ``workspace-write`` keeps everything outside the
  workspace (the user's policy, trust store, pasture's state) but not the project's ``.pasture/``;
  ``danger-full-access`` keeps nothing.

Every file here is read as a regular file only, size-capped (a FIFO must not hang the doctor).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any, Mapping

from pasture.doctor.findings import Finding
from pasture.install.places import claude_user_dir, codex_home

_CAP = 4 * 1024 * 1024


def _read(path: Path) -> str | None:
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


def _json(path: Path) -> dict[str, Any]:
    text = _read(path)
    try:
        doc = json.loads(text) if text is not None else {}
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def _sandbox(doc: dict[str, Any]) -> dict[str, Any]:
    value = doc.get("sandbox")
    return value if isinstance(value, dict) else {}


def _deny_write(entry: str, settings: Path, project: Path, home: Path) -> Path | None:
    """The path a sandbox.filesystem.denyWrite entry names (Claude Code's prefixes), None for a glob."""
    if any(c in entry for c in "*?["):
        return None
    if entry.startswith("//"):
        return Path(entry[1:])
    if entry.startswith("~/"):
        return home / entry[2:]
    if entry.startswith("/"):  # relative to the settings file's project (the folder holding .claude/)
        return settings.parent.parent / entry.lstrip("/")
    return project / entry


def _covers(denied: Path, target: Path) -> bool:
    denied, target = Path(os.path.normpath(denied)), Path(os.path.normpath(target))
    return denied == target or denied in target.parents


def claude(project: Path | None, env: Mapping[str, str]) -> list[Finding]:
    home = Path(env.get("HOME") or Path.home())
    files = (
        [project / ".claude" / "settings.local.json", project / ".claude" / "settings.json"]
        if project is not None
        else []
    ) + [claude_user_dir(env) / "settings.json"]
    enabled, said_by, denied = None, None, []
    for path in files:
        box = _sandbox(_json(path))
        if enabled is None and isinstance(box.get("enabled"), bool):
            enabled, said_by = box["enabled"], path
        filesystem = box.get("filesystem")
        filesystem = filesystem if isinstance(filesystem, dict) else {}
        for entry in filesystem.get("denyWrite") or []:
            if isinstance(entry, str) and project is not None:
                named = _deny_write(entry, path, project, home)
                if named is not None:
                    denied.append(named)
    where = files[0] if project is not None else files[-1]
    pasture_dir = project / ".pasture" if project is not None else None
    deny_entry = f'"//{str(pasture_dir).lstrip("/")}"' if pasture_dir is not None else None
    if not enabled:
        state = f"off ({said_by} sets sandbox.enabled = false)" if said_by else "not enabled in any settings file"
        add = ', "filesystem": {"denyWrite": [' + deny_entry + "]}" if deny_entry else ""
        return [
            Finding(
                "sandbox",
                "warn",
                f"Claude Code's OS sandbox is {state}: a program the agent writes and "
                "runs can change the guard's files (its policy, trust store, journal) where no hook sees it",
                "claude-code",
                fix=f'add "sandbox": {{"enabled": true{add}}} to {where} (or turn it on with /sandbox in Claude Code)',
                where=str(where),
            )
        ]
    if pasture_dir is not None and not any(_covers(d, pasture_dir) for d in denied):
        return [
            Finding(
                "sandbox",
                "warn",
                f"Claude Code's OS sandbox is on ({said_by}): the user's policy, the trust "
                f"store and pasture's state cannot be written by the agent's commands, but {pasture_dir} is "
                "inside the folder they may write",
                "claude-code",
                fix=f'add {deny_entry} to "sandbox": {{"filesystem": {{"denyWrite": [...]}}}} in {where}',
                where=str(where),
            )
        ]
    what = (
        f"and {pasture_dir} is in sandbox.filesystem.denyWrite"
        if pasture_dir is not None
        else "(a project's .pasture/ is writable unless its settings deny it)"
    )
    return [
        Finding(
            "sandbox",
            "ok",
            f"Claude Code's OS sandbox is on ({said_by}): the user's policy, the trust store "
            f"and pasture's state cannot be written by the agent's commands, {what}",
            "claude-code",
        )
    ]


def codex(project: Path | None, env: Mapping[str, str]) -> list[Finding]:
    import tomllib

    config = codex_home(env) / "config.toml"
    text = _read(config)
    try:
        doc = tomllib.loads(text) if text is not None else {}
    except tomllib.TOMLDecodeError:
        doc = {}
    mode, where = doc.get("sandbox_mode"), "sandbox_mode"
    profile = doc.get("profile")
    profiles = doc.get("profiles")
    profiles = profiles if isinstance(profiles, dict) else {}
    chosen = profiles.get(profile) if isinstance(profile, str) else None
    if isinstance(chosen, dict) and "sandbox_mode" in chosen:
        mode, where = chosen["sandbox_mode"], f"profiles.{profile}.sandbox_mode"
    fix = (
        f'set sandbox_mode = "workspace-write" in {config} (and do not start codex with --sandbox '
        "danger-full-access or --dangerously-bypass-approvals-and-sandbox)"
    )
    inside = f"{project / '.pasture'}" if project is not None else "a project's .pasture/"
    if mode == "read-only":
        return [
            Finding(
                "sandbox",
                "ok",
                f"Codex's OS sandbox is read-only ({config}: {where}): the agent's commands "
                "cannot change the guard's files",
                "codex",
            )
        ]
    if mode == "workspace-write":
        return [
            Finding(
                "sandbox",
                "warn",
                f"Codex's OS sandbox is workspace-write ({config}: {where}): the user's "
                "policy, the trust store and pasture's state cannot be written by the agent's commands, but "
                f"{inside} is inside the workspace they may write (only the hooks guard it)",
                "codex",
                fix="keep the rules that must hold in the user layer (~/.config/pasture/policy.toml or "
                "$PASTURE_POLICY), which the sandbox keeps the agent's commands from writing",
                where=str(config),
            )
        ]
    if not isinstance(mode, str):
        return [
            Finding(
                "sandbox",
                "warn",
                f"Codex's sandbox_mode is not set in {config}: Codex picks read-only until "
                "a folder is trusted and workspace-write once it is (a trusted project's .pasture/ stays "
                "writable), and a command-line flag can switch it off",
                "codex",
                fix=fix,
                where=str(config),
            )
        ]
    return [
        Finding(
            "sandbox",
            "warn",
            f"Codex's OS sandbox is {mode} ({config}: {where}): nothing keeps a program "
            "the agent writes and runs from changing the guard's files",
            "codex",
            fix=fix,
            where=str(config),
        )
    ]


def claude_deny_rules(settings: Path, project: Path | None, env: Mapping[str, str]) -> list[Finding]:
    """Whether the settings file carries the permissions.deny rules install writes (an install by an
    older pasture, or a hand edit, may lack them)."""
    from pasture.install.denyrules import rules_for

    permissions = _json(settings).get("permissions")
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    have = set(deny) if isinstance(deny, list) else set()
    missing = [rule for rule in rules_for(project, env)[0] if rule not in have]
    scope = f"--project {project}" if project is not None else "--user"
    if missing:
        return [
            Finding(
                "host-deny",
                "warn",
                f"{settings} lacks {len(missing)} of the permissions.deny rules that make "
                f"Claude Code itself refuse its file tools on the guard's files (e.g. {missing[0]})",
                "claude-code",
                fix=f"pasture install claude-code {scope}",
                where=str(settings),
            )
        ]
    return [
        Finding(
            "host-deny",
            "ok",
            f"{settings}: Claude Code's own permissions.deny rules cover the guard's files",
            "claude-code",
            where=str(settings),
        )
    ]
