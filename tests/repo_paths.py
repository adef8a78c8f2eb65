"""Where the repository is, for tests in any folder (import this, never `conftest`: with several
conftest.py files, `import conftest` resolves to whichever was loaded first)."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def committed(path: str) -> str:
    """The committed bytes of generated/<path>: the one golden record (issue 21). A test that pins a
    rendered artifact's exact text asserts through syrupy instead (the `golden` fixture,
    tests/generated_snapshot.py: the same file, with syrupy's diff); this reads it for the tests that
    look inside it, or compare an installed copy. `pasture generate` (or `pytest --snapshot-update`)
    updates it: read the diff before committing."""
    return (REPO / "generated" / path).read_text(encoding="utf-8")
