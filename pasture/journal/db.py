"""The journal's SQLite database: the spool ingested and queried (readers only, never the hook path).

See pasture/runtime/journal.py for the two stages and why the hook path writes a spool; retention is
pasture/journal/retention.py, export pasture/journal/export.py.

Ingest streams the spool in bounded batches (at most BATCH records or BATCH_BYTES per batch, and
one line is read at most MAX_LINE bytes at a time), so its memory does not grow with the spool.
Each batch commits together with how far into the spool it got (`ingest_state`); the spool file is
removed only once its last byte is committed. A kill at any point therefore loses nothing (the
spool is still there) and duplicates nothing (a rerun resumes at the committed offset, and every
record's `uid` is UNIQUE). A line that is not a journal record (torn by a full disk or a killed
writer, garbage, or shaped wrong) is kept aside in `torn` with its byte offset, never merged into
the record after it.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Iterator

from pasture.runtime.fastjson import JSONError, dumps, loads
from pasture.runtime.journal import spool_path

BATCH = 2000
BATCH_BYTES = 8 << 20
MAX_LINE = 64 << 20  # a longer "line" is garbage: the hook's payload limit is 16 MiB
KEEP_BYTES = 64 << 10  # of a torn line, this much is kept for `pasture journal torn`

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    uid TEXT UNIQUE,
    at TEXT NOT NULL,
    harness TEXT NOT NULL,
    contract TEXT,
    host_version TEXT,
    event TEXT NOT NULL,
    semantic TEXT,
    session TEXT,
    tool_name TEXT,
    decision TEXT NOT NULL,
    answer TEXT NOT NULL,
    layer TEXT,
    rule TEXT,
    gate TEXT,
    reason TEXT,
    failure TEXT,
    runtime_ms REAL,
    cpu_ms REAL,
    detail TEXT,
    envelope TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS torn (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    spool TEXT NOT NULL,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL,
    found_at TEXT NOT NULL,
    reason TEXT NOT NULL,
    data BLOB,
    UNIQUE (spool, offset)
);
CREATE TABLE IF NOT EXISTS ingest_state (spool TEXT PRIMARY KEY, offset INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS cursors (name TEXT PRIMARY KEY, last_id INTEGER NOT NULL, at TEXT);
"""
# Every filter runs on an index; SQLite appends the rowid (id) to each, so "newest N matching" reads
# the index backwards instead of sorting.
FILTERS = ("session", "event", "decision", "harness", "layer", "rule")
INDEXES = "".join(f"CREATE INDEX IF NOT EXISTS events_{c} ON events({c});\n" for c in (*FILTERS, "at"))

COLUMNS = (
    "id",
    "uid",
    "at",
    "harness",
    "contract",
    "host_version",
    "event",
    "semantic",
    "session",
    "tool_name",
    "decision",
    "answer",
    "layer",
    "rule",
    "gate",
    "reason",
    "failure",
    "runtime_ms",
    "cpu_ms",
    "detail",
    "envelope",
)
_TYPES = {"runtime_ms": "REAL", "cpu_ms": "REAL"}
_REQUIRED = ("uid", "at", "harness", "event", "decision")
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now_text() -> str:
    return time.strftime(TIME_FORMAT, time.gmtime())


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    # SQLite stores UTF-8: a lone surrogate cannot be encoded, so keep it readable as an escape.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def deep(function: Callable[..., Any], *args: Any) -> Any:
    """function(*args) with room for deep nesting: the hook stores what its parser accepted (nesting up
    to the recursion limit) inside a record two levels deeper, so a reader may need a little more."""
    try:
        return function(*args)
    except (RecursionError, JSONError) as exc:
        if isinstance(exc, JSONError) and "deeply" not in str(exc):
            raise
    import sys
    import threading

    result: dict = {}

    def run() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 20000))
        try:
            result["value"] = function(*args)
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller's thread
            result["error"] = exc
        finally:
            sys.setrecursionlimit(old)

    size = threading.stack_size(256 << 20)
    try:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(size)
    if "error" in result:
        raise result["error"]
    return result["value"]


def connect(path: str | os.PathLike[str], readonly: bool = False) -> sqlite3.Connection:
    import sqlite3

    path = os.fspath(path)
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10.0, isolation_level=None)
        conn.execute("PRAGMA busy_timeout = 10000")
        return conn
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    fresh = not os.path.exists(path) or os.path.getsize(path) == 0
    conn = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    if fresh:  # only an empty database takes it: retention (max_mb) can then give pages back
        conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA journal_size_limit = 67108864")
    conn.executescript(SCHEMA)
    present = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    for column in COLUMNS:  # a journal from an older pasture: add what it lacks
        if column not in present:
            conn.execute(f"ALTER TABLE events ADD COLUMN {column} {_TYPES.get(column, 'TEXT')}")
    conn.executescript(INDEXES)
    return conn


