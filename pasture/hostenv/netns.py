"""Network isolation for host runs: a private network namespace whose only interface is ``lo``.

:func:`isolation_support` finds, once per process, the strongest wrapper that works here:

``netns+pidns``  ``unshare --net --pid --fork --kill-child --mount-proc``: no network but loopback,
                 and every process of the run dies with it (no stragglers).
``netns``        ``unshare --net``: no network but loopback.
``userns``       the same as ``netns+pidns`` for a non-root user, via ``--map-root-user``.
``none``         no namespace could be made. :func:`isolation_support` reports this mode with every
                 reason it found; it is not isolation: callers that run a real host refuse it
                 unless asked explicitly (``pasture capture`` and ``bump`` need ``--no-isolation``).
                 Only the per-host settings remain then (no proxies, no credentials, telemetry,
                 update and plugin-sync switched off, the fake model on 127.0.0.1).

``PASTURE_HOSTENV_ISOLATION`` may name one of these to force it (``none`` for debugging only); a
forced mode that does not work here is an error, never a quiet fallback.
"""

from __future__ import annotations

import fcntl
import functools
import os
import shutil
import socket
import struct
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["Isolation", "bring_loopback_up", "isolation_support", "network_interfaces", "python_env"]

_WRAPPERS: dict[str, tuple[str, ...]] = {
    "netns+pidns": ("unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--"),
    "netns": ("unshare", "--net", "--"),
    "userns": ("unshare", "--map-root-user", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--"),
    "none": (),
}

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


@dataclass(frozen=True)
class Isolation:
    mode: str  # a key of _WRAPPERS
    wrapper: tuple[str, ...]
    note: str

    @property
    def private_network(self) -> bool:
        return self.mode != "none"


def network_interfaces() -> list[str]:
    """Interfaces of the *current* network namespace (/sys/class/net would show the mounter's)."""
    return sorted(name for _, name in socket.if_nameindex())


def bring_loopback_up() -> None:
    """Set ``lo`` up in the current network namespace (ioctl; ``ip link`` as a fallback)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            ifreq = struct.pack("16sH22x", b"lo", 0)
            flags = struct.unpack("16sH22x", fcntl.ioctl(sock, SIOCGIFFLAGS, ifreq))[1]
            if not flags & IFF_UP:
                fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))
        return
    except OSError:
        ip = shutil.which("ip") or "/usr/sbin/ip"
        subprocess.run([ip, "link", "set", "lo", "up"], check=True, capture_output=True)


def python_env() -> dict[str, str]:
    """os.environ plus a PYTHONPATH that makes this ``pasture`` (and ``pasture_contracts``) importable
    in a child, even one that starts without this environment's site-packages."""
    from pasture.resources import import_roots

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (*import_roots(), env.get("PYTHONPATH", "")) if p)
    return env


def _probe(wrapper: tuple[str, ...]) -> str | None:
    """None if a namespaced Python can bring lo up and bind 127.0.0.1 there, else why not."""
    if wrapper and shutil.which(wrapper[0]) is None:
        return f"{wrapper[0]} not found"
    argv = [*wrapper, sys.executable, "-m", "pasture.hostenv.netns", "--probe"]
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=30, env=python_env(), stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{' '.join(wrapper[:2])}: {exc}"
    if proc.returncode != 0 or "probe-ok lo" not in proc.stdout:
        return f"{' '.join(wrapper)} failed (exit {proc.returncode}): {proc.stderr.strip()[-300:]}"
    return None


@functools.lru_cache(maxsize=None)
def isolation_support(preferred: str | None = None) -> Isolation:
    """The strongest isolation that works here (cached). ``preferred`` forces one mode."""
    forced = preferred or os.environ.get("PASTURE_HOSTENV_ISOLATION") or None
    if forced:
        if forced not in _WRAPPERS:
            raise ValueError(f"unknown isolation {forced!r}; expected one of {sorted(_WRAPPERS)}")
        why = _probe(_WRAPPERS[forced]) if forced != "none" else None
        if why:
            raise RuntimeError(f"isolation {forced!r} is not available: {why}")
        return Isolation(forced, _WRAPPERS[forced], "forced")
    reasons = []
    order = ("netns+pidns", "netns") if os.geteuid() == 0 else ("userns", "netns+pidns", "netns")
    for mode in order:
        why = _probe(_WRAPPERS[mode])
        if why is None:
            return Isolation(mode, _WRAPPERS[mode], "private network namespace with loopback only")
        reasons.append(f"{mode}: {why}")
    return Isolation(
        "none",
        (),
        "no network namespace available (" + "; ".join(reasons) + "): isolation rests on per-host settings only",
    )


def _main(argv: list[str]) -> int:
    if argv == ["--probe"]:
        bring_loopback_up()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
        names = network_interfaces()
        print("probe-ok", " ".join(names))
        return 0 if names == ["lo"] else 3
    print("usage: python -m pasture.hostenv.netns --probe", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
