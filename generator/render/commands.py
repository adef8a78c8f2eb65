"""The runtime command line every command-hook adapter runs, and how long the host waits for it."""

from __future__ import annotations

from ..contracts import Contract, EventRow
from ..vocab import EventSemantic
from .encode import shell_words

# The binary stays overridable without editing generated files; the default keeps the line short,
# because Claude shows this command line to the model when a hook blocks.
BINARY = "${PASTURE_BIN:-pasture}"

# Our own defaults where the host sets no cap: observations only journal, gates may consult a gate.
OBSERVATION_TIMEOUT = 10
GATE_TIMEOUT = 60


def argv(contract: Contract, row: EventRow) -> list[str]:
    return ["hook", "lifecycle", "--harness", contract.harness.value, "--event", row.name,
            "--host-version", str(contract.version)]


def shell_command(contract: Contract, row: EventRow) -> str:
    return f"{BINARY} {shell_words(argv(contract, row))}"


def timeout(row: EventRow) -> int:
    if row.timeout is not None:
        return row.timeout
    return OBSERVATION_TIMEOUT if row.semantic is EventSemantic.OBSERVATION else GATE_TIMEOUT