def _row_values(item: dict) -> tuple:
    detail = item.get("detail")
    return (
        _text(item.get("uid")),
        _text(item.get("at")) or "",
        _text(item.get("harness")) or "?",
        _text(item.get("contract")),
        _text(item.get("host_version")),
        _text(item.get("event")) or "?",
        _text(item.get("semantic")),
        _text(item.get("session")),
        _text(item.get("tool_name")),
        _text(item.get("decision")) or "?",
        _text(item.get("answer")) or "?",
        _text(item.get("layer")),
        _text(item.get("rule")),
        _text(item.get("gate")),
        _text(item.get("reason")),
        _text(item.get("failure")),
        _number(item.get("runtime_ms")),
        _number(item.get("cpu_ms")),
        deep(dumps, detail, False, str) if detail else None,
        deep(dumps, item.get("envelope"), False, str),
    )


def _number(value: Any) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


# A record as the hook writes it starts with this (pasture.runtime.journal.record puts "at" first);
# inside any string a quote is escaped, so a torn line can be split where the next record begins.
_START = b'{"at":"'


def _parse_record(line: bytes) -> tuple[dict | None, str | None]:
    """(record, None) or (None, why it is not one)."""
    try:
        text = line.decode("ascii")  # the hook writes ASCII only
    except UnicodeDecodeError:
        return None, "not ASCII (the hook writes ASCII only)"
    try:
        item = deep(loads, text)
    except (JSONError, RecursionError) as exc:
        return None, f"not JSON ({exc})"
    if not isinstance(item, dict):
        return None, f"a JSON {type(item).__name__}, not a record"
    missing = [key for key in _REQUIRED if not isinstance(item.get(key), str) or not item.get(key)]
    if missing:
        return None, f"not a journal record (no {', '.join(missing)})"
    if not isinstance(item.get("envelope"), dict):
        return None, "not a journal record (no envelope)"
    if len(item["uid"]) > 200:
        return None, "not a journal record (uid too long)"
    return item, None


def parse_line(line: bytes) -> list[tuple[int, dict | None, str | None]]:
    """A spool line's parts: (offset in the line, record or None, why not). A line a torn write ran into
    (no newline between the torn part and the next record) comes back as two parts."""
    item, why = _parse_record(line)
    if item is not None:
        return [(0, item, None)]
    start = line.find(_START, 1)
    while start > 0:
        rest, _ = _parse_record(line[start:])
        if rest is not None:
            return [(0, None, f"torn ({why})"), (start, rest, None)]
        start = line.find(_START, start + 1)
    return [(0, None, why)]


def iter_spool(fh: Any, offset: int = 0) -> Iterator[tuple]:
    """(offset, length, record or None, why, kept bytes) for every non-empty line from `offset`; memory is
    bounded by MAX_LINE whatever the file holds."""
    fh.seek(offset)
    while True:
        line = fh.readline(MAX_LINE + 1)
        if not line:
            return
        start = offset
        offset += len(line)
        if line.endswith(b"\n"):
            body, ended = line[:-1], True
        else:
            body, ended = line, False
        if not ended and len(line) > MAX_LINE:  # no newline for MAX_LINE bytes: skip to the next one
            kept = body[:KEEP_BYTES]
            while True:
                more = fh.readline(MAX_LINE)
                offset += len(more)
                if not more or more.endswith(b"\n"):
                    break
            yield start, offset - start, None, f"garbage (no newline in {MAX_LINE} bytes)", kept
            continue
        if not body.strip():
            continue
        if not ended:  # the last line, with every writer done (the ingest holds the lock): torn
            yield start, len(body), None, "torn (no newline at the end of the spool)", body[:KEEP_BYTES]
            continue
        parts = parse_line(body)
        for index, (at, item, why) in enumerate(parts):
            end = parts[index + 1][0] if index + 1 < len(parts) else len(body)
            yield start + at, end - at, item, why, None if item is not None else body[at:end][:KEEP_BYTES]


_INSERT = f"INSERT OR IGNORE INTO events ({', '.join(COLUMNS[1:])}) VALUES ({', '.join('?' for _ in COLUMNS[1:])})"


def insert_record(conn: sqlite3.Connection, item: dict) -> None:
    """One record (a dict shaped like the hook's) into the events table, inside the caller's transaction."""
    conn.execute(_INSERT, _row_values(item))


_INSERT_TORN = "INSERT OR IGNORE INTO torn (spool, offset, length, found_at, reason, data) VALUES (?, ?, ?, ?, ?, ?)"


