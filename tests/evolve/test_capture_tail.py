"""The fake model's request tail (what a request appended after the model's previous answer) is read in
the shape of the host's wire protocol: Responses API input items for Codex, chat messages otherwise."""

from __future__ import annotations

from pasture.evolve.capture import _tail


def test_codex_reads_responses_input_items_after_the_last_model_item():
    body = {
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "name": "shell"},
            {"type": "function_call_output", "output": "refused"},
        ]
    }
    assert _tail("codex", body) == [{"type": "function_call_output", "output": "refused"}]


def test_chat_hosts_read_messages_after_the_last_assistant_message():
    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "x"},
            {"role": "tool", "content": "refused"},
        ],
        "input": [{"type": "function_call"}],
    }
    for harness in ("claude-code", "opencode"):
        assert _tail(harness, body) == [{"role": "tool", "content": "refused"}]
    assert _tail("codex", body) == []  # Codex never reads messages: its tail is the input items'
