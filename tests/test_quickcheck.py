"""The fast path of `pasture check` (pasture/check/quick.py): it answers only for an unchanged project,
and every kind of edit sends the check back through the full path that can report drift.

Each run is a fresh interpreter through the console script's entry point, so the fast path really
runs; "fast" means the run finished without importing click (the full check always imports it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from profile_fixture import LIFECYCLE, write_project
from repo_paths import REPO

from pasture import resources
from pasture.check import quick

PROBE = r"""
import json, sys
from pasture.entry import main
sys.argv = ["pasture", *sys.argv[1:]]
try:
    code = main()
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("\n@@" + json.dumps({"code": code or 0, "fast": "click" not in sys.modules}))
"""


def run(*args: str, env: dict | None = None) -> tuple[int, bool, str]:
    """(exit code, whether the fast path answered, stdout) of `pasture ARGS...`."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )
    out, _, tail = done.stdout.rpartition("\n@@")
    if not tail:
        raise AssertionError(f"pasture {' '.join(args)} died: {done.stderr}")
    result = json.loads(tail)
    return result["code"], result["fast"], out


CITED = LIFECYCLE.replace("sources:\n", "sources:\n  notes: docs/hook-notes.md\n", 1)


@pytest.fixture(scope="module")
def generated_project(tmp_path_factory) -> Path:
    """The test project with generated/ written once (by the console script); tests work on copies."""
    root = tmp_path_factory.mktemp("quickcheck") / "project"
    write_project(root, lifecycle=CITED)
    (root / "docs").mkdir()
    (root / "docs" / "hook-notes.md").write_text("notes the profile cites\n")
    (root / "captures").mkdir()
    (root / "captures" / "README.md").write_text("captures\n")
    code, fast, _ = run("--root", str(root), "generate", env={"PASTURE_NO_CACHE": "1"})
    assert (code, fast) == (0, False)
    return root


