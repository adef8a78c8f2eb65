"""Where the installed package keeps its data: found through the import system, never by path arithmetic.

The repository keeps the design card's layout (templates/, profiles/, captures/ and
generated/python/pasture_contracts beside pasture/); pyproject.toml maps each into the
distribution as a package of its own:

    templates/                          -> pasture.templates   (the Jinja templates)
    profiles/                           -> pasture.profiles    (the pinned host contracts)
    captures/                           -> pasture.captures    (the evidence those profiles cite)
    generated/python/pasture_contracts  -> pasture_contracts     (the tables the hook runtime imports)

A wheel holds real folders at those import names; an editable install's finder maps the same names
to the checkout's folders. ``importlib.util.find_spec`` locates a package's folder without running
its ``__init__`` (no ``__pycache__`` written into a data folder), and is stdlib-only, so the hook
path and the fast ``pasture check`` may use it.
"""

from __future__ import annotations

import importlib.util
import os

from pasture import PastureError

TEMPLATES = "pasture.templates"
PROFILES = "pasture.profiles"
CAPTURES = "pasture.captures"
CONTRACT_TABLES = "pasture_contracts"
# Data packages hold no code: every folder under them is data, not a subpackage.
DATA_PACKAGES = (TEMPLATES, PROFILES, CAPTURES)


class MissingResource(PastureError, RuntimeError):
    """The installation lacks a packaged folder (a broken or partial install)."""


def package_folder(name: str) -> str:
    """The folder that holds package ``name`` (a real directory in every kind of install)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations or not os.path.isdir(locations[0]):
        raise MissingResource(
            f"the installed pasture has no {name} package; reinstall it (pip install --force-reinstall pasture)"
        )
    return locations[0]


def templates_folder() -> str:
    """The packaged Jinja templates."""
    return package_folder(TEMPLATES)


def template_folders(root: str | os.PathLike | None) -> tuple[str, ...]:
    """The template folders for project ``root``, first match wins: <root>/templates when it exists
    and is not the packaged folder itself (an editable checkout renders its own), then the packaged
    templates. None: the packaged templates only."""
    packaged = templates_folder()
    if root is None:
        return (packaged,)
    override = os.path.join(os.fspath(root), "templates")
    if not os.path.isdir(override) or os.path.samefile(override, packaged):
        return (packaged,)
    return (override, packaged)


def template_names(folder: str) -> set[str]:
    """Every template name in a folder (POSIX paths), without the data package's own Python files."""
    names = set()
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        for name in filenames:
            if not name.endswith((".py", ".pyc")):
                names.add(name if rel == "." else f"{rel}/{name}")
    return names


def overridden_templates(root: str | os.PathLike | None) -> list[str]:
    """The packaged templates that <root>/templates replaces."""
    folders = template_folders(root)
    if len(folders) == 1:
        return []
    return sorted(template_names(folders[0]) & template_names(folders[1]))


def bundled_project() -> str:
    """The project the package carries: the folder holding the packaged profiles/ and captures/.

    For an editable install this is the checkout; for a wheel it is the installed ``pasture``
    folder, which holds profiles/, captures/ and templates/ the same way a checkout does (profile
    citations such as ``captures/...`` resolve against it).
    """
    return os.path.dirname(package_folder(PROFILES))


def import_roots() -> list[str]:
    """The sys.path entries that make ``pasture`` and ``pasture_contracts`` importable in a child
    process (the same folder twice in a wheel, two folders in an editable checkout)."""
    roots: list[str] = []
    for name in ("pasture", CONTRACT_TABLES):
        root = os.path.dirname(package_folder(name))
        if root not in roots:
            roots.append(root)
    return roots
