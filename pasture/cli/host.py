"""The new-host-version commands: `host status`, `capture`, `profile new` / `sync`, `evidence`,
`diff` (pasture/cli/__init__.py adds each to the `pasture` group;
`bump` and `catalog` have modules of their own beside this one).

Exit codes as everywhere: 0 success, 1 "found a difference" (a host no contract admits, a
capture citation that does not back its claim, two contracts that differ), 2 usage or input error.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from pasture.cli.options import EXIT_DIFF, EXIT_ERROR, EXIT_OK, load_or_exit, project_root, root_option
from pasture.hosts import HOSTS
from pasture.hosts import NAMES as HARNESSES

# --- pasture host status ------------------------------------------------------------------------


@click.group("host", context_settings={"help_option_names": ["-h", "--help"]})
def host() -> None:
    """The host CLIs installed here."""


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def _binary_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """One ``--<binary>-bin PATH`` per host (its ``binary_flag``, ``binary_env``), in registry order."""
    for h in reversed(list(HOSTS.values())):
        article = "an" if h.display_name[:1] in "AEIOU" else "a"
        func = click.option(
            h.binary_flag,
            _dest(h.binary_flag),
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help=f"{article} {h.display_name} binary to report (also ${h.binary_env})",
        )(func)
    return func


@host.command("status")
@root_option
@_binary_options
@click.option(
    "--latest",
    is_flag=True,
    help="also ask npm for each host's newest version; exit 1 if one is newer than every profile",
)
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.pass_context
def status(
    ctx: click.Context,
    /,
    root: Path | None,
    latest: bool,
    as_json: bool,
    **binaries: Path | None,
) -> None:
    """Find installed host CLIs, read their versions, and name the pinned contract each resolves to.

    Looks at the flags, then $PASTURE_<HOST>_BIN, then PATH, then the project's npm cache of the
    pinned test hosts. Exit 1 if a host was found that no contract admits (or whose version cannot
    be read), or with --latest if npm has a version newer than every profile of its host; 0
    otherwise (2 if the registry cannot be asked).
    """
    from pasture.evolve import status as st

    project = project_root(ctx, root)
    contracts = load_or_exit(project, as_json, trailer="fix them first.")
    newest: list[dict] = []
    if latest:
        from pasture.catalog import CatalogError

        try:
            newest = st.latest(contracts)
        except CatalogError as exc:
            click.echo(f"error: cannot ask npm: {exc}", err=True)
            sys.exit(EXIT_ERROR)
    explicit = {name: binaries[_dest(h.binary_flag)] for name, h in HOSTS.items()}
    entries, missing = [], []
    for harness in HARNESSES:
        found = st.candidates(harness, project, explicit[harness], os.environ)
        if not found:
            missing.append(harness)
        for path, how in found:
            entries.append(st.describe(st.read_host(harness, path, how), contracts, project, project / "captures"))
    unadmitted = [e for e in entries if e["contract"] is None]
    if as_json:
        doc = {"hosts": entries, "not_found": missing}
        if latest:
            doc["latest"] = newest
        click.echo(json.dumps(doc, indent=2))
    else:
        click.echo(st.render_text(entries, missing), nl=False)
        if latest:
            click.echo(st.render_latest(newest), nl=False)
    sys.exit(EXIT_DIFF if unadmitted or any(e["newer"] for e in newest) else EXIT_OK)


# --- pasture capture ----------------------------------------------------------------------------


@click.command("capture", context_settings={"help_option_names": ["-h", "--help"]})
@root_option
@click.argument("harness", type=click.Choice(HARNESSES))
@click.option(
    "--host-bin",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="the host binary to run (default: as `pasture host status` finds it)",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="captures folder (default: <root>/captures); writes <out>/<harness>@<version>/",
)
@click.option(
    "--timeout", type=click.FloatRange(min=5), default=120.0, show_default=True, help="seconds each host run may take"
)
@click.option(
    "--no-isolation",
    is_flag=True,
    help="run even where no loopback-only network namespace can be made (per-host offline settings only)",
)
@click.option(
    "--scenario",
    "only",
    multiple=True,
    metavar="NAME",
    help="run only this scenario (repeatable) and merge it into the existing capture of the version, "
    "keeping every other scenario as it is",
)
@click.pass_context
def capture(
    ctx: click.Context,
    root: Path | None,
    harness: str,
    host_bin: Path | None,
    out: Path | None,
    timeout: float,
    no_isolation: bool,
    only: tuple[str, ...],
) -> None:
    """Run the REAL host headless and offline through scripted scenarios; record what its hooks saw.

    The host runs in a throwaway project and HOME inside a network namespace, against a fake model
    on 127.0.0.1, with a recording hook (or plugin) on every event it offers: a tool call allowed,
    the call refused by each refusal channel the host has, a stop, and scenarios that trigger events
    the version's catalog lists (captures/<harness>@<version>/catalog.json). Written, scrubbed of
    volatile and private values, to <out>/<harness>@<version>/ only if every scenario ran; otherwise
    nothing. Refuses to run where no loopback-only namespace can be made, unless --no-isolation.
    Answer scenarios (allow, rewrite, context, feedback, continue at stop) record whether the host
    honoured each answer. --scenario re-runs only the named scenarios into the existing capture.
    """
    from pasture.evolve import status as st
    from pasture.evolve.capture import CaptureError
    from pasture.evolve.capture import capture as run_capture

    project = project_root(ctx, root)
    if host_bin is None:
        found = st.candidates(harness, project, None, os.environ)
        if not found:
            name, flag, var = st.HOST_BINARIES[harness]
            click.echo(
                f"error: no {harness} binary found (looked at ${var}, PATH for '{name}' and the npm "
                f"cache); pass --host-bin PATH. Nothing was written.",
                err=True,
            )
            sys.exit(EXIT_ERROR)
        host_bin = found[0][0]
        click.echo(f"using {host_bin} (found by {found[0][1]})", err=True)
    destination = (out or project / "captures").resolve()
    try:
        summary = run_capture(
            harness,
            host_bin,
            destination,
            repo_root=project,
            timeout=timeout,
            say=lambda m: click.echo(m, err=True),
            allow_no_isolation=no_isolation,
            only=tuple(dict.fromkeys(only)),
        )
    except CaptureError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    rel = summary.path.relative_to(project) if summary.path.is_relative_to(project) else summary.path
    click.echo(f"captured {summary.harness} {summary.version} into {rel}/")
    for s in summary.scenarios:
        if s["refused_event"]:
            verdict = "held" if s["refusal_held"] else "DID NOT HOLD"
            click.echo(
                f"  {s['name']}: {s['channel']} refusal of {s['refused_event']} {verdict} "
                f"(probe file {s['probe_file']}); {len(s['events_seen'])} event(s) seen"
            )
        elif "answer" in s:
            verdict = "honoured" if s["honoured"] else "NOT honoured"
            click.echo(
                f"  {s['name']}: {s['answer']['capability']} by {s['answer']['event']} "
                f"({s['answer']['wire']}) {verdict}; {len(s['events_seen'])} event(s) seen"
            )
        else:
            click.echo(f"  {s['name']}: probe file {s['probe_file']}; {len(s['events_seen'])} event(s) seen")
    if summary.catalog:
        click.echo(f"  host event catalog: {len(summary.catalog)} name(s)")


# --- pasture profile new ------------------------------------------------------------------------


@click.group("profile", context_settings={"help_option_names": ["-h", "--help"]})
def profile() -> None:
    """Write profiles from evidence."""


@profile.command("new")
@root_option
@click.argument("harness", type=click.Choice(HARNESSES))
@click.argument("version")
@click.option("--from", "base", required=True, metavar="CONTRACT", help="the contract to start from")
@click.option(
    "--capture",
    "capture_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="the committed capture (default: <root>/captures/<harness>@<version>)",
)
@click.option("--force", is_flag=True, help="replace an existing profiles/<harness>@<version>/")
@click.option("--json", "as_json", is_flag=True, help="print the report as JSON")
@click.pass_context
def profile_new(
    ctx: click.Context,
    root: Path | None,
    harness: str,
    version: str,
    base: str,
    capture_dir: Path | None,
    force: bool,
    as_json: bool,
) -> None:
    """Write profiles/<HARNESS>@<VERSION>/ from the --from contract and a capture of that version.

    Events the capture saw that the contract lacks become observation rows; events never seen are
    kept and noted; identity fields are checked against the real payloads; a blocking claim cites
    the capture only where a scenario showed that refusal holding on this version. Never invents
    a blocking claim.
    """
    from pasture.evolve.profile_new import ProfileNewError, new_profile

    project = project_root(ctx, root)
    try:
        report = new_profile(project, harness, version, base, capture_dir, force=force)
    except ProfileNewError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if as_json:
        click.echo(json.dumps(report.as_json(), indent=2))
    else:
        click.echo(report.render(), nl=False)


@profile.command("sync")
@root_option
@click.argument("contract")
@click.option(
    "--catalog-unavailable",
    "unavailable",
    default=None,
    metavar="REASON",
    help="for a version no catalog can be extracted for: why (written to the profile)",
)
@click.pass_context
def profile_sync(ctx: click.Context, root: Path | None, contract: str, unavailable: str | None) -> None:
    """Bring profiles/CONTRACT/ in line with its host catalog and the capture of its own version.

    Identity fields are corrected against the input schemas, missing catalog events are added
    (classified from the catalog), OpenCode throws without evidence are declared report-and-continue,
    and blocking claims cite the capture of this very version where a refusal held (citations of
    other versions and unpinned URLs are removed). Every change is noted in its row; nothing is
    written unless the result validates.
    """
    from pasture.evolve.sync import SyncError, sync_profile

    try:
        report = sync_profile(project_root(ctx, root), contract, unavailable=unavailable)
    except SyncError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(report.render(), nl=False)


# --- pasture evidence ---------------------------------------------------------------------------


@click.command("evidence", context_settings={"help_option_names": ["-h", "--help"]})
@root_option
@click.option("--contract", "contract_ids", multiple=True, metavar="ID", help="only this contract (repeatable)")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.pass_context
def evidence(ctx: click.Context, root: Path | None, contract_ids: tuple[str, ...], as_json: bool) -> None:
    """Per contract: which rows block, on what evidence, and which are demoted for lack of it.

    Exit 1 if a row cites a capture that does not show that refusal holding on a version the
    contract admits.
    """
    from pasture.evolve.evidence import contract_evidence, render_text

    project = project_root(ctx, root)
    contracts = load_or_exit(project, as_json, trailer="fix them first.")
    known = {c.id for c in contracts}
    unknown = [c for c in contract_ids if c not in known]
    if unknown:
        raise click.UsageError(f"no contract {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}")
    reports = [contract_evidence(project, c) for c in contracts if not contract_ids or c.id in contract_ids]
    if as_json:
        click.echo(json.dumps(reports, indent=2))
    else:
        click.echo(render_text(reports), nl=False)
    sys.exit(EXIT_DIFF if any(r["problems"] for r in reports) else EXIT_OK)


# --- pasture diff -------------------------------------------------------------------------------


@click.command("diff", context_settings={"help_option_names": ["-h", "--help"]})
@root_option
@click.argument("contract_a")
@click.argument("contract_b")
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.pass_context
def diff(ctx: click.Context, root: Path | None, contract_a: str, contract_b: str, as_json: bool) -> None:
    """What changes for users between CONTRACT_A and CONTRACT_B: events, axes, blocking, evidence.

    Exit 0 if they are the same, 1 if they differ.
    """
    from pasture.evolve.diff import diff_contracts, render_text

    project = project_root(ctx, root)
    contracts = {c.id: c for c in load_or_exit(project, as_json, trailer="fix them first.")}
    for cid in (contract_a, contract_b):
        if cid not in contracts:
            raise click.UsageError(f"no contract {cid!r}; known: {', '.join(sorted(contracts))}")
    a, b = contracts[contract_a], contracts[contract_b]
    result = diff_contracts(a, b)
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        click.echo(render_text(result, a, b), nl=False)
    sys.exit(EXIT_OK if result["identical"] else EXIT_DIFF)


HOST_COMMANDS = (host, capture, profile, evidence, diff)
