"""The `agent` gate kind, through the policy parser and the hook runtime, against fake host binaries.

fake_host.py speaks each host's headless stdout format (the real hosts: test_agent_gate_real_hosts.py).
Every case runs `pasture hook lifecycle` in-process on a Claude Code or Codex PreToolUse payload with a
user policy whose [gate] is kind "agent", and reads the answer, the journal and what the fake host got.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pasture.gates.agent import DEFAULT_INSTRUCTIONS, judge_task
from pasture.gates.gate import DECISION_CONTRACT, GateDecision
from pasture.gates.prompts import build_schema_retry_prompt, harness_prompt
from pasture.journal.db import query
from pasture.runtime.agentgate import judges
from pasture.runtime.gatekinds import AGENT_HOSTS, KINDS
from pasture.runtime.lifecycle import run
from pasture.runtime.policy import PolicyError, compile_layer

FAKE_HOST = Path(__file__).resolve().parent / "fake_host.py"
HOST_KIND = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}
DENY = {"decision": "deny", "reason": "the judge refuses probe files"}
PAYLOADS = {
    "claude-code": (
        "PreToolUse",
        "2.1.328",
        {
            "session_id": "s1",
            "tool_use_id": "t1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "echo x > probe.txt"},
        },
    ),
    "codex": (
        "PreToolUse",
        "0.171.0",
        {
            "session_id": "s1",
            "turn_id": "u1",
            "tool_use_id": "t1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "echo x > probe.txt"},
        },
    ),
}


@pytest.fixture
def hook(tmp_path, monkeypatch):
    """(policy writer, caller, fake-host plan setter, fake-host runs) for one hook environment."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for kind in HOST_KIND.values():
        exe = bindir / kind
        exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_HOST}" {kind} "$@"\n')
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    log, plan = tmp_path / "host-runs.jsonl", tmp_path / "plan.json"
    monkeypatch.setenv("FAKE_HOST_LOG", str(log))
    monkeypatch.setenv("FAKE_HOST_PLAN", str(plan))
    monkeypatch.delenv("PASTURE_AGENT_GATE", raising=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASTURE_", "CLAUDE_"))}
    env.update(
        PASTURE_JOURNAL=str(tmp_path / "journal.sqlite3"),
        PASTURE_POLICY=str(tmp_path / "policy.toml"),
        PASTURE_MANAGED_POLICY=str(tmp_path / "managed.toml"),
        PASTURE_TRUST_STORE=str(tmp_path / "state" / "trust.json"),
        PASTURE_CACHE_DIR=str(tmp_path / "cache"),
    )

    class Hook:
        journal = tmp_path / "journal.sqlite3"
        environment = env

        @staticmethod
        def policy(judge: str = "claude-code", extra: str = "", binary: str | None = None) -> None:
            exe = binary if binary is not None else str(bindir / HOST_KIND[judge])
            (tmp_path / "policy.toml").write_text(
                f'[gate]\nkind = "agent"\nhost = "{judge}"\n'
                f'binary = {json.dumps(exe)}\nevents = ["PreToolUse"]\n{extra}'
            )

        @staticmethod
        def plan(*steps: dict) -> None:
            plan.write_text(json.dumps(list(steps)))

        @staticmethod
        def runs() -> list[dict]:
            return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

        @staticmethod
        def call(harness: str = "claude-code") -> tuple[int, str, str]:
            event, version, payload = PAYLOADS[harness]
            out, err = io.BytesIO(), io.BytesIO()
            code = run(
                ["--harness", harness, "--event", event, "--host-version", version],
                io.BytesIO(json.dumps(payload).encode()),
                out,
                err,
                env,
            )
            return code, out.getvalue().decode(), err.getvalue().decode()

        @staticmethod
        def last() -> dict:
            return query(tmp_path / "journal.sqlite3")[-1]

    return Hook


# --- the table and the policy parser --------------------------------------------------------------


def test_the_table_names_the_hosts_the_harness_can_run():
    assert AGENT_HOSTS == tuple(judges()) == ("claude-code", "codex", "opencode")
    assert set(KINDS) == {"rules", "command", "ai", "agent"}
    assert all((entry.runner is None) == (not entry.runs) for entry in KINDS.values())


def refused(text: str) -> str:
    with pytest.raises(PolicyError) as info:
        compile_layer("user", "/u/policy.toml", text.encode(), "/p", True)
    return str(info.value)


@pytest.mark.parametrize(
    "text,message",
    [
        ('[gate]\nkind = "oracle"\n', "/u/policy.toml:2: [gate] kind 'oracle' is not one of rules, command, ai, agent"),
        (
            '[gate]\nkind = "agent"\nhost = "gemini"\n',
            "/u/policy.toml:3: [gate] kind 'agent' needs host = one of claude-code, codex, opencode (got 'gemini')",
        ),
        (
            '[gate]\nkind = "agent"\n',
            "/u/policy.toml:1: [gate] kind 'agent' needs host = one of claude-code, codex, opencode (got None)",
        ),
        (
            '[gate]\nkind = "agent"\nhost = "codex"\nmodel = ""\n',
            "/u/policy.toml:4: [gate] model must be a non-empty string",
        ),
        (
            '[gate]\nkind = "agent"\nhost = "codex"\ncommand = ["x"]\n',
            "/u/policy.toml:4: [gate] has unknown key(s) command; allowed: binary, default, events, host, kind, model, "
            "prompt, timeout",
        ),
        (
            '[gate]\nkind = "ai"\nhost = "codex"\n',
            "/u/policy.toml:3: [gate] has unknown key(s) host; allowed: base_url, default, events, kind, model, "
            "system_prompt, timeout",
        ),
        (
            '[gate]\nkind = "rules"\nmodel = "m"\n',
            "/u/policy.toml:3: [gate] has unknown key(s) model; allowed: default, events, kind, timeout",
        ),
    ],
)
def test_bad_gate_tables_name_the_line_and_the_allowed_values(text, message):
    assert refused(text) == message


def test_an_agent_gate_compiles_with_its_defaults():
    text = b'[gate]\nkind = "agent"\nhost = "codex"\nmodel = "m"\n'
    layer = compile_layer("user", "/u/policy.toml", text, "/p", True)
    assert (layer["kind"], layer["agent"], layer["timeout"]) == ("agent", {"host": "codex", "model": "m"}, 45.0)


def test_an_untrusted_project_layer_loses_its_agent_gate():
    text = (
        b'[gate]\nkind = "agent"\nhost = "claude-code"\nbinary = "./judge"\n[[rules]]\nname = "r"\ndecision = "deny"\n'
    )
    layer = compile_layer("project", "/p/.pasture/policy.toml", text, "/p", False)
    assert layer["kind"] == "rules" and layer["agent"] is None and len(layer["rules"]) == 1
    assert layer["ignored"] == ["agent gate (host claude-code, binary ./judge)"]


# --- the runtime --------------------------------------------------------------------------------------


@pytest.mark.parametrize("judge", sorted(HOST_KIND))
@pytest.mark.parametrize("harness", sorted(PAYLOADS))
def test_a_deny_from_the_judge_blocks_the_tool_and_is_journaled(hook, judge, harness):
    hook.policy(judge)
    hook.plan({"final": json.dumps(DENY), "cost": 0.01})
    code, out, err = hook.call(harness)
    assert denied(harness, code, out, err, "the judge refuses probe files"), (code, out, err)
    entry = hook.last()
    assert (entry["gate"], entry["decision"], entry["reason"], entry["layer"]) == (
        "agent",
        "deny",
        "the judge refuses probe files",
        "user",
    )
    assert entry["detail"]["host"] == judge and entry["detail"]["runs"] == 1
    (ran,) = hook.runs()
    assert ran["kind"] == HOST_KIND[judge] and ran["env"]["PASTURE_AGENT_GATE"] == "1"
    assert "echo x > probe.txt" in ran["prompt"] and DECISION_CONTRACT in ran["prompt"]
    # the seed's composition: phase guidance (no phase), the schema guidance of GateDecision
    assert ran["prompt"].startswith("Context:\n- Build conclusions from repository evidence")
    assert ran["prompt"] == harness_prompt(judge_task_from(ran["prompt"]), None, ran["cwd"], GateDecision)
    assert not Path(ran["cwd"]).exists()  # the judge's scratch folder is gone


def denied(harness: str, code: int, out: str, err: str, reason: str) -> bool:
    """The host's native deny on its PreToolUse row (pasture.runtime.answer): the same JSON for both."""
    answer = json.loads(out)["hookSpecificOutput"] if out else {}
    return code == 0 and (answer.get("permissionDecision"), answer.get("permissionDecisionReason")) == ("deny", reason)


def failed_closed(code: int, out: str, err: str) -> bool:
    """Claude Code's PreToolUse failing closed: its JSON deny carrying the failure line (issue 17: not
    exit 2, on which Claude hands the model the raw hook command line), the same line on stderr."""
    answer = json.loads(out)["hookSpecificOutput"] if out else {}
    return code == 0 and answer.get("permissionDecision") == "deny" and answer["permissionDecisionReason"] == err[:-1]


def judge_task_from(prompt: str) -> str:
    """The task part of a composed harness prompt (between "Task:\\n" and "\\n\\nOutput:")."""
    return prompt.split("Task:\n", 1)[1].split("\n\nOutput:\n", 1)[0]


def test_the_judge_gets_the_policy_instructions_and_the_envelope(hook):
    hook.policy("codex", 'prompt = "Deny anything that writes probe.txt."\nmodel = "judge-model"\n')
    hook.plan({"final": json.dumps({"decision": "proceed", "reason": "fine"})})
    code, out, err = hook.call("codex")
    assert code == 0, err
    (ran,) = hook.runs()
    task = judge_task_from(ran["prompt"])
    assert task.startswith("Deny anything that writes probe.txt.\n\nThe event:\n") and DEFAULT_INSTRUCTIONS not in task
    envelope = json.loads(task.split("The event:\n", 1)[1].split("\n\n" + DECISION_CONTRACT, 1)[0])
    assert envelope["command"] == "echo x > probe.txt" and envelope["event"] == "PreToolUse"
    assert task == judge_task(envelope, "Deny anything that writes probe.txt.")
    assert ran["argv"][ran["argv"].index("-m") + 1] == "judge-model"
    assert hook.last()["decision"] == "proceed" and hook.last()["gate"] == "agent"


def test_a_malformed_answer_gets_the_seeds_schema_retry(hook):
    hook.policy("claude-code")
    hook.plan({"final": "I think this is fine."}, {"final": json.dumps(DENY)})
    code, out, err = hook.call()
    assert denied("claude-code", code, out, err, "the judge refuses probe files")
    first, retry = hook.runs()
    task = build_schema_retry_prompt(GateDecision, "Retry attempt 1/3", retry["cwd"])
    assert retry["prompt"] == harness_prompt(task, None, retry["cwd"], GateDecision)
    assert hook.last()["detail"]["runs"] == 2


def test_malformed_after_every_retry_is_the_rows_failure_mode(hook):
    hook.policy("codex")
    hook.plan({"final": '{"decision": "maybe", "reason": "?"}'})
    code, out, err = hook.call("codex")
    assert (code, out) == (2, "") and "Traceback" not in err
    assert "agent gate (codex) answered no valid decision after 3 schema retries; check [gate] model and prompt" in err
    assert len(hook.runs()) == 4  # the first run and the seed's 3 schema retries
    entry = hook.last()
    assert entry["decision"] == "none" and entry["gate"] == "agent" and entry["detail"]["outcome"] == "invalid-output"


def test_a_host_that_crashes_is_the_rows_failure_mode(hook):
    hook.policy("claude-code")
    hook.plan({"error": "API Error: 500 upstream", "exit": 1})
    code, out, err = hook.call()
    assert (
        failed_closed(code, out, err)
        and "agent gate (claude-code) failed: Harness failure: API Error: 500 upstream" in err
    )
    assert len(err.strip().splitlines()) == 1 and len(hook.runs()) == 1  # a failed run is not repeated


def test_a_missing_host_says_how_to_install_it(hook, tmp_path):
    hook.policy("codex", binary=str(tmp_path / "nowhere" / "codex"))
    code, out, err = hook.call()
    assert failed_closed(code, out, err)
    assert (
        f"agent gate: host codex is not installed ('{tmp_path / 'nowhere' / 'codex'}' is not an executable here); "
        "install it (npm install -g @openai/codex) or set [gate] binary to its path"
    ) in err
    assert hook.last()["detail"]["outcome"] == "missing"


def test_a_slow_judge_is_killed_at_the_gate_timeout(hook):
    hook.policy("claude-code", "timeout = 1\n")
    hook.plan({"sleep": 20, "final": json.dumps(DENY)})
    code, out, err = hook.call()  # the judge sleeps 20 s: the message below is the kill at 1 s
    assert failed_closed(code, out, err) and "agent gate (claude-code) gave no decision within 1.0s" in err
    assert hook.last()["detail"]["outcome"] == "timeout"


def test_the_gate_timeout_is_clamped_to_the_rows_deadline(hook):
    from pasture.runtime.effective import evaluate, load

    hook.policy("claude-code", "timeout = 40\n")
    hook.plan({"sleep": 20, "final": json.dumps(DENY)})
    state = load(str(hook.journal.parent), hook.environment)
    verdict = evaluate(state, {"event": "PreToolUse", "tool_name": "Bash", "command": "ls"}, time.perf_counter() + 1.5)
    assert verdict.decision is None and "gate timeout 40s clamped to 1.5s" in verdict.failure


def test_a_judge_cannot_start_another_judge(hook, monkeypatch):
    hook.policy("claude-code")
    hook.plan({"final": json.dumps(DENY)})
    monkeypatch.setenv("PASTURE_AGENT_GATE", "1")
    code, out, err = hook.call()
    assert failed_closed(code, out, err) and "inside an agent gate's own judge session" in err
    assert hook.runs() == []


def test_the_agent_gate_imports_no_pydantic(hook, tmp_path):
    """The hook path with an agent gate that runs: stdlib only, still (measured: benchmarks/README.md)."""
    hook.policy("claude-code")
    hook.plan({"final": json.dumps(DENY)})
    event, version, payload = PAYLOADS["claude-code"]
    probe = (
        "import json, sys\nfrom pasture.runtime.main import main\n"
        f"code = main(['hook', 'lifecycle', '--harness', 'claude-code', '--event', '{event}', '--host-version', "
        f"'{version}'])\nprint(json.dumps({{'code': code, 'mods': sorted(sys.modules)}}))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_")}
    env.update(
        PASTURE_JOURNAL=str(hook.journal),
        PASTURE_POLICY=str(tmp_path / "policy.toml"),
        PASTURE_MANAGED_POLICY=str(tmp_path / "managed.toml"),
        PASTURE_TRUST_STORE=str(tmp_path / "t.json"),
        PASTURE_CACHE_DIR=str(tmp_path / "cache"),
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60
    )
    result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert result["code"] == 0 and "permissionDecision" in done.stdout.decode(), done.stderr.decode()
    assert "pasture.gates.agent" in result["mods"]
    assert not [m for m in result["mods"] if m.split(".")[0] in ("pydantic", "pydantic_core", "click", "yaml")]


