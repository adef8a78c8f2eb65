"""One ``pasture install`` / ``pasture uninstall`` run as a host module sees it (:class:`Session`), and the
host-neutral steps every host's install uses: the checked snapshot of a file about to change, the atomic
write, the hook launcher, the exact command that repeats the run.

Host-neutral: nothing here imports the host registry, so ``pasture/hosts/<host>.py`` may use it.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from pasture.install import files, launcher
from pasture.install.places import Target
from pasture.install.report import FileChange, InstallError, Report
from pasture.profile.contracts import Contract
from pasture.render.artifact import Artifact


@dataclass
class Options:
    harness: str
    project: Path | None  # None: user scope
    root: Path
    env: Mapping[str, str]
    contract: str | None = None
    #: the binary flags given (``--codex-bin``, ``--opencode-bin``: flag -> path); a host uses its ``binary_flag``'s
    binaries: Mapping[str, str] = field(default_factory=dict)
    trust_project: bool = False
    trust_only: bool = False
    trust_timeout: float = 60.0  # a host's own trust query (codex app-server)
    root_given: bool = False  # --root was passed: repeat it in the commands we suggest
    follow_symlinks: bool = False  # project scope: write through a symlink that leads out of the project
    force: bool = False  # install although the repository switches the host's hooks off (pasture.install.offswitch)


@dataclass(frozen=True)
class Adapter:
    contract: Contract
    artifact: Artifact  # the one file the install puts in place (the host's ``adapter_file``)
    stale_generated: str | None  # generated/<path> when it differs from the rendering

    @property
    def events(self) -> list[str]:
        return [row.name for row in self.contract.events]

    def hooks_document(self) -> dict[str, Any]:
        return json.loads(self.artifact.text)


@dataclass
class Session:
    """What a host's ``install`` / ``trust`` / ``uninstall`` is handed. ``adapter`` is None on uninstall."""

    opts: Options
    target: Target
    report: Report
    adapter: Adapter | None = None
    #: the host's binary (``--<binary>-bin`` when given), for its version and its trust step
    binary: str | None = None
    #: the host-only install flags this host takes (repeated in the commands a report suggests)
    flags: frozenset[str] = frozenset()
    #: what a host's install hands its own trust step (the same session, same run)
    state: dict[str, Any] = field(default_factory=dict)
    #: the adapters that still read PASTURE_BIN (each host's ``pasture_bin_reader``): said when it is set
    pasture_bin_readers: tuple[str, ...] = ()

    @property
    def env(self) -> Mapping[str, str]:
        return self.opts.env

    def rerun(self, *extra: str, contract: str | None = None) -> str:
        """The exact `pasture install` command line that repeats this install with ``extra`` flags."""
        opts, target = self.opts, self.target
        words = ["pasture", "install", opts.harness]
        words += ["--project", str(target.project)] if target.project else ["--user"]
        if contract or opts.contract:
            words += ["--contract", contract or opts.contract or ""]
        if opts.root_given:
            words += ["--root", str(opts.root)]
        for flag, value in opts.binaries.items():
            if flag in self.flags:
                words += [flag, value]
        if opts.follow_symlinks and "--follow-symlinks" not in extra:
            words += ["--follow-symlinks"]
        return " ".join(shlex.quote(w) for w in [*words, *extra])

    def checked(self, path: Path) -> files.Snapshot:
        """The snapshot of a file we are about to change, after the checks that refuse up front:
        a symlink leading out of the project (unless --follow-symlinks), a folder where the file goes, a
        read-only file or folder."""
        target = self.target
        if target.project is not None and not self.opts.follow_symlinks:
            real = files.outside(path, target.project)
            if real is not None:
                raise InstallError(
                    f"{path} leads out of the project (to {real}) through a symlink; refusing to write there "
                    "(nothing was written)",
                    hint="a repository must not be able to point pasture's write elsewhere; if the link is yours, "
                    "add --follow-symlinks",
                    command=self.rerun("--follow-symlinks"),
                )
        try:
            snap = files.snapshot(path)  # a folder where the file goes is refused here (NotAFile)
            files.check_writable(snap)
        except files.NotWritable as exc:
            raise InstallError(f"{exc} (nothing was written)") from None
        return snap

    def install_launcher(self) -> str:
        """Write and check the launcher; the shell word the hooks record for it."""
        opts, report = self.opts, self.report
        try:
            written = launcher.ensure(opts.env, opts.harness)
            word = launcher.shell_word(written.path)
        except launcher.LauncherError as exc:
            raise InstallError(
                f"{exc}; nothing was installed",
                hint="install pasture into a Python environment that stays (a venv or pipx), then run the "
                "command again",
            ) from None
        report.launcher = {
            "path": str(written.path),
            "change": written.change,
            "python": written.python,
            "paths": written.paths,
            "checked": written.check.detail,
            "recorded": f"{word} hook lifecycle ...",
        }
        if opts.env.get("PASTURE_BIN"):
            report.warnings.append(
                f"PASTURE_BIN is set here ({opts.env['PASTURE_BIN']}): the installed hooks ignore it "
                f"(they name the launcher by absolute path)"
                + (
                    f"; only {' and '.join(self.pasture_bin_readers)} still "
                    + ("read" if len(self.pasture_bin_readers) > 1 else "reads")
                    + " it"
                    if self.pasture_bin_readers
                    else ""
                )
            )
        return word

    def prune(self) -> None:
        """Remove the folders an uninstall left empty, up to the target's stop folder."""
        for folder in files.prune_empty_dirs(self.target.file.parent, self.target.stop):
            self.report.files.append(FileChange(folder, "removed", detail="empty folder"))


def write(snap: files.Snapshot, text: str, *, backup: bool = True) -> FileChange:
    """Replace the file atomically with ``text`` (a ``*.pasture-backup`` of what was there, unless told not to)."""
    if snap.exists and snap.data == text.encode("utf-8"):
        return FileChange(snap.path, "unchanged")
    if not snap.exists and not text:
        return FileChange(snap.path, "absent")
    try:
        saved = files.replace(snap, text.encode("utf-8"), backup=backup and snap.exists)
    except files.ConcurrentChange as exc:
        raise InstallError(str(exc)) from None
    except OSError as exc:
        raise InstallError(f"cannot write {snap.path}: {exc.strerror or exc}; it was left as it was") from None
    return FileChange(snap.path, "updated" if snap.exists else "created", saved)


def remove(snap: files.Snapshot) -> None:
    """Delete the file (no backup); refused, with the file left as it was, when it cannot be."""
    try:
        files.remove(snap, backup=False)
    except files.ConcurrentChange as exc:
        raise InstallError(str(exc)) from None
    except OSError as exc:
        raise InstallError(f"cannot remove {snap.path}: {exc.strerror or exc}; it was left as it was") from None


def undo(snap: files.Snapshot, change: FileChange) -> None:
    """Put a file we just wrote back as the snapshot had it (and its backup as it was)."""
    if change.change not in ("created", "updated"):
        return
    try:
        now = files.snapshot(snap.path)
        if snap.data is None:
            files.remove(now, backup=False)
        else:
            files.replace(now, snap.data, backup=False)  # its backup holds these very bytes
    except (OSError, files.ConcurrentChange):
        pass
