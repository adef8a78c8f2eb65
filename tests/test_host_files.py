"""A host is its own files (issue 30): everything that differs per host lives in its host module
(``pasture/hosts/<host>.py``), its runtime half (``pasture/runtime/hostwire/<wire>.py``) and its catalog
reader (``pasture/catalog/<reader>.py``), and every registered host has every per-host entry.

* every registered host has every table a host must provide (:data:`PER_HOST`); a missing one fails naming
  the table and where it goes, and CONTRIBUTING.md's "Add a host" names each of those places;
* at most :data:`LIMIT` modules outside a host's own files name it in their code (:mod:`hostnames`);
  :data:`NOT_YET_MOVED` lists the per-host knowledge still to move, which may only shrink.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from hostnames import naming_modules
from repo_paths import REPO

from pasture.hosts import HOSTS
from pasture.hosts.protocol import Host

#: the most modules outside a host's own files that may name it (the registry counts)
LIMIT = 6


def own_files(name: str) -> set[str]:
    """The host module (or, for a host that needs more than one, every module of its package
    ``pasture/hosts/<host>/``), its runtime half and its catalog reader."""
    host = HOSTS[name]
    module = type(host).__module__.rsplit(".", 1)[1]
    package = REPO / "pasture" / "hosts" / module
    if package.is_dir():
        mine = {p.relative_to(REPO).as_posix() for p in package.rglob("*.py") if "__pycache__" not in p.parts}
    else:
        mine = {f"pasture/hosts/{module}.py"}
    return mine | {
        f"pasture/runtime/hostwire/{host.wire}.py",
        f"pasture/catalog/{host.catalog_reader}.py",
        fake_model_file(host),
    }


def fake_model_file(host: Host) -> str:
    """The module of the fake model whose API the host's launcher speaks (issue 30 counts "its fake model"
    among a host's own files): found from the launcher's ``wire_protocol`` in the fakes' registry."""
    from pasture.hostenv.fake_models import PROTOCOLS

    protocol = PROTOCOLS[host.launcher.wire_protocol]
    return Path(inspect.getfile(protocol)).resolve().relative_to(REPO).as_posix()


# --- every host has every per-host entry ------------------------------------------------------------


def _members(host: Any) -> list[str]:
    members = [n for n in Host.__annotations__] + [
        n for n, v in vars(Host).items() if inspect.isfunction(v) and not n.startswith("_")
    ]
    return [m for m in members if not hasattr(host, m)]


def _wire(host: Any) -> list[str]:
    module = importlib.import_module(f"pasture.runtime.hostwire.{host.wire}")
    wanted = ("PROCEED_STDOUT", "BLOCKING_FAILURES", "deny", "ask", "tool_of", "TOOL_EVENT")
    return [n for n in wanted if not hasattr(module, n)]


def _wires(host: Any) -> list[str]:
    from pasture.runtime.hostwire import WIRES

    return [] if WIRES.get(host.name) == host.wire else [f"WIRES[{host.name!r}] is {WIRES.get(host.name)!r}"]


def _catalog_reader(host: Any) -> list[str]:
    try:
        module = importlib.import_module(f"pasture.catalog.{host.catalog_reader}")
    except ImportError as exc:
        return [str(exc)]
    return [n for n in ("files", "events") if not callable(getattr(module, n, None))]


def _harness(host: Any) -> list[str]:
    from pasture.profile.vocab import Harness

    return [] if host.name in {h.value for h in Harness} else [f"no Harness member {host.name!r}"]


def _surfaces(host: Any) -> list[str]:
    from pasture.profile.vocab import SURFACE_FAILURE_MODES

    missing = [s.value for s in host.surfaces if s not in SURFACE_FAILURE_MODES]
    return (["no surfaces"] if not host.surfaces else []) + missing


def _tool_kinds(host: Any) -> list[str]:
    """Every tool its captures show the host calling has a kind in its own table: else a ``tool_kind`` rule
    never matches it."""
    kinds = getattr(importlib.import_module(f"pasture.runtime.hostwire.{host.wire}"), "TOOL_KINDS", None)
    if not isinstance(kinds, dict) or not kinds:
        return ["no TOOL_KINDS"]

    found = set()
    pattern = re.compile(r'"(?:tool_name|toolName|tool)": *"([A-Za-z_]+)"')
    for path in REPO.glob(f"captures/{host.name}@*/**/*.json"):
        found |= set(pattern.findall(path.read_text(encoding="utf-8", errors="replace")))
    return sorted(n for n in found if n.lower() not in kinds)


def _answers(host: Any) -> list[str]:
    return [] if callable(getattr(host, "answer_candidates", None)) else ["answer_candidates"]


def _scenarios(host: Any) -> list[str]:
    scenarios = host.capture.scenario_set()
    return [] if scenarios.base else ["an empty scenario set"]


def _npm_pins(host: Any) -> list[str]:
    pinned = json.loads((REPO / "tests" / "npm" / "package.json").read_text())["dependencies"]
    return ([] if host.npm_packages else ["no npm_packages"]) + [p for p in host.npm_packages if p not in pinned]


def _fake_model(host: Any) -> list[str]:
    from pasture.hostenv.fake_models import PROTOCOLS

    protocol = host.launcher.wire_protocol
    return [] if protocol in PROTOCOLS else [f"no fake model speaks {protocol!r}"]


def _version_env(host: Any) -> list[str]:
    env = host.version_env("/home")
    return [] if isinstance(env, dict) else ["version_env must return a dict"]


