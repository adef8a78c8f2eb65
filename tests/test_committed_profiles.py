"""The committed profiles: valid, closed against their hosts' own catalogs, and blocking exactly where a
capture of their own version shows the host honouring a refusal.

Every test finds the contracts from profiles/ (nothing is listed by hand), so pinning a new host
version (`pasture bump`) needs no edit here: the new profile is checked by the same rules.
"""

from __future__ import annotations

import json

import pytest
import yaml
from loading import load_project
from repo_paths import REPO

from pasture.catalog import find_catalog
from pasture.evolve.captured import load_capture
from pasture.evolve.derive import classify
from pasture.evolve.evidence import contract_evidence
from pasture.profile.vocab import CoreOperation, EventSemantic, FailureMode, MutationMode, RuntimeClass

CONTRACT_IDS = sorted(p.name for p in (REPO / "profiles").iterdir() if p.is_dir() and not p.name.startswith("."))
CAPTURED = [c for c in CONTRACT_IDS if (REPO / "captures" / c / "capture.json").is_file()]
CATALOGED = [c for c in CONTRACT_IDS if (REPO / "captures" / c / "catalog.json").is_file()]


def _raw(contract_id: str) -> dict:
    return yaml.safe_load((REPO / "profiles" / contract_id / "lifecycle.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def test_validate_exits_zero_and_lists_every_folder_with_its_rows(cli):
    result = cli("--root", str(REPO), "validate", "--json")
    assert result.exit_code == 0, result.output
    listed = {c["id"]: c["events"] for c in json.loads(result.stdout)["contracts"]}
    assert listed == {cid: len(_raw(cid)["events"]) for cid in CONTRACT_IDS}


@pytest.mark.parametrize("contract_id", CONTRACT_IDS)
def test_rows_and_exclusions_are_exactly_the_host_catalog(contract_id):
    harness, _, version = contract_id.partition("@")
    catalog = find_catalog(REPO, harness, version)
    raw = _raw(contract_id)
    if catalog is None:
        # Only where no package of the version exists, and the profile says so.
        assert raw.get("catalog_unavailable", "").strip(), contract_id
        return
    rows = [r["name"] for r in raw["events"]]
    excluded = [e["name"] for e in raw.get("excluded") or []]
    assert sorted(rows + excluded) == sorted(catalog.names)
    assert len(set(rows)) == len(rows)
    pinned = _pinned_by(harness, version)
    for source in catalog.sources:  # provenance of every file the catalog was read from
        own = source["version"].split("-")[0] == version or pinned.get(source["package"]) == source["version"]
        assert own and len(source["sha256"]) == 64, source


def _pinned_by(harness: str, version: str) -> dict[str, str]:
    """The exact dependency versions the host's own package pins (Cline's cline pins @cline/core), as the
    committed lockfile of tests/npm resolved them where it holds that version (else none)."""
    from pasture.hosts import HOSTS

    lock = json.loads((REPO / "tests" / "npm" / "package-lock.json").read_text())
    entry = lock["packages"].get(f"node_modules/{HOSTS[harness].npm_packages[0]}") or {}
    return dict(entry.get("dependencies") or {}) if entry.get("version") == version else {}


@pytest.mark.parametrize("contract_id", CONTRACT_IDS)
def test_every_citation_backs_its_claim_on_this_version(contracts, contract_id):
    report = contract_evidence(REPO, contracts[contract_id])
    assert report["problems"] == []
    for entry in report["blocking"]:
        evidence = entry["evidence"]
        assert evidence["kind"] in ("capture", "documentation"), entry
        if evidence["kind"] == "capture":
            assert evidence["host_version"] == contract_id.partition("@")[2] and evidence["refusal_held"] is True


def test_every_contract_without_a_capture_or_catalog_says_why():
    for contract_id in sorted(set(CONTRACT_IDS) - set(CAPTURED) | set(CONTRACT_IDS) - set(CATALOGED)):
        assert _raw(contract_id).get("catalog_unavailable", "").strip(), contract_id


@pytest.mark.parametrize("contract_id", CAPTURED)
def test_no_refusal_a_capture_of_this_version_proved_is_left_unused(contracts, contract_id):
    """A bump must never turn a refusal channel the host honoured into a silent gap."""
    folder = REPO / "captures" / contract_id
    contract = contracts[contract_id]
    for scenario in load_capture(folder).scenarios:
        if not scenario.refused_event or scenario.refusal_held is not True:
            continue
        row = contract.row(scenario.refused_event)
        assert row is not None, scenario.name
        if scenario.channel in ("exit-2", "throw"):
            assert row.failure.blocks, (scenario.name, row.name, row.failure)
        elif scenario.channel == "json-deny":
            assert row.response.allows_deny, (scenario.name, row.name)
        elif scenario.channel == "json-ask":
            assert row.response.allows_ask, (scenario.name, row.name)


@pytest.mark.parametrize("contract_id", CATALOGED)
def test_no_decision_offering_pre_action_event_is_an_observation(contracts, contract_id):
    harness, _, version = contract_id.partition("@")
    catalog = find_catalog(REPO, harness, version)
    for row in contracts[contract_id].events:
        event = catalog.event(row.name)
        if event is not None and classify(harness, event) == "gate":
            assert row.semantic is EventSemantic.GATE_CONSULTATION and row.pre_action, (contract_id, row.name)


@pytest.mark.parametrize("contract_id", CATALOGED)
def test_identities_are_fields_the_host_sends(contracts, contract_id):
    harness, _, version = contract_id.partition("@")
    catalog = find_catalog(REPO, harness, version)
    for row in contracts[contract_id].events:
        fields = catalog.identity_fields(row.name)
        for ident in row.identities:
            assert ident.field in fields, (row.name, ident.field)
            assert fields[ident.field] or not ident.required, (row.name, ident.field)


@pytest.mark.parametrize("contract_id", [c for c in CONTRACT_IDS if c.startswith("opencode@")])
def test_opencode_blocks_only_where_a_throw_was_seen_holding(contracts, contract_id):
    contract = contracts[contract_id]
    harness, _, version = contract_id.partition("@")
    catalog = find_catalog(REPO, harness, version)
    for row in contract.events:
        if row.failure is FailureMode.THROW_FAIL_FAST:
            assert row.evidence.startswith(f"captures/{contract_id}/"), row.name
            if catalog is not None:
                assert catalog.event(row.name).host_calls, row.name  # the binary calls it
    if catalog is not None and catalog.event("permission.ask") is not None:
        # Typed but never called by the host (no call site in the binary): never counted as blocking.
        assert catalog.event("permission.ask").host_calls == 0
        assert not contract.row("permission.ask").failure.blocks


@pytest.mark.parametrize("contract_id", CONTRACT_IDS)
def test_cross_field_rules_hold(contracts, contract_id):
    for row in contracts[contract_id].events:
        if row.semantic is not EventSemantic.GATE_CONSULTATION:
            assert row.mutation is MutationMode.NONE, row.name


@pytest.mark.parametrize("contract_id", [c for c in CONTRACT_IDS if c.startswith("opencode@")])
def test_opencode_stop_assignment_is_unsupported(contracts, contract_id):
    assert contracts[contract_id].runtime.operation(CoreOperation.STOP_ASSIGNMENT).klass is RuntimeClass.UNSUPPORTED


def test_newest_captured_contract_of_each_harness_blocks_the_tool_call_gate(contracts):
    """Whatever the newest captured version is, its pre-tool gate blocks on evidence."""
    newest: dict[str, object] = {}
    for contract in (contracts[c] for c in CAPTURED):
        if contract.harness.value not in newest or contract.version > newest[contract.harness.value].version:
            newest[contract.harness.value] = contract
    gate = {
        "claude-code": "PreToolUse",
        "codex": "PreToolUse",
        "opencode": "tool.execute.before",
        "gemini-cli": "BeforeTool",
        "copilot-cli": "preToolUse",
        "pi": "tool_call",
        "qwen-code": "PreToolUse",
        "cline": "PreToolUse",
    }
    assert set(newest) == set(gate)
    for harness, contract in newest.items():
        row = contract.row(gate[harness])
        assert row is not None and row.failure.blocks, contract.id
