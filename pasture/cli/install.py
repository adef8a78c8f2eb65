"""The ``pasture install`` and ``pasture uninstall`` click commands (registered by pasture.cli)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

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


def _managed(project: Path | None, user: bool, managed: bool, root: Path | None, follow: bool) -> bool:
    """Whether this run is a managed one (``--managed``); the flags it excludes are usage errors."""
    if root is not None and not managed:
        raise click.UsageError("--managed-root applies to --managed")
    if not managed:
        return False
    if project is not None or user:
        raise click.UsageError("--managed excludes --project and --user")
    if follow:
        raise click.UsageError("--follow-symlinks applies to --project")
    return True


def _run_managed(opts: Any, harness: str, root: Path | None, action: str, as_json: bool) -> None:
    from pasture.install.managed_run import run_managed

    try:
        report = run_managed(opts, HOSTS[harness], root or Path("/"), action)
    except InstallError as exc:
        _refuse(exc, as_json)
        return
    _emit(report, as_json)


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
    click.option(
        "--managed",
        is_flag=True,
        help="the host's administrator (managed) channel with its lock-out flag, for every user of this machine "
        '(as root; docs/hosts.md, "Managed installs")',
    ),
    click.option(
        "--managed-root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        metavar="DIR",
        help="with --managed: write below DIR what would go below / (tests, an MDM payload)",
    ),
]


def _with_common(func: Callable[..., Any]) -> Callable[..., Any]:
    for decorator in reversed(_common):
        func = decorator(func)
    return func


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def binary_options(use: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """One ``--<binary>-bin PATH`` per host that says what the command runs it for (``install_binary_use`` or
    ``doctor_binary_use``), in registry order."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for h in reversed(list(HOSTS.values())):
            said = getattr(h, use)
            if said is not None:
                func = click.option(
                    h.binary_flag,
                    _dest(h.binary_flag),
                    default=None,
                    metavar="PATH",
                    help=f"{h.binary} binary {said} (default: {h.binary} on PATH)",
                )(func)
        return func

    return decorate


def binaries_given(binaries: dict[str, Any]) -> dict[str, Any]:
    """``binary_flag`` -> its value, for each host option :func:`binary_options` added (click's keywords)."""
    return {h.binary_flag: binaries[_dest(h.binary_flag)] for h in HOSTS.values() if _dest(h.binary_flag) in binaries}


def _trust_project_help() -> str:
    takers = [h for h in HOSTS.values() if "--trust-project" in h.install_flags]
    return (
        f"{', '.join(h.name for h in takers)}: also record the project folder as trusted by the host "
        f"({'; '.join(h.trust_project_help or h.name for h in takers)}), which uninstall takes out again"
    )


def _trust_only_help() -> str:
    takers = [h for h in HOSTS.values() if "--trust-only" in h.install_flags]
    return (
        f"{_hosts_taking('--trust-only')} only: only record trust for the pasture hooks already "
        f"installed (after an install that could not reach {' or '.join(h.binary for h in takers)})"
    )


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
@binary_options("install_binary_use")
@click.option("--trust-project", is_flag=True, help=_trust_project_help())
@click.option("--trust-only", is_flag=True, help=_trust_only_help())
@click.option(
    "--force",
    is_flag=True,
    help="install although the repository already switches the host's hooks off (the report says the guard is off)",
)
@click.pass_context
def install(
    ctx: click.Context,
    /,
    harness: str,
    project: Path | None,
    user: bool,
    as_json: bool,
    follow_symlinks: bool,
    contract: str | None,
    root: Path | None,
    trust_project: bool,
    trust_only: bool,
    force: bool,
    managed: bool,
    managed_root: Path | None,
    **binaries: str | None,
) -> None:
    """Install the HARNESS adapter where the host reads it, merged with what is there.

    Exit 0 installed; 2 refused (nothing written); 3 written, but Codex will not run the hooks
    until their trust is recorded (the report gives the command).
    """
    given = binaries_given(binaries)
    host_only = {flag for h in HOSTS.values() for flag in h.install_flags}
    _host_only(
        harness,
        {
            "--trust-project": trust_project,
            "--trust-only": trust_only,
            **{flag: value for flag, value in given.items() if flag in host_only},
        },
    )
    if trust_project and user:
        raise click.UsageError("--trust-project applies to --project installs")
    # the CLI imports this module; keep `pasture --help` light
    from pasture.install.actions import Options, run_install

    if _managed(project, user, managed, managed_root, follow_symlinks):
        if trust_project or trust_only or force:
            raise click.UsageError("--trust-project, --trust-only and --force apply to --project and --user installs")
        opts = Options(
            harness=harness,
            project=None,
            root=_root(ctx, root),
            env=dict(os.environ),
            contract=contract,
            binaries={flag: path for flag, path in given.items() if path},
            root_given=root is not None,
        )
        _run_managed(opts, harness, managed_root, "install", as_json)
        return

    opts = Options(
        harness=harness,
        project=_scope(project, user),
        root=_root(ctx, root),
        env=dict(os.environ),
        contract=contract,
        binaries={flag: path for flag, path in given.items() if path},
        trust_project=trust_project,
        trust_only=trust_only,
        root_given=root is not None,
        follow_symlinks=follow_symlinks,
        force=force,
    )
    try:
        report = run_install(opts, HOSTS[harness], HOSTS.values())
    except InstallError as exc:
        _refuse(exc, as_json)
        return
    _emit(report, as_json)


@click.command()
@_with_common
@click.pass_context
def uninstall(
    ctx: click.Context,
    harness: str,
    project: Path | None,
    user: bool,
    as_json: bool,
    follow_symlinks: bool,
    managed: bool,
    managed_root: Path | None,
) -> None:
    """Remove pasture's hooks (only ours) from where HARNESS reads them.

    Foreign hooks stay exactly where they were; on Codex their trust entries follow them if they
    move. Exit 0 done, 2 refused (nothing written).
    """
    from pasture.install.actions import Options, run_uninstall

    if _managed(project, user, managed, managed_root, follow_symlinks):
        opts = Options(harness=harness, project=None, root=_bundled(), env=dict(os.environ))
        _run_managed(opts, harness, managed_root, "uninstall", as_json)
        return
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
