"""The half of a gates real-host test that runs inside the network namespace.

``python real_host_inside.py SPEC.json`` (started by test_gates_real_hosts.py under
``pasture.hostenv.netns.isolation_support().wrapper``). It brings ``lo`` up, starts the
hostenv fake model for the host's wire protocol (and, in ``gate`` mode, the fake
chat-completions server the AI gate talks to), prepares the host's config with the hostenv
launcher, then:

* ``harness`` mode: runs ``HarnessWrapper.invoke`` with the real ``HostHarnessBackend`` (our own
  command line for the host, not the launcher's) in the run's project folder;
* ``gate`` mode: runs the host with the launcher's command line and a PreToolUse command hook
  that asks ``ai_gate_decide`` and denies when the gate says deny;
* ``agent-gate`` mode: a second fake model, for the judge host's wire protocol, and the judge's
  config written by its own launcher beside the outer host's (the pairs tested keep them apart:
  Claude Code reads ``ANTHROPIC_*``/``CLAUDE_CONFIG_DIR``, Codex ``CODEX_HOME``, OpenCode its
  ``opencode.json``); then the outer host runs with our generated adapter, and pasture's runtime, on
  its pre-tool row, runs the REAL judge host (kind = "agent") against its fake.

Everything observed goes to ``<root>/gates-result.json``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

from pasture.hostenv import FakeModelServer, Script, Turn, launcher_for
from pasture.hostenv.netns import bring_loopback_up, network_interfaces
from pasture.hostenv.runner import base_host_env
from pasture.hosts import RunContext, RunLayout


def _harness(spec, layout, launcher, fake, env, binary):
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import gates_models

    from pasture.gates import EnvAIConfig, HarnessWrapper, HostHarnessBackend
    from pasture.runtime.agentgate import judges

    # provider_env() reads this process's environment: make it the host's scrubbed one.
    os.environ.clear()
    os.environ.update(env)
    schema = getattr(gates_models, spec["schema"])
    backend = HostHarnessBackend(
        judges=judges(),
        binaries={spec["host"]: str(binary)},
        base_env=env,
        timeout=spec["timeout"],
        bypass_permissions=spec["bypass_permissions"],
    )
    cfg = EnvAIConfig(provider=spec["host"], harness_model=spec["model"], max_turns=10, max_retries=0)
    wrapper = HarnessWrapper(backend, cfg)
    out: dict = {"runs": []}
    try:
        parsed = asyncio.run(
            wrapper.invoke(prompt=spec["prompt"], schema=schema, cwd=str(layout.project), phase=spec["phase"])
        )
        out["parsed"] = parsed.model_dump()
    except Exception as exc:  # reported, the outer test decides
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["runs"] = [run.argv for run in backend.runs]
    out["invocation_count"] = wrapper.invocation_count
    out["total_cost_usd"] = wrapper.total_cost_usd
    return out


GATE_HOOK = r"""
import json, sys
from pasture.gates import ai_gate_decide, AIGateError
envelope = {"event": "PreToolUse", "host": "claude-code", "payload": json.load(sys.stdin)}
journal = {}
try:
    decision = ai_gate_decide(envelope, {"model": "gate/model", "timeout": 20}, journal=journal)
except AIGateError as exc:
    decision = {"decision": "error", "reason": str(exc)}
with open(sys.argv[1], "a") as log:
    log.write(json.dumps({"decision": decision, "journal": journal}) + "\n")