@pytest.fixture
def project(tmp_path, monkeypatch, generated_project, cli):
    """A copy with its own record: a full check of it (in-process, quicker than a process) left one."""
    monkeypatch.setenv("PASTURE_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "project"
    shutil.copytree(generated_project, root)
    assert cli("--root", str(root), "check").exit_code == 0
    return root


def test_unchanged_project_is_answered_fast_with_the_full_verdict(project):
    code, fast, full = run("check", "--root", str(project), env={"PASTURE_NO_CACHE": "1"})
    assert (code, fast) == (0, False)
    code, fast, quick = run("check", "--root", str(project))
    assert (code, fast) == (0, True)
    assert quick == full and quick.startswith("generated/ matches the profiles (")
    # the group's --root and --json take the fast path too, with the full path's JSON
    assert run("--root", str(project), "check")[:2] == (0, True)
    code, fast, quick_json = run("check", "--root", str(project), "--json")
    _, _, full_json = run("check", "--root", str(project), "--json", env={"PASTURE_NO_CACHE": "1"})
    assert (code, fast) == (0, True) and json.loads(quick_json) == json.loads(full_json)


def test_cwd_is_the_default_root(project, monkeypatch):
    monkeypatch.chdir(project)
    assert run("check")[:2] == (0, True)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


EDITS = {
    # generated/: any byte, an extra file, a missing file, the manifest itself
    "generated file": (
        lambda r: _edit(r / "generated/claude-code@2.1.261/settings.json", '"timeout": 60', '"timeout": 61'),
        1,
    ),
    "extra generated file": (lambda r: (r / "generated/claude-code@2.1.261/extra.json").write_text("{}\n"), 1),
    "missing generated file": (lambda r: (r / "generated/claude-code@2.1.261/events.md").unlink(), 1),
    "extra file in a hidden folder": (
        lambda r: (r / "generated/.git").mkdir() or (r / "generated/.git/x").write_text(""),
        1,
    ),
    "manifest": (
        lambda r: _edit(r / "generated/manifest.json", '"generator": "pasture"', '"generator":  "pasture"'),
        1,
    ),
    "generated python table": (
        lambda r: (r / "generated/python/pasture_contracts/_row.py").write_text(
            (r / "generated/python/pasture_contracts/_row.py").read_text() + "# tampered\n"
        ),
        1,
    ),
    # inputs
    "profile": (
        lambda r: _edit(
            r / "profiles/claude-code@2.1.261/lifecycle.yaml",
            "  - name: PreToolUse\n",
            "  - name: PreToolUse\n    timeout: 61\n",
        ),
        1,
    ),
    "invalid profile": (
        lambda r: _edit(r / "profiles/claude-code@2.1.261/lifecycle.yaml", "floor: 2.1.261", "floor: two"),
        2,
    ),
    "cited file removed": (lambda r: (r / "docs/hook-notes.md").unlink(), 2),
    "template override": (lambda r: _override(r, "json.j2", lambda t: t + "\n"), 1),
}


def _tiered(cases: dict, fast: set[str]) -> list:
    """Every case as a parameter; those not in ``fast`` run in the slow tier (``-m slow``, ``-m ""``)
    only. The fast tier keeps one case of each kind of change, so it still fails if the fast path
    stops noticing that kind."""
    assert fast <= set(cases), fast - set(cases)
    return [key if key in fast else pytest.param(key, marks=pytest.mark.slow) for key in sorted(cases)]


def _override(root: Path, name: str, change) -> None:
    target = root / "templates" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(change((Path(resources.templates_folder()) / name).read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "kind",
    _tiered(
        EDITS,
        {
            "generated file",
            "missing generated file",
            "profile",
            "invalid profile",
            "cited file removed",
            "template override",
        },
    ),
)
def test_every_kind_of_edit_falls_through_to_the_full_check(project, kind):
    assert run("check", "--root", str(project))[:2] == (0, True)
    edit, expected = EDITS[kind]
    edit(project)
    code, fast, out = run("check", "--root", str(project))
    assert not fast, f"the fast path vouched for a project whose {kind} changed"
    assert code == expected, out


@pytest.mark.parametrize("kind", ["capture", "cited file edited", "identical template override"])
def test_edits_that_leave_the_output_alone_still_get_a_full_check(project, kind):
    """The fast path cannot know an edit is harmless; the full check decides (clean here), and
    records the new state, so the next run is fast again."""
    assert run("check", "--root", str(project))[:2] == (0, True)
    if kind == "capture":
        (project / "captures" / "README.md").write_text("captures, reworded\n")
    elif kind == "cited file edited":
        (project / "docs" / "hook-notes.md").write_text("notes, reworded\n")
    else:
        _override(project, "json.j2", lambda t: t)
    assert run("check", "--root", str(project))[:2] == (0, False)
    assert run("check", "--root", str(project))[:2] == (0, True)


def test_crlf_on_disk_is_not_drift_on_either_path(project):
    target = project / "generated/claude-code@2.1.261/settings.json"
    target.write_bytes(target.read_bytes().replace(b"\n", b"\r\n"))
    assert run("check", "--root", str(project), env={"PASTURE_NO_CACHE": "1"})[0] == 0
    assert run("check", "--root", str(project))[:2] == (0, True)


def test_no_record_no_cache_or_another_command_shape_means_the_full_check(project, tmp_path):
    assert run("check", "--root", str(project), env={"PASTURE_CACHE_DIR": str(tmp_path / "empty")})[:2] == (0, False)
    assert run("check", "--root", str(project), env={"PASTURE_NO_CACHE": "1"})[:2] == (0, False)
    assert run("check", "--root", str(project), "--contract", "claude-code@2.1.261")[:2] == (0, False)
    code, fast, _ = run("check", "--root", str(project), "--contract", "nope@1.0.0")
    assert (code, fast) == (2, False)


def test_a_record_for_another_root_vouches_for_nothing(project, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    assert run("check", "--root", str(copy))[:2] == (0, False)


def test_the_record_lives_outside_the_project(project, tmp_path):
    records = list((tmp_path / "cache").rglob("*.json"))
    assert len(records) == 1
    assert not (project / ".pasture").exists()
    assert json.loads(records[0].read_text())["cited"] == ["docs/hook-notes.md"]


# --- what the digest covers that a test project cannot edit: the installed package itself ----------


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    """The digest computed against copies of the generator sources and packaged templates."""
    gen = tmp_path / "pkg" / "pasture"
    shutil.copytree(resources.package_folder("pasture"), gen, ignore=shutil.ignore_patterns("__pycache__"))
    tpl = tmp_path / "pkg" / "templates"
    shutil.copytree(resources.templates_folder(), tpl, ignore=shutil.ignore_patterns("__pycache__"))
    real = resources.package_folder

    def folder(name: str) -> str:
        return {"pasture": str(gen), resources.TEMPLATES: str(tpl)}.get(name) or real(name)

    monkeypatch.setattr(resources, "package_folder", folder)
    return gen, tpl


def test_digest_covers_generator_sources_packaged_templates_and_version(package_copy, monkeypatch):
    root = str(REPO)
    gen, tpl = package_copy
    base = quick.inputs_digest(root, [])
    assert quick.inputs_digest(root, []) == base  # deterministic
    (gen / "hosts" / "claude_code.py").write_text((gen / "hosts" / "claude_code.py").read_text() + "\n# edit\n")
    after_source = quick.inputs_digest(root, [])
    assert after_source != base
    (tpl / "json.j2").write_text((tpl / "json.j2").read_text() + "\n")
    after_template = quick.inputs_digest(root, [])
    assert after_template != after_source
    (gen / "new_module.py").write_text("X = 1\n")
    after_new = quick.inputs_digest(root, [])
    assert after_new != after_template
    (gen / "__pycache__").mkdir(exist_ok=True)
    (gen / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"cache")
    assert quick.inputs_digest(root, []) == after_new  # bytecode caches are not sources
    monkeypatch.setattr(quick, "__version__", "9.9.9")
    assert quick.inputs_digest(root, []) != after_new


def test_digest_covers_the_libraries_that_shape_the_output(monkeypatch):
    base = quick.inputs_digest(str(REPO), [])
    names = quick._distributions()
    assert all("(not found)" not in n for n in names), names
    monkeypatch.setattr(quick, "_distributions", lambda: [n.replace("jinja2-", "jinja2-0") for n in names])
    assert quick.inputs_digest(str(REPO), []) != base


def test_an_edit_made_while_the_full_check_runs_is_not_recorded_as_verified(project, monkeypatch, cli):
    """The inputs are stamped before the full check reads them: a profile edited after it was read
    (the verdict is about the old text) leaves a record that does not match the new text."""
    import pasture.profile.loader

    real = pasture.profile.loader.load_project
    lifecycle = project / "profiles/claude-code@2.1.261/lifecycle.yaml"

    def load_then_edit(*args, **kwargs):
        contracts = real(*args, **kwargs)
        _edit(lifecycle, "  - name: PreToolUse\n", "  - name: PreToolUse\n    timeout: 61\n")
        return contracts

    monkeypatch.setattr(pasture.profile.loader, "load_project", load_then_edit)
    assert cli("--root", str(project), "check").exit_code == 0  # a verdict on the text it read
    monkeypatch.setattr(pasture.profile.loader, "load_project", real)
    code, fast, _ = run("check", "--root", str(project))
    assert (code, fast) == (1, False)


def test_a_cited_file_removed_while_the_check_runs_leaves_no_record(project, monkeypatch, cli, tmp_path):
    import pasture.profile.loader

    real = pasture.profile.loader.load_project

    def load_then_remove(*args, **kwargs):
        contracts = real(*args, **kwargs)
        (project / "docs" / "hook-notes.md").unlink()
        return contracts

    for record in (tmp_path / "cache").rglob("*.json"):
        record.unlink()
    monkeypatch.setattr(pasture.profile.loader, "load_project", load_then_remove)
    assert cli("--root", str(project), "check").exit_code == 0
    assert list((tmp_path / "cache").rglob("*.json")) == []


# --- generate leaves a verdict only after the evidence check; a verdict is believed only when signed ------

CLAUDE, CODEX = "claude-code@2.1.332", "codex@0.171.0"


def _profile(root: Path, contract: str) -> Path:
    return root / "profiles" / contract / "lifecycle.yaml"


def _capture(root: Path, contract: str, scenario: str) -> Path:
    return root / "captures" / contract / scenario / "scenario.json"


# Each breaks one blocking claim's (or deny channel's) evidence; the full check exits 1 (2 for a missing file).
EVIDENCE_MUTATIONS = {
    "blocking claim cites another host version's capture": (
        lambda r: _edit(
            _profile(r, CLAUDE),
            f"capture-pre-tool-use-exit-2: captures/{CLAUDE}/",
            "capture-pre-tool-use-exit-2: captures/claude-code@2.1.328/",
        ),
        1,
    ),
    "blocking claim cites another host's capture": (
        lambda r: _edit(
            _profile(r, CLAUDE),
            f"capture-pre-tool-use-exit-2: captures/{CLAUDE}/",
            f"capture-pre-tool-use-exit-2: captures/{CODEX}/",
        ),
        1,
    ),
    "blocking claim cites an unpinned URL": (
        lambda r: _edit(
            _profile(r, CODEX),
            f"capture-stop-exit-2: captures/{CODEX}/stop-exit-2/scenario.json",
            "capture-stop-exit-2: https://github.com/openai/codex/blob/main/codex-rs/hooks/src/events/stop.rs",
        ),
        1,
    ),
    "cited capture whose refusal did not hold": (
        lambda r: _edit(_capture(r, CLAUDE, "pre-tool-use-exit-2"), '"refusal_held": true', '"refusal_held": false'),
        1,
    ),
    "cited capture refuses another event": (
        lambda r: _edit(
            _profile(r, CLAUDE),
            f"capture-pre-tool-use-exit-2: captures/{CLAUDE}/pre-tool-use-exit-2/",
            f"capture-pre-tool-use-exit-2: captures/{CLAUDE}/stop-exit-2/",
        ),
        1,
    ),
    "cited capture has another channel": (
        lambda r: _edit(
            _profile(r, CLAUDE),
            f"capture-pre-tool-use-exit-2: captures/{CLAUDE}/pre-tool-use-exit-2/",
            f"capture-pre-tool-use-exit-2: captures/{CLAUDE}/pre-tool-use-json-deny/",
        ),
        1,
    ),
    "deny channel cites an exit-2 capture": (
        lambda r: _edit(
            _profile(r, CODEX),
            f"capture-pre-tool-use-json-deny: captures/{CODEX}/pre-tool-use-json-deny/",
            f"capture-pre-tool-use-json-deny: captures/{CODEX}/pre-tool-use-exit-2/",
        ),
        1,
    ),
    "cited capture's host version is not a version": (
        lambda r: _edit(
            _capture(r, CLAUDE, "stop-exit-2"), f'"host_version": "{CLAUDE.split("@")[1]}"', '"host_version": "latest"'
        ),
        1,
    ),
    "cited capture removed": (lambda r: _capture(r, CODEX, "stop-exit-2").unlink(), 2),
}


@pytest.fixture(scope="module")
def evidenced_project(tmp_path_factory) -> Path:
    """Two committed contracts with the captures their claims cite (and one of another version)."""
    root = tmp_path_factory.mktemp("evidence") / "project"
    for contract in (CLAUDE, CODEX):
        shutil.copytree(REPO / "profiles" / contract, root / "profiles" / contract)
    for contract in (CLAUDE, CODEX, "claude-code@2.1.328"):
        shutil.copytree(REPO / "captures" / contract, root / "captures" / contract)
    code, fast, _ = run("--root", str(root), "generate", env={"PASTURE_NO_CACHE": "1"})
    assert (code, fast) == (0, False)
    return root


@pytest.fixture
def evidenced(tmp_path, monkeypatch, evidenced_project) -> Path:
    monkeypatch.setenv("PASTURE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = tmp_path / "project"
    shutil.copytree(evidenced_project, root)
    return root


def test_generate_on_a_clean_tree_leaves_a_verdict_check_believes(evidenced):
    assert run("--root", str(evidenced), "generate")[0] == 0
    assert run("check", "--root", str(evidenced))[:2] == (0, True)


@pytest.mark.parametrize(
    "kind",
    _tiered(
        EVIDENCE_MUTATIONS,
        {
            "blocking claim cites another host version's capture",  # the profile's citation changes
            "cited capture whose refusal did not hold",  # the cited capture changes
            "cited capture removed",  # the cited file goes (exit 2)
        },
    ),
)
def test_check_right_after_generate_fails_on_evidence_that_does_not_hold(evidenced, kind):
    """generate records a verdict only after the evidence check: it used to record one here, and the
    fast path then answered "every cited evidence holds" (exit 0) for all of these but the last."""
    assert run("--root", str(evidenced), "generate")[0] == 0
    assert run("check", "--root", str(evidenced))[:2] == (0, True)
    mutate, expected = EVIDENCE_MUTATIONS[kind]
    mutate(evidenced)
    run("--root", str(evidenced), "generate")  # exits 0 (it wrote generated/) or 2 (a cited file is missing)
    code, fast, out = run("check", "--root", str(evidenced))
    full, _, _ = run("check", "--root", str(evidenced), env={"PASTURE_NO_CACHE": "1"})
    assert (code, fast) == (expected, False), out
    assert full == expected
    assert "every cited evidence holds" not in out


def _record(tmp_path: Path) -> Path:
    (record,) = (tmp_path / "cache").rglob("*.json")
    return record


def test_a_hand_written_verdict_is_not_believed(evidenced, tmp_path):
    """A record with every field right but no valid MAC (no key, a guessed MAC, a copied MAC) means
    the full check, here on a tree whose full check exits 2."""
    assert run("--root", str(evidenced), "generate")[0] == 0
    assert run("check", "--root", str(evidenced))[:2] == (0, True)
    record = _record(tmp_path)
    genuine = json.loads(record.read_text())
    assert set(genuine) == {"root", "inputs", "cited", "manifest", "mac"}
    # A cited file goes missing; the forger recomputes what the record rests on and writes it by hand.
    _capture(evidenced, CODEX, "stop-exit-2").unlink()
    forged = {**genuine, "inputs": quick.inputs_digest(str(evidenced), genuine["cited"])}
    for mac in (None, "0" * 64, genuine["mac"]):
        doc = {k: v for k, v in forged.items() if k != "mac"} | ({} if mac is None else {"mac": mac})
        record.write_text(json.dumps(doc))
        code, fast, out = run("check", "--root", str(evidenced))
        assert (code, fast) == (2, False), out
        assert "every cited evidence holds" not in out
    # Without the user's key (another HOME, a deleted key) even the genuine record vouches for nothing.
    record.write_text(json.dumps(forged | {"mac": genuine["mac"]}))
    (tmp_path / "state" / "pasture" / "key").unlink()
    assert run("check", "--root", str(evidenced))[:2] == (2, False)


def test_a_forged_verdict_is_reported_and_replaced_by_the_full_checks(evidenced, tmp_path):
    assert run("--root", str(evidenced), "generate")[0] == 0
    record = _record(tmp_path)
    doc = json.loads(record.read_text())
    record.write_text(json.dumps(doc | {"mac": "f" * 64}))
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "check", "--root", str(evidenced)],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert "does not verify against your state key" in done.stderr
    assert json.loads(done.stdout.rpartition("\n@@")[2]) == {"code": 0, "fast": False}
    assert run("check", "--root", str(evidenced))[:2] == (0, True)  # the full check signed a new record


def test_the_key_and_the_record_are_private(evidenced, tmp_path):
    import stat

    assert run("--root", str(evidenced), "generate")[0] == 0
    key = tmp_path / "state" / "pasture" / "key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and key.stat().st_size == 32
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(_record(tmp_path).stat().st_mode) == 0o600
