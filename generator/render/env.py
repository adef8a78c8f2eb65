"""The Jinja environment every template renders in: strict, no autoescape, our own encoders only.

Templates come from the installed package (generator.templates, mapped from the repository's
templates/). A project's own ``<root>/templates/`` overrides them file by file, the way
openapi-python-client takes a custom template folder: a template found there wins, every other
template comes from the package. An override folder belongs to the project being rendered, which may
not be trusted, so its templates render in Jinja's sandbox (no attribute access that could reach
Python internals); the packaged templates render in the plain environment. The output is the same.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import jinja2
import jinja2.sandbox

from generator.resources import overridden_templates, template_folders
from generator.render import encode

_ROOT: contextvars.ContextVar[str | None] = contextvars.ContextVar("pasture_template_root", default=None)


def search_path(root: Path | str | None) -> tuple[str, ...]:
    """The template folders for a project, first match wins (see resources.template_folders)."""
    return template_folders(root)


def overridden(root: Path | str | None) -> list[str]:
    """The packaged template names <root>/templates overrides."""
    return overridden_templates(root)


@contextlib.contextmanager
def templates_of(root: Path | str | None) -> Iterator[None]:
    """Render with the templates of project ``root`` (its overrides, then the package's) inside."""
    token = _ROOT.set(None if root is None else os.fspath(root))
    try:
        yield
    finally:
        _ROOT.reset(token)


def environment() -> jinja2.Environment:
    """The environment of the project being rendered (see templates_of)."""
    return _environment(search_path(_ROOT.get()))


@lru_cache(maxsize=8)
def _environment(folders: tuple[str, ...]) -> jinja2.Environment:
    kind = jinja2.Environment if len(folders) == 1 else jinja2.sandbox.SandboxedEnvironment
    env = kind(
        loader=jinja2.FileSystemLoader(list(folders)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        json=encode.json_text,
        js=encode.js_literal,
        md=encode.md_cell,
        pyrepr=repr,
    )
    # Jinja's own tojson sorts keys and HTML-escapes: make any accidental use fail loudly.
    del env.filters["tojson"]
    return env


def render(template: str, **context) -> str:
    return environment().get_template(template).render(**context)
