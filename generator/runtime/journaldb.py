"""The journal's SQLite database: the spool ingested, and read back (readers only, never the hook path).

See generator/runtime/journal.py for the two stages and why the hook path writes a spool.
"""

from __future__ import annotations

import os

from generator.runtime.fastjson import JSONError, dumps, loads
from generator.runtime.journal import spool_path

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
CREATE INDEX IF NOT EXISTS events_session ON events(session);
CREATE INDEX IF NOT EXISTS events_event ON events(event);
"""

COLUMNS = ("id", "uid", "at", "harness", "contract", "host_version", "event", "semantic", "session", "tool_name",
           "decision", "answer", "layer", "rule", "gate", "reason", "failure", "runtime_ms", "cpu_ms", "detail",
           "envelope")
_TYPES = {"runtime_ms": "REAL", "cpu_ms": "REAL"}


def _text(value) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else str(value)
    # SQLite stores UTF-8: a lone surrogate cannot be encoded, so keep it readable as an escape.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def connect(path):
    import sqlite3

    parent = os.path.dirname(os.fspath(path))
    if parent:
        os.makedirs(parent, exist_ok=True)
    conn = sqlite3.connect(os.fspath(path), timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(SCHEMA)
    present = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    for column in COLUMNS:  # a journal from an older pasture: add what it lacks
        if column not in present:
            conn.execute(f"ALTER TABLE events ADD COLUMN {column} {_TYPES.get(column, 'TEXT')}")
    return conn


def _row_values(item: dict) -> tuple:
    detail = item.get("detail")
    return (
        _text(item.get("uid")), _text(item.get("at")) or "", _text(item.get("harness")) or "?",
        _text(item.get("contract")), _text(item.get("host_version")), _text(item.get("event")) or "?",
        _text(item.get("semantic")), _text(item.get("session")), _text(item.get("tool_name")),
        _text(item.get("decision")) or "?", _text(item.get("answer")) or "?", _text(item.get("layer")),
        _text(item.get("rule")), _text(item.get("gate")), _text(item.get("reason")), _text(item.get("failure")),
        item.get("runtime_ms"), item.get("cpu_ms"),
        dumps(detail, default=str) if detail else None, dumps(item.get("envelope"), default=str),
    )


def _parse_spool(data: bytes) -> tuple[list[dict], int]:
    records, torn = [], 0
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            item = loads(line.decode("ascii"))
        except (UnicodeDecodeError, JSONError):
            torn += 1
            continue
        if isinstance(item, dict):
            records.append(item)
        else:
            torn += 1
    return records, torn


_INSERT = (f"INSERT OR IGNORE INTO events ({', '.join(COLUMNS[1:])}) "
           f"VALUES ({', '.join('?' for _ in COLUMNS[1:])})")


def ingest(path) -> int:
    """Move the spool into the database; the number of records moved."""
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
            fd = os.open(work, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)  # writers that opened it before the rename finish first
                chunks = []
                while chunk := os.read(fd, 1 << 20):
                    chunks.append(chunk)
            finally:
                os.close(fd)
            records, _torn = _parse_spool(b"".join(chunks))
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(_INSERT, [_row_values(r) for r in records])
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            moved += len(records)
            os.unlink(work)
    finally:
        os.close(lock)
        conn.close()
    return moved


def _decode(row: dict) -> dict:
    row["envelope"] = loads(row["envelope"]) if row.get("envelope") else None
    row["detail"] = loads(row["detail"]) if row.get("detail") else None
    return row


def query(path, *, session: str | None = None, event: str | None = None, decision: str | None = None,
          limit: int | None = None) -> list[dict]:
    import sqlite3

    path = os.fspath(path)
    if not os.path.isfile(path) and not os.path.exists(spool_path(path)) \
            and not os.path.exists(spool_path(path) + ".ingest"):
        return []
    try:
        ingest(path)
    except (OSError, sqlite3.Error):
        pass  # a read-only journal: read what the database has, then the spool as it stands
    rows: list[dict] = []
    if os.path.isfile(path):
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10.0)
        try:
            present = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
            columns = [c for c in COLUMNS if c in present]
            for values in conn.execute(f"SELECT {', '.join(columns)} FROM events ORDER BY id"):
                rows.append(_decode(dict(zip(columns, values, strict=True))))
        finally:
            conn.close()
    seen = {r.get("uid") for r in rows}
    for name in (spool_path(path) + ".ingest", spool_path(path)):
        try:
            with open(name, "rb") as fh:
                pending, _ = _parse_spool(fh.read())
        except OSError:
            continue
        for item in pending:
            if item.get("uid") in seen:
                continue
            values = _row_values(item)
            row = dict(zip(COLUMNS[1:], values, strict=True))
            row["id"] = None
            rows.append(_decode(row))
    for key, value in (("session", session), ("event", event), ("decision", decision)):
        if value is not None:
            rows = [r for r in rows if r.get(key) == value]
    if limit:
        rows = rows[-int(limit):]
    return rows
