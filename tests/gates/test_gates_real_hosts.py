"""The harness backend and the AI gate with the REAL hosts (from tests/npm) against fake models.

Built on the hostenv infrastructure (npm_tools, launchers, fake model servers, network
namespace); the part that runs inside the namespace is real_host_inside.py. They never skip:
without npm and node the ``npm_bin`` fixture fails them with what to install.

* harness: the fake model makes the host write an invalid ``.agentfield_output.json`` first; the
  wrapper must answer with exactly the schema-retry prompt, and return the parsed model from the
  second, valid file. Our own command line for each host is used, with the default (not
  bypassed) permissions where the host allows it.
* gate: a Claude Code PreToolUse command hook asks ``ai_gate_decide`` (against the fake
  chat-completions server, in the same namespace); a "deny" blocks the Bash call.
* agent gate: a real outer host (Claude Code, Codex, OpenCode) with our generated adapter; pasture's runtime
  runs another real host (Codex, Claude Code, OpenCode) headless as the judge
  (``[gate] kind = "agent"``) against its own fake model; the judge's deny blocks the outer host's
  shell call and is journaled; a judge that never answers a decision gets the row's failure mode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gates_models import CWEExpansion

from pasture.gates import build_schema_retry_prompt, harness_prompt

REPO = Path(__file__).resolve().parents[2]
INSIDE = Path(__file__).resolve().parent / "real_host_inside.py"

pytestmark = pytest.mark.real_host

from pasture.hostenv import Turn, host_binary, isolation_support  # noqa: E402
from pasture.hostenv.netns import python_env  # noqa: E402
from pasture.hosts import RunLayout, launcher_for  # noqa: E402

INVALID = json.dumps({"cwes": ["CWE-918"]})  # valid JSON, wrong schema
VALID = {"additional_cwes": ["CWE-918", "CWE-611"], "rationale": "user-controlled URL reaches the fetcher"}
TASK = "Expand the CWE list for the SSRF finding in app/fetch.py."
MODELS = {"claude-code": "claude-sonnet-4-5", "codex": "fake-model", "opencode": "harness/fake-model"}


def _shell_write(content: str) -> Turn:
    return Turn.shell(f"cat > .agentfield_output.json <<'PASTURE_EOF'\n{content}\nPASTURE_EOF", "Write the output file")


def _turns(host: str, project: Path) -> list[Turn]:
    if host == "claude-code":
        # acceptEdits (our default) allows Claude's Write tool in the working directory, not a
        # shell redirect; Write wants the existing file Read first in a new session.
        path = str(project / ".agentfield_output.json")
        return [
            Turn.tool("Write", {"file_path": path, "content": INVALID}),
            Turn.reply("Wrote the analysis."),
            Turn.tool("Read", {"file_path": path}),
            Turn.tool("Write", {"file_path": path, "content": json.dumps(VALID)}),
            Turn.reply("Rewrote the analysis."),
        ]
    return [
        _shell_write(INVALID),
        Turn.reply("Wrote the analysis."),
        _shell_write(json.dumps(VALID)),
        Turn.reply("Rewrote it."),
    ]


def _run_inside(host: str, npm_bin: Path, root: Path, **spec: Any) -> dict[str, Any]:
    iso = isolation_support()
    layout = RunLayout.at(root).create(launcher_for(host).home_folders)
    subprocess.run(["git", "init", "-q", str(layout.project)], check=True, capture_output=True)
    full = {
        "host": host,
        "binary": str(host_binary(host, npm_bin)),
        "layout": layout.to_dict(),
        "isolation": iso.mode,
        "caller_env": {
            k: v
            for k, v in os.environ.items()
            if k in ("PATH", "LANG", "TZ", "USER", "LOGNAME", "SHELL") or k.startswith(("LC_", "PYENV_"))
        },
        "timeout": 120,
        **spec,
    }
    full["turns"] = [t.to_dict() for t in spec["turns"](layout.project)]
    spec_path = layout.root / "gates-spec.json"
    spec_path.write_text(json.dumps(full, indent=2))
    proc = subprocess.run(
        [*iso.wrapper, sys.executable, str(INSIDE), str(spec_path)],
        env=python_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    result_path = layout.root / "gates-result.json"
    assert result_path.exists(), f"inside runner produced nothing (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    result = json.loads(result_path.read_text())
    assert "crash" not in result, result["crash"]
    if iso.private_network:
        assert result.get("interfaces") == ["lo"]
    result["fake_requests"] = [
        json.loads(line) for line in (layout.root / "fake-requests.jsonl").read_text().splitlines()
    ]
    result["layout"] = layout
    return result


def _strings(node: Any) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_harness_schema_retry_on_a_real_host(npm_bin, tmp_path, host):
    result = _run_inside(
        host, npm_bin, tmp_path / "run", mode="harness", schema="CWEExpansion", model=MODELS[host],
        prompt=TASK, phase="hunt", bypass_permissions=False, turns=lambda project: _turns(host, project),
    )  # fmt: skip
    layout = result["layout"]
    context = json.dumps({k: v for k, v in result.items() if k not in ("layout", "fake_requests")}, indent=2)
    assert "error" not in result, context
    assert result["parsed"] == VALID, context
    assert len(result["runs"]) == 2, context  # the first (invalid) run and exactly one schema retry
    assert result["invocation_count"] == 1

    cwd = str(layout.project)
    first = harness_prompt(TASK, "hunt", cwd, CWEExpansion)
    retry = harness_prompt(build_schema_retry_prompt(CWEExpansion, "Retry attempt 1/3", cwd), "hunt", cwd, CWEExpansion)
    seen = [set(_strings(r.get("body"))) for r in result["fake_requests"]]
    first_seen = [i for i, s in enumerate(seen) if first in s]
    retry_seen = [i for i, s in enumerate(seen) if retry in s]
    assert first_seen and retry_seen, "the model never received the exact prompts"
    assert max(first_seen) < min(retry_seen)  # the schema-retry prompt came after the first run
    assert not any("Retry attempt 2/3" in text for s in seen for text in s)
    assert json.loads((layout.project / ".agentfield_output.json").read_text()) == VALID


def test_ai_gate_denies_a_tool_on_claude_code(npm_bin, tmp_path):
    """The gate adapter called from a real host's PreToolUse hook (a stand-in for the runtime)."""
    result = _run_inside(
        "claude-code", npm_bin, tmp_path / "run", mode="gate",
        gate_answer={"decision": "deny", "reason": "probe files are not allowed here"},
        turns=lambda project: [Turn.shell("echo pasture-probe > probe.txt"), Turn.reply("Done: {tool_result}")],
    )  # fmt: skip
    context = json.dumps({k: v for k, v in result.items() if k not in ("layout", "fake_requests")}, indent=2)
    assert result["exit_code"] == 0, context
    assert not result["probe_exists"], context
    (record,) = result["gate_records"]
    assert record["decision"] == {"decision": "deny", "reason": "probe files are not allowed here"}
    assert record["journal"]["invocations"] == 1 and record["journal"]["cost_usd"] == 0.003
    (user_prompt,) = result["gate_user_prompts"]
    envelope = json.loads(user_prompt)
    assert envelope["payload"]["tool_name"] == "Bash"
    assert envelope["payload"]["tool_input"]["command"] == "echo pasture-probe > probe.txt"
    tool_results = [
        s for r in result["fake_requests"] for s in _strings(r.get("body")) if "probe files are not allowed here" in s
    ]
    assert tool_results, "the model was never told about the denial"