def _spool_id(fd: int) -> str:
    """Names one spool file for ingest_state and torn: its inode, and a digest of its first bytes (the
    first record's uid makes it unique, so a later file on a reused inode never matches)."""
    import hashlib

    st = os.fstat(fd)
    head = os.pread(fd, 4096, 0)
    return f"{st.st_dev}:{st.st_ino}:{hashlib.sha256(head).hexdigest()[:32]}"


def _flush(conn: sqlite3.Connection, spool: str, offset: int, rows: list, torn: list, fd: int) -> int:
    """One batch, one transaction: its records, its torn lines, and how far into the spool it got."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        top = conn.execute("SELECT max(id) FROM events").fetchone()[0] or 0
        before = conn.total_changes
        conn.executemany(_INSERT, [values for values, _ in rows])
        inserted = conn.total_changes - before
        if inserted < len(rows):
            torn.extend(_conflicts(conn, rows, top, fd))
        if torn:
            found = now_text()
            conn.executemany(_INSERT_TORN, [(spool, at, length, found, why, data) for at, length, why, data in torn])
        conn.execute("INSERT OR REPLACE INTO ingest_state (spool, offset) VALUES (?, ?)", (spool, offset))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return inserted


def _conflicts(conn: sqlite3.Connection, rows: list, before_id: int, fd: int) -> list:
    """Records whose uid was already journaled (or came twice in this batch). The same record again (a
    spool replayed after a crash) is nothing new; different content under a journaled uid is a forgery
    or a corruption, kept aside rather than dropped or believed."""
    out, seen = [], {}
    uids = [values[0] for values, _ in rows]
    for start in range(0, len(uids), 500):
        chunk = uids[start : start + 500]
        query = (
            f"SELECT {', '.join(COLUMNS[1:])} FROM events WHERE id <= ? AND uid IN ({', '.join('?' for _ in chunk)})"
        )
        for stored in conn.execute(query, [before_id, *chunk]):
            seen[stored[0]] = tuple(stored)
    batch: dict = {}
    for values, (at, length) in rows:
        mine = tuple(values)
        earlier = seen.get(values[0]) or batch.get(values[0])
        if earlier is None:
            batch[values[0]] = mine
        elif earlier != mine:
            out.append(
                (
                    at,
                    length,
                    f"uid {values[0]} already journaled with different content",
                    os.pread(fd, min(length, KEEP_BYTES), at),
                )
            )
    return out


def ingest(path: str | os.PathLike[str], batch: int = BATCH) -> int:
    """Move the spool into the database in committed batches; the number of records added."""
    import fcntl

    path = os.fspath(path)
    spool = spool_path(path)
    work = spool + ".ingest"
    conn = connect(path)
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    moved = 0
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one ingest at a time
        for _ in range(2):  # a leftover from an ingest cut short, then the live spool
            if not os.path.exists(work):
                try:
                    os.rename(spool, work)
                except FileNotFoundError:
                    break
            with open(work, "rb") as fh:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)  # writers that opened it before the rename finish first
                name = _spool_id(fh.fileno())
                done = conn.execute("SELECT offset FROM ingest_state WHERE spool = ?", (name,)).fetchone()
                offset = done[0] if done else 0
                rows, torn, size = [], [], 0
                for at, length, item, why, data in iter_spool(fh, offset):
                    if item is None:
                        torn.append((at, length, why, data))
                    else:
                        try:
                            values = _row_values(item)
                        except (RecursionError, ValueError, TypeError) as exc:
                            torn.append(
                                (
                                    at,
                                    length,
                                    f"cannot be stored ({type(exc).__name__})",
                                    os.pread(fh.fileno(), min(length, KEEP_BYTES), at),
                                )
                            )
                        else:
                            rows.append((values, (at, length)))
                            size += length
                    if len(rows) >= batch or size >= BATCH_BYTES or len(torn) >= batch:
                        moved += _flush(conn, name, at + length, rows, torn, fh.fileno())
                        rows, torn, size = [], [], 0
                moved += _flush(conn, name, os.fstat(fh.fileno()).st_size, rows, torn, fh.fileno())
            os.unlink(work)
            conn.execute("DELETE FROM ingest_state WHERE spool = ?", (name,))
    finally:
        os.close(lock)
        conn.close()
    return moved


# --- reading ---------------------------------------------------------------------------------------


def where(filters: dict) -> tuple[str, list]:
    """The SQL condition for the filters (each an indexed column) and its parameters."""
    clauses, params = [], []
    for key in FILTERS:
        value = filters.get(key)
        if value is not None:
            clauses.append(f"{key} = ?")
            params.append(value)
    if filters.get("since"):
        clauses.append("at >= ?")
        params.append(filters["since"])
    if filters.get("until"):
        clauses.append("at < ?")
        params.append(filters["until"])
    if filters.get("after_id") is not None:
        clauses.append("id > ?")
        params.append(filters["after_id"])
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def select(
    conn: sqlite3.Connection, columns: tuple[str, ...] = COLUMNS, limit: int | None = None, **filters: Any
) -> sqlite3.Cursor:
    """Matching rows (tuples in `columns` order), oldest first, streamed; `limit`: only the newest N."""
    condition, params = where(filters)
    listed = ", ".join(columns)
    if limit:
        sql = f"SELECT {listed} FROM (SELECT {listed} FROM events{condition} ORDER BY id DESC LIMIT ?) ORDER BY id"
        params.append(int(limit))
    else:
        sql = f"SELECT {listed} FROM events{condition} ORDER BY id"
    return conn.execute(sql, params)


def count(conn: sqlite3.Connection, **filters: Any) -> int:
    condition, params = where(filters)
    return conn.execute(f"SELECT count(*) FROM events{condition}", params).fetchone()[0]


def torn_lines(conn: sqlite3.Connection, limit: int | None = None) -> sqlite3.Cursor:
    sql = "SELECT id, spool, offset, length, found_at, reason, data FROM torn ORDER BY id"
    return conn.execute(sql if not limit else sql + f" LIMIT {int(limit)}")


def torn_count(conn: sqlite3.Connection) -> int:
    try:
        return conn.execute("SELECT count(*) FROM torn").fetchone()[0]
    except Exception:  # an older journal without the table
        return 0


def decode(row: dict) -> dict:
    for key in ("envelope", "detail"):
        if row.get(key):
            try:
                row[key] = deep(loads, row[key])
            except (JSONError, RecursionError):
                pass  # kept as the stored text: a read never fails on what was stored
        else:
            row[key] = None
    return row


def open_for_reading(
    path: str | os.PathLike[str], after_ingest: Callable[[], Any] | None = None
) -> tuple[sqlite3.Connection | None, bool]:
    """Ingest (then `after_ingest()`: retention), then a connection to read; None when there is no journal.
    A journal that cannot be written is read as it stands (the spool then stays unread: `pending` reads it)."""
    import sqlite3

    path = os.fspath(path)
    spool = spool_path(path)
    if not os.path.isfile(path) and not os.path.exists(spool) and not os.path.exists(spool + ".ingest"):
        return None, False
    try:
        ingest(path)
        if after_ingest is not None:
            after_ingest()
    except (OSError, sqlite3.Error):
        if not os.path.isfile(path):
            return None, True
        return connect(path, readonly=True), True
    return connect(path, readonly=True), False


def pending(path: str | os.PathLike[str], **filters: Any) -> Iterator[dict]:
    """The spool's records as rows (dicts, id None), for a journal the reader cannot ingest."""
    path = os.fspath(path)
    for name in (spool_path(path) + ".ingest", spool_path(path)):
        try:
            fh = open(name, "rb")
        except OSError:
            continue
        with fh:
            for _, _, item, _, _ in iter_spool(fh):
                if item is None:
                    continue
                row = dict(zip(COLUMNS[1:], _row_values(item), strict=True))
                row["id"] = None
                if (
                    all(filters.get(k) is None or row.get(k) == filters[k] for k in FILTERS)
                    and (not filters.get("since") or row["at"] >= filters["since"])
                    and (not filters.get("until") or row["at"] < filters["until"])
                ):
                    yield row


