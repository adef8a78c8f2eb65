"""Which project an event belongs to: found the way git finds `.git`, from the start folder upwards.

A session started in a subfolder (`cd src`, then the agent) still belongs to the project above it:
policy and journal both hang off the root found here, on every host. One project, one layer: in a
git repository the root is its top level, whatever `.pasture/` folders sit below it.
"""

from pasture.runtime import fs
from pasture.runtime.hostwire import PROJECT_DIR_VARIABLES

MARKER = ".pasture"


def start_dir(envelope_cwd: object, env: dict) -> str:
    """Where to start looking: the project folder a host hands its hooks (hostwire PROJECT_DIR_VARIABLES),
    else the payload's cwd, else our own cwd."""
    for candidate in (*(env.get(name) for name in PROJECT_DIR_VARIABLES), envelope_cwd):
        if isinstance(candidate, str) and fs.isabs(candidate) and fs.isdir(candidate):
            return fs.normpath(candidate)
    return fs.getcwd()


def _walk(start: str) -> tuple:
    """(root, the `.pasture/` folders passed over on the way up that do not count)."""
    here = start
    nearest = None  # the nearest folder holding `.pasture/`
    seen = []
    while True:
        if fs.isdir(fs.join(here, MARKER)):
            seen.append(here)
            if nearest is None:
                nearest = here
        if fs.exists(fs.join(here, ".git")):
            # One project, one layer: inside a repository the project is its top level, however
            # many `.pasture/` folders sit below it (one planted in src/ replaces nothing).
            return here, [fs.join(d, MARKER) for d in seen if d != here]
        parent = fs.dirname(here)
        if parent == here:
            if nearest is None:
                return start, []
            return nearest, []
        here = parent


def find_root(start: str) -> str:
    """The project root for a start folder.

    Inside a git repository (the nearest folder upwards holding `.git`, a folder or a linked
    worktree's or submodule's file) the root is that folder, the repository's top level: its
    `.pasture/` is the project layer, and a `.pasture/` anywhere below it is ignored
    (`ignored_markers` names those on the way; `pasture policy show` and `check` report them), so
    a session started in a subfolder gets the same policy and journal as one at the top. A
    `.pasture/` above the repository (say in the home folder, where a journal of a session outside
    any repository may live) never captures it. Outside any repository the nearest folder upwards
    holding a `.pasture/` wins; with none, `start`.
    """
    return _walk(start)[0]


def ignored_markers(start: str) -> list:
    """The `.pasture/` folders between `start` and its repository's top level: not the project layer."""
    return _walk(start)[1]


def root_for(envelope_cwd: object, env: dict) -> str:
    return find_root(start_dir(envelope_cwd, env))
