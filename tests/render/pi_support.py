"""Helpers for the Pi extension tests (tests/render/test_pi_extension.py and the tsc batch of conftest.py)."""

from __future__ import annotations


def misspelled_pi(text: str) -> str:
    """A Pi extension subscribing to an event Pi does not have (``tool_cal``)."""
    assert text.count('pi.on("tool_call", ') == 1
    return text.replace('pi.on("tool_call", ', 'pi.on("tool_cal", ')
