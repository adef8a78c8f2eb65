"""A stand-in for a coding-agent host binary, speaking each host's headless stdout format.

Usage: ``python fake_host.py <claude|codex|opencode> <host argv...>`` with the prompt on stdin.
Each run appends ``{"argv", "cwd", "prompt", "env"}`` to ``$FAKE_HOST_LOG`` and plays step N of
the JSON list in ``$FAKE_HOST_PLAN`` (N = runs so far; the last step repeats). A step may hold
``write`` (content for ./.agentfield_output.json), ``final`` (final message text), ``error``
(host-level failure message), ``exit`` (status), ``stderr``, ``sleep`` (seconds), ``cost``,
``flood`` (that many bytes on stdout first, in lines of 64 KiB).
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    kind, argv = sys.argv[1], sys.argv[2:]
    prompt = sys.stdin.read()
    log_path = os.environ["FAKE_HOST_LOG"]
    runs = 0
    if os.path.exists(log_path):
        with open(log_path, encoding="utf-8") as fh:
            runs = sum(1 for _ in fh)
    with open(log_path, "a", encoding="utf-8") as fh:
        env = {
            k: v
            for k, v in os.environ.items()
            if k.startswith(("PASTURE_T_", "PASTURE_AGENT_GATE", "IS_SANDBOX", "XDG_DATA_HOME", "AGENTFIELD_"))
        }
        fh.write(json.dumps({"kind": kind, "argv": argv, "cwd": os.getcwd(), "prompt": prompt, "env": env}) + "\n")
    with open(os.environ["FAKE_HOST_PLAN"], encoding="utf-8") as fh:
        plan = json.load(fh)
    step = plan[min(runs, len(plan) - 1)]

    if step.get("sleep"):
        time.sleep(step["sleep"])
    if step.get("flood"):
        line = "x" * ((64 << 10) - 1) + "\n"
        for _ in range(step["flood"] // len(line)):
            sys.stdout.write(line)
        sys.stdout.flush()
    if "write" in step:
        with open(".agentfield_output.json", "w", encoding="utf-8") as fh:
            fh.write(step["write"])
    final = step.get("final", "Done.")
    error = step.get("error")
    cost = step.get("cost")

    if kind == "claude":
        print(json.dumps({
            "type": "result",
            "subtype": "error_during_execution" if error else "success",
            "is_error": bool(error),
            "result": error or final,
            "total_cost_usd": cost,
            "num_turns": 2,
        }))  # fmt: skip
    elif kind == "codex":
        out = argv[argv.index("-o") + 1]
        events = [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"}]
        events.append({"type": "item.completed", "item": {"id": "i0", "type": "error", "message": "metadata warning"}})
        if error:
            events.append({"type": "turn.failed", "error": {"message": error}})
        else:
            events.append({"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": final}})
            events.append({"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}})
            with open(out, "w", encoding="utf-8") as fh:
                fh.write(final)
        for event in events:
            print(json.dumps(event))
    elif kind == "opencode":
        print(json.dumps({"type": "step_start", "part": {"type": "step-start"}}))
        if error:
            print(json.dumps({"type": "error", "error": {"name": "APIError", "data": {"message": error}}}))
        else:
            print(json.dumps({"type": "text", "part": {"type": "text", "text": final}}))
        print(json.dumps({"type": "step_finish", "part": {"type": "step-finish", "cost": cost or 0}}))
    if step.get("stderr"):
        sys.stderr.write(step["stderr"])
    return int(step.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
