"""`pasture hook ...` as click sees it: listed in `pasture --help`, documented by `pasture hook --help`.

The console script (generator/entry.py) sends `pasture hook lifecycle ...` straight to the
stdlib-only runtime before click is imported, so this module is never on the hook path; it exists so
the command is discoverable and so invoking the click group (tests, `python -m generator.cli`) runs
the same runtime.
"""

from __future__ import annotations

import sys

import click


@click.group()
def hook() -> None:
    """The runtime every generated adapter calls (hosts run it; you rarely do)."""


@hook.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                "help_option_names": ["-h", "--help"]})
@click.pass_context
def lifecycle(ctx: click.Context) -> None:
    """Answer one host lifecycle event: payload JSON on stdin, the host's native answer out.

    \b
    pasture hook lifecycle --harness H --event E --host-version V < payload.json

    The contract follows from harness and host version; only gate-consultation rows consult the
    gate configured in .pasture/policy.toml. The exit code and output are the host's own protocol.
    """
    from generator.runtime.lifecycle import main as hook_main

    sys.exit(hook_main(list(ctx.args)))
