from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings
from repo_paths import REPO

from pasture.cli import main

# One Hypothesis profile for the whole suite: no per-example deadline and no "too slow" health check.
# Both measure wall time, so a busy machine (CI, two cores shared) failed a correct test; an example
# that truly hangs is still stopped by the test's own timeouts.
settings.register_profile("pasture", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("pasture")


def pytest_configure(config):
    # `pasture check` keeps its fast-path records in the user's cache folder: never the real one here
    # (subprocesses inherit this).
    os.environ["PASTURE_CACHE_DIR"] = tempfile.mkdtemp(prefix="pasture-test-cache-")
    # ... and signs them with a key in the user's state folder: never the real one either.
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="pasture-test-state-")


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject's addopts): two workers where the real hosts are left out (the fast tier),
    else one, so the real hosts run one at a time as before: their deadlines are measured against the
    hosts' own timeouts, which a second host session on the same two cores would eat into."""
    return 2 if "not real_host" in (config.getoption("markexpr") or "") else 1


def pytest_unconfigure(config):
    shutil.rmtree(os.environ.pop("PASTURE_CACHE_DIR", ""), ignore_errors=True)
    shutil.rmtree(os.environ.pop("XDG_STATE_HOME", ""), ignore_errors=True)


@pytest.fixture
def golden(snapshot):
    """``artifact.text == golden(artifact.path)``: the committed generated/<path> through syrupy
    (tests/generated_snapshot.py): its diff on a difference, and --snapshot-update writes the bytes."""
    from generated_snapshot import GeneratedFile

    store = snapshot.use_extension(GeneratedFile)
    return lambda path: store(name=path)


@pytest.fixture
def cli():
    """Run `pasture ARGS...`; returns the click Result (exit_code, stdout, stderr)."""

    def run(*args: str):
        return CliRunner().invoke(main, list(args), catch_exceptions=False)

    return run


@pytest.fixture(scope="session")
def npm_bin():
    """``node_modules/.bin`` of the pinned real hosts (tests/npm), installed once into ``.cache/npm/<digest>``.

    npm and node are prerequisites of the suite (the README says so): without them these tests fail
    with what to install, never skip silently.
    """
    from pasture.hostenv import NpmUnavailable, ensure_npm_tools

    try:
        return ensure_npm_tools(REPO)
    except NpmUnavailable as exc:
        pytest.fail(f"this test needs npm and node (>= 22) on PATH to install tests/npm: {exc}", pytrace=False)
