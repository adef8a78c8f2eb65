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
    "unsupported_operations",
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
    with pytest.raises(
        ValueError, match="claude-code, codex, opencode, gemini-cli, copilot-cli, pi, qwen-code, cline$"
    ):
        host("cursor")


def test_the_runtime_half_never_imports_the_build_half():
    probe = (
        "import sys; import pasture.runtime.answer, pasture.runtime.envelope; "
        "[pasture.runtime.hostwire.wire(h) for h in ('claude-code', 'codex', 'opencode', 'pi')]; "
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


# --- every member of the Host protocol, on every registered host -----------------------------------


def _protocol_members() -> tuple[set[str], set[str]]:
    """(attributes, methods) the Host protocol declares."""
    from pasture.hosts.protocol import Host as HostProtocol

    attributes = set(HostProtocol.__annotations__)
    methods = {n for n, v in vars(HostProtocol).items() if callable(v) and not n.startswith("_")}
    return attributes, methods


def test_every_host_has_every_member_of_the_protocol():
    attributes, methods = _protocol_members()
    assert set(PROTOCOL_ATTRIBUTES) <= attributes and {"target", "install", "trust", "capture"} <= attributes | methods
    for name, h in HOSTS.items():
        missing = sorted(m for m in attributes | methods if not hasattr(h, m))
        assert missing == [], f"{name} lacks {missing}"
        assert [m for m in methods if not callable(getattr(h, m))] == [], name
        assert [a for a in attributes if callable(getattr(h, a)) and a not in ("launcher", "capture")] == [], name


def _newest(harness: str) -> str:
    from repo_paths import REPO

    from pasture.install.places import contract_ids

    return contract_ids(REPO, harness)[-1][1]


@pytest.mark.parametrize("name", list(HOSTS))
def test_install_members_name_a_target_and_the_generated_adapter(name, tmp_path):
    from repo_paths import REPO

    from pasture.install.places import Target, TargetError, contract_ids

    h = HOSTS[name]
    env = {"HOME": str(tmp_path / "home")}
    user = h.target(None, env)
    assert isinstance(user, Target) and user.harness == name and user.scope == "user" and user.project is None
    assert (tmp_path / "home") in user.file.parents, "user scope lives below HOME when no variable says otherwise"
    project = h.target(tmp_path, env)
    assert project.scope == "project" and project.project == tmp_path.resolve()
    assert tmp_path.resolve() in project.file.parents and project.file.name == h.adapter_file.rsplit("/", 1)[-1]
    with pytest.raises(TargetError):
        h.target(tmp_path / "no-such-folder", env)
    available = contract_ids(REPO, name)
    assert (REPO / "generated" / available[-1][1] / h.adapter_file).is_file()
    chosen, why = h.pick_contract(available, None, "no binary")
    assert chosen in [cid for _v, cid in available] and why
    assert h.install_flags <= {"--trust-project", "--trust-only", "--codex-bin"}


@pytest.mark.parametrize("name", list(HOSTS))
def test_doctor_reads_the_generated_adapter_as_ours_and_as_generated(name, tmp_path):
    """read_installation on generated/'s adapter finds our installation of that contract, and
    check_adapter says it is exactly what the contract renders; a foreign file is not ours."""
    from repo_paths import REPO

    from pasture.doctor.installed import Installation
    from pasture.install.adapter import load_adapter

    h = HOSTS[name]
    contract = _newest(name)
    target = h.target(tmp_path, {"HOME": str(tmp_path / "home")})
    text = (REPO / "generated" / contract / h.adapter_file).read_text(encoding="utf-8")
    inst = h.read_installation(target, text)
    assert isinstance(inst, Installation) and inst.contract == contract and inst.harness == name
    findings = h.check_adapter(inst, load_adapter(REPO, contract, h))
    assert [(f.check, f.status) for f in findings] == [("adapter", "ok")], [f.message for f in findings]
    assert h.read_installation(target, '{"hooks": {}}\n' if text.startswith("{") else "// mine\n") is None


@pytest.mark.parametrize("name", list(HOSTS))
def test_capture_members_describe_this_host(name):
    from pasture.hosts.recording import CaptureAdapter
    from pasture.hosts.scenario_sets import ScenarioSet
    from pasture.profile.vocab import IdentityKind

    h = HOSTS[name]
    assert isinstance(h.capture, CaptureAdapter) and h.capture.harness == name
    scenarios = h.capture.scenario_set()
    assert isinstance(scenarios, ScenarioSet) and scenarios.base
    assert "allow" in [s.name for s in scenarios.base]
    kinds = {k.value for k in IdentityKind}
    for fields in (h.identity_fields, h.capture_identity_fields):
        assert fields and set(fields.values()) <= kinds
    assert set(h.capture_identity_fields) <= set(h.identity_fields)
    surfaces = {s.value for s in h.surfaces}
    assert set(h.observation_axes) == surfaces and set(h.gate_axes) <= surfaces
    assert {package for package, _argv in h.npm_postinstall} <= set(h.npm_packages)
    assert h.lifecycle_payload("E", {"input": 1}, False) is not None
