"""Journal retention: `[journal] keep_days` / `max_mb` (user or managed layer), applied by `pasture journal
prune` and by every reader after ingest, never by the hook. Each deletion is journaled in the same
transaction (event journal.prune), so the audit trail says what left it and why."""

from __future__ import annotations

import os
import time
from typing import Any, Callable

from pasture.journal.db import TIME_FORMAT, connect, insert_record, now_text


def after_ingest(path: str | os.PathLike[str], retention: dict | None) -> Callable[[], Any] | None:
    """What a reader runs after ingest (pasture.journal.db.open_for_reading): the policy's retention."""
    if not retention:
        return None
    return lambda: prune(path, **retention)


def prune(
    path: str | os.PathLike[str], keep_days: float | None = None, max_mb: float | None = None, now: float | None = None
) -> dict | None:
    """Delete what retention no longer keeps, in one transaction with a journal record saying so; None when
    nothing was due. `keep_days`: records older than that many days; `max_mb`: the oldest records until
    the data (the database's pages in use) fits."""
    if keep_days is None and max_mb is None:
        return None
    conn = connect(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            deleted, torn, why = 0, 0, []
            first = conn.execute("SELECT min(id) FROM events").fetchone()[0]
            if keep_days is not None:
                cutoff = time.strftime(TIME_FORMAT, time.gmtime((now or time.time()) - keep_days * 86400))
                if conn.execute("SELECT 1 FROM events WHERE at < ? LIMIT 1", (cutoff,)).fetchone():
                    deleted += conn.execute("DELETE FROM events WHERE at < ?", (cutoff,)).rowcount
                    why.append(f"older than {keep_days:g} day(s) (before {cutoff})")
                torn += conn.execute("DELETE FROM torn WHERE found_at < ?", (cutoff,)).rowcount
            if max_mb is not None:
                limit = int(max_mb * 1024 * 1024)
                page = conn.execute("PRAGMA page_size").fetchone()[0]
                trimmed = 0
                while True:
                    used = (
                        conn.execute("PRAGMA page_count").fetchone()[0]
                        - conn.execute("PRAGMA freelist_count").fetchone()[0]
                    ) * page
                    if used <= limit:  # the common case, answered without counting rows
                        break
                    total = conn.execute("SELECT count(*) FROM events").fetchone()[0]
                    if total <= 1:
                        break
                    step = max(100, min(total - 1, int(total * (used - limit) / used) + 1))
                    trimmed += conn.execute(
                        "DELETE FROM events WHERE id IN (SELECT id FROM events ORDER BY id LIMIT ?)", (step,)
                    ).rowcount
                if trimmed:
                    deleted += trimmed
                    why.append(f"the oldest, to fit max_mb = {max_mb:g}")
            if not deleted and not torn:
                conn.execute("ROLLBACK")
                return None
            kept = conn.execute("SELECT min(id), min(at) FROM events").fetchone()
            detail = {
                "deleted": deleted,
                "torn_deleted": torn,
                "first_deleted_id": first,
                "oldest_kept_id": kept[0],
                "oldest_kept_at": kept[1],
                "keep_days": keep_days,
                "max_mb": max_mb,
            }
            reason = (
                f"retention deleted {deleted} record(s)"
                + (f" {'; '.join(why)}" if why else "")
                + (f" and {torn} torn line(s)" if torn else "")
            )
            record = {
                "uid": f"prune-{time.time_ns()}-{os.getpid()}",
                "at": now_text(),
                "harness": "pasture",
                "event": "journal.prune",
                "semantic": "retention",
                "decision": "observe",
                "answer": "none",
                "reason": reason,
                "detail": detail,
                "envelope": {"command": "journal prune"},
            }
            insert_record(conn, record)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        try:
            conn.executescript("PRAGMA incremental_vacuum;")  # stepped to the end: execute() frees one page
        except Exception:  # noqa: BLE001 - giving pages back is a nicety
            pass
        return dict(detail, reason=reason)
    finally:
        conn.close()
