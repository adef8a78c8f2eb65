"""A policy layer may be up to 4 MiB (issue 26: about 7,900 rules already filled the old 1 MiB cap, and
every hook then denied with "fix its permissions"). One over the cap is refused by `pasture policy check`
and by the hook with a line naming its size and the cap; a large policy's compile answers before the
row's deadline or fails closed with the compile-timeout line (an injected clock, never the machine's speed)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hookrun import call

from pasture.cli import main
from pasture.runtime import effective
from pasture.runtime.policy import PolicyTimeout, compile_layer

CLAUDE = ("claude-code", "2.1.332")
CAP = 4 << 20


def _rules(size: int) -> bytes:
    """Distinct deny rules, `size` bytes at most (about 113 bytes a rule)."""
    out, total, i = [], 0, 0
    while True:
        rule = (
            f'[[rules]]\nname = "rule-{i}"\ndecision = "deny"\ntool_kind = "shell"\n'
            f'command = "forbidden-{i}\\\\s+--now"\n\n'
        ).encode()
        if total + len(rule) > size:
            return b"".join(out)
        out.append(rule)
        total += len(rule)
        i += 1


@pytest.fixture(scope="module")
def four_mib() -> bytes:
    return _rules(CAP)


def _oversized(path, size: int) -> None:
    path.write_text('[[rules]]\nname = "r"\ndecision = "deny"\ncommand = "x"\n')
    with open(path, "r+b") as fh:  # a sparse tail of comment-free NULs: never read, the size says no
        fh.truncate(size)


def test_the_cap_is_at_least_4_mib_for_a_policy_layer():
    assert effective.MAX_LAYER_BYTES >= CAP


def test_a_4_mib_policy_loads_and_every_rule_applies(env, tmp_path, four_mib, monkeypatch):
    policy = tmp_path / "big.toml"
    policy.write_bytes(four_mib)
    assert CAP - 200 < len(four_mib) <= CAP
    effective._MEMO.clear()
    env = dict(env, PASTURE_POLICY=str(policy), PASTURE_MANAGED_POLICY=str(policy))  # two 4 MiB layers
    effective.load(str(tmp_path), env)
    # the next event (a new process: no memo) reads the signed cache instead of compiling again
    effective._MEMO.clear()
    from pasture.runtime import policy as policy_module

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled again: the cache of two 4 MiB layers was not used")

    monkeypatch.setattr(policy_module, "compile_layer", no_compile)
    loaded = effective.load(str(tmp_path), env)
    user = loaded.layer("user")
    assert user["status"] == "trusted", user["error"]
    last = len(user["rules"]) - 1
    verdict = effective.evaluate(
        loaded, {"event": "PreToolUse", "tool_kind": "shell", "command": f"forbidden-{last} --now"}
    )
    assert (verdict.decision, verdict.rule) == ("deny", f"rule-{last}")


def test_a_4_mib_compile_past_the_deadline_fails_closed_with_the_compile_timeout_line(four_mib):
    ticks = iter(range(10**9))
    # the clock moves one second a reading; the deadline falls while the rules compile
    with pytest.raises(PolicyTimeout) as caught:
        compile_layer("user", "/u.toml", four_mib, "/p", True, deadline=3.0, clock=lambda: float(next(ticks)))
    assert str(caught.value).startswith("/u.toml: compiling its ")
    assert "did not finish within the hook's deadline" in str(caught.value)
    # a deadline already gone when parsing ends: the same line, before any rule is compiled
    with pytest.raises(PolicyTimeout, match=r"stopped at rule 1\)"):
        compile_layer("user", "/u.toml", four_mib, "/p", True, deadline=0.0, clock=lambda: 1.0)


def test_policy_check_names_the_size_and_the_cap(env, tmp_path):
    policy = tmp_path / "user.toml"
    _oversized(policy, CAP + 1)
    result = CliRunner().invoke(main, ["policy", "check"], env=dict(env, PASTURE_POLICY=str(policy)))
    assert result.exit_code == 2  # a layer that cannot be used
    line = f"error: {policy}: 4194305 bytes, over the 4194304-byte (4 MiB) cap of a policy layer"
    assert line in result.output, result.output
    assert "permissions" not in result.output
    json_out = CliRunner().invoke(main, ["policy", "check", "--json"], env=dict(env, PASTURE_POLICY=str(policy)))
    assert any("over the 4194304-byte (4 MiB) cap" in e for e in json.loads(json_out.output)["errors"])


def test_the_hook_refuses_with_the_size_and_the_cap(env, tmp_path):
    policy = tmp_path / "user.toml"
    _oversized(policy, CAP + 1)
    effective._MEMO.clear()
    payload = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t"}
    code, out, err = call(*CLAUDE[:1], "PreToolUse", CLAUDE[1], payload, dict(env, PASTURE_POLICY=str(policy)))
    assert code == 0 and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "4194305 bytes, over the 4194304-byte (4 MiB) cap of a policy layer" in err
    assert "permissions" not in err
