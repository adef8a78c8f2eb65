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

import json
import subprocess
from pathlib import Path

import pytest
from injection_cases import RAW_FRAGMENTS, TARGETS, constructed, loaded
from loading import load_project
from opencode_support import npm_bin, runtime_argv
from repo_paths import REPO

from pasture.hosts.opencode import _view, opencode_artifacts


@pytest.mark.parametrize("contract_id", sorted(TARGETS))
@pytest.mark.parametrize("variant", ["loaded", "constructed"])
def test_hostile_strings_stay_data(tmp_path, contract_id, variant, tsc_batch):
    bin_dir = npm_bin()
    if variant == "loaded":
        contract, expected = loaded(tmp_path / "project", contract_id)
    else:
        contract, expected = constructed(contract_id)
    (artifact,) = opencode_artifacts(contract)
    text = artifact.text

    assert text.isascii()
    for fragment in RAW_FRAGMENTS:
        assert fragment not in text, fragment
    # Nothing but the encoded metadata changed: the code is identical to the committed profile's.
    (clean,) = opencode_artifacts(load_project(REPO, only=[contract_id])[0])
    assert _code(text) == _code(clean.text)

    done = tsc_batch.result(f"injection-{variant}-{contract_id}", text)
    assert done.returncode == 0, done.stdout + done.stderr

    values = _evaluate(bin_dir, tmp_path / "eval", text)
    for name, (note, evidence) in expected.items():
        assert values["rows"][name]["note"] == note
        assert values["rows"][name]["evidence"] == evidence
    view = _view(contract, contract.version.major)
    assert values == {"contract": view["contract"], "argv": view["serve_argv"], "rows": view["rows"]}


def _code(text: str) -> str:
    """The file without the ROWS literal."""
    start = text.index("const ROWS: Readonly<Record<string, Row>> = {")
    end = text.index("\n}\n", start)
    return text[:start] + text[end:]


def _evaluate(bin_dir: Path, folder: Path, text: str) -> dict:
    """Import a copy of the plugin (with its consts exported) under opencode's Bun; their values."""
    folder.mkdir(parents=True)
    (folder / "plugin.ts").write_text(
        text + "export { CONTRACT as __CONTRACT, SERVE_ARGV as __ARGV, ROWS as __ROWS }\n", encoding="utf-8"
    )
    (folder / "eval.mjs").write_text(
        'const m = await import(new URL("./plugin.ts", import.meta.url).href)\n'
        "process.stdout.write(JSON.stringify({ contract: m.__CONTRACT, argv: m.__ARGV, rows: m.__ROWS }))\n"
    )
    argv, env = runtime_argv("bun", bin_dir)
    done = subprocess.run(
        [*argv, str(folder / "eval.mjs")],
        cwd=folder,
        capture_output=True,
        timeout=120,
        env={**__import__("os").environ, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return json.loads(done.stdout.decode("utf-8"))
