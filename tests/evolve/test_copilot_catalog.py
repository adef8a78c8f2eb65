"""`pasture catalog extract copilot-cli`: the catalog is read from the package the native binary unpacks.

A stand-in binary (a shell script that unpacks a made-up package the way Copilot's native binary does on
``--version``) checks the reader offline, with the pinned TypeScript checker; the real-host test re-extracts
the pinned tests/npm Copilot CLI and compares with the committed catalog byte for byte.
"""

from __future__ import annotations

import json
import shlex
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from hosts_support import REPO

from pasture.catalog import Catalog, CatalogError, dump, extract, find_catalog
from pasture.cli import main
from pasture.hostenv.npm_tools import pinned_versions
from pasture.hosts import host

SETTINGS = (
    '[{"path":"disableAllHooks","leafKind":"boolean","description":"x"},'
    '{"path":"hooks.preToolUse","leafKind":"json","description":"before a tool"},'
    '{"path":"hooks.agentStop","leafKind":"json","description":"stop"},'
    '{"path":"hooks.notification","leafKind":"json","description":"untyped"}]'
)
TYPES = """
export interface BaseHookInput { sessionId: string; timestamp: Date; workingDirectory: string; agentId?: string; }
export interface PreToolUseHookInput extends BaseHookInput { toolName: string; toolArgs: unknown; }
export interface PreToolUseHookOutput {
  permissionDecision?: "allow" | "deny" | "ask"; permissionDecisionReason?: string;
}
export interface AgentStopHookInput extends BaseHookInput { stopHookActive?: boolean; }
export type AgentStopHookOutput = { decision: "block"; reason: string } | { decision?: "allow" };
export type PreToolUseHandler = (input: PreToolUseHookInput, invocation: { sessionId: string })
  => Promise<PreToolUseHookOutput | void> | PreToolUseHookOutput | void;
export interface SessionHooks {
  onPreToolUse?: PreToolUseHandler;
  onAgentStop?: (input: AgentStopHookInput, invocation: { sessionId: string }) => Promise<AgentStopHookOutput | void>;
%EXTRA%
}
"""


def copilot_install(tmp: Path, version: str, *, types: str | None = TYPES, settings: str = SETTINGS) -> Path:
    """node_modules with @github/copilot and a platform package whose 'binary' unpacks a package."""
    nm = tmp / "node_modules"
    (nm / "@github" / "copilot").mkdir(parents=True)
    (nm / "@github" / "copilot" / "package.json").write_text(
        json.dumps({"name": "@github/copilot", "version": version})
    )
    src = tmp / "payload"
    (src / "prebuilds" / "linux-x64").mkdir(parents=True)
    (src / "prebuilds" / "linux-x64" / "runtime.node").write_bytes(b"\x7fELF\x00" + settings.encode() + b"\x00")
    (src / "package.json").write_text(json.dumps({"name": "@github/copilot", "version": version}))
    if types is not None:
        (src / "copilot-sdk").mkdir()
        (src / "copilot-sdk" / "types.d.ts").write_text(types.replace("%EXTRA%", ""))
    platform = nm / "@github" / "copilot-linux-x64"
    platform.mkdir()
    (platform / "package.json").write_text(json.dumps({"name": "@github/copilot-linux-x64", "version": version}))
    exe = platform / "copilot"
    target = f'"$XDG_CACHE_HOME/copilot/pkg/linux-x64/{version}"'
    unpack = f"mkdir -p {target} && cp -R {shlex.quote(str(src))}/. {target}/"
    exe.write_text(f'#!/bin/sh\n{unpack}\necho "GitHub Copilot CLI {version}."\n')
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return nm


def test_copilot_reader_reads_typed_settings_events(tmp_path, npm_bin):
    nm = copilot_install(tmp_path, "9.9.9")
    doc = extract("copilot-cli", "9.9.9", node_modules=nm, root=REPO)
    cat = Catalog(doc)
    assert cat.names == ["preToolUse", "agentStop"]  # settings order; notification has no typings
    pre = cat.event("preToolUse")
    assert pre.input["timestamp"] == {"required": True, "type": "date"}
    assert pre.input["agentId"] == {"required": False, "type": "string"}
    assert pre.decisions() == {"deny": ["permissionDecision"], "ask": ["permissionDecision"]}
    assert cat.event("agentStop").decisions() == {"block": ["decision"]}
    reads = {s["file"]: s["read"] for s in doc["sources"]}
    assert set(reads) == {
        "copilot",
        "(unpacked)/package.json",
        "(unpacked)/prebuilds/linux-x64/runtime.node",
        "(unpacked)/copilot-sdk/types.d.ts",
    }
    assert "no typings for notification" in reads["(unpacked)/prebuilds/linux-x64/runtime.node"]


