"""The `pasture` command line. Exit 0 success, 1 a difference found, 2 usage or input error."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pasture.check.drift import Drift
    from pasture.profile.contracts import Contract
    from pasture.render.artifact import Artifact

import click

from pasture import PastureError, __version__
from pasture.cli.options import EXIT_DIFF, EXIT_ERROR, load_or_exit, project_root, root_option


class _Pasture(click.Group):
    """The one handler of the tool's own errors: a command that did not turn a PastureError into its
    documented exit code itself still ends with one line on stderr and exit 2, never a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except PastureError as exc:
            message = " ".join(str(exc).split("\n")[:1]) or type(exc).__name__
            click.echo(f"pasture: {message}", err=True)
            ctx.exit(EXIT_ERROR)
        except IsADirectoryError as exc:
            # A folder where a command reads or writes a file (a settings file, a config) is bad
            # input like any other: one line and exit 2, wherever the read is.
            click.echo(f"pasture: {exc.filename} is a folder, not a file: move it out of the way", err=True)
            ctx.exit(EXIT_ERROR)


@click.group(cls=_Pasture, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pasture", message="%(prog)s %(version)s")
@root_option
@click.pass_context
def main(ctx: click.Context, root: Path | None) -> None:
    """Generate native lifecycle-hook adapters from version-pinned host profiles.

    Every command works on the project in the current folder, or the one --root names. Templates
    come from the installed package; the project's own templates/ overrides them file by file.

    \b
    Shell completion (click's), e.g. in ~/.bashrc:
      eval "$(_PASTURE_COMPLETE=bash_source pasture)"    (zsh: zsh_source, fish: fish_source)
    """
    ctx.ensure_object(dict)
    ctx.obj["root"] = root


@main.command()
@root_option
@click.option("--json", "as_json", is_flag=True, help="machine-readable output")
@click.pass_context
def validate(ctx: click.Context, root: Path | None, as_json: bool) -> None:
    """Validate every profile; print every problem, not only the first."""
    contracts = load_or_exit(project_root(ctx, root), as_json)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "ok": True,
                    "contracts": [
                        {"id": c.id, "admission": c.admission.describe(), "events": len(c.events)} for c in contracts
                    ],
                },
                indent=2,
            )
        )
        return
    from pasture.catalog import catalog_path, project_keeps_catalogs

    project = project_root(ctx, root)
    keeps = project_keeps_catalogs(project)
    for c in contracts:
        blocking = sum(1 for r in c.events if r.failure.blocks)
        catalog = catalog_path(project, c.harness.value, str(c.version))
        closed = (
            ""
            if not keeps
            else (
                f"; closed against {catalog.relative_to(project).as_posix()}"
                if catalog.is_file()
                else "; no host catalog (catalog_unavailable)"
            )
        )
        click.echo(f"{c.id}: {len(c.events)} events, {blocking} blocking; admits {c.admission.describe()}{closed}")
    click.echo(f"{len(contracts)} contract(s) valid.")


@main.command()
@root_option
@click.argument("contract")
@click.argument("event")
@click.pass_context
def explain(ctx: click.Context, root: Path | None, contract: str, event: str) -> None:
    """Explain one event row of CONTRACT in words (declared vs effective failure, and why)."""
    from pasture.render.explain import explain as render

    contracts = {c.id: c for c in load_or_exit(project_root(ctx, root))}
    found = contracts.get(contract)
    if found is None:
        raise click.UsageError(f"no contract {contract!r}; known: {', '.join(contracts)}")
    row = found.row(event)
    if row is None:
        names = ", ".join(r.name for r in found.events)
        raise click.UsageError(
            f"{contract} declares no event {event!r} (names are exact and case-sensitive); its events: {names}"
        )
    click.echo(render(found, row), nl=False)


