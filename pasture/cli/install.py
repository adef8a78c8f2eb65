"""The ``pasture install`` and ``pasture uninstall`` click commands (registered by pasture.cli)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from pasture.hosts import HOSTS
from pasture.hosts import NAMES as HARNESSES
from pasture.install.report import EXIT_ERROR, InstallError, Report


def _root(ctx: click.Context, root: Path | None) -> Path:
    """--root, else the group's --root, else the current folder if it holds profiles/, else the
    project the installed package carries (its profiles/ and captures/)."""
    if root is None and isinstance(ctx.obj, dict):
        root = ctx.obj.get("root")
    if root is not None:
        return Path(root).resolve()
    here = Path.cwd()
    if (here / "profiles").is_dir():
        return here.resolve()
    return _bundled()


def _bundled() -> Path:
    from pasture.resources import bundled_project

    return Path(bundled_project())


def _scope(project: Path | None, user: bool) -> Path | None:
    if project is not None and user:
        raise click.UsageError("--project and --user exclude each other")
    if user:
        return None
    return (project or Path.cwd()).resolve()


def _emit(report: Report, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(report.as_json(), indent=2))
    else:
        click.echo(report.render_text(), nl=False)
        if report.problems:
            click.echo(report.render_problems(), nl=False, err=True)
    sys.exit(report.exit_code)


def _refuse(exc: InstallError, as_json: bool) -> None:
    if as_json:
        click.echo(
            json.dumps(
                {"ok": False, "exit_code": EXIT_ERROR, "error": str(exc), "hint": exc.hint, "command": exc.command},
                indent=2,
            )
        )
    else:
        click.echo(f"error: {exc}", err=True)
        if exc.hint:
            click.echo(f"hint: {exc.hint}", err=True)
        if exc.command:
            click.echo(f"run: {exc.command}", err=True)
    sys.exit(EXIT_ERROR)


def _host_only(harness: str, given: dict[str, object]) -> None:
    """Refuse the host-only flags this host does not take (``HOST.install_flags``), naming the hosts that do."""
    refused = [flag for flag, value in given.items() if value and flag not in HOSTS[harness].install_flags]
    if refused:
        raise click.UsageError("; ".join(f"{flag} applies to {_hosts_taking(flag)} only" for flag in refused))


def _hosts_taking(flag: str) -> str:
    """The hosts whose install takes ``flag``, as a list a sentence can carry ("a, b and c")."""
    owners = [name for name, h in HOSTS.items() if flag in h.install_flags] or ["no host"]
    return owners[0] if len(owners) == 1 else f"{', '.join(owners[:-1])} and {owners[-1]}"


_common = [
    click.argument("harness", type=click.Choice(HARNESSES)),
    click.option(
        "--project",
        "project",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="the project folder (default: the current folder)",
    ),
    click.option("--user", is_flag=True, help="the user's configuration instead of one project's"),
    click.option("--json", "as_json", is_flag=True, help="machine-readable report"),
    click.option(
        "--follow-symlinks",
        is_flag=True,
        help="project scope: write through a symlink that leads out of the project (refused without it)",
    ),
]


def _with_common(func):
    for decorator in reversed(_common):
        func = decorator(func)
    return func


@click.command()
@_with_common
@click.option(
    "--contract",
    default=None,
    metavar="ID",
    help="contract to install (default: the one admitting the installed host version, else the newest)",
)
@click.option(
    "--root",
    "root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="the pasture project holding profiles/ (default: current folder, else this checkout)",
)
@click.option(
    "--codex-bin", default=None, metavar="PATH", help="codex binary used to record hook trust (default: codex on PATH)"
)
@click.option(
    "--opencode-bin",
    default=None,
    metavar="PATH",
    help="opencode binary asked for its version (default: opencode on PATH)",
)
@click.option(
    "--trust-project",
    is_flag=True,
    help="codex, gemini-cli, copilot-cli: also record the project folder as trusted by the host (Codex: "
    '[projects."DIR"] trust_level = "trusted"; Gemini CLI: trustedFolders.json; Copilot CLI: config.json '
    "trustedFolders), which uninstall takes out again",
)
@click.option(
    "--trust-only",
    is_flag=True,
    help="codex only: only record trust for the pasture hooks already "
    "installed (after an install that could not reach codex)",
)
@click.option(
    "--force",
    is_flag=True,
    help="install although the repository already switches the host's hooks off (the report says the guard is off)",
)
@click.pass_context
def install(
    ctx: click.Context,
    harness: str,
    project: Path | None,
    user: bool,
    as_json: bool,
    follow_symlinks: bool,
    contract: str | None,
    root: Path | None,
    codex_bin: str | None,
    opencode_bin: str | None,
    trust_project: bool,
    trust_only: bool,
    force: bool,
) -> None:
    """Install the HARNESS adapter where the host reads it, merged with what is there.

    Exit 0 installed; 2 refused (nothing written); 3 written, but Codex will not run the hooks
    until their trust is recorded (the report gives the command).
    """
    _host_only(harness, {"--trust-project": trust_project, "--trust-only": trust_only, "--codex-bin": codex_bin})
    if trust_project and user:
        raise click.UsageError("--trust-project applies to --project installs")
    # the CLI imports this module; keep `pasture --help` light
    from pasture.install.actions import Options, run_install

    opts = Options(
        harness=harness,
        project=_scope(project, user),
        root=_root(ctx, root),
        env=dict(os.environ),
        contract=contract,
        binaries={flag: path for flag, path in (("--codex-bin", codex_bin), ("--opencode-bin", opencode_bin)) if path},
        trust_project=trust_project,
        trust_only=trust_only,
        root_given=root is not None,
        follow_symlinks=follow_symlinks,
        force=force,
    )
    try:
        report = run_install(opts, HOSTS[harness])
    except InstallError as exc:
        _refuse(exc, as_json)
        return
    _emit(report, as_json)


@click.command()
@_with_common
@click.pass_context
def uninstall(
    ctx: click.Context, harness: str, project: Path | None, user: bool, as_json: bool, follow_symlinks: bool
) -> None:
    """Remove pasture's hooks (only ours) from where HARNESS reads them.

    Foreign hooks stay exactly where they were; on Codex their trust entries follow them if they
    move. Exit 0 done, 2 refused (nothing written).
    """
    from pasture.install.actions import Options, run_uninstall

    opts = Options(
        harness=harness,
        project=_scope(project, user),
        root=_bundled(),
        env=dict(os.environ),
        follow_symlinks=follow_symlinks,
    )
    try:
        report = run_uninstall(opts, HOSTS[harness])
    except InstallError as exc:
        _refuse(exc, as_json)
        return
    _emit(report, as_json)
