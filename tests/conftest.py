from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli():
    """Run `pasture ARGS...`; returns the click Result (exit_code, stdout, stderr)."""

    def run(*args: str):
        return CliRunner().invoke(main, list(args), catch_exceptions=False)

    return run
