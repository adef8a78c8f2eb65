"""`pasture hook serve`: the long-lived JSON-lines runtime of the OpenCode plugin (pasture/runtime/serve.py).

In process (a Server over byte streams) for the protocol, and as a real subprocess for what only a
process shows: EOF drain with the reader gone, signals, and twelve gate calls in flight at once.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hookrun import call, write_policy

from pasture.journal.db import query
from pasture.runtime import serve
from pasture.runtime.serve import Server

VERSION = "1.18.33"
TOOL = {
    "event": "tool.execute.before",
    "input": {"tool": "bash", "sessionID": "ses_1", "callID": "call_1"},
    "output": {"args": {"command": "echo probe > probe.txt"}},
}
IDLE = {"event": "session.idle", "input": {"id": "e1", "type": "session.idle", "properties": {"sessionID": "ses_1"}}}


def _rows() -> dict:
    _, rows, _ = serve.contract_rows("opencode", VERSION)
    return rows


def _gates() -> list[str]:
    return [name for name, row in _rows().items() if row.semantic == "gate-consultation"]


def _refusable() -> list[str]:
    """The gate rows where a deny changes what the host does (the profile's evidenced refusals)."""
    from pasture.runtime.answer import can_deny

    return [name for name in _gates() if can_deny("opencode", _rows()[name])]


# The built-in guard rules (protect_guard_files) judge the tool rows whatever the policy says: the
# refusable rows that carry a tool call (with today's profile, tool.execute.before).
BUILTIN = [name for name in _refusable() if any(i.kind == "tool-call" for i in _rows()[name].identities)]


def req(rid, event: str, payload, wait: bool = True) -> bytes:
    return (
        json.dumps({"id": rid, "event": event, "wait": wait, "payload": payload}, separators=(",", ":")).encode()
        + b"\n"
    )


def run(lines: list[bytes], env: dict, version: str = VERSION) -> tuple[int, list[dict]]:
    out = io.BytesIO()
    code = Server("opencode", version, io.BytesIO(b"".join(lines)), out, env).serve()
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def by_id(messages: list[dict]) -> dict:
    """Replies by request id: awaited requests run on threads of their own and finish in any order."""
    return {m["id"]: m for m in messages if "id" in m}


def journal(tmp_path: Path) -> list[dict]:
    return query(tmp_path / "journal.sqlite3")


# --- handshake and the await set ----------------------------------------------------------------


def test_handshake_names_the_contract_and_every_gate_row_a_rule_may_refuse(env):
    code, (hello,) = run([], env)
    assert code == 0
    assert hello == {
        "pasture": "hook-serve",
        "protocol": 1,
        "harness": "opencode",
        "host_version": VERSION,
        "contract": "opencode@1.18.33",
        "note": "",
        "await": _refusable(),
    }
    # a deny after the fact is delivered as proceed: tool.execute.after never waits for a rule
    assert "tool.execute.before" in hello["await"] and "tool.execute.after" not in hello["await"]
    assert "session.idle" not in hello["await"]


OFF = "[builtin]\nprotect_guard_files = false\n"


@pytest.mark.parametrize(
    "policy, expected",
    [
        (None, BUILTIN),
        (OFF, []),
        (
            OFF + '[gate]\nevents = ["tool.execute.before", "PreToolUse"]\n[[rules]]\nname = "n"\ndecision = "deny"\n'
            'command = "x"\n',
            ["tool.execute.before"],
        ),
        (
            OFF + '[[rules]]\nname = "n"\ndecision = "deny"\nevent = ["tool.execute.before", "chat.message"]\n',
            [e for e in _refusable() if e in ("chat.message", "tool.execute.before")],
        ),  # where a deny can refuse
        (OFF + '[[rules]]\nname = "n"\ndecision = "deny"\nevent = "tool.execute.after"\n', []),  # after the fact
        ('[[rules]]\nname = "codex-only"\ndecision = "deny"\nharness = "codex"\n', BUILTIN),
        ('[[rules]]\nname = "only-proceeds"\ndecision = "proceed"\n', BUILTIN),
        ('[[rules]]\nname = "obs"\ndecision = "deny"\nsemantic = "observation"\n', BUILTIN),
        (
            '[gate]\nkind = "command"\ncommand = ["/bin/true"]\nevents = ["tool.execute.after"]\n',
            [*BUILTIN, "tool.execute.after"],
        ),  # a gate that fails there throws: it waits
        ('[gate]\ndefault = "ask"\n', "refusable"),
        ('[gate]\nkind = "command"\ncommand = ["/bin/true"]\n', "all"),
        ("this is [not toml", "all"),  # invalid: every gate row fails closed, so each is awaited
        # steering (issue 17): the rows an [[after]] / [[context]] entry answers wait for the answer
        (OFF + '[[after]]\nname = "a"\ncommand = ["x"]\n', ["tool.execute.after"]),
        (
            OFF + '[[context]]\nname = "c"\non = "prompt"\ntext = "t"\n',
            ["experimental.chat.system.transform"],
        ),
        (OFF + '[[until]]\nname = "u"\ncommand = ["x"]\n', []),  # OpenCode offers no continuation
        (OFF + '[[rules]]\nname = "r"\ndecision = "allow"\ncommand = "x"\n', _refusable()),
    ],
)
def test_await_set_follows_the_policy(env, tmp_path, policy, expected):
    if policy is None:
        env = {k: v for k, v in env.items() if k != "PASTURE_POLICY"}
    else:
        write_policy(tmp_path, policy)
    _, (hello,) = run([], env)
    pool = {"all": _gates(), "refusable": _refusable()}
    want = pool[expected] if isinstance(expected, str) else [e for e in _gates() if e in expected]
    assert hello["await"] == want


def test_an_untrusted_project_command_gate_is_not_waited_for(env, tmp_path):
    """The project layer's command gate only runs once the user trusted it; until then only its rules count."""
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".pasture" / "policy.toml").write_text('[gate]\nkind = "command"\ncommand = ["/bin/false"]\n')
    env = {k: v for k, v in env.items() if k != "PASTURE_POLICY"}
    cwd = os.getcwd()
    os.chdir(project)
    try:
        _, (hello,) = run([], env)
    finally:
        os.chdir(cwd)
    assert hello["await"] == BUILTIN


