"""Transient-error classification, the retry loop and the cost tracker. Stdlib only."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol, TypeVar

from pasture.gates.errors import AIIntegrationError

T = TypeVar("T")

# Lowercase substrings, checked in this order. The bare status codes match anywhere in the
# message (a port number, a line number, a byte count): that over-eagerness is the original's
# behaviour and is kept on purpose.
TRANSIENT_PATTERNS: tuple[str, ...] = (
    "rate limit",
    "rate_limit",
    "overloaded",
    "timeout",
    "timed out",
    "connection reset",
    "connection refused",
    "temporarily unavailable",
    "service unavailable",
    "503",
    "502",
    "504",
    "internal server error",
    "500",
)

NO_ERROR_PAYLOAD = "AI operation failed without an error payload"

Sleeper = Callable[[float], Awaitable[None]]
"""``await sleep(seconds)``; inject a recorder in tests so nothing waits."""


class RetryConfig(Protocol):
    max_retries: int
    initial_backoff_seconds: float
    max_backoff_seconds: float


def is_transient_error(error: str) -> bool:
    """True when the lowercased message contains any of :data:`TRANSIENT_PATTERNS`."""
    lowered = error.lower()
    return any(pattern in lowered for pattern in TRANSIENT_PATTERNS)


def backoff_seconds(config: RetryConfig, attempt: int) -> float:
    """The sleep after failed attempt ``attempt`` (0-based): ``min(initial * 2**attempt, max)``."""
    return min(config.initial_backoff_seconds * (2**attempt), config.max_backoff_seconds)


async def run_with_retry(
    operation: Callable[[], Awaitable[T]],
    config: RetryConfig,
    sleep: Sleeper | None = None,
) -> T:
    """Run ``operation``, retrying transient failures.

    ``max_retries + 1`` attempts at most. A non-transient error, or any error on the last
    attempt, is re-raised unchanged. Between attempts sleep :func:`backoff_seconds` (2, 4, 8 s
    with the defaults). A negative ``max_retries`` attempts nothing and raises
    ``AIIntegrationError("AI operation failed without an error payload")``.
    """
    do_sleep = sleep if sleep is not None else asyncio.sleep
    last_error: Exception | None = None
    for attempt in range(config.max_retries + 1):
        try:
            return await operation()
        except Exception as exc:
            last_error = exc
            if attempt >= config.max_retries or not is_transient_error(str(exc)):
                raise
            await do_sleep(backoff_seconds(config, attempt))
    if last_error is not None:  # unreachable: the last attempt re-raises; kept as the original has it
        raise last_error
    raise AIIntegrationError(NO_ERROR_PAYLOAD)


@dataclass
class CostTracker:
    """Invocation count (once per invoke, retries included) and accumulated USD cost."""

    total_cost_usd: float = 0.0
    invocation_count: int = 0

    def register_invocation(self) -> None:
        self.invocation_count += 1

    def register_cost(self, cost_usd: Any) -> None:
        if cost_usd is None or cost_usd < 0:
            return
        self.total_cost_usd += cost_usd
