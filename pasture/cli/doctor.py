"""``pasture doctor``: is enforcement really on here? (registered by pasture.cli)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from pasture.cli.install import binaries_given, binary_options
from pasture.doctor.findings import EXIT_ERROR, DoctorError
from pasture.hosts import HOSTS
from pasture.hosts import NAMES as HARNESSES


@click.command()
@click.option(
    "--project",
    "project",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="the project to check (default: the current folder; its root is found upwards)",
)
@click.option("--user", is_flag=True, help="check the user's configuration instead of one project's")
@click.option(
    "--host",
    "hosts",
    multiple=True,
    type=click.Choice(HARNESSES),
    help="a host that must be installed (repeatable; default: check whichever are installed)",
)
@binary_options("doctor_binary_use")
@click.option(
    "--root",
    "root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="the pasture project holding profiles/ (default: current folder, else this checkout)",
)
@click.option(
    "--managed",
    is_flag=True,
    help="also say which hosts have no managed install here, or no managed channel (managed installs found are "
    "always checked)",
)
@click.option(
    "--managed-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="look for managed installs below DIR instead of / (what pasture install --managed --managed-root wrote)",
)
@click.option("--json", "as_json", is_flag=True, help="machine-readable report")
@click.pass_context
def doctor(
    ctx: click.Context,
    /,
    project: Path | None,
    user: bool,
    hosts: tuple[str, ...],
    root: Path | None,
    managed: bool,
    managed_root: Path | None,
    as_json: bool,
    **binaries: str | None,
) -> None:
    """Check that pasture really enforces here, host by host; every finding names its fix.

    Exit 0 all live (warnings allowed), 1 something is off, 2 the doctor could not run.
    """
    if project is not None and user:
        raise click.UsageError("--project and --user exclude each other")
    from pasture.cli.install import _root
    from pasture.doctor.run import Options, run

    opts = Options(
        project=project,
        user=user,
        root=_root(ctx, root),
        env=dict(os.environ),
        hosts=hosts,
        binaries={flag: path for flag, path in binaries_given(binaries).items() if path},
        managed=managed,
        managed_root=(managed_root or Path("/")).resolve(),
    )
    try:
        report = run(opts, HOSTS)
    except DoctorError as exc:
        if as_json:
            click.echo(json.dumps({"ok": False, "exit_code": EXIT_ERROR, "error": str(exc)}, indent=2))
        else:
            click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(report.render_json() if as_json else report.render_text(), nl=as_json)
    sys.exit(report.exit_code)