def test_unknown_host_version_is_observe_only(env, tmp_path):
    code, (hello, reply) = run([req(1, "tool.execute.before", TOOL)], env, version="0.0.1")
    assert hello["contract"] is None and hello["await"] == []
    assert "no contract admits opencode 0.0.1" in hello["note"] and "observe-only" in hello["note"]
    assert reply["exit"] == 0 and json.loads(reply["stdout"]) == {"decision": "proceed"}
    assert journal(tmp_path)[-1]["decision"] == "observe"


def test_tables_that_cannot_load_give_one_line_and_exit_70(env, monkeypatch):
    def broken(*_args):
        raise ModuleNotFoundError("No module named 'pasture_contracts'")

    monkeypatch.setattr(serve, "contract_rows", broken)
    code, (hello,) = run([req(1, "tool.execute.before", TOOL)], env)
    assert code == 70
    assert hello == {
        "pasture": "hook-serve",
        "protocol": 1,
        "error": (
            "pasture: cannot load the generated contract tables (ModuleNotFoundError: No module named "
            "'pasture_contracts'); fix: pip install --force-reinstall pasture, then pasture install "
            "opencode again"
        ),
    }


def test_usage_error_is_a_handshake_error_and_exit_2(env):
    done = subprocess.run(
        [sys.executable, "-m", "pasture.entry", "hook", "serve", "--harness", "opencode"],
        input=b"",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout) == {"pasture": "hook-serve", "protocol": 1, "error": f"pasture: {serve.USAGE}"}


# --- requests -----------------------------------------------------------------------------------


def test_reply_is_exactly_what_hook_lifecycle_prints(env, tmp_path):
    code, (_, reply) = run([req(7, "tool.execute.before", TOOL)], env)
    assert code == 0
    one_shot = call("opencode", "tool.execute.before", VERSION, TOOL, env)
    assert (reply["id"], reply["exit"], reply["stdout"], reply["stderr"]) == (7, *one_shot)
    assert reply["answer"] == "deny"
    assert json.loads(reply["stdout"]) == {"decision": "deny", "reason": "probe files are off limits"}
    rows = journal(tmp_path)
    assert [(r["event"], r["decision"]) for r in rows] == [("tool.execute.before", "deny")] * 2


