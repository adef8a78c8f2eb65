"""OpenCode plugins: exact bytes, the shape the host loader needs, and tsc --strict acceptance."""

from __future__ import annotations

import dataclasses
import re

import pytest
from loading import load_project
from profiles_found import contract_ids
from repo_paths import REPO

from pasture.hosts.opencode import OpenCodeRenderError, opencode_artifacts
from pasture.profile.versions import HostVersion
from pasture.render.artifact import header

CONTRACTS = contract_ids("opencode")  # found in profiles/: a new version is pinned by generated/, no edit here


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def _plugin(contracts, contract_id: str):
    (artifact,) = opencode_artifacts(contracts[contract_id])
    return artifact


@pytest.mark.parametrize("contract_id", CONTRACTS)
def test_plugin_bytes(contracts, contract_id, golden):
    artifact = _plugin(contracts, contract_id)
    assert artifact.path == f"{contract_id}/pasture-lifecycle.ts"
    assert artifact.contract == contract_id
    assert artifact.text == golden(artifact.path)


@pytest.mark.parametrize("contract_id", CONTRACTS)
def test_plugin_header_imports_and_exports(contracts, contract_id):
    text = _plugin(contracts, contract_id).text
    contract = contracts[contract_id]
    assert text.splitlines()[0] == header("//", contract.lifecycle_file)
    assert text.isascii() and text.endswith("\n") and "\r" not in text
    imports = [line for line in text.splitlines() if line.startswith("import ")]
    # Nothing from the plugin package at run time: only type imports (erased when loading).
    for line in imports:
        if "@opencode" in line:
            assert line.startswith("import type "), line
    assert [line for line in imports if not line.startswith("import type ")] == [
        'import { spawn } from "node:child_process"',
        'import { existsSync } from "node:fs"',
        'import { homedir } from "node:os"',
        'import { isAbsolute, join } from "node:path"',
    ]
    exports = [line for line in text.splitlines() if re.match(r"\s*export\b", line)]
    if contract.version.major == 1:
        assert exports == ["export const PastureLifecycle: Plugin = async ({ client, directory }) => {"]
    else:
        assert exports == ["export default define({"]
    assert "shell: true" not in text and "execSync" not in text and "exec(" not in text


def test_plugin_is_deterministic(contracts):
    for contract_id in CONTRACTS:
        assert _plugin(contracts, contract_id).text == _plugin(contracts, contract_id).text


def test_v1_named_hooks_and_bus_types_follow_the_profile(contracts):
    contract = contracts["opencode@1.18.29"]
    text = _plugin(contracts, contract.id).text
    named = [row.name for row in contract.events if row.surface.value == "opencode-named-output"]
    found = re.findall(r'^    "([^"]+)": \(input, output\) => named\("([^"]+)", input, output\),$', text, re.M)
    assert [a for a, _ in found] == named and all(a == b for a, b in found)
    from pasture.catalog import find_catalog

    catalog = find_catalog(REPO, "opencode", str(contract.version))  # the host's own Hooks interface
    assert named == [n for n in catalog.names if catalog.event(n).kind == "hook"]
    bus = [row.name for row in contract.events if row.surface.value == "opencode-catch-all-sse"]
    assert sorted(bus) == sorted(n for n in catalog.names if catalog.event(n).kind == "bus")
    found_bus = set(re.findall(r'^  "([^"]+)": \{$', text, re.M))
    assert set(bus) <= found_bus


def test_only_opencode_1_and_2_have_a_flavour(contracts):
    contract = contracts["opencode@1.18.29"]
    with pytest.raises(OpenCodeRenderError, match="major version 3"):
        opencode_artifacts(dataclasses.replace(contract, version=HostVersion.parse("3.0.0")))
    with pytest.raises(OpenCodeRenderError, match="not an OpenCode contract"):
        opencode_artifacts(contracts["codex@0.153.0"])


def test_v2_rejects_a_hook_outside_the_context_domains(contracts):
    contract = contracts["opencode@2.0.20"]
    rows = tuple(
        dataclasses.replace(r, name="chat.message") if r.name == "session.prompt" else r for r in contract.events
    )
    with pytest.raises(OpenCodeRenderError, match="domain one of session, tool, permission, shell"):
        opencode_artifacts(dataclasses.replace(contract, events=rows, _index={}))


# --- tsc --------------------------------------------------------------------------------------


@pytest.mark.parametrize("contract_id", [c for c in CONTRACTS if c.startswith("opencode@1.")])
def test_v1_plugin_type_checks_against_the_published_typings(contracts, contract_id, tsc_batch):
    """tsc --strict against @opencode-ai/plugin as pinned in tests/npm (no --skipLibCheck)."""
    done = tsc_batch.result(f"committed-{contract_id}", _plugin(contracts, contract_id).text)
    assert done.returncode == 0, done.stdout + done.stderr


def test_v1_typecheck_catches_a_misspelled_hook(contracts, tsc_batch):
    """The check is not vacuous: `satisfies Hooks` makes tsc reject a hook name OpenCode lacks."""
    text = _plugin(contracts, "opencode@1.18.29").text.replace('    "chat.params": (', '    "chat.paramz": (')
    done = tsc_batch.result("misspelled-opencode@1.18.29", text)
    assert done.returncode != 0
    assert "TS2353" in done.stdout and "chat.paramz" in done.stdout
    assert all(line.startswith("misspelled-opencode@1.18.29/") for line in done.stdout.splitlines())


def test_v2_plugin_type_checks_against_the_hand_written_stand_in(contracts, tsc_batch):
    """No 2.x typings are published; tests/render/opencode_v2/*.d.ts is a labelled stand-in."""
    done = tsc_batch.result("committed-opencode@2.0.20", _plugin(contracts, "opencode@2.0.20").text)
    assert done.returncode == 0, done.stdout + done.stderr
