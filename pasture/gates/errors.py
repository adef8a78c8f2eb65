"""Exceptions raised by the gates package.

Stdlib only: the hook runtime imports these.

`AIIntegrationError` is the wrappers' own failure (the original's ``RuntimeError`` subclass).
The ``AIGate*`` family is what :func:`pasture.gates.gate.ai_gate_decide` raises; every one of
them means "the gate produced no decision", so the runtime applies the row's effective failure
mode whichever subclass it catches. The subclasses exist for the journal and for diagnostics.
"""

from __future__ import annotations

from typing import Any

from pasture import PastureError


class GateFailure(PastureError):
    """The gate produced no decision: crashed, hung past its deadline, or answered garbage."""

    def __init__(self, message: str, detail: dict | None = None):
        super().__init__(message)
        self.detail = detail


class AIIntegrationError(PastureError, RuntimeError):
    """A wrapper-level failure: harness error result, invalid payload, schema retries used up."""


class AIGateError(AIIntegrationError):
    """The AI gate could not produce a decision. Apply the row's effective failure mode.

    ``journal`` holds what was spent before the failure (model, invocations, attempts,
    cost_usd), so the runtime can record it even on the failure path.
    """

    kind = "error"

    def __init__(self, message: str, *, journal: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.journal: dict[str, Any] = dict(journal or {})


class AIGateTimeout(AIGateError):
    """The policy's timeout elapsed (before, during or between attempts)."""

    kind = "timeout"


class AIGateExhausted(AIGateError):
    """Every attempt failed with a transient error (rate limit, 5xx, reset...)."""

    kind = "exhausted"


class AIGateInvalidOutput(AIGateError):
    """The model answered, but not with a valid ``{"decision", "reason"}`` object."""

    kind = "invalid-output"


class AIGateBackendError(AIGateError):
    """A non-transient backend failure (HTTP 400/401/404, malformed response envelope...)."""

    kind = "backend"


class AIGateConfigError(AIGateError):
    """The policy or the configuration is unusable (unknown policy key, negative retries...)."""

    kind = "config"
