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
    path.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        if [ "$1" = "--version" ]; then echo "{version_line}"; exit 0; fi
        {body}
        """))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


PYTHON = sys.executable


def write_capture(root: Path, harness: str, version: str, scenarios: list[dict[str, Any]],
                  host_listed: list[str] | None = None, bus: list[str] | None = None) -> Path:
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
        doc = {"capture_format": 1, "generated_by": "pasture capture", "harness": harness, "host_version": version,
               "scenario": sc["name"], "channel": sc.get("channel"), "refused_event": sc.get("refused_event"),
               "result": {"refusal_held": held, "probe_file": "absent",
                          "effect": "the refused action never took effect: no probe file" if held else "no"}}
        (sub / "scenario.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        summaries.append({"name": sc["name"], "channel": sc.get("channel"), "refused_event": sc.get("refused_event"),
                          "refusal_held": held, "events_seen": sorted(sc.get("events", {}))})
    doc = {"capture_format": 1, "harness": harness, "host_version": version,
           "catalog": {"host_listed": host_listed, "registered": host_listed or []},
           "events_seen": sorted(seen), "scenarios": summaries}
    if bus:
        doc["bus_events_seen"] = sorted(bus)
    (folder / "capture.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    return folder
