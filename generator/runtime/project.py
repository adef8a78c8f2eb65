"""Which project an event belongs to: found the way git finds `.git`, from the start folder upwards.

A session started in a subfolder (`cd src`, then the agent) still belongs to the project above it:
policy and journal both hang off the root found here, on every host.
"""

from generator.runtime import fs

MARKER = ".pasture"


def start_dir(envelope_cwd: object, env: dict) -> str:
    """Where to start looking: Claude's project dir, else the payload's cwd, else our own cwd."""
    for candidate in (env.get("CLAUDE_PROJECT_DIR"), envelope_cwd):
        if isinstance(candidate, str) and fs.isabs(candidate) and fs.isdir(candidate):
            return fs.normpath(candidate)
    return fs.getcwd()


def find_root(start: str) -> str:
    """The project root for a start folder, the way git finds `.git`.

    From `start` upwards, the nearest folder holding a `.pasture/` folder wins, but the search stops at
    the repository root (the nearest folder holding `.git`, a folder or a linked worktree's file): a
    repository without `.pasture/` is its own project, so a `.pasture/` in a folder above it (say the
    home folder, where a journal of a session outside any repository may live) never captures it.
    Outside any repository the search goes on to the filesystem root; with nothing found, `start`.
    """
    here = start
    while True:
        if fs.isdir(fs.join(here, MARKER)):
            return here
        if fs.exists(fs.join(here, ".git")):
            return here
        parent = fs.dirname(here)
        if parent == here:
            return start
        here = parent


def root_for(envelope_cwd: object, env: dict) -> str:
    return find_root(start_dir(envelope_cwd, env))
