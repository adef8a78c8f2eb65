"""Run one fake model server in the foreground.

    python -m pasture.hostenv.fake_models --protocol anthropic --script script.json \\
        --port-file port.txt --log requests.jsonl [--deadline 240] [--max-requests 64]

The script file holds :meth:`Script.to_dict` JSON (or a bare list of turns); for
``--protocol openai-chat-replies`` it holds the reply queue (see chat_replies.py). The chosen port is
written to ``--port-file`` once the server listens; the process exits after the deadline, the
request limit, or SIGTERM/SIGINT.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path

from pasture.hostenv.fake_models import PROTOCOLS, ChatReplyQueue, FakeModelServer, Script


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pasture.hostenv.fake_models",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--protocol", required=True, choices=sorted(PROTOCOLS))
    parser.add_argument("--script", type=Path, help="script JSON file (default: one shell call, then text)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path)
    parser.add_argument("--log", type=Path)
    parser.add_argument("--deadline", type=float, default=240.0)
    parser.add_argument("--max-requests", type=int, default=64)
    parser.add_argument("--model")
    args = parser.parse_args(argv)

    protocol: str | ChatReplyQueue = args.protocol
    if args.protocol == ChatReplyQueue.name:
        protocol = ChatReplyQueue.from_dict(json.loads(args.script.read_text()) if args.script else {})
        script = Script.of()
    else:
        script = (
            Script.from_json(args.script.read_text())
            if args.script
            else Script.shell_then_reply("echo pasture-probe > probe.txt")
        )
    server = FakeModelServer(
        protocol,
        script,
        log_path=args.log,
        port=args.port,
        deadline=args.deadline,
        max_requests=args.max_requests,
        model=args.model,
    ).start()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: server._stop_async("signal"))
    if args.port_file:
        tmp = args.port_file.with_name(args.port_file.name + ".tmp")
        tmp.write_text(f"{server.port}\n")
        os.replace(tmp, args.port_file)
    print(f"fake {args.protocol} model on {server.url} (pid {os.getpid()})", file=sys.stderr, flush=True)
    while not server.wait_stopped(0.5):
        pass
    print(f"fake model stopped: {server.stop_reason}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
