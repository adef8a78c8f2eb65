"""The journal database (pasture.journal.db): ingest in committed batches that a kill cannot
break, torn and garbage spool lines kept aside, queries in SQL, retention, every output format."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from pasture.journal import db as journaldb
from pasture.runtime.journal import _record_line, record, spool_path

ENVELOPE = {
    "harness": "claude-code",
    "event": "PreToolUse",
    "identities": {"session": "s1", "tool-call": "t1"},
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
}


def line(n: int, **more) -> bytes:
    """Spool bytes of record n as the hook writes them (pasture.runtime.journal._record_line)."""
    item = {
        "at": more.pop("at", "2026-12-01T10:00:00Z"),
        "harness": "claude-code",
        "event": "PreToolUse",
        "session": f"s{n % 7}",
        "tool_name": "Bash",
        "decision": "deny" if n % 3 == 0 else "proceed",
        "answer": "deny" if n % 3 == 0 else "proceed",
        "layer": "user" if n % 3 == 0 else None,
        "rule": "r" if n % 3 == 0 else None,
        "gate": None,
        "reason": f"reason {n}",
        "failure": None,
        "runtime_ms": 1.0,
        "cpu_ms": 2.0,
        "detail": None,
        "envelope": dict(ENVELOPE, identities={"session": f"s{n % 7}", "tool-call": f"t{n}"}),
        "uid": f"u-{n}",
    }
    item.update(more)
    return _record_line(item)


def write_spool(journal, lines) -> None:
    with open(spool_path(journal), "ab") as fh:
        for chunk in lines:
            fh.write(chunk)


def stored(journal) -> list[tuple]:
    conn = sqlite3.connect(journal)
    try:
        return conn.execute("SELECT id, uid FROM events ORDER BY id").fetchall()
    finally:
        conn.close()


def torn(journal) -> list[tuple]:
    conn = sqlite3.connect(journal)
    try:
        return conn.execute("SELECT offset, length, reason, data FROM torn ORDER BY offset").fetchall()
    finally:
        conn.close()


# --- ingest ----------------------------------------------------------------------------------------


def test_ingest_commits_batch_by_batch_and_removes_the_spool_only_at_the_end(tmp_path, monkeypatch):
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(n) for n in range(1000)])
    commits = []
    real = journaldb._flush

    def flush(conn, spool, offset, rows, torn_rows, fd):
        assert os.path.exists(spool_path(journal) + ".ingest")  # the spool stays until all of it is committed
        commits.append((offset, len(rows)))
        return real(conn, spool, offset, rows, torn_rows, fd)

    monkeypatch.setattr(journaldb, "_flush", flush)
    assert journaldb.ingest(journal, batch=100) == 1000
    assert [n for _, n in commits[:10]] == [100] * 10 and sum(n for _, n in commits) == 1000
    assert [o for o, _ in commits] == sorted(o for o, _ in commits)  # each commit records how far it got
    assert not os.path.exists(spool_path(journal)) and not os.path.exists(spool_path(journal) + ".ingest")
    assert [uid for _, uid in stored(journal)] == [f"u-{n}" for n in range(1000)]


def test_an_ingest_cut_short_resumes_at_its_committed_offset(tmp_path, monkeypatch):
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(n) for n in range(500)])
    real, calls = journaldb._flush, []

    def dies_on_the_third(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as a kill between two batches
        return real(*args)

    monkeypatch.setattr(journaldb, "_flush", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        journaldb.ingest(journal, batch=100)
    assert len(stored(journal)) == 200  # two batches committed, the third rolled back
    monkeypatch.setattr(journaldb, "_flush", real)
    resumed = []
    original_iter = journaldb.iter_spool

    def iter_from(fh, offset=0):
        resumed.append(offset)
        return original_iter(fh, offset)

    monkeypatch.setattr(journaldb, "iter_spool", iter_from)
    assert journaldb.ingest(journal, batch=100) == 300
    assert resumed[0] > 0  # resumed where the committed batches ended, not from the start
    rows = stored(journal)
    assert [uid for _, uid in rows] == [f"u-{n}" for n in range(500)]
    assert len({i for i, _ in rows}) == 500


KILLER = """
import os, signal, sys
from pasture.journal import db

