"""--root tells the truth about templates: the project's templates/ overrides the packaged ones file
by file (openapi-python-client's custom-template folder), check sees an edit there, and an override
renders in Jinja's sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.render import env as template_env
from generator.resources import templates_folder
from profile_fixture import write_project

DOCS = "docs/events.md.j2"


def _tree(root: Path) -> dict[str, bytes]:
    out = root / "generated"
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path, cli):
    write_project(tmp_path)
    assert cli("--root", str(tmp_path), "generate").exit_code == 0
    return tmp_path


def _override(project: Path, name: str, text: str) -> Path:
    target = project / "templates" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def test_an_edit_in_the_roots_templates_is_drift(project, cli):
    packaged = (Path(templates_folder()) / DOCS).read_text(encoding="utf-8")
    _override(project, DOCS, packaged + "\nOverridden by this project.\n")
    result = cli("--root", str(project), "check")
    assert result.exit_code == 1
    assert "modified: generated/claude-code@2.1.261/events.md" in result.stdout
    assert "+Overridden by this project." in result.stdout
    # only the files that template renders (and the manifest listing their digests) changed
    modified = [line for line in result.stdout.splitlines() if line.startswith("modified: ")]
    assert modified == ["modified: generated/claude-code@2.1.261/events.md", "modified: generated/manifest.json"]
    assert cli("--root", str(project), "generate").exit_code == 0
    assert (project / "generated/claude-code@2.1.261/events.md").read_text().endswith("Overridden by this project.\n")
    clean = cli("--root", str(project), "check", "--json")
    doc = json.loads(clean.stdout)
    assert clean.exit_code == 0 and doc["overridden_templates"] == [DOCS]
    assert doc["templates"] == [str(project / "templates"), templates_folder()]


def test_templates_the_root_lacks_come_from_the_package(project, cli):
    _override(project, "unrelated.j2", "not used\n")
    result = cli("--root", str(project), "check", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["overridden_templates"] == []


def test_an_override_cannot_reach_python_internals(project, cli):
    before = _tree(project)
    _override(project, "json.j2", "{{ document.__class__.__mro__[1].__subclasses__() }}\n")
    result = cli("--root", str(project), "generate")
    assert result.exit_code == 2
    assert "template error" in result.stderr and "nothing was written" in result.stderr
    assert _tree(project) == before


def test_a_broken_override_names_its_file_and_line(project, cli):
    before = _tree(project)
    path = _override(project, "json.j2", "ok\n{% for x in %}\n")
    result = cli("--root", str(project), "check")
    assert result.exit_code == 2
    assert f"{path}:2: template syntax error" in result.stderr
    assert _tree(project) == before


def test_the_packaged_folder_is_not_its_own_override():
    """An editable checkout renders its own templates/ (the packaged folder): no sandbox, no override."""
    root = Path(templates_folder()).parent
    assert template_env.search_path(root) == (templates_folder(),)
    assert template_env.search_path(None) == (templates_folder(),)
