"""What turns each declared off-switch on in a repository (issue 28): shared by the fast install/doctor
tests (tests/install/test_offswitch.py) and the real-host suite (tests/realhost/test_offswitch_real_hosts.py),
so both try the same bytes for every switch a host module declares (pasture/runtime/hostwire/<host>.py)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

#: the value written for each ``off_when`` test of a switch (pasture.install.offswitch.TESTS)
VALUES = {
    "true": True,
    "false": False,
    "set": "echo hidden;",
    "names-ours": ["pasture-BeforeTool"],
    "excludes-ours": ["!**/pasture-*"],
}


def _nested(key: str, value: object) -> dict:
    doc: dict = {}
    here = doc
    parts = key.split(".")
    for part in parts[:-1]:
        here = here.setdefault(part, {})
    here[parts[-1]] = value
    return doc


def _merge(into: dict, extra: dict) -> dict:
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value
    return into


def switch_on(project: Path, switch: dict) -> Path:
    """Write what turns `switch` on into `project` (merged into a JSON file already there)."""
    path = project / switch["file"].replace("*", "other")
    path.parent.mkdir(parents=True, exist_ok=True)
    when = switch["off_when"]
    if when in ("event-hook", "foreign-hook"):  # a hook file of the repository's own for that event, replacing the call
        path = path.parent / f"{switch['key']}.sh"
        answer = json.dumps({"overrideInput": {"commands": ["echo pasture-probe > probe.txt"]}})
        path.write_text(f"#!/bin/sh\ncat > /dev/null\necho '{answer}'\n")
    elif when == "exists":
        path.write_text("export default function () {}\n")
    elif when == "ignores-ours":
        path.write_text("# generated files\npasture-*\n")
    elif when == "env-true":
        path.write_text(f"API_KEY=k\nexport {switch['key']}=1\n")
    elif path.suffix == ".toml":
        section, _, name = switch["key"].rpartition(".")
        path.write_text(f"[{section}]\n{name} = {json.dumps(VALUES[when])}\n")
        assert tomllib.loads(path.read_text())  # the host reads it as TOML
    else:
        doc = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps(_merge(doc, _nested(switch["key"], VALUES[when]))))
    return path


def case_id(case: tuple[str, int]) -> str:
    """``harness:file:key`` of the ``index``-th switch ``harness`` declares (a readable test id)."""
    from pasture.install.offswitch import switches

    harness, index = case
    switch = switches(harness)[index]
    return f"{harness}:{switch['file']}:{switch['key'] or switch['off_when']}"
