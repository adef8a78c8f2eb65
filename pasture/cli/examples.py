"""One example per command, shown at the end of its --help (click's epilog).

Kept in one table rather than in each docstring so a new command cannot ship without one:
tests/test_cli_conventions.py walks the command tree and fails on any command missing here.
"""

from __future__ import annotations

import click

EXAMPLES: dict[str, tuple[str, ...]] = {
    "": ("pasture generate && pasture check", "pasture --root ../my-profiles validate"),
    "validate": ("pasture validate --json",),
    "explain": ("pasture explain claude-code@2.1.332 PreToolUse",),
    "generate": ("pasture generate --dry-run", "pasture generate --contract codex@0.171.0"),
    "check": ("pasture check --json",),
    "journal": ("pasture journal --decision deny --limit 20", "pasture journal --since 7d --count"),
    "journal prune": ("pasture journal prune",),
    "journal torn": ("pasture journal torn",),
    "journal export": (
        "pasture journal export --format csv > journal.csv",
        "pasture journal export --otlp http://127.0.0.1:4318",
    ),
    "schema": ("pasture schema lifecycle > lifecycle.schema.json",),
    "install": ("pasture install claude-code --project .", "pasture install codex --user"),
    "uninstall": ("pasture uninstall opencode --project .",),
    "doctor": ("pasture doctor --host claude-code",),
    "host": ("pasture host status --latest",),
    "host status": ("pasture host status --latest --json",),
    "capture": ("pasture capture codex --out /tmp/codex-capture",),
    "profile": ("pasture profile new codex 0.172.0 --from codex@0.171.0",),
    "profile new": ("pasture profile new codex 0.172.0 --from codex@0.171.0",),
    "profile sync": ("pasture profile sync claude-code@2.1.332",),
    "evidence": ("pasture evidence --contract opencode@1.18.33",),
    "diff": ("pasture diff claude-code@2.1.328 claude-code@2.1.332",),
    "policy": ("pasture policy check",),
    "policy show": ("pasture policy show --json",),
    "policy check": ("pasture policy check --project ~/src/app",),
    "policy test": ("pasture policy test -- 'git push --force' 'rm -rf build'",),
    "policy trust": ("pasture policy trust --project ~/src/app",),
    "policy untrust": ("pasture policy untrust --project ~/src/app",),
    "hook": ("pasture hook lifecycle --harness codex --event PreToolUse --host-version 0.171.0 < payload.json",),
    "hook lifecycle": (
        "pasture hook lifecycle --harness codex --event PreToolUse --host-version 0.171.0 < payload.json",
    ),
    "hook serve": ("pasture hook serve --harness opencode --host-version 1.18.33",),
    "catalog": ("pasture catalog extract opencode --check",),
    "catalog extract": ("pasture catalog extract claude-code --check",),
    "catalog show": ("pasture catalog show codex@0.171.0",),
    "bump": ("pasture bump codex", "pasture bump claude-code --to 2.1.340"),
}


def commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    """Every command below `group`, by its path ("policy trust"), the group itself as ""."""
    found: list[tuple[str, click.Command]] = [(prefix, group)]
    for name, sub in group.commands.items():
        path = f"{prefix} {name}".strip()
        if isinstance(sub, click.Group):
            found += commands(sub, path)
        else:
            found.append((path, sub))
    return found


def attach(group: click.Group) -> None:
    """Set each command's epilog from EXAMPLES (a missing entry is a test failure, not a crash)."""
    for path, cmd in commands(group):
        lines = EXAMPLES.get(path)
        if lines:
            cmd.epilog = "\b\nExample:\n" + "\n".join(f"  {line}" for line in lines)
