"""What a fake model answers: a :class:`Script` of :class:`Turn` s.

A *main* request (one that offers tools) consumes the next turn; once the turns are used up every
further main request gets ``final_text``. A *side* request (one that offers no tools: titles,
summaries, quota probes) consumes nothing and gets ``side_text``.

Turn texts may contain the placeholder ``{tool_result}``, replaced by the text of the newest tool
result in the request's conversation (empty if none), so a host's final output shows what the
model was told after a tool call or a blocked call.

A tool call named :data:`SHELL` means "the host's own shell tool": each wire protocol maps it to
what that host offers (Claude ``Bash {command, description}``, Codex ``exec_command {cmd}``,
OpenCode ``bash {command, description}``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable

__all__ = ["SESSION_ID", "SHELL", "TOOL_RESULT", "Script", "ScriptCursor", "ToolCall", "Turn"]

#: Tool name meaning "whatever shell tool the host offers".
SHELL = "@shell"
#: Placeholder replaced in turn texts by the newest tool result the request carries.
TOOL_RESULT = "{tool_result}"
#: A tool argument that is exactly this becomes the number after "session ID" in the newest tool result
#: (a shell session a host keeps open, to be written to by a later call), or stays as it is.
SESSION_ID = "{session_id}"


@dataclass(frozen=True)
class ToolCall:
    """One tool call. ``name`` is the host's tool name, or :data:`SHELL`."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ToolCall":
        return cls(str(data["name"]), dict(data.get("arguments", {})))


@dataclass(frozen=True)
class Turn:
    """One assistant answer: optional text, then zero or more tool calls."""

    text: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()

    def __post_init__(self) -> None:
        if self.text is None and not self.tool_calls:
            raise ValueError("a turn needs text or at least one tool call")
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))

    @classmethod
    def reply(cls, text: str) -> "Turn":
        """Answer with text and end the turn (``end_turn`` / ``stop``)."""
        return cls(text=text)

    @classmethod
    def shell(cls, command: str, description: str = "Run a shell command", text: str | None = None) -> "Turn":
        """Call the host's shell tool once with ``command``."""
        return cls(text=text, tool_calls=(ToolCall(SHELL, {"command": command, "description": description}),))

    @classmethod
    def tool(cls, name: str, arguments: dict[str, Any], text: str | None = None) -> "Turn":
        """Call an arbitrary tool by the host's own name for it."""
        return cls(text=text, tool_calls=(ToolCall(name, dict(arguments)),))

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "tool_calls": [c.to_dict() for c in self.tool_calls]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Turn":
        return cls(
            text=data.get("text"),
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls", ())),
        )


@dataclass(frozen=True)
class Script:
    """The turns a fake model plays, in order."""

    turns: tuple[Turn, ...] = ()
    final_text: str = "Done. Last tool result: {tool_result}"
    side_text: str = "Pasture probe"

    def __post_init__(self) -> None:
        object.__setattr__(self, "turns", tuple(self.turns))

    @classmethod
    def of(cls, *turns: Turn, **kwargs: Any) -> "Script":
        return cls(turns=tuple(turns), **kwargs)

    @classmethod
    def shell_then_reply(cls, command: str, text: str = "Done. The tool said: {tool_result}") -> "Script":
        """The common probe: run one shell command, then finish with text."""
        return cls.of(Turn.shell(command), Turn.reply(text))

    def to_dict(self) -> dict[str, Any]:
        return {
            "turns": [t.to_dict() for t in self.turns],
            "final_text": self.final_text,
            "side_text": self.side_text,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: dict[str, Any] | Iterable[Any]) -> "Script":
        if isinstance(data, list):  # a bare list of turns
            data = {"turns": data}
        assert isinstance(data, dict)
        kwargs = {k: data[k] for k in ("final_text", "side_text") if k in data}
        return cls(turns=tuple(Turn.from_dict(t) for t in data.get("turns", ())), **kwargs)

    @classmethod
    def from_json(cls, text: str) -> "Script":
        return cls.from_dict(json.loads(text))


class ScriptCursor:
    """Thread-safe position in a script."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._next = 0
        self._lock = threading.Lock()

    def next_turn(self) -> tuple[int | None, Turn]:
        """``(index, turn)`` for the next main request; ``(None, final)`` once exhausted."""
        with self._lock:
            if self._next < len(self.script.turns):
                index = self._next
                self._next += 1
                return index, self.script.turns[index]
        return None, Turn.reply(self.script.final_text)

    def side_turn(self) -> Turn:
        return Turn.reply(self.script.side_text)

    @property
    def consumed(self) -> int:
        with self._lock:
            return self._next
