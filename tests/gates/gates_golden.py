"""Golden files for the gates tests: tests/gates/golden/<name>, exact bytes.

Regenerate with ``PASTURE_UPDATE_GOLDENS=1 python -m pytest tests/gates`` and read every changed
file before committing it. (A plain module rather than a conftest.py: a second ``conftest``
module would shadow tests/conftest.py for the suites that import it by name.)
"""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def _first_difference(want: str, got: str) -> str:
    want_lines, got_lines = want.split("\n"), got.split("\n")
    for number, (w, g) in enumerate(zip(want_lines, got_lines, strict=False), start=1):
        if w != g:
            return f"first difference at line {number}:\n want: {w!r}\n  got: {g!r}"
    return f"line counts differ: want {len(want_lines)}, got {len(got_lines)}"


def golden(name: str, text: str) -> None:
    """Assert ``text`` equals tests/gates/golden/<name> byte for byte."""
    path = GOLDEN_DIR / name
    if os.environ.get("PASTURE_UPDATE_GOLDENS") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    assert path.exists(), f"missing golden {name}; run with PASTURE_UPDATE_GOLDENS=1 and review it"
    want = path.read_bytes().decode("utf-8")
    assert text == want, f"{name}: {_first_difference(want, text)}"
