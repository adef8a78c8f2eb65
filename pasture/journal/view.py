"""`pasture journal` without click: which journal, its filters, and every output format.

Listing the journal is answered here, before click and the generator are imported (pasture.entry
sends a plain `pasture journal [filters]` straight to `fast_main`): at a million events the query
itself costs milliseconds, so start-up is the cost. Anything this parser does not know (--help, a
subcommand, a bad value) falls through to the click command (pasture.cli.journal), which says
what is wrong.

Every value reaches the output through an encoder that cannot fail: JSON escapes what it must (a
lone surrogate becomes its \\uXXXX escape), the stored envelope and detail are already JSON and are
written as stored (no decode, so no nesting limit), text mode escapes control characters (a reason
holding a newline cannot forge a line of the listing), CSV quotes and defuses spreadsheet formulas.
"""

from __future__ import annotations

import io
import os
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable

VALUED = ("root", "journal", "session", "event", "decision", "harness", "layer", "rule", "since", "until", "limit")
FLAGS = ("json", "count")
FILTERS = ("session", "event", "decision", "harness", "layer", "rule", "since", "until")
EXIT_ERROR = 2


def settings(start: str | None, env: dict) -> tuple[str, dict]:
    """(the journal the hooks write for the project at `start`, the retention its policy sets)."""
    from pasture.runtime.effective import load
    from pasture.runtime.lifecycle import _journal_path
    from pasture.runtime.project import find_root

    root = find_root(os.path.realpath(start or os.getcwd()))
    try:
        effective = load(root, env)
    except Exception:  # noqa: BLE001 - a policy the hook cannot load: the default journal, no retention
        effective = None
    retention = dict(getattr(effective, "retention", None) or {})
    return _journal_path(effective, root, env), retention


def parse_time(text: str, now: float | None = None) -> str:
    """A --since/--until value as the journal stores times: ISO 8601 UTC (2026-12-01T10:00:00Z, or a date
    2026-12-01), or an age: 30m, 12h, 7d (that long before now). ValueError says what is accepted."""
    import calendar

    value = text.strip()
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if len(value) > 1 and value[-1] in units and value[:-1].replace(".", "", 1).isdigit():
        at = (now or time.time()) - float(value[:-1]) * units[value[-1]]
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    for form in (
        "%Y-%m-%dT%H:%M:%SZ",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%MZ",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d",
    ):
        try:
            parsed = time.strptime(value, form)
        except ValueError:
            continue
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(calendar.timegm(parsed)))
    raise ValueError(
        f"{text!r} is not a time: use ISO 8601 UTC (2026-12-01T10:00:00Z or 2026-12-01) or an age (30m, 12h, 7d)"
    )


# --- encoders --------------------------------------------------------------------------------------

