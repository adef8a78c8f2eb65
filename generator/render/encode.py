"""The only ways a profile string reaches an artifact: proper encoders, never pasted into quotes."""

from __future__ import annotations

import json
import shlex
from typing import Any


def json_text(value: Any, indent: int | None = 2) -> str:
    """JSON with the caller's key order kept (no sorting) and non-ASCII kept readable."""
    return json.dumps(value, indent=indent, ensure_ascii=False)


def js_literal(value: Any) -> str:
    """A JSON value as a JS/TS expression.

    ensure_ascii escapes every non-ASCII character (so U+2028/9 and lone surrogates stay data), and
    `<`, `>` and `/` are escaped as well so `</script>` or `*/` can never close anything around it.
    """
    text = json.dumps(value, ensure_ascii=True, indent=2)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("/", "\\/")


def shell_words(words: list[str]) -> str:
    """argv words quoted for a POSIX shell; a safe word stays bare so commands remain short."""
    return " ".join(shlex.quote(w) for w in words)


def md_cell(text: str) -> str:
    """Text safe inside one Markdown table cell."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")