def test_unawaited_requests_are_answered_and_journaled_in_arrival_order(env, tmp_path):
    events = [("session.idle", IDLE), ("tool.execute.before", TOOL), ("session.status", IDLE)] * 5
    lines = [req(i + 1, event, payload, wait=False) for i, (event, payload) in enumerate(events)]
    _, (_, *replies) = run(lines, env)
    assert [r["id"] for r in replies] == list(range(1, 16))
    rows = journal(tmp_path)
    assert [r["event"] for r in rows] == [e for e, _ in events]


@pytest.mark.parametrize(
    "line, expected",
    [
        (b"not json at all\n", {"id": None, "error": "malformed request line (line is not JSON (not JSON))"}),
        (b"[1, 2]\n", {"id": None, "error": "malformed request line (a JSON array, not an object)"}),
        (b"null\n", {"id": None, "error": "malformed request line (a JSON null, not an object)"}),  # crashed the server
        (
            b'{"event": "tool.execute.before", "payload": {}}\n',
            {"id": None, "error": "malformed request line (no integer id)"},
        ),
        (
            b'{"id": true, "event": "tool.execute.before", "payload": {}}\n',
            {"id": None, "error": "malformed request line (no integer id)"},
        ),
        (b'{"id": 3, "wait": true, "payload": {}}\n', {"id": 3, "error": "malformed request (no event name)"}),
        (
            b'{"id": 4, "event": "\xff"}\n',
            {"id": 4, "error": "malformed request line (line is not JSON (UnicodeDecodeError))"},
        ),
    ],
)
def test_a_line_that_names_no_event_gets_an_error_and_no_journal_row(env, tmp_path, line, expected):
    _, (_, reply, after) = run([line, req(9, "session.idle", IDLE, wait=False)], env)  # both on the reader's order
    assert reply == expected
    assert after["id"] == 9 and after["exit"] == 0  # the server kept going
    assert [r["event"] for r in journal(tmp_path)] == ["session.idle"]


@pytest.mark.parametrize(
    "line, failure",
    [
        (
            b'{"id":5,"event":"tool.execute.before","wait":true,"payload":[1,2]}\n',
            "payload is a JSON array, not an object",
        ),
        (
            b'{"id":5,"event":"tool.execute.before","wait":true,"payload":{"broken": }\n',
            "payload is not JSON (not JSON)",
        ),
        (
            b'{"id":5,"event":"tool.execute.before","wait":true,"payload_error":"could not encode it"}\n',
            "could not encode it",
        ),
        (b'{"id":5,"event":"tool.execute.before","wait":true}\n', "request carries no payload"),
        (
            b'{"id":5,"event":"tool.execute.before","wait":true,"payload":' + b"[" * 100000 + b"]" * 100000 + b"}\n",
            "payload is not JSON (nested too deeply)",
        ),
    ],
)
def test_a_bad_payload_gets_the_rows_failure_mode_and_is_journaled(env, tmp_path, line, failure):
    _, (_, reply) = run([line], env)
    assert reply["id"] == 5
    assert (reply["exit"], reply["answer"]) == (3, "fail-block")  # throw-fail-fast
    # the line for the model (the plugin throws with it) on stdout, the user's copy on stderr
    assert json.loads(reply["stdout"]) == {"failure": f"tool.execute.before: {failure}"}
    assert reply["stderr"] == f"pasture: tool.execute.before: {failure}\n"
    (row,) = journal(tmp_path)
    assert (row["event"], row["decision"], row["failure"]) == ("tool.execute.before", "none", failure)


DEEP = b"[" * 100000 + b"]" * 100000
DEEP_FAILURE = "payload is not JSON (nested too deeply)"


