"""Issue 18: trust needs a person, and pins everything the trusted policy runs.

`pasture policy trust` / `untrust` ask on the controlling terminal (driven here through a real
pseudo-terminal, tests/terminal.py), never on stdin, and refuse without one. Trust pins the policy
and the local programs its gate runs; a change to any un-trusts. A symlinked policy is trusted
only in the project it resolves into.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hookrun import call
from terminal import run_at_terminal

from pasture.runtime import trust

GATE = '#!/bin/sh\necho ran >> {marker}\necho \'{{"decision": "proceed", "reason": "gate"}}\'\n'


@pytest.fixture
def repo(env, tmp_path):
    root = tmp_path / "repo"
    (root / ".pasture").mkdir(parents=True)
    (root / ".git").mkdir()
    env.pop("PASTURE_JOURNAL")
    env["HOME"] = str(tmp_path / "home")
    return root


def _gate_project(root: Path, marker: Path) -> Path:
    gate = root / "gate.sh"
    gate.write_text(GATE.format(marker=marker))
    gate.chmod(0o755)
    policy = root / ".pasture" / "policy.toml"
    policy.write_text('[gate]\nkind = "command"\ncommand = ["./gate.sh"]\n')
    return policy


def _pasture(*args: str) -> list[str]:
    return [sys.executable, "-m", "pasture.entry", *args]


def _event(env, root: Path) -> tuple[str, str]:
    code, out, err = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "s", "cwd": str(root), "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"},
        env,
    )
    return out, err


def _store(env) -> dict:
    path = Path(env["PASTURE_TRUST_STORE"])
    return json.loads(path.read_text())["trusted"] if path.exists() else {}


def test_trust_asks_on_the_terminal_and_shows_what_the_policy_will_run(env, repo, tmp_path):
    policy = _gate_project(repo, tmp_path / "marker")
    code, shown, out, err = run_at_terminal(_pasture("policy", "trust", "--project", str(repo)), env=env, cwd=repo)
    assert code == 0, (shown, out, err)
    assert str(policy) in shown and trust.digest(policy.read_bytes()) in shown
    assert 'command = ["./gate.sh"]' in shown  # the file itself
    assert "runs ['./gate.sh']" in shown and f"pins the program {repo / 'gate.sh'}" in shown
    assert "trusted" in out
    entry = _store(env)[str(policy.resolve())]
    assert entry["programs"] == {str(repo / "gate.sh"): trust.digest((repo / "gate.sh").read_bytes())}


def test_the_ai_gate_prompt_says_the_endpoint_gets_the_api_key(env, repo):
    (repo / ".pasture" / "policy.toml").write_text('[gate]\nkind = "ai"\nbase_url = "http://127.0.0.1:9/v1"\n')
    code, shown, out, err = run_at_terminal(
        _pasture("policy", "trust", "--project", str(repo)), env=env, cwd=repo, answer=b"n\n"
    )
    assert "http://127.0.0.1:9/v1 with your API key" in shown
    assert code == 1 and "not trusted" in err and _store(env) == {}  # anything but y keeps it untrusted


def test_stdin_cannot_answer_for_the_person(env, repo, tmp_path):
    _gate_project(repo, tmp_path / "marker")
    # "y" on stdin, "n" at the terminal: the terminal's answer is the only one read
    code, shown, out, err = run_at_terminal(
        _pasture("policy", "trust", "--project", str(repo)), env=env, cwd=repo, answer=b"n\n", stdin=b"y\ny\n"
    )
    assert code == 1 and _store(env) == {}


def test_what_was_typed_before_the_question_does_not_answer_it(env, repo, tmp_path):
    # "y" already waiting in the terminal's input (type-ahead, or pushed in with TIOCSTI by a program
    # sharing the terminal) answered the question before the person saw it; now it is discarded.
    _gate_project(repo, tmp_path / "marker")
    code, shown, out, err = run_at_terminal(
        _pasture("policy", "trust", "--project", str(repo)), env=env, cwd=repo, answer=b"n\n", typeahead=b"y\n"
    )
    assert code == 1 and _store(env) == {}, (shown, out, err)


def test_with_no_terminal_trust_and_untrust_refuse_in_one_line(env, repo, tmp_path):
    policy = _gate_project(repo, tmp_path / "marker")
    for verb in ("trust", "untrust"):
        if verb == "untrust":
            trust.trust(str(policy), env, str(repo))
        before = _store(env)
        done = subprocess.run(
            _pasture("policy", verb, "--project", str(repo)),
            env=env,
            cwd=repo,
            input="y\ny\n",
            capture_output=True,
            text=True,
            start_new_session=True,
            timeout=60,
        )  # no controlling tty
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and f"pasture policy {verb} needs a person" in done.stderr
        assert "Nothing changed" in done.stderr and _store(env) == before


def test_untrust_asks_too(env, repo, tmp_path):
    policy = _gate_project(repo, tmp_path / "marker")
    trust.trust(str(policy), env, str(repo))
    code, shown, out, err = run_at_terminal(_pasture("policy", "untrust", "--project", str(repo)), env=env, cwd=repo)
    assert code == 0 and "Untrust it?" in shown and _store(env) == {}


def test_a_change_to_the_gate_program_un_trusts(env, repo, tmp_path):
    marker = tmp_path / "marker"
    policy = _gate_project(repo, marker)
    trust.trust(str(policy), env, str(repo))
    _event(env, repo)
    assert marker.read_text() == "ran\n"  # trusted: its gate runs
    marker.unlink()
    with (repo / "gate.sh").open("a") as fh:
        fh.write("# one more line\n")
    out, err = _event(env, repo)  # same process, same policy bytes: the compiled policy must not be believed
    assert not marker.exists()
    assert f"its program {repo / 'gate.sh'} changed since you trusted it" in err
    with (repo / "gate.sh").open("w") as fh:  # back to the pinned bytes: trusted again
        fh.write(GATE.format(marker=marker))
    _event(env, repo)
    assert marker.exists()


def test_a_script_an_interpreter_runs_is_pinned_too(env, repo, tmp_path):
    marker = tmp_path / "marker"
    (repo / "gate.py").write_text(f"open({str(marker)!r}, 'a').write('ran')\nprint('{{\"decision\": \"proceed\"}}')\n")
    policy = repo / ".pasture" / "policy.toml"
    policy.write_text(f'[gate]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, "gate.py"]\n')
    trust.trust(str(policy), env, str(repo))
    (repo / "gate.py").write_text("import os; os.system('echo pwned')\n")
    out, err = _event(env, repo)
    assert not marker.exists() and "changed since you trusted it" in err


def test_a_symlinked_policy_is_trusted_only_where_it_resolves(env, repo, tmp_path):
    marker = tmp_path / "marker"
    policy = _gate_project(repo, marker)
    trust.trust(str(policy), env, str(repo))
    hostile = tmp_path / "hostile"
    (hostile / ".pasture").mkdir(parents=True)
    (hostile / ".git").mkdir()
    (hostile / ".pasture" / "policy.toml").symlink_to(policy)
    theirs = tmp_path / "their-marker"
    (hostile / "gate.sh").write_text(GATE.format(marker=theirs))
    (hostile / "gate.sh").chmod(0o755)
    out, err = _event(env, hostile)
    assert not theirs.exists() and not marker.exists()  # neither the repository's ./gate.sh nor the original's
    assert f"resolves to {policy}, outside this project" in err
    done = subprocess.run(
        _pasture("policy", "trust", "--project", str(hostile)),
        env=env,
        cwd=hostile,
        capture_output=True,
        text=True,
        start_new_session=True,
        timeout=60,
    )
    assert done.returncode == 2 and "belongs to another project" in done.stderr
    _event(env, repo)
    assert marker.exists()  # where it resolves, it stays trusted


def test_a_pasture_folder_below_the_repository_root_replaces_nothing(env, repo, tmp_path):
    (repo / ".pasture" / "policy.toml").write_text(
        '[[rules]]\nname = "no-ls"\ndecision = "deny"\nreason = "root says no"\ntool_kind = "shell"\n'
    )
    planted = repo / "src" / ".pasture"
    planted.mkdir(parents=True)
    (planted / "policy.toml").write_text('[[rules]]\nname = "ok"\ndecision = "proceed"\n')
    out, err = _event(env, repo / "src")
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    done = subprocess.run(
        _pasture("policy", "check", "--project", str(repo / "src")), env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and f"{planted} is below the project root {repo} and is ignored" in done.stderr


def test_a_version_1_pin_still_trusts_a_policy_that_runs_no_program_but_not_one_that_does(env, repo, tmp_path):
    policy = repo / ".pasture" / "policy.toml"
    policy.write_text('[journal]\npath = "/tmp/elsewhere.sqlite3"\n')  # honoured only when trusted
    store = Path(env["PASTURE_TRUST_STORE"])
    store.parent.mkdir(parents=True)
    store.write_text(json.dumps({"version": 1, "trusted": {str(policy.resolve()): trust.digest(policy.read_bytes())}}))
    out, err = _event(env, repo)
    assert "not trusted" not in err and "changed since" not in err
    marker = tmp_path / "marker"
    _gate_project(repo, marker)
    store.write_text(json.dumps({"version": 1, "trusted": {str(policy.resolve()): trust.digest(policy.read_bytes())}}))
    out, err = _event(env, repo)
    assert not marker.exists() and f"its program {repo / 'gate.sh'} was never pinned" in err
