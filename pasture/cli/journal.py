"""`pasture journal`: list (pasture.journal.view answers the plain listing without click), prune, torn,
export (JSON lines, CSV, or OpenTelemetry logs over OTLP/HTTP: pasture.journal.export)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from pasture.cli.options import EXIT_ERROR

JOURNAL_HELP = (
    "journal file (default: $PASTURE_JOURNAL, else the policy's [journal] path, else "
    ".pasture/journal.sqlite3 under the project root found from --root or the current folder)"
)


def _time(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from pasture.journal.view import parse_time

    try:
        return parse_time(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _where(func: Callable[..., Any]) -> Callable[..., Any]:
    """--root, --journal and the filters every journal command shares."""
    options = [
        click.option(
            "--root",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="project root (default: found from the current folder)",
        ),
        click.option(
            "--journal",
            "journal_path",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help=JOURNAL_HELP,
        ),
        click.option("--session", default=None, help="only this native session id"),
        click.option("--event", default=None, help="only this native event name"),
        click.option("--decision", default=None, help="only this decision (proceed, deny, ask, observe, none)"),
        click.option("--harness", default=None, help="only this harness (the name `pasture install` takes)"),
        click.option(
            "--layer", default=None, help="only decisions of this policy layer (managed, user, project, builtin)"
        ),
        click.option("--rule", default=None, help="only decisions of this rule (its name)"),
        click.option(
            "--since",
            default=None,
            callback=_time,
            help="only from this time on (ISO 8601 UTC, e.g. 2026-12-01T10:00:00Z, or an age: 7d, 12h)",
        ),
        click.option("--until", default=None, callback=_time, help="only before this time (same forms)"),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _resolve(root: Path | None, journal_path: Path | None) -> tuple[str, dict]:
    from pasture.cli.options import project_root
    from pasture.journal.view import settings

    path, retention = settings(str(project_root(click.get_current_context(), root)), dict(os.environ))
    return os.path.abspath(str(journal_path) if journal_path else path), retention


def _filters(kwargs: dict[str, Any]) -> dict:
    from pasture.journal.view import FILTERS

    return {k: kwargs[k] for k in FILTERS if kwargs.get(k) is not None}


@click.group(invoke_without_command=True)
@_where
@click.option("--limit", type=click.IntRange(min=1), default=None, help="only the newest N entries")
@click.option("--json", "as_json", is_flag=True, help="print JSON (one array)")
@click.option("--count", "as_count", is_flag=True, help="print only how many entries match")
@click.pass_context
def journal(
    ctx: click.Context,
    /,
    root: Path | None,
    journal_path: Path | None,
    limit: int | None,
    as_json: bool,
    as_count: bool,
    **kwargs: Any,
) -> None:
    """List journaled hook invocations, oldest first (filters and --limit run in the database).

    Reading first moves the hooks' spool into the database and applies the policy's retention
    ([journal] keep_days / max_mb of the user or managed layer).
    """
    if ctx.invoked_subcommand is not None:
        return
    from pasture.journal.view import list_journal, out_stream

    path, retention = _resolve(root, journal_path)
    options = dict(_filters(kwargs), limit=limit, json=as_json, count=as_count)
    out = out_stream()
    try:
        code = list_journal(path, options, retention, out, sys.stderr)
        out.flush()
    except BrokenPipeError:  # `pasture journal | head`: the reader left, nothing is wrong
        from pasture.journal.view import quiet_stdout

        quiet_stdout()
        return
    finally:
        out.detach()
    if code:
        sys.exit(code)


@journal.command()
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="project root (default: found from the current folder)",
)
@click.option(
    "--journal", "journal_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help=JOURNAL_HELP
)
@click.option(
    "--keep-days",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="delete records older than this many days (default: the policy's [journal] keep_days)",
)
@click.option(
    "--max-mb",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="delete the oldest records until the data fits (default: the policy's [journal] max_mb)",
)
def prune(root: Path | None, journal_path: Path | None, keep_days: float | None, max_mb: float | None) -> None:
    """Apply retention now; the deletion is itself journaled (event journal.prune)."""
    import sqlite3

    from pasture.journal import db as journaldb
    from pasture.journal.view import printable

    path, retention = _resolve(root, journal_path)
    if keep_days is not None:
        retention["keep_days"] = keep_days
    if max_mb is not None:
        retention["max_mb"] = max_mb
    if not retention:
        click.echo(
            "no retention set: give --keep-days or --max-mb, or set [journal] keep_days / max_mb in the "
            "user or managed policy (pasture policy show names the layers)",
            err=True,
        )
        sys.exit(EXIT_ERROR)
    try:
        if os.path.exists(path) or os.path.exists(path + ".spool") or os.path.exists(path + ".spool.ingest"):
            from pasture.journal.retention import prune as apply

            journaldb.ingest(path)
            done = apply(path, **retention)
        else:
            done = None
    except (OSError, sqlite3.Error) as exc:
        click.echo(f"error: cannot prune journal {printable(path)}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"{printable(path)}: {done['reason']}" if done else f"{printable(path)}: nothing to prune")


@journal.command()
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="project root (default: found from the current folder)",
)
@click.option(
    "--journal", "journal_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help=JOURNAL_HELP
)
@click.option("--json", "as_json", is_flag=True, help="JSON lines, the kept bytes as latin-1 text")
def torn(root: Path | None, journal_path: Path | None, as_json: bool) -> None:
    """List the spool lines that were not journal records (torn, garbage or forged), with their offset."""
    import json
    import sqlite3

    from pasture.journal import db as journaldb
    from pasture.journal.view import printable

    path, retention = _resolve(root, journal_path)
    if not os.path.exists(path) and not os.path.exists(path + ".spool"):
        click.echo(f"no journal at {printable(path)}")
        return
    try:
        from pasture.journal.retention import prune as apply

        journaldb.ingest(path)
        if retention:
            apply(path, **retention)
        conn = journaldb.connect(path, readonly=True)
        try:
            n = 0
            for ident, spool, offset, length, found, reason, data in journaldb.torn_lines(conn):
                n += 1
                if as_json:
                    click.echo(
                        json.dumps(
                            {
                                "id": ident,
                                "spool": spool,
                                "offset": offset,
                                "length": length,
                                "found_at": found,
                                "reason": reason,
                                "data": (data or b"").decode("latin-1"),
                            }
                        )
                    )
                else:
                    shown = printable((data or b"")[:120].decode("latin-1"))
                    click.echo(
                        f"{ident:>5} {found} byte {offset} ({length} bytes) of spool {spool}: "
                        f"{printable(reason)}: {shown}"
                    )
        finally:
            conn.close()
    except (OSError, sqlite3.Error) as exc:
        click.echo(f"error: cannot read journal {printable(path)}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    if not n and not as_json:
        click.echo(f"no torn or garbage spool lines in {printable(path)}")


@journal.command()
@_where
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv"]),
    default=None,
    help="write every matching record to stdout (or --output) as JSON lines or CSV",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="with --format: write to this file instead of stdout",
)
@click.option(
    "--otlp",
    "otlp",
    default=None,
    metavar="URL",
    help="send every record not sent to URL before as OpenTelemetry log records over OTLP/HTTP "
    "(e.g. http://127.0.0.1:4318/v1/logs; 'env': the OTEL_EXPORTER_OTLP_[LOGS_]ENDPOINT); "
    "needs pip install 'pasture[otlp]'",
)
@click.option("--batch", type=click.IntRange(min=1, max=100000), default=512, help="OTLP: records per request")
def export(
    root: Path | None,
    journal_path: Path | None,
    fmt: str | None,
    output: Path | None,
    otlp: str | None,
    batch: int,
    **kwargs: Any,
) -> None:
    """Export the journal: --format jsonl|csv (the matching records), or --otlp URL (each record once: a
    cursor per endpoint remembers what was sent)."""
    import sqlite3

    from pasture.journal.view import printable

    if (fmt is None) == (otlp is None):
        raise click.UsageError("give exactly one of --format jsonl|csv and --otlp URL")
    path, retention = _resolve(root, journal_path)
    filters = _filters(kwargs)
    if otlp is not None:
        from pasture.journal.export import ExportError, export_otlp

        try:
            sent, endpoint = export_otlp(path, otlp, filters=filters, batch=batch, retention=retention)
        except ExportError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        except (OSError, sqlite3.Error) as exc:
            click.echo(f"error: cannot read journal {printable(path)}: {exc}", err=True)
            sys.exit(EXIT_ERROR)
        click.echo(f"sent {sent} record(s) to {endpoint}")
        return
    assert fmt is not None  # exactly one of --format and --otlp (above)
    from pasture.journal import db as journaldb
    from pasture.journal.retention import after_ingest
    from pasture.journal.view import out_stream, write_rows

    retain = after_ingest(path, retention)
    try:
        if output is None:
            out = out_stream()
            try:
                write_rows(journaldb.rows(path, None, retain, **filters), fmt, out)
                out.flush()
            except BrokenPipeError:  # `... export --format csv | head`: the reader left
                from pasture.journal.view import quiet_stdout

                quiet_stdout()
            finally:
                out.detach()
        else:
            with open(output, "w", encoding="utf-8", errors="backslashreplace", newline="") as fh:
                n = write_rows(journaldb.rows(path, None, retain, **filters), fmt, fh)
            click.echo(f"wrote {n} record(s) to {printable(str(output))}", err=True)
    except (OSError, sqlite3.Error) as exc:
        click.echo(f"error: cannot export journal {printable(path)}: {exc}", err=True)
        sys.exit(EXIT_ERROR)
