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


def py_str(text: str) -> str:
    """A Python string literal exactly as black would leave it.

    Black prefers double quotes unless single quotes need fewer backslashes; we pick the same way so
    generated tables are black-stable without running black at generation time.
    """
    if text.isprintable() and "\\" not in text and '"' not in text:
        # The common case, and what body() below yields for it: nothing to escape, double quotes.
        return '"' + text + '"'

    def body(quote: str) -> str:
        out = []
        for ch in text:
            if ch == "\\":
                out.append("\\\\")
            elif ch == quote:
                out.append("\\" + ch)
            elif ch == "\n":
                out.append("\\n")
            elif ch == "\t":
                out.append("\\t")
            elif ord(ch) < 0x20 or ord(ch) == 0x7F or 0x2028 <= ord(ch) <= 0x2029:
                out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
            else:
                out.append(ch)
        return "".join(out)

    double, single = body('"'), body("'")
    if single.count("\\") < double.count("\\"):
        return "'" + single + "'"
    return '"' + double + '"'
