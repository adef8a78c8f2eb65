"""How long a gate may take on a row: the host's hook timeout minus a safety margin.

The host kills a hook at its timeout and then decides on its own (Claude and Codex run the tool), so
every gate must answer, and the journal line be written, before that. The margin is 10 % of the
timeout, at least 1 s, at most half of it: 54 s of a 60 s gate row, 9 s of a 10 s row.
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any

DEFAULT_HOST_TIMEOUT = 60


def deadline_seconds_for(timeout: float) -> float:
    margin = min(max(1.0, timeout * 0.1), timeout / 2)
    return timeout - margin


def deadline_seconds(row: "Any") -> float:
    return deadline_seconds_for(float(getattr(row, "timeout", None) or DEFAULT_HOST_TIMEOUT))
