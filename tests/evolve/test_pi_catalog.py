"""`pasture catalog extract pi`: the catalog is the ``ExtensionAPI.on`` overloads of the typings Pi ships,
resolved by the pinned TypeScript checker.

A made-up package (a ``types.d.ts`` in the shipped layout) checks the reader offline: one entry per overload,
a union of event objects merged into one, the refusal fields marked ``pre_action``, and each thing it cannot
read a loud CatalogError naming it. The real-host test re-extracts the pinned tests/npm Pi and compares with
the committed catalog byte for byte; then the committed first profile is what bump derives from it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hosts_support import REPO

from pasture.catalog import CatalogError, dump, extract, find_catalog
from pasture.cli import main
from pasture.hostenv.npm_tools import pinned_versions
from pasture.hosts import host

TYPES = """
interface ToolCallEventBase { type: "tool_call"; toolCallId: string; }
export interface BashToolCallEvent extends ToolCallEventBase { toolName: "bash"; input: { command: string } }
export interface CustomToolCallEvent extends ToolCallEventBase { toolName: string; input: Record<string, unknown> }
export type ToolCallEvent = BashToolCallEvent | CustomToolCallEvent;
export interface ToolCallEventResult { block?: boolean; reason?: string; }
export interface AgentEndEvent { type: "agent_end"; messages: string[]; }
export interface SessionBeforeForkEvent { type: "session_before_fork"; entryId: string; }
export interface SessionBeforeForkResult { cancel?: boolean; }
export type ExtensionHandler<E, R = undefined> = (event: E, ctx: unknown) => Promise<R | void> | R | void;
export interface ExtensionAPI {
    on(event: "agent_end", handler: ExtensionHandler<AgentEndEvent>): void;
    on(event: "session_before_fork", handler: ExtensionHandler<SessionBeforeForkEvent, SessionBeforeForkResult>): void;
%TOOL_CALL%
    registerFlag(name: string): void;
}
"""
TOOL_CALL = '    on(event: "tool_call", handler: ExtensionHandler<ToolCallEvent, ToolCallEventResult>): void;'


def pi_install(tmp: Path, version: str, types: str | None) -> Path:
    nm = tmp / "node_modules"
    pkg = nm / "@mariozechner" / "pi-coding-agent"
    (pkg / "dist" / "core" / "extensions").mkdir(parents=True)
    (pkg / "package.json").write_text(json.dumps({"name": "@mariozechner/pi-coding-agent", "version": version}))
    if types is not None:
        (pkg / "dist" / "core" / "extensions" / "types.d.ts").write_text(types)
    return nm


def test_pi_reader_reads_every_overload_and_marks_the_refusals(tmp_path, npm_bin):
    nm = pi_install(tmp_path, "9.9.9", TYPES.replace("%TOOL_CALL%", TOOL_CALL))
    doc = extract("pi", "9.9.9", node_modules=nm, root=REPO)
    (source,) = doc["sources"]
    assert (source["package"], source["file"]) == ("@mariozechner/pi-coding-agent", "dist/core/extensions/types.d.ts")
    events = {e["name"]: e for e in doc["events"]}
    assert list(events) == ["agent_end", "session_before_fork", "tool_call"]  # the overloads, in their order
    call = events["tool_call"]
    assert call["pre_action"] is True and call["refused_by"] == ["block"]
    assert set(call["input"]) == {"type", "toolCallId", "toolName", "input"}
    assert call["input"]["toolName"]["type"] == "string"  # the custom tool's string, not only "bash"
    assert set(call["output"]) == {"block", "reason"}
    assert events["session_before_fork"]["refused_by"] == ["cancel"]
    assert events["agent_end"]["output"] == {} and "pre_action" not in events["agent_end"]  # result never read


@pytest.mark.parametrize(
    "types,says",
    [
        (None, "pi-coding-agent/dist/core/extensions/types.d.ts is missing"),
        (TYPES.replace("%TOOL_CALL%", ""), "has no tool_call overload"),
        (
            TYPES.replace("%TOOL_CALL%", "    on(event: string, handler: ExtensionHandler<AgentEndEvent>): void;"),
            "has an overload whose event is not one string literal",
        ),
        (
            TYPES.replace("%TOOL_CALL%", TOOL_CALL.replace("ToolCallEventResult>", "NoSuchResult>")),
            "does not resolve",
        ),
    ],
)
def test_pi_reader_names_what_it_cannot_read(tmp_path, npm_bin, types, says):
    nm = pi_install(tmp_path, "9.9.9", types)
    with pytest.raises(CatalogError) as err:
        extract("pi", "9.9.9", node_modules=nm, root=REPO)
    assert says in str(err.value)


def test_pi_extract_command_writes_nothing_on_error(tmp_path, npm_bin):
    nm = pi_install(tmp_path, "9.9.9", None)
    root = tmp_path / "project"
    root.mkdir()
    (nm / ".bin").mkdir()
    pi = nm / ".bin" / "pi"
    pi.write_text("#!/bin/sh\necho 9.9.9\n")
    pi.chmod(0o755)
    result = CliRunner().invoke(main, ["--root", str(root), "catalog", "extract", "pi", "--host-bin", str(pi)])
    assert result.exit_code == 2 and "types.d.ts is missing" in result.stderr, result.output
    assert "nothing was written" in result.stderr
    assert "Traceback" not in result.output and not (root / "captures").exists()


@pytest.mark.real_host
def test_committed_pi_catalog_is_what_the_pinned_host_ships(npm_bin):
    version = pinned_versions(REPO)[host("pi").npm_packages[0]]
    committed = find_catalog(REPO, "pi", version)
    assert committed is not None, f"no committed catalog for pi {version}"
    fresh = extract("pi", version, node_modules=npm_bin.parent, root=REPO)
    assert dump(fresh) == dump(committed.doc)
    assert len(committed.names) == 29


def test_the_committed_first_profile_is_what_bump_derives_from_catalog_and_capture(tmp_path):
    """With no earlier pi contract, `pasture bump` derives the first profile from the committed catalog and
    capture alone; doing that again writes the committed bytes, and only the held throw makes a row block."""
    import shutil

    from loading import load_project

    from pasture.evolve.profile_new import new_profile

    contract = "pi@0.73.1"
    shutil.copytree(REPO / "captures" / contract, tmp_path / "captures" / contract)
    other = "codex@0.171.0"  # a project with some contract, none of this host
    shutil.copytree(REPO / "captures" / other, tmp_path / "captures" / other)
    shutil.copytree(REPO / "profiles" / other, tmp_path / "profiles" / other)
    report = new_profile(tmp_path, "pi", "0.73.1", None, force=True)
    for name in ("lifecycle.yaml", "runtime.yaml"):
        assert (tmp_path / "profiles" / contract / name).read_text() == (
            REPO / "profiles" / contract / name
        ).read_text()
    assert report.proven == ["tool_call: throw held (captures/pi@0.73.1/tool-call-throw/scenario.json)"]
    (new,) = load_project(tmp_path, [contract])
    assert [r.name for r in new.events if r.failure.blocks] == ["tool_call"]
    assert [r.name for r in new.events if r.semantic.value == "gate-consultation"] == [
        "session_before_switch",
        "session_before_fork",
        "session_before_compact",
        "session_before_tree",
        "tool_call",
    ]