def test_ai_gate_denies_a_tool_through_the_runtime_on_claude_code(npm_bin, tmp_path):
    """End to end: real Claude Code, our generated settings.json, `pasture hook lifecycle`, the AI gate."""
    repo = Path(__file__).resolve().parents[2]
    result = _run_inside(
        "claude-code", npm_bin, tmp_path / "run", mode="runtime-gate", repo=str(repo),
        gate_answer={"decision": "deny", "reason": "the AI gate refuses probe files"},
        turns=lambda project: [Turn.shell("echo pasture-probe > probe.txt"), Turn.reply("Done: {tool_result}")],
    )  # fmt: skip
    context = json.dumps({k: v for k, v in result.items() if k not in ("layout", "fake_requests")}, indent=2)
    assert result["exit_code"] == 0, context
    assert not result["probe_exists"], context
    assert result["gate_requests"] == 1, context  # only PreToolUse is in the policy's gate events
    (pre,) = [r for r in result["journal"] if r["event"] == "PreToolUse"]
    assert (pre["gate"], pre["decision"], pre["answer"], pre["reason"]) == (
        "ai",
        "deny",
        "deny",
        "the AI gate refuses probe files",
    )
    assert pre["detail"]["invocations"] == 1 and pre["detail"]["cost_usd"] == 0.003
    envelope = json.loads(result["gate_user_prompts"][0])
    assert envelope["event"] == "PreToolUse" and envelope["command"] == "echo pasture-probe > probe.txt"
    told = [
        s for r in result["fake_requests"] for s in _strings(r.get("body")) if "the AI gate refuses probe files" in s
    ]
    assert told, "the model was never told about the denial"


