"""The shipped packs (pasture/packs/*.toml): each loads, its ids are unique and its own, every rule says
why and what to do instead, every pack has its corpus (and every corpus its pack), and every rule is
the one that refuses at least one corpus command (no rule the corpus does not stand behind)."""

from __future__ import annotations

import tomllib

import pytest
from packcases import CORPUS, PACKS, PACKS_ALONE, cases, decide, environment

from pasture.runtime import policy

PACK_FILES = sorted(PACKS.glob("*.toml"))
EXPECTED = ("cloud", "containers", "databases", "files", "git", "interpreters", "system")


def test_the_packs_the_issue_names_ship_and_are_recommended():
    catalog = policy.pack_catalog()
    assert sorted(catalog) == list(EXPECTED)
    assert all(pack["recommended"] for pack in catalog.values())


@pytest.mark.parametrize("path", PACK_FILES, ids=[p.stem for p in PACK_FILES])
def test_pack_file_loads_with_reasons_and_instead(path):
    pack = policy.load_pack(str(path))
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    assert pack["name"] == path.stem and pack["version"] >= 1 and pack["description"]
    ids = [rule["id"] for rule in raw["rules"]]
    assert ids and len(ids) == len(set(ids)), ids
    for rule in raw["rules"]:
        assert rule["id"].startswith(path.stem + "."), rule["id"]
        assert rule["decision"] in ("deny", "ask"), rule["id"]
        assert rule.get("reason", "").strip(), f"{rule['id']}: a reason the model reads"
        assert rule.get("instead", "").strip(), f"{rule['id']}: the safer thing to do"
        assert "run" in rule, rule["id"]
    compiled = {rule["name"]: rule for rule in pack["rules"]}
    for rule_id in ids:
        assert compiled[rule_id]["reason"].startswith(f"pasture pack rule {rule_id}: ")


def test_ids_are_unique_across_packs():
    seen: dict = {}
    for pack in policy.pack_catalog().values():
        for rule_id in pack["ids"]:
            assert rule_id not in seen, (rule_id, seen.get(rule_id), pack["name"])
            seen[rule_id] = pack["name"]


def test_every_pack_has_a_corpus_and_every_corpus_a_pack():
    """CONTRIBUTING "Add a pack": a pack is one data file plus its corpus file, nothing else."""
    assert sorted(p.stem for p in PACK_FILES) == sorted(p.stem for p in CORPUS.glob("*.toml"))
    assert [p.name for p in CORPUS.iterdir() if p.suffix != ".toml"] == []


def test_every_rule_refuses_some_corpus_command(tmp_path):
    """With the packs alone, each rule is the one that answers at least one destructive corpus command."""
    env = environment(tmp_path, PACKS_ALONE)
    deciding = set()
    for case in cases():
        if case.expected != "proceed":
            decision, reason = decide(case.command, env, tmp_path)
            if reason.startswith("pasture pack rule "):
                deciding.add(reason.split()[3].rstrip(":"))
    every = {rule_id for pack in policy.pack_catalog().values() for rule_id in pack["ids"]}
    assert sorted(every - deciding) == []
