"""The hook path imports only what costs next to nothing, and reads the policy from its cache.

Speed itself is measured by benchmarks/bench_hook.py (ratios against a bare interpreter, never
timed tests); what a test can pin is the cause of speed: which modules a PreToolUse round trip
loads beyond a bare `python -I -S`, and that a second event with unchanged files parses nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys

from repo_paths import REPO

# Everything a rules-policy round trip may load beyond the bare interpreter's own modules.
# (not even __future__: every module the hook imports costs ~0.4M instructions, so its modules
# write annotations Python 3.11 evaluates as they are)
# `_blake2` and `_operator` (issue 18): the compiled-policy cache is believed only with a keyed
# BLAKE2b tag, checked in constant time; both are the C modules `hashlib`/`hmac` end in, without
# their import cost (benchmarks/README.md has the measured cost). `pwd`: the user's home from the
# password database when a `.claude/` folder is met (pasture.runtime.injected). `re` stays off:
# a rule's pattern is compiled only when its subject holds the pattern's required literal.
ALLOWED_STDLIB = {"_json", "fcntl", "marshal", "_sre", "itertools", "gc", "_blake2", "_operator", "pwd"}
FORBIDDEN = {
    "os",
    "re",
    "json",
    "enum",
    "collections",
    "typing",
    "sqlite3",
    "tomllib",
    "subprocess",
    "dataclasses",
    "functools",
    "hashlib",
    "shlex",
    "pathlib",
    "importlib",
}

PROBE = r"""
import io, sys
bare = set(sys.modules)
sys.path[:0] = [{repo!r}, {tables!r}]
from pasture.runtime.lifecycle import run
import pasture.runtime.effective as effective
code = run(["--harness", "claude-code", "--event", "PreToolUse", "--host-version", "2.1.328"],
           io.BytesIO({payload!r}), io.BytesIO(), io.BytesIO(), {env!r})
new = sorted(set(sys.modules) - bare)
print(repr((code, new, effective._MEMO[{root!r}][1].from_cache)))
"""


def _twenty_rules() -> str:
    return "\n".join(
        f'[[rules]]\nname = "r{i}"\ndecision = "deny"\nreason = "no {i}"\ntool_kind = "shell"\n'
        f'command = "forbidden{i}\\\\s+--now"\n'
        for i in range(20)
    )


def _probe(env: dict, root: str, payload: bytes):
    code = PROBE.format(repo=str(REPO), tables=str(REPO / "generated" / "python"), payload=payload, env=env, root=root)
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip())


def test_a_rules_round_trip_loads_only_cheap_modules_and_the_cache(env, tmp_path):
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".pasture" / "policy.toml").write_text(_twenty_rules())
    env = dict(env, PASTURE_POLICY=str(tmp_path / "no-user-policy.toml"))
    payload = json.dumps(
        {
            "session_id": "s",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la"},
            "cwd": str(project),
            "tool_use_id": "t",
        }
    ).encode()
    first = _probe(env, str(project), payload)
    second = _probe(env, str(project), payload)
    assert first[0] == second[0] == 0
    assert first[2] is False and second[2] is True  # compiled once, then read from the cache
    modules = set(second[1])
    ours = {m for m in modules if m.split(".")[0] in ("pasture", "pasture_contracts")}
    stdlib = modules - ours
    assert stdlib <= ALLOWED_STDLIB, stdlib - ALLOWED_STDLIB
    assert not modules & FORBIDDEN
    assert not {m for m in ours if m.startswith("pasture.") and not m.startswith("pasture.runtime")}
    assert "pasture.runtime.policy" not in ours  # the compiler (tomllib, re) stays off a cache hit


def test_a_shell_command_that_names_guard_files_is_read_without_shlex_or_re(env, tmp_path):
    # The built-in guard-files rule reads such commands word by word (pasture.runtime.shellwrites);
    # "pasture" in the probe command passes its cheap screen, so the splitter really runs here.
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".pasture" / "policy.toml").write_text(_twenty_rules())
    env = dict(env, PASTURE_POLICY=str(tmp_path / "no-user-policy.toml"))
    for command, code in (("echo pasture-probe > probe.txt", 0), ("echo x > .pasture/policy.toml", 0)):
        payload = json.dumps(
            {
                "session_id": "s",
                "tool_name": "Bash",
                "tool_input": {"command": command},
                "cwd": str(project),
                "tool_use_id": "t",
            }
        ).encode()
        _probe(env, str(project), payload)  # the first one compiles the policy into the cache
        result = _probe(env, str(project), payload)
        modules = set(result[1])
        assert "pasture.runtime.shellwrites" in modules
        assert not modules & FORBIDDEN, modules & FORBIDDEN
        assert result[0] == code


def test_a_matching_rule_compiles_its_pattern_from_source_without_importing_re(env, tmp_path):
    """Issue 18: the cache holds pattern sources, never SRE programs, so a rule whose subject holds the
    pattern's required literal is compiled in the hook, by the standard library's own compiler files
    loaded without `re/__init__` (which costs `enum`, `functools`)."""
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".pasture" / "policy.toml").write_text(_twenty_rules())
    env = dict(env, PASTURE_POLICY=str(tmp_path / "no-user-policy.toml"))
    payload = json.dumps(
        {
            "session_id": "s",
            "tool_name": "Bash",
            "tool_input": {"command": "forbidden7  --now"},
            "cwd": str(project),
            "tool_use_id": "t",
        }
    ).encode()
    _probe(env, str(project), payload)
    code, modules, from_cache = _probe(env, str(project), payload)
    assert code == 0 and from_cache is True
    assert "_pasture_re._compiler" in modules and not set(modules) & FORBIDDEN, set(modules) & FORBIDDEN
    compiler = {
        "_pasture_re",
        "_pasture_re._compiler",
        "_pasture_re._parser",
        "_pasture_re._constants",
        "_pasture_re._casefix",
    }
    stdlib = {m for m in modules if m.split(".")[0] not in ("pasture", "pasture_contracts")}
    assert stdlib <= ALLOWED_STDLIB | compiler, stdlib - ALLOWED_STDLIB - compiler
