"""``pasture doctor``'s view of managed installs (``pasture install <host> --managed``): for each host with one
below the managed root (``/``, or ``--managed-root DIR``), that our hooks are there, that the lock-out holds,
that the system launcher runs, and what the channel does not close (the host module's ``managed.gaps``).
With ``--managed`` it also says where a host has no managed install, or no managed channel at all."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from pasture.doctor.findings import Finding
from pasture.install.hostview import InstallHost


def findings(
    hosts: Mapping[str, InstallHost], root: Path, env: Mapping[str, str], asked: bool, required: tuple[str, ...]
) -> tuple[list[Finding], set[str]]:
    """(the findings, the hosts with a managed install). ``asked``: ``--managed`` was given; ``required``:
    the hosts named with ``--host`` (a missing managed install of one of them is off)."""
    found: list[Finding] = []
    installed: set[str] = set()
    flag = "" if root == Path("/") else f" --managed-root {root}"
    for name, host in hosts.items():
        if required and name not in required:
            continue
        channel = host.managed
        if channel is None:
            if asked:
                found.append(
                    Finding(
                        "managed",
                        "off" if name in required else "warn",
                        f"{host.display_name} has no managed (administrator) channel that pasture can lock: "
                        "a repository's settings can switch a project install off (pasture doctor says so); "
                        "the user install is the closest",
                        name,
                        fix=f"pasture install {name} --user",
                    )
                )
            continue
        notes = channel.status(root, env)
        if not notes:
            if asked:
                found.append(
                    Finding(
                        "managed",
                        "off" if name in required else "warn",
                        f"no managed install of {host.display_name} below {root} "
                        f"({channel.hooks_file(root, env)} holds no pasture hook)",
                        name,
                        fix=f"pasture install {name} --managed{flag}  (as root)",
                    )
                )
            continue
        installed.add(name)
        found += _version(host, channel.read_in, env)
        for note in notes:
            fix = (
                f"{note.fix.replace('<host>', name)}{flag}  (as root)"
                if note.fix and "<host>" in note.fix
                else note.fix
            )
            found.append(Finding(note.check, note.status, note.message, name, fix=fix, where=note.where))
        for gap, gap_fix in channel.gaps:
            found.append(
                Finding(
                    "managed-gap",
                    "warn",
                    f"the managed channel of {host.display_name} {channel.read_in} does not close: {gap}",
                    name,
                    fix=gap_fix,
                )
            )
    return found, installed


def _version(host: InstallHost, read_in: str, env: Mapping[str, str]) -> list[Finding]:
    """A host older than the version whose code the channel was read in: not confirmed to honour it."""
    from pasture.install.places import version_of
    from pasture.profile.versions import HostVersion

    version, seen = version_of(host.binary, None, env, quiet=host.version_env)
    if version is None or not version < HostVersion.parse(read_in):
        return []
    return [
        Finding(
            "managed-version",
            "warn",
            f"{seen}: older than {read_in}, whose shipped code the managed channel ({host.display_name}) was read "
            "in and proven on; whether this version honours its lock-out is not established",
            host.name,
            fix=f"update {host.binary} to {read_in} or later, or install for the user: "
            f"pasture install {host.name} --user",
        )
    ]
