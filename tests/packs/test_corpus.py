"""Every command of the pack corpus (tests/packs/corpus/*.toml) through the hook, in-process: a Claude
Code PreToolUse Bash call answered by pasture.runtime.lifecycle.run (what the launcher runs) with a user
policy of only `packs = ["recommended"]`. One case per command, named by it.

The same corpus again with the built-in guard switched off (`[builtin] protect_guard_files = false`):
the packs alone give the same answers, so no refusal is owed to the guard keeping the agent off
pasture's own files (which refuses `rm -rf ~` by itself).
"""

from __future__ import annotations

import pytest
from packcases import PACKS_ALONE, POLICY, Case, cases, decide, environment

CASES = cases()


def _params() -> list:
    out = []
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=f"known gap: {case.known}")] if case.known else []
        out.append(pytest.param(case, id=case.label, marks=marks))
    return out


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """(env, folder) with `packs = ["recommended"]`, and the same with the packs alone."""
    full, alone = tmp_path_factory.mktemp("corpus"), tmp_path_factory.mktemp("packs-alone")
    return (environment(full, POLICY), full), (environment(alone, PACKS_ALONE), alone)


@pytest.mark.parametrize("case", _params())
def test_corpus_case(case: Case, hooks):
    """The hook's answer with `packs = ["recommended"]`; and the packs' own, with the guard off."""
    (env, folder), (alone_env, alone_folder) = hooks
    decision, reason = decide(case.command, env, folder)
    assert decision == case.expected, f"{case.command!r}: {decision} ({reason})"
    if decision != "proceed":
        assert reason, "a refusal carries the reason the model reads"
    decision, reason = decide(case.command, alone_env, alone_folder)
    assert decision == case.expected, f"packs alone: {case.command!r}: {decision} ({reason})"
    if decision != "proceed":
        assert reason.startswith("pasture pack rule "), reason


def test_the_corpus_is_big_enough_and_balanced():
    destructive = [c for c in CASES if c.expected in ("deny", "ask")]
    safe = [c for c in CASES if c.expected == "proceed"]
    assert len(destructive) >= 300 and len(safe) >= 300, (len(destructive), len(safe))
    for pack in sorted({c.pack for c in CASES}):
        mine = [c for c in CASES if c.pack == pack]
        assert sum(c.expected != "proceed" for c in mine) >= 25, pack
        assert sum(c.expected == "proceed" for c in mine) >= 25, pack
    commands = [c.command for c in CASES]
    assert len(commands) == len(set(commands)), sorted({c for c in commands if commands.count(c) > 1})
