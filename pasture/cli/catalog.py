"""`pasture catalog`: extract a host version's own event catalog into captures/<harness>@<version>/catalog.json.

Exit codes: 0 written (or unchanged), 1 ``--check`` found the committed catalog out of date, 2 error.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from pasture.cli.options import EXIT_DIFF, EXIT_ERROR, project_root, root_option
from pasture.hosts import NAMES as HARNESSES


@click.group("catalog", context_settings={"help_option_names": ["-h", "--help"]})
def catalog() -> None:
    """Host catalogs: each host version's own definition of its lifecycle events."""


def resolve_install(
    project: Path, harness: str, version: str | None, host_bin: Path | None, say: Callable[[str], Any]
) -> tuple[str, Path | None, Path | None]:
    """(version, node_modules, binary) for the host to read, installing ``version`` from npm if asked."""
    from pasture.catalog import CatalogError, installed_version
    from pasture.catalog.packages import install_host, node_modules_of
    from pasture.evolve import status as st

    if version is not None and host_bin is not None:
        raise CatalogError("give --version or --host-bin, not both")
    if version is not None:
        node_modules: Path | None = install_host(project, harness, version, say=say)
        return version, node_modules, None
    if host_bin is None:
        found = st.candidates(harness, project, None, os.environ)
        if not found:
            name, flag, var = st.HOST_BINARIES[harness]
            raise CatalogError(
                f"no {harness} binary found (looked at ${var}, PATH for '{name}' and the npm cache); "
                "pass --host-bin PATH or --version VERSION"
            )
        host_bin = found[0][0]
        say(f"using {host_bin} (found by {found[0][1]})")
    node_modules = node_modules_of(host_bin)
    found_version = installed_version(harness, node_modules) if node_modules is not None else None
    if found_version is None:
        host = st.read_host(harness, Path(host_bin), "--host-bin")
        if host.version is None:
            raise CatalogError(f"cannot read the version of {host_bin}: {host.error}")
        found_version = host.version
    return found_version, node_modules, Path(host_bin)


@catalog.command("extract")
@root_option
@click.argument("harness", type=click.Choice(HARNESSES))
@click.option(
    "--host-bin",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="read the host installed at this binary (default: as `pasture host status` finds it)",
)
@click.option(
    "--version",
    "version",
    default=None,
    metavar="VERSION",
    help="install this host version from npm into .cache/npm/hosts/ and read it",
)
@click.option("--check", "check_only", is_flag=True, help="write nothing; exit 1 if the committed catalog differs")
@click.pass_context
def extract(
    ctx: click.Context, root: Path | None, harness: str, host_bin: Path | None, version: str | None, check_only: bool
) -> None:
    """Read HARNESS's event catalog from the files its own packages ship; write
    captures/<harness>@<version>/catalog.json.

    Claude Code: the hook input/output schemas and the valid-event list bundled into its CLI binary.
    Codex: the hook JSON Schemas embedded in its binary. OpenCode: the plugin Hooks interface and the
    SDK's bus Event unions of that version, and the hook call sites in its binary. Every source is
    recorded with package, version, file and sha256.
    """
    from pasture.catalog import CatalogError, catalog_path, dump, write_catalog
    from pasture.catalog import extract as run_extract

    project = project_root(ctx, root)

    def say(message: str) -> None:
        click.echo(message, err=True)

    try:
        found_version, node_modules, binary = resolve_install(project, harness, version, host_bin, say)
        say(f"reading {harness} {found_version}" + (f" from {node_modules}" if node_modules else f" from {binary}"))
        doc = run_extract(harness, found_version, node_modules=node_modules, binary=binary, root=project)
    except CatalogError as exc:
        click.echo(f"error: {exc}; nothing was written.", err=True)
        sys.exit(EXIT_ERROR)
    path = catalog_path(project, harness, found_version)
    rel = path.relative_to(project).as_posix() if path.is_relative_to(project) else str(path)
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if check_only:
        if current == dump(doc):
            click.echo(f"{rel} is up to date ({len(doc['events'])} events).")
            return
        click.echo(
            f"{rel} {'differs from' if current else 'is missing; expected'} what {harness} {found_version} "
            "ships: run `pasture catalog extract` and commit it.",
            err=True,
        )
        sys.exit(EXIT_DIFF)
    if current == dump(doc):
        click.echo(f"{rel} is up to date ({len(doc['events'])} events).")
        return
    write_catalog(project, doc)
    kinds: dict[str, int] = {}
    for e in doc["events"]:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    click.echo(f"wrote {rel}: {len(doc['events'])} events ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))})")
    for source in doc["sources"]:
        click.echo(
            f"  from {source['package'] or '(binary)'} {source['version']} {source['file']} "
            f"sha256 {source['sha256'][:16]}..."
        )


@catalog.command("show")
@root_option
@click.argument("contract", metavar="HARNESS@VERSION")
@click.option("--json", "as_json", is_flag=True, help="print the catalog as JSON")
@click.pass_context
def show(ctx: click.Context, root: Path | None, contract: str, as_json: bool) -> None:
    """Print a committed catalog: every event with its identity-bearing input fields and the decisions its
    output offers."""
    from pasture.catalog import CatalogError, catalog_path, load_catalog

    project = project_root(ctx, root)
    harness, _, version = contract.partition("@")
    path = catalog_path(project, harness, version)
    try:
        cat = load_catalog(path)
    except CatalogError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if as_json:
        click.echo(json.dumps(cat.doc, indent=2, sort_keys=True))
        return
    click.echo(f"{contract}: {len(cat.names)} events ({path.relative_to(project).as_posix()})")
    for source in cat.sources:
        click.echo(f"  source: {source.get('package') or '(binary)'} {source.get('version')} {source.get('file')}")
    for name in cat.names:
        ev = cat.event(name)
        assert ev is not None
        decisions = ", ".join(f"{w} ({'; '.join(p)})" for w, p in sorted(ev.decisions().items())) or "none"
        calls = "" if ev.host_calls is None else f"; host call sites: {ev.host_calls}"
        click.echo(f"  {name} [{ev.kind}] decisions: {decisions}{calls}")
