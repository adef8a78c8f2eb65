"""Scrubbing: volatile and private values become stable placeholders, and nothing else changes."""

from __future__ import annotations

from pathlib import Path

from pasture.evolve.scrub import MAX_STRING, Scrubber

RUN_A = Path("/tmp/pasture-capture-aaaaaaaa/allow")
RUN_B = Path("/tmp/pasture-capture-bbbbbbbb/allow")


def _scrubber(run: Path, **kw) -> Scrubber:
    kw.setdefault("user", "alice")
    kw.setdefault("hostname", "buildbox-17")
    return Scrubber(
        run,
        host_binary=Path("/opt/hosts/bin/claude"),
        repo_root=Path("/work/checkout"),
        python="/usr/local/bin/python3.11",
        **kw,
    )


def _payload(run: Path, session: str, call: str, port: int, when: str, ms: int) -> dict:
    return {
        "session_id": session,
        "transcript_path": f"{run}/home/.claude/projects/{str(run).replace('/', '-')}-project/{session}.jsonl",
        "cwd": f"{run}/project",
        "tool_use_id": call,
        "url": f"http://127.0.0.1:{port}/v1",
        "title": f"New session - {when}",
        "time": {"created": ms, "updated": ms + 5},
        "duration_ms": 17,
        "tokens": {"input": 44656, "cache": {"read": 3}},
        "pid": 4242,
        "env": {"CLAUDE_PID": "4242", "CLAUDE_CODE_MESSAGING_SOCKET": f"{run}/xdg-runtime/cc-socks/4242.sock"},
        "command": f"/usr/local/bin/python3.11 {run}/pasture_recorder.py --log {run}/hooks.jsonl",
        "binary": "/opt/hosts/bin/claude",
        "package": "/work/checkout/.cache/npm/x/node_modules/@openai/codex",
        "apiKey": "sk-live-123",
        "owner": "alice",
        "home": "/home/alice/.config",
        "where": "built on buildbox-17 today",
        "index": 0,
        "exit": 2,
    }


def test_two_runs_with_different_volatile_values_scrub_to_the_same_document():
    a = _scrubber(RUN_A).scrub(
        _payload(
            RUN_A,
            "8b6a8155-bdb5-4015-9ca8-aea1060d55b1",
            "toolu_pasture000100",
            40123,
            "2026-11-30T09:28:32.967Z",
            1796030912967,
        )
    )
    b = _scrubber(RUN_B).scrub(
        _payload(
            RUN_B,
            "01a22bc8-ace4-70b1-bf78-a21733e30f41",
            "toolu_pasture000300",
            51234,
            "2027-01-02T10:00:00.001Z",
            1796039999999,
        )
    )
    assert a == b


def test_each_rule():
    out = _scrubber(RUN_A).scrub(
        _payload(
            RUN_A,
            "8b6a8155-bdb5-4015-9ca8-aea1060d55b1",
            "toolu_pasture000100",
            40123,
            "2026-11-30T09:28:32.967Z",
            1796030912967,
        )
    )
    assert out["session_id"] == "<uuid-1>"
    assert out["transcript_path"] == "$RUN/home/.claude/projects/$RUN_SLUG-project/<uuid-1>.jsonl"
    assert out["cwd"] == "$RUN/project"
    assert out["tool_use_id"] == "<fake-id-1>"
    assert out["url"] == "http://127.0.0.1:<port>/v1"
    assert out["title"] == "New session - <timestamp>"
    assert out["time"] == {"created": "<time>", "updated": "<time>"}
    assert out["duration_ms"] == "<time>"
    assert out["tokens"] == {"input": "<count>", "cache": {"read": "<count>"}}
    assert out["pid"] == "<pid>"
    assert out["env"] == {"CLAUDE_PID": "<pid>", "CLAUDE_CODE_MESSAGING_SOCKET": "$RUN/xdg-runtime/cc-socks/<pid>.sock"}
    assert out["command"] == "$PYTHON $RUN/pasture_recorder.py --log $RUN/hooks.jsonl"
    assert out["binary"] == "$HOST_BIN"
    assert out["package"] == "$REPO/.cache/npm/x/node_modules/@openai/codex"
    assert out["apiKey"] == "<redacted>"
    assert out["owner"] == "<user>"
    assert out["home"] == "/home/<user>/.config"
    assert out["where"] == "built on <hostname> today"
    assert (out["index"], out["exit"]) == (0, 2)  # ordinary numbers stay