@pytest.mark.parametrize(
    ("kwargs", "says"),
    [
        ({"types": None}, "copilot-sdk/types.d.ts is missing"),
        ({"settings": "no settings here"}, 'no hook settings ({"path":"hooks.<event>"...}) found'),
        ({"types": TYPES.replace("%EXTRA%", "onFooBar?: PreToolUseHandler;")}, "types an event 'fooBar'"),
    ],
)
def test_copilot_reader_names_what_it_cannot_find(tmp_path, npm_bin, kwargs, says):
    nm = copilot_install(tmp_path, "9.9.9", **kwargs)
    with pytest.raises(CatalogError) as err:
        extract("copilot-cli", "9.9.9", node_modules=nm, root=REPO)
    assert says in str(err.value)


def test_a_union_output_takes_every_variants_decision_words(tmp_path, npm_bin):
    """``{decision: "block"; reason} | {decision?: "allow"}`` (subagentStop's shape on 1.0.102): both words."""
    nm = copilot_install(tmp_path, "9.9.9")
    stop = Catalog(extract("copilot-cli", "9.9.9", node_modules=nm, root=REPO)).event("agentStop")
    assert stop.output["decision"] == {"required": False, "type": "enum", "values": ["block", "allow"]}
    assert stop.output["reason"] == {"required": False, "type": "string"}


@pytest.mark.parametrize(
    ("check", "says"),
    [
        ('agentStop decision must be "allow" or "block"', None),
        ('agentStop decision must be "block" or "stop"', "the hook runtime (runtime.node) accepts ['block', 'stop']"),
        ('agentStop decision must be "block"', "types decision as ['allow', 'block']"),
    ],
)
def test_the_hook_runtimes_own_decision_check_must_agree_with_the_typings(tmp_path, npm_bin, check, says):
    nm = copilot_install(tmp_path, "9.9.9", settings=SETTINGS + check)
    if says is None:
        extract("copilot-cli", "9.9.9", node_modules=nm, root=REPO)
        return
    with pytest.raises(CatalogError) as err:
        extract("copilot-cli", "9.9.9", node_modules=nm, root=REPO)
    assert says in str(err.value)


def test_copilot_extract_command_writes_nothing_on_error(tmp_path, npm_bin):
    nm = copilot_install(tmp_path, "9.9.9", types=None)
    root = tmp_path / "project"
    root.mkdir()
    result = CliRunner().invoke(
        main,
        [
            "--root",
            str(root),
            "catalog",
            "extract",
            "copilot-cli",
            "--host-bin",
            str(nm / "@github" / "copilot-linux-x64" / "copilot"),
        ],
    )
    assert result.exit_code == 2 and "types.d.ts is missing" in result.stderr and "nothing was written" in result.stderr
    assert "Traceback" not in result.output and not (root / "captures").exists()


@pytest.mark.real_host
def test_committed_copilot_catalog_is_what_the_pinned_host_ships(npm_bin):
    version = pinned_versions(REPO)[host("copilot-cli").npm_packages[0]]
    committed = find_catalog(REPO, "copilot-cli", version)
    assert committed is not None, f"no committed catalog for copilot-cli {version}"
    fresh = extract("copilot-cli", version, node_modules=npm_bin.parent, root=REPO)
    assert dump(fresh) == dump(committed.doc)
    assert len(committed.names) == 12


# --- the first profile ----------------------------------------------------------------------------


def test_the_committed_first_profile_is_what_bump_derives_from_catalog_and_capture(tmp_path):
    """With no earlier copilot-cli contract, `pasture bump` derives the first profile from the committed
    catalog and capture alone; doing that again writes the committed bytes, and only a held refusal of
    this very version makes a row block."""
    import shutil

    from loading import load_project

    from pasture.evolve.profile_new import ProfileNewError, new_profile

    contract = "copilot-cli@1.0.102"
    shutil.copytree(REPO / "captures" / contract, tmp_path / "captures" / contract)
    other = "codex@0.171.0"  # a project with some contract, none of this host
    shutil.copytree(REPO / "captures" / other, tmp_path / "captures" / other)
    shutil.copytree(REPO / "profiles" / other, tmp_path / "profiles" / other)
    report = new_profile(tmp_path, "copilot-cli", "1.0.102", None, force=True)
    for name in ("lifecycle.yaml", "runtime.yaml"):
        assert (tmp_path / "profiles" / contract / name).read_text() == (
            REPO / "profiles" / contract / name
        ).read_text()
    assert report.proven == [
        "preToolUse: exit 2 held (captures/copilot-cli@1.0.102/pre-tool-use-exit-2/scenario.json)",
        "preToolUse: JSON deny held (captures/copilot-cli@1.0.102/pre-tool-use-json-deny/scenario.json)",
    ]
    (new,) = load_project(tmp_path, [contract])
    assert [r.name for r in new.events if r.failure.blocks] == ["preToolUse"]
    shutil.rmtree(tmp_path / "profiles" / contract)
    (tmp_path / "captures" / contract / "catalog.json").unlink()
    with pytest.raises(ProfileNewError, match="is derived from the host.s own catalog"):
        new_profile(tmp_path, "copilot-cli", "1.0.102", None, force=True)
