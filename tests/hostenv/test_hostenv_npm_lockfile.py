"""The committed npm manifest and lockfile: exact pins, no foreign URLs, installable by npm ci."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from pasture.hostenv import npm_tools

REPO = Path(__file__).resolve().parents[2]
NPM = REPO / "tests" / "npm"
EXACT = re.compile(r"^\d+\.\d+\.\d+$")


def _expected_pins() -> dict[str, str]:
    """Each host is pinned at a version that has its own contract in profiles/ (the real-host tests run
    it against that contract), and the OpenCode plugin typings at OpenCode's version."""
    pins = json.loads((NPM / "package.json").read_text())["dependencies"]
    for package, (harness, _binary) in {
        "@anthropic-ai/claude-code": ("claude-code", "claude"),
        "@openai/codex": ("codex", "codex"),
        "opencode-ai": ("opencode", "opencode"),
    }.items():
        assert (REPO / "profiles" / f"{harness}@{pins[package]}").is_dir(), (package, pins[package])
    return {p: pins[p] for p in ("@anthropic-ai/claude-code", "@openai/codex", "opencode-ai")} | {
        "@opencode-ai/plugin": pins["opencode-ai"]
    }


EXPECTED_PINS = _expected_pins()


@pytest.fixture(scope="module")
def manifest() -> dict:
    return json.loads((NPM / "package.json").read_text())


@pytest.fixture(scope="module")
def lock() -> dict:
    return json.loads((NPM / "package-lock.json").read_text())


def test_every_dependency_is_pinned_exactly(manifest: dict) -> None:
    deps = manifest["dependencies"]
    assert {name: deps[name] for name in EXPECTED_PINS} == EXPECTED_PINS
    assert deps["typescript"].startswith("5.")
    assert "@types/node" in deps
    assert all(EXACT.match(v) for v in deps.values()), deps


def test_lock_root_matches_manifest(manifest: dict, lock: dict) -> None:
    assert lock["lockfileVersion"] == 3
    assert lock["packages"][""]["dependencies"] == manifest["dependencies"]
    for name, version in manifest["dependencies"].items():
        assert lock["packages"][f"node_modules/{name}"]["version"] == version


def test_lock_carries_no_non_registry_url() -> None:
    text = (NPM / "package-lock.json").read_text()
    urls = re.findall(r"[a-z][a-z0-9+.-]*://[^\s\"]+", text)
    assert all(u.startswith("https://registry.npmjs.org/") for u in urls), urls
    assert "git+" not in text and "file:" not in text


def test_every_optional_platform_package_has_an_entry(lock: dict) -> None:
    """npm ci refuses a lock whose optional deps lack entries (see tests/npm/relock.py)."""
    packages = lock["packages"]
    for key, entry in packages.items():
        for dep in entry.get("optionalDependencies", {}):
            assert f"node_modules/{dep}" in packages or f"{key}/node_modules/{dep}" in packages, (key, dep)


def test_relock_fix_is_idempotent(lock: dict) -> None:
    sys.path.insert(0, str(NPM))
    try:
        import relock  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    again = relock.fix_lock(json.loads(json.dumps(lock)))
    assert again == lock
    assert relock.platform_of("opencode-linux-x64-baseline-musl") == {"os": ["linux"], "cpu": ["x64"], "libc": ["musl"]}
    assert relock.platform_of("opencode-windows-arm64") == {"os": ["win32"], "cpu": ["arm64"]}


def test_cache_folder_is_named_by_lockfile_digest() -> None:
    import hashlib

    digest = hashlib.sha256((NPM / "package-lock.json").read_bytes()).hexdigest()[:16]
    assert npm_tools.lockfile_digest(REPO) == digest
    assert npm_tools.pinned_versions(REPO)["opencode-ai"] == EXPECTED_PINS["opencode-ai"]


def test_ensure_npm_tools_reuses_a_complete_install_without_npm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A finished install (marker present) is returned without running npm at all."""
    (tmp_path / "tests" / "npm").mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        (tmp_path / "tests" / "npm" / name).write_bytes((NPM / name).read_bytes())
    digest = npm_tools.lockfile_digest(tmp_path)
    done = tmp_path / ".cache" / "npm" / digest
    (done / "node_modules" / ".bin").mkdir(parents=True)
    (done / npm_tools.MARKER).write_text(digest + "\n")
    monkeypatch.setattr(npm_tools, "npm_available", lambda: True)
    monkeypatch.setattr(npm_tools, "_install_into", lambda *a, **k: pytest.fail("must not reinstall"))
    assert npm_tools.ensure_npm_tools(tmp_path) == done / "node_modules" / ".bin"


def test_ensure_npm_tools_replaces_an_unmarked_folder_and_cleans_failed_staging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tests" / "npm").mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        (tmp_path / "tests" / "npm" / name).write_bytes((NPM / name).read_bytes())
    digest = npm_tools.lockfile_digest(tmp_path)
    partial = tmp_path / ".cache" / "npm" / digest
    (partial / "node_modules").mkdir(parents=True)  # no marker: a half-finished install
    monkeypatch.setattr(npm_tools, "npm_available", lambda: True)

    def failing(stage: Path, *args: object) -> None:
        (stage / "junk").write_text("x")
        raise npm_tools.NpmInstallError("boom")

    monkeypatch.setattr(npm_tools, "_install_into", failing)
    with pytest.raises(npm_tools.NpmInstallError):
        npm_tools.ensure_npm_tools(tmp_path)
    assert not [p for p in partial.parent.iterdir() if ".staging-" in p.name]

    def succeeding(stage: Path, src: Path, dig: str, timeout: float) -> None:
        (stage / "node_modules" / ".bin").mkdir(parents=True)
        (stage / npm_tools.MARKER).write_text(dig + "\n")

    monkeypatch.setattr(npm_tools, "_install_into", succeeding)
    assert npm_tools.ensure_npm_tools(tmp_path) == partial / "node_modules" / ".bin"
    assert (partial / npm_tools.MARKER).read_text().strip() == digest


def test_missing_npm_raises_npm_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests" / "npm").mkdir(parents=True)
    (tmp_path / "tests" / "npm" / "package-lock.json").write_text("{}")
    monkeypatch.setattr(npm_tools, "npm_available", lambda: False)
    with pytest.raises(npm_tools.NpmUnavailable):
        npm_tools.ensure_npm_tools(tmp_path)
