"""The host registry (pasture.hosts.HOSTS) is the one list of hosts: every other table of hosts is
derived from it or checked against it here."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from pasture.hosts import HOSTS, LAUNCHERS, host
from pasture.profile.vocab import Harness, HookSurface
from pasture.runtime import hostwire

PROTOCOL_ATTRIBUTES = (
    "name",
    "display_name",
    "instructions_file",
    "surfaces",
    "native_calls",
    "npm_packages",
    "binary",
    "binary_flag",
    "binary_env",
    "wire",
    "catalog_reader",
    "gate_failure",
    "launcher",
)


def test_the_registry_is_the_closed_harness_vocabulary():
    assert list(HOSTS) == [h.value for h in Harness]


def test_every_host_implements_the_interface():
    for name, h in HOSTS.items():
        missing = [a for a in PROTOCOL_ATTRIBUTES if not hasattr(h, a)]
        assert missing == [], f"{name} lacks {missing}"
        assert h.name == name and h.launcher.host == name and LAUNCHERS[name] is h.launcher
        assert h.surfaces and all(isinstance(s, HookSurface) for s in h.surfaces)
        assert all(h.surface_of(bus) in h.surfaces for bus in (False, True))
        assert callable(h.artifacts)


def test_each_surface_belongs_to_exactly_one_host():
    owners = [s for h in HOSTS.values() for s in h.surfaces]
    assert sorted(owners) == sorted(HookSurface)


def test_the_runtime_wires_name_the_same_hosts():
    assert hostwire.WIRES == {name: h.wire for name, h in HOSTS.items()}
    for h in HOSTS.values():
        wire = hostwire.wire(h.name)
        assert {"PROCEED_STDOUT", "BLOCKING_FAILURES", "deny", "ask", "tool_of"} <= set(dir(wire))


def test_an_unknown_harness_answers_as_a_command_host():
    assert hostwire.wire("nobody").PROCEED_STDOUT == ""


def test_every_catalog_reader_reads_files_and_events():
    for h in HOSTS.values():
        reader = importlib.import_module(f"pasture.catalog.{h.catalog_reader}")
        assert callable(reader.files) and callable(reader.events)


def test_an_unknown_host_is_refused_with_the_members():
    with pytest.raises(ValueError, match="claude-code, codex, opencode"):
        host("pi")


def test_the_runtime_half_never_imports_the_build_half():
    probe = (
        "import sys; import pasture.runtime.answer, pasture.runtime.envelope; "
        "[pasture.runtime.hostwire.wire(h) for h in ('claude-code', 'codex', 'opencode')]; "
        "print(sorted(m for m in sys.modules if m.startswith('pasture.') and "
        "not m.startswith(('pasture.runtime', 'pasture.entry'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import pasture.runtime.hostwire; " + probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "[]", done.stdout
