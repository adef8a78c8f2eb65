"""Every generated artifact, byte for byte, against its committed file under generated/ through syrupy
(tests/generated_snapshot.py: generated/ is the snapshot store, so there is one golden record).
`pytest --snapshot-update` writes what `pasture generate` writes (the same renderer, the same bytes):
the last test proves it on a temp copy."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from generated_snapshot import generated_dir, project_root
from loading import load_project
from repo_paths import REPO

from pasture.hosts import HOSTS
from pasture.render.project import render_project


def _artifacts() -> dict[str, str]:
    root = project_root()
    return {a.path: a.text for a in render_project(load_project(root), root, hosts=HOSTS)}


ARTIFACTS = _artifacts()


@pytest.mark.parametrize("path", sorted(ARTIFACTS))
def test_generated_artifact_bytes(golden, path: str) -> None:
    assert ARTIFACTS[path] == golden(path)


def test_generated_holds_nothing_the_renderer_does_not_make(request: pytest.FixtureRequest) -> None:
    out = generated_dir()
    extra = sorted(
        p.relative_to(out).as_posix()
        for p in out.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.relative_to(out).as_posix() not in ARTIFACTS
    )
    if extra and request.config.getoption("--snapshot-update"):
        for path in extra:  # what `pasture generate` removes
            (out / path).unlink()
        return
    assert extra == [], "not rendered any more (`pasture generate` or `pytest --snapshot-update` removes them)"


def _project_copy(dest: Path) -> Path:
    dest.mkdir()
    for folder in ("profiles", "captures", "generated"):
        shutil.copytree(REPO / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def test_snapshot_update_writes_what_pasture_generate_writes(tmp_path: Path) -> None:
    by_update, by_generate = _project_copy(tmp_path / "update"), _project_copy(tmp_path / "generate")
    for root in (by_update, by_generate):  # the same drift in both: one file changed, one gone, one extra
        out = root / "generated"
        changed, gone = sorted(ARTIFACTS)[0], sorted(ARTIFACTS)[1]
        (out / changed).write_bytes((out / changed).read_bytes().replace(b"\n", b"\r\n", 1) + b"# edited\n")
        (out / gone).unlink()
        (out / "stale.txt").write_text("no longer rendered\n")
    before = _tree(by_update / "generated")

    env = {**os.environ, "PASTURE_SNAPSHOT_ROOT": str(by_update)}
    update = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "--snapshot-update",
         "tests/render/test_generated_snapshots.py", "-k", "artifact_bytes or renderer_does_not_make"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert update.returncode == 0, update.stdout[-3000:] + update.stderr[-3000:]
    generate = subprocess.run(
        [sys.executable, "-m", "pasture", "--root", str(by_generate), "generate"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert generate.returncode == 0, generate.stdout + generate.stderr

    after = _tree(by_update / "generated")
    assert after != before  # it did write
    assert after == _tree(by_generate / "generated")
    assert after == _tree(REPO / "generated")  # and both are the committed bytes
