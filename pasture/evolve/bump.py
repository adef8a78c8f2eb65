"""`pasture bump <harness> [--to VERSION]`: pin a new host version in one command.

Steps, each all-or-nothing, in this order (a failing step stops the bump and says which):

1. **version**: ``--to`` or the registry's ``latest`` (``npm view <package> version``);
2. **isolation**: refuse unless a loopback-only network namespace can be made (``--no-isolation``
   accepts the per-host offline settings alone);
3. **install** the version into ``.cache/npm/hosts/<harness>@<version>/`` (npm registry only);
4. **catalog**: extract the host's own catalog into ``captures/<harness>@<version>/catalog.json``;
5. **capture** the real host offline (every common scenario, plus scenarios that trigger events the
   catalog lists where one can be built, e.g. Claude Code's ``PreSkillShellCommand``);
6. **profile**: derive ``profiles/<harness>@<version>/`` from the newest older contract, the catalog
   and the capture (:mod:`.profile_new`), citing the new captures directly;
7. **pin the test hosts** (this repository's ``tests/npm`` pins, when the project has them) and
   relock, so the real-host tests run the new version;
8. **generate** every adapter;
9. **review report**: ``captures/<harness>@<version>/bump-report.md``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pasture import PastureError
from pasture.catalog import Catalog, CatalogError, catalog_path, find_catalog, write_catalog
from pasture.catalog import extract as extract_catalog
from pasture.catalog.packages import HOST_NPM, host_binary, install_host, npm_latest
from pasture.profile.versions import HostVersion, VersionError


class BumpError(PastureError, RuntimeError):
    """The bump stopped; the message names the step."""


@dataclass
class BumpResult:
    harness: str
    version: str
    base: str
    report_path: Path
    report: dict[str, Any]
    steps: list[str] = field(default_factory=list)


def _step(name: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except (CatalogError, VersionError) as exc:
        raise BumpError(f"{name}: {exc}") from None
    except RuntimeError as exc:
        if isinstance(exc, BumpError):
            raise
        raise BumpError(f"{name}: {exc}") from None


def pin_test_hosts(root: Path, harness: str, version: str, say: Callable[[str], None]) -> str | None:
    """Point this repository's pinned test hosts (tests/npm/package.json) at ``version`` and relock.

    Returns what was done, or None when the project pins no test hosts."""
    manifest = Path(root) / "tests" / "npm" / "package.json"
    relock = manifest.parent / "relock.py"
    package = HOST_NPM[harness][0]
    if not manifest.is_file():
        return None
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    deps = doc.get("dependencies", {})
    if package not in deps:
        return None
    if deps[package] == version:
        return f"tests/npm already pins {package} {version}"
    old = deps[package]
    deps[package] = version
    manifest.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    if relock.is_file():
        say(f"  relocking tests/npm ({package} {old} -> {version})")
        proc = subprocess.run(
            [sys.executable, str(relock)],
            cwd=manifest.parent,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        if proc.returncode != 0:
            deps[package] = old
            manifest.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            raise BumpError(f"relock of tests/npm failed (the pin is restored): {(proc.stdout + proc.stderr)[-1500:]}")
    readme = manifest.parent / "README.md"
    if readme.is_file():
        text = readme.read_text(encoding="utf-8")
        readme.write_text(text.replace(f"| `{package}` | {old} |", f"| `{package}` | {version} |"), encoding="utf-8")
    return f"tests/npm pins {package} {version} (was {old}); package-lock.json relocked"


def bump(
    root: Path,
    harness: str,
    to: str | None = None,
    *,
    allow_no_isolation: bool = False,
    force: bool = False,
    pin_tests: bool = True,
    timeout: float = 120.0,
    say: Callable[[str], None] = lambda _m: None,
) -> BumpResult:
    from pasture.check.drift import compare, write
    from pasture.evolve import review
    from pasture.evolve.capture import CaptureError, capture, require_isolation
    from pasture.evolve.captured import load_capture
    from pasture.evolve.profile_new import ProfileNewError, new_profile
    from pasture.evolve.status import closest_contract
    from pasture.hosts import HOSTS
    from pasture.profile.diagnostics import ProfileErrors
    from pasture.profile.loader import load_project
    from pasture.render.project import RenderError, render_project

    root = Path(root).resolve()
    if harness not in HOST_NPM:
        raise BumpError(f"unknown harness {harness!r}")
    steps: list[str] = []
    version = to or _step("version", lambda: npm_latest(HOST_NPM[harness][0]))
    _step("version", lambda: HostVersion.parse(version))
    say(f"bump {harness} to {version}" + ("" if to else " (newest on npm)"))
    try:
        contracts = load_project(root, hosts=HOSTS)
    except ProfileErrors as exc:
        raise BumpError(
            "the committed profiles do not validate; fix them first:\n" + "\n".join(p.render() for p in exc.problems)
        ) from None
    new_id = f"{harness}@{version}"
    if any(c.id == new_id for c in contracts) and not force:
        raise BumpError(f"profiles/{new_id} exists already; pass --force to derive it again")
    others = sorted((c for c in contracts if c.harness.value == harness and c.id != new_id), key=lambda c: c.version)
    if others and others[-1].version >= HostVersion.parse(version):
        raise BumpError(
            f"{version} is not newer than every {harness} contract (the newest is {others[-1].id}); "
            "a bump pins a new version (`pasture profile new` derives any other)"
        )
    # no contract yet: the first is derived from the host's own catalog and this version's capture alone
    base = closest_contract(others, harness, version) if others else None
    previous = f"previous contract {base.id}" if base is not None else "no previous contract (the first profile)"
    steps.append(f"version {version}" + ("" if to else " (npm latest)") + f"; {previous}")
    try:
        mode = require_isolation(allow_no_isolation)
    except CaptureError as exc:
        raise BumpError(f"isolation: {exc}") from None
    steps.append(f"isolation: {mode}")

    node_modules = _step("install", lambda: install_host(root, harness, version, say=say))
    steps.append(f"installed into {node_modules.parent.relative_to(root).as_posix()}/")
    say("  catalog: reading the host's own event catalog")
    doc = _step("catalog", lambda: extract_catalog(harness, version, node_modules=node_modules, root=root))
    path = write_catalog(root, doc)
    output_in_payload = HOSTS[harness].output_in_payload
    catalog = find_catalog(root, harness, version, output_in_payload=output_in_payload)
    assert catalog is not None
    steps.append(f"catalog {path.relative_to(root).as_posix()}: {len(doc['events'])} events")

    binary = _step("install", lambda: host_binary(harness, node_modules))
    say(f"  capture: running {binary.relative_to(root).as_posix()} offline")
    try:
        summary = capture(
            harness,
            binary,
            root / "captures",
            repo_root=root,
            timeout=timeout,
            say=say,
            allow_no_isolation=allow_no_isolation,
            catalog=catalog,
        )
    except CaptureError as exc:
        raise BumpError(f"capture: {exc}") from None
    steps.append(f"captured {len(summary.scenarios)} scenarios into captures/{new_id}/")

    try:
        report = new_profile(root, harness, version, base.id if base else None, force=True, catalog=catalog)
    except ProfileNewError as exc:
        raise BumpError(f"profile: {exc}") from None
    steps.append(f"derived profiles/{new_id}/ from " + (base.id if base else "the catalog and the capture"))

    if pin_tests:
        pinned = pin_test_hosts(root, harness, version, say)
        if pinned:
            steps.append(pinned)

    try:
        fresh = load_project(root, hosts=HOSTS)
        artifacts = render_project(fresh, hosts=HOSTS)
    except (ProfileErrors, RenderError) as exc:
        raise BumpError(f"generate: {exc}") from None
    drift = compare(root, artifacts)
    write(root, artifacts, drift)
    steps.append(f"generated: wrote {len(drift.missing) + len(drift.modified)} file(s), removed {len(drift.extra)}")

    new = next(c for c in fresh if c.id == new_id)
    old = next(c for c in fresh if c.id == base.id) if base is not None else None
    old_cap_dir = root / "captures" / (base.id if base is not None else new_id)
    old_cap = load_capture(old_cap_dir) if base is not None and (old_cap_dir / "capture.json").is_file() else None
    try:
        old_cat: Catalog | None = (
            find_catalog(root, harness, str(base.version), output_in_payload=output_in_payload)
            if base is not None
            else None
        )
    except CatalogError:
        old_cat = None
    rep = review.build(
        old, new, old_cat, catalog, old_cap, load_capture(root / "captures" / new_id), report, {"steps": steps}
    )
    report_path = catalog_path(root, harness, version).parent / "bump-report.md"
    review.write(report_path, rep)
    return BumpResult(harness, version, base.id if base else "", report_path, rep, steps)
