"""Server-sent events: encode what the fake servers send, parse it back (tests, captures)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable

__all__ = ["SseEvent", "encode_event", "encode_data", "parse_sse"]


@dataclass(frozen=True)
class SseEvent:
    event: str | None
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def encode_event(event: str | None, data: Any) -> bytes:
    """One SSE frame; ``data`` that is not a str is JSON-encoded on one line."""
    payload = data if isinstance(data, str) else _dumps(data)
    lines = [] if event is None else [f"event: {event}"]
    lines.extend(f"data: {line}" for line in payload.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def encode_data(data: Any) -> bytes:
    """A frame with only ``data:`` (the OpenAI chat-completions style)."""
    return encode_event(None, data)


def parse_sse(raw: bytes | str | Iterable[str]) -> list[SseEvent]:
    """Parse an SSE stream into events (comments and ``id:``/``retry:`` fields are ignored)."""
    text = raw.decode("utf-8") if isinstance(raw, bytes) else raw if isinstance(raw, str) else "".join(raw)
    events: list[SseEvent] = []
    event: str | None = None
    data: list[str] = []
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for line in lines[:-1]:  # the last piece follows the final newline: never a blank line
        if line == "":
            if data or event is not None:
                events.append(SseEvent(event, "\n".join(data)))
            event, data = None, []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if data or event is not None or lines[-1]:
        raise ValueError("SSE stream ended inside an event (no blank line after the last frame)")
    return events
