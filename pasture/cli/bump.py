"""`pasture bump`: pin the newest (or a given) host version in one command (see pasture/evolve/bump.py).

Exit codes: 0 bumped (read the review report before committing), 2 the bump stopped (nothing
half-done is left as the new profile: each step writes only when it succeeded).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pasture.cli.options import EXIT_ERROR, project_root, root_option
from pasture.hosts import NAMES as HARNESSES


@click.command("bump", context_settings={"help_option_names": ["-h", "--help"]})
@root_option
@click.argument("harness", type=click.Choice(HARNESSES))
@click.option("--to", "to", default=None, metavar="VERSION", help="this version instead of the newest on npm")
@click.option(
    "--no-isolation",
    is_flag=True,
    help="capture even where no loopback-only network namespace can be made (per-host offline settings only)",
)
@click.option("--force", is_flag=True, help="derive profiles/<harness>@<version>/ again if it exists")
@click.option("--no-pin-tests", is_flag=True, help="leave tests/npm's pinned host versions alone")
@click.option(
    "--timeout",
    type=click.FloatRange(min=5),
    default=120.0,
    show_default=True,
    help="seconds each host run of the capture may take",
)
@click.option("--json", "as_json", is_flag=True, help="print the review report as JSON")
@click.pass_context
def bump(
    ctx: click.Context,
    root: Path | None,
    harness: str,
    to: str | None,
    no_isolation: bool,
    force: bool,
    no_pin_tests: bool,
    timeout: float,
    as_json: bool,
) -> None:
    """Install HARNESS's newest version (or --to VERSION), capture it offline, extract its catalog, derive
    its profile, regenerate, and write a review report (captures/<harness>@<version>/bump-report.md).

    New events are classified from the host's own catalog: a pre-action event whose output offers a
    decision becomes a gate consultation whose blocking waits for evidence, and gets a capture
    scenario that triggers it where one can be built; blocking claims cite the new captures.
    """
    from pasture.evolve.bump import BumpError
    from pasture.evolve.bump import bump as run_bump

    project = project_root(ctx, root)
    try:
        result = run_bump(
            project,
            harness,
            to,
            allow_no_isolation=no_isolation,
            force=force,
            pin_tests=not no_pin_tests,
            timeout=timeout,
            say=lambda m: click.echo(m, err=True),
        )
    except BumpError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if as_json:
        click.echo(json.dumps(result.report, indent=2))
        return
    rel = result.report_path.relative_to(project).as_posix()
    rep = result.report
    click.echo(
        f"bumped {harness} to {result.version} (from {result.base or 'no previous contract: the first profile'})"
    )
    for step in result.steps:
        click.echo(f"  {step}")
    click.echo(
        f"  events added: {', '.join(rep['events']['added']) or 'none'}; removed: "
        f"{', '.join(rep['events']['removed']) or 'none'}"
    )
    click.echo(
        f"  blocking gained: {', '.join(rep['blocking']['gained']) or 'none'}; lost: "
        f"{', '.join(rep['blocking']['lost']) or 'none'}"
    )
    click.echo(f"  {len(rep['needs_human'])} row(s) need a human decision")
    click.echo(f"review {rel}, then `pasture check` and commit profiles/, captures/, generated/ (and tests/npm/).")
