"""One ``pasture install|uninstall <host> --managed`` run (the channel's mechanics: :mod:`.managed`)."""

from __future__ import annotations

from pathlib import Path

from pasture.install.actions import _adapter
from pasture.install.hostview import InstallHost
from pasture.install.managed import ManagedChannel, ManagedRun, no_channel, target
from pasture.install.report import InstallError, Report
from pasture.install.session import Options, Session


def run_managed(opts: Options, the_host: InstallHost, root: Path, action: str) -> Report:
    """``pasture install|uninstall <host> --managed``: the report (InstallError when refused)."""
    channel: ManagedChannel | None = the_host.managed
    if channel is None:
        raise InstallError(no_channel(the_host.display_name, the_host.name))
    root = Path(root).resolve()
    if not root.is_dir():
        raise InstallError(f"--managed-root {root}: no such folder")
    tgt = target(the_host.name, channel, root, opts.env)
    report = Report(action, opts.harness, "managed")
    binary = opts.binaries.get(the_host.binary_flag)
    session = Session(opts, tgt, report, binary=binary, flags=the_host.install_flags)
    run = ManagedRun(session, root)
    if action == "install":
        session.adapter = _adapter(session, the_host)
        channel.install(run)
        report.next_steps.append(f"pasture doctor --managed{_root_flag(root)}: the lock-out and the launcher")
    else:
        channel.uninstall(run)
    for gap, _fix in channel.gaps:
        report.warnings.append(f"the managed channel does not close: {gap}")
    return report


def _root_flag(root: Path) -> str:
    return "" if root == Path("/") else f" --managed-root {root}"
