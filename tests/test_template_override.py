"""--root tells the truth about templates: the project's templates/ overrides the packaged ones file
by file (openapi-python-client's custom-template folder), check sees an edit there, and an override
renders in Jinja's sandbox."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from profile_fixture import write_project

from pasture.render import env as template_env
from pasture.resources import templates_folder

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


# --- bounded: nothing from outside templates/, and a bound on time and size, each with file:line -------

SECRET = "SECRET-OUTSIDE-TEMPLATES"


@pytest.fixture
def outside(project) -> Path:
    """A file of the project outside templates/ (standing in for /etc/passwd or ~/.ssh/id_ed25519)."""
    path = project / "secret.txt"
    path.write_text(SECRET + "\n")
    return path


def _refused(project: Path, cli, before: dict, *needles: str) -> str:
    result = cli("--root", str(project), "generate")
    assert result.exit_code == 2, result.output
    assert "nothing was written" in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    assert _tree(project) == before
    assert SECRET not in result.output
    return result.stderr


@pytest.mark.parametrize(
    "statement",
    [
        '{% include "leak.j2" %}',
        '{% import "leak.j2" as leak %}',
        '{% from "leak.j2" import x %}',
        '{% extends "leak.j2" %}',
    ],
)
def test_an_override_cannot_load_a_symlink_that_leaves_templates(project, cli, outside, statement):
    before = _tree(project)
    path = _override(project, "json.j2", "{# first line #}\n" + statement + "\n")
    (project / "templates" / "leak.j2").symlink_to(outside)
    _refused(project, cli, before, f"{path}:2: template error: ", f"resolves to {outside}, outside")


def test_a_symlinked_override_or_folder_that_leaves_templates_is_refused(project, cli, outside):
    before = _tree(project)
    (project / "templates").mkdir()
    (project / "templates" / "json.j2").symlink_to(outside)
    _refused(project, cli, before, f"templates/json.j2 resolves to {outside}, outside")
    (project / "templates" / "json.j2").unlink()
    (project / "templates" / "sub").symlink_to(project)
    path = _override(project, "json.j2", '{% include "sub/secret.txt" %}\n')
    _refused(project, cli, before, f"{path}:1: template error: ", f"resolves to {outside}")


def test_a_templates_folder_that_is_a_link_is_refused(project, cli, tmp_path):
    before = _tree(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "json.j2").write_text((Path(templates_folder()) / "json.j2").read_text())
    (project / "templates").symlink_to(elsewhere)
    _refused(project, cli, before, "is a link to", "must live in its own templates/ folder")


def test_a_fifo_override_is_refused_not_waited_on(project, cli):
    before = _tree(project)
    (project / "templates").mkdir()
    os.mkfifo(project / "templates" / "json.j2")  # opening it for reading would block without a writer
    _refused(project, cli, before, "json.j2 is not a regular file")


def test_a_link_that_stays_inside_templates_is_fine(project, cli):
    packaged = (Path(templates_folder()) / "json.j2").read_text(encoding="utf-8")
    _override(project, "real-json.j2", packaged)
    (project / "templates" / "json.j2").symlink_to("real-json.j2")
    assert cli("--root", str(project), "generate").exit_code == 0


BOUNDED = {
    # a loop nest no sandbox hook runs in: only the deadline stops it
    "nested loops": (
        "{% set x = range(100000)|list %}{% for a in x %}{% for b in x %}{% endfor %}{% endfor %}",
        "took longer than 0.5 s",
    ),
    "nested loops calling range": (
        "{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
        "took longer than 0.5 s",
    ),
    "huge string multiply": ('{{ "a" * 10000000000 }}', "repeating a value 10000000000 times"),
    "huge list multiply": ('{{ ["a"] * 10000000000 }}', "repeating a value 10000000000 times"),
    "doubling with ~": (
        '{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}'
        "{% endfor %}{{ ns.s|length }}",
        "larger than",
    ),
    "doubling with +": (
        '{% set ns = namespace(s="ab") %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}'
        "{% endfor %}{{ ns.s|length }}",
        "larger than",
    ),
    "doubling with join": (
        '{% set ns = namespace(s="ab") %}{% for i in range(40) %}'
        "{% set ns.s = ns.s.join([ns.s, ns.s]) %}{% endfor %}{{ ns.s|length }}",
        "larger than",
    ),
    "replace that multiplies": (
        '{% set ns = namespace(s="ab") %}{% for i in range(40) %}'
        '{% set ns.s = ns.s|replace("a", ns.s) %}{% endfor %}{{ ns.s|length }}',
        "larger than",
    ),
    "a list that keeps growing": (
        '{% set l = [] %}{% set item = "x" * 100000 %}{% for i in range(100000) %}'
        '{{ l.append(item) or "" }}{% endfor %}',
        "calling append would be larger than",
    ),
    "huge power": ("{{ 2 ** 100000000 }}", "too large a number"),
    "huge printf width": ('{{ "%09999999999d" % 1 }}', "width or precision that large"),
    "huge range": ("{{ range(10000000000)|length }}", "calling range got the number 10000000000"),
    "long range": ("{{ range(-4000000, 4000000)|length }}", "range() would be larger than"),
    "output too large": (
        "{% for a in range(100000) %}{% for b in range(100000) %}xxxxxxxxxxxxxxxxxxxx{% endfor %}{% endfor %}",
        "renders more than",
    ),
    # what the explicit bounds let through (one builtin call, bounded inputs, a huge result) meets
    # the memory backstop
    "memory": ('{{ ("\t" * 300).expandtabs(4000000)|length }}', "more than 512 MiB of memory"),
}


@pytest.mark.parametrize("kind", sorted(BOUNDED))
def test_rendering_an_override_is_bounded_in_time_and_size(project, cli, monkeypatch, kind):
    body, message = BOUNDED[kind]
    monkeypatch.setattr(template_env, "RENDER_SECONDS", 0.5)
    before = _tree(project)
    path = _override(project, "json.j2", "{# a project's own json.j2 #}\n" + body + "\n")
    _refused(project, cli, before, f"{path}:2: template error: ", message)


def test_the_bounds_leave_the_alarm_and_memory_limit_as_they_were(project, cli, monkeypatch):
    import resource
    import signal

    limits, handler = resource.getrlimit(resource.RLIMIT_AS), signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(template_env, "RENDER_SECONDS", 0.5)
    _override(project, "json.j2", (Path(templates_folder()) / "json.j2").read_text(encoding="utf-8"))
    assert cli("--root", str(project), "generate").exit_code == 0
    _override(project, "json.j2", '{{ "a" * 10000000000 }}\n')
    assert cli("--root", str(project), "generate").exit_code == 2
    assert resource.getrlimit(resource.RLIMIT_AS) == limits and signal.getsignal(signal.SIGALRM) == handler
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