if decision["decision"] == "deny":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                      "permissionDecision": "deny", "permissionDecisionReason": decision["reason"]}}))
"""


def _gate(spec, layout, launcher, fake, env, binary, ctx):
    from pasture.hostenv.fake_models import ChatReply as Reply
    from pasture.hostenv.fake_models import FakeChatServer

    gate_log = layout.root / "gate-decisions.jsonl"
    hook = layout.root / "gate_hook.py"
    hook.write_text(GATE_HOOK)
    with FakeChatServer([Reply.json(spec["gate_answer"], usage={"cost": 0.003})]) as chat:
        settings = {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [{"type": "command", "command": f"{sys.executable} {hook} {gate_log}", "timeout": 60}],
                    }
                ]
            }
        }
        (layout.project / ".claude").mkdir(exist_ok=True)
        (layout.project / ".claude" / "settings.json").write_text(json.dumps(settings))
        env = dict(env)
        env["PASTURE_AI_BASE_URL"] = chat.base_url
        env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
        argv = ["timeout", "-k", "5", str(int(spec["timeout"])), *launcher.argv(ctx)]
        proc = subprocess.run(
            argv,
            cwd=layout.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=spec["timeout"] + 30,
        )
        gate_requests = chat.chat_requests
    records = [json.loads(line) for line in gate_log.read_text().splitlines()] if gate_log.exists() else []
    return {
        "exit_code": proc.returncode,
        "stdout": proc.stdout[-4000:],
        "stderr": proc.stderr[-4000:],
        "probe_exists": (layout.project / "probe.txt").exists(),
        "gate_records": records,
        "gate_requests": len(gate_requests),
        "gate_user_prompts": [r["body"]["messages"][-1]["content"] for r in gate_requests],
    }


def _runtime_gate(spec, layout, launcher, fake, env, binary, ctx):
    """The AI gate consulted by pasture's own runtime through our generated Claude adapter."""
    from pasture.hostenv.fake_models import ChatReply as Reply
    from pasture.hostenv.fake_models import FakeChatServer

    repo = Path(spec["repo"])
    wrapper = layout.root / "pasture-bin"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m pasture.entry "$@"\n')
    wrapper.chmod(0o755)
    journal = layout.root / "journal.sqlite3"
    with FakeChatServer([Reply.json(spec["gate_answer"], usage={"cost": 0.003})]) as chat:
        policy = layout.root / "policy.toml"
        policy.write_text(
            f'[gate]\nkind = "ai"\nevents = ["PreToolUse"]\nmodel = "gate/model"\ntimeout = 20\n'
            f"base_url = {json.dumps(chat.base_url)}\n"
        )
        (layout.project / ".claude").mkdir(exist_ok=True)
        (layout.project / ".claude" / "settings.json").write_text(
            (repo / "generated" / "claude-code@2.1.261" / "settings.json").read_text()
        )
        env = dict(env)
        env.update(
            PASTURE_BIN=str(wrapper), PASTURE_POLICY=str(policy), PASTURE_JOURNAL=str(journal), PYTHONPATH=str(repo)
        )
        argv = ["timeout", "-k", "5", str(int(spec["timeout"])), *launcher.argv(ctx)]
        proc = subprocess.run(
            argv,
            cwd=layout.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=spec["timeout"] + 30,
        )
        gate_requests = chat.chat_requests
    from pasture.journal.db import query

    return {
        "exit_code": proc.returncode,
        "stdout": proc.stdout[-4000:],
        "stderr": proc.stderr[-4000:],
        "probe_exists": (layout.project / "probe.txt").exists(),
        "journal": query(journal),
        "gate_requests": len(gate_requests),
        "gate_user_prompts": [r["body"]["messages"][-1]["content"] for r in gate_requests],
    }