def rows(
    path: str | os.PathLike[str],
    limit: int | None = None,
    after_ingest: Callable[[], Any] | None = None,
    **filters: Any,
) -> Iterator[dict]:
    """Every matching record as a dict (envelope and detail as stored JSON text), oldest first, streamed."""
    import collections

    conn, stale = open_for_reading(path, after_ingest)
    newest: collections.deque | None = collections.deque(maxlen=limit) if limit else None
    try:
        if conn is not None:
            for values in select(conn, COLUMNS, limit, **filters):
                row = dict(zip(COLUMNS, values, strict=True))
                if newest is None:
                    yield row
                else:
                    newest.append(row)
    finally:
        if conn is not None:
            conn.close()
    if stale:
        seen = set()
        for row in pending(path, **filters):
            if row["uid"] in seen:
                continue
            seen.add(row["uid"])
            if newest is None:
                yield row
            else:
                newest.append(row)
    if newest is not None:
        yield from newest


def query(
    path: str | os.PathLike[str],
    *,
    session: str | None = None,
    event: str | None = None,
    decision: str | None = None,
    limit: int | None = None,
    **filters: Any,
) -> list[dict]:
    """The matching records, oldest first, decoded (envelope and detail as values)."""
    return [decode(row) for row in rows(path, limit, None, session=session, event=event, decision=decision, **filters)]
