"""`pasture profile sync` on the repository's own profiles and captures: it keeps every note and
citation it cannot re-derive, changes only what its inputs change, and reports exactly that."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from repo_paths import REPO

CONTRACTS = sorted(p.name for p in (REPO / "profiles").iterdir() if (p / "lifecycle.yaml").is_file())
CLAUDE = "claude-code@2.1.332"


@pytest.fixture(scope="module")
def committed_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the committed profiles/ and captures/ (sync reads nothing else)."""
    root = tmp_path_factory.mktemp("sync-root")
    shutil.copytree(REPO / "captures", root / "captures")
    return root


@pytest.fixture
def root(committed_root: Path) -> Path:
    shutil.rmtree(committed_root / "profiles", ignore_errors=True)
    shutil.copytree(REPO / "profiles", committed_root / "profiles")
    return committed_root


def _bytes(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted((root / "profiles").rglob("*.yaml"))}


def _row(root: Path, contract: str, name: str) -> dict:
    doc = yaml.safe_load((root / "profiles" / contract / "lifecycle.yaml").read_text(encoding="utf-8"))
    return next(r for r in doc["events"] if r["name"] == name)


@pytest.mark.parametrize("contract", CONTRACTS)
def test_sync_on_unchanged_inputs_changes_no_byte(pasture, root: Path, contract: str) -> None:
    before = _bytes(root)
    result = pasture("--root", root, "profile", "sync", contract)
    assert result.exit_code == 0, result.output
    assert _bytes(root) == before
    assert "unchanged: nothing to write" in result.output
    # Nothing changed, so nothing is reported as changed.
    assert all(line.endswith("(0)") for line in result.output.splitlines()[1:-1]), result.output


def test_sync_restores_a_dropped_citation_and_says_so(pasture, root: Path) -> None:
    path = root / "profiles" / CLAUDE / "lifecycle.yaml"
    committed = path.read_text(encoding="utf-8")
    stop = _row(root, CLAUDE, "Stop")
    assert stop["evidence"] == "@capture-stop-exit-2"
    # The Stop row loses its citation and the paragraph that tells where it came from.
    text = committed.replace('    evidence: "@capture-stop-exit-2"\n', "", 1)
    start = text.index("      Capture 2.1.332: exit 2 refused Stop")
    end = text.index("  - name: StopFailure")
    text = text[:start].rstrip("\n") + "\n" + text[end:]
    path.write_text(text, encoding="utf-8")
    assert _row(root, CLAUDE, "Stop").get("evidence") is None

    result = pasture("--root", root, "profile", "sync", CLAUDE)

    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8") == committed  # the capture re-derives exactly what was there
    assert (
        "evidence from this version's capture (1):\n"
        "    Stop: exit 2 held (captures/claude-code@2.1.332/stop-exit-2/scenario.json)"
    ) in result.output
    assert f"wrote profiles/{CLAUDE}/lifecycle.yaml" in result.output


def test_sync_removes_an_unpinned_citation_keeps_the_notes_and_reports_it(pasture, root: Path) -> None:
    path = root / "profiles" / CLAUDE / "lifecycle.yaml"
    text = path.read_text(encoding="utf-8")
    head, sep, tail = text.partition("  - name: ConfigChange\n")
    url = "https://code.claude.com/docs/en/hooks"
    tail = tail.replace("    failure: exit-2-blocks\n", f"    failure: exit-2-blocks\n    evidence: {url}\n", 1)
    path.write_text(head + sep + tail, encoding="utf-8")
    note_before = _row(root, CLAUDE, "ConfigChange")["note"]
    assert "not seen in captures/claude-code@2.1.332" in note_before

    result = pasture("--root", root, "profile", "sync", CLAUDE)

    assert result.exit_code == 0, result.output
    row = _row(root, CLAUDE, "ConfigChange")
    assert "evidence" not in row
    kept = note_before.split("\n")
    assert row["note"].split("\n")[: len(kept)] == kept  # every paragraph stays, in place
    assert row["note"].split("\n")[len(kept) :] == [
        f"Evidence 2.1.332: the blocking claim's citation was removed: the URL {url} is not pinned to 2.1.332. "
        "Until a capture of 2.1.332 shows the refusal holding, the row runs without it."
    ]
    assert (
        "citations removed (no evidence for this version) (1):\n"
        f"    ConfigChange: the URL {url} is not pinned to 2.1.332"
    ) in result.output
    # Every other row is as committed.
    committed = yaml.safe_load((REPO / "profiles" / CLAUDE / "lifecycle.yaml").read_text(encoding="utf-8"))
    synced = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert [r for r in synced["events"] if r["name"] != "ConfigChange"] == [
        r for r in committed["events"] if r["name"] != "ConfigChange"
    ]
    assert synced["sources"] == committed["sources"]
