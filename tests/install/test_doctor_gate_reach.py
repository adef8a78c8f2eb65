"""`pasture doctor` says `ok gate` for an AI gate only when its endpoint answers (issue 28, item 5): a
bounded GET <base_url>/models, no key sent, on a loopback fake here. Any HTTP answer below 500 (a 401
without the key is one) shows the endpoint is up; a refused connection, a timeout or a 5xx is off."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_paths import REPO

from pasture.cli import main
from pasture.doctor.runtime_view import ai_reachable


class _Models(BaseHTTPRequestHandler):
    status = 200
    seen: list = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).seen.append((self.path, self.headers.get("Authorization")))
        body = b'{"data": []}'
        self.send_response(type(self).status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def endpoint():
    server = HTTPServer(("127.0.0.1", 0), _Models)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Models.seen, _Models.status = [], 200
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", _Models
    server.shutdown()
    server.server_close()


def _closed_port() -> int:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    return port


def test_an_endpoint_that_answers_is_reachable_and_no_key_is_sent(endpoint):
    url, handler = endpoint
    ok, detail = ai_reachable(url, timeout=2)
    assert ok, detail
    assert handler.seen == [("/v1/models", None)]
    handler.status = 401  # up, and wants a key: it answers
    assert ai_reachable(url, timeout=2)[0]


def test_a_down_or_failing_endpoint_is_not_reachable(endpoint):
    url, handler = endpoint
    handler.status = 503
    ok, detail = ai_reachable(url, timeout=2)
    assert not ok and "503" in detail
    ok, detail = ai_reachable(f"http://127.0.0.1:{_closed_port()}/v1", timeout=2)
    assert not ok and "does not answer" in detail


def test_doctor_says_off_for_an_ai_gate_whose_endpoint_is_down(private_home: Path, pasture, monkeypatch, endpoint):
    url, _handler = endpoint
    assert pasture("install", "claude-code", "--user").code in (0, 3)
    policy = private_home / ".config" / "pasture" / "policy.toml"
    policy.parent.mkdir(parents=True, exist_ok=True)
    project = private_home / "project"
    project.mkdir()

    def gate_findings(base_url: str) -> list[dict]:
        policy.write_text(f'[gate]\nkind = "ai"\nmodel = "m"\nbase_url = "{base_url}"\n')
        result = CliRunner().invoke(
            main, ["doctor", "--project", str(project), "--root", str(REPO), "--json"], catch_exceptions=False
        )
        return [f for f in json.loads(result.stdout)["findings"] if f["check"] == "gate"]

    (up,) = gate_findings(url)
    assert up["status"] == "ok", up
    (down,) = gate_findings(f"http://127.0.0.1:{_closed_port()}/v1")
    assert down["status"] == "off" and "does not answer" in down["message"], down
    assert down["fix"]