# SIGKILL itself at one chosen point of one chosen batch (a step, not a moment: the same points on
# a busy machine as on an idle one): before the batch's transaction, inside it (its rows inserted,
# COMMIT not run), or after its commit.
journal, batch, kill_at, where = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
flushes = 0
real = db._flush


def die():
    os.kill(os.getpid(), signal.SIGKILL)


class Dying:
    def __init__(self, conn):
        self._conn = conn

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def execute(self, sql, *args):
        if sql == "COMMIT":
            die()
        return self._conn.execute(sql, *args)


def flush(conn, spool, offset, rows, torn, fd):
    global flushes
    flushes += 1
    if flushes != kill_at:
        return real(conn, spool, offset, rows, torn, fd)
    if where == "before":
        die()
    if where == "inside":
        return real(Dying(conn), spool, offset, rows, torn, fd)
    done = real(conn, spool, offset, rows, torn, fd)
    die()
    return done


db._flush = flush
db.ingest(journal, batch=batch)
"""
KILL_POINTS = ("before", "inside", "after")


def _count(journal) -> int:
    try:
        conn = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=10)
        try:
            return conn.execute("SELECT count(*) FROM events").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


@pytest.mark.slow  # kills a reader at 12 points
def test_killing_the_reader_at_random_points_loses_and_duplicates_nothing(tmp_path):
    """SIGKILL the ingest at (seeded) random points of its batches (hook writers keep appending between
    runs), then let one run finish: every record is in the database exactly once, ids unique, the
    spool gone. The points are batch steps, not wall-clock moments, so load cannot move them."""
    journal = str(tmp_path / "j.sqlite3")
    rng = random.Random(19)
    written, kills, partial = 0, 0, 0
    for _ in range(12):
        write_spool(journal, [line(written + k) for k in range(2500)])  # the hooks keep writing
        written += 2500
        point = [str(rng.randint(1, 24)), rng.choice(KILL_POINTS)]  # 25 or more batches of 100 per run
        proc = subprocess.run([sys.executable, "-c", KILLER, journal, "100", *point], timeout=300)
        assert proc.returncode == -signal.SIGKILL, point
        kills += 1
        partial += _count(journal) < written
    print(f"{kills} kills, {partial} left a partial journal")
    assert partial >= 5, partial  # it really was cut mid-ingest, many times
    done = subprocess.run([sys.executable, "-c", KILLER, journal, "100", "0", "never"], timeout=300)
    assert done.returncode == 0
    rows = stored(journal)
    assert sorted(uid for _, uid in rows) == sorted(f"u-{n}" for n in range(written))
    assert len({i for i, _ in rows}) == len(rows) == written
    assert torn(journal) == []
    assert not os.path.exists(spool_path(journal)) and not os.path.exists(spool_path(journal) + ".ingest")


def test_ingest_memory_is_bounded_by_the_batch_not_the_spool(tmp_path, monkeypatch):
    """Rows pass through in batches: no batch ever holds more than BATCH records or BATCH_BYTES."""
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(n) for n in range(3000)])
    monkeypatch.setattr(journaldb, "BATCH_BYTES", 50_000)
    biggest = []
    real = journaldb._flush
    monkeypatch.setattr(
        journaldb,
        "_flush",
        lambda conn, s, o, rows, t, fd: (biggest.append(len(rows)), real(conn, s, o, rows, t, fd))[1],
    )
    assert journaldb.ingest(journal) == 3000
    per_line = len(line(1))
    assert max(biggest) <= 50_000 // per_line + 1 and len(biggest) > 10


# --- torn, garbage and forged lines ----------------------------------------------------------------


def test_a_torn_line_never_swallows_the_next_record(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    first, second, third = line(1), line(2), line(3)
    cut = first[: len(first) // 2]  # a writer killed mid-line: no newline
    # The hook starts every record on a fresh line, and an older writer's record ran straight on.
    old_style = line(4).lstrip(b"\n")
    torn_old = line(5)[:60].lstrip(b"\n")
    data = second + cut + third + torn_old + old_style
    write_spool(journal, [data])
    journaldb.ingest(journal)
    assert [uid for _, uid in stored(journal)] == ["u-2", "u-3", "u-4"]
    kept = torn(journal)
    assert [(o, n) for o, n, _, _ in kept] == [
        (len(second) + 1, len(cut) - 1),
        (len(second) + len(cut) + len(third), len(torn_old)),
    ]
    assert kept[0][3] == cut.lstrip(b"\n") and kept[1][3] == torn_old
    assert all(reason.startswith(("not JSON", "torn")) for _, _, reason, _ in kept)


def test_a_torn_last_line_is_kept_aside_with_its_offset(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    good = line(1)
    write_spool(journal, [good, line(2)[:-30]])
    journaldb.ingest(journal)
    assert [uid for _, uid in stored(journal)] == ["u-1"]
    ((offset, length, reason, data),) = torn(journal)
    assert offset == len(good) + 1 and reason.startswith("torn (no newline")
    assert data == line(2)[1:-30]


def test_garbage_and_forged_lines_are_kept_aside_never_believed(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(1)])
    journaldb.ingest(journal)
    original = journaldb.query(journal)[0]
    forged_replay = line(1, decision="proceed", answer="proceed", reason="forged")  # a journaled uid, new content
    lines = [
        b"\x00\x01binary garbage\xff\n",
        b"[1, 2, 3]\n",
        b'{"at": "2026-12-01T10:00:00Z", "decision": "proceed"}\n',  # no uid, no envelope
        json.dumps({"uid": 7, "at": "x", "harness": "h", "event": "e", "decision": "d", "envelope": {}}).encode()
        + b"\n",
        '{"at":"2026","reason":"caf\u00e9"}\n'.encode("utf-8"),  # the hook writes ASCII only
        forged_replay,
        line(1),  # the same record again (a spool replayed after a crash): nothing new, nothing kept aside
        line(2, id=1, uid="u-2"),  # a record trying to choose its own id
    ]
    write_spool(journal, lines)
    journaldb.ingest(journal)
    rows = journaldb.query(journal)
    assert [r["uid"] for r in rows] == ["u-1", "u-2"]
    assert rows[0] == original  # the forged replay changed nothing
    assert rows[1]["id"] > rows[0]["id"]  # the database numbers records, never the line
    reasons = [reason for _, _, reason, _ in torn(journal)]
    assert len(reasons) == 6, reasons
    assert reasons[0].startswith("not ASCII") and reasons[4].startswith("not ASCII")
    assert reasons[1] == "a JSON list, not a record"
    assert reasons[2] == "not a journal record (no uid, harness, event)"
    assert reasons[3].startswith("not a journal record (no uid")
    assert reasons[5] == "uid u-1 already journaled with different content"
    offsets = [o for o, _, _, _ in torn(journal)]
    assert offsets[0] == 0 and offsets[5] == sum(len(x) for x in lines[:5]) + 1


def test_a_huge_line_without_newline_is_skipped_in_bounded_reads(tmp_path, monkeypatch):
    journal = str(tmp_path / "j.sqlite3")
    monkeypatch.setattr(journaldb, "MAX_LINE", 1000)
    monkeypatch.setattr(journaldb, "KEEP_BYTES", 100)
    write_spool(journal, [line(1), b"x" * 5000 + b"\n", line(2)])
    journaldb.ingest(journal)
    assert [uid for _, uid in stored(journal)] == ["u-1", "u-2"]
    ((offset, length, reason, data),) = torn(journal)
    assert offset == len(line(1)) and length == 5001 and reason.startswith("garbage") and data == b"x" * 100


def test_torn_lines_are_reported_by_journal_and_doctor(tmp_path, cli):
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(1), b"garbage\n", line(2)])
    listing = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "--journal", journal], capture_output=True, text=True, timeout=60
    )
    assert listing.returncode == 0 and listing.stdout.count("\n") == 2
    assert "1 spool line(s) were not journal records" in listing.stderr and "pasture journal torn" in listing.stderr
    shown = cli("journal", "torn", "--journal", journal)
    assert f"byte {len(line(1))} (7 bytes) of spool" in shown.stdout and "garbage" in shown.stdout
    from pasture.doctor.runtime_view import journal_torn

    count, first = journal_torn(journal)
    assert count == 1 and first.startswith(f"byte {len(line(1))} of spool")


def test_doctor_names_the_torn_lines_and_the_command(tmp_path):
    from pasture.doctor.run import _runtime_findings

    env = _user_policy(tmp_path, "")
    journal = env["PASTURE_JOURNAL"]
    write_spool(journal, [b"garbage\n", line(1)])
    journaldb.ingest(journal)
    (tmp_path / ".git").mkdir()
    found = [f for f in _runtime_findings(str(tmp_path), str(tmp_path), env) if f.check == "journal"]
    (warn,) = [f for f in found if f.status == "warn"]
    assert "1 spool line(s)" in warn.message and "the first at byte 0 of spool" in warn.message
    assert warn.fix == f"pasture journal torn --journal {journal}"


# --- queries ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("column", ["session", "event", "decision", "harness", "layer", "rule", "since"])
def test_every_filter_runs_on_an_index(tmp_path, column):
    journal = str(tmp_path / "j.sqlite3")
    conn = journaldb.connect(journal)
    filters = {column: "2026-12-01T00:00:00Z" if column == "since" else "x"}
    condition, params = journaldb.where(filters)
    plan = " ".join(str(r) for r in conn.execute(f"EXPLAIN QUERY PLAN SELECT count(*) FROM events{condition}", params))
    limited = " ".join(
        str(r)
        for r in conn.execute(f"EXPLAIN QUERY PLAN SELECT id FROM events{condition} ORDER BY id DESC LIMIT 10", params)
    )
    conn.close()
    index = "events_at" if column == "since" else f"events_{column}"
    assert f"INDEX {index}" in plan, plan  # a count reads the index alone
    # newest N: the index backwards (rowid order within a key), never a sort of every match; for a
    # time range SQLite may instead walk the ids backwards (times grow with ids), also without a sort
    assert (f"INDEX {index}" in limited or column == "since") and "TEMP B-TREE" not in limited, limited


def test_filters_limit_and_time_range(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(n, at=f"2026-12-0{1 + n % 3}T10:00:00Z") for n in range(60)])
    everything = journaldb.query(journal)
    assert len(everything) == 60
    for key, value in (
        ("session", "s3"),
        ("decision", "deny"),
        ("layer", "user"),
        ("rule", "r"),
        ("harness", "claude-code"),
        ("event", "PreToolUse"),
    ):
        got = journaldb.query(journal, **{key: value})
        assert got == [r for r in everything if r[key] == value] and got
    newest = journaldb.query(journal, decision="deny", limit=3)
    assert [r["uid"] for r in newest] == [r["uid"] for r in everything if r["decision"] == "deny"][-3:]
    ranged = journaldb.query(journal, since="2026-12-02T00:00:00Z", until="2026-12-03T00:00:00Z")
    assert ranged == [r for r in everything if r["at"].startswith("2026-12-02")]


def test_journal_command_filters_count_and_time_forms(tmp_path, cli):
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(n, at=f"2026-12-0{1 + n % 3}T10:00:00Z") for n in range(30)])
    args = ["--count", "--decision", "proceed", "--since", "2026-12-02", "--until", "2026-12-03T00:00:00Z"]
    fast = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "--journal", journal, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )  # without click (pasture.journal.view)
    slow = cli("journal", "--journal", journal, *args)  # through click
    assert fast.stdout == slow.stdout == "10\n"  # proceed on 12-02 only: n % 3 == 1
    assert cli("journal", "--journal", journal, "--count", "--until", "2026-12-02").stdout == "10\n"
    assert cli("journal", "--journal", journal, "--count", "--rule", "r").stdout == "10\n"
    bad = cli("journal", "--journal", journal, "--since", "yesterday")
    assert bad.exit_code == 2 and "is not a time" in bad.output


# --- retention -------------------------------------------------------------------------------------


def _user_policy(tmp_path, text: str) -> dict:
    policy = tmp_path / "user-policy.toml"
    policy.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASTURE_", "CLAUDE_"))}
    env.update(
        PASTURE_POLICY=str(policy),
        PASTURE_MANAGED_POLICY=str(tmp_path / "none.toml"),
        PASTURE_TRUST_STORE=str(tmp_path / "trust.json"),
        PASTURE_CACHE_DIR=str(tmp_path / "cache"),
        PASTURE_JOURNAL=str(tmp_path / "j.sqlite3"),
        HOME=str(tmp_path),
    )
    return env


def test_readers_apply_keep_days_and_journal_the_deletion(tmp_path):
    env = _user_policy(tmp_path, "[journal]\nkeep_days = 30\n")
    journal = env["PASTURE_JOURNAL"]
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 40 * 86400))
    new = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 86400))
    write_spool(journal, [line(n, at=old) for n in range(5)] + [line(n, at=new) for n in range(5, 8)])
    journaldb.ingest(journal)
    assert len(stored(journal)) == 8  # ingest alone keeps everything: retention is the readers' job
    listing = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    rows = json.loads(listing.stdout)
    assert [r["uid"] for r in rows[:3]] == ["u-5", "u-6", "u-7"]
    prune_row = rows[3]
    assert (prune_row["event"], prune_row["harness"], prune_row["decision"]) == ("journal.prune", "pasture", "observe")
    assert prune_row["detail"]["deleted"] == 5 and "older than 30 day(s)" in prune_row["reason"]


def test_the_hook_path_never_prunes(tmp_path):
    from hookrun import call

    env = _user_policy(tmp_path, "[journal]\nkeep_days = 1\n")
    journal = env["PASTURE_JOURNAL"]
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 10 * 86400))
    write_spool(journal, [line(n, at=old) for n in range(3)])
    journaldb.ingest(journal)
    call("claude-code", "SessionStart", "2.1.328", {"session_id": "b"}, env)
    assert len(stored(journal)) == 3  # the hook appended to the spool and deleted nothing
    assert os.path.getsize(spool_path(journal)) > 0


def test_max_mb_deletes_the_oldest_until_the_data_fits(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    big = "x" * 4000
    write_spool(journal, [line(n, reason=big) for n in range(600)])
    journaldb.ingest(journal)
    from pasture.journal.retention import prune

    done = prune(journal, max_mb=1)
    conn = sqlite3.connect(journal)
    used = (
        conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
    ) * conn.execute("PRAGMA page_size").fetchone()[0]
    uids = [r[0] for r in conn.execute("SELECT uid FROM events ORDER BY id")]
    conn.close()
    assert used <= 1024 * 1024 and done["deleted"] > 300
    assert uids[-2] == "u-599" and uids[-1].startswith("prune-")  # newest kept, then the prune's own record
    assert uids[0] == f"u-{done['deleted']}"  # the oldest went first
    assert os.path.getsize(journal) < 1.5 * 1024 * 1024  # a new journal gives the pages back (auto_vacuum)


def test_retention_is_for_the_user_and_managed_layers_only():
    from pasture.runtime.policy import PolicyError, compile_layer

    user = compile_layer("user", "/u.toml", b"[journal]\nkeep_days = 7\nmax_mb = 100\n", "/p", True)
    assert user["retention"] == {"keep_days": 7.0, "max_mb": 100.0}
    project = compile_layer("project", "/p/.pasture/policy.toml", b"[journal]\nkeep_days = 1\n", "/p", True)
    assert project["retention"] == {} and any("keep_days" in note for note in project["ignored"])
    with pytest.raises(PolicyError, match=r"/u.toml:2: \[journal\] max_mb must be a positive number"):
        compile_layer("user", "/u.toml", b'[journal]\nmax_mb = "big"\n', "/p", True)


def test_managed_retention_outranks_the_users(tmp_path):
    from pasture.runtime.effective import load

    env = _user_policy(tmp_path, "[journal]\nkeep_days = 7\nmax_mb = 10\n")
    managed = tmp_path / "managed.toml"
    managed.write_text("[journal]\nkeep_days = 365\n")
    env["PASTURE_MANAGED_POLICY"] = str(managed)
    (tmp_path / ".pasture").mkdir()
    (tmp_path / ".pasture" / "policy.toml").write_text("[journal]\nkeep_days = 1\n")
    assert load(str(tmp_path), env).retention == {"keep_days": 365.0, "max_mb": 10.0}


def test_policy_show_names_the_retention_and_the_ignored_project_setting(tmp_path, monkeypatch, cli):
    env = _user_policy(tmp_path, "[journal]\nkeep_days = 30\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".pasture").mkdir()
    (tmp_path / ".pasture" / "policy.toml").write_text("[journal]\nmax_mb = 1\n")
    for key in [k for k in os.environ if k.startswith(("PASTURE_", "CLAUDE_"))]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    shown = cli("policy", "show", "--project", str(tmp_path))
    assert "retention: keep_days = 30 (applied by pasture journal and pasture journal prune)" in shown.stdout
    assert "ignored: [journal] max_mb (only the user or managed policy sets retention)" in shown.stdout
    as_json = json.loads(cli("policy", "show", "--project", str(tmp_path), "--json").stdout)
    assert as_json["retention"] == {"keep_days": 30.0}


def test_prune_without_retention_says_how_to_set_it(tmp_path, cli):
    result = cli("journal", "prune", "--journal", str(tmp_path / "j.sqlite3"))
    assert result.exit_code == 2 and "[journal] keep_days / max_mb" in result.output


# --- hostile values in every output format ---------------------------------------------------------

HOSTILE = {
    "surrogate": "lone \ud800 and \udfff",
    "control": "line\nforged   99 2026-12-01T00:00:00Z claude-code PreToolUse decision=proceed\r\x1b[2J\x07",
    "bidi": "abc\u202edcba\u2066",
    "formula": '=HYPERLINK("http://127.0.0.1/x","y")',
    "huge": "h" * (1 << 20),
}


def _deep(depth: int):
    value = "bottom"
    for _ in range(depth):
        value = [value]
    return value


@pytest.fixture
def hostile_journal(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    envelope = {
        "harness": "claude-code",
        "event": "PreToolUse",
        "identities": {"session": HOSTILE["surrogate"]},
        "tool_name": "Bash",
        "tool_input": {**HOSTILE, "deep": _deep(900)},
    }
    for name, value in HOSTILE.items():
        record(
            journal,
            envelope,
            decision="deny",
            answer="deny",
            gate=None,
            reason=value,
            failure=value,
            runtime_ms=1.0,
            layer=value[:50],
            rule=name,
            detail={"why": value},
        )
    return journal, envelope


def _expected_text(value: str) -> str:
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


def test_json_and_jsonl_carry_every_hostile_value(hostile_journal, tmp_path):
    journal, envelope = hostile_journal
    listing = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "--journal", journal, "--json"],
        capture_output=True,
        timeout=120,
        env=dict(os.environ, LC_ALL="C", PYTHONIOENCODING=""),
    )
    assert listing.returncode == 0, listing.stderr
    rows = json.loads(listing.stdout)
    assert [r["rule"] for r in rows] == list(HOSTILE)
    for row, value in zip(rows, HOSTILE.values(), strict=True):
        assert row["reason"] == _expected_text(value)
        assert row["envelope"]["tool_input"]["surrogate"] == HOSTILE["surrogate"]  # the envelope, exactly
        assert row["detail"] == {"why": value}
    out = tmp_path / "out.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pasture",
            "journal",
            "export",
            "--journal",
            journal,
            "--format",
            "jsonl",
            "-o",
            str(out),
        ],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = out.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == len(HOSTILE) + 1
    for raw in lines[:-1]:
        row = json.loads(raw)
        assert row["envelope"]["tool_input"]["huge"] == HOSTILE["huge"]
        node = row["envelope"]["tool_input"]["deep"]
        for _ in range(900):
            node = node[0]
        assert node == "bottom"


def test_text_mode_keeps_one_line_per_record_and_no_control_characters(hostile_journal):
    journal, _ = hostile_journal
    listing = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "--journal", journal], capture_output=True, timeout=120
    )
    assert listing.returncode == 0, listing.stderr
    text = listing.stdout.decode("utf-8")
    assert text.count("\n") == len(HOSTILE)
    assert not any(c in text for c in "\r\x1b\x07\u202e\u2066")
    assert "line\\nforged" in text and "\\x1b[2J" in text and "\\u202e" in text


def test_csv_quotes_everything_and_defuses_formulas(hostile_journal):
    journal, _ = hostile_journal
    done = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "export", "--journal", journal, "--format", "csv"],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    csv.field_size_limit(1 << 24)  # the reader's own limit: the huge value is one 1 MiB cell
    table = list(csv.reader(io.StringIO(done.stdout.decode("utf-8"), newline="")))
    header, rows = table[0], table[1:]
    assert header == list(journaldb.COLUMNS) and len(rows) == len(HOSTILE)
    reason = header.index("reason")
    assert rows[1][reason] == HOSTILE["control"]  # newlines survive, quoted
    assert rows[3][reason] == "'" + HOSTILE["formula"]  # a spreadsheet shows it, never runs it
    assert json.loads(rows[0][header.index("envelope")])["tool_input"]["surrogate"] == HOSTILE["surrogate"]


FORMULAS = [
    "\r=1+1",  # a CR: unquoted, a reader starts a new row whose first cell is =1+1
    "x\r=1+1",
    "x\n@SUM(A1)",
    " =1+1",
    "\x00=1+1",
    "\x1b+2",
    "\u200b\u202e-3+4",  # zero-width and bidi marks before it
    "\t=1",
    "\r",
    '",=cmd|"/c calc"!A1',
    "@",
]


def _first_visible(cell: str) -> str:
    import unicodedata

    rest = cell.lstrip("".join(c for c in set(cell) if c.isspace() or unicodedata.category(c) in ("Cc", "Cf")))
    return rest[:1]


def test_csv_quotes_every_field_and_no_cell_starts_a_formula_after_blanks_or_controls(tmp_path):
    journal = str(tmp_path / "j.sqlite3")
    envelope = {"harness": "claude-code", "event": "PreToolUse", "tool_name": "Bash", "tool_input": {}}
    for value in FORMULAS:
        record(
            journal,
            envelope,
            decision="deny",
            answer="deny",
            gate=None,
            reason=value,
            failure=None,
            runtime_ms=1.0,
            rule=value,
            layer="user",
        )
    done = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "export", "--journal", journal, "--format", "csv"],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    table = list(csv.reader(io.StringIO(text, newline="")))
    header, rows = table[0], table[1:]
    assert len(rows) == len(FORMULAS)  # no value started a row of its own
    assert all(row and len(row) == len(header) for row in rows)
    for row in rows:
        for cell in row:
            assert _first_visible(cell) not in ("=", "+", "-", "@"), repr(cell)
            assert not cell.startswith(("\t", "\r")), repr(cell)
    by_rule = {row[header.index("rule")]: row[header.index("reason")] for row in rows}
    assert by_rule["'\r=1+1"] == "'\r=1+1" and by_rule["x\r=1+1"] == "x\r=1+1"  # quoted: the CR stays inside
    assert by_rule['",=cmd|"/c calc"!A1'] == '",=cmd|"/c calc"!A1'  # its first visible character is a quote
    # every field is quoted, the header's too: quoting all of what was read gives the same bytes
    again = io.StringIO()
    csv.writer(again, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows(table)
    assert again.getvalue() == text


def test_a_stored_value_that_is_not_json_still_reads(tmp_path):
    """A database edited by hand (an envelope that is not JSON): every format still answers."""
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(1)])
    journaldb.ingest(journal)
    conn = sqlite3.connect(journal)
    conn.execute("UPDATE events SET envelope = ?, detail = ?", ('{"broken', "[" * 5000 + "]" * 5000))
    conn.commit()
    conn.close()
    for args in (["--json"], [], ["export", "--format", "jsonl"], ["export", "--format", "csv"]):
        got = subprocess.run(
            [sys.executable, "-m", "pasture", "journal", *args[:3], "--journal", journal, *args[3:]]
            if args[:1] == ["export"]
            else [sys.executable, "-m", "pasture", "journal", "--journal", journal, *args],
            capture_output=True,
            timeout=60,
        )
        assert got.returncode == 0, (args, got.stderr)
        if args == ["--json"]:
            (row,) = journaldb.deep(json.loads, got.stdout.decode())  # valid JSON, 5,000 levels deep
            assert row["envelope"] == '{"broken'  # not JSON: kept as a string, never a broken document
            depth, node = 0, row["detail"]
            while node:
                node, depth = node[0], depth + 1
            assert depth == 4999 and node == []  # the hand-made 5,000 levels, all of them


def test_a_journal_that_cannot_be_ingested_is_read_as_it_stands(tmp_path, monkeypatch):
    """The database read as it is, then the spool's records (filters and --limit apply to both)."""
    journal = str(tmp_path / "j.sqlite3")
    write_spool(journal, [line(n) for n in range(6)])
    journaldb.ingest(journal)
    write_spool(journal, [line(n) for n in range(6, 12)] + [b"garbage\n"])

    def refuse(path, batch=0):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(journaldb, "ingest", refuse)
    rows = journaldb.query(journal)
    assert [r["uid"] for r in rows] == [f"u-{n}" for n in range(12)]
    assert [r["id"] for r in rows] == [1, 2, 3, 4, 5, 6] + [None] * 6  # not journaled yet: no id
    newest = journaldb.query(journal, decision="deny", limit=3)
    assert [r["uid"] for r in newest] == ["u-3", "u-6", "u-9"]
    assert os.path.getsize(spool_path(journal)) > 0  # nothing was removed
