"""Claude Code's own deny rules for the guard's files: defence in depth behind the hooks.

`pasture install claude-code` adds to the settings file's ``permissions.deny`` one ``Edit(...)``
rule per file and folder the built-in guard rules protect (pasture.runtime.builtin.protected: the
project's ``.pasture/``, the hosts' settings and hooks files, the user and managed policies, the
trust store, pasture's state, data and cache folders; a file inside a protected folder is covered by
the folder's rule). Claude Code applies an ``Edit`` rule to every built-in tool that edits files
(Edit, Write, MultiEdit, NotebookEdit: its permissions documentation; the real-host test
tests/realhost/test_host_deny_rules_real_hosts.py shows 2.1.332 refusing Edit, Write and NotebookEdit
by the rule alone, in the bypass permission mode, before its PreToolUse hook runs: such a refusal
leaves no journal row). Paths are absolute (``//`` + the path, Claude Code's
spelling of an absolute path in a rule) as written and as resolved through symlinks; in user scope,
where the project is not known, the project-relative paths are written as ``**/.pasture/**`` and
the like (gitignore patterns: at any depth below the session's folder).

A rule is a plain string, and the settings schema allows no key of our own, so which entries pasture
added is recorded in the user's state folder (``claude-deny/<sha256 of the settings path>.json``,
0600 in a 0700 folder): uninstall removes exactly those, never an entry the file had before
(the same rule written by hand stays), and drops ``deny`` / ``permissions`` only where install
created them, so install + uninstall gives the file back as it was.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping

from pasture.install.jsonhooks import SettingsAmendment
from pasture.install.report import FileChange, InstallError
from pasture.install.session import Session

TOOLS = ("Edit",)
# What a path inside a rule may not contain: ")" ends the rule (the schema's pattern), and a glob or
# escape character would change what it matches.
_UNSAFE = set("()*?[]\\!#\n\r")


def _project_relative() -> tuple[list[str], list[str]]:
    """(files, folders) the guard keeps the agent off in any project: each host's declared settings and
    adapter folders (pasture/runtime/hostwire/<host>.py GUARDED_*) and pasture's own `.pasture/`."""
    from pasture.runtime.hostwire.guarded import modules

    files: list[str] = []
    folders = [".pasture"]
    for wire in modules():
        files += [f for f in wire.GUARDED_FILES if f not in files]
        folders += [f for f in wire.GUARDED_FOLDERS if f not in folders]
    return files, folders


def _rule_path(path: str, folder: bool) -> str | None:
    if not path.startswith("/") or _UNSAFE & set(path):
        return None
    return "/" + path.rstrip("/") + ("/**" if folder else "")


def rules_for(project: Path | None, env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(rules, paths that cannot be written as a rule) for a project (None: user scope)."""
    from pasture.runtime.builtin import protected

    env = dict(env)
    root = str(project) if project is not None else "/nonexistent-pasture-project"
    files, folders = protected(root, env)
    patterns: list[str] = []
    skipped: list[str] = []
    for paths, folder in ((files, False), (folders, True)):
        for path in paths:
            if project is None and (path == root or path.startswith(root + "/")):
                continue
            if not folder and any(path.startswith(f.rstrip("/") + "/") for f in folders):
                continue  # inside a guarded folder: its folder's rule covers it
            pattern = _rule_path(path, folder)
            if pattern is None:
                skipped.append(path)
            elif pattern not in patterns:
                patterns.append(pattern)
    if project is None:
        relative_files, relative_folders = _project_relative()
        patterns += [f"**/{p}" for p in relative_files] + [f"**/{p}/**" for p in relative_folders]
    return [f"{tool}({pattern})" for pattern in patterns for tool in TOOLS], skipped


# --- the record of what we added ----------------------------------------------------------------


def record_path(settings: Path, env: Mapping[str, str], folder: str) -> Path:
    """The record of what install added to ``settings``, in the state folder's ``folder`` (the host's)."""
    from pasture.runtime.layers import state_dir

    key = hashlib.sha256(os.path.realpath(settings).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(state_dir(dict(env))) / folder / f"{key}.json"


def read_record(settings: Path, env: Mapping[str, str], folder: str) -> dict[str, Any]:
    """What install added to this settings file; {} when nothing (or an unreadable record)."""
    try:
        doc = json.loads(record_path(settings, env, folder).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or not isinstance(doc.get("added"), list):
        return {}
    return doc


def write_record(settings: Path, env: Mapping[str, str], folder: str, record: dict[str, Any]) -> None:
    path = record_path(settings, env, folder)
    if not record.get("added"):
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, mode=0o700, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({"settings": str(settings), **record}, fh, indent=2)
        fh.write("\n")
    os.replace(tmp, path)


# --- merge and unmerge --------------------------------------------------------------------------


def merge(doc: dict[str, Any], rules: list[str], record: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``doc`` with every rule of ``rules`` in permissions.deny, and the new record.

    Rules we added before and no longer want go; a rule already there that we did not add is
    foreign and left alone (and not recorded as ours); new ones are appended after every entry."""
    doc = copy.deepcopy(doc)
    previous = [r for r in record.get("added", []) if isinstance(r, str)]
    created = dict(record.get("created") or {})
    permissions = doc.get("permissions")
    if permissions is None:
        permissions = doc["permissions"] = {}
        created["permissions"] = True
    if not isinstance(permissions, dict):
        raise ValueError("permissions is not an object")
    deny = permissions.get("deny")
    if deny is None:
        deny = permissions["deny"] = []
        created["deny"] = True
    if not isinstance(deny, list):
        raise ValueError("permissions.deny is not an array")
    ours = set(previous)
    kept = [r for r in deny if r not in ours or r in rules]  # our stale rules go
    added = [r for r in previous if r in rules and r in kept]
    for rule in rules:
        if rule not in kept:
            kept.append(rule)
            added.append(rule)
    permissions["deny"] = kept
    return doc, {"added": added, "created": created}