def test_an_untrusted_project_agent_gate_is_ignored_and_reported_until_trusted(hook, tmp_path):
    from pasture.runtime import trust

    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    policy = project / ".pasture" / "policy.toml"
    judge = tmp_path / "bin" / "claude"
    policy.write_text(f'[gate]\nkind = "agent"\nhost = "claude-code"\nbinary = {json.dumps(str(judge))}\n')
    hook.plan({"final": json.dumps(DENY)})
    env = hook.environment
    event, version, payload = PAYLOADS["claude-code"]

    def call() -> tuple[int, str, str]:
        out, err = io.BytesIO(), io.BytesIO()
        code = run(
            ["--harness", "claude-code", "--event", event, "--host-version", version],
            io.BytesIO(json.dumps(dict(payload, cwd=str(project))).encode()),
            out,
            err,
            env,
        )
        return code, out.getvalue().decode(), err.getvalue().decode()

    code, out, err = call()
    assert (code, out) == (0, "") and hook.runs() == []
    assert f"is not trusted: ignored agent gate (host claude-code, binary {judge})" in err
    assert f"pasture policy trust --project {project}" in err
    trust.trust(str(policy), env)
    code, out, err = call()
    assert denied("claude-code", code, out, err, "the judge refuses probe files") and len(hook.runs()) == 1
    assert "not trusted" not in err


