"""Load a project's profiles: every folder under profiles/ read (reading.py), checked (rules.py) and
resolved into a Contract (contracts.py).

Validation runs over everything and collects every problem; nothing is returned (and so nothing
can be written) unless all profiles are clean.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from pasture.profile import rules
from pasture.profile.answers import derive
from pasture.profile.catalog import CatalogError, find_catalog
from pasture.profile.closed import check as check_against_catalog
from pasture.profile.contracts import Contract, RuntimeContract
from pasture.profile.diagnostics import Problem, ProfileErrors
from pasture.profile.hostview import ProfileHost
from pasture.profile.models import LifecycleFile, RuntimeFile
from pasture.profile.reading import read_yaml, relpath, validate_shape
from pasture.profile.vocab import Harness

LIFECYCLE = "lifecycle.yaml"
RUNTIME = "runtime.yaml"


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic GC while profiles load.

    Loading allocates a few hundred thousand long-lived objects (YAML nodes, source marks, models) and
    frees almost none, so every collection the allocations trigger walks a growing heap for nothing:
    with the collector on, loading cost per event grew from 0.18 ms at 100 events to 0.43 ms at 5,000
    (benchmarks/bench_generate.py); paused, it stays at ~0.15 ms. Reference counting still frees
    everything acyclic; the collector resumes (and catches up) afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def load_project(
    root: Path,
    only: Iterable[str] | None = None,
    cited: set[str] | None = None,
    *,
    hosts: Mapping[str, ProfileHost],
) -> list[Contract]:
    """Load and validate every contract under root/profiles; raise ProfileErrors with all problems.

    ``cited``, when given, collects every repository path a citation resolved to. ``hosts``: harness id ->
    its host (the registry, handed in by the caller: profile/ never imports it).
    """
    root = Path(root)
    profiles = root / "profiles"
    problems: list[Problem] = []
    contracts: list[Contract] = []
    if not profiles.is_dir():
        raise ProfileErrors(
            [
                Problem(
                    "profiles",
                    1,
                    1,
                    "-",
                    None,
                    None,
                    "no profiles/ folder here",
                    "run in a project root or pass --root DIR",
                )
            ]
        )
    # __pycache__: profiles/ is also the data package pasture.profiles (see pasture/resources.py).
    folders = sorted(
        p for p in profiles.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name != "__pycache__"
    )
    if not folders:
        raise ProfileErrors(
            [
                Problem(
                    "profiles",
                    1,
                    1,
                    "-",
                    None,
                    None,
                    "profiles/ holds no contract folder",
                    "add profiles/<harness>@<version>/lifecycle.yaml and runtime.yaml",
                )
            ]
        )
    wanted = set(only) if only else None
    with _no_cycle_collection():
        for folder in folders:
            if wanted is not None and folder.name not in wanted:
                continue
            contract = _load_contract(root, folder, problems, cited, hosts)
            if contract is not None:
                contracts.append(contract)
    if wanted is not None:
        for name in sorted(wanted - {f.name for f in folders}):
            problems.append(
                Problem(
                    "profiles",
                    1,
                    1,
                    name,
                    None,
                    None,
                    f"no contract {name!r} in profiles/",
                    "choose one of: " + ", ".join(f.name for f in folders),
                )
            )
    if problems:
        raise ProfileErrors(problems)
    return contracts


def _host(f: Any, harness: Harness | None, hosts: Mapping[str, ProfileHost]) -> ProfileHost | None:
    """The host of ``harness`` among ``hosts``; a problem when the caller loads without it."""
    if harness is None:
        return None
    host = hosts.get(harness.value)
    if host is None:
        f.add(
            ("contract",),
            f"a {harness.value} contract, and this command loads the contracts of {', '.join(hosts) or 'no host'} only",
            f"load it with its host ({harness.value})",
            field="contract",
        )
    return host


def _lifecycle(
    root: Path, folder: Path, problems: list[Problem], cited: set[str] | None, hosts: Mapping[str, ProfileHost]
) -> tuple | None:
    f, data = read_yaml(root, folder / LIFECYCLE, folder.name, problems, cited)
    if data is None:
        return None
    ident = rules.contract_identity(f, data.get("contract"), folder.name)
    if ident is not None:
        f.contract = data["contract"]
    model = validate_shape(f, LifecycleFile, data, "events")
    if model is None:
        return None
    harness, recorded = ident if ident else (None, None)
    admission = rules.resolve_admission(f, model.admission, recorded)
    for name, url in model.sources.items():
        rules.resolve_citation(f, root, {}, url, ("sources", name), f"source {name}", "sources")
    host = _host(f, harness, hosts)
    rows = rules.resolve_rows(f, root, model, harness, host)
    check_against_catalog(f, root, model, harness, recorded, host)
    if ident is None or admission is None or rows is None or f.has_problems():
        return None
    return harness, recorded, admission, rows


def _runtime(
    root: Path,
    folder: Path,
    problems: list[Problem],
    contract_id: str | None,
    harness: Harness | None,
    hosts: Mapping[str, ProfileHost],
) -> RuntimeContract | None:
    f, data = read_yaml(root, folder / RUNTIME, contract_id or folder.name, problems)
    if data is None:
        return None
    model = validate_shape(f, RuntimeFile, data, "capabilities")
    if model is None:
        return None
    host = hosts.get(harness.value) if harness is not None else None  # a missing one: the lifecycle file says so
    return rules.runtime_contract(f, model, contract_id, harness, host)


def _with_answers(
    root: Path,
    contract_id: str,
    harness: Harness,
    version: Any,
    rows: tuple,
    cited: set[str] | None,
    host: ProfileHost,
) -> tuple:
    """Each row with its capability matrix: the host catalog's output schema and mutation mode, and
    the answer captures of this very version (profile/answers.py)."""
    try:
        catalog = find_catalog(root, harness.value, str(version), output_in_payload=host.output_in_payload)
    except CatalogError:
        catalog = None  # the closed-catalog check has already reported it
    forms = derive(root, contract_id, host, version, rows, catalog)
    if cited is not None:
        cited.update(f.evidence for fs in forms.values() for f in fs if f.evidence)
    return tuple(replace(row, answers=forms[row.name]) for row in rows)


def _load_contract(
    root: Path, folder: Path, problems: list[Problem], cited: set[str] | None, hosts: Mapping[str, ProfileHost]
) -> Contract | None:
    before = len(problems)
    life = _lifecycle(root, folder, problems, cited, hosts)
    contract_id = folder.name
    harness = None
    if life is not None:
        harness = life[0]
    else:
        # Still check the runtime profile, against the id the folder claims, so every problem shows.
        text = folder.name.partition("@")[0]
        harness = Harness(text) if text in Harness._value2member_map_ else None
    runtime = _runtime(root, folder, problems, contract_id, harness, hosts)
    if life is None or runtime is None or len(problems) != before:
        return None
    harness, version, admission, rows = life
    rows = _with_answers(root, contract_id, harness, version, rows, cited, hosts[harness.value])
    return Contract(
        id=contract_id,
        harness=harness,
        version=version,
        admission=admission,
        events=rows,
        runtime=runtime,
        folder=relpath(root, folder),
        lifecycle_file=relpath(root, folder / LIFECYCLE),
        runtime_file=relpath(root, folder / RUNTIME),
    )