def unmerge(doc: dict[str, Any], record: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``doc`` without the deny rules the record says we added; (doc, whether anything changed)."""
    added = {r for r in record.get("added", []) if isinstance(r, str)}
    permissions = doc.get("permissions")
    if not added or not isinstance(permissions, dict) or not isinstance(permissions.get("deny"), list):
        return doc, False
    doc = copy.deepcopy(doc)
    permissions = doc["permissions"]
    before = permissions["deny"]
    permissions["deny"] = [r for r in before if r not in added]
    changed = len(permissions["deny"]) != len(before)
    created = record.get("created") or {}
    if not permissions["deny"] and created.get("deny"):
        del permissions["deny"]
    if not permissions and created.get("permissions"):
        del doc["permissions"]
    return doc, changed


class DenyRulesAmendment(SettingsAmendment):
    """A settings file that holds the hooks plus these ``permissions.deny`` rules (and their record): Claude
    Code's. ``host``: the host's name in what the report says; ``folder``: the state folder of the records."""

    def __init__(self, host: str, folder: str) -> None:
        self.host = host
        self.folder = folder

    def merge(self, session: Session, existing: dict[str, Any] | None, document: dict[str, Any]) -> dict[str, Any]:
        target = session.target
        self.rules, self.skipped = rules_for(target.project, session.env)
        try:
            document, self.record = merge(document, self.rules, read_record(target.file, session.env, self.folder))
        except ValueError as exc:
            raise InstallError(
                f"{target.file}: {exc}; refusing to touch it (nothing was written)",
                hint=f"fix {target.file}, then run the command again",
            ) from None
        return document

    def warn(self, session: Session, existing: dict[str, Any] | None) -> None:
        report = session.report
        if existing is not None and existing.get("disableAllHooks") is True:
            report.warnings.append(
                f"{session.target.file} sets disableAllHooks: true; {self.host} will not run any hook"
            )
        for path in self.skipped:
            report.warnings.append(
                f"{path} cannot be written as a {self.host} permission rule (a character that "
                "would change its meaning); only the hooks guard it"
            )

    def installed(self, session: Session, change: FileChange) -> None:
        change.detail = (
            f"permissions.deny: {len(self.record['added'])} rule(s) keep {self.host}'s file tools off the guard's files"
        )
        try:
            write_record(session.target.file, session.env, self.folder, self.record)
        except OSError as exc:
            session.report.warnings.append(
                f"cannot record which permissions.deny rules pasture added ({exc}); uninstall "
                "will remove every rule pasture would write"
            )

    def unmerge(self, session: Session, existing: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        record = read_record(session.target.file, session.env, self.folder)
        if not record:  # no record (another state folder): every rule pasture would write is ours
            record = {"added": rules_for(session.target.project, session.env)[0]}
        return unmerge(existing, record)

    def uninstalled(self, session: Session) -> None:
        write_record(session.target.file, session.env, self.folder, {})
