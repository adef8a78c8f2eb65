"""Standalone drivers for the three new hosts (Gemini CLI, Copilot CLI, Pi), for the offline real-host tests.

The host launchers of pasture/hosts/ (one module per host) do not cover these hosts yet, so
the new hosts' launchers live here, in test support, until each has its host module. They plug into the existing
machinery without changing it:

* a run folder is a :class:`~pasture.hosts.launch.RunLayout` (``project/``, ``home/``, ...);
* the run is the runner's own inside-the-namespace half (:func:`pasture.hostenv.runner._inside`),
  started as ``python <this file> --inside spec.json`` under the strongest isolation available,
  after adding these launchers to the launcher table of *that* process;
* the fake model is the shared :class:`~pasture.hostenv.fake_models.FakeModelServer`
  (``gemini`` for Gemini CLI, ``openai-chat`` for Copilot CLI and Pi), on 127.0.0.1 inside the
  loopback-only namespace.

Hooks: :func:`write_recorder` writes one stdlib-only recording hook script (Gemini and Copilot
command hooks) that logs each call and can refuse the pre-tool event by exit 2 or by the host's JSON
deny (or crash with exit 1, or hang past its timeout); :func:`pi_extension` writes the equivalent Pi extension.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

from pasture.hostenv.fake_models import Script
from pasture.hostenv.netns import isolation_support, python_env
from pasture.hostenv.runner import CLEARED_ENV, DEFAULT_PROMPT, HostRunResult, base_host_env
from pasture.hosts import LAUNCHERS
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext, RunLayout

#: host name -> (npm package, binary in node_modules/.bin)
NEW_HOST_PACKAGES: dict[str, tuple[str, str]] = {
    "gemini-cli": ("@google/gemini-cli", "gemini"),
    "copilot-cli": ("@github/copilot", "copilot"),
    "pi": ("@mariozechner/pi-coding-agent", "pi"),
}


def _merge_json(path: Path, over: dict[str, Any]) -> None:
    """Deep-merge ``over`` into the JSON object at ``path`` (a test may have written hooks there)."""

    def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        out = dict(base)
        for key, value in extra.items():
            out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
        return out

    current = json.loads(path.read_text()) if path.exists() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merge(current, over), indent=2) + "\n")


class GeminiLauncher(HostLauncher):
    """``gemini -p PROMPT --yolo --output-format json`` against the fake Gemini API.

    API-key auth selected in ``~/.gemini/settings.json``; ``GOOGLE_GEMINI_BASE_URL`` points the SDK
    at the fake (plain http is accepted for 127.0.0.1 only, per the bundled configuration docs).
    ``trust``: ``GEMINI_CLI_TRUST_WORKSPACE=true`` (the headless trust step), else nothing.
    """

    host = "gemini-cli"
    wire_protocol = "gemini"
    default_options = {"model": "gemini-2.5-pro", "trust": True, "extra_args": []}

    def env(self, ctx: RunContext) -> dict[str, str]:
        env = {
            "GOOGLE_GEMINI_BASE_URL": ctx.base_url,
            "GEMINI_API_KEY": FAKE_API_KEY,
            "GEMINI_MODEL": ctx.options["model"],
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
        if ctx.options["trust"]:
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        return env

    def prepare(self, ctx: RunContext) -> None:
        _merge_json(
            ctx.layout.home / ".gemini" / "settings.json",
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                "privacy": {"usageStatisticsEnabled": False},
            },
        )

    def argv(self, ctx: RunContext) -> list[str]:
        return [str(ctx.binary), "-p", ctx.prompt, "--yolo", "--output-format", "json", *ctx.options["extra_args"]]


class CopilotLauncher(HostLauncher):
    """``copilot -p PROMPT --allow-all-tools`` in offline BYOK mode against the fake Chat Completions API.

    ``trust``: ``--trust-folder`` (loads the project's ``.github/hooks``), else nothing.
    """

    host = "copilot-cli"
    wire_protocol = "openai-chat"
    default_options = {"model": "fake-model", "trust": True, "extra_args": []}

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": ctx.base_url_v1,
            "COPILOT_PROVIDER_API_KEY": FAKE_API_KEY,
            "COPILOT_MODEL": ctx.options["model"],
            "COPILOT_AUTO_UPDATE": "false",
        }

    def argv(self, ctx: RunContext) -> list[str]:
        trust = ["--trust-folder"] if ctx.options["trust"] else []
        return [
            str(ctx.binary),
            "-p",
            ctx.prompt,
            "--allow-all-tools",
            "--no-auto-update",
            "--disable-client-telemetry",
            *trust,
            *ctx.options["extra_args"],
        ]


class PiLauncher(HostLauncher):
    """``pi --offline --provider pasture --model M -p PROMPT`` against the fake Chat Completions API.

    The provider is declared in ``~/.pi/agent/models.json`` (``"api": "openai-completions"``).
    """

    host = "pi"
    wire_protocol = "openai-chat"
    default_options = {"model": "fake-model", "extra_args": []}

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {"PI_OFFLINE": "1", "PI_TELEMETRY": "0"}

    def prepare(self, ctx: RunContext) -> None:
        _merge_json(
            ctx.layout.home / ".pi" / "agent" / "models.json",
            {
                "providers": {
                    "pasture": {
                        "baseUrl": ctx.base_url_v1,
                        "api": "openai-completions",
                        "apiKey": FAKE_API_KEY,
                        "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                        "models": [{"id": ctx.options["model"], "name": "Pasture fake model"}],
                    }
                }
            },
        )

    def argv(self, ctx: RunContext) -> list[str]:
        return [
            str(ctx.binary),
            "--offline",
            "--provider",
            "pasture",
            "--model",
            ctx.options["model"],
            "--no-session",
            *ctx.options["extra_args"],
            "-p",
            ctx.prompt,
        ]


NEW_LAUNCHERS: dict[str, HostLauncher] = {
    launcher.host: launcher for launcher in (GeminiLauncher(), CopilotLauncher(), PiLauncher())
}


def run_new_host(
    host: str,
    bin_dir: Path,
    root: Path,
    script: Script,
    *,
    setup: Callable[[RunLayout], None] | None = None,
    prompt: str = DEFAULT_PROMPT,
    timeout: float = 150.0,
    options: dict[str, Any] | None = None,
    extra_env: dict[str, str] | None = None,
) -> HostRunResult:
    """One isolated headless run of a new host: what :meth:`pasture.hostenv.runner.HostRun.execute`
    does, with this module's launchers."""
    launcher = NEW_LAUNCHERS[host]
    binary = Path(bin_dir).absolute() / NEW_HOST_PACKAGES[host][1]
    layout = RunLayout.at(root).create()
    subprocess.run(
        ["git", "init", "-q", str(layout.project)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**base_host_env(layout), "GIT_CONFIG_NOSYSTEM": "1"},
    )
    if setup is not None:
        setup(layout)
    iso = isolation_support()
    if not iso.private_network:
        warnings.warn(f"running {host} without a network namespace: {iso.note}", RuntimeWarning, stacklevel=2)
    bad = CLEARED_ENV.intersection(extra_env or {})
    if bad:
        raise ValueError(f"extra_env may not set {sorted(bad)}")
    passthrough = ("PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "SHELL")
    spec = {
        "host": host,
        "binary": str(binary),
        "layout": layout.to_dict(),
        "script": script.to_dict(),
        "prompt": prompt,
        "options": launcher.options(options),
        "extra_env": dict(extra_env or {}),
        "timeout": float(timeout),
        "max_requests": 64,
        "fake_deadline": float(timeout + 30),
        "isolation": iso.mode,
        "cwd": None,
        "loggers": {},
        "caller_env": {k: v for k, v in os.environ.items() if k in passthrough or k.startswith("LC_")},
    }
    spec_path = layout.root / "run-spec.json"
    spec_path.write_text(json.dumps(spec, indent=2))
    result_path = layout.root / "result.json"
    argv = [*iso.wrapper, sys.executable, str(Path(__file__).resolve()), "--inside", str(spec_path)]
    log_path = layout.root / "runner.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=python_env(),
            start_new_session=True,
        )
        try:
            proc.wait(timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if not result_path.exists():
        tail = log_path.read_text(errors="replace")[-4000:]
        raise RuntimeError(f"no result (runner exit {proc.returncode}):\n{tail}")
    out = json.loads(result_path.read_text())
    if "error" in out:
        raise RuntimeError(f"host run failed: {out['error']}\n{log_path.read_text(errors='replace')[-4000:]}")
    requests = [json.loads(line) for line in (layout.root / "fake-requests.jsonl").read_text().splitlines() if line]
    return HostRunResult(
        host=host,
        exit_code=out["exit_code"],
        stdout=(layout.root / "host-stdout.txt").read_text(errors="replace"),
        stderr=(layout.root / "host-stderr.txt").read_text(errors="replace"),
        requests=requests,
        layout=layout,
        isolation=out["isolation"],
        wall_time=out["wall_time"],
        timed_out=out["timed_out"],
        argv=out["argv"],
        env=out["env"],
        fake_stop_reason=out.get("fake_stop_reason"),
        extra={k: v for k, v in out.items() if k.startswith("interfaces")},
    )


# --- recording hooks ------------------------------------------------------------------------------

_RECORDER = r'''#!/usr/bin/env python3
"""pasture new-hosts recording hook (stdlib only): log the call, then observe or refuse."""
import fcntl, json, os, sys

log, event, mode, block_event, reason, host = sys.argv[1:7]
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"_raw": raw}
secret = ("TOKEN", "KEY", "SECRET", "PASSWORD", "AUTH")
record = {"event": event, "payload": payload, "cwd": os.getcwd(),
          "env": {k: ("<redacted>" if any(s in k.upper() for s in secret) else v)
                  for k, v in sorted(os.environ.items()) if k.startswith(("GEMINI", "COPILOT", "CLAUDE", "PI_"))}}
with open(log, "a", encoding="utf-8") as fh:
    fcntl.flock(fh, fcntl.LOCK_EX)
    fh.write(json.dumps(record) + "\n")
if event != block_event or mode == "observe":
    sys.exit(0)
if mode == "exit2":
    sys.stderr.write(reason)
    sys.exit(2)
if mode == "crash":
    sys.stderr.write(reason)
    sys.exit(1)
if mode == "hang":  # outlive the hook's timeout, then refuse (too late)
    import time
    time.sleep(30)
    sys.stderr.write(reason)
    sys.exit(2)
if mode == "deny":
    answer = ({"decision": "deny", "reason": reason} if host == "gemini-cli"
              else {"permissionDecision": "deny", "permissionDecisionReason": reason})
    print(json.dumps(answer))
    sys.exit(0)
sys.exit(0)
'''


def write_recorder(folder: Path) -> Path:
    path = folder / "record_hook.py"
    path.write_text(_RECORDER)
    path.chmod(0o755)
    return path


def recorder_command(recorder: Path, log: Path, event: str, mode: str, block_event: str, reason: str, host: str) -> str:
    import shlex

    return " ".join(
        shlex.quote(a) for a in (sys.executable, "-I", str(recorder), str(log), event, mode, block_event, reason, host)
    )


def read_records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []


#: Gemini CLI hook events, as its bundled docs/hooks/reference.md and configuration.md list them.
GEMINI_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "Notification",
    "PreCompress",
)
#: Copilot CLI hook event names (the strings of prebuilds/linux-x64/runtime.node in the package the
#: native binary extracts; the hook code itself is native).
COPILOT_EVENTS = (
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "userPromptTransformed",
    "preToolUse",
    "preMcpToolCall",
    "postToolUse",
    "postToolUseFailure",
    "errorOccurred",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "preCompact",
    "permissionRequest",
    "notification",
)
#: Pi extension events (dist/core/extensions/types.d.ts: ``on(event: "...")``).
PI_EVENTS = (
    "resources_discover",
    "session_start",
    "session_before_switch",
    "session_before_fork",
    "session_before_compact",
    "session_compact",
    "session_shutdown",
    "session_before_tree",
    "session_tree",
    "context",
    "before_provider_request",
    "after_provider_response",
    "before_agent_start",
    "agent_start",
    "agent_end",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "model_select",
    "thinking_level_select",
    "tool_call",
    "tool_result",
    "user_bash",
    "input",
)


def gemini_hooks(
    command_for: Callable[[str], str], events: tuple[str, ...] = GEMINI_EVENTS, *, timeout_s: int = 20
) -> dict[str, Any]:
    """``hooks`` for ``.gemini/settings.json``: one command hook per event (matcher-less; timeout in ms)."""
    return {
        "hooks": {
            e: [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "name": f"pasture-{e}",
                            "command": command_for(e),
                            "timeout": timeout_s * 1000,
                        }
                    ]
                }
            ]
            for e in events
        }
    }