def _render_or_exit(
    root: Path,
    contract_ids: tuple[str, ...],
    as_json: bool = False,
    cited: set[str] | None = None,
    loaded: list | None = None,
) -> list[Artifact]:
    """Every artifact of every contract; `loaded` (a list) receives the contracts the render used."""
    from pasture.hosts import HOSTS
    from pasture.render.project import RenderError, render_project

    contracts = load_or_exit(root, as_json, cited=cited)
    if loaded is not None:
        loaded.extend(contracts)
    known = {c.id for c in contracts}
    unknown = [c for c in contract_ids if c not in known]
    if unknown:
        raise click.UsageError(f"no contract {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}")
    try:
        return render_project(contracts, root, hosts=HOSTS)
    except RenderError as exc:
        if as_json:
            click.echo(json.dumps({"ok": False, "error": str(exc), "written": False}, indent=2))
        else:
            click.echo(f"error: {exc}", err=True)
            click.echo("nothing was written.", err=True)
        sys.exit(EXIT_ERROR)


def _templates_note(root: Path) -> dict:
    from pasture.render.env import overridden, search_path

    return {"templates": list(search_path(root)), "overridden_templates": overridden(root)}


def _drift_json(drift: Drift, **extra: Any) -> str:
    return json.dumps(
        {
            "ok": True,
            "clean": drift.clean,
            "missing": drift.missing,
            "extra": drift.extra,
            "modified": drift.modified,
            **extra,
        },
        indent=2,
        ensure_ascii=False,
    )


_contract_option = click.option(
    "--contract",
    "contract_ids",
    multiple=True,
    metavar="ID",
    help="limit the work to this contract (repeatable); project-wide files are refreshed too",
)
_json_option = click.option("--json", "as_json", is_flag=True, help="machine-readable output (one JSON object)")


@main.command()
@root_option
@_contract_option
@click.option("--dry-run", is_flag=True, help="show what would change; write nothing")
@_json_option
@click.pass_context
def generate(
    ctx: click.Context, root: Path | None, contract_ids: tuple[str, ...], dry_run: bool, as_json: bool
) -> None:
    """Render every artifact into generated/ (all-or-nothing)."""
    from pasture.check.drift import compare, write
    from pasture.check.quick import stamp

    project = project_root(ctx, root)
    before = None if contract_ids else stamp(project)
    cited: set[str] = set()
    contracts: list = []
    artifacts = _render_or_exit(project, contract_ids, as_json, cited, contracts)
    drift = compare(project, artifacts, set(contract_ids) or None)
    note = _templates_note(project) if as_json else {}
    written = drift.missing + drift.modified
    if drift.clean or dry_run:
        if drift.clean:
            _remember_if_evidence_holds(project, cited, before, artifacts, contracts)
        if as_json:
            click.echo(
                _drift_json(
                    drift,
                    dry_run=dry_run,
                    written=[],
                    removed=[],
                    diffs={p: drift.diffs[p] for p in drift.modified},
                    **note,
                )
            )
        elif drift.clean:
            click.echo("generated/ is up to date.")
        else:
            click.echo(drift.report(with_diff=True), nl=False)
            click.echo(
                f"would write {len(written)} file(s) and remove {len(drift.extra)}; nothing was written (--dry-run)."
            )
        return
    try:
        write(project, artifacts, drift)
    except OSError as exc:
        if as_json:
            click.echo(
                json.dumps({"ok": False, "error": f"cannot write generated/: {exc}", "written": False}, indent=2)
            )
        else:
            click.echo(f"error: cannot write generated/: {exc}; nothing was changed.", err=True)
        sys.exit(EXIT_ERROR)
    _remember_if_evidence_holds(project, cited, before, artifacts, contracts)
    if as_json:
        click.echo(_drift_json(drift, dry_run=False, written=written, removed=drift.extra, **note))
        return
    click.echo(drift.report(with_diff=False), nl=False)
    click.echo(f"wrote {len(written)} file(s), removed {len(drift.extra)}.")


