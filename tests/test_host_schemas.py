"""The committed host schemas are the exact upstream bytes tests/host_schemas/README.md records."""

from __future__ import annotations

import hashlib

import pytest
from host_schemas import FOLDER

EXPECTED = {
    "claude-code-settings.schema.json": "6d4a6e3c7adedffce8079ccaef0a4bab5f5718b054421b4475c788a0ae4bedfe",
    "codex-config.schema.json": "cc3e67696fa451d0880099b611e9e2e9adedbfc3769080a29bb51d25e6d0b25b",
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_host_schema_is_the_recorded_upstream_copy(name):
    assert hashlib.sha256((FOLDER / name).read_bytes()).hexdigest() == EXPECTED[name]
    assert f"`{EXPECTED[name]}`" in (FOLDER / "README.md").read_text(encoding="utf-8")


def test_every_committed_schema_is_recorded():
    assert sorted(p.name for p in FOLDER.glob("*.json")) == sorted(EXPECTED)
