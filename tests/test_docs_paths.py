"""ARCHITECTURE.md and CONTRIBUTING.md name only modules that exist (issue 30): every file or folder path
they name in backticks (``pasture/...``, ``tests/...``, and the paths the folder table gives relative to
its row's folder), and every dotted ``pasture.`` name (a module, or a module and the attribute it defines).
A path with a placeholder (``<host>``) is checked for its folder."""

from __future__ import annotations

import importlib
import re
import tomllib

import pytest
from repo_paths import REPO

DOCS = ("ARCHITECTURE.md", "CONTRIBUTING.md")
PACKAGES = {p.name for p in (REPO / "pasture").iterdir() if p.is_dir() and (p / "__init__.py").exists()}
_TICKED = re.compile(r"`([^`\s]+)`")
#: the data folders pyproject maps into the package (``pasture.templates`` is templates/)
MAPPED = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-dir"]
_RELATIVE = re.compile(r"^(?:" + "|".join(sorted(PACKAGES)) + r")/")


def _exists(path: str) -> bool:
    if "<" in path:  # a placeholder: its folder exists
        path = path.split("<", 1)[0].rsplit("/", 1)[0]
    return (REPO / path.rstrip("/")).exists()


def _dotted_exists(name: str) -> bool:
    if name in MAPPED:
        return (REPO / MAPPED[name]).is_dir()
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        path = REPO.joinpath(*parts[:cut])
        if path.with_suffix(".py").exists() or (path / "__init__.py").exists():
            obj = importlib.import_module(module)
            for attr in parts[cut:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
    return False


def named_paths(doc: str) -> list[tuple[int, str]]:
    """(line, path) of every path the document names, relative paths of the folder table resolved."""
    found = []
    for number, line in enumerate((REPO / doc).read_text(encoding="utf-8").splitlines(), 1):
        row = re.match(r"\| `(pasture/[\w/]+/)` \|", line)
        for token in _TICKED.findall(line):
            token = token.split("::")[0].rstrip(".,:;)")
            if token.startswith(("pasture/", "tests/", "templates/", "profiles/", "captures/", "benchmarks/")):
                found.append((number, token))
            elif _RELATIVE.match(token) and re.search(r"\.(py|cjs)$|/$", token):
                found.append((number, "pasture/" + token))
            elif row and re.fullmatch(r"[\w]+\.(py|cjs)", token):
                found.append((number, row.group(1) + token))
    return found


def diagram_names(doc: str) -> list[tuple[int, str]]:
    """(line, name) of every ``<package>/<file>.py`` and bare ``<file>.py`` in the document's fenced blocks."""
    found, fenced = [], False
    for number, line in enumerate((REPO / doc).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
        elif fenced:
            found += [(number, name) for name in re.findall(r"[\w/<>]*\w\.(?:py|cjs)\b", line)]
    return found


def _somewhere(name: str) -> bool:
    if "/" in name:
        return _exists(name if name.startswith(("pasture/", "tests/")) else "pasture/" + name)
    return any(REPO.joinpath("pasture").rglob(name))


@pytest.mark.parametrize("doc", DOCS)
def test_every_file_the_diagrams_name_exists(doc):
    missing = [f"{doc}:{n}: {name}" for n, name in diagram_names(doc) if not _somewhere(name)]
    assert not missing, "\n".join(missing)


def named_modules(doc: str) -> list[tuple[int, str]]:
    found = []
    for number, line in enumerate((REPO / doc).read_text(encoding="utf-8").splitlines(), 1):
        for token in _TICKED.findall(line):
            token = token.split("(")[0].rstrip(".,:;")
            if re.fullmatch(r"pasture(\.\w+)+", token):
                found.append((number, token))
    return found


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_the_doc_names_exists(doc):
    missing = [f"{doc}:{n}: {p}" for n, p in named_paths(doc) if not _exists(p)]
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("doc", DOCS)
def test_every_module_the_doc_names_exists(doc):
    missing = [f"{doc}:{n}: {m}" for n, m in named_modules(doc) if not _dotted_exists(m)]
    assert not missing, "\n".join(missing)


def test_the_checks_catch_a_missing_path():
    assert _exists("pasture/hosts/<host>.py") and not _exists("pasture/nowhere/<host>.py")
    assert _dotted_exists("pasture.hosts.HOSTS") and not _dotted_exists("pasture.hosts.NOTHING")
    assert not _dotted_exists("pasture.nowhere")
