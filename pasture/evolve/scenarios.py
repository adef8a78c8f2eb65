"""Every host's capture scenarios, by harness, as its capture adapter composes them (``HOST.capture``'s
``scenario_set()``, from the shared scenarios of :mod:`.scenario_sets`, which says what each one shows)."""

from __future__ import annotations

from pasture.hosts import HOSTS
from pasture.hosts.scenario_sets import (
    ALLOW,
    ASKED_COMMAND,
    ASKED_FILE,
    CAPABILITIES,
    CONTINUE_BOUND,
    PROBE_COMMAND,
    PROBE_FILE,
    PROMPT,
    REASON,
    STOP_REASON,
    Answer,
    Scenario,
    ScenarioSet,
    marker,
)

_SETS: dict[str, ScenarioSet] = {name: h.capture.scenario_set() for name, h in HOSTS.items()}

#: Scenarios run for every version of a host, first.
SCENARIOS: dict[str, tuple[Scenario, ...]] = {name: s.base for name, s in _SETS.items()}
#: Scenarios run for every version of a host after the common ones.
EXTRA_SCENARIOS: dict[str, tuple[Scenario, ...]] = {name: s.extra for name, s in _SETS.items() if s.extra}
#: Scenarios that exist to trigger one event, run only for host versions whose catalog lists it.
TRIGGER_SCENARIOS: dict[str, tuple[Scenario, ...]] = {name: s.trigger for name, s in _SETS.items() if s.trigger}
#: Answer scenarios, run for every version of a host after all the others.
ANSWER_SCENARIOS: dict[str, tuple[Scenario, ...]] = {name: s.answer for name, s in _SETS.items() if s.answer}


def scenarios_for(harness: str, catalog: list[str] | None) -> tuple[Scenario, ...]:
    """Every scenario to run for a host version: the common ones, then those that trigger an event
    the version's own catalog (or event list) names."""
    return _SETS[harness].for_catalog(catalog)


def trigger_scenario_events(harness: str) -> set[str]:
    """Events for which an offline scenario can be built."""
    return {e for s in TRIGGER_SCENARIOS.get(harness, ()) for e in s.triggers}


__all__ = [
    "ALLOW",
    "ANSWER_SCENARIOS",
    "ASKED_COMMAND",
    "ASKED_FILE",
    "CAPABILITIES",
    "CONTINUE_BOUND",
    "EXTRA_SCENARIOS",
    "PROBE_COMMAND",
    "PROBE_FILE",
    "PROMPT",
    "REASON",
    "SCENARIOS",
    "STOP_REASON",
    "TRIGGER_SCENARIOS",
    "Answer",
    "Scenario",
    "ScenarioSet",
    "marker",
    "scenarios_for",
    "trigger_scenario_events",
]
