"""pasture install/uninstall cline: pasture's hook files (``<Event>.bash``) go beside the user's own in
.cline/hooks (project) or $CLINE_DIR/hooks, else ~/.cline/hooks (user); a file of the same name that is not
pasture's is never replaced; uninstall removes only pasture's files and leaves the folder as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from profiles_found import newest
from repo_paths import REPO

CONTRACT = newest("cline")
USERS_HOOK = b"#!/bin/sh\necho '{}'\n"


@pytest.fixture(autouse=True)
def _no_cline_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLINE_DIR", raising=False)


@pytest.fixture
def generated() -> dict[str, str]:
    """contract/file -> the committed generated text: install writes the hook files as generated (they find
    the launcher themselves), so no launcher path is spliced in."""
    folder = REPO / "generated" / CONTRACT
    return {f"{CONTRACT}/{p.name}": p.read_text() for p in folder.glob("*.bash")}


def _ours(generated: dict[str, str]) -> dict[str, str]:
    return {k.partition("/")[2]: v for k, v in generated.items()}


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_install_puts_every_hook_file_beside_the_users_and_uninstall_gives_the_folder_back(
    pasture, project: Path, private_home: Path, generated
):
    """The repository's own hooks here are for other events: a PreToolUse of its own is an off-switch (below)."""
    hooks = project / ".cline" / "hooks"
    hooks.mkdir(parents=True)
    for name in ("TaskStart", "PostToolUse.sh", "PostToolUse.py"):
        (hooks / name).write_bytes(USERS_HOOK)
        (hooks / name).chmod(0o755)
    before = _tree(project)
    run = pasture("install", "cline", "--project", str(project), "--json")
    assert run.code == 0, run
    assert run.json()["contract"] == CONTRACT
    ours = _ours(generated)
    assert "PreToolUse.bash" in ours
    for name, text in ours.items():
        path = hooks / name
        assert path.read_text() == text
        assert path.stat().st_mode & stat.S_IXUSR, f"{name} is not executable"
    for name in ("TaskStart", "PostToolUse.sh", "PostToolUse.py"):
        assert (hooks / name).read_bytes() == USERS_HOOK
    assert not (private_home / ".cline").exists()

    run = pasture("uninstall", "cline", "--project", str(project))
    assert run.code == 0, run
    assert _tree(project) == before


def test_a_file_of_our_name_that_is_not_ours_is_never_replaced(pasture, private_home: Path):
    hooks = private_home / ".cline" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "PreToolUse.bash").write_bytes(USERS_HOOK)
    run = pasture("install", "cline", "--user")
    assert run.code != 0, run
    assert "not written by pasture" in run.stdout + run.stderr
    assert sorted(p.name for p in hooks.iterdir()) == ["PreToolUse.bash"]  # nothing written
    assert (hooks / "PreToolUse.bash").read_bytes() == USERS_HOOK
    run = pasture("uninstall", "cline", "--user")
    assert run.code == 0, run
    assert "not written by pasture; left alone" in run.stdout + run.stderr
    assert (hooks / "PreToolUse.bash").read_bytes() == USERS_HOOK


def test_install_created_folders_go_on_uninstall(pasture, project: Path, private_home: Path):
    assert pasture("install", "cline", "--project", str(project)).code == 0
    assert (project / ".cline" / "hooks" / "PreToolUse.bash").is_file()
    assert pasture("uninstall", "cline", "--project", str(project)).code == 0
    assert not (project / ".cline").exists()


def test_user_scope_sits_beside_the_users_own_pre_tool_use_hooks(pasture, private_home: Path, generated):
    hooks = private_home / ".cline" / "hooks"
    hooks.mkdir(parents=True)
    for name in ("PreToolUse", "PreToolUse.sh"):
        (hooks / name).write_bytes(USERS_HOOK)
    before = _tree(hooks)
    run = pasture("install", "cline", "--user")
    assert run.code == 0, run
    assert (hooks / "PreToolUse.bash").read_text() == generated[f"{CONTRACT}/PreToolUse.bash"]
    assert pasture("uninstall", "cline", "--user").code == 0
    assert _tree(hooks) == before