def _profiles(host: Any) -> list[str]:
    folders = sorted(p.name for p in (REPO / "profiles").glob(f"{host.name}@*") if p.is_dir())
    missing = [
        f
        for f in folders
        if not (REPO / "captures" / f / "catalog.json").is_file()
        and "catalog_unavailable:" not in (REPO / "profiles" / f / "lifecycle.yaml").read_text(encoding="utf-8")
    ]
    return (["no profiles/<host>@<version>/"] if not folders else []) + [f"captures/{f}/catalog.json" for f in missing]


#: table -> (where it goes, the check: what is missing for a host). CONTRIBUTING.md's "Add a host" names
#: every place (tested below).
PER_HOST: dict[str, tuple[str, Callable[[Any], list[str]]]] = {
    "every member of Host": ("pasture/hosts/protocol.py", _members),
    "answer wire forms (answer_candidates)": ("pasture/hosts/<host>.py", _answers),
    "capture scenarios (capture.scenario_set())": ("pasture/hosts/<host>.py", _scenarios),
    "offline --version (version_env)": ("pasture/hosts/<host>.py", _version_env),
    "the runtime half": ("pasture/runtime/hostwire/<wire>.py", _wire),
    "the hook's registry (WIRES)": ("pasture/runtime/hostwire/__init__.py", _wires),
    "tool kinds (TOOL_KINDS)": ("pasture/runtime/hostwire/<wire>.py", _tool_kinds),
    "catalog reader": ("pasture/catalog/<reader>.py", _catalog_reader),
    "harness vocabulary (Harness)": ("pasture/profile/vocab.py", _harness),
    "surfaces and their failure modes (SURFACE_FAILURE_MODES)": ("pasture/profile/vocab.py", _surfaces),
    "npm pins": ("tests/npm/package.json", _npm_pins),
    "fake model API (launcher.wire_protocol)": ("pasture/hostenv/fake_models/", _fake_model),
    "profiles and their catalogs": ("profiles/<host>@<version>/", _profiles),
}


@pytest.mark.parametrize("name", list(HOSTS))
def test_every_host_has_every_per_host_entry(name):
    missing = {f"{table} ({where})": gaps for table, (where, check) in PER_HOST.items() if (gaps := check(HOSTS[name]))}
    assert not missing, f"{name} lacks: {missing}"


def test_the_table_check_names_what_is_missing():
    class Bare:
        name = "nobody"
        wire = "nobody"
        catalog_reader = "nobody"
        surfaces = ()

    assert "answer_candidates" in _answers(Bare())
    assert _harness(Bare()) == ["no Harness member 'nobody'"]
    assert _wires(Bare()) == ["WIRES['nobody'] is None"]
    assert "surface_of" in _members(Bare())
    assert _tool_kinds(type("NoKinds", (), {"name": "nobody", "wire": "guarded"})()) == ["no TOOL_KINDS"]


def _add_a_host() -> str:
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    return text.split("## Add a host (a new harness)", 1)[1].split("\n## ", 1)[0]


def test_contributing_names_every_place_a_host_provides():
    section = _add_a_host()
    missing = sorted({where for where, _check in PER_HOST.values() if where not in section})
    assert not missing, f'CONTRIBUTING.md\'s "Add a host" does not name {missing}'


# --- a host's name stays in its own files -----------------------------------------------------------

#: Modules outside a host's own files that still name it, host by host: the per-host knowledge not yet moved
#: into the host's files (issue 30). An entry leaves when its move lands (a stale entry fails); none may join.
#: The runtime's per-host data lives in the hostwire modules (guarded files, screen words, tool kinds and the
#: tool event, agent judges and their headless command lines, the variables a capture records), and what every
#: hook event reads whatever its harness is copied into the hook's registry (runtime/hostwire/__init__.py,
#: held equal by tests/runtime/test_host_runtime_data.py); a host's fake model is among its own files.
#: Within the six: the registries (hosts/__init__.py, runtime/hostwire/__init__.py, profile/vocab.py's closed
#: vocabulary) and the CLI help's examples (cli/examples.py); Claude Code's also count hosts/codex/__init__.py
#: (Codex's catalog probe registers every event Claude Code's profiles know, as Codex took Claude Code's event
#: names, and its recorded method says so: the committed captures hold that text) and hosts/opencode.py
#: (OpenCode's own variable OPENCODE_DISABLE_CLAUDE_CODE). The gates are host-neutral (a judge's attach
#: server is ``harness_server``), and the catalog rules ask the host handed in (``surface_of``,
#: ``throw_refuses``, ``output_in_payload``), so nothing is pending.
NOT_YET_MOVED: dict[str, set[str]] = {}


def test_naming_counts_strings_and_identifiers_not_docstrings(tmp_path):
    from hostnames import code_words, names

    module = tmp_path / "m.py"
    module.write_text('"""Claude Code, Codex."""\n# opencode\nPI_DIR = ".claude"\n', encoding="utf-8")
    words = code_words(module)
    assert names("claude", words) and names("pi", words)
    assert not names("codex", words) and not names("opencode", words)
    assert not names("pi", {"pipe", "spike"})


@pytest.mark.parametrize("name", list(HOSTS))
def test_at_most_six_modules_outside_a_hosts_files_name_it(name):
    found = naming_modules(name, own_files(name))
    pending = NOT_YET_MOVED.get(name, set())
    stale = sorted(pending - set(found))
    assert not stale, f"{name}: {stale} no longer name it; take them out of NOT_YET_MOVED"
    counted = [m for m in found if m not in pending]
    assert len(counted) <= LIMIT, (
        f"{len(counted)} modules outside {name}'s own files name it (at most {LIMIT}; {len(found)} with "
        f"NOT_YET_MOVED): {counted}"
    )
