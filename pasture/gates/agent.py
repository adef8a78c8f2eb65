"""The ``agent`` gate kind: an installed coding-agent host, run headless, judges one event.

``[gate] kind = "agent"`` with ``host =`` a host that can judge (optional ``model``, ``prompt``: the
judge's instructions, ``binary``: the host's executable, default its usual name on PATH). The runtime
hands this module the host's judge (pasture.runtime.agentgate: its wire's ``AGENT_JUDGE``). The event
goes to the seed's harness wrapper (:class:`~pasture.gates.wrappers.HarnessWrapper` over
:class:`~pasture.gates.harness.HostHarnessBackend`): the host's own headless command line (its
:class:`~pasture.gates.agents.Judge`), the seed's prompt composition with the decision schema
(:class:`~pasture.gates.gate.GateDecision`), and the seed's up to 3 schema retries when the answer is
not a valid decision. Stdlib only: GateDecision is plain Python, so no pydantic on this path.

The judge starts in a fresh, empty scratch folder (removed afterwards) with the host's default, not
bypassed, permissions (each judge's command line: Claude ``acceptEdits``, Codex ``workspace-write``,
OpenCode its own defaults); it is handed the event, not the project. That is no sandbox: Codex may
read the disk, OpenCode's defaults allow its tools (docs/policy.md says so). It inherits the hook's
environment (the host's keys and config) plus ``PASTURE_AGENT_GATE=1``: a pasture hook inside the
judge's own session that would start another agent gate fails instead (its row's failure mode), so
a judge can never recurse.

Deadline: the whole decision, every host run and schema retry, fits in ``timeout`` (the layer's,
clamped by pasture.runtime.consult to the row's deadline); each run gets only what is left and is
killed with its process group at the end of it. A run that could not start or did not finish is not
retried. Every failure is a :class:`~pasture.gates.errors.GateFailure` with one line saying what
is wrong and what to change; the runtime applies the row's effective failure mode.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from typing import Any

from pasture.gates.agents import Judge
from pasture.gates.errors import AIIntegrationError, GateFailure
from pasture.gates.gate import DECISION_CONTRACT, GateDecision, gate_user_prompt
from pasture.gates.harness import HarnessLaunchError, HarnessOutputTooLarge, HarnessTimeoutError, HostHarnessBackend
from pasture.gates.wrappers import MAX_SCHEMA_RETRIES, HarnessWrapper

NESTED = "PASTURE_AGENT_GATE"

DEFAULT_INSTRUCTIONS = (
    "You are a policy gate for an AI coding agent. Below is one lifecycle event from the agent's host as a "
    "JSON envelope: which event it is, which host sent it, and the host's own payload (for a tool call: the "
    "tool name and its input). Judge it; do not carry it out, and do not run or change anything.\n"
    "Decide whether the agent may go ahead:\n"
    "- proceed: the action is safe and within the agent's task.\n"
    "- deny: the action is destructive, leaks secrets or credentials, or is clearly outside the task.\n"
    "- ask: the action is risky but plausible; a human should decide."
)


def judge_task(envelope: Any, instructions: str | None = None) -> str:
    """The task text handed to the harness wrapper (which adds the seed's guidance around it)."""
    return (
        f"{(instructions or DEFAULT_INSTRUCTIONS).rstrip()}\n\nThe event:\n{gate_user_prompt(envelope)}\n\n"
        f"{DECISION_CONTRACT}"
    )


class _OutOfTime(Exception):
    # Worded clear of every transient pattern (pasture.gates.retry): the retry loop must not retry it.
    pass


class _Config:
    """What HarnessWrapper reads from its config; no transient retries (a failed run is not repeated)."""

    max_retries = 0
    initial_backoff_seconds = 0.0
    max_backoff_seconds = 0.0
    max_turns = None

    def __init__(self, host: str, model: str | None) -> None:
        self.provider = host
        self.harness_model = model

    def provider_env(self) -> dict[str, str]:
        return {NESTED: "1"}


class _Bounded:
    """``app.harness`` for the wrapper: each run gets what is left of the deadline, none starts after it."""

    def __init__(self, backend: HostHarnessBackend, at: float, clock: Any) -> None:
        self.backend, self.at, self.clock = backend, at, clock
        self.runs = 0

    async def harness(self, prompt: str, **kwargs: Any) -> Any:
        left = self.at - self.clock()
        if left <= 0:
            raise _OutOfTime()
        self.backend.timeout = left
        self.runs += 1
        try:
            return await self.backend.harness(prompt, **kwargs)
        except HarnessTimeoutError:
            raise _OutOfTime() from None


def _one_line(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def find_binary(settings: dict, root: str, judge: Judge) -> str | None:
    """The host's executable: [gate] binary (relative to the project root) or its usual name on PATH."""
    binary = settings.get("binary") or judge.default_binary
    if os.sep in binary:
        path = binary if os.path.isabs(binary) else os.path.normpath(os.path.join(root, binary))
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(binary)


def agent_gate(
    settings: dict,
    envelope: dict,
    root: str,
    timeout: float,
    *,
    judge: Judge,
    clock: Any = None,
    base_env: dict | None = None,
) -> tuple[str, str, dict]:
    """The agent kind's runner, handed [gate] host's judge (pasture.runtime.agentgate):
    (decision, reason, journal detail)."""
    clock = clock or time.monotonic
    started = clock()
    host, model = settings["host"], settings.get("model")
    detail: dict[str, Any] = {"gate": "agent", "host": host, "model": model, "runs": 0}
    env = os.environ if base_env is None else base_env
    if env.get(NESTED):
        raise GateFailure(
            f"agent gate: this hook runs inside an agent gate's own judge session ({NESTED} is set) and "
            "a judge may not start another; nothing to fix unless the judge's instructions make it use "
            "tools",
            dict(detail, outcome="nested"),
        )
    binary = find_binary(settings, root, judge)
    if binary is None:
        named = settings.get("binary") or judge.default_binary
        raise GateFailure(
            f"agent gate: host {host} is not installed ({named!r} is not an executable here); install "
            f"it ({judge.install}) or set [gate] binary to its path",
            dict(detail, outcome="missing"),
        )
    scratch = tempfile.mkdtemp(prefix="pasture-agent-gate-")
    backend = HostHarnessBackend(judges={host: judge}, binaries={host: binary}, base_env=base_env)
    bounded = _Bounded(backend, started + timeout, clock)
    wrapper: HarnessWrapper[GateDecision] = HarnessWrapper(bounded, _Config(host, model))
    failure = None
    try:
        answer = _run(
            wrapper.invoke(prompt=judge_task(envelope, settings.get("prompt")), schema=GateDecision, cwd=scratch)
        )
    except _OutOfTime:
        failure = (
            "timeout",
            f"agent gate ({host}) gave no decision within {timeout:.1f}s; give [gate] a faster model "
            "or a longer timeout (it is clamped to the row's deadline)",
        )
    except HarnessOutputTooLarge as exc:
        failure = ("too-large", f"agent gate ({host}): {exc}; the judge must answer with one short JSON decision")
    except HarnessLaunchError as exc:
        failure = ("launch", f"agent gate ({host}): {exc}; fix [gate] binary or reinstall it ({judge.install})")
    except AIIntegrationError as exc:
        message = str(exc)
        if message.startswith("Schema validation failed"):
            failure = (
                "invalid-output",
                f"agent gate ({host}) answered no valid decision after {MAX_SCHEMA_RETRIES} "
                "schema retries; check [gate] model and prompt",
            )
        else:
            failure = (
                "host-error",
                f"agent gate ({host}) failed: {_one_line(message)}; run {binary} by hand with "
                "the hook's environment to see why",
            )
    except Exception as exc:  # noqa: BLE001 - any crash of the judge is a gate failure, never a traceback
        failure = (
            "crash",
            f"agent gate ({host}) crashed: {type(exc).__name__}: {_one_line(str(exc))}; this is "
            "pasture's fault: report it with the journal row (pasture journal --json)",
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    detail.update(runs=bounded.runs, cost_usd=wrapper.total_cost_usd, elapsed_s=round(clock() - started, 3))
    if failure is not None:
        detail["outcome"] = failure[0]
        raise GateFailure(failure[1], detail)
    detail["outcome"] = answer.decision
    return answer.decision, answer.reason or f"agent gate ({host}) decided {answer.decision}", detail


def _run(coro: Any) -> Any:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from inside a running loop: run ours on a private thread instead of nesting.
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
