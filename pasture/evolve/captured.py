"""Read a committed capture back (for `pasture profile new` and `pasture evidence`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pasture import PastureError
from pasture.evolve.capture import CAPTURE_FORMAT


class CaptureFormatError(PastureError, ValueError):
    """Not a capture folder `pasture capture` wrote (or one of an unknown format)."""


@dataclass
class ScenarioCapture:
    name: str
    folder: Path
    doc: dict[str, Any]
    events: dict[str, list[Any]] = field(default_factory=dict)

    @property
    def channel(self) -> str | None:
        return self.doc.get("channel")

    @property
    def refused_event(self) -> str | None:
        return self.doc.get("refused_event")

    @property
    def refusal_held(self) -> bool | None:
        return self.doc.get("result", {}).get("refusal_held")

    @property
    def scenario_file(self) -> Path:
        return self.folder / "scenario.json"

    @property
    def answer(self) -> dict[str, Any] | None:
        """An answer scenario's answer: capability, event, wire, sent, times, marker (else None)."""
        answer = self.doc.get("answer")
        return answer if isinstance(answer, dict) else None

    @property
    def honoured(self) -> bool | None:
        """Whether the host honoured the answer (None: not an answer scenario)."""
        return self.doc.get("result", {}).get("honoured") if self.answer is not None else None

    @property
    def honoured_shown_by(self) -> str | None:
        return self.doc.get("result", {}).get("honoured_shown_by") if self.answer is not None else None


@dataclass
class Capture:
    folder: Path
    doc: dict[str, Any]
    scenarios: list[ScenarioCapture]

    @property
    def harness(self) -> str:
        return self.doc["harness"]

    @property
    def version(self) -> str:
        return self.doc["host_version"]

    @property
    def host_listed(self) -> list[str] | None:
        return self.doc.get("catalog", {}).get("host_listed")

    @property
    def looked_up(self) -> list[str]:
        return list(self.doc.get("catalog", {}).get("looked_up", []))

    @property
    def bus_events(self) -> set[str]:
        return set(self.doc.get("bus_events_seen", []))

    def events_seen(self) -> list[str]:
        return list(self.doc.get("events_seen", []))

    def payloads(self, event: str) -> list[tuple[str, Any]]:
        """Every captured payload of ``event``, as (scenario name, payload), scenario order."""
        return [(s.name, p) for s in self.scenarios for p in s.events.get(event, [])]

    def answers(self) -> list[ScenarioCapture]:
        """The answer scenarios, scenario order."""
        return [s for s in self.scenarios if s.answer is not None]

    def proofs(self, event: str) -> list[ScenarioCapture]:
        """Scenarios in which a refusal of ``event`` was tried (held or not)."""
        return [s for s in self.scenarios if s.refused_event == event]


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CaptureFormatError(f"cannot read {path}: {exc}") from None


def load_capture(folder: Path) -> Capture:
    folder = Path(folder)
    head = folder / "capture.json"
    if not head.is_file():
        raise CaptureFormatError(f"{folder} holds no capture.json: not a folder `pasture capture` wrote")
    doc = _json(head)
    if doc.get("capture_format") != CAPTURE_FORMAT:
        raise CaptureFormatError(f"{head}: capture_format {doc.get('capture_format')!r}, expected {CAPTURE_FORMAT}")
    scenarios = []
    for entry in doc.get("scenarios", []):
        sub = folder / entry["name"]
        scenario = ScenarioCapture(entry["name"], sub, _json(sub / "scenario.json"))
        events_dir = sub / "events"
        if events_dir.is_dir():
            for file in sorted(events_dir.glob("*.json")):
                scenario.events[file.stem] = _json(file)
        scenarios.append(scenario)
    return Capture(folder, doc, scenarios)