def test_same_value_same_placeholder_and_numbering_follows_first_appearance():
    s = _scrubber(RUN_A)
    one, two = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
    out = s.scrub({"a": two, "b": [one, two], "c": f"fco_{one}"})
    assert out == {"a": "<uuid-1>", "b": ["<uuid-2>", "<uuid-1>"], "c": "fco_<uuid-2>"}
    assert s.scrub({"later": one}) == {"later": "<uuid-2>"}  # state persists across documents of one run


def test_path_literals_only_replace_whole_path_starts():
    s = _scrubber(Path("/tmp/pasture-capture-aaaaaaaa/allow"))
    # /tmp (the system temp folder) is not replaced inside $RUN/tmp, nor inside another word.
    assert s.text("/tmp/pasture-capture-aaaaaaaa/allow/tmp/claude-0/x") == "$RUN/tmp/claude-0/x"
    assert s.text("/var/tmp/x and /tmp/other") == "/var/tmp/x and $TMP/other"


def test_opencode_ids_codex_rollouts_and_tool_output_lines():
    s = _scrubber(RUN_A)
    assert s.text("ses_dd4372639ffede2yQXC7qXt7rz msg_22bc8e26500132c0A253B4pE8R") == "<ses-1> <msg-1>"
    assert (
        s.text("sessions/2026/11/30/rollout-2026-11-30T09-33-28-01a22bc8-ace4-70b1-bf78-a21733e30f41.jsonl")
        == "sessions/<date>/rollout-<timestamp>-<uuid-1>.jsonl"
    )
    assert (
        s.text("Chunk ID: 2eae46\nWall time: 0.0012 seconds\n<total_tokens>14977689 tokens left</total_tokens>")
        == "Chunk ID: <chunk-id>\nWall time: <seconds> seconds\n<total_tokens><count> tokens left</total_tokens>"
    )
    assert s.text("Today's date: Sun Nov 30 2026.") == "Today's date: <date>."
    assert s.scrub({"date": "Wed, 02 Dec 2026 06:19:43 GMT"}) == {"date": "<date>"}  # Pi: a response's headers
    assert s.scrub({"slug": "cosmic-rocket", "snapshot": "f05807170a225066aee68b595bdfdc119daf9045"}) == {
        "slug": "<slug>",
        "snapshot": "<sha1-1>",
    }


def test_clock_stamped_tool_call_ids_are_numbered_alike_in_every_run():
    """Qwen Code's tool_use_id is ``toolu_<epoch ms>_<base36 tail>``: the same call gets the same placeholder,
    another call the next one, in any run; the fake model's own ids and a word that only starts alike stay."""
    a, b = _scrubber(RUN_A), _scrubber(RUN_B)
    first = {"tool_use_id": "toolu_1796428813644_ql17x60ql", "again": "toolu_1796428813644_ql17x60ql"}
    assert a.scrub(first) == {"tool_use_id": "<toolu-1>", "again": "<toolu-1>"}
    assert b.scrub({"tool_use_id": "toolu_1796429620537_10mk3z6oh"}) == {"tool_use_id": "<toolu-1>"}
    assert a.text("toolu_1796428816586_dowopprux") == "<toolu-2>"
    assert a.text("toolu_pasture000100 toolu_123_abc") == "<fake-id-1> toolu_123_abc"


def test_clines_clock_stamped_ids_are_numbered_alike_in_every_run():
    """Cline's agent, task and root session ids are ``agent_<ms>_<tail>``, ``conv_<ms>_<tail>`` and
    ``<ms>_<tail>``: numbered per kind, the same in any run."""
    a, b = _scrubber(RUN_A), _scrubber(RUN_B)
    first = {
        "agent_id": "agent_1796486778687_zcgyg2",
        "taskId": "conv_1796486778787_dh7a7wu",
        "root": "1796486778506_3udxp",
    }
    again = {
        "agent_id": "agent_1796488051992_f0fw5j",
        "taskId": "conv_1796488052125_pqg6jya",
        "root": "1796488051307_qys33",
    }
    assert a.scrub(first) == b.scrub(again) == {"agent_id": "<agent-1>", "taskId": "<conv-1>", "root": "<stamp-1>"}
    assert a.text("x_1796486778506_3udxp 17964867785061_3udxp") == "x_1796486778506_3udxp 17964867785061_3udxp"


def test_long_strings_keep_a_head_and_a_digest():
    s = _scrubber(RUN_A)
    text = "x" * (MAX_STRING + 10)
    out = s.text(text)
    assert out.startswith("x" * 160) and out.endswith(">") and f"elided {MAX_STRING + 10} chars" in out
    assert out == _scrubber(RUN_B).text(text)
