"""Policy compile (pasture.runtime.policy): each rule's line from one scan, each pattern parsed once and
reused after an edit, and a compile that outlives the row's deadline fails closed and is not cached."""

from __future__ import annotations

import io
import json
import os
import re
import time

import pytest

from pasture.runtime import effective, policy
from pasture.runtime.policy import PolicyError, PolicyTimeout, compile_layer, freeze


def rules(n: int, bad_at: int | None = None) -> str:
    out = []
    for i in range(n):
        decision = "maybe" if i == bad_at else "deny"
        out.append(
            f'[[rules]]\nname = "rule-{i}"\ndecision = "{decision}"\ntool_kind = "shell"\n'
            f'command = "forbidden-{i}\\\\s+--(now|force)"\n'
        )
    return "\n".join(out)


@pytest.mark.parametrize("index", [0, 1500, 2999])
def test_every_rules_line_is_right_in_a_long_policy(index):
    text = rules(3000, bad_at=index)
    with pytest.raises(PolicyError) as info:
        compile_layer("user", "/u.toml", text.encode(), "/p", True)
    line = text.splitlines().index(f'name = "rule-{index}"')  # the [[rules]] header is the line before
    assert str(info.value).startswith(f"/u.toml:{line}: rule 'rule-{index}' (rules[{index}]): decision 'maybe'")


def test_rule_lines_come_from_one_scan(monkeypatch):
    scans = []
    real = policy._Lines.__init__

    def counting(self, text):
        real(self, text)
        original = self.lines

        class Lines(list):
            def __iter__(inner):
                scans.append(1)
                return list.__iter__(inner)

        self.lines = Lines(original)

    monkeypatch.setattr(policy._Lines, "__init__", counting)
    layer = compile_layer("user", "/u.toml", rules(500).encode(), "/p", True)
    assert [r["line"] for r in layer["rules"]][:2] == [1, 7] and len(layer["rules"]) == 500
    assert len(scans) == 1  # not one scan per rule (that made a 2,000-rule compile quadratic)


@pytest.mark.parametrize(
    "pattern", [r"rm\s+-rf", r"(?i)^(?P<tool>bash|sh)$", r"(a)(b)?\1", r"[^\x00-\x7f]+", r"(?s)foo.*bar"]
)
def test_a_frozen_pattern_matches_as_re_compile_does(pattern):
    frozen = freeze(pattern)
    built = effective.build_pattern(frozen)
    expected = re.compile(pattern)
    assert (built.pattern, built.flags, built.groups, dict(built.groupindex)) == (
        expected.pattern,
        expected.flags,
        expected.groups,
        dict(expected.groupindex),
    )
    for text in ("rm  -rf /", "BASH", "abab", "aa", "caf\u00e9", "foo\nbar", ""):
        got, want = built.search(text), expected.search(text)
        assert (got and got.span(), got and got.groups()) == (want and want.span(), want and want.groups())


def test_an_invalid_pattern_is_still_refused_with_its_rule():
    with pytest.raises(PolicyError, match=r"rule 'r' \(rules\[0\]\): 'command' is not a valid regular expression"):
        compile_layer(
            "user", "/u.toml", b'[[rules]]\nname = "r"\ndecision = "deny"\ncommand = "(unclosed"\n', "/p", True
        )


def test_an_edit_reuses_the_patterns_it_did_not_change(tmp_path, monkeypatch):
    env = {
        "PASTURE_POLICY": str(tmp_path / "user.toml"),
        "PASTURE_MANAGED_POLICY": str(tmp_path / "none.toml"),
        "PASTURE_TRUST_STORE": str(tmp_path / "trust.json"),
        "PASTURE_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    (tmp_path / "user.toml").write_text(rules(50))
    effective._MEMO.clear()
    first = effective.load(str(tmp_path), env)
    assert not first.from_cache
    parsed = []
    from re import _parser

    real_parse = _parser.parse
    monkeypatch.setattr(_parser, "parse", lambda *a, **k: (parsed.append(a[0]), real_parse(*a, **k))[1])
    (tmp_path / "user.toml").write_text(
        rules(50) + '\n[[rules]]\nname = "new"\ndecision = "ask"\ncommand = "brand-new"\n'
    )
    effective._MEMO.clear()
    edited = effective.load(str(tmp_path), env)
    assert parsed == ["brand-new"]  # only the pattern the edit added was parsed
    user = edited.layer("user")
    assert user["status"] == "trusted" and len(user["rules"]) == 51
    verdict = effective.evaluate(edited, {"event": "PreToolUse", "tool_kind": "shell", "command": "forbidden-7 --now"})
    assert (verdict.decision, verdict.rule) == ("deny", "rule-7")


def test_a_compile_past_the_deadline_fails_closed_and_is_not_cached(tmp_path):
    env = {
        "PASTURE_POLICY": str(tmp_path / "user.toml"),
        "PASTURE_MANAGED_POLICY": str(tmp_path / "none.toml"),
        "PASTURE_TRUST_STORE": str(tmp_path / "trust.json"),
        "PASTURE_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    (tmp_path / "user.toml").write_text(rules(600))
    effective._MEMO.clear()
    late = effective.load(str(tmp_path), env, deadline=time.monotonic() - 1)
    user = late.layer("user")
    assert user["status"] == "invalid"
    assert user["error"].startswith(
        f"{tmp_path / 'user.toml'}: compiling its 600 rules did not finish within the "
        "hook's deadline (stopped at rule 1); split the policy or drop rules"
    )
    verdict = effective.evaluate(late, {"event": "PreToolUse", "tool_kind": "shell", "command": "ls"})
    assert verdict.decision is None and "did not finish within the hook's deadline" in verdict.failure
    cache = tmp_path / "cache"
    assert not cache.exists() or not any(cache.rglob("*.marshal"))  # a cut-short compile is never remembered
    effective._MEMO.clear()
    on_time = effective.load(str(tmp_path), env)
    assert on_time.layer("user")["status"] == "trusted" and len(on_time.layer("user")["rules"]) == 600
    with pytest.raises(PolicyTimeout):
        compile_layer("user", "/u.toml", rules(300).encode(), "/p", True, deadline=time.monotonic() - 1)


def test_the_hook_fails_closed_when_the_compile_outlives_the_row(env, tmp_path, monkeypatch):
    from pasture.runtime import deadline, lifecycle

    with open(env["PASTURE_POLICY"], "w") as fh:
        fh.write(rules(600))
    monkeypatch.setattr(deadline, "deadline_seconds", lambda row: 0.0)
    effective._MEMO.clear()
    out, err = io.BytesIO(), io.BytesIO()
    payload = json.dumps({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}}).encode()
    code = lifecycle.run(
        ["--harness", "claude-code", "--event", "PreToolUse", "--host-version", "2.1.328"],
        io.BytesIO(payload),
        out,
        err,
        dict(env, PASTURE_CACHE_DIR=str(tmp_path / "fresh-cache")),
    )
    # Claude Code's PreToolUse: its JSON refusal blocks the tool
    assert code == 0 and json.loads(out.getvalue())["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "did not finish within the hook's deadline" in err.getvalue().decode()
    assert os.path.exists(env["PASTURE_JOURNAL"] + ".spool")