def copilot_hooks(
    command_for: Callable[[str], str], events: tuple[str, ...] = COPILOT_EVENTS, *, timeout_s: int = 20
) -> dict[str, Any]:
    """A ``.github/hooks/*.json`` file: one command hook per event."""
    return {
        "version": 1,
        "hooks": {e: [{"type": "command", "bash": command_for(e), "timeoutSec": timeout_s}] for e in events},
    }


def pi_extension(log: Path, mode: str, reason: str, events: tuple[str, ...] = PI_EVENTS) -> str:
    """Source of a project extension (``.pi/extensions/*.ts``) that logs every event it subscribes to
    and, with ``mode == "block"``, answers ``tool_call`` of ``bash`` with ``{block: true, reason}``
    (``mode == "throw"``: throws ``new Error(reason)`` there instead)."""
    return f"""// pasture new-hosts recording extension (generated for a test)
import {{ appendFileSync }} from "node:fs";
const LOG = {json.dumps(str(log))};
const MODE = {json.dumps(mode)};
const REASON = {json.dumps(reason)};
const EVENTS = {json.dumps(list(events))};
function safe(value: unknown): unknown {{
  try {{ return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))); }}
  catch (err) {{ return {{ unserializable: String(err) }}; }}
}}
export default function (pi: any) {{
  for (const name of EVENTS) {{
    pi.on(name, async (event: any, _ctx: any) => {{
      appendFileSync(LOG, JSON.stringify({{ event: name, payload: safe(event) }}) + "\\n");
      if (name === "tool_call" && MODE === "block" && event && event.toolName === "bash") {{
        return {{ block: true, reason: REASON }};
      }}
      if (name === "tool_call" && MODE === "throw" && event && event.toolName === "bash") {{
        throw new Error(REASON);
      }}
      return undefined;
    }});
  }}
}}
"""


def _inside(spec: Path) -> int:
    from pasture.hostenv import runner

    LAUNCHERS.update(NEW_LAUNCHERS)
    return runner._inside(spec)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--inside":
        sys.exit(_inside(Path(sys.argv[2])))
    print("usage: python newhosts_support.py --inside SPEC.json", file=sys.stderr)
    sys.exit(2)
