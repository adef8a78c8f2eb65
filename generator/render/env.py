"""The Jinja environment every template renders in: strict, no autoescape, our own encoders only."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import jinja2

from . import encode

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
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
