"""`pasture journal export --otlp URL` against a loopback OTLP/HTTP receiver that decodes the protobuf
with opentelemetry-proto and checks every field; each record is sent once; a receiver that is down
or refuses keeps the records for the next export."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2 as logs_service  # the test extra has it

from pasture.journal import db as journaldb
from pasture.runtime.journal import record


class Receiver:
    """OTLP/HTTP logs on 127.0.0.1: decodes every request; answers `status`."""

    def __init__(self, status: int = 200, redirect: tuple | None = None):
        self.requests: list = []
        self.headers: list = []
        self.status = status
        self.redirect = redirect  # (status, Location or None) for a POST to /v1/logs
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.headers.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                if receiver.redirect is not None and self.path == "/v1/logs":
                    code, location = receiver.redirect
                    self.send_response(code)
                    if location is not None:
                        self.send_header("Location", location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if receiver.status == 200:
                    request = logs_service.ExportLogsServiceRequest()
                    request.ParseFromString(body)
                    receiver.requests.append(request)
                    answer = logs_service.ExportLogsServiceResponse().SerializeToString()
                else:
                    answer = b"refused"
                self.send_response(receiver.status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/logs"

    def records(self) -> list:
        return [
            (resource, scope, log)
            for request in self.requests
            for resource in request.resource_logs
            for scope in resource.scope_logs
            for log in scope.log_records
        ]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.close()


def _env(**more) -> dict:
    # No proxy: the exporter's requests must go straight to the loopback receiver, nowhere else.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("OTEL_") and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    env.update(NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost", **more)
    return env


def export(journal, url, **env):
    return subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "export", "--journal", journal, "--otlp", url],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(**env),
    )


def _journal(tmp_path, n=3) -> str:
    journal = str(tmp_path / "j.sqlite3")
    for i in range(n):
        envelope = {
            "harness": "codex",
            "event": "PreToolUse",
            "identities": {"session": "sess-1", "tool-call": f"call-{i}"},
            "tool_name": "Bash",
            "tool_input": {"command": f"rm -rf /{i} \ud800"},
        }
        record(
            journal,
            envelope,
            decision="deny" if i == 1 else "proceed",
            answer="deny" if i == 1 else "proceed",
            gate="rules:r",
            reason=f"reason {i}",
            failure="gate timed out" if i == 2 else None,
            runtime_ms=1.5 + i,
            cpu_ms=20.25,
            layer="user",
            rule="r",
            detail={"notes": [f"n{i}"]},
        )
    return journal


def _attributes(log) -> dict:
    out = {}
    for kv in log.attributes:
        which = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, which)
    return out


def test_every_field_arrives_and_each_record_only_once(tmp_path, receiver):
    journal = _journal(tmp_path)
    done = export(
        journal, receiver.url, OTEL_SERVICE_NAME="team-agents", OTEL_EXPORTER_OTLP_LOGS_HEADERS="x-team-token=abc123"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"sent 3 record(s) to {receiver.url}"
    path, headers = receiver.headers[0]
    assert path == "/v1/logs" and headers["x-team-token"] == "abc123"  # OTEL_EXPORTER_OTLP_* honoured
    assert headers["content-type"] == "application/x-protobuf"
    rows = journaldb.query(journal)
    got = receiver.records()
    assert len(got) == 3
    for (resource, scope, log), row in zip(got, rows, strict=True):
        res = {kv.key: kv.value.string_value for kv in resource.resource.attributes}
        assert res["service.name"] == "team-agents" and res["service.version"]
        assert res["telemetry.sdk.name"] == "opentelemetry"
        assert (scope.scope.name, scope.scope.version) == ("pasture.journal", res["service.version"])
        attrs = _attributes(log)
        call = row["envelope"]["identities"]["tool-call"]
        stored = (
            sqlite3.connect(journal)
            .execute("SELECT detail, envelope FROM events WHERE id = ?", (row["id"],))
            .fetchone()
        )
        assert attrs == {
            "log.record.uid": row["uid"],
            "session.id": "sess-1",
            "gen_ai.tool.name": "Bash",
            "gen_ai.tool.call.id": call,
            "pasture.journal.id": row["id"],
            "pasture.harness": "codex",
            "pasture.event": "PreToolUse",
            "pasture.decision": row["decision"],
            "pasture.answer": row["answer"],
            "pasture.layer": "user",
            "pasture.rule": "r",
            "pasture.gate": "rules:r",
            "pasture.reason": row["reason"],
            "pasture.runtime_ms": row["runtime_ms"],
            "pasture.cpu_ms": 20.25,
            "pasture.detail": stored[0],
            **({"pasture.failure": row["failure"]} if row["failure"] else {}),
        }
        assert log.body.string_value == stored[1]  # the envelope as journaled
        assert json.loads(log.body.string_value)["tool_input"]["command"].endswith("\ud800")
        assert log.event_name == "pasture.hook.decision"
        import calendar
        import time

        assert log.time_unix_nano == calendar.timegm(time.strptime(row["at"], "%Y-%m-%dT%H:%M:%SZ")) * 10**9
        assert log.observed_time_unix_nano >= log.time_unix_nano
        expected = ("ERROR", 17) if row["failure"] else ("WARN", 13) if row["decision"] == "deny" else ("INFO", 9)
        assert (log.severity_text, log.severity_number) == expected
    again = export(journal, receiver.url)
    assert again.returncode == 0 and again.stdout.strip() == f"sent 0 record(s) to {receiver.url}"
    assert len(receiver.records()) == 3  # the cursor remembered
    _journal(tmp_path / "more", 0)
    record(
        journal,
        {"harness": "codex", "event": "Stop", "identities": {}},
        decision="observe",
        answer="proceed",
        gate=None,
        reason=None,
        failure=None,
        runtime_ms=1.0,
    )
    third = export(journal, receiver.url)
    assert third.stdout.strip() == f"sent 1 record(s) to {receiver.url}"
    last = receiver.records()[-1][2]
    assert _attributes(last)["pasture.event"] == "Stop" and "session.id" not in _attributes(last)


def test_a_receiver_that_is_down_keeps_the_records_for_the_next_export(tmp_path):
    journal = _journal(tmp_path)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1/logs"
    down = export(journal, url, OTEL_EXPORTER_OTLP_TIMEOUT="1")
    assert down.returncode == 2
    assert down.stderr.startswith(f"error: OTLP export to {url} failed after 0 record(s): ")
    assert "the 3 record(s) not sent are kept and go with the next export" in down.stderr
    assert "Traceback" not in down.stderr
    server = Receiver()
    try:
        up = export(journal, server.url)
        assert up.returncode == 0 and len(server.records()) == 3
    finally:
        server.close()
    conn = sqlite3.connect(journal)
    cursors = dict(conn.execute("SELECT name, last_id FROM cursors"))
    conn.close()
    assert cursors == {f"otlp {server.url}": 3}  # only the receiver that accepted them advanced


def test_a_refusing_receiver_keeps_the_records(tmp_path):
    journal = _journal(tmp_path)
    server = Receiver(status=400)
    try:
        refused = export(journal, server.url)
        assert refused.returncode == 2 and "the 3 record(s) not sent are kept" in refused.stderr
        server.status = 200
        assert export(journal, server.url).stdout.strip() == f"sent 3 record(s) to {server.url}"
    finally:
        server.close()


def test_env_endpoint_and_batches(tmp_path, receiver):
    journal = _journal(tmp_path, 5)
    base = receiver.url.rsplit("/v1/logs", 1)[0]
    done = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "export", "--journal", journal, "--otlp", "env", "--batch", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(OTEL_EXPORTER_OTLP_ENDPOINT=base),
    )
    assert done.returncode == 0, done.stderr
    assert len(receiver.requests) == 3 and len(receiver.records()) == 5  # 2 + 2 + 1
    bare = subprocess.run(
        [sys.executable, "-m", "pasture", "journal", "export", "--journal", journal, "--otlp", "env"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(),
    )
    assert (
        bare.returncode == 2
        and "neither OTEL_EXPORTER_OTLP_LOGS_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT" in bare.stderr
    )


def test_otlp_takes_no_filters_and_needs_one_destination(tmp_path, cli):
    journal = _journal(tmp_path, 1)
    filtered = cli(
        "journal", "export", "--journal", journal, "--otlp", "http://127.0.0.1:9/v1/logs", "--decision", "deny"
    )
    assert filtered.exit_code == 2 and "filters apply to --format only" in filtered.output
    neither = cli("journal", "export", "--journal", journal)
    assert neither.exit_code == 2 and "exactly one of --format" in neither.output


def test_without_the_otlp_extra_it_says_what_to_install(tmp_path, cli, monkeypatch):
    journal = _journal(tmp_path, 1)
    import builtins

    real = builtins.__import__

    def no_otel(name, *args, **kwargs):
        if name.startswith("opentelemetry"):
            raise ImportError(f"No module named {name!r}", name=name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_otel)
    result = cli("journal", "export", "--journal", journal, "--otlp", "http://127.0.0.1:9/v1/logs")
    assert result.exit_code == 2 and "pip install 'pasture[otlp]'" in result.output


def test_a_huge_record_is_cut_in_the_exported_copy_and_never_blocks_the_export(tmp_path, receiver):
    from pasture.journal import export as journalexport

    journal = str(tmp_path / "j.sqlite3")
    huge = "h" * (journalexport.MAX_VALUE + 10)
    record(
        journal,
        {"harness": "codex", "event": "PreToolUse", "identities": {}, "tool_input": {"command": huge}},
        decision="deny",
        answer="deny",
        gate=None,
        reason=huge,
        failure=None,
        runtime_ms=1.0,
    )
    for i in range(6):  # small ones after it: requests stay under BATCH_BYTES
        record(
            journal,
            {"harness": "codex", "event": "Stop", "identities": {}},
            decision="observe",
            answer="proceed",
            gate=None,
            reason=f"r{i}",
            failure=None,
            runtime_ms=1.0,
        )
    done = export(journal, receiver.url)
    assert done.returncode == 0, done.stderr
    first = receiver.records()[0][2]
    attrs = _attributes(first)
    assert len(first.body.string_value) == journalexport.MAX_VALUE
    assert attrs["pasture.reason"] == huge[: journalexport.MAX_VALUE]
    assert [v.string_value for v in attrs["pasture.truncated"].values] == ["pasture.reason", "body"]
    stored = sqlite3.connect(journal).execute("SELECT envelope, reason FROM events WHERE id = 1").fetchone()
    assert attrs["pasture.envelope.length"] == len(stored[0]) and stored[1] == huge  # the journal keeps it whole
    assert len(receiver.records()) == 7


# --- a redirect is followed only to the same host, else nothing counts as sent ----------------------


def _cursors(journal) -> dict:
    conn = sqlite3.connect(journal)
    try:
        return dict(conn.execute("SELECT name, last_id FROM cursors"))
    finally:
        conn.close()


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_host_is_not_delivered_and_the_cursor_stays(tmp_path, code):
    journal = _journal(tmp_path)
    elsewhere = Receiver()
    port = elsewhere.server.server_address[1]
    target = f"http://localhost:{port}/v1/logs"  # another host name, though the same machine
    server = Receiver(redirect=(code, target))
    try:
        moved = export(journal, server.url)
        assert moved.returncode == 2, moved.stdout
        assert "sent" not in moved.stdout
        assert f"the receiver answered {code}, a redirect to {target}" in moved.stderr, moved.stderr
        assert "the 3 record(s) not sent are kept and go with the next export" in moved.stderr
        assert elsewhere.requests == [] and server.requests == []
        assert _cursors(journal) == {}
    finally:
        server.close()
        elsewhere.close()


@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_a_redirect_on_the_same_host_is_followed_with_the_body(tmp_path, code):
    journal = _journal(tmp_path)
    server = Receiver(redirect=(code, "/v2/logs"))
    try:
        done = export(journal, server.url)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"sent 3 record(s) to {server.url}"
        assert [path for path, _ in server.headers] == ["/v1/logs", "/v2/logs"]
        assert len(server.records()) == 3  # the body was POSTed again, whole
        assert _cursors(journal) == {f"otlp {server.url}": 3}
    finally:
        server.close()


@pytest.mark.parametrize(
    ("redirect", "says"),
    [
        ((307, "/v1/logs"), "more than 5 redirects"),
        ((302, None), "the receiver answered 302 with no Location"),
        ((300, "/v2/logs"), None),  # 300 Multiple Choices: followed like the others
    ],
)
def test_a_redirect_loop_or_one_without_a_target_is_not_delivered(tmp_path, redirect, says):
    journal = _journal(tmp_path)
    server = Receiver(redirect=redirect)
    try:
        done = export(journal, server.url)
        if says is None:
            assert done.returncode == 0 and len(server.records()) == 3
            return
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert server.requests == [] and _cursors(journal) == {}
        if redirect[1] is not None:
            assert len(server.headers) == 6  # the first request and five hops, then it stops
    finally:
        server.close()


def test_which_redirect_targets_are_the_same_host():
    from pasture.journal.export import redirect_problem

    assert redirect_problem("http://c.example:4318/v1/logs", "https://c.example/v1/logs") is None
    assert redirect_problem("https://c.example/v1/logs", "https://C.example:8443/x") is None
    assert "not the same host" in redirect_problem("http://c.example/v1/logs", "http://d.example/v1/logs")
    assert "https to http" in redirect_problem("https://c.example/v1/logs", "http://c.example/v1/logs")
    assert "not the same host" in redirect_problem("http://c.example/v1/logs", "ftp://c.example/x")