def test_user_scope_follows_cline_dir(pasture, private_home: Path, tmp_path: Path, monkeypatch, generated):
    run = pasture("install", "cline", "--user")
    assert run.code == 0, run
    assert (private_home / ".cline" / "hooks" / "PreToolUse.bash").read_text() == generated[
        f"{CONTRACT}/PreToolUse.bash"
    ]
    assert pasture("uninstall", "cline", "--user").code == 0
    assert not (private_home / ".cline" / "hooks").exists()

    elsewhere = tmp_path / "cline-dir"
    monkeypatch.setenv("CLINE_DIR", str(elsewhere))
    assert pasture("install", "cline", "--user").code == 0
    assert (elsewhere / "hooks" / "PreToolUse.bash").is_file()
    assert not (private_home / ".cline").exists()
    assert pasture("uninstall", "cline", "--user").code == 0
    assert not (elsewhere / "hooks" / "PreToolUse.bash").exists()


def test_a_repository_pre_tool_use_hook_is_an_off_switch(pasture, project: Path, private_home: Path):
    """A workspace hook's overrideInput replaces what the guard decided (measured): install refuses, naming it;
    with --force it installs and says the guard does not hold there."""
    rules = project / ".clinerules" / "hooks"
    rules.mkdir(parents=True)
    (rules / "pretooluse.py").write_bytes(b"print('{}')\n")
    run = pasture("install", "cline", "--project", str(project))
    assert run.code == 2, run
    assert str(rules / "pretooluse.py") in " ".join((run.stdout + run.stderr).split())
    assert not (project / ".cline").exists()
    run = pasture("install", "cline", "--project", str(project), "--force")
    assert run.code == 0, run
    # pasture's own PreToolUse.bash in .cline/hooks is not a switch
    from pasture.install.offswitch import hits

    assert [h.file.name for h in hits("cline", project)] == ["pretooluse.py"]


def test_the_runtime_failure_tail_refuses_by_itself(tmp_path: Path, generated):
    """Cline runs the tool when a hook fails: the generated PreToolUse file prints Cline's cancel itself when
    the runtime cannot run, as the last HOOK_CONTROL line (the one Cline reads)."""
    import json
    import subprocess

    hook = tmp_path / "PreToolUse.bash"
    hook.write_text(generated[f"{CONTRACT}/PreToolUse.bash"])
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho partial-output\nexit 70\n")
    broken.chmod(0o755)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "PASTURE_BIN": str(broken)}
    out = subprocess.run(["bash", str(hook)], input=b"{}", env=env, capture_output=True, timeout=30)
    assert out.returncode == 0
    lines = out.stdout.decode().splitlines()
    assert lines[0] == "partial-output"
    tag, _, answer = lines[-1].partition("\t")
    assert tag == "HOOK_CONTROL"
    doc = json.loads(answer)
    assert doc["cancel"] is True and "(exit 70)" in doc["errorMessage"]
    assert "could not run (exit 70)" in out.stderr.decode()


@pytest.mark.parametrize(
    "name", ["PreToolUse", "pretooluse.py", "PreToolUse .sh", " PreToolUse", "PreToolUse\t.js", "\ufeffPreToolUse.py"]
)
def test_every_name_cline_runs_as_a_pre_tool_use_hook_is_an_off_switch(tmp_path: Path, name: str) -> None:
    """Cline reads a hook's event from its name less the last extension, trimmed as JavaScript trims (the BOM
    too) and lower-cased; in .clinerules/hooks even a file that starts with pasture's header is the
    repository's (pasture never installs there)."""
    from pasture.install.offswitch import hits

    rules = tmp_path / ".clinerules" / "hooks"
    rules.mkdir(parents=True)
    (rules / name).write_text("# generated by pasture from profiles/cline@3.0.65/lifecycle.yaml; do not edit\n")
    assert [h.file.name for h in hits("cline", tmp_path)] == [name]
    (rules / name).unlink()
    (rules / "PostToolUse.sh").write_text("echo '{}'\n")
    (rules / "PreToolUseHelper.sh").write_text("echo '{}'\n")
    assert hits("cline", tmp_path) == []
