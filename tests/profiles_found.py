"""The contracts a test expects, found from profiles/ (never listed by hand), so pinning a new host
version (`pasture bump`) needs no test edit."""

from __future__ import annotations

import json

from repo_paths import REPO


def _key(contract_id: str) -> list[int]:
    return [int(part) for part in contract_id.partition("@")[2].split("-")[0].split(".")]


def contract_ids(harness: str) -> list[str]:
    """Every contract of ``harness``, oldest first."""
    return sorted((p.name for p in (REPO / "profiles").glob(f"{harness}@*") if p.is_dir()), key=_key)


def newest(harness: str) -> str:
    return contract_ids(harness)[-1]


def pinned(package: str) -> str:
    """The version tests/npm pins for an npm package."""
    return json.loads((REPO / "tests" / "npm" / "package.json").read_text())["dependencies"][package]


def admitting(harness: str, version: str) -> str:
    """The contract the runtime resolves for a release: the highest floor at or below it."""
    want = [int(p) for p in version.split(".")]
    return [c for c in contract_ids(harness) if _key(c) <= want][-1]
