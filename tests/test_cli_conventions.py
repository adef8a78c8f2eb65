"""CLI conventions: --version (also in the manifest), python -m pasture, every command in --help,
click's shell completion, --json on generate and check, `hook` help through the console script."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys

import pytest
from profile_fixture import write_project
from repo_paths import REPO

from pasture import __version__
from pasture.cli import main


def pasture(*args: str, env: dict | None = None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pasture", *args],
        capture_output=True,
        input=stdin,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_version_everywhere_agrees():
    installed = importlib.metadata.version("pasture")
    assert installed == __version__
    done = pasture("--version")
    assert done.returncode == 0 and done.stdout.decode() == f"pasture {__version__}\n"
    manifest = json.loads((REPO / "generated" / "manifest.json").read_text())
    assert manifest["version"] == __version__


def test_help_lists_every_command():
    done = pasture("--help")
    assert done.returncode == 0
    section = done.stdout.decode().split("Commands:")[1].split("Example:")[0]
    listed = {line.split()[0] for line in section.splitlines() if line.strip()}
    assert listed == set(main.commands)
    assert {"hook", "generate", "check", "install", "validate"} <= listed


def test_hook_lifecycle_help_reaches_click_through_the_console_script():
    done = pasture("hook", "lifecycle", "--help")
    assert done.returncode == 0 and b"--harness H --event E --host-version V" in done.stdout


def test_hook_through_python_m_generator_denies(tmp_path):
    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[[rules]]\nname = "x"\ndecision = "deny"\nreason = "no"\ntool_kind = "shell"\ncommand = "probe"\n'
    )
    payload = {
        "session_id": "s",
        "tool_use_id": "t",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat probe"},
        "cwd": str(tmp_path),
    }
    done = pasture(
        "hook",
        "lifecycle",
        "--harness",
        "claude-code",
        "--event",
        "PreToolUse",
        "--host-version",
        "2.1.328",
        stdin=json.dumps(payload).encode(),
        env={"PASTURE_POLICY": str(policy), "PASTURE_JOURNAL": str(tmp_path / "j.sqlite3")},
    )
    assert b'"permissionDecision": "deny"' in done.stdout, done


def test_shell_completion_is_clicks():
    script = pasture(env={"_PASTURE_COMPLETE": "bash_source"})
    assert script.returncode == 0 and b"_pasture_completion" in script.stdout
    done = subprocess.run(
        [sys.executable, "-m", "pasture"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "_PASTURE_COMPLETE": "bash_complete", "COMP_WORDS": "pasture ge", "COMP_CWORD": "1"},
    )
    assert "plain,generate" in done.stdout.splitlines()


def _packaged_templates() -> str:
    from pasture.resources import templates_folder

    return templates_folder()


@pytest.fixture
def project(tmp_path):
    write_project(tmp_path)
    return tmp_path


def test_generate_and_check_json(project):
    done = pasture("--root", str(project), "generate", "--json")
    doc = json.loads(done.stdout)
    assert done.returncode == 0 and doc["ok"] and not doc["dry_run"]
    assert "manifest.json" in doc["written"] and doc["removed"] == [] and doc["overridden_templates"] == []
    again = json.loads(pasture("--root", str(project), "generate", "--json").stdout)
    assert again["clean"] is True and again["written"] == []
    clean = pasture("check", "--root", str(project), "--json", env={"PASTURE_NO_CACHE": "1"})
    assert clean.returncode == 0
    doc = json.loads(clean.stdout)
    on_disk = [p for p in (project / "generated").rglob("*") if p.is_file()]
    assert doc["clean"] and doc["files"] == len(on_disk) and doc["templates"] == [_packaged_templates()]
    target = project / "generated" / "claude-code@2.1.261" / "settings.json"
    target.write_text(target.read_text().replace('"timeout": 60', '"timeout": 7', 1))
    (project / "generated" / "stray.txt").write_text("x")
    drift = pasture("check", "--root", str(project), "--json")
    doc = json.loads(drift.stdout)
    assert drift.returncode == 1 and doc["ok"] and not doc["clean"]
    assert doc["modified"] == ["claude-code@2.1.261/settings.json"] and doc["extra"] == ["stray.txt"]
    assert '+            "timeout": 60' in doc["diffs"]["claude-code@2.1.261/settings.json"]
    dry = json.loads(pasture("--root", str(project), "generate", "--dry-run", "--json").stdout)
    assert dry["dry_run"] and dry["written"] == [] and dry["modified"] == doc["modified"]
    assert (project / "generated" / "stray.txt").exists()


def test_json_errors_are_json(project):
    lifecycle = project / "profiles" / "claude-code@2.1.261" / "lifecycle.yaml"
    lifecycle.write_text(lifecycle.read_text().replace("floor: 2.1.261", "floor: two"))
    for command in ("generate", "check"):
        done = pasture("--root", str(project), command, "--json")
        doc = json.loads(done.stdout)
        assert done.returncode == 2 and doc["ok"] is False
        assert doc["problems"][0]["file"] == "profiles/claude-code@2.1.261/lifecycle.yaml"


def test_the_click_hook_command_runs_the_same_runtime(tmp_path, monkeypatch):
    """Invoking the click group (as `python -m pasture.cli` would) reaches the same hook runtime."""
    from click.testing import CliRunner

    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[[rules]]\nname = "x"\ndecision = "deny"\nreason = "no"\ntool_kind = "shell"\ncommand = "probe"\n'
    )
    monkeypatch.setenv("PASTURE_POLICY", str(policy))
    monkeypatch.setenv("PASTURE_JOURNAL", str(tmp_path / "j.sqlite3"))
    payload = {
        "session_id": "s",
        "tool_use_id": "t",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat probe"},
        "cwd": str(tmp_path),
    }
    result = CliRunner().invoke(
        main,
        ["hook", "lifecycle", "--harness", "claude-code", "--event", "PreToolUse", "--host-version", "2.1.328"],
        input=json.dumps(payload),
    )
    assert result.exit_code == 0 and '"permissionDecision": "deny"' in result.stdout, result.output


def test_hook_help_lists_lifecycle_and_serve_and_serve_help_works():
    done = pasture("hook", "--help")
    assert done.returncode == 0
    section = done.stdout.decode().split("Commands:")[1].split("Example:")[0]
    listed = {line.split()[0] for line in section.splitlines() if line.strip()}
    assert listed == {"lifecycle", "serve"}
    serve = pasture("hook", "serve", "--help")
    assert serve.returncode == 0 and b"long-lived runtime" in serve.stdout


def test_every_command_has_help_and_an_example_that_parses():
    import shlex

    import click

    from pasture.cli.examples import EXAMPLES, commands

    paths = {path for path, _ in commands(main)}
    assert paths == set(EXAMPLES), "every command needs exactly one EXAMPLES entry (pasture/cli/examples.py)"
    for path, cmd in commands(main):
        assert (cmd.help or "").strip(), f"`pasture {path}` has no help text"
        assert "Example:" in (cmd.epilog or ""), path
        for example in EXAMPLES[path]:
            words = shlex.split(example.replace("&&", "\n").split("\n")[0].split(">")[0].split("<")[0])
            assert words[0] == "pasture"
            # Walk the group chain as click does; the last command parses its own options strictly.
            sub: click.Command = main
            args = words[1:]
            ctx = None
            while isinstance(sub, click.Group) and args and not args[0].startswith("-"):
                ctx = click.Context(sub, info_name="pasture", parent=ctx)
                _, found, args = sub.resolve_command(ctx, args)
                assert found is not None, example
                sub = found
            sub.make_context("pasture", args, parent=ctx)  # raises on an unknown option or argument


def test_a_pasture_error_no_command_handled_is_one_line_and_exit_2(monkeypatch):
    from click.testing import CliRunner

    from pasture import PastureError
    from pasture.cli import options

    def boom(*args, **kwargs):
        raise PastureError("the thing is wrong; fix: run the other thing")

    monkeypatch.setattr(options, "project_root", boom)
    import pasture.cli as cli_module

    monkeypatch.setattr(cli_module, "project_root", boom)
    done = CliRunner().invoke(main, ["validate"])
    assert done.exit_code == 2
    assert "Traceback" not in done.output
    assert done.output.strip().splitlines()[-1] == "pasture: the thing is wrong; fix: run the other thing"


# Exception classes that never leave the code that raises them: each is caught and turned into
# something else there, so they keep the standard base their catchers expect.
_INTERNAL_SIGNALS = {
    "pasture.runtime.fs.NotRegular": "an OSError: the runtime's readers treat it like any unreadable file",
    "pasture.runtime.gatekinds.BadKey": "the policy parser turns it into a PolicyError with file:line",
    "pasture.runtime.shellparse.Unparsable": "the guard then treats the command as touching what it names",
    "pasture.runtime.shellwrites.Exhausted": "an Unparsable past the reading's caps or deadline: read as touching what it names",
    "pasture.runtime.steer.SteerFailure": "the lifecycle answers it with the row's failure mode, journaled",
    "pasture.runtime.steer.CounterLost": "the lifecycle lets the agent stop on it, said on stderr and journaled",
}


def test_every_error_class_of_the_tool_derives_from_pasture_error():
    """One base (issue 21): the CLI's one handler then turns any of them into one line and exit 2.
    Private classes (a leading underscore) are control flow inside one module."""
    import importlib
    import inspect
    import pkgutil

    import pasture
    from pasture import PastureError

    outside, seen = [], set()
    for info in pkgutil.walk_packages(pasture.__path__, "pasture."):
        if info.name.endswith(".__main__"):  # runs its program when imported
            continue
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                qualified = f"{module.__name__}.{name}"
                seen.add(qualified)
                if (
                    not name.startswith("_")
                    and not issubclass(obj, PastureError)
                    and qualified not in _INTERNAL_SIGNALS
                ):
                    outside.append(qualified)
    assert outside == []
    assert set(_INTERNAL_SIGNALS) <= seen, "an internal signal listed here is gone: drop it from the list"
