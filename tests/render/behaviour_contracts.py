"""The OpenCode contracts the plugin behaviour tests play: the committed ones, with chosen rows
made throw-fail-fast gates.

A profile may declare throw-fail-fast only where a capture showed a throw holding, so which rows
of the committed profiles throw follows the evidence; the behaviour tests exercise what the
template does on a throwing row whatever the evidence currently is. tests/render/conftest.py
compiles exactly these texts in the session's one tsc run, for the Node runs.
"""

from __future__ import annotations

import dataclasses

from pasture.profile.vocab import FailureMode

V1 = "opencode@1.18.33"
V2 = "opencode@2.0.20"
THROWING = {
    V1: ("tool.execute.before", "chat.message"),
    V2: ("tool.execute.before", "permission.evaluate", "session.prompt"),
}


def throwing(contract, names: tuple[str, ...]):
    rows = tuple(
        dataclasses.replace(
            r,
            declared_failure=FailureMode.THROW_FAIL_FAST,
            evidence=r.evidence or "test: template behaviour on a throwing row",
        )
        if r.name in names
        else r
        for r in contract.events
    )
    return dataclasses.replace(contract, events=rows, _index={})


def played(contracts: dict) -> dict:
    """contract id -> the contract the behaviour tests play."""
    return {cid: throwing(contracts[cid], names) for cid, names in THROWING.items()}