@pytest.mark.parametrize(
    "line",
    [
        # spaced as json.dumps writes it: no compact ',"payload":' marker to cut at
        b'{"id": 20, "event": "tool.execute.before", "wait": true, "payload": ' + DEEP + b"}\n",
        # the nesting before the event, inside the head
        b'{"id": 20, "x": [[[["a]", {"b": "}"}]]]], "event": "tool.execute.before", "wait": true, "payload": '
        + DEEP
        + b"}\n",
        # members in another order, escapes in the keys' strings
        b'{"wait": true, "event": "tool.execute.before", "note": "a \\" quote", "id": 20, "payload": ' + DEEP + b"}\n",
        # not waited for: answered all the same
        b'{"id": 20, "event": "tool.execute.before", "payload": ' + DEEP + b"}\n",
        # a bad member after the payload
        b'{"id": 20, "event": "tool.execute.before", "wait": true, "payload": {"a": 1}, "oops"\n',
        # a number too long to convert
        b'{"id": 20, "event": "tool.execute.before", "wait": true, "payload": {"n": ' + b"1" * 5000 + b"}}\n",
    ],
)
def test_a_line_that_fails_to_parse_is_answered_with_its_id_in_the_rows_failure_mode(env, tmp_path, line):
    _, (_, reply) = run([line], env)
    assert reply["id"] == 20
    assert (reply["exit"], reply["answer"]) == (3, "fail-block")  # throw-fail-fast, never the plugin's 60 s wait
    (row,) = journal(tmp_path)
    assert row["event"] == "tool.execute.before" and row["failure"].startswith("payload is not JSON")


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": 26, "x": ' + DEEP + b', "event": "tool.execute.before", "payload": {}}\n',  # event past the nesting
        b'  {"id":26,"event":' + DEEP + b"}\n",
        b'{"id": 26, "wait": true, "oops"\n',
    ],
)
def test_a_line_whose_id_alone_is_readable_gets_an_error_with_that_id(env, tmp_path, line):
    _, (_, reply, after) = run([line, req(9, "session.idle", IDLE, wait=False)], env)
    assert reply["id"] == 26 and reply["error"].startswith("malformed request") and "exit" not in reply
    assert after["id"] == 9


def test_the_head_scanner_reads_only_the_head_and_never_recurses():
    head = serve._scan_head
    assert head(b'{"id": 7, "event": "e", "wait": false, "payload": ' + DEEP) == {"id": 7, "event": "e", "wait": False}
    assert head(b'{"pad": "' + b"x" * serve.HEAD + b'", "id": 7}') is None  # past the head: not read
    assert head(b"[1, 2]") is None and head(b"not json") is None and head(b"") is None
    assert head(b'{"id": 7, "id": 8, "event": "e"}') == {"id": 8, "event": "e"}  # the last wins, as in JSON
    assert head(b'{"id": 7') is None  # a number cut at the end may go on
    assert head(b'{"event": "e", "id": 1e999999}')["event"] == "e"


def test_a_line_over_the_limit_is_attributed_from_its_head_and_the_next_line_still_works(env, tmp_path):
    blob = "x" * (serve.MAX_LINE + 10)
    huge = req(11, "tool.execute.before", {**TOOL, "blob": blob})
    assert len(huge) > serve.MAX_LINE
    _, messages = run([huge, req(12, "tool.execute.before", TOOL)], env)
    first, second = by_id(messages)[11], by_id(messages)[12]
    assert first["exit"] == 3
    assert first["stderr"] == f"pasture: tool.execute.before: payload larger than {serve.MAX_PAYLOAD} bytes\n"
    assert second["answer"] == "deny"
    assert sorted(str(r["failure"]) for r in journal(tmp_path)) == [
        "None",
        f"payload larger than {serve.MAX_PAYLOAD} bytes",
    ]


def test_blank_lines_are_ignored(env, tmp_path):
    _, messages = run([b"\n", b"   \n", req(1, "session.idle", IDLE, wait=False)], env)
    assert [m.get("id") for m in messages[1:]] == [1]


# --- policy changes -----------------------------------------------------------------------------


class Piped:
    """A Server on real pipes in a thread, so a test can talk to it line by line."""

    def __init__(self, env: dict, poll: float = 0.05) -> None:
        rin, self._win = os.pipe()
        self._rout, wout = os.pipe()
        self.writer = os.fdopen(self._win, "wb", buffering=0)
        self.reader = os.fdopen(self._rout, "rb")
        self.server = Server("opencode", VERSION, os.fdopen(rin, "rb"), os.fdopen(wout, "wb"), env, poll_seconds=poll)
        self.thread = threading.Thread(target=self.server.serve, daemon=True)
        self.thread.start()

    def send(self, line: bytes) -> None:
        self.writer.write(line)

    def read(self) -> dict:
        return json.loads(self.reader.readline())

    def close(self) -> None:
        self.writer.close()
        self.thread.join(10)


