"""The committed host JSON Schemas (tests/host_schemas/, provenance in its README.md)."""

from __future__ import annotations

import json

from repo_paths import REPO

FOLDER = REPO / "tests" / "host_schemas"


def load(name: str) -> dict:
    """A host schema by file name; a missing file fails the test with what to do (never a skip)."""
    path = FOLDER / name
    if not path.is_file():
        raise AssertionError(
            f"{path} is missing: it is committed with the repository; restore it "
            f"(git checkout -- {path.relative_to(REPO)}) or follow tests/host_schemas/README.md"
        )
    return json.loads(path.read_text(encoding="utf-8"))
