"""Turning packs and pack rules off, and exceptions to them, as docs/policy.md "Protection packs" says:
`packs = []`, `disable = [...]` in the user or managed layer, an `except` naming a pack rule id (the
issue's example: allow rm -rf /opt/app/cache as an exception to files.recursive-delete)."""

from __future__ import annotations

import pytest
from packcases import decide, environment

EXCEPTION = """
[[rules]]
name = "app-cache"
decision = "proceed"
except = ["files.recursive-delete"]
[rules.run]
program = "rm"
args = ["/opt/app/cache"]
"""


@pytest.fixture
def hook(tmp_path):
    env = environment(tmp_path)

    def answer(command: str, user: str, managed: str | None = None) -> str:
        (tmp_path / "policy.toml").write_text(user, encoding="utf-8")
        if managed is not None:
            (tmp_path / "managed-policy.toml").write_text(managed, encoding="utf-8")
        return decide(command, env, tmp_path)[0]

    return answer


def test_the_recommended_packs_apply_without_any_policy(tmp_path):
    env = environment(tmp_path)
    (tmp_path / "policy.toml").unlink()
    assert decide("git push --force", env, tmp_path)[0] == "deny"
    assert decide("git push --force-with-lease", env, tmp_path)[0] == "proceed"


def test_packs_empty_turns_them_off_and_naming_one_keeps_only_it(hook):
    assert hook("terraform destroy -auto-approve", 'packs = ["recommended"]\n') == "deny"
    assert hook("terraform destroy -auto-approve", "packs = []\n") == "proceed"
    assert hook("terraform destroy -auto-approve", 'packs = ["git"]\n') == "proceed"
    assert hook("git reset --hard", 'packs = ["git"]\n') == "deny"


def test_disable_turns_one_rule_off(hook):
    user = 'disable = ["containers.kubectl-delete-namespace"]\n'
    assert hook("kubectl delete namespace scratch", user) == "proceed"
    assert hook("kubectl delete pods --all", user) == "deny"


def test_a_user_cannot_disable_a_rule_of_a_pack_the_managed_layer_selected(hook):
    user = 'disable = ["git.reset-hard"]\n'
    assert hook("git reset --hard", user, managed='packs = ["git"]\n') == "deny"
    assert hook("git reset --hard", user, managed='packs = ["git"]\ndisable = ["git.reset-hard"]\n') == "proceed"


def test_an_exception_lifts_the_pack_rule_only_where_it_matches(hook):
    assert hook("rm -rf /opt/app/cache", EXCEPTION) == "proceed"
    assert hook("rm -rf /opt/app/cache2", EXCEPTION) == "deny"
    assert hook("rm -rf /opt/app/cache && rm -rf ~", EXCEPTION) == "deny"


def test_a_user_exception_leaves_a_managed_selection_standing(hook):
    assert hook("rm -rf /opt/app/cache", EXCEPTION, managed='packs = ["files"]\n') == "deny"
