"""`pasture hook lifecycle | serve` as click sees them: listed in `pasture --help`, documented by
`pasture hook --help`.

The console script (pasture/entry.py) sends `pasture hook lifecycle|serve ...` straight to the
stdlib-only runtime before click is imported, so this module is never on the hook path; it exists so
the command is discoverable and so invoking the click group (tests, `python -m pasture.cli`) runs
the same runtime.
"""

from __future__ import annotations

import sys

import click


@click.group()
def hook() -> None:
    """The runtime every generated adapter calls (hosts run it; you rarely do).

    \b
    Example (what a Claude Code PreToolUse hook runs):
      echo '{"tool_name":"Bash","tool_input":{"command":"ls"}}' |
        pasture hook lifecycle --harness claude-code --event PreToolUse --host-version 2.1.332
    """


@hook.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]}
)
@click.pass_context
def lifecycle(ctx: click.Context) -> None:
    """Answer one host lifecycle event: payload JSON on stdin, the host's native answer out.

    \b
    pasture hook lifecycle --harness H --event E --host-version V < payload.json

    The contract follows from harness and host version; only gate-consultation rows consult the
    gate configured in .pasture/policy.toml. The exit code and output are the host's own protocol.
    """
    from pasture.runtime.lifecycle import main as hook_main

    sys.exit(hook_main(list(ctx.args)))


@hook.command(
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": ["-h", "--help"]}
)
@click.pass_context
def serve(ctx: click.Context) -> None:
    """Run one long-lived runtime for an in-process plugin host (OpenCode): JSON lines both ways.

    \b
    pasture hook serve --harness opencode --host-version 1.18.33

    The generated OpenCode plugin starts this once per plugin instance and sends every hook call and
    bus event as one line; each answer is what `pasture hook lifecycle` would answer for the same
    event. The protocol is described in pasture/runtime/serve.py.
    """
    from pasture.runtime.serve import main as serve_main

    sys.exit(serve_main(list(ctx.args)))
