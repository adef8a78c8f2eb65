"""Install and uninstall command hooks in a JSON settings file whose ``hooks.<Event>`` lists hold matcher
groups (Claude Code's ``settings.json``; the merge itself, and what makes a hook ours, is
:mod:`.hooktable`). Foreign hooks, events and keys are never touched; install then uninstall gives the
user's file back byte for byte (from the backup, when nothing else changed since).

A host whose settings file carries more of pasture than hooks (Claude Code: ``permissions.deny`` rules)
passes a :class:`SettingsAmendment`; Codex keeps its own flow (its trust lives in config.toml,
pasture/hosts/codex/install.py) but uses the readers here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pasture.install import files, hooktable
from pasture.install.report import FileChange, InstallError, Report
from pasture.install.session import Session, remove, write


class SettingsAmendment:
    """What a host adds to its settings file besides the hooks (the default adds nothing)."""

    def merge(self, session: Session, existing: dict[str, Any] | None, document: dict[str, Any]) -> dict[str, Any]:
        """``document`` (the hooks merged) with the host's additions; raises InstallError to refuse."""
        return document

    def warn(self, session: Session, existing: dict[str, Any] | None) -> None:
        """Warnings about the file as it was (after the mixed-group warning)."""

    def installed(self, session: Session, change: FileChange) -> None:
        """After the write: the change's detail, and any record the host keeps."""

    def unmerge(self, session: Session, existing: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """``existing`` without the host's additions, and whether that changed it."""
        return existing, False

    def uninstalled(self, session: Session) -> None:
        """After an uninstall (also when there was no file)."""


def read(snap: files.Snapshot) -> dict[str, Any] | None:
    """The parsed hooks file (None when it does not exist); refused when it is not JSON we can merge into."""
    if not snap.exists:
        return None
    try:
        text = snap.data.decode("utf-8")  # type: ignore[union-attr]
    except UnicodeDecodeError:
        raise InstallError(f"{snap.path}: not UTF-8 text; refusing to touch it") from None
    try:
        return hooktable.parse(text, str(snap.path))
    except hooktable.HooksDocumentError as exc:
        raise InstallError(
            f"{exc}; refusing to touch it (nothing was written)",
            hint=f"fix or move {snap.path}, then run the command again",
        ) from None


def holds_ours(data: bytes, path: Path) -> bool:
    """Whether the file's bytes hold a pasture hook (False for anything unreadable)."""
    try:
        return bool(hooktable.our_handlers(hooktable.parse(data.decode("utf-8"), str(path))))
    except (UnicodeDecodeError, hooktable.HooksDocumentError):
        return False


def mixed_warning(report: Report, path: Path, mixed: list[str]) -> None:
    if mixed:
        report.warnings.append(
            f"{path}: hooks.{', hooks.'.join(mixed)} mix pasture's hook with other handlers "
            "in one group; left as they are (pasture hooks there may run twice)"
        )


def recorded_word(existing: dict[str, Any] | None) -> str | None:
    """The binary word the installed hooks already record (``--trust-only`` trusts them as they are)."""
    for _e, _g, _h, handler in hooktable.our_handlers(existing or {}):
        match = hooktable.OUR_COMMAND.match(handler["command"])
        if match:
            return hooktable.word_of(match)
    return None


def uninstalled_text(snap: files.Snapshot, document: dict[str, Any]) -> str:
    """The file without our hooks. When the backup holds exactly that document (the install merged
    into it and nothing else changed since), its bytes are used, so install + uninstall gives the
    user's file back byte for byte, formatting included."""
    try:
        saved = files.backup_path(snap.real).read_bytes().decode("utf-8")
        if hooktable.same(hooktable.parse(saved, "backup"), document):
            return saved
    except (OSError, UnicodeDecodeError, hooktable.HooksDocumentError):
        pass
    return hooktable.render(document, snap.text)


def install(session: Session, amendment: SettingsAmendment | None = None) -> None:
    """Merge the adapter's hooks (recording the launcher) into the target file."""
    amendment = amendment or SettingsAmendment()
    target, report, adapter = session.target, session.report, session.adapter
    assert adapter is not None  # install sessions carry the adapter
    word = session.install_launcher()
    snap = session.checked(target.file)
    existing = read(snap)
    result = hooktable.merge(existing, hooktable.with_binary(adapter.hooks_document(), word))
    document = amendment.merge(session, existing, result.document)
    changed = result.changed or not hooktable.same(document, result.document)
    text = hooktable.render(document, snap.text)
    mixed_warning(report, target.file, result.mixed)
    amendment.warn(session, existing)
    change = write(snap, text) if changed else FileChange(snap.path, "unchanged")
    amendment.installed(session, change)
    report.files.append(change)


def uninstall(session: Session, amendment: SettingsAmendment | None = None) -> None:
    """Take our hooks (and the amendment's additions) out of the target file; delete it when nothing else is left."""
    amendment = amendment or SettingsAmendment()
    target, report = session.target, session.report
    snap = session.checked(target.file)
    existing = read(snap)
    if existing is None:
        report.files.append(FileChange(target.file, "absent"))
        amendment.uninstalled(session)
        return
    existing, amended = amendment.unmerge(session, existing)
    result = hooktable.unmerge(existing, keep_hooks_key=False)
    if amended and not result.changed:
        result.changed = True
    if amended and not result.deleted and not result.document:
        result.deleted = True
    mixed_warning(report, target.file, result.mixed)
    apply_unmerge(session, snap, result)
    amendment.uninstalled(session)
    if result.deleted:
        session.prune()


def apply_unmerge(session: Session, snap: files.Snapshot, result: hooktable.MergeResult) -> None:
    """Write (or delete) the hooks file as :func:`hooktable.unmerge` left it, and report it."""
    target, report = session.target, session.report
    if not result.changed:
        report.files.append(FileChange(target.file, "unchanged", detail="no pasture hooks in it"))
    elif result.deleted:
        remove(snap)
        report.files.append(
            FileChange(
                target.file, "removed", detail=f"{result.removed_groups} pasture group(s); nothing else was left in it"
            )
        )
    else:
        change = write(snap, uninstalled_text(snap, result.document))
        change.detail = f"{result.removed_groups} pasture group(s) removed"
        report.files.append(change)
