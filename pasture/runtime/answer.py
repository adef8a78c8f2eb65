"""The host's exact native answer for a decision, per harness and event (each host's encoding:
pasture/runtime/hostwire/<host>.py).

A deny leaves here only where the row can carry it: its response capability (an evidenced deny /
ask channel), or a blocking failure mode the profile cites (exit 2 on Claude and Codex), or, on
OpenCode, our own generated plugin's throw. Anything else is delivered as proceed, with a note.
"""

from pasture.runtime.fastjson import dumps
from pasture.runtime.hostwire import wire

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Iterator  # a row: a generated pasture_contracts._row.Row (untyped) or None


class Reply:
    """exit code, stdout, stderr, and for the journal what the host was told (answer): proceed | deny |
    ask | fail-block | fail-open. A plain class: namedtuple's collections import costs the hook ~2 ms."""

    __slots__ = ("exit_code", "stdout", "stderr", "answer")

    def __init__(self, exit_code: int, stdout: str, stderr: str, answer: str) -> None:
        self.exit_code, self.stdout, self.stderr, self.answer = exit_code, stdout, stderr, answer

    def __iter__(self) -> "Iterator[Any]":
        return iter((self.exit_code, self.stdout, self.stderr, self.answer))

    def __getitem__(self, index: int) -> "Any":
        return tuple(self)[index]

    def __repr__(self) -> str:
        return f"Reply({self.exit_code!r}, {self.stdout!r}, {self.stderr!r}, {self.answer!r})"


EXIT_BLOCK = 2  # Claude and Codex read exit 2 as "block" where the event honours it
EXIT_STRICT_FAILURE = 1  # a failed strict (Codex) hook: recorded by the host, never blocking
EXIT_PLUGIN_FAULT = 3  # the generated OpenCode plugin throws on a non-zero exit for fail-fast rows


def can_deny(harness: str, row: "Any") -> bool:
    # A refusal after the action already happened would tell the model a command that ran was
    # refused: only pre-action rows can deny (seen on OpenCode 1.18.33's tool.execute.after).
    if row is None or row.semantic != "gate-consultation" or not row.pre_action:
        return False
    if row.response in ("deny", "deny+ask"):
        return True
    return row.failure in wire(harness).BLOCKING_FAILURES


def can_ask(row: "Any") -> bool:
    return row is not None and row.semantic == "gate-consultation" and row.pre_action and row.response == "deny+ask"


def proceed(harness: str, note: str = "") -> Reply:
    stderr = f"pasture: {note}\n" if note else ""
    return Reply(0, wire(harness).PROCEED_STDOUT, stderr, "proceed")


def _deny(harness: str, event: str, row: "Any", reason: str) -> Reply:
    reason = reason.strip() or "refused by pasture policy"
    return Reply(*wire(harness).deny(event, row, reason))


def _ask(harness: str, event: str, reason: str) -> Reply:
    reason = reason.strip() or "pasture policy asks for confirmation"
    return Reply(*wire(harness).ask(event, reason))


def deliver(harness: str, event: str, row: "Any", decision: str, reason: str) -> Reply:
    if decision == "ask":
        if can_ask(row):
            return _ask(harness, event, reason)
        # A rule that wants a human must not silently allow: refuse where we can, else say so.
        if can_deny(harness, row):
            return _deny(harness, event, row, f"{reason} (needs confirmation, which this event cannot ask for)")
        return proceed(
            harness, f"policy asked for confirmation on {event}, which this event cannot carry: proceeding ({reason})"
        )
    if decision == "deny":
        if can_deny(harness, row):
            return _deny(harness, event, row, reason)
        return proceed(
            harness,
            f"policy denied {event}, but this row has no evidenced pre-action refusal channel: proceeding ({reason})",
        )
    return proceed(harness)


def fail(harness: str, row: "Any", message: str) -> Reply:
    """The row's EFFECTIVE failure mode, exactly, for a gate (or pasture) that produced no decision."""
    mode = row.failure if row is not None else "observe-only"
    text = f"pasture: {message}"
    if mode in ("exit-2-blocks", "strict-output-exit-2-blocks") and row.semantic == "gate-consultation":
        # Claude Code: the event's JSON refusal where it reads one, since on exit 2 it hands the model
        # the raw hook command line in front of the reason (issue 17); exit 2 elsewhere.
        as_json = getattr(wire(harness), "fail_json", None)
        stdout = as_json(row.name, row, text) if as_json is not None else None
        if stdout is not None:
            return Reply(0, stdout, text + "\n", "fail-block")  # stderr: the user's copy of the line
        return Reply(EXIT_BLOCK, "", text + "\n", "fail-block")
    if mode == "throw-fail-fast" and row.semantic == "gate-consultation":
        # a generated hook file that hands the host a JSON refusal (Cline's): that refusal, saying why
        as_json = getattr(wire(harness), "fail_json", None)
        stdout = as_json(row.name, row, text) if as_json is not None else None
        if stdout is not None:
            return Reply(0, stdout, text + "\n", "fail-block")
        # the plugin throws with this line, so the model reads why, not only a status (issue 17); its
        # stderr stays the user's (logged, never shown to the model)
        return Reply(EXIT_PLUGIN_FAULT, dumps({"failure": message}) + "\n", text + "\n", "fail-block")
    if mode == "strict-hook-failure":
        return Reply(EXIT_STRICT_FAILURE, "", text + "\n", "fail-open")
    if mode == "observe-only":
        reply = proceed(harness)
        return Reply(reply.exit_code, reply.stdout, "", "fail-open")
    reply = proceed(harness, message)  # report-and-continue
    return Reply(reply.exit_code, reply.stdout, reply.stderr, "fail-open")


def fails_closed(row: "Any") -> bool:
    """Whether the row's effective failure mode blocks (so a missing decision must block too)."""
    return (
        row is not None
        and row.semantic == "gate-consultation"
        and row.failure in ("exit-2-blocks", "strict-output-exit-2-blocks", "throw-fail-fast")
    )


def with_notes(reply: Reply, notes: list[str]) -> Reply:
    """The reply with one stderr line per note. Not on an exit-2 refusal: there stderr is the reason
    the host hands the model, and it must stay exactly the policy's reason."""
    if not notes or reply.exit_code == EXIT_BLOCK:
        return reply
    text = "".join(f"pasture: {note}\n" for note in notes)
    return Reply(reply.exit_code, reply.stdout, reply.stderr + text, reply.answer)


def offers(row: "Any", harness: str | None = None) -> dict:
    """capability -> the wire form the row offers it in (Row.answers: evidenced on this host version),
    with `harness`: only those its hostwire module can encode (``STEERS``; a host without steering
    answers offers nothing, whatever its captures show)."""
    encodes = getattr(wire(harness), "STEERS", ()) if harness is not None else None
    found: dict = {}
    for capability, form in getattr(row, "answers", None) or ():
        if encodes is None or capability in encodes:
            found.setdefault(capability, form)
    return found


def steered(harness: str, event: str, row: "Any", parts: dict) -> Reply:
    """The native answer for steering parts the row offers (allow, rewrite, context, feedback, continue);
    a host module without ``steer`` offers none, so this is then a proceed."""
    encode = getattr(wire(harness), "steer", None)
    if encode is None or not parts:
        return proceed(harness)
    return Reply(*encode(event, offers(row, harness), parts))
