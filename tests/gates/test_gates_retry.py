"""is_transient_error, the retry loop (with a recording sleeper) and the cost tracker."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pasture.gates import TRANSIENT_PATTERNS, AIIntegrationError, is_transient_error
from pasture.gates.retry import CostTracker, backoff_seconds, run_with_retry


def cfg(max_retries=3, initial=2.0, maximum=8.0):
    return SimpleNamespace(max_retries=max_retries, initial_backoff_seconds=initial, max_backoff_seconds=maximum)


class Recorder:
    def __init__(self):
        self.slept: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.slept.append(seconds)


def flaky(errors, result="ok"):
    """An operation raising each of `errors` in turn, then returning `result`."""
    calls = []

    async def op():
        calls.append(len(calls))
        if len(calls) <= len(errors):
            raise errors[len(calls) - 1]
        return result

    return op, calls


def test_patterns_are_the_fourteen_in_order():
    assert TRANSIENT_PATTERNS == (
        "rate limit", "rate_limit", "overloaded", "timeout", "timed out", "connection reset",
        "connection refused", "temporarily unavailable", "service unavailable",
        "503", "502", "504", "internal server error", "500",
    )  # fmt: skip


@pytest.mark.parametrize(
    "message",
    [
        "Rate limit exceeded",
        "rate_limit_error",
        "Model is OVERLOADED",
        "request timeout after 60s",
        "the call timed out",
        "Connection reset by peer",
        "connection refused",
        "Service temporarily unavailable",
        "503 Service Unavailable",
        "502 Bad Gateway",
        "504 Gateway Timeout",
        "Internal Server Error",
        "HTTP 500",
        # the bare status codes match anywhere, on purpose
        "failed to parse line 500 of the report",
        "listening on port 5027",
        "wrote 15031 bytes",
    ],
)
def test_transient(message):
    assert is_transient_error(message)


@pytest.mark.parametrize(
    "message",
    ["", "bad request: unsupported model", "invalid api key", "context length exceeded", "HTTP 400 Bad Request"],
)
def test_not_transient(message):
    assert not is_transient_error(message)


@given(st.text(max_size=60))
def test_transient_is_a_lowercase_substring_match(text):
    assert is_transient_error(text) == any(p in text.lower() for p in TRANSIENT_PATTERNS)


def test_backoff_schedule():
    assert [backoff_seconds(cfg(), n) for n in range(5)] == [2.0, 4.0, 8.0, 8.0, 8.0]
    assert backoff_seconds(cfg(initial=0.5, maximum=10), 1) == 1.0


def test_transient_errors_are_retried_with_2_4_8_second_sleeps():
    sleep = Recorder()
    op, calls = flaky([RuntimeError("503 Service Unavailable")] * 3)
    assert asyncio.run(run_with_retry(op, cfg(), sleep)) == "ok"
    assert len(calls) == 4
    assert sleep.slept == [2.0, 4.0, 8.0]


def test_last_attempt_reraises_the_last_error():
    sleep = Recorder()
    errors = [RuntimeError(f"rate limit #{n}") for n in range(4)]
    op, calls = flaky(errors)
    with pytest.raises(RuntimeError) as info:
        asyncio.run(run_with_retry(op, cfg(), sleep))
    assert info.value is errors[3]
    assert len(calls) == 4 and sleep.slept == [2.0, 4.0, 8.0]


def test_non_transient_error_is_not_retried():
    sleep = Recorder()
    boom = ValueError("bad request: unsupported model")
    op, calls = flaky([boom])
    with pytest.raises(ValueError) as info:
        asyncio.run(run_with_retry(op, cfg(), sleep))
    assert info.value is boom and len(calls) == 1 and sleep.slept == []


def test_non_transient_after_transient_stops():
    sleep = Recorder()
    op, calls = flaky([RuntimeError("overloaded"), KeyError("schema")])
    with pytest.raises(KeyError):
        asyncio.run(run_with_retry(op, cfg(), sleep))
    assert len(calls) == 2 and sleep.slept == [2.0]


def test_zero_retries_means_one_attempt():
    sleep = Recorder()
    op, calls = flaky([RuntimeError("timeout")])
    with pytest.raises(RuntimeError):
        asyncio.run(run_with_retry(op, cfg(max_retries=0), sleep))
    assert len(calls) == 1 and sleep.slept == []


def test_negative_retries_attempts_nothing():
    op, calls = flaky([])
    with pytest.raises(AIIntegrationError, match="^AI operation failed without an error payload$"):
        asyncio.run(run_with_retry(op, cfg(max_retries=-1), Recorder()))
    assert calls == []


def test_custom_schedule_is_capped():
    sleep = Recorder()
    op, _ = flaky([RuntimeError("502")] * 5)
    asyncio.run(run_with_retry(op, cfg(max_retries=5, initial=0.25, maximum=1.5), sleep))
    assert sleep.slept == [0.25, 0.5, 1.0, 1.5, 1.5]


def test_cost_tracker_ignores_none_and_negative():
    tracker = CostTracker()
    for cost in (0.25, None, -1.0, 0.5, 0, -0.0001):
        tracker.register_cost(cost)
    tracker.register_invocation()
    tracker.register_invocation()
    assert tracker.total_cost_usd == 0.75
    assert tracker.invocation_count == 2
