"""The committed captures and the profiles written from them agree with each other and with the code."""

from __future__ import annotations

import json

import pytest

from generator.evolve.captured import load_capture
from generator.evolve.evidence import contract_evidence
from generator.hook.tables import resolve
from generator.loader import load_project
from generator.render.codex import ACCEPTED_EVENTS
from hosts_support import REPO

CAPTURED = {"claude-code@2.1.328": "claude-code@2.1.261", "codex@0.171.0": "codex@0.153.0",
            "opencode@1.18.33": "opencode@1.18.29"}


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def test_codex_accepted_events_are_what_the_real_0_171_0_loads():
    capture = load_capture(REPO / "captures" / "codex@0.171.0")
    assert set(capture.host_listed) == ACCEPTED_EVENTS
    # the catalog pass offered every Claude/Codex event name; these are the ones Codex loaded
    assert capture.doc["catalog"]["registered"] == capture.host_listed


def test_claude_profile_names_exactly_the_events_the_real_2_1_328_lists(contracts):
    capture = load_capture(REPO / "captures" / "claude-code@2.1.328")
    assert set(capture.host_listed) == {r.name for r in contracts["claude-code@2.1.328"].events}


@pytest.mark.parametrize("contract_id", sorted(CAPTURED))
def test_every_capture_citation_backs_its_claim(contracts, contract_id):
    report = contract_evidence(REPO, contracts[contract_id])
    assert report["problems"] == []
    kinds = {e["event"]: e["evidence"]["kind"] for e in report["blocking"]}
    assert "capture" in kinds.values()


@pytest.mark.parametrize("contract_id", sorted(CAPTURED))
def test_the_pinned_host_version_resolves_to_its_own_contract(contracts, contract_id):
    harness, _, version = contract_id.partition("@")
    assert resolve(harness, version, contracts[contract_id].events[0].name).contract == contract_id


@pytest.mark.parametrize("contract_id", sorted(CAPTURED))
def test_every_committed_capture_scenario_is_provenanced(contract_id):
    capture = load_capture(REPO / "captures" / contract_id)
    harness, _, version = contract_id.partition("@")
    assert (capture.harness, capture.version) == (harness, version)
    for scenario in capture.scenarios:
        doc = scenario.doc
        assert doc["harness"] == harness and doc["host_version"] == version and doc["scenario"] == scenario.name
        assert doc["generated_by"] == "pasture capture"
        if scenario.refused_event:
            assert doc["result"]["refusal_held"] is True and doc["channel"] in ("exit-2", "json-deny", "throw")
        text = json.dumps(doc)
        assert "/tmp/" not in text and "/root/" not in text


def test_diff_of_the_committed_claude_contracts_is_reviewable(pasture):
    result = pasture("--root", REPO, "diff", "claude-code@2.1.261", "claude-code@2.1.328")
    assert result.exit_code == 1
    out = result.stdout
    assert "blocking gained: none" in out and "blocking lost: none" in out
    assert "evidence: https://docs.claude.com/en/docs/claude-code/hooks -> captures/claude-code@2.1.328/" in out