JUDGE_DENY = {"decision": "deny", "reason": "the judge host refuses probe files"}
OUTER_ADAPTER = {"claude-code": "claude-code@2.1.332", "codex": "codex@0.171.0", "opencode": "opencode@1.18.33"}
PRE_EVENT = {"claude-code": "PreToolUse", "codex": "PreToolUse", "opencode": "tool.execute.before"}


@pytest.mark.parametrize(
    "outer,judge",
    [("claude-code", "codex"), ("codex", "claude-code"), ("claude-code", "opencode"), ("opencode", "claude-code")],
)
def test_an_agent_gate_deny_blocks_a_shell_call(npm_bin, tmp_path, outer, judge):
    """Real outer host -> generated adapter -> `pasture hook lifecycle` -> kind "agent" -> real judge host."""
    result = _run_inside(
        outer, npm_bin, tmp_path / "run", mode="agent-gate", repo=str(REPO), adapter=OUTER_ADAPTER[outer],
        pre_event=PRE_EVENT[outer],
        judge=judge, judge_binary=str(host_binary(judge, npm_bin)), judge_model=MODELS[judge],
        judge_answer=json.dumps(JUDGE_DENY),
        turns=lambda project: [Turn.shell("echo pasture-probe > probe.txt"), Turn.reply("Done: {tool_result}")],
    )  # fmt: skip
    context = json.dumps(
        {k: v for k, v in result.items() if k not in ("layout", "fake_requests", "judge_requests")}, indent=2
    )
    assert result["exit_code"] == 0, context
    assert not result["probe_exists"], context
    (pre,) = [r for r in result["journal"] if r["event"] == PRE_EVENT[outer]]
    assert (pre["gate"], pre["decision"], pre["answer"], pre["reason"], pre["layer"]) == (
        "agent",
        "deny",
        "deny",
        JUDGE_DENY["reason"],
        "user",
    ), context
    assert pre["detail"]["host"] == judge and pre["detail"]["runs"] == 1 and pre["detail"]["outcome"] == "deny"
    # the judge host itself asked its fake model, and was shown the outer host's command in the seed's prompt
    asked = [s for r in result["judge_requests"] for s in _strings(r.get("body"))]
    assert any("echo pasture-probe > probe.txt" in s and "Output format:" in s for s in asked), context
    assert result["leftover_scratch"] == []  # the judge's scratch folder is removed
    told = [s for r in result["fake_requests"] for s in _strings(r.get("body")) if JUDGE_DENY["reason"] in s]
    assert told, "the outer host's model was never told about the denial"


def test_an_agent_gate_judge_without_a_decision_gets_the_rows_failure_mode(npm_bin, tmp_path):
    """The real Codex judge answers prose every time: the seed's 3 schema retries, then the row's
    failure mode (Claude Code's PreToolUse: exit 2, blocks), journaled with the failure."""
    result = _run_inside(
        "claude-code", npm_bin, tmp_path / "run", mode="agent-gate", repo=str(REPO),
        adapter=OUTER_ADAPTER["claude-code"], pre_event="PreToolUse", judge="codex",
        judge_binary=str(host_binary("codex", npm_bin)), judge_model=MODELS["codex"],
        judge_answer="I would rather not say.",
        turns=lambda project: [Turn.shell("echo pasture-probe > probe.txt"), Turn.reply("Done: {tool_result}")],
    )  # fmt: skip
    context = json.dumps(
        {k: v for k, v in result.items() if k not in ("layout", "fake_requests", "judge_requests")}, indent=2
    )
    assert not result["probe_exists"], context
    (pre,) = [r for r in result["journal"] if r["event"] == "PreToolUse"]
    assert (pre["gate"], pre["decision"], pre["layer"]) == ("agent", "none", "user"), context
    assert pre["failure"] == (
        "user policy agent gate: agent gate (codex) answered no valid decision after 3 schema "
        "retries; check [gate] model and prompt"
    ), context
    assert pre["detail"]["runs"] == 4 and pre["detail"]["outcome"] == "invalid-output"
    asked = [s for r in result["judge_requests"] for s in _strings(r.get("body"))]
    assert any("Retry attempt 3/3" in s for s in asked) and not any("Retry attempt 4/3" in s for s in asked)
    refused = [s for r in result["fake_requests"] for s in _strings(r.get("body")) if "answered no valid decision" in s]
    assert refused, "the outer host's model was never told why the call was refused"
