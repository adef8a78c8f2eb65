"""The starter user policy `pasture install` writes when the user has none (issue 26): the recommended
protection packs, named explicitly, and where to go from there. An existing policy is never touched."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

STARTER = """\
# pasture's user policy: written by `pasture install` because you had none. Edit it freely;
# `pasture policy check` validates it, `pasture policy show` lists what is in force, and
# `pasture policy test -- 'some command'` shows what a command would get.
#
# The protection packs pasture ships (git, files, system, databases, containers, cloud, interpreters): "recommended"
# names the ones on by default. `packs = []` turns them all off; `disable = ["git.push-force"]` turns
# one rule off. docs/policy.md ("The format") has rules, exceptions and examples.
packs = ["recommended"]
"""


def ensure(env: Mapping[str, str]) -> tuple[Path | None, str | None]:
    """(the path written, None) | (None, None) when a user policy exists | (None, why it could not be written)."""
    from pasture.runtime.layers import user_path

    path = Path(user_path(dict(env)))
    if os.path.lexists(path):
        return None, None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
        with open(fd, "w", encoding="utf-8") as handle:
            handle.write(STARTER)
    except FileExistsError:
        return None, None
    except OSError as exc:
        return None, f"could not write a starter user policy at {path} ({exc.strerror or exc})"
    return path, None