_BIDI = {0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def printable(value: Any) -> str:
    """One line of terminal-safe text: control, bidi and surrogate characters as escapes."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable() and not any(ord(c) in _BIDI for c in text):
        return text
    out = []
    for char in text:
        code = ord(char)
        if char == "\\":
            out.append("\\\\")
        elif char.isprintable() and code not in _BIDI and not 0xD800 <= code <= 0xDFFF:
            out.append(char)
        elif char in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
    return "".join(out)


def _stored_json(text: Any) -> str:
    """A stored envelope/detail as JSON: verbatim when it is JSON (it always is, as pasture stores it),
    else as a JSON string (a hand-edited database still reads)."""
    import json

    if text is None:
        return "null"
    from pasture.journal.db import deep
    from pasture.runtime.fastjson import JSONError, loads

    try:
        deep(loads, text)
        return text
    except (JSONError, RecursionError, TypeError):
        return json.dumps(text)


def json_row(row: dict) -> str:
    import json

    plain = {key: value for key, value in row.items() if key not in ("envelope", "detail")}
    head = json.dumps(plain, ensure_ascii=False)
    detail, envelope = _stored_json(row.get("detail")), _stored_json(row.get("envelope"))
    return f'{head[:-1]}, "detail": {detail}, "envelope": {envelope}}}'


def text_row(r: dict) -> str:
    p = printable
    reason = f"  {p(r['reason'])}" if r.get("reason") else ""
    failure = f"  failure: {p(r['failure'])}" if r.get("failure") else ""
    where = f" layer={p(r['layer'])}" if r.get("layer") else ""
    rule = f" rule={p(r['rule'])}" if r.get("rule") else ""
    runtime = f"{r['runtime_ms']:.1f}ms" if isinstance(r.get("runtime_ms"), (int, float)) else "-"
    ident = r["id"] if r.get("id") is not None else "-"
    return (
        f"{ident:>5} {p(r['at'])} {p(r['harness'])} {p(r['event'])} session={p(r['session'] or '-')} "
        f"decision={p(r['decision'])} answer={p(r['answer'])}{where}{rule} gate={p(r['gate'] or '-')} "
        f"{runtime}{reason}{failure}{_steer_text(r.get('detail'))}"
    )


def _steer_text(detail: Any) -> str:
    """The steering a record carries (detail.steer, issue 17), one clause each: what ran, its exit and
    the bytes sent; a rewrite's field before and after; a degradation or a stop after max."""
    if not isinstance(detail, str) or '"steer"' not in detail:
        return ""
    from pasture.runtime.fastjson import JSONError, loads

    try:
        items = loads(detail).get("steer") or []
    except (JSONError, AttributeError, RecursionError):
        return ""
    said = []
    for item in items if isinstance(items, list) else ():
        if not isinstance(item, dict):
            continue
        head = f"{item.get('kind')} {item.get('name', '')}".strip()
        if item.get("kind") == "rewrite":
            said.append(f"{head}: {item.get('field')} {item.get('before')!r} -> {item.get('after')!r}")
        elif item.get("degraded"):
            said.append(f"{head}: degraded ({item['degraded']}; on_unsupported = {item.get('on_unsupported')})")
        elif item.get("stopped"):
            said.append(f"{head}: {item['stopped']}")
        elif item.get("error"):
            said.append(f"{head}: {item['error']}")
        else:
            command = " ".join(item.get("command") or []) or "text"
            said.append(f"{head}: {command} exit={item.get('exit')} sent={item.get('bytes_sent')}B")
    return ("  steer: " + printable("; ".join(said))) if said else ""


_FORMULA = ("=", "+", "-", "@")


def _blank(char: str) -> bool:
    import unicodedata

    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf")  # controls, zero-width and bidi marks


def csv_cell(value: Any) -> Any:
    """A CSV cell: a text that a spreadsheet would run as a formula gets a leading apostrophe (OWASP):
    one that starts with a tab or CR, or whose first character after any whitespace, control or
    format characters is = + - @ (a spreadsheet may skip those)."""
    if not isinstance(value, str) or not value:
        return value
    index = 0
    while index < len(value) and _blank(value[index]):
        index += 1
    if value.startswith(("\t", "\r")) or value[index : index + 1] in _FORMULA:
        return "'" + value
    return value


def out_stream() -> io.TextIOWrapper:
    """stdout as UTF-8 text that cannot fail to encode (a surrogate becomes its escape)."""
    import io

    return io.TextIOWrapper(
        sys.stdout.buffer, encoding="utf-8", errors="backslashreplace", newline="", write_through=False
    )


def write_rows(rows: Iterable[dict], fmt: str, out: TextIO) -> int:
    """Write rows (dicts with envelope/detail as stored text) as fmt: text | json | jsonl | csv."""
    from pasture.journal.db import COLUMNS

    n = 0
    if fmt == "csv":
        import csv

        # every field quoted: unquoted, a CR inside a value starts a new row in a reader
        writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
        writer.writerow(COLUMNS)
        for row in rows:
            writer.writerow([csv_cell(row.get(c)) for c in COLUMNS])
            n += 1
        return n
    if fmt == "json":
        out.write("[")
        for row in rows:
            out.write(("\n" if not n else ",\n") + json_row(row))
            n += 1
        out.write("\n]\n" if n else "]\n")
        return n
    line = json_row if fmt == "jsonl" else text_row
    for row in rows:
        out.write(line(row) + "\n")
        n += 1
    return n


def torn_note(conn: sqlite3.Connection) -> str | None:
    from pasture.journal.db import torn_count

    n = torn_count(conn)
    if not n:
        return None
    return (
        f"pasture: {n} spool line(s) were not journal records (torn or garbage) and are kept aside, not "
        "journaled; see: pasture journal torn"
    )


def list_journal(path: str, options: dict, retention: dict, out: TextIO, err: TextIO) -> int:
    """`pasture journal`: ingest, retention, then the matching records (or their count)."""
    import sqlite3

    from pasture.journal import db as journaldb
    from pasture.journal.retention import after_ingest

    retain = after_ingest(path, retention)
    filters = {k: options.get(k) for k in FILTERS if options.get(k) is not None}
    limit = options.get("limit")
    fmt = "json" if options.get("json") else "text"
    try:
        if options.get("count"):
            conn, stale = journaldb.open_for_reading(path, retain)
            n = 0 if conn is None else journaldb.count(conn, **filters)
            if stale:
                n += sum(1 for _ in journaldb.pending(path, **filters))
            out.write(f"{n}\n")
            note = torn_note(conn) if conn is not None else None
            if conn is not None:
                conn.close()
        else:
            n = write_rows(journaldb.rows(path, limit, retain, **filters), fmt, out)
            if not n and fmt == "text":
                out.write(
                    f"no journal entries in {printable(path)}" + (" matching the filters" if filters else "") + "\n"
                )
            note = None
            if os.path.isfile(path):
                conn = journaldb.connect(path, readonly=True)
                try:
                    note = torn_note(conn)
                finally:
                    conn.close()
    except sqlite3.DatabaseError as exc:
        out.flush()
        err.write(f"error: cannot read journal {printable(path)}: {exc}\n")
        return EXIT_ERROR
    out.flush()
    if note:
        err.write(note + "\n")
    return 0


def parse_args(argv: list[str]) -> dict | None:
    """The listing's options, or None for anything else (click then answers)."""
    options: dict = {}
    items = list(argv)
    while items:
        arg = items.pop(0)
        if not arg.startswith("--"):
            return None
        name, eq, value = arg[2:].partition("=")
        if name in FLAGS and not eq:
            options[name] = True
            continue
        if name not in VALUED:
            return None
        if not eq:
            if not items:
                return None
            value = items.pop(0)
        options[name] = value
    if "limit" in options:
        if not options["limit"].isdigit() or int(options["limit"]) < 1:
            return None
        options["limit"] = int(options["limit"])
    try:
        for key in ("since", "until"):
            if key in options:
                options[key] = parse_time(options[key])
    except ValueError:
        return None
    return options


def fast_main(argv: list[str]) -> int | None:
    """`pasture journal ...` answered without click; None to let click answer."""
    options = parse_args(argv)
    if options is None:
        return None
    env = dict(os.environ)
    path, retention = settings(options.get("root"), env)
    if options.get("journal"):
        path = options["journal"]
    out = out_stream()
    try:
        return list_journal(os.path.abspath(path), options, retention, out, sys.stderr)
    except BrokenPipeError:  # `pasture journal | head`: the reader left, nothing is wrong
        quiet_stdout()
        return 0
    finally:
        try:
            out.flush()
            out.detach()
        except (OSError, ValueError):
            pass


def quiet_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush stays silent."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
