"""docs/policy.md "Protection packs" lists what the packs do not catch; each listed command passes the
packs here, so the list stays true (when a pack learns one, move it to the corpus and off the list)."""

from __future__ import annotations

import re

import pytest
from packcases import PACKS_ALONE, REPO, cases, decide, environment

from pasture.runtime import policy

NOT_CAUGHT = [
    "bash cleanup.sh",
    "python3 wipe.py",
    "psql -f drop.sql",
    "mysql shop < drop.sql",
    "k delete ns prod",
    "gpf",
    "$RM -rf /",
    'bash -c "$(echo rm) -rf ~"',
    'sh -c "$CMD"',
    "eval \"$(echo 'rm -rf ~')\"",
    "docker run --rm -v /:/host alpine rm -rf /host/etc",
    "kubectl exec web -- rm -rf /data",
    "rsync -a --delete empty/ ~/",
    "mv ~/work /dev/null",
    "cat /dev/null > ~/.bashrc",
    "cp /dev/null ~/.bashrc",
    "aws s3 sync ./empty s3://bucket --delete",
    "pkill -9 -u alice",
    "psql -c 'DELETE FROM users WHERE 1=1'",
    'python3 -c "import os; os.system(cmd)"',
    "kubectl delete deployment api",
    "terraform apply -auto-approve",
    "aws s3 rm s3://bucket/one-object.txt",
    "docker rm -f web",
]
DOC = (REPO / "docs" / "policy.md").read_text(encoding="utf-8")
SECTION = DOC[DOC.index("## Protection packs") : DOC.index("## Gate kinds")]


@pytest.fixture(scope="module")
def hook(tmp_path_factory):
    folder = tmp_path_factory.mktemp("not-caught")
    return environment(folder, PACKS_ALONE), folder


@pytest.mark.parametrize("command", NOT_CAUGHT)
def test_what_the_docs_say_is_not_caught_passes_the_packs(command, hook):
    assert decide(command, *hook)[0] == "proceed"


def test_the_docs_name_every_pack_rule_and_every_pack():
    ids = {rule_id for pack in policy.pack_catalog().values() for rule_id in pack["ids"]}
    named = set(re.findall(r"`((?:git|files|system|databases|containers|cloud|interpreters)\.[a-z0-9-]+)`", SECTION))
    assert sorted(ids - named) == [] and sorted(named - ids) == []
    for name in policy.pack_catalog():
        assert f"| `{name}` |" in SECTION, name


def test_the_corpus_is_as_big_as_the_docs_say():
    every = cases()
    assert sum(c.expected != "proceed" for c in every) > 1000
    assert sum(c.expected == "proceed" for c in every) > 1000