@main.command()
@root_option
@_contract_option
@_json_option
@click.pass_context
def check(ctx: click.Context, root: Path | None, contract_ids: tuple[str, ...], as_json: bool) -> None:
    """Exit 0 if generated/ matches the profiles and every blocking claim's evidence holds, 1 on drift
    (missing, extra, modified) or an evidence problem, 2 on error.

    Never writes generated/. After a clean full check it remembers, outside the project (in the
    user's cache folder), the digest of everything the result depends on; the next check with
    nothing changed only re-hashes and skips rendering (PASTURE_NO_CACHE=1 turns that off).
    """
    from pasture.check.drift import compare
    from pasture.check.quick import stamp
    from pasture.evolve.evidence import evidence_problems

    project = project_root(ctx, root)
    before = None if contract_ids else stamp(project)
    cited: set[str] = set()
    contracts: list = []
    artifacts = _render_or_exit(project, contract_ids, as_json, cited, contracts)
    drift = compare(project, artifacts, set(contract_ids) or None)
    # the contracts the render used: the verdict is about one reading of the profiles
    evidence = evidence_problems(project, [c for c in contracts if not contract_ids or c.id in contract_ids])
    clean = drift.clean and not evidence
    if clean:
        _remember_clean(project, cited, before, artifacts)
    if as_json:
        click.echo(
            _drift_json(
                drift,
                files=len(artifacts),
                diffs={p: drift.diffs[p] for p in drift.modified},
                evidence=evidence,
                **_templates_note(project),
            )
        )
        if not clean:
            sys.exit(EXIT_DIFF)
        return
    if clean:
        click.echo(f"generated/ matches the profiles ({len(artifacts)} files); every cited evidence holds.")
        return
    if not drift.clean:
        click.echo(drift.report(with_diff=True), nl=False)
        click.echo("drift: run `pasture generate` and commit the result.", err=True)
    for problem in evidence:
        click.echo(f"evidence: {problem}", err=True)
    if evidence:
        click.echo(
            f"{len(evidence)} evidence problem(s): see `pasture evidence`; cite a capture of the contract's "
            "own version (pasture capture) or a source pinned to it.",
            err=True,
        )
    sys.exit(EXIT_DIFF)


def _remember_if_evidence_holds(
    project: Path, cited: set[str], before: str | None, artifacts: list[Artifact], contracts: list[Contract]
) -> None:
    """generate leaves a verdict for check only after everything check checks: generated/ is clean
    (it just wrote it) and every cited evidence holds; otherwise no record, so check runs in full."""
    if before is None:
        return
    from pasture.evolve.evidence import evidence_problems

    if not evidence_problems(project, contracts):
        _remember_clean(project, cited, before, artifacts)


def _remember_clean(project: Path, cited: set[str], before: str | None, artifacts: list[Artifact]) -> None:
    """Record that generated/ is verified against these exact inputs (the fast path of check);
    ``before`` is None for a --contract run (it verified only part of the project)."""
    from pasture.check import quick
    from pasture.render.project import MANIFEST

    manifest = next(a for a in artifacts if a.path == MANIFEST)
    # profiles/ and captures/ are hashed whole; only citations elsewhere need naming.
    quick.remember(project, [c for c in cited if not c.startswith(("profiles/", "captures/"))], before, manifest.data)


@main.command()
@click.argument("kind", type=click.Choice(["lifecycle", "runtime"]), default="lifecycle")
def schema(kind: str) -> None:
    """Print the JSON Schema of a profile file (lifecycle or runtime)."""
    from pasture.profile.schema import render_schema

    click.echo(render_schema(kind), nl=False)


from pasture.cli.install import install, uninstall  # noqa: E402  (imports its heavy parts lazily)

main.add_command(install)
main.add_command(uninstall)
from pasture.cli.doctor import doctor  # noqa: E402

main.add_command(doctor)

from pasture.cli.hook import hook  # noqa: E402
from pasture.cli.host import capture, diff, evidence, host, profile  # noqa: E402
from pasture.cli.policy import policy  # noqa: E402

main.add_command(host)
main.add_command(capture)
main.add_command(profile)
main.add_command(evidence)
main.add_command(diff)
main.add_command(policy)
main.add_command(hook)

from pasture.cli.journal import journal  # noqa: E402

main.add_command(journal)

from pasture.cli.catalog import catalog  # noqa: E402

main.add_command(catalog)

from pasture.cli.bump import bump  # noqa: E402

main.add_command(bump)


from pasture.cli.examples import attach  # noqa: E402

attach(main)
