"""Codex hook trust, recorded the way Codex records it: ``[hooks.state."<key>"] trusted_hash``.

Codex runs a user or project hook only if ``hooks.state."<key>".trusted_hash`` in the *user*
config.toml (``$CODEX_HOME/config.toml``) equals the hook's current hash; otherwise ``codex exec``
skips it without a word. The key is ``<source path>:<event_label>:<group index>:<handler index>``
and the hash is Codex's own (``sha256:`` over its normalised hook); we take both from ``codex
app-server``'s ``hooks/list`` and never compute a hash.

Because keys are positions, removing or moving a group re-keys every foreign group after it in
the same event. Their trust must move with them (the hash covers the hook, not its position), or
Codex would see the old entry under a key now naming another hook and call both "modified". So
every change to a hooks.json comes with a state plan:

* entries at positions our handlers held are dropped (ours are written afresh from ``hooks/list``);
* entries of foreign hooks that moved are renamed to their new key, values untouched;
* every other entry, and everything else in config.toml, is left exactly as it was.

Project layer: Codex loads ``<project>/.codex/`` only when the project is trusted
(``[projects."<root>"] trust_level = "trusted"``, where root is the git repository root, or the
folder itself outside git). ``pasture install codex`` checks that first and refuses without
``--trust-project``; with it, it writes that one key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pasture.install import tomledit

STATE = ("hooks", "state")


def event_label(event: str) -> str:
    """Codex's snake_case label of a hooks.json event key: PreToolUse -> pre_tool_use."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def hook_key(source: str, event: str, group: int, handler: int) -> str:
    return f"{source}:{event_label(event)}:{group}:{handler}"


def split_key(key: str) -> tuple[str, str, int, int] | None:
    parts = key.rsplit(":", 3)
    if len(parts) != 4 or not parts[2].isdigit() or not parts[3].isdigit():
        return None
    return parts[0], parts[1], int(parts[2]), int(parts[3])


def same_file(a: str | Path, b: str | Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def state_table(config: dict[str, Any]) -> dict[str, Any]:
    state = config.get("hooks", {}).get("state", {}) if isinstance(config.get("hooks"), dict) else {}
    return state if isinstance(state, dict) else {}


@dataclass
class StatePlan:
    """What to change under ``[hooks.state]`` for one hooks.json."""

    drop: list[str] = field(default_factory=list)  # keys at positions our handlers held
    move: dict[str, str] = field(default_factory=dict)  # foreign hooks' entries: old key -> new key
    trust: dict[str, str] = field(default_factory=dict)  # our keys -> currentHash

    @property
    def empty(self) -> bool:
        return not (self.drop or self.move or self.trust)


def plan_state(
    config: dict[str, Any],
    hooks_file: Path,
    *,
    before: set[tuple[str, int, int]],
    kept: set[tuple[str, int, int]],
    moved: list[tuple[str, int, int]],
    trust: dict[str, str] | None = None,
) -> StatePlan:
    """The state changes for one edit of ``hooks_file``.

    Positions are (event label, group index, handler index). ``before``: where our handlers were;
    ``kept``: those of them still holding the very same group (so the same hash: their entries
    stay valid even when Codex cannot be asked); ``moved``: (event, old group, new group) of
    foreign groups whose index changed; ``trust``: key -> currentHash of our handlers after the
    edit, from ``hooks/list`` (empty when Codex is not available, and on uninstall).

    An entry at a position ours still hold is updated in place, so a user's ``enabled = false``
    on our hook survives a re-install; an entry at a position that now holds another hook (a stale
    leftover) is dropped rather than inherited.
    """
    trust = dict(trust or {})
    moves = {(event_label(e), old): new for e, old, new in moved}
    state = state_table(config)
    plan = StatePlan()
    about_file: dict[str, tuple[str, str, int, int]] = {}
    for key in state:
        parts = split_key(key)
        if parts is not None and same_file(parts[0], hooks_file):
            about_file[key] = parts
    for key, (source, label, g, h) in about_file.items():
        position = (label, g, h)
        if position in kept:
            continue
        if position in before:
            if key not in trust:
                plan.drop.append(key)
        elif (label, g) in moves:
            plan.move[key] = f"{source}:{label}:{moves[(label, g)]}:{h}"
    targets = set(plan.move.values())
    for key, (_source, label, g, h) in about_file.items():
        position = (label, g, h)
        if key in plan.drop or key in plan.move or position in kept or position in before:
            continue
        if key in targets or key in trust:
            plan.drop.append(key)
    for key, digest in trust.items():
        current = None if key in plan.drop else state.get(key)
        if not (isinstance(current, dict) and current.get("trusted_hash") == digest):
            plan.trust[key] = digest
    return plan


def apply_state(text: str, plan: StatePlan) -> str:
    """config.toml text with the plan applied (each step verified by tomledit)."""
    for key in plan.drop:
        text = tomledit.delete_table(text, STATE + (key,))
    if plan.move:
        text = tomledit.rename_tables(text, {STATE + (o,): STATE + (n,) for o, n in plan.move.items()})
    for key, digest in plan.trust.items():
        text = tomledit.set_value(text, STATE + (key,), "trusted_hash", digest)
    return text


# --- project trust --------------------------------------------------------------------------------


def project_trust_root(project: Path) -> Path:
    """The folder Codex keys project trust by: the git repository root, else the folder itself.

    A linked worktree (``.git`` is a file pointing into ``<main>/.git/worktrees/<name>``) is keyed
    by the main checkout, as Codex does for its project layer.
    """
    project = project.resolve()
    for folder in (project, *project.parents):
        marker = folder / ".git"
        if marker.is_dir():
            return folder
        if marker.is_file():
            try:
                line = marker.read_text(encoding="utf-8").strip()
            except OSError:
                return folder
            if line.startswith("gitdir:"):
                gitdir = Path(line[len("gitdir:") :].strip())
                if not gitdir.is_absolute():
                    gitdir = (folder / gitdir).resolve()
                if gitdir.parent.name == "worktrees":
                    return gitdir.parent.parent.parent
            return folder
    return project


def project_trust_level(config: dict[str, Any], root: Path) -> str | None:
    projects = config.get("projects")
    if not isinstance(projects, dict):
        return None
    entry = projects.get(str(root))
    if isinstance(entry, dict) and isinstance(entry.get("trust_level"), str):
        return entry["trust_level"]
    return None


def trust_project(text: str, root: Path) -> str:
    return tomledit.set_value(text, ("projects", str(root)), "trust_level", "trusted")
