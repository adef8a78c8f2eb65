"""Where the repository is, for tests in any folder (import this, never `conftest`: with several
conftest.py files, `import conftest` resolves to whichever was loaded first)."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def committed(path: str) -> str:
    """The committed bytes of generated/<path>: the one golden record (issue 21). Tests that pin an
    artifact's exact text compare with it, so the same bytes are never pinned twice; `pasture
    generate` is the one command that updates it (read the diff before committing)."""
    return (REPO / "generated" / path).read_text(encoding="utf-8")
