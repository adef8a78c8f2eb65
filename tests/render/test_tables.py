"""Python contract tables: black-stable, importable with the standard library, faithful to the rows."""

from __future__ import annotations

import importlib.util
import sys

import black
import pytest
from loading import load_project
from repo_paths import REPO

from pasture.render.tables import member_name, table_artifacts


@pytest.fixture(scope="module")
def contracts():
    return load_project(REPO)


@pytest.fixture(scope="module")
def tables(contracts):
    return {a.path.rsplit("/", 1)[-1]: a for a in table_artifacts(contracts)}


def _table_names() -> list[str]:
    """_row.py, __init__.py and one module per contract found in profiles/ (no list to edit on a bump)."""
    import re

    folders = sorted(p.name for p in (REPO / "profiles").iterdir() if p.is_dir() and not p.name.startswith("."))
    return ["_row.py", "__init__.py", *[re.sub(r"[^0-9A-Za-z]+", "_", f) + ".py" for f in folders]]


@pytest.mark.parametrize("name", _table_names())
def test_table_bytes_and_black_stability(tables, name, golden):
    text = tables[name].text
    assert black.format_str(text, mode=black.Mode()) == text
    assert text == golden(tables[name].path)


def _import_package(tmp_path, tables):
    package = tmp_path / "pasture_contracts"
    package.mkdir()
    for name, artifact in tables.items():
        (package / name).write_text(artifact.text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        for mod in [m for m in sys.modules if m.startswith("pasture_contracts")]:
            del sys.modules[mod]
        return importlib.import_module("pasture_contracts")
    finally:
        sys.path.remove(str(tmp_path))


def test_tables_import_and_match_the_contracts(tmp_path, tables, contracts):
    index = _import_package(tmp_path, tables)
    assert set(index.CONTRACTS) == {c.id for c in contracts}
    for contract in contracts:
        module = importlib.import_module(f"pasture_contracts.{index.CONTRACTS[contract.id]}")
        assert list(module.ROWS) == [r.name for r in contract.events]
        assert [e.value for e in module.Event] == [r.name for r in contract.events]
        for row in contract.events:
            table_row = module.ROWS[row.name]
            assert table_row.failure == row.failure.value
            assert table_row.declared_failure == row.declared_failure.value
            assert table_row.response == row.response.value
            assert [(i.kind, i.field, i.required) for i in table_row.identities] == [
                (i.kind.value, i.field, i.required) for i in row.identities
            ]
    # Only the standard library (and the package itself) is imported.
    loaded = {name for name in sys.modules if name.startswith("pasture_contracts")}
    assert loaded
    spec_origin = {sys.modules[n].__spec__.origin for n in loaded}
    assert all(str(tmp_path) in origin for origin in spec_origin)


def test_member_names():
    assert member_name("SessionStart") == "SESSION_START"
    assert member_name("tool.execute.before") == "TOOL_EXECUTE_BEFORE"
    assert member_name("installation.update-available") == "INSTALLATION_UPDATE_AVAILABLE"
    assert member_name("experimental.provider.small_model") == "EXPERIMENTAL_PROVIDER_SMALL_MODEL"