def _agent_gate(spec, layout, launcher, fake, env, binary, ctx):
    """Real outer host -> our adapter -> `pasture hook lifecycle` -> [gate] kind "agent" -> real judge host."""
    repo = Path(spec["repo"])
    judge_launcher = launcher_for(spec["judge"])
    judge_fake = FakeModelServer(
        judge_launcher.wire_protocol,
        Script.of(Turn.reply(spec["judge_answer"]), final_text=spec["judge_answer"]),
        log_path=layout.root / "judge-requests.jsonl",
        deadline=spec["timeout"] * 3,
    ).start()
    try:
        judge_ctx = RunContext(layout, Path(spec["judge_binary"]), judge_fake.url, "", judge_launcher.options(None))
        env = dict(env)
        env.update(judge_launcher.env(judge_ctx))
        if spec["judge"] == "claude-code":
            env.pop("IS_SANDBOX", None)  # the judge runs with its default permissions, not bypassed
        judge_ctx.env = env
        judge_launcher.prepare(judge_ctx)
        wrapper = layout.root / "pasture-bin"
        wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m pasture.entry "$@"\n')
        wrapper.chmod(0o755)
        journal = layout.root / "journal.sqlite3"
        policy = layout.root / "policy.toml"
        policy.write_text(
            f'[gate]\nkind = "agent"\nhost = "{spec["judge"]}"\n'
            f"binary = {json.dumps(spec['judge_binary'])}\nmodel = {json.dumps(spec['judge_model'])}\n"
            f"events = [{json.dumps(spec['pre_event'])}]\n"
        )
        adapter = repo / "generated" / spec["adapter"]
        if spec["host"] == "claude-code":
            (layout.project / ".claude").mkdir(exist_ok=True)
            (layout.project / ".claude" / "settings.json").write_text((adapter / "settings.json").read_text())
        elif spec["host"] == "codex":
            (layout.project / ".codex").mkdir(exist_ok=True)
            (layout.project / ".codex" / "hooks.json").write_text((adapter / "hooks.json").read_text())
        else:  # OpenCode: the plugin starts one `$PASTURE_BIN hook serve`
            (layout.project / ".opencode" / "plugins").mkdir(parents=True, exist_ok=True)
            (layout.project / ".opencode" / "plugins" / "pasture-lifecycle.ts").write_text(
                (adapter / "pasture-lifecycle.ts").read_text()
            )
        env.update(
            PASTURE_BIN=str(wrapper),
            PASTURE_POLICY=str(policy),
            PASTURE_JOURNAL=str(journal),
            PASTURE_MANAGED_POLICY=str(layout.root / "managed" / "policy.toml"),
            PASTURE_TRUST_STORE=str(layout.root / "state" / "trust.json"),
            PASTURE_CACHE_DIR=str(layout.root / "pasture-cache"),
            PYTHONPATH=str(repo),
        )
        argv = ["timeout", "-k", "5", str(int(spec["timeout"])), *launcher.argv(ctx)]
        proc = subprocess.run(
            argv,
            cwd=layout.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=spec["timeout"] + 30,
        )
    finally:
        judge_fake.stop("done")
    from pasture.journal.db import query

    judge_requests = [json.loads(line) for line in (layout.root / "judge-requests.jsonl").read_text().splitlines()]
    return {
        "exit_code": proc.returncode,
        "stdout": proc.stdout[-4000:],
        "stderr": proc.stderr[-4000:],
        "probe_exists": (layout.project / "probe.txt").exists(),
        "journal": query(journal) if journal.exists() or Path(str(journal) + ".spool").exists() else [],
        "judge_requests": judge_requests,
        "leftover_scratch": sorted(p.name for p in layout.tmp.glob("pasture-agent-gate-*")),
    }


def main(spec_path: str) -> int:
    spec = json.loads(Path(spec_path).read_text())
    layout = RunLayout.from_dict(spec["layout"])
    result: dict = {}
    fake = None
    try:
        if spec["isolation"] != "none":
            bring_loopback_up()
            result["interfaces"] = network_interfaces()
        launcher = launcher_for(spec["host"])
        turns = [Turn.from_dict(t) for t in spec["turns"]]
        fake = FakeModelServer(
            launcher.wire_protocol,
            Script.of(*turns, final_text="Nothing left to do."),
            log_path=layout.root / "fake-requests.jsonl",
            deadline=spec["timeout"] * 3,
        ).start()
        binary = Path(spec["binary"])
        ctx = RunContext(
            layout,
            binary,
            fake.url,
            spec.get("host_prompt", "Create the pasture probe file, then report."),
            launcher.options(spec.get("options")),
        )
        env = base_host_env(layout, spec["caller_env"])
        env.update(launcher.env(ctx))
        ctx.env = env
        launcher.prepare(ctx)
        started = time.monotonic()
        if spec["mode"] == "harness":
            result.update(_harness(spec, layout, launcher, fake, env, binary))
        elif spec["mode"] == "agent-gate":
            result.update(_agent_gate(spec, layout, launcher, fake, env, binary, ctx))
        elif spec["mode"] == "runtime-gate":
            result.update(_runtime_gate(spec, layout, launcher, fake, env, binary, ctx))
        else:
            result.update(_gate(spec, layout, launcher, fake, env, binary, ctx))
        result["wall_time"] = round(time.monotonic() - started, 3)
    except Exception:
        result["crash"] = traceback.format_exc()
    finally:
        if fake is not None:
            fake.stop("done")
        Path(layout.root / "gates-result.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
