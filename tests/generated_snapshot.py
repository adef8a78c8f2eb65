"""A syrupy extension whose snapshot store is `generated/` itself (issue 30 item 8).

The committed file generated/<path> is the one golden record of the artifact at <path>: a test
asserts ``artifact.text == golden(artifact.path)`` (the `golden` fixture, tests/conftest.py),
syrupy prints its diff when the bytes differ, and ``pytest --snapshot-update`` writes the rendered
bytes there, exactly as `pasture generate` writes them (``Artifact.data``: UTF-8, no newline
translation). Nothing else is a snapshot: syrupy never discovers, reports or deletes a file of
generated/ as unused (a file the renderer no longer makes is tests/render/test_generated_snapshots.py's
finding, and only that test removes it on --snapshot-update, as `pasture generate` would).

``PASTURE_SNAPSHOT_ROOT`` points the store at another project (the test that proves
``--snapshot-update`` writes what `pasture generate` writes runs it on a temp copy).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repo_paths import REPO
from syrupy.data import Snapshot, SnapshotCollection, SnapshotCollections
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation
    from syrupy.types import SnapshotIndex


def project_root() -> Path:
    return Path(os.environ.get("PASTURE_SNAPSHOT_ROOT") or REPO)


def generated_dir() -> Path:
    return project_root() / "generated"


class GeneratedFile(SingleFileSnapshotExtension):
    """snapshot(name=<path under generated/>): the committed file at that path, compared as text."""

    _write_mode = WriteMode.TEXT
    file_extension = ""

    @classmethod
    def get_location(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        if not isinstance(index, str) or not index or Path(index).is_absolute() or ".." in Path(index).parts:
            raise ValueError(f"a generated snapshot is named by its path under generated/, not {index!r}")
        return str(generated_dir() / index)

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(generated_dir())

    def discover_snapshots(
        self, *, test_location: PyTestLocation, ignore_extensions: list[str] | None = None
    ) -> SnapshotCollections:
        return SnapshotCollections()  # generated/ belongs to `pasture generate`: never "unused"

    @classmethod
    def matches_test_location(cls, *, test_location: PyTestLocation, snapshot_location: str) -> bool:
        return True  # the location is the artifact's path, not the test's name

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        collection = SnapshotCollection(location=snapshot_location)
        collection.add(Snapshot(name=Path(snapshot_location).name))
        return collection

    def read_snapshot_data_from_location(self, *, snapshot_location: str, snapshot_name: str, session_id: str) -> Any:
        try:
            data = Path(snapshot_location).read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None
        return data.decode("utf-8")  # bytes as committed: "\r\n" stays a difference

    @classmethod
    def write_snapshot_collection(
        cls, *, snapshot_collection: SnapshotCollection, name_order: dict[str, int] | None = None
    ) -> None:
        data = next(iter(snapshot_collection)).data
        if not isinstance(data, str):
            raise TypeError(f"a generated artifact is text, not {type(data).__name__}")
        Path(snapshot_collection.location).write_bytes(data.encode("utf-8"))  # what Artifact.data is

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        return None  # never: see discover_snapshots
