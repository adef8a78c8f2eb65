"""Where the repository is, for tests in any folder (import this, never `conftest`: with several
conftest.py files, `import conftest` resolves to whichever was loaded first)."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
