"""The file tools each real host offers, driven by the fake model at pasture's own files and at
ordinary ones, and the payloads the hosts hand their pre-tool hook for them.

One :class:`Session` is one host run: a list of :class:`Case` s, one tool call per model turn, in
order. Cases with a ``target`` are the evidence: ``protected`` writes one of the guard's files (the
project's ``.pasture/``), ``ordinary`` writes a plain project file with the same tool the same way.
Cases without one only set the host up (Claude and OpenCode refuse to overwrite a file the session
has not read; Claude loads NotebookEdit's schema through ToolSearch).

The payloads, scrubbed like ``captures/`` (pasture/evolve/scrub.py), are committed under
``tests/runtime/file_tool_payloads/<host>@<version>/<case>.json`` and read back by the unit tests in
tests/runtime/test_file_tool_payloads.py; tests/realhost/test_guard_files_real_hosts.py captures them
afresh on every real-host run and fails when the committed ones no longer match (README there).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pasture.evolve.scrub import Scrubber
from pasture.hostenv import Turn

REPO = Path(__file__).resolve().parents[2]
PAYLOADS = REPO / "tests" / "runtime" / "file_tool_payloads"

#: The project policy the model tries to overwrite: every byte must survive the session.
POLICY = "\n".join(
    [
        "[gate]",
        'kind = "rules"',
        'default = "proceed"',
        "",
        "[[rules]]",
        'name = "keep-me"',
        'decision = "deny"',
        'reason = "this rule must survive the session"',
        'command = "pasture-realhost-never-runs"',
        "",
    ]
)
NOTES = "hello\n"
NOTEBOOK = (
    json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "id": "c1",
                    "metadata": {},
                    "source": ["print(1)"],
                    "outputs": [],
                    "execution_count": None,
                }
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )
    + "\n"
)
PATCH_POLICY = (
    '*** Begin Patch\n*** Update File: .pasture/policy.toml\n@@\n-default = "proceed"\n'
    '+default = "deny"\n*** End Patch\n'
)
PATCH_ADD = "*** Begin Patch\n*** Add File: {name}\n+added by the model\n*** End Patch\n"
REDIRECT_POLICY = "echo '[gate]' > .pasture/policy.toml"


def seed_project(project: Path) -> None:
    """The files the sessions read and write: the guard's policy and notebook, and ordinary ones."""
    (project / ".pasture").mkdir(exist_ok=True)
    (project / ".pasture" / "policy.toml").write_text(POLICY)
    (project / ".pasture" / "notes.ipynb").write_text(NOTEBOOK)
    (project / "notes.txt").write_text(NOTES)
    (project / "notes.ipynb").write_text(NOTEBOOK)


@dataclass(frozen=True)
class Case:
    name: str  # the committed payload's file stem; unique within a host
    turn: Callable[[Path], Turn]  # the model's turn, given the project folder
    target: str | None = None  # "protected" | "ordinary" | None (a set-up step, not evidence)
    tool: str = ""  # the tool name the host's hook is expected to report
    #: ordinary cases: (file relative to the project, its text afterwards)
    effect: tuple[str, str] | None = None


@dataclass(frozen=True)
class Session:
    host: str
    label: str
    cases: tuple[Case, ...]
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    #: tools the host does not offer the model at all in this session (so none can be captured)
    not_offered: tuple[str, ...] = ()

    @property
    def evidence(self) -> tuple[Case, ...]:
        return tuple(c for c in self.cases if c.target)


def _tool(name: str, **arguments: Any) -> Callable[[Path], Turn]:
    def build(project: Path) -> Turn:
        args = {k: (v.format(project=project) if isinstance(v, str) else v) for k, v in arguments.items()}
        return Turn.tool(name, args)

    return build


def _shell(command: str) -> Callable[[Path], Turn]:
    return lambda project: Turn.shell(command, "Change a file")


