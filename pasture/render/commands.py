"""The runtime command line every command-hook adapter runs, and how long the host waits for it.

Shape (Claude Code runs it with ``sh``/``bash -c``, Codex with the user's shell, ``-c``)::

    ${PASTURE_BIN:-pasture} hook lifecycle --harness H --event E --host-version V

``generated/`` holds it with the default ``pasture``; ``pasture install`` records the absolute
launcher it wrote and checked instead (``pasture.install.launcher``), so the hooks do not depend on
the PATH the host gives them. ``PASTURE_BIN`` still overrides either.

**Fail closed where the row blocks.** Both hosts read any exit other than 0 and 2 as a non-blocking
hook error and run the tool: a runtime that cannot start (126/127), a Python crash (1), the
launcher's "runtime cannot be loaded" (70) would each switch the guard off without a word. So a row
whose EFFECTIVE failure mode blocks by exit code gets a POSIX-sh tail that turns every such exit
into exit 2 with one stderr line (the host shows it to the model and the user); a legitimate exit
2 passes through unchanged and exit 0 (with the runtime's JSON answer) is untouched. Observation and
report-and-continue rows get no tail: their failures must never block.

A Stop-like row (``stop_loop: consult-when-inactive``) must never block a stop that an earlier block
caused, whatever else fails (issue 9 item 5), or the agent can never stop. When the runtime could
not start (126/127, and 70: the launcher stops before reading anything), the payload is still
unread on stdin, so the tail reads it and lets the stop through (exit 1: a visible, non-blocking
hook error on both hosts) when it says ``"stop_hook_active":true`` (compact, as both hosts send it,
or with one blank after the colon). Inside a JSON string the quote before ``:`` would be escaped,
so no string value can fake the match. The happy path pays nothing for this: no extra process unless the runtime failed.

Every string reaches the shell through ``shlex.quote`` (``encode.shell_words``); the only unquoted
parts are the fixed shell syntax written here and ``$r``.
"""

from __future__ import annotations

import shlex
from typing import Callable

from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import EventSemantic, StopLoopPolicy
from pasture.render.encode import shell_words

VARIABLE = "PASTURE_BIN"
DEFAULT_BINARY = "pasture"
# The binary stays overridable without editing generated files; the default keeps the line short,
# because Claude shows this command line to the model when a hook blocks.
BINARY = "${" + VARIABLE + ":-" + DEFAULT_BINARY + "}"

# Our own defaults where the host sets no cap: observations only journal, gates may consult a gate.
OBSERVATION_TIMEOUT = 10
GATE_TIMEOUT = 60

#: The exit code both hosts read as "block" on the rows that get the fail-closed tail.
EXIT_BLOCK = 2
#: The stop-loop escape: a non-blocking hook error (shown, never a block).
EXIT_LET_STOP = 1


def argv(contract: Contract, row: EventRow) -> list[str]:
    return [
        "hook",
        "lifecycle",
        "--harness",
        contract.harness.value,
        "--event",
        row.name,
        "--host-version",
        str(contract.version),
    ]


def binary(default: str = DEFAULT_BINARY) -> str:
    """``${PASTURE_BIN:-<default>}``; ``default`` must already be a shell word (see install.launcher)."""
    return "${" + VARIABLE + ":-" + default + "}"


def fails_closed(row: EventRow) -> bool:
    """The row's effective failure mode blocks by exit code: its failures must end in exit 2."""
    return row.semantic is EventSemantic.GATE_CONSULTATION and row.failure.blocks_by_exit_code


def guards_stop_loop(row: EventRow) -> bool:
    return row.stop_loop is StopLoopPolicy.CONSULT_WHEN_INACTIVE


def _say(*parts: str) -> str:
    """``printf '%s\\n' <message> >&2`` where ``parts`` alternate literal text and ``$r``."""
    word = "".join(part if part == '"$r"' else shlex.quote(part) for part in parts if part)
    return f"printf '%s\\n' {word} >&2"


def shell_command(contract: Contract, row: EventRow, default_binary: str = DEFAULT_BINARY) -> str:
    run = f"{binary(default_binary)} {shell_words(argv(contract, row))}"
    if not fails_closed(row):
        return run
    refused = _say(
        "pasture: the guard could not run (exit ",
        '"$r"',
        f"), so {row.name} is refused; see `pasture doctor` for the fix",
    )
    if not guards_stop_loop(row):
        return f"{run} || {{ r=$?; [ $r = {EXIT_BLOCK} ] || {refused}; exit {EXIT_BLOCK}; }}"
    let_stop = _say(
        "pasture: the guard could not run (exit ",
        '"$r"',
        f"); {row.name} goes ahead (stop_hook_active); see `pasture doctor` for the fix",
    )
    active = "|".join(f"*{shlex.quote(form)}*" for form in ('"stop_hook_active":true', '"stop_hook_active": true'))
    return (
        f"{run} || {{ r=$?; [ $r = {EXIT_BLOCK} ] && exit {EXIT_BLOCK}; "
        f"case $(cat) in {active}) {let_stop}; exit {EXIT_LET_STOP};; esac; {refused}; exit {EXIT_BLOCK}; }}"
    )


#: a host's own keys of one command handler (contract, row) -> keys added after type, command, timeout
HandlerExtra = Callable[[Contract, EventRow], dict]


def handler(contract: Contract, row: EventRow, extra: HandlerExtra | None = None) -> dict:
    """One command handler for a command-JSON host's matcher group, plus the host's own keys (``extra``)."""
    out: dict = {"type": "command", "command": shell_command(contract, row), "timeout": timeout(row)}
    if extra is not None:
        out.update(extra(contract, row))
    return out


def timeout(row: EventRow) -> int:
    if row.timeout is not None:
        return row.timeout
    return OBSERVATION_TIMEOUT if row.semantic is EventSemantic.OBSERVATION else GATE_TIMEOUT


def hooks_table(contract: Contract, extra: HandlerExtra | None = None) -> dict:
    """The ``hooks`` table of a JSON command-hooks settings file (Claude Code's settings.json, Codex's
    hooks.json): event -> matcher groups, in catalog order; every row becomes one command hook."""
    table: dict[str, list] = {}
    for row in contract.events:
        group: dict = {}
        if row.matcher is not None:
            group["matcher"] = row.matcher
        group["hooks"] = [handler(contract, row, extra)]
        table[row.name] = [group]
    return table
