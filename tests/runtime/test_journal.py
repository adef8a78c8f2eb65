"""The journal: written before the answer, and nothing lost with 8 concurrent hook processes."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from pasture.journal.db import query
from pasture.runtime.lifecycle import run


class _CheckingStdout(io.BytesIO):
    """Records how many journal records exist (read by a separate reader) when the first byte is written."""

    def __init__(self, journal):
        super().__init__()
        self.journal = journal
        self.rows_at_first_write = None

    def write(self, data):
        if self.rows_at_first_write is None and data:
            self.rows_at_first_write = len(query(self.journal))
        return super().write(data)


def test_written_before_the_first_byte(env, tmp_path):
    out = _CheckingStdout(str(tmp_path / "journal.sqlite3"))
    payload = json.dumps({"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "echo > probe"}}).encode()
    code = run(
        ["--harness", "claude-code", "--event", "PreToolUse", "--host-version", "2.1.328"],
        io.BytesIO(payload),
        out,
        io.BytesIO(),
        env,
    )
    assert code == 0 and out.getvalue()
    assert out.rows_at_first_write == 1


def test_eight_concurrent_hook_processes_lose_nothing(env, tmp_path):
    per_process = 15
    script = (
        "import io, json, sys\n"
        "from pasture.runtime.lifecycle import run\n"
        "worker = sys.argv[1]\n"
        f"for i in range({per_process}):\n"
        "    body = json.dumps({'session_id': worker, 'turn_id': str(i), 'tool_name': 'Bash',\n"
        "                       'tool_input': {'command': 'ls'}, 'tool_use_id': f'{worker}-{i}'}).encode()\n"
        "    code = run(['--harness', 'codex', '--event', 'PreToolUse', '--host-version', '0.171.0'],\n"
        "               io.BytesIO(body), io.BytesIO(), io.BytesIO(), dict(__import__('os').environ))\n"
        "    assert code == 0, code\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, f"w{n}"], env=env) for n in range(8)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    rows = query(tmp_path / "journal.sqlite3")
    assert len(rows) == 8 * per_process
    calls = {r["envelope"]["identities"]["tool-call"] for r in rows}
    assert len(calls) == 8 * per_process
    assert {r["failure"] for r in rows} == {None}


def test_journal_command_filters_and_prints_json(env, tmp_path, cli):
    from hookrun import call

    call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "a", "tool_name": "Bash", "tool_input": {"command": "echo > probe"}},
        env,
    )
    call("claude-code", "SessionStart", "2.1.328", {"session_id": "b"}, env)
    journal = str(tmp_path / "journal.sqlite3")
    result = cli("journal", "--journal", journal, "--decision", "deny", "--json")
    rows = json.loads(result.stdout)
    assert [(r["session"], r["event"], r["answer"]) for r in rows] == [("a", "PreToolUse", "deny")]
    result = cli("journal", "--journal", journal, "--session", "b")
    assert result.exit_code == 0 and "SessionStart session=b decision=observe answer=proceed" in result.stdout
    assert "no journal entries" in cli("journal", "--journal", str(tmp_path / "none.sqlite3")).stdout


def test_threads_of_one_process_never_share_a_record_id(tmp_path):
    """The OpenCode server journals from several threads: every record keeps its own id (a shared id
    would make the ingest drop one of them)."""
    import threading

    from pasture.runtime.journal import record

    path = tmp_path / "journal.sqlite3"
    envelope = {"harness": "opencode", "event": "tool.execute.before", "identities": {}}

    def worker(n: int) -> None:
        for i in range(50):
            record(
                path,
                dict(envelope, identities={"session": f"{n}-{i}"}),
                decision="proceed",
                answer="proceed",
                gate=None,
                reason=None,
                failure=None,
                runtime_ms=0.1,
            )

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = query(path)
    assert len(rows) == 400 and len({r["uid"] for r in rows}) == 400
