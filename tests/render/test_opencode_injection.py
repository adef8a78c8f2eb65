"""Hostile profile strings stay data in the generated TypeScript.

Every profile string that reaches an OpenCode plugin (row notes and evidence citations; names and
vocabulary values are validated tokens) goes through encode.js_literal. Two hostile contracts per
flavour: one loaded from YAML through the validator (so it holds only what a profile may hold:
newlines in prose, quotes, $, backticks, comment and script closers, U+2028/2029, non-ASCII), and
one built directly with what the validator would reject (NUL, ESC, a lone surrogate), to show the
encoder does not depend on validation. Each must pass tsc --strict, be pure ASCII, and evaluate
(under the Bun inside the opencode binary) back to exactly the strings the profile held.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest
import yaml

from repo_paths import REPO
from generator.loader import load_project
from generator.render.opencode import _view, opencode_artifacts
from opencode_support import npm_bin, runtime_argv, typecheck

HOSTILE = "q\"uote 'single' back\\slash $HOME ${x} `tick` */ /* </script> <!-- \u2028 \u2029 é ✓ 𝄞 end"
NOTE = HOSTILE + "\nsecond line\n\tindented third\n"
URL = "https://example.com/p\"q\\r$s`t`*/</script>\u2028é?x='y'&z=${w}"
RAW = "nul\x00 esc\x1b lone\ud800 cr\r " + HOSTILE
# Fragments that may never appear raw in the TypeScript (the template itself uses none of them).
# `$`, `${...}` and backticks do stay raw: inside a double-quoted literal they are plain characters.
RAW_FRAGMENTS = ["*/", "</script>", "<!--", "\u2028", "\u2029", "é", "\x00", "\x1b"]

TARGETS = {"opencode@1.18.29": ("tool.execute.before", "session.idle"),
           "opencode@2.0.20": ("permission.evaluate", "session.created")}


def _loaded(tmp_path: Path, contract_id: str):
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
    (folder / "lifecycle.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False),
                                           encoding="utf-8")
    (folder / "runtime.yaml").write_bytes((src / "runtime.yaml").read_bytes())
    captures = REPO / "captures" / contract_id  # the evidence (and catalog) the profile cites
    if captures.is_dir():
        __import__("shutil").copytree(captures, tmp_path / "captures" / contract_id)
    (contract,) = load_project(tmp_path)
    row = contract.row(gate)
    assert row is not None and row.note == NOTE and row.evidence == URL  # the validator admitted them
    return contract, {gate: (NOTE, URL), bus: (NOTE, URL)}


def _constructed(contract_id: str):
    """Strings the validator rejects, put straight into the resolved contract."""
    gate, bus = TARGETS[contract_id]
    (contract,) = load_project(REPO, only=[contract_id])
    rows = tuple(dataclasses.replace(r, note=RAW, evidence=RAW) if r.name in (gate, bus) else r
                 for r in contract.events)
    return dataclasses.replace(contract, events=rows, _index={}), {gate: (RAW, RAW), bus: (RAW, RAW)}


@pytest.mark.parametrize("contract_id", sorted(TARGETS))
@pytest.mark.parametrize("variant", ["loaded", "constructed"])
def test_hostile_strings_stay_data(tmp_path, contract_id, variant):
    bin_dir = npm_bin()
    if variant == "loaded":
        contract, expected = _loaded(tmp_path / "project", contract_id)
    else:
        contract, expected = _constructed(contract_id)
    (artifact,) = opencode_artifacts(contract)
    text = artifact.text
    v2 = contract.version.major == 2

    assert text.isascii()
    for fragment in RAW_FRAGMENTS:
        assert fragment not in text, fragment
    # Nothing but the encoded metadata changed: the code is identical to the committed profile's.
    (clean,) = opencode_artifacts(load_project(REPO, only=[contract_id])[0])
    assert _code(text) == _code(clean.text)

    done = typecheck(bin_dir, tmp_path / "tsc", text, v2=v2)
    assert done.returncode == 0, done.stdout + done.stderr

    values = _evaluate(bin_dir, tmp_path / "eval", text)
    for name, (note, evidence) in expected.items():
        assert values["rows"][name]["note"] == note
        assert values["rows"][name]["evidence"] == evidence
    view = _view(contract, contract.version.major)
    assert values == {"contract": view["contract"], "argv": view["argv"], "rows": view["rows"]}


def _code(text: str) -> str:
    """The file without the ROWS literal."""
    start = text.index("const ROWS: Readonly<Record<string, Row>> = {")
    end = text.index("\n}\n", start)
    return text[:start] + text[end:]


def _evaluate(bin_dir: Path, folder: Path, text: str) -> dict:
    """Import a copy of the plugin (with its consts exported) under opencode's Bun; their values."""
    folder.mkdir(parents=True)
    (folder / "plugin.ts").write_text(
        text + "export { CONTRACT as __CONTRACT, ARGV as __ARGV, ROWS as __ROWS }\n", encoding="utf-8")
    (folder / "eval.mjs").write_text(
        'const m = await import(new URL("./plugin.ts", import.meta.url).href)\n'
        "process.stdout.write(JSON.stringify({ contract: m.__CONTRACT, argv: m.__ARGV, rows: m.__ROWS }))\n")
    argv, env = runtime_argv("bun", bin_dir)
    done = subprocess.run([*argv, str(folder / "eval.mjs")], cwd=folder, capture_output=True, timeout=120,
                          env={**__import__("os").environ, **env}, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return json.loads(done.stdout.decode("utf-8"))
