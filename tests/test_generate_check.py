"""pasture generate / check: all-or-nothing writes, drift semantics (0/1/2), determinism."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from profile_fixture import LIFECYCLE, RUNTIME, write_project


def tree(root: Path) -> dict[str, bytes]:
    out = root / "generated"
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path, cli):
    write_project(tmp_path)
    result = cli("--root", str(tmp_path), "generate")
    assert result.exit_code == 0, result.output
    return tmp_path


def test_generate_writes_every_artifact_and_the_manifest(project):
    files = tree(project)
    assert "claude-code@2.1.261/settings.json" in files
    assert "python/pasture_contracts/claude_code_2_1_261.py" in files
    manifest = json.loads(files["manifest.json"])
    listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    assert set(listed) == set(files) - {"manifest.json"}
    for path, digest in listed.items():
        assert hashlib.sha256(files[path]).hexdigest() == digest


def test_check_is_clean_after_generate_and_generate_is_idempotent(project, cli):
    before = tree(project)
    result = cli("--root", str(project), "check")
    assert result.exit_code == 0
    assert result.stdout.startswith("generated/ matches the profiles")
    assert cli("--root", str(project), "generate").stdout == "generated/ is up to date.\n"
    assert tree(project) == before


def test_check_reports_modified_with_a_unified_diff(project, cli):
    target = project / "generated/claude-code@2.1.261/settings.json"
    target.write_text(target.read_text().replace('"timeout": 60', '"timeout": 61', 1))
    result = cli("--root", str(project), "check")
    assert result.exit_code == 1
    assert "modified: generated/claude-code@2.1.261/settings.json" in result.stdout
    assert '-            "timeout": 61' in result.stdout and '+            "timeout": 60' in result.stdout
    assert "--- a/generated/claude-code@2.1.261/settings.json" in result.stdout


def test_check_reports_missing_and_extra(project, cli):
    (project / "generated/claude-code@2.1.261/events.md").unlink()
    (project / "generated/claude-code@2.1.261/stale.json").write_text("{}")
    result = cli("--root", str(project), "check")
    assert result.exit_code == 1
    assert "missing: generated/claude-code@2.1.261/events.md" in result.stdout
    assert "extra: generated/claude-code@2.1.261/stale.json" in result.stdout
    assert cli("--root", str(project), "generate").exit_code == 0
    assert cli("--root", str(project), "check").exit_code == 0
    assert not (project / "generated/claude-code@2.1.261/stale.json").exists()


def test_crlf_on_disk_is_not_drift(project, cli):
    target = project / "generated/claude-code@2.1.261/events.md"
    target.write_bytes(target.read_bytes().replace(b"\n", b"\r\n"))
    assert cli("--root", str(project), "check").exit_code == 0


def test_pycache_is_not_drift(project, cli):
    cache = project / "generated/python/pasture_contracts/__pycache__"
    cache.mkdir()
    (cache / "x.cpython-311.pyc").write_bytes(b"\0")
    assert cli("--root", str(project), "check").exit_code == 0


def test_check_never_writes(tmp_path, cli):
    write_project(tmp_path)
    result = cli("--root", str(tmp_path), "check")
    assert result.exit_code == 1
    assert "missing: generated/manifest.json" in result.stdout
    assert not (tmp_path / "generated").exists()


def test_dry_run_shows_changes_and_writes_nothing(project, cli):
    before = tree(project)
    write_project(
        project,
        LIFECYCLE,
        RUNTIME.replace("reason: no bounded decision tool is bound", "reason: not bound on this contract"),
    )
    result = cli("--root", str(project), "generate", "--dry-run")
    assert result.exit_code == 0
    assert "modified: generated/claude-code@2.1.261/instructions.md" in result.stdout
    assert "nothing was written (--dry-run)" in result.stdout
    assert tree(project) == before


def test_bad_profile_leaves_generated_untouched(project, cli):
    before = tree(project)
    write_project(project, LIFECYCLE.replace("semantic: observation", "semantic: watching"))
    result = cli("--root", str(project), "generate")
    assert result.exit_code == 2
    assert "nothing was written" in result.stderr
    assert tree(project) == before
    assert cli("--root", str(project), "check").exit_code == 2


def test_failure_while_staging_leaves_generated_untouched(project, cli, monkeypatch):
    before = tree(project)
    # A changed timeout touches several files (settings, plugin hooks, table, manifest).
    write_project(project, LIFECYCLE.replace("  - name: Stop\n", "  - name: Stop\n    timeout: 20\n"))
    real_open = open
    calls = {"n": 0}

    def flaky_open(path, mode="r", *args, **kwargs):
        if "w" in mode and ".pasture-tmp-" in str(path):
            calls["n"] += 1
            if calls["n"] == 3:
                raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)

    import pasture.check.drift as gen

    monkeypatch.setattr(gen, "open", flaky_open, raising=False)
    result = cli("--root", str(project), "generate")
    assert result.exit_code == 2
    assert "No space left on device" in result.stderr
    assert tree(project) == before  # no temp files left, nothing renamed


def test_contract_option_limits_the_work(project, cli):
    result = cli("--root", str(project), "check", "--contract", "codex@9.9.9")
    assert result.exit_code == 2
    assert "no contract 'codex@9.9.9'" in result.stderr
    (project / "generated/claude-code@2.1.261/events.md").unlink()
    result = cli("--root", str(project), "check", "--contract", "claude-code@2.1.261")
    assert result.exit_code == 1


def test_output_is_identical_across_hash_seeds(tmp_path):
    digests = set()
    for seed in ("0", "1", "12345", "random"):
        root = tmp_path / f"seed-{seed}"
        write_project(root)
        env = dict(os.environ, PYTHONHASHSEED=seed)
        subprocess.run(
            [sys.executable, "-m", "pasture.cli", "--root", str(root), "generate"],
            env=env,
            check=True,
            capture_output=True,
        )
        digests.add(
            hashlib.sha256(
                json.dumps({k: v.decode() for k, v in tree(root).items()}, sort_keys=True).encode()
            ).hexdigest()
        )
    assert len(digests) == 1


def test_no_absolute_paths_or_timestamps(project):
    for path, data in tree(project).items():
        text = data.decode()
        assert str(project) not in text, path
        assert "/tmp" not in text and "/root" not in text, path
