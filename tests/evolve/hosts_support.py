"""Helpers for the tests of the new-host-version commands."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def fake_host(folder: Path, name: str, version_line: str, body: str = "exit 0") -> Path:
    """A stand-in host binary: prints ``version_line`` for --version, else runs ``body`` (sh)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        textwrap.dedent(f"""\
        #!/bin/sh
        if [ "$1" = "--version" ]; then echo "{version_line}"; exit 0; fi
        {body}
        """)
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


PYTHON = sys.executable


def write_capture(
    root: Path,
    harness: str,
    version: str,
    scenarios: list[dict[str, Any]],
    host_listed: list[str] | None = None,
    bus: list[str] | None = None,
) -> Path:
    """A capture folder as `pasture capture` writes it, from a compact description.

    Each scenario: {"name", "channel", "refused_event", "held", "events": {Event: [payload, ...]}}.
    """
    folder = root / "captures" / f"{harness}@{version}"
    summaries = []
    seen: set[str] = set()
    for sc in scenarios:
        sub = folder / sc["name"]
        (sub / "events").mkdir(parents=True)
        for event, payloads in sc.get("events", {}).items():
            (sub / "events" / f"{event}.json").write_text(json.dumps(payloads, indent=2, sort_keys=True) + "\n")
            seen.add(event)
        held = sc.get("held")
        doc = {
            "capture_format": 1,
            "generated_by": "pasture capture",
            "harness": harness,
            "host_version": version,
            "scenario": sc["name"],
            "channel": sc.get("channel"),
            "refused_event": sc.get("refused_event"),
            "result": {
                "refusal_held": held,
                "probe_file": "absent",
                "effect": "the refused action never took effect: no probe file" if held else "no",
            },
        }
        (sub / "scenario.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        summaries.append(
            {
                "name": sc["name"],
                "channel": sc.get("channel"),
                "refused_event": sc.get("refused_event"),
                "refusal_held": held,
                "events_seen": sorted(sc.get("events", {})),
            }
        )
    doc = {
        "capture_format": 1,
        "harness": harness,
        "host_version": version,
        "catalog": {"host_listed": host_listed, "registered": host_listed or []},
        "events_seen": sorted(seen),
        "scenarios": summaries,
    }
    if bus:
        doc["bus_events_seen"] = sorted(bus)
    (folder / "capture.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return folder


def write_catalog(
    root: Path,
    harness: str,
    version: str,
    *,
    like: str,
    add: dict[str, dict[str, Any]] | None = None,
    drop: tuple[str, ...] = (),
) -> Path:
    """A host catalog for a made-up version: the committed catalog ``like`` (a contract id), re-versioned,
    less ``drop``, plus ``add`` ({event: {"input": fields, "output": fields, "kind"?}})."""
    base = json.loads((REPO / "captures" / like / "catalog.json").read_text())
    events = [e for e in base["events"] if e["name"] not in drop]
    events += [
        {
            "name": name,
            "kind": spec.get("kind", "hook"),
            "input": spec.get("input", {}),
            "output": spec.get("output", {}),
            **({"host_calls": spec["host_calls"]} if "host_calls" in spec else {}),
        }
        for name, spec in (add or {}).items()
    ]
    doc = {**base, "host_version": version, "events": events, "refresh": f"made up by the test suite from {like}"}
    folder = root / "captures" / f"{harness}@{version}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "catalog.json"
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return path


def field(required: bool = True, type_: str = "string", values: list[str] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"required": required, "type": type_}
    if values is not None:
        spec["values"] = values
    return spec


def decision_output(event: str, values: list[str]) -> dict[str, Any]:
    """A Claude-style output schema whose hookSpecificOutput carries a permissionDecision enum."""
    return {
        "hookSpecificOutput": {
            "required": False,
            "type": "object",
            "fields": {
                "hookEventName": field(True, "literal", [event]),
                "permissionDecision": field(False, "enum", values),
            },
        }
    }
