"""The ``agent`` gate kind's runner (pasture.runtime.gatekinds): the judges are the hosts' own, each wire's
``AGENT_JUDGE`` (its headless command line and how its output reads), handed to pasture.gates.agent, which
names no host. Imported only when a policy's layer selects an agent gate."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pasture.gates.agents import Judge


def judges() -> dict[str, Judge]:
    """Harness -> its judge, for every host whose wire has one (in the hook registry's order); reads every
    wire."""
    from pasture.runtime.hostwire import WIRES
    from pasture.runtime.hostwire.guarded import module

    found = {harness: getattr(module(name), "AGENT_JUDGE", None) for harness, name in WIRES.items()}
    return {harness: judge for harness, judge in found.items() if judge is not None}


def agent_gate(settings: dict, envelope: dict, root: str, timeout: float, **kwargs: Any) -> tuple[str, str, dict]:
    """pasture.gates.agent.agent_gate with the judge of [gate] host (the policy parser checked it is one)."""
    from pasture.gates.agent import agent_gate as run

    return run(settings, envelope, root, timeout, judge=judges()[settings["host"]], **kwargs)