_P = "{project}"
CLAUDE = Session(
    "claude-code",
    "file tools",
    (
        Case("Read-setup", _tool("Read", file_path=f"{_P}/.pasture/policy.toml"), tool="Read"),
        Case(
            "Write-protected",
            _tool("Write", file_path=f"{_P}/.pasture/policy.toml", content="[gate]\n"),
            "protected",
            "Write",
        ),
        Case(
            "Edit-protected",
            _tool(
                "Edit",
                file_path=f"{_P}/.pasture/policy.toml",
                old_string='default = "proceed"',
                new_string='default = "deny"',
            ),
            "protected",
            "Edit",
        ),
        Case("ToolSearch-setup", _tool("ToolSearch", query="select:NotebookEdit", max_results=1), tool="ToolSearch"),
        Case("Read-notebook-setup", _tool("Read", file_path=f"{_P}/.pasture/notes.ipynb"), tool="Read"),
        Case(
            "NotebookEdit-protected",
            _tool("NotebookEdit", notebook_path=f"{_P}/.pasture/notes.ipynb", cell_id="c1", new_source="print(2)"),
            "protected",
            "NotebookEdit",
        ),
        Case("Bash-protected-redirect", _shell(REDIRECT_POLICY), "protected", "Bash"),
        Case("Read-ordinary-setup", _tool("Read", file_path=f"{_P}/notes.txt"), tool="Read"),
        # the Edit below can only succeed on what this Write wrote: its effect shows both ran
        Case("Write-ordinary", _tool("Write", file_path=f"{_P}/notes.txt", content="written\n"), "ordinary", "Write"),
        Case(
            "Edit-ordinary",
            _tool("Edit", file_path=f"{_P}/notes.txt", old_string="written", new_string="edited"),
            "ordinary",
            "Edit",
            ("notes.txt", "edited\n"),
        ),
        Case("Read-ordinary-notebook-setup", _tool("Read", file_path=f"{_P}/notes.ipynb"), tool="Read"),
        Case(
            "NotebookEdit-ordinary",
            _tool("NotebookEdit", notebook_path=f"{_P}/notes.ipynb", cell_id="c1", new_source="print(2)"),
            "ordinary",
            "NotebookEdit",
        ),
        Case(
            "Bash-ordinary-redirect",
            _shell("echo redirected > redirected.txt"),
            "ordinary",
            "Bash",
            ("redirected.txt", "redirected\n"),
        ),
    ),
    note="Claude Code 2.1.332 (as 2.1.328 before it) offers Write and Edit, NotebookEdit as a deferred tool "
    "(loaded with ToolSearch select:NotebookEdit), and no MultiEdit at all, so MultiEdit has no captured payload.",
    not_offered=("MultiEdit",),
)

CODEX = Session(
    "codex",
    "apply_patch and the shell",
    (
        Case("apply_patch-protected", _tool("apply_patch", input=PATCH_POLICY), "protected", "apply_patch"),
        Case(
            "Bash-protected-apply-patch-heredoc", _shell(f"apply_patch <<'EOF'\n{PATCH_POLICY}EOF"), "protected", "Bash"
        ),
        Case("Bash-protected-redirect", _shell(REDIRECT_POLICY), "protected", "Bash"),
        Case(
            "apply_patch-ordinary",
            _tool("apply_patch", input=PATCH_ADD.format(name="added.txt")),
            "ordinary",
            "apply_patch",
            ("added.txt", "added by the model\n"),
        ),
        Case(
            "Bash-ordinary-apply-patch-heredoc",
            _shell(f"apply_patch <<'EOF'\n{PATCH_ADD.format(name='added-by-shell.txt')}EOF"),
            "ordinary",
            "Bash",
            ("added-by-shell.txt", "added by the model\n"),
        ),
        Case(
            "Bash-ordinary-redirect",
            _shell("echo redirected > redirected.txt"),
            "ordinary",
            "Bash",
            ("redirected.txt", "redirected\n"),
        ),
    ),
    options={"model_catalog": "gpt-5.5"},
    note="Codex offers apply_patch (a freeform tool) only to models whose catalog entry asks for it: the run "
    "plays the binary's own gpt-5.5 entry (pasture.hosts.codex.catalog_entry). An "
    "`apply_patch <<'EOF'` heredoc sent through the shell is applied by Codex as a patch too, and reaches "
    "PreToolUse as tool_name Bash.",
)

