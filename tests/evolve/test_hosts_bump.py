"""`pasture bump`, `pasture host status --latest` and the capture's isolation rule.

Offline: the refusals (no namespace, not newer, exists), the test-host pin, the review report built
from the committed bump, the registry check with a stand-in `npm`. Real host: a bump of the pinned
Claude Code version in a throwaway copy of the project reproduces the committed profile, captures,
catalog and review report byte for byte.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from hosts_support import REPO
from loading import load_project
from profiles_found import contract_ids, newest, pinned  # noqa: F401

from pasture.catalog import find_catalog
from pasture.cli import main
from pasture.evolve import review
from pasture.evolve.bump import pin_test_hosts
from pasture.evolve.captured import load_capture
from pasture.hostenv.netns import Isolation


def _cli(*args, env=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False, env=env)


@pytest.fixture
def no_namespace(monkeypatch):
    """As on a machine where `unshare --net` fails."""
    none = Isolation("none", (), "no network namespace available (test)")
    monkeypatch.setattr("pasture.evolve.capture.isolation_support", lambda *a: none)


def test_bump_refuses_to_capture_without_a_loopback_only_namespace(project, no_namespace):
    result = _cli("--root", project, "bump", "claude-code", "--to", "2.1.999", "--no-pin-tests")
    assert result.exit_code == 2
    assert "isolation: no loopback-only network namespace can be made here" in result.stderr
    assert "--no-isolation" in result.stderr
    assert not (project / "profiles" / "claude-code@2.1.999").exists()
    assert not (project / "captures" / "claude-code@2.1.999").exists()


def test_capture_refuses_without_a_namespace_unless_told(project, no_namespace, tmp_path):
    from hosts_support import fake_host

    claude = fake_host(tmp_path / "bin", "claude", "2.1.999 (Claude Code)")
    refused = _cli("--root", project, "capture", "claude-code", "--host-bin", claude, "--out", tmp_path / "out")
    assert refused.exit_code == 2 and "no loopback-only network namespace" in refused.stderr
    assert not (tmp_path / "out" / "claude-code@2.1.999").exists()
    told = _cli(
        "--root",
        project,
        "capture",
        "claude-code",
        "--host-bin",
        claude,
        "--out",
        tmp_path / "out",
        "--no-isolation",
        "--timeout",
        "20",
    )
    # the stand-in host fires no hook, so the capture fails later: but not for want of a namespace
    assert told.exit_code == 2 and "no hook fired" in told.stderr and "namespace can be made" not in told.stderr


def test_bump_refuses_a_version_that_is_pinned_or_older(project):
    pinned_id = newest("claude-code")
    again = _cli("--root", project, "bump", "claude-code", "--to", pinned_id.partition("@")[2], "--no-pin-tests")
    assert again.exit_code == 2 and "exists already; pass --force" in again.stderr
    older = _cli("--root", project, "bump", "claude-code", "--to", "2.1.0", "--no-pin-tests")
    assert older.exit_code == 2
    assert f"2.1.0 is not newer than every claude-code contract (the newest is {pinned_id})" in older.stderr
    bad = _cli("--root", project, "bump", "claude-code", "--to", "latest-ish")
    assert bad.exit_code == 2 and "semantic version" in bad.stderr


def test_pin_test_hosts_updates_the_manifest_readme_and_relocks(tmp_path):
    npm = tmp_path / "tests" / "npm"
    npm.mkdir(parents=True)
    (npm / "package.json").write_text(json.dumps({"dependencies": {"@openai/codex": "0.1.0", "x": "1.0.0"}}))
    (npm / "README.md").write_text("| `@openai/codex` | 0.1.0 | Codex CLI |\n")
    (npm / "relock.py").write_text("import pathlib; pathlib.Path('relocked').write_text('yes')\n")
    said: list[str] = []
    done = pin_test_hosts(tmp_path, "codex", "0.2.0", said.append)
    assert done == "tests/npm pins @openai/codex 0.2.0 (was 0.1.0); package-lock.json relocked"
    assert json.loads((npm / "package.json").read_text())["dependencies"] == {"@openai/codex": "0.2.0", "x": "1.0.0"}
    assert (npm / "README.md").read_text() == "| `@openai/codex` | 0.2.0 | Codex CLI |\n"
    assert (npm / "relocked").read_text() == "yes"
    assert pin_test_hosts(tmp_path, "codex", "0.2.0", said.append) == "tests/npm already pins @openai/codex 0.2.0"
    assert pin_test_hosts(tmp_path, "opencode", "9.9.9", said.append) is None  # not pinned there


def test_review_report_of_the_committed_bump(tmp_path):
    """The report the committed bump wrote is what the review builder makes of the committed files."""
    new_id = newest("claude-code")
    report_file = REPO / "captures" / new_id / "bump-report.md"
    assert report_file.is_file(), f"the bump that pinned {new_id} left no review report"
    base_id = [c for c in contract_ids("claude-code") if c != new_id][-1]
    contracts = {c.id: c for c in load_project(REPO)}
    old, new = contracts[base_id], contracts[new_id]
    version = new_id.partition("@")[2]
    rep = review.build(
        old,
        new,
        find_catalog(REPO, "claude-code", base_id.partition("@")[2]),
        find_catalog(REPO, "claude-code", version),
        load_capture(REPO / "captures" / base_id),
        load_capture(REPO / "captures" / new_id),
        None,
        {},
    )
    text = review.render_markdown(rep)
    committed = report_file.read_text()
    for section in (
        "## Events",
        "## Payload fields, capture to capture",
        "## What the model is told after a refusal",
        "## Blocking",
    ):
        assert committed.split(section, 1)[1].split("\n## ", 1)[0] == text.split(section, 1)[1].split("\n## ", 1)[0]
    # Every event the new catalog adds is a row, and every such gate blocks or is listed for a human.
    for name in rep["catalog"]["added"]:
        row = new.row(name)
        assert row is not None, name
        assert row.failure.blocks or any(line.startswith(name) for line in rep["needs_human"]), name
    assert rep["blocking"]["gained"] or rep["catalog"]["added"] == []


def _fake_npm(folder: Path, versions: dict[str, str]) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "npm"
    cases = "\n".join(f'  "{pkg}") echo "{ver}";;' for pkg, ver in versions.items())
    script.write_text(f'#!/bin/sh\n[ "$1" = view ] || exit 9\ncase "$2" in\n{cases}\n  *) exit 1;;\nesac\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


def _versions(**override: str) -> dict[str, str]:
    newest_of = {h: newest(h).partition("@")[2] for h in ("claude-code", "codex", "gemini-cli")}
    base = {
        "@anthropic-ai/claude-code": newest_of["claude-code"],
        "@openai/codex": newest_of["codex"],
        "opencode-ai": pinned("opencode-ai"),
        "@google/gemini-cli": newest_of["gemini-cli"],
        "@github/copilot": pinned("@github/copilot"),
        "@mariozechner/pi-coding-agent": pinned("@mariozechner/pi-coding-agent"),
        "@qwen-code/qwen-code": pinned("@qwen-code/qwen-code"),
        "cline": pinned("cline"),
    }
    return {**base, **override}


def test_host_status_latest_exits_1_only_when_npm_has_a_newer_version(project, tmp_path, no_hosts_on_path):
    # `project`, not REPO: a copy of the profiles without the npm cache of pinned hosts, so status
    # asks npm (the stand-in) about every host without starting five real host CLIs per run
    env = {**no_hosts_on_path, **_fake_npm(tmp_path / "npm-same", _versions())}
    env["PATH"] = f"{tmp_path / 'npm-same'}{os.pathsep}{no_hosts_on_path['PATH']}"
    same = _cli("--root", project, "host", "status", "--latest", "--json", env=env)
    assert same.exit_code == 0, same.output
    assert all(not e["newer"] for e in json.loads(same.stdout)["latest"])
    env = {**no_hosts_on_path}
    _fake_npm(tmp_path / "npm-new", _versions(**{"@openai/codex": "9.0.0"}))
    env["PATH"] = f"{tmp_path / 'npm-new'}{os.pathsep}{no_hosts_on_path['PATH']}"
    newer = _cli("--root", project, "host", "status", "--latest", env=env)
    assert newer.exit_code == 1
    assert (
        f"codex: npm @openai/codex latest 9.0.0: NEWER than every profile (newest: {newest('codex')}): run "
        "`pasture bump codex`"
    ) in newer.stdout
    _fake_npm(tmp_path / "npm-gemini", _versions(**{"@google/gemini-cli": "0.62.0"}))
    env["PATH"] = f"{tmp_path / 'npm-gemini'}{os.pathsep}{no_hosts_on_path['PATH']}"
    gemini = _cli("--root", project, "host", "status", "--latest", env=env)
    assert gemini.exit_code == 1
    assert (
        f"gemini-cli: npm @google/gemini-cli latest 0.62.0: NEWER than every profile (newest: "
        f"{newest('gemini-cli')}): run `pasture bump gemini-cli`"
    ) in gemini.stdout
    env = {**no_hosts_on_path}
    _fake_npm(tmp_path / "npm-copilot", _versions(**{"@github/copilot": "1.0.200"}))
    env["PATH"] = f"{tmp_path / 'npm-copilot'}{os.pathsep}{no_hosts_on_path['PATH']}"
    copilot = _cli("--root", project, "host", "status", "--latest", env=env)
    assert copilot.exit_code == 1
    assert (
        "copilot-cli: npm @github/copilot latest 1.0.200: NEWER than every profile (newest: copilot-cli@1.0.102): "
        "run `pasture bump copilot-cli`"
    ) in copilot.stdout
    env = {**no_hosts_on_path}
    _fake_npm(tmp_path / "npm-pi", _versions(**{"@mariozechner/pi-coding-agent": "0.74.0"}))
    env["PATH"] = f"{tmp_path / 'npm-pi'}{os.pathsep}{no_hosts_on_path['PATH']}"
    pi = _cli("--root", project, "host", "status", "--latest", env=env)
    assert pi.exit_code == 1
    assert (
        "pi: npm @mariozechner/pi-coding-agent latest 0.74.0: NEWER than every profile (newest: pi@0.73.1): "
        "run `pasture bump pi`"
    ) in pi.stdout


def test_host_status_latest_without_a_registry_is_an_error(project, tmp_path, no_hosts_on_path):
    folder = tmp_path / "npm-broken"
    folder.mkdir()
    (folder / "npm").write_text("#!/bin/sh\necho 'npm ERR! network' >&2\nexit 1\n")
    (folder / "npm").chmod(0o755)
    env = {**no_hosts_on_path, "PATH": f"{folder}{os.pathsep}{no_hosts_on_path['PATH']}"}
    result = _cli("--root", project, "host", "status", "--latest", env=env)
    assert result.exit_code == 2 and "cannot ask npm" in result.stderr


# --- the real bump --------------------------------------------------------------------------------


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.real_host
def test_bump_of_the_pinned_claude_version_reproduces_the_committed_one(tmp_path, npm_bin):
    """One command from the previous contract to the committed result (no hand edits, no commit-then-force)."""
    new_id = newest("claude-code")
    version = new_id.partition("@")[2]
    root = tmp_path / "project"
    for name in ("profiles", "captures", "templates", "generated"):
        shutil.copytree(REPO / name, root / name)
    shutil.rmtree(root / "profiles" / new_id)
    shutil.rmtree(root / "captures" / new_id)
    shutil.rmtree(root / "generated" / new_id)
    (root / ".cache").mkdir()
    (root / ".cache" / "npm").symlink_to((REPO / ".cache" / "npm").resolve())  # the shared host cache
    result = _cli("--root", root, "bump", "claude-code", "--to", version, "--no-pin-tests")
    assert result.exit_code == 0, result.output
    assert f"bumped claude-code to {version}" in result.stdout
    for folder in (f"profiles/{new_id}", f"captures/{new_id}", "generated"):
        fresh, committed = _tree(root / folder), _tree(REPO / folder)
        if folder == f"captures/{new_id}":
            # the committed report also says the bump pinned tests/npm; this one was told not to
            fresh.pop("bump-report.md"), committed.pop("bump-report.md")
        assert fresh.keys() == committed.keys(), folder
        assert [k for k in fresh if fresh[k] != committed[k]] == [], folder
    assert _cli("--root", root, "check").exit_code == 0
