"""The journal: every hook invocation, written before the host sees a byte of the answer.

Two stages, so the hook path needs neither `sqlite3` (~8 ms to import) nor an fsync:

- **Spool** (hook path): one JSON line per event, ASCII-only (any odd string a host or gate sends,
  lone surrogates included, is escaped, never an error), appended to `<journal>.spool` with a single
  `O_APPEND` write under a shared `flock`. Once `write` returns the record is in the kernel: it
  survives a crash or kill of the hook process (not a power cut; the database below is what gets
  synced).
- **Database** (readers: `pasture journal`, tests; pasture.journal.db):
  `query` first ingests the spool
  into the SQLite database `<journal>` (WAL): it renames the spool aside, takes the exclusive lock to
  wait out writers that opened it before the rename, streams it in committed batches (each carries
  how far it got; every record a unique id, so an ingest cut short resumes, never duplicates) and
  removes it once all of it is committed. A line that is not a record is kept aside, with its offset.
"""

import time
from itertools import count

from pasture import PastureError
from pasture.runtime import fs
from pasture.runtime.fastjson import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    import os

# Records this process wrote: part of each record's unique id. itertools.count's next() is atomic
# under the GIL, so the OpenCode server's threads never share an id (a shared id would lose a record).
_SEQUENCE = count(1)


class JournalError(PastureError):
    """The journal cannot be written; the message says where and why."""


def spool_path(path: "str | os.PathLike[str]") -> str:
    return str(path) + ".spool"


def _record_line(record: dict) -> bytes:
    # default=str: whatever a payload holds that JSON cannot (it came from JSON, so rarely) is kept readable.
    # The leading newline ends a line an earlier writer tore (full disk, killed mid-write), so a torn
    # line never runs into this record; the reader skips the empty lines.
    return ("\n" + dumps(record, compact=True, default=str) + "\n").encode("ascii")


def append(path: str, record: dict) -> None:
    """Append one record to the spool; JournalError when it cannot be written."""
    import fcntl

    record = dict(record, uid=f"{time.time_ns()}-{fs.getpid()}-{next(_SEQUENCE)}")
    line = _record_line(record)
    spool = spool_path(path)
    for _ in range(5):
        try:
            fd = fs.open_fd(spool, fs.O_WRONLY | fs.O_APPEND | fs.O_CREAT | fs.O_CLOEXEC, 0o600)
        except FileNotFoundError:
            try:
                fs.makedirs(fs.dirname(spool) or ".")
                fd = fs.open_fd(spool, fs.O_WRONLY | fs.O_APPEND | fs.O_CREAT | fs.O_CLOEXEC, 0o600)
            except OSError as exc:
                raise JournalError(f"journal {spool}: {exc.strerror or exc}") from None
        except OSError as exc:
            raise JournalError(f"journal {spool}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            mine = fs.fstat(fd)
            try:
                live = fs.stat(spool)
            except FileNotFoundError:
                live = None
            if live is None or (live.st_ino, live.st_dev) != (mine.st_ino, mine.st_dev):
                continue  # an ingest renamed it between our open and our lock: write to the new spool
            view = memoryview(line)
            while view:
                written = fs.write(fd, view)
                view = view[written:]
            return
        except OSError as exc:
            raise JournalError(f"journal {spool}: {exc.strerror or exc}") from None
        finally:
            fs.close(fd)
    raise JournalError(f"journal {spool}: the spool kept being moved while writing")


def record(
    path: str,
    envelope: dict,
    *,
    decision: str,
    answer: str,
    gate: str | None,
    reason: str | None,
    failure: str | None,
    runtime_ms: float,
    cpu_ms: float | None = None,
    layer: str | None = None,
    rule: str | None = None,
    detail: dict | None = None,
) -> None:
    session = envelope.get("identities", {}).get("session")
    append(
        path,
        {
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "harness": envelope["harness"],
            "contract": envelope.get("contract"),
            "host_version": envelope.get("host_version"),
            "event": envelope["event"],
            "semantic": envelope.get("semantic"),
            "session": None if session is None else str(session),
            "tool_name": envelope.get("tool_name"),
            "decision": decision,
            "answer": answer,
            "layer": layer,
            "rule": rule,
            "gate": gate,
            "reason": reason,
            "failure": failure,
            "runtime_ms": round(runtime_ms, 3),
            "cpu_ms": None if cpu_ms is None else round(cpu_ms, 3),
            "detail": detail,
            "envelope": envelope,
        },
    )


def writable(path: str) -> str | None:
    """None when the journal can be written, else why not (for `pasture doctor`)."""
    import os

    spool = spool_path(path)
    folder = os.path.dirname(spool) or "."
    probe = folder
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        return f"{probe} is not a folder"
    if os.path.exists(spool):
        return None if os.access(spool, os.W_OK) else f"{spool} is not writable"
    return None if os.access(probe, os.W_OK | os.X_OK) else f"{probe} is not writable"
