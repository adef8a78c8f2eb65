"""The committed captures and the profiles written from them agree with each other and with the code."""

from __future__ import annotations

import json

import pytest
from hosts_support import REPO
from loading import load_project

from pasture.evolve.captured import load_capture
from pasture.evolve.evidence import contract_evidence
from pasture.hosts.codex import ACCEPTED_EVENTS
from pasture.runtime.tables import resolve

#: Every contract with a capture of its own version (found, never listed by hand).
CAPTURED = sorted(
    p.parent.name for p in (REPO / "captures").glob("*/capture.json") if (REPO / "profiles" / p.parent.name).is_dir()
)


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


@pytest.mark.parametrize("contract_id", [c for c in CAPTURED if c.startswith("codex@")])
def test_codex_accepted_events_are_what_the_real_host_loads(contract_id):
    capture = load_capture(REPO / "captures" / contract_id)
    assert set(capture.host_listed) == ACCEPTED_EVENTS
    # the catalog pass offered every Claude/Codex event name; these are the ones Codex loaded
    assert capture.doc["catalog"]["registered"] == capture.host_listed


@pytest.mark.parametrize("contract_id", [c for c in CAPTURED if c.startswith(("claude-code@", "codex@"))])
def test_the_host_lists_exactly_the_events_its_catalog_and_profile_name(contracts, contract_id):
    """Three sources agree: the live host's own event list (when it printed one), the catalog read from
    its package, and the profile's rows plus exclusions."""
    from pasture.catalog import find_catalog

    capture = load_capture(REPO / "captures" / contract_id)
    harness, _, version = contract_id.partition("@")
    catalog = find_catalog(REPO, harness, version)
    assert catalog is not None
    if capture.host_listed is not None:
        assert set(capture.host_listed) == set(catalog.names)
    assert set(catalog.names) >= {r.name for r in contracts[contract_id].events}


@pytest.mark.parametrize("contract_id", CAPTURED)
def test_every_capture_citation_backs_its_claim(contracts, contract_id):
    report = contract_evidence(REPO, contracts[contract_id])
    assert report["problems"] == []
    kinds = {e["event"]: e["evidence"]["kind"] for e in report["blocking"]}
    assert "capture" in kinds.values()


@pytest.mark.parametrize("contract_id", CAPTURED)
def test_the_pinned_host_version_resolves_to_its_own_contract(contracts, contract_id):
    harness, _, version = contract_id.partition("@")
    assert resolve(harness, version, contracts[contract_id].events[0].name).contract == contract_id


@pytest.mark.parametrize("contract_id", CAPTURED)
def test_every_committed_capture_scenario_is_provenanced(contract_id):
    capture = load_capture(REPO / "captures" / contract_id)
    harness, _, version = contract_id.partition("@")
    assert (capture.harness, capture.version) == (harness, version)
    for scenario in capture.scenarios:
        doc = scenario.doc
        assert doc["harness"] == harness and doc["host_version"] == version and doc["scenario"] == scenario.name
        assert doc["generated_by"] == "pasture capture"
        if scenario.refused_event:
            assert doc["result"]["refusal_held"] is True
            assert doc["channel"] in (
                "exit-2",
                "json-deny",
                "json-ask",
                "throw",
                "block",
                "adapter",
                "cancel",
            )  # block: Pi's result; adapter, cancel: Cline's
        text = json.dumps(doc)
        assert "/tmp/" not in text and "/root/" not in text


def test_diff_of_consecutive_committed_contracts_is_reviewable(pasture, contracts):
    """Each contract against its predecessor: every citation moves to the new version's capture."""
    by_harness: dict[str, list] = {}
    for contract in sorted(contracts.values(), key=lambda c: (c.harness.value, c.version)):
        by_harness.setdefault(contract.harness.value, []).append(contract)
    pairs = [
        (a, b) for chain in by_harness.values() for a, b in zip(chain, chain[1:], strict=False) if b.id in CAPTURED
    ]
    assert pairs
    for a, b in pairs:
        result = pasture("--root", REPO, "diff", a.id, b.id)
        assert result.exit_code == 1, (a.id, b.id)
        for row in b.events:
            if row.failure.blocks and a.row(row.name) is not None and a.row(row.name).failure.blocks:
                assert row.evidence.startswith(f"captures/{b.id}/"), (b.id, row.name)
