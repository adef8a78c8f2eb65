from __future__ import annotations

from pathlib import Path

import pytest

from generator.hostenv import NpmUnavailable, ensure_npm_tools

REPO = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "real_host: runs a real agent host from tests/npm (skips only when npm is absent)"
    )


@pytest.fixture(scope="session")
def npm_bin() -> Path:
    """``node_modules/.bin`` of the pinned hosts: the one shared install in ``.cache/npm/<digest>``."""
    try:
        return ensure_npm_tools(REPO)
    except NpmUnavailable as exc:
        pytest.skip(f"real-host tests need npm and node on PATH: {exc}")
