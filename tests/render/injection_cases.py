"""The hostile contracts of test_opencode_injection.py (shared with the session's one tsc run)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import yaml
from loading import load_project
from repo_paths import REPO

HOSTILE = "q\"uote 'single' back\\slash $HOME ${x} `tick` */ /* </script> <!-- \u2028 \u2029 é ✓ 𝄞 end"
NOTE = HOSTILE + "\nsecond line\n\tindented third\n"
URL = "https://example.com/p\"q\\r$s`t`*/</script>\u2028é?x='y'&z=${w}"
RAW = "nul\x00 esc\x1b lone\ud800 cr\r " + HOSTILE
# Fragments that may never appear raw in the TypeScript (the template itself uses none of them).
# `$`, `${...}` and backticks do stay raw: inside a double-quoted literal they are plain characters.
RAW_FRAGMENTS = ["*/", "</script>", "<!--", "\u2028", "\u2029", "é", "\x00", "\x1b"]

TARGETS = {
    "opencode@1.18.29": ("tool.execute.before", "session.idle"),
    "opencode@2.0.20": ("permission.evaluate", "session.created"),
}


def loaded(tmp_path: Path, contract_id: str):
    """The committed profile with hostile note/evidence on one named row and one bus row."""
    gate, bus = TARGETS[contract_id]
    src = REPO / "profiles" / contract_id
    data = yaml.safe_load((src / "lifecycle.yaml").read_text(encoding="utf-8"))
    for row in data["events"]:
        if row["name"] in (gate, bus):
            row["note"] = NOTE
            row["evidence"] = URL
    folder = tmp_path / "profiles" / contract_id
    folder.mkdir(parents=True)
    (folder / "lifecycle.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    (folder / "runtime.yaml").write_bytes((src / "runtime.yaml").read_bytes())
    captures = REPO / "captures" / contract_id  # the evidence (and catalog) the profile cites
    if captures.is_dir():
        shutil.copytree(captures, tmp_path / "captures" / contract_id)
    (contract,) = load_project(tmp_path)
    row = contract.row(gate)
    assert row is not None and row.note == NOTE and row.evidence == URL  # the validator admitted them
    return contract, {gate: (NOTE, URL), bus: (NOTE, URL)}


def constructed(contract_id: str):
    """Strings the validator rejects, put straight into the resolved contract."""
    gate, bus = TARGETS[contract_id]
    (contract,) = load_project(REPO, only=[contract_id])
    rows = tuple(
        dataclasses.replace(r, note=RAW, evidence=RAW) if r.name in (gate, bus) else r for r in contract.events
    )
    return dataclasses.replace(contract, events=rows, _index={}), {gate: (RAW, RAW), bus: (RAW, RAW)}
