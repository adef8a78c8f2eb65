"""Hostile profiles (issue 9 item 8): alias bombs, deep nesting and oversize files are refused with
file:line before anything is built, in bounded time and memory, and generate writes nothing.

Time is not measured here (benchmarks measure); the subprocess runs under an address-space limit
that the unbounded expansion blew through (1.8 GB for an 18 KB file) and a hang guard, and the
in-process tests prove the refusal comes before a single value is built.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest
from profile_fixture import CONTRACT, LIFECYCLE, write_project

from pasture.profile import yamlsrc

LIFE = f"profiles/{CONTRACT}/lifecycle.yaml"


def billion_laughs() -> tuple[str, int]:
    """The classic: ten levels of nine aliases each (10^9 leaves). (text, line of the refused value)"""
    lines = ['lol0: &lol0 "lol"']
    for i in range(1, 10):
        lines.append(f"lol{i}: &lol{i} [" + ", ".join([f"*lol{i - 1}"] * 9) + "]")
    # Level 5 (66,430 nodes expanded) is the first past the budget of a file this small (~10,600).
    return LIFECYCLE + "\n".join(lines) + "\n", LIFECYCLE.count("\n") + 1 + 5


def alias_heavy_18k() -> str:
    """About 18 KB of mostly aliases: a 60-item list, lists of it, lists of those."""
    text = LIFECYCLE + "base: &base [" + ", ".join(f"v{i}" for i in range(60)) + "]\n"
    text += "mid: &mid [" + ", ".join(["*base"] * 120) + "]\n"
    i = 0
    while len(text) < 18_000:
        text += f"row{i}: [" + ", ".join(["*mid"] * 40) + "]\n"
        i += 1
    return text


def oversize() -> str:
    comment = "# " + "x" * 1000 + "\n"
    return LIFECYCLE + comment * (yamlsrc.MAX_BYTES // len(comment) + 1)


CASES = {
    "billion laughs": (lambda: billion_laughs()[0], "aliases expand this value"),
    "alias-heavy 18 KB": (alias_heavy_18k, "aliases expand this value"),
    "recursive alias": (lambda: LIFECYCLE + "loop: &loop [1, *loop]\n", "recursive alias"),
    "deep nesting": (lambda: LIFECYCLE + "deep: " + "[" * 200 + "]" * 200 + "\n", "nesting deeper than 64"),
    # libyaml >= the one in PyYAML 6.0.4 stops at its own depth limit ("nesting depth"); older ones
    # parse it and our own limit refuses it: either way, refused with file:line.
    "deeper than libyaml allows": (
        lambda: LIFECYCLE + "deep: " + "[" * 5000 + "]" * 5000 + "\n",
        ("nesting depth", "nesting deeper than 64"),
    ),
    "oversize": (oversize, "a profile may hold at most"),
}


def _limited() -> None:
    # Far below what the unbounded expansion took, comfortably above a normal run (~300 MiB).
    limit = 768 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _tree(root: Path) -> dict[str, bytes]:
    out = root / "generated"
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated_project(tmp_path_factory) -> Path:
    """A valid project with its generated/ written once; each test works on a copy."""
    root = tmp_path_factory.mktemp("generated-project")
    write_project(root)
    done = subprocess.run(
        [sys.executable, "-m", "pasture", "--root", str(root), "generate"], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return root


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_with_file_and_line_and_nothing_written(tmp_path, case, generated_project):
    import shutil

    make, message = CASES[case]
    tmp_path = tmp_path / "project"
    shutil.copytree(generated_project, tmp_path)
    generate = [sys.executable, "-m", "pasture", "--root", str(tmp_path), "generate"]
    before = _tree(tmp_path)
    assert before
    (tmp_path / LIFE).write_text(make(), encoding="utf-8")
    done = subprocess.run(generate, capture_output=True, text=True, timeout=60, preexec_fn=_limited)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{LIFE}:"), first
    line = int(first.split(":")[1])
    messages = message if isinstance(message, tuple) else (message,)
    assert line >= 1 and any(m in first for m in messages), first
    assert "nothing was written" in done.stderr
    assert _tree(tmp_path) == before


def test_billion_laughs_names_the_line_that_crosses_the_budget():
    text, line = billion_laughs()
    with pytest.raises(yamlsrc.YamlProblem) as info:
        yamlsrc.load(Path("x.yaml"), text)
    assert info.value.mark.line == line


@pytest.mark.parametrize("case", ["billion laughs", "alias-heavy 18 KB", "recursive alias", "deep nesting"])
def test_refused_before_any_value_is_built(case, monkeypatch):
    built = []
    real = yamlsrc._build
    monkeypatch.setattr(yamlsrc, "_build", lambda *a: built.append(1) or real(*a))
    with pytest.raises(yamlsrc.YamlProblem):
        yamlsrc.load(Path("x.yaml"), CASES[case][0]())
    assert built == []


def test_fresh_project_gets_no_generated_folder(tmp_path):
    write_project(tmp_path)
    (tmp_path / LIFE).write_text(billion_laughs()[0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pasture", "--root", str(tmp_path), "generate"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_limited,
    )
    assert done.returncode == 2 and not (tmp_path / "generated").exists()


def test_ordinary_anchors_and_merge_keys_still_load():
    text = (
        "defaults: &d {required: true, kind: session}\n"
        "ids: &ids [{<<: *d, field: session_id}, {<<: *d, field: turn_id}]\n"
        + "".join(f"row{i}: {{identities: *ids, defaults: *d}}\n" for i in range(200))
    )
    src = yamlsrc.load(Path("x.yaml"), text)
    assert src.data["row199"]["identities"][1] == {"required": True, "kind": "session", "field": "turn_id"}


def test_budget_grows_with_the_document():
    """A large plain document (no aliases) is never mistaken for an expansion, however dense."""
    dense = "[" + ",".join("1" for _ in range(50_000)) + "]\n"  # 2 bytes per node, far past a bytes budget
    assert len(yamlsrc.load(Path("x.yaml"), dense).data) == 50_000
    shared = "a: &a [" + ",".join("1" for _ in range(1000)) + "]\n" + "".join(f"k{i}: *a\n" for i in range(12))
    yamlsrc.load(Path("x.yaml"), shared)  # 12 extra copies of 1,001 nodes: within 10,000 + 4 per distinct node
    with pytest.raises(yamlsrc.YamlProblem, match="aliases expand"):
        yamlsrc.load(Path("x.yaml"), shared + "".join(f"m{i}: [*a, *a, *a]\n" for i in range(10)))