def test_a_policy_change_is_pushed_and_carried_by_the_next_reply(env, tmp_path):
    policy = Path(env["PASTURE_POLICY"])
    piped = Piped(env)
    try:
        assert piped.read()["await"] == _refusable()
        # a command gate may fail on any gate row it covers, and a failure there can block: it waits
        policy.write_text(OFF + '[gate]\nkind = "command"\ncommand = ["/bin/true"]\nevents = ["chat.message"]\n')
        assert piped.read() == {"await": ["chat.message"]}  # pushed by the poll, no request needed
        piped.send(req(1, "session.idle", IDLE, wait=False))
        assert "await" not in piped.read()  # unchanged since it was last said
    finally:
        piped.close()

    # Without the poll, the next reply carries the change.
    policy.write_text('[[rules]]\nname = "n"\ndecision = "deny"\n')
    piped = Piped(env, poll=3600)
    try:
        assert piped.read()["await"] == _refusable()
        policy.write_text(OFF + '[gate]\nkind = "command"\ncommand = ["/bin/true"]\nevents = ["shell.env"]\n')
        piped.send(req(1, "session.idle", IDLE, wait=False))
        reply = piped.read()
        assert reply["id"] == 1 and reply["await"] == ["shell.env"]
    finally:
        piped.close()


# --- as a process -------------------------------------------------------------------------------


def _spawn(env: dict) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "pasture.entry", "hook", "serve", "--harness", "opencode", "--host-version", VERSION],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def test_eof_drains_every_request_even_when_nobody_reads_the_replies(env, tmp_path):
    proc = _spawn(env)
    assert json.loads(proc.stdout.readline())["pasture"] == "hook-serve"
    proc.stdout.close()  # the host is gone: every reply now hits a closed pipe
    lines = [
        req(i, "session.idle" if i % 3 else "tool.execute.before", IDLE if i % 3 else TOOL, wait=i % 3 == 0)
        for i in range(1, 201)
    ]
    proc.stdin.write(b"".join(lines))
    proc.stdin.close()
    assert proc.wait(120) == 0
    assert b"Traceback" not in proc.stderr.read()
    rows = journal(tmp_path)
    assert len(rows) == 200
    assert sum(r["event"] == "tool.execute.before" for r in rows) == 66  # the awaited ones


def test_sigint_and_sighup_do_not_stop_it(env, tmp_path):
    proc = _spawn(env)
    try:
        assert json.loads(proc.stdout.readline())["pasture"] == "hook-serve"
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGHUP)
        time.sleep(0.2)
        proc.stdin.write(req(1, "tool.execute.before", TOOL))
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["answer"] == "deny"
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0


SLOW_GATE = r"""
import json, os, sys, time
envelope = json.load(sys.stdin)
marks = os.environ["GATE_MARKS"]
tool = envelope["payload"]["input"]["toolID"]
open(os.path.join(marks, tool), "w").close()
until = time.time() + 30
while len(os.listdir(marks)) < 12 and time.time() < until:  # a barrier: all twelve must be running at once
    time.sleep(0.02)
with open(os.path.join(os.environ["GATE_LOG"], tool), "w") as fh:
    fh.write(json.dumps({"tool": tool, "met": len(os.listdir(marks)) >= 12}))
print(json.dumps({"decision": "proceed"}))
"""


def test_twelve_simultaneous_gate_calls_run_at_once_and_each_gets_its_own_reply(env, tmp_path):
    gate = tmp_path / "slow_gate.py"
    gate.write_text(SLOW_GATE)
    write_policy(
        tmp_path, f'[gate]\nkind = "command"\ncommand = ["{sys.executable}", "-I", "-S", "{gate}"]\ntimeout = 45\n'
    )
    (tmp_path / "marks").mkdir()
    (tmp_path / "gate-log").mkdir()
    env = {**env, "GATE_MARKS": str(tmp_path / "marks"), "GATE_LOG": str(tmp_path / "gate-log")}
    proc = _spawn(env)
    try:
        assert "tool.definition" in json.loads(proc.stdout.readline())["await"]
        proc.stdin.write(
            b"".join(
                req(i, "tool.definition", {"event": "tool.definition", "input": {"toolID": f"t{i}"}, "output": {}})
                for i in range(1, 13)
            )
        )
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(12)]
    finally:
        proc.stdin.close()
        proc.wait(60)
    assert sorted(r["id"] for r in replies) == list(range(1, 13))
    assert all(r["exit"] == 0 and r["answer"] == "proceed" for r in replies), replies
    runs = [json.loads(p.read_text()) for p in (tmp_path / "gate-log").iterdir()]
    assert sorted(r["tool"] for r in runs) == sorted(f"t{i}" for i in range(1, 13))
    # each gate waited until all twelve were running: served one at a time, none would have seen that
    assert all(r["met"] for r in runs)
    assert len(journal(tmp_path)) == 12