def test_policy_show_names_the_agent_gate(hook, tmp_path):
    from pasture.cli.policy import describe

    hook.policy("codex", 'model = "judge-model"\ntimeout = 90\n')
    info = describe(str(tmp_path), hook.environment)
    (user,) = [layer for layer in info["layers"] if layer["layer"] == "user"]
    assert user["gate"] == {
        "kind": "agent",
        "default": "proceed",
        "events": ["PreToolUse"],
        "timeout": 90.0,
        "host": "codex",
        "model": "judge-model",
        "binary": str(tmp_path / "bin" / "codex"),
    }
    assert any("[gate] timeout 90s is longer than a gate row may take" in w for w in info["warnings"])


def test_a_crash_inside_the_gate_is_a_failure_not_a_traceback(hook, monkeypatch):
    import pasture.gates.agent as agent

    def explode(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(agent, "judge_task", explode)
    hook.policy("claude-code")
    code, out, err = hook.call()
    assert failed_closed(code, out, err) and "Traceback" not in err
    assert "agent gate (claude-code) crashed: RuntimeError: simulated bug; this is pasture's fault" in err
    assert hook.last()["detail"]["outcome"] == "crash"


# --- what is read from a judge is bounded (issue 27) --------------------------------------------------


@pytest.mark.parametrize("judge", sorted(HOST_KIND))
def test_a_judge_that_floods_its_output_fails_closed_with_a_line_saying_so(hook, judge):
    hook.policy(judge)
    hook.plan({"flood": 8 << 20, "final": json.dumps(DENY)})
    code, out, err = hook.call()
    assert failed_closed(code, out, err), (code, out, err[:300])
    assert f"agent gate ({judge}): the judge printed more than 4 MiB; pasture reads at most that much" in err
    assert hook.last()["detail"]["outcome"] == "too-large" and len(hook.runs()) == 1


def test_an_output_file_over_the_cap_fails_closed_too(hook):
    hook.policy("claude-code")
    hook.plan({"write": json.dumps({**DENY, "pad": "x" * (8 << 20)})})
    code, out, err = hook.call()
    assert failed_closed(code, out, err)
    assert "the judge's output file is larger than 4 MiB; pasture reads at most that much" in err
    assert hook.last()["detail"]["outcome"] == "too-large"


def test_the_judges_stdout_is_read_in_chunks_and_never_past_the_cap():
    import asyncio

    from pasture.gates import harness

    class Counting:
        def __init__(self, size: int):
            self.left, self.read_bytes = size, 0

        async def read(self, n: int = -1) -> bytes:
            assert n > 0, "an unbounded read"
            chunk = min(n, self.left)
            self.left -= chunk
            self.read_bytes += chunk
            return b"x" * chunk

    flood = Counting(64 << 20)
    with pytest.raises(harness.HarnessOutputTooLarge):
        asyncio.run(harness.read_capped(flood, harness.MAX_OUTPUT))
    assert flood.read_bytes <= harness.MAX_OUTPUT + 1
    tail = Counting(3 << 20)  # stderr: drained to its end, only the last part kept
    assert len(asyncio.run(harness.read_tail(tail, 1000))) == 1000 and tail.read_bytes == 3 << 20


def test_a_long_judge_reason_reaches_the_host_cut_with_a_marker(hook):
    reason = "no: " + "r" * 50_000
    hook.policy("codex")
    hook.plan({"final": json.dumps({"decision": "deny", "reason": reason})})
    code, out, err = hook.call("codex")
    cut = reason[:2000] + f" [pasture: reason cut at 2000 of {len(reason)} characters]"
    assert denied("codex", code, out, err, cut), (code, out[:300], err[:300])
    assert hook.last()["detail"]["reason_cut"] == len(reason)
