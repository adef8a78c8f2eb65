"""Compare rendered artifacts with generated/ on disk, and write them all-or-nothing."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

from pasture.render.artifact import Artifact

GENERATED = "generated"
_IGNORED_DIRS = {"__pycache__"}


@dataclass
class Drift:
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (self.missing or self.extra or self.modified)

    def report(self, with_diff: bool = True) -> str:
        lines = []
        for label, paths in (("missing", self.missing), ("extra", self.extra), ("modified", self.modified)):
            lines += [f"{label}: {GENERATED}/{p}" for p in paths]
        if with_diff:
            for path in self.modified:
                lines.append(self.diffs[path].rstrip("\n"))
        return "\n".join(lines) + ("\n" if lines else "")


def _on_disk(out: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    if not out.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(out):
        dirnames[:] = sorted(d for d in dirnames if d not in _IGNORED_DIRS)
        for name in sorted(filenames):
            if name.endswith(".pyc") or name.startswith(".pasture-tmp-"):
                continue
            path = Path(dirpath) / name
            found[path.relative_to(out).as_posix()] = path
    return found


def compare(root: Path, artifacts: list[Artifact], scope: set[str] | None = None) -> Drift:
    """What differs between the rendered artifacts and generated/; CRLF on disk is not drift.

    With a scope (contract ids), only that contract's files and the project-wide files (manifest,
    table index, schemas: contract None) are compared, and only its folder is searched for extras.
    """
    disk = _on_disk(root / GENERATED)
    drift = Drift()
    wanted = {a.path: a for a in artifacts if scope is None or a.contract is None or a.contract in scope}
    every = {a.path for a in artifacts}
    for path, artifact in sorted(wanted.items()):
        if path not in disk:
            drift.missing.append(path)
            continue
        try:
            current = disk[path].read_bytes().decode("utf-8").replace("\r\n", "\n")
        except UnicodeDecodeError:
            current = None
        if current != artifact.text:
            drift.modified.append(path)
            before = (current or "<not UTF-8 text>\n").splitlines(keepends=True)
            drift.diffs[path] = "".join(
                difflib.unified_diff(
                    before,
                    artifact.text.splitlines(keepends=True),
                    fromfile=f"a/{GENERATED}/{path}",
                    tofile=f"b/{GENERATED}/{path}",
                )
            )
    for path in sorted(disk):
        if path not in every and (scope is None or path.split("/", 1)[0] in scope):
            drift.extra.append(path)
    return drift


def write(root: Path, artifacts: list[Artifact], drift: Drift) -> None:
    """Stage every changed file as a temp file beside its target, then rename all into place.

    Nothing is renamed until every temp file is written, so a failure while staging leaves
    generated/ exactly as it was.
    """
    out = root / GENERATED
    by_path = {a.path: a for a in artifacts}
    staged: list[tuple[Path, Path]] = []
    try:
        for path in drift.missing + drift.modified:
            target = out / path
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.parent / f".pasture-tmp-{os.getpid()}-{target.name}"
            with open(tmp, "wb") as fh:
                fh.write(by_path[path].data)
            staged.append((tmp, target))
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
    for path in drift.extra:
        (out / path).unlink()
        _prune(out, (out / path).parent)


def _prune(out: Path, folder: Path) -> None:
    while folder != out and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