def test_a_journal_that_cannot_be_written_is_quiet_on_observations_and_fails_closed_on_gates(env, tmp_path):
    (tmp_path / "journal.sqlite3.spool").mkdir()  # every append fails
    _, messages = run([req(1, "session.idle", IDLE, wait=False), req(2, "tool.execute.before", TOOL)], env)
    bus, gate = by_id(messages)[1], by_id(messages)[2]
    assert (bus["exit"], bus["stderr"], json.loads(bus["stdout"])) == (0, "", {"decision": "proceed"})
    assert (gate["exit"], gate["answer"]) == (3, "fail-block")
    # the journal's own one line (lifecycle names what cannot be journaled and the fix), not "internal error"
    spool = tmp_path / "journal.sqlite3.spool"
    assert gate["stderr"].startswith(
        f"pasture: cannot journal tool.execute.before: journal {spool}: Is a directory; "
    ), gate
    assert "point PASTURE_JOURNAL or the policy's [journal] path at one" in gate["stderr"]
    assert "Traceback" not in gate["stderr"]


HELD_GATE = r"""
import json, os, sys, time
envelope = json.load(sys.stdin)
tool = envelope["payload"].get("input", {}).get("toolID", "")
if tool.startswith("slow"):
    open(os.path.join(os.environ["GATE_MARKS"], tool), "w").close()
    until = time.time() + 90
    while not os.path.exists(os.environ["GATE_RELEASE"]) and time.time() < until:  # held until the test says
        time.sleep(0.02)
print(json.dumps({"decision": "proceed"}))
"""


class Lines:
    """A process's stdout lines on a queue, so a test can wait for one with a bound instead of hanging."""

    def __init__(self, stream) -> None:
        import queue

        self.queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream) -> None:
        for line in stream:
            self.queue.put(json.loads(line))

    def next(self, timeout: float) -> dict:
        import queue

        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None


SLOW_CALLS = 20  # more than the 16 threads the server used to cap gate calls at


def test_slow_gate_calls_never_hold_up_a_fast_call_a_bus_event_or_a_deny(env, tmp_path):
    """Twenty gate calls held in their gate (until the test releases them) while a fast gate call, a
    bus event and a denied call arrive after them: those three are answered while all twenty are still
    held (with a pool of 16 the reader stopped reading at the 17th)."""
    gate = tmp_path / "held_gate.py"
    gate.write_text(HELD_GATE)
    write_policy(
        tmp_path, f'[gate]\nkind = "command"\ncommand = ["{sys.executable}", "-I", "-S", "{gate}"]\ntimeout = 120\n'
    )
    from hookrun import DENY_PROBE

    Path(env["PASTURE_MANAGED_POLICY"]).write_text(DENY_PROBE)  # the deny comes from the managed layer's rule
    marks, release = tmp_path / "marks", tmp_path / "release"
    marks.mkdir()
    env = {**env, "GATE_MARKS": str(marks), "GATE_RELEASE": str(release)}
    proc = _spawn(env)
    lines = Lines(proc.stdout)
    try:
        assert "tool.definition" in lines.next(60)["await"]

        def definition(rid, tool):
            return req(rid, "tool.definition", {"event": "tool.definition", "input": {"toolID": tool}, "output": {}})

        proc.stdin.write(b"".join(definition(i, f"slow{i}") for i in range(1, SLOW_CALLS + 1)))
        proc.stdin.flush()
        until = time.monotonic() + 90
        while len(os.listdir(marks)) < SLOW_CALLS and time.monotonic() < until:  # every slow gate is running
            time.sleep(0.05)
        assert len(os.listdir(marks)) == SLOW_CALLS, "the slow gate calls were not all started at once"
        proc.stdin.write(
            definition(101, "fast") + req(102, "session.idle", IDLE, wait=False) + req(103, "tool.execute.before", TOOL)
        )
        proc.stdin.flush()
        early = [lines.next(30) for _ in range(3)]  # the slow gates hold until release exists
        release.touch()
        late = [lines.next(120) for _ in range(SLOW_CALLS)]
    finally:
        release.touch()
        proc.stdin.close()
        proc.wait(120)
    # the three were answered before any slow call, while every slow gate was still holding
    assert sorted(r["id"] for r in early) == [101, 102, 103]
    answers = {r["id"]: r["answer"] for r in early}
    assert answers == {101: "proceed", 102: "proceed", 103: "deny"}, early
    assert sorted(r["id"] for r in late) == list(range(1, SLOW_CALLS + 1))
    assert all(r["answer"] == "proceed" for r in late), late
    assert len(journal(tmp_path)) == SLOW_CALLS + 3


