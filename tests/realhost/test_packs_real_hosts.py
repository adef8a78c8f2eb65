"""Issue 26 on every real host: with a user policy of only ``packs = ["recommended"]``, one destructive
command per pack category is refused, the pack's reason reaches the model as the host shows a refused
tool call, the journal names the pack rule, and a safe command beside them runs.

Each destructive command is chosen to do no harm even if a pack failed to refuse it in the run's
sandbox (HOME, TMPDIR and the project are the run's own folders; no remote, no database, no cluster,
no cloud CLI and no such device exist there), so a broken pack fails the test, never the machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from realhost_support import (
    CLAUDE,
    CLINE,
    CODEX,
    COPILOT,
    GEMINI,
    OPENCODE,
    PI,
    QWEN,
    HostSpec,
    hook_contexts,
    run_host,
)

from pasture.hostenv.fake_models import Script, Turn

pytestmark = pytest.mark.real_host

POLICY = 'packs = ["recommended"]\n'
SAFE = "echo pasture-probe > probe.txt"
#: category -> (a destructive command harmless in the sandbox, the pack rule id that refuses it)
DESTRUCTIVE: dict[str, tuple[str, str]] = {
    "git": ("git push --force origin main", "git.push-force"),
    "files": ("rm -rf ~/pasture-probe-keep", "files.recursive-delete"),
    "system": ("mkfs.ext4 /dev/sdz9", "system.mkfs-device"),  # no such device here: harmless if it ran
    "databases": ("psql -c 'DROP DATABASE pasture_probe'", "databases.sql-destroy"),
    "containers": ("kubectl delete namespace pasture-probe", "containers.kubectl-delete-namespace"),
    "cloud": ("terraform destroy -auto-approve", "cloud.terraform-destroy"),
}
HOSTS = (CLAUDE, CODEX, OPENCODE, GEMINI, COPILOT, PI, QWEN, CLINE)


def _script(categories: list[str]) -> Script:
    turns = [Turn.shell(DESTRUCTIVE[category][0]) for category in categories]
    return Script.of(*turns, Turn.shell(SAFE), Turn.reply("Done. Last tool result: {tool_result}"))


def _keep(run) -> None:  # noqa: ANN001 - hostenv's HostRun
    keep = run.layout.home / "pasture-probe-keep"
    keep.mkdir(parents=True, exist_ok=True)
    (keep / "kept.txt").write_text("kept\n")


#: Cline stops a task after refused calls in a row: at --retries consecutive failed calls (3 by default),
#: and, every refused call's input being the same emptied {}, at 5 identical calls (its loop detector). So
#: its runs take three categories each, with --retries above that.
BATCH = {"cline": 3}


@pytest.mark.parametrize("spec", HOSTS, ids=[s.host for s in HOSTS])
def test_the_recommended_packs_refuse_one_command_per_category_and_let_a_safe_one_run(
    spec: HostSpec, npm_bin: Path, tmp_path: Path
) -> None:
    categories = list(DESTRUCTIVE)
    size = BATCH.get(spec.host, len(categories))
    for n, at in enumerate(range(0, len(categories), size)):
        _refuse(spec, npm_bin, tmp_path / f"run-{n}", categories[at : at + size])


def _refuse(spec: HostSpec, npm_bin: Path, root: Path, categories: list[str]) -> None:
    options = {"extra_args": ["--retries", "10"]} if spec.host in BATCH else None
    out = run_host(
        spec, npm_bin, root, POLICY, script=_script(categories), prepare=_keep, timeout=180.0, options=options
    )
    # the safe command ran; the folder the files pack protects is still there
    assert out.probe_exists, out.describe()
    assert (out.run.layout.home / "pasture-probe-keep" / "kept.txt").is_file(), out.describe()
    rows = {}
    for row in out.journal(event=spec.pre_event):
        envelope = row.get("envelope") or {}
        if isinstance(envelope, dict) and envelope.get("command"):
            rows[envelope["command"]] = row
    # (Cline: the reason reaches the model as hook context beside the refused call's "Invalid input")
    told = " ".join([result["text"] or "" for result in out.tool_results()] + hook_contexts(out.result.requests))
    for category in categories:
        command, rule_id = DESTRUCTIVE[category]
        row = rows.get(command)
        assert row is not None, (category, command, sorted(rows), out.describe())
        assert row["decision"] == "deny" and row["gate"].startswith("rules:"), (category, row)
        assert row["layer"] == "packs", (category, row)
        assert row["rule"] == rule_id, (category, row)
        # the pack's reason, as the model reads it ("pasture pack rule <id>: <reason> Instead: ...")
        assert f"pasture pack rule {row['rule']}:" in told, (category, told)
    safe = rows.get(SAFE)
    assert safe is not None and safe["decision"] in ("proceed", None), (safe, out.describe())
