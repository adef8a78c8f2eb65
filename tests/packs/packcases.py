"""The pack corpus (tests/packs/corpus/<pack>.toml) and one way to answer it: the hook itself, in-process.

Shared by tests/packs/test_corpus.py (one case per command) and benchmarks/bench_packs.py (recall and
false positives per pack). A corpus file lists shell commands under the decision pasture gives them
with a user policy of only `packs = ["recommended"]`: `deny` and `ask` (destructive: refused) and
`proceed` (safe: no opinion, the host's own permissions apply).
"""

from __future__ import annotations

import io
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from pasture.runtime.lifecycle import run

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "packs" / "corpus"
PACKS = REPO / "pasture" / "packs"
DECISIONS = ("deny", "ask", "proceed")
REFUSED = ("deny", "ask")
POLICY = 'packs = ["recommended"]\n'
# The packs alone: the built-in guard (which keeps the agent off pasture's own files, and so refuses
# `rm -rf ~` by itself) switched off, to show each refusal is the pack's own.
PACKS_ALONE = POLICY + "[builtin]\nprotect_guard_files = false\n"
HARNESS = ("claude-code", "2.1.328")


@dataclass(frozen=True)
class Case:
    pack: str  # the corpus file's name: the pack it measures
    command: str
    expected: str  # deny | ask | proceed
    known: str = ""  # a known gap: what pasture gives today instead, and why (the corpus's [known] table)

    @property
    def label(self) -> str:
        flat = " ".join(self.command.split())
        return f"{self.pack}:{self.expected}:{flat[:90]}"


def corpus_files() -> list[Path]:
    return sorted(CORPUS.glob("*.toml"))


def load(path: Path) -> list[Case]:
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    extra = sorted(set(doc) - {"pack", "known", *DECISIONS})
    if extra:
        raise ValueError(f"{path}: unknown key(s) {extra}; allowed: pack, known, {', '.join(DECISIONS)}")
    known = doc.get("known", {})
    if doc.get("pack") != path.stem:
        raise ValueError(f"{path}: pack = {doc.get('pack')!r} must be the file's name {path.stem!r}")
    cases = []
    for expected in DECISIONS:
        for command in doc.get(expected, []):
            if not isinstance(command, str) or not command.strip():
                raise ValueError(f"{path}: {expected}: every command is a non-empty string ({command!r})")
            cases.append(Case(path.stem, command.strip("\n"), expected, known.get(command, "")))
    listed = {case.command for case in cases}
    stray = [command for command in known if command.strip("\n") not in listed]
    if stray:
        raise ValueError(f"{path}: [known] names commands the corpus does not list: {stray}")
    return cases


def cases() -> list[Case]:
    return [case for path in corpus_files() for case in load(path)]


def environment(folder: Path, policy_text: str = POLICY) -> dict:
    """A hook environment whose only policy is a user layer with `policy_text` (`packs = ["recommended"]`):
    no managed policy, no trust store, its own journal and cache (never the machine's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASTURE_", "CLAUDE_"))}
    env.pop("XDG_STATE_HOME", None)
    policy = folder / "policy.toml"
    policy.write_text(policy_text, encoding="utf-8")
    (folder / "project").mkdir(exist_ok=True)
    env.update(
        PASTURE_POLICY=str(policy),
        PASTURE_JOURNAL=str(folder / "journal.sqlite3"),
        PASTURE_MANAGED_POLICY=str(folder / "managed-policy.toml"),
        PASTURE_TRUST_STORE=str(folder / "state" / "trust.json"),
        PASTURE_CACHE_DIR=str(folder / "cache"),
    )
    return env


def decide(command: str, env: dict, folder: Path) -> tuple[str, str]:
    """(decision, reason) the hook gives a Claude Code PreToolUse Bash call: what the launcher runs
    (pasture.runtime.lifecycle.run), in this process."""
    payload = {
        "session_id": "corpus",
        "tool_use_id": "t-1",
        "hook_event_name": "PreToolUse",
        "cwd": str(folder / "project"),
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }
    out, err = io.BytesIO(), io.BytesIO()
    argv = ["--harness", HARNESS[0], "--event", "PreToolUse", "--host-version", HARNESS[1]]
    code = run(argv, io.BytesIO(json.dumps(payload).encode()), out, err, env)
    text = out.getvalue().decode()
    if code != 0:
        return f"exit {code}", err.getvalue().decode()[-500:]
    if not text.strip():
        return "proceed", ""
    answer = json.loads(text).get("hookSpecificOutput") or {}
    return answer.get("permissionDecision", "proceed"), answer.get("permissionDecisionReason", "")
