"""What pasture reads from a judge is bounded (issue 27): the AI gate reads at most 1 MiB of a chat
completion (in chunks; the rest is never read) and fails with a line saying the answer was too large,
and every gate's reason reaches the host cut at 2,000 characters, with a marker and a journal note.
A loopback fake judge sends 8 MiB; what was read is checked through the gate's result and a counting
fake, never the process's memory."""

from __future__ import annotations

import io
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from pasture.gates import openai_chat
from pasture.journal.db import query
from pasture.runtime.lifecycle import run

BIG = 8 << 20
PAYLOAD = {
    "session_id": "s1",
    "turn_id": "u1",
    "tool_use_id": "t1",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls"},
}


def completion(content: str) -> bytes:
    return json.dumps({"choices": [{"message": {"content": content}, "finish_reason": "stop"}]}).encode()


class Judge:
    """A chat-completions endpoint on 127.0.0.1 answering every POST with `body` (with a
    Content-Length, or without one, ending at the close)."""

    def __init__(self, body: bytes, length: bool = True):
        judge = self
        self.body, self.length = body, length
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if length else "HTTP/1.0"

            def do_POST(self):  # noqa: N802
                judge.requests += 1
                self.rfile.read(int(self.headers["Content-Length"]))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if judge.length:
                    self.send_header("Content-Length", str(len(judge.body)))
                self.end_headers()
                try:
                    for at in range(0, len(judge.body), 1 << 16):
                        self.wfile.write(judge.body[at : at + (1 << 16)])
                except OSError:  # the client stopped reading and closed: expected past the cap
                    pass

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hook(tmp_path, monkeypatch):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PASTURE_", "CLAUDE_"))}
    env.update(
        PASTURE_JOURNAL=str(tmp_path / "journal.sqlite3"),
        PASTURE_POLICY=str(tmp_path / "policy.toml"),
        PASTURE_MANAGED_POLICY=str(tmp_path / "managed.toml"),
        PASTURE_TRUST_STORE=str(tmp_path / "state" / "trust.json"),
        PASTURE_CACHE_DIR=str(tmp_path / "cache"),
        NO_PROXY="127.0.0.1",
    )
    monkeypatch.setenv("PASTURE_AI_API_KEY", "sk-test")

    def call(judge: Judge, host: str = "codex") -> tuple[int, str, str, dict]:
        (tmp_path / "policy.toml").write_text(
            f'[gate]\nkind = "ai"\ntimeout = 20\nbase_url = "{judge.url}"\nmodel = "fake/judge"\n'
        )
        version = {"codex": "0.171.0", "claude-code": "2.1.328"}[host]
        out, err = io.BytesIO(), io.BytesIO()
        code = run(
            ["--harness", host, "--event", "PreToolUse", "--host-version", version],
            io.BytesIO(json.dumps(PAYLOAD).encode()),
            out,
            err,
            env,
        )
        return code, out.getvalue().decode(), err.getvalue().decode(), query(tmp_path / "journal.sqlite3")[-1]

    return call


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "until-close"])
def test_an_answer_over_1_mib_fails_the_gate_with_a_line_saying_so(hook, length):
    judge = Judge(completion("x" * BIG), length=length)
    try:
        code, out, err, entry = hook(judge)
    finally:
        judge.close()
    assert (code, out) == (2, "")  # Codex's PreToolUse failure mode
    assert "the judge's answer is larger than 1 MiB; pasture reads at most that much of it" in err, err
    assert entry["decision"] == "none" and "larger than 1 MiB" in entry["failure"]
    assert judge.requests == 1  # not transient: asking again would get the same flood


class CountingResponse:
    """A response whose body is `size` bytes, counting what the reader asks for and gets."""

    def __init__(self, size: int, length: int | None):
        self.left, self.read_bytes = size, 0
        self.headers = {"Content-Length": str(length)} if length is not None else {}

    def read(self, n: int = -1) -> bytes:
        assert n is not None and n > 0, "an unbounded read"
        chunk = min(n, self.left)
        self.left -= chunk
        self.read_bytes += chunk
        return b"x" * chunk


@pytest.mark.parametrize("declared", [None, BIG, 10])  # no length, the true one, a lie
def test_the_body_is_read_in_chunks_and_never_past_the_cap(declared):
    response = CountingResponse(BIG, declared)
    with pytest.raises(openai_chat.ChatResponseTooLarge):
        openai_chat.read_capped(response, openai_chat.MAX_BODY)
    assert response.read_bytes <= openai_chat.MAX_BODY + 1
    small = CountingResponse(1000, None)
    assert openai_chat.read_capped(small, openai_chat.MAX_BODY) == b"x" * 1000


def test_an_error_body_is_read_only_in_part():
    response = CountingResponse(BIG, None)
    assert len(openai_chat.read_error_body(response)) == openai_chat.MAX_ERROR_BODY
    assert response.read_bytes == openai_chat.MAX_ERROR_BODY


def test_a_long_reason_reaches_the_host_cut_with_a_marker_and_the_journal_says_so(hook):
    reason = "because " + "r" * 300_000
    judge = Judge(completion(json.dumps({"decision": "deny", "reason": reason})))
    try:
        code, out, err, entry = hook(judge)
    finally:
        judge.close()
    sent = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert code == 0 and json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert sent == reason[:2000] + f" [pasture: reason cut at 2000 of {len(reason)} characters]"
    assert entry["reason"] == sent and entry["detail"]["reason_cut"] == len(reason)