def test_an_unawaited_gate_row_behind_a_slow_gate_does_not_hold_the_bus_events(env, tmp_path):
    """A plugin that has not heard of a new command gate yet sends its row unawaited: the ordered lane
    hands it to a thread of its own and the bus events behind it are answered while it is held."""
    gate = tmp_path / "held_gate.py"
    gate.write_text(HELD_GATE)
    write_policy(
        tmp_path, f'[gate]\nkind = "command"\ncommand = ["{sys.executable}", "-I", "-S", "{gate}"]\ntimeout = 120\n'
    )
    marks, release = tmp_path / "marks", tmp_path / "release"
    marks.mkdir()
    env = {**env, "GATE_MARKS": str(marks), "GATE_RELEASE": str(release)}
    proc = _spawn(env)
    lines = Lines(proc.stdout)
    try:
        lines.next(60)
        proc.stdin.write(
            req(
                1,
                "tool.definition",
                {"event": "tool.definition", "input": {"toolID": "slow1"}, "output": {}},
                wait=False,
            )
        )
        proc.stdin.write(b"".join(req(i, "session.idle", IDLE, wait=False) for i in range(2, 6)))
        proc.stdin.flush()
        early = [lines.next(30) for _ in range(4)]
        # its gate is running (it may start after the bus events were answered: wait for it, however
        # long a busy machine takes) and holds until release exists
        until = time.monotonic() + 90
        while os.listdir(marks) != ["slow1"] and time.monotonic() < until:
            time.sleep(0.05)
        held = os.listdir(marks) == ["slow1"]
        release.touch()
        late = lines.next(120)
    finally:
        release.touch()
        proc.stdin.close()
        proc.wait(120)
    assert [r["id"] for r in early] == [2, 3, 4, 5] and held
    assert late["id"] == 1 and late["answer"] == "proceed"


def test_past_the_runaway_bound_a_call_fails_in_its_rows_mode_at_once(env, tmp_path, monkeypatch):
    """MAX_CONCURRENT is a bound against a runaway plugin, not a pool: a call past it is not queued
    behind the held ones but answered at once, in its row's failure mode, and journaled."""
    monkeypatch.setattr(serve, "MAX_CONCURRENT", 2)
    gate = tmp_path / "held_gate.py"
    gate.write_text(HELD_GATE)
    write_policy(
        tmp_path, f'[gate]\nkind = "command"\ncommand = ["{sys.executable}", "-I", "-S", "{gate}"]\ntimeout = 120\n'
    )
    marks, release = tmp_path / "marks", tmp_path / "release"
    marks.mkdir()
    env = {**env, "GATE_MARKS": str(marks), "GATE_RELEASE": str(release)}
    for name in ("GATE_MARKS", "GATE_RELEASE"):  # in process, a gate runs with the process's environment
        monkeypatch.setenv(name, env[name])
    piped = Piped(env)
    try:
        piped.read()
        for i in (1, 2):
            piped.send(
                req(
                    i,
                    "tool.execute.before",
                    {**TOOL, "input": {**TOOL["input"], "toolID": f"slow{i}"}, "output": {"args": {"command": "ls"}}},
                )
            )
        until = time.monotonic() + 60
        while len(os.listdir(marks)) < 2 and time.monotonic() < until:
            time.sleep(0.05)
        piped.send(req(3, "tool.execute.before", {**TOOL, "output": {"args": {"command": "ls"}}}))
        third = piped.read()
        release.touch()
        rest = sorted([piped.read(), piped.read()], key=lambda r: r["id"])
    finally:
        release.touch()
        piped.close()
    assert third["id"] == 3 and (third["exit"], third["answer"]) == (3, "fail-block"), third
    assert "2 hook calls already in flight" in third["stderr"]
    assert [(r["id"], r["answer"]) for r in rest] == [(1, "proceed"), (2, "proceed")]
    assert sorted(str(r["failure"]) for r in journal(tmp_path))[0].startswith("2 hook calls already in flight")
