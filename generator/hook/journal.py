"""The SQLite journal: every hook invocation, committed before the host sees a byte of the answer."""

from __future__ import annotations

import json
import sqlite3
import os
import time

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
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
    gate TEXT,
    reason TEXT,
    failure TEXT,
    latency_ms REAL,
    detail TEXT,
    envelope TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_session ON events(session);
CREATE INDEX IF NOT EXISTS events_event ON events(event);
"""

COLUMNS = ("id", "at", "harness", "contract", "host_version", "event", "semantic", "session", "tool_name",
           "decision", "answer", "gate", "reason", "failure", "latency_ms", "detail", "envelope")


def connect(path) -> sqlite3.Connection:
    parent = os.path.dirname(os.fspath(path))
    if parent:
        os.makedirs(parent, exist_ok=True)
    # Codex runs matching hooks concurrently: WAL lets readers and one writer overlap, and the busy
    # timeout makes concurrent writers wait for each other instead of failing.
    conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(SCHEMA)
    return conn


def record(path, envelope: dict, *, decision: str, answer: str, gate: str | None, reason: str | None,
           failure: str | None, latency_ms: float, detail: dict | None = None) -> None:
    conn = connect(path)
    try:
        session = envelope.get("identities", {}).get("session")
        conn.execute(
            "INSERT INTO events (at, harness, contract, host_version, event, semantic, session, tool_name, decision, "
            "answer, gate, reason, failure, latency_ms, detail, envelope) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), envelope["harness"], envelope.get("contract"),
             envelope.get("host_version"), envelope["event"], envelope.get("semantic"),
             None if session is None else str(session), envelope.get("tool_name"), decision, answer, gate, reason,
             failure, round(latency_ms, 3), json.dumps(detail, ensure_ascii=True, default=str) if detail else None,
             json.dumps(envelope, ensure_ascii=True, default=str)),
        )
    finally:
        conn.close()


def query(path, *, session: str | None = None, event: str | None = None, decision: str | None = None,
          limit: int | None = None) -> list[dict]:
    if not os.path.isfile(path):
        return []
    conn = sqlite3.connect(f"file:{os.fspath(path)}?mode=ro", uri=True, timeout=10.0)
    try:
        clauses, args = [], []
        for column, value in (("session", session), ("event", event), ("decision", decision)):
            if value is not None:
                clauses.append(f"{column} = ?")
                args.append(value)
        sql = f"SELECT {', '.join(COLUMNS)} FROM events"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY id"
        if limit:
            sql = f"SELECT * FROM ({sql.replace(' ORDER BY id', ' ORDER BY id DESC')} LIMIT {int(limit)}) ORDER BY id"
        rows = [dict(zip(COLUMNS, r)) for r in conn.execute(sql, args)]
    finally:
        conn.close()
    for row in rows:
        row["envelope"] = json.loads(row["envelope"])
        row["detail"] = json.loads(row["detail"]) if row["detail"] else None
    return rows