OPENCODE = Session(
    "opencode",
    "write and edit",
    (
        Case("read-setup", _tool("read", filePath=f"{_P}/.pasture/policy.toml"), tool="read"),
        Case(
            "write-protected",
            _tool("write", filePath=f"{_P}/.pasture/policy.toml", content="[gate]\n"),
            "protected",
            "write",
        ),
        Case(
            "edit-protected",
            _tool(
                "edit",
                filePath=f"{_P}/.pasture/policy.toml",
                oldString='default = "proceed"',
                newString='default = "deny"',
            ),
            "protected",
            "edit",
        ),
        Case("bash-protected-redirect", _shell(REDIRECT_POLICY), "protected", "bash"),
        Case("read-ordinary-setup", _tool("read", filePath=f"{_P}/notes.txt"), tool="read"),
        # the edit below can only succeed on what this write wrote: its effect shows both ran
        Case("write-ordinary", _tool("write", filePath=f"{_P}/notes.txt", content="written\n"), "ordinary", "write"),
        Case(
            "edit-ordinary",
            _tool("edit", filePath=f"{_P}/notes.txt", oldString="written", newString="edited"),
            "ordinary",
            "edit",
            ("notes.txt", "edited\n"),
        ),
        Case(
            "bash-ordinary-redirect",
            _shell("echo redirected > redirected.txt"),
            "ordinary",
            "bash",
            ("redirected.txt", "redirected\n"),
        ),
    ),
    note="OpenCode 1.18.33 offers write and edit to most models, and apply_patch instead of both to GPT models "
    "(see the apply_patch session).",
    not_offered=("apply_patch", "patch", "multiedit"),
)

OPENCODE_PATCH = Session(
    "opencode",
    "apply_patch",
    (
        Case("apply_patch-protected", _tool("apply_patch", patchText=PATCH_POLICY), "protected", "apply_patch"),
        Case(
            "apply_patch-ordinary",
            _tool("apply_patch", patchText=PATCH_ADD.format(name="added.txt")),
            "ordinary",
            "apply_patch",
            ("added.txt", "added by the model\n"),
        ),
    ),
    options={"model": "gpt-5-pasture-fake"},
    note="OpenCode 1.18.33 swaps write/edit for apply_patch when the model id looks like a GPT model "
    "(gpt-5-pasture-fake here).",
    not_offered=("write", "edit", "patch"),
)

SESSIONS = (CLAUDE, CODEX, OPENCODE, OPENCODE_PATCH)


def offered_tools(request: dict) -> set[str]:
    """The tool names one logged model request offered (Anthropic, Responses and Chat shapes)."""
    body = request.get("body") or {}
    return {
        t.get("name") or (t.get("function") or {}).get("name") or t.get("type")
        for t in body.get("tools") or []
        if isinstance(t, dict)
    }


def payload_dir(host: str, version: str) -> Path:
    return PAYLOADS / f"{host}@{version}"


def scrubbed(run_root: Path, binary: Path, payloads: list[Any]) -> list[Any]:
    """The payloads scrubbed as captures/ are, in order, with one scrubber (so ids number alike)."""
    scrubber = Scrubber(run_root, host_binary=binary, repo_root=REPO)
    return [scrubber.scrub(p) for p in payloads]


def document(session: Session, case: Case, version: str, event: str, payload: Any) -> str:
    """One committed payload file: provenance first, then what the host sent, as is (scrubbed)."""
    doc = {
        "host": session.host,
        "version": version,
        "event": event,
        "session": session.label,
        "tool": case.tool,
        "target": case.target,
        "meaning": (
            "writes one of pasture's own files (the project's .pasture/): the built-in guard-files rule must deny it"
            if case.target == "protected"
            else "writes an ordinary project file with the same tool: nothing may deny it"
        ),
        "payload": payload,
    }
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
