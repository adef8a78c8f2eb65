"""Hypothesis runs without wall-clock limits everywhere (issue 30 item 5): a busy machine must not fail
a correct property test. tests/conftest.py loads the profile; no test sets its own deadline."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, settings
from repo_paths import REPO


def test_the_loaded_profile_measures_no_wall_time() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_no_test_sets_a_hypothesis_deadline_of_its_own() -> None:
    pattern = re.compile(r"@settings\([^)]*deadline\s*=", re.S)
    offenders = [
        p.relative_to(REPO).as_posix()
        for p in (REPO / "tests").rglob("*.py")
        if pattern.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
