"""JSON for the hook path: the C scanner and encoder of `_json`, without importing `json`.

`import json` costs the hook about 10 ms on this project's reference machine (json.decoder imports
`re`, which imports `enum`), as much again as starting the interpreter. The `json` module is a thin
Python layer over `_json`; this module is the same thin layer minus the regular expressions.
Decoding accepts exactly what `json.loads` accepts (a test holds the two to the same answers);
encoding matches `json.dumps(value, ensure_ascii=True)`. Where `_json` is missing (another Python
implementation) it falls back to `json`.
"""

from pasture import PastureError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable, NoReturn


try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None  # type: ignore[assignment]  # the fallback below tests for it

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class JSONError(PastureError, ValueError):
    """Not one JSON document."""


class _Context:
    # The attributes _json.make_scanner reads from its context (json.JSONDecoder's).
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_CONSTANTS.__getitem__)
    memo: dict = {}


def _unserializable(value: "Any") -> "NoReturn":
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


if _json is not None:
    _scan = _json.make_scanner(_Context())  # type: ignore[arg-type]  # the stub wants a JSONDecoder; it reads only these


def loads(text: str) -> "Any":
    """Parse one JSON document; JSONError if it is not one (also for nesting too deep to parse)."""
    if _json is None:  # pragma: no cover
        import json

        try:
            return json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise JSONError(str(exc)) from None
    start = len(text) - len(text.lstrip(_WHITESPACE))
    end = len(text.rstrip(_WHITESPACE))
    if start >= end:
        raise JSONError("no JSON document")
    try:
        value, stop = _scan(text, start)
    except RecursionError:
        raise JSONError("nested too deeply") from None
    except Exception:  # StopIteration, JSONDecodeError: whatever the scanner raises, it is not JSON
        raise JSONError("not JSON") from None
    if stop != end:
        raise JSONError("extra data after the JSON document")
    return value


def dumps(
    value: "Any", compact: bool = False, default: "Callable[[Any], Any] | None" = None, ascii: bool = True
) -> str:
    """`json.dumps(value, ensure_ascii=ascii, default=default)` (compact: separators without spaces)."""
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, ensure_ascii=ascii, separators=(",", ":") if compact else None, default=default)
    # A fresh encoder per call: its circular-reference markers must not survive a failed encode.
    encode = _json.make_encoder(
        {},
        default or _unserializable,
        _json.encode_basestring_ascii if ascii else _json.encode_basestring,
        None,
        ":" if compact else ": ",
        "," if compact else ", ",
        False,
        False,
        True,
    )
    return "".join(encode(value, 0))
