"""Scrub volatile and private values out of a capture, so the same host version captures the same bytes.

One :class:`Scrubber` per scenario run. It rewrites every string (keys included) and some numbers of
the JSON documents it is given, always in the same canonical order (mapping keys sorted, lists in
order), so numbered placeholders come out the same on every run that saw the same things:

1. **Literal paths and names** (longest first): the run folder -> ``$RUN``, Claude's dash-encoded form
   of it (``/tmp/x`` -> ``-tmp-x``) -> ``$RUN_SLUG``, the host binary -> ``$HOST_BIN``, the Python
   running the recording hooks -> ``$PYTHON``, the npm install holding the host -> ``$NODE_MODULES``,
   the project checkout -> ``$REPO``, the caller's home
   -> ``$USER_HOME``, the system temp folder -> ``$TMP``.
2. **Identifiers**, numbered by first appearance: UUIDs -> ``<uuid-N>``, OpenCode ids (``ses_...``,
   ``msg_...``, ``prt_...``, ...) -> ``<ses-N>`` etc., the fake model's ids (``toolu_pasture000100``)
   -> ``<fake-id-N>``, 40/64-digit hex digests -> ``<sha1-N>`` / ``<sha256-N>``. The same value gets the
   same placeholder everywhere in the run, so correlation stays visible.
3. **Times and counters**, not numbered (their equalities are timing accidents): ISO-8601 times ->
   ``<timestamp>``, calendar dates written out (``Sun Nov 30 2026``) and HTTP dates
   (``Wed, 02 Dec 2026 06:19:43 GMT``) -> ``<date>``, epoch
   milliseconds -> ``<epoch-ms>``, numbers under time/duration keys -> ``<time>``, numbers under
   token/usage/cost keys -> ``<count>`` (the fake estimates usage from request sizes, which include
   dates and paths), ``pid``-like keys -> ``<pid>``, ports on 127.0.0.1/localhost -> ``<port>``,
   Codex's ``Chunk ID``/``Wall time`` lines, Claude's ``cc-socks/<pid>``, OpenCode's random ``slug``.
4. **The user and secrets**: the caller's user name as a whole value or a path segment -> ``<user>``;
   the machine's host name -> ``<hostname>``; a string under a credential-like key (``apiKey``,
   ``*_TOKEN``, ``secret``, ``password``, ``authorization``) -> ``<redacted>``.
5. **Size**: a string longer than :data:`MAX_STRING` characters (system prompts, tool descriptions)
   keeps its first 160 characters plus ``<elided N chars, sha256 H>`` over the scrubbed text.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import re
import socket
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

MAX_STRING = 2000

_UUID = re.compile(
    r"(?<![0-9A-Za-z])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"(?![0-9A-Za-z])"
)
# OpenCode identifiers: a short type prefix, '_', then a time-ordered random tail.
_TYPED_ID = re.compile(r"\b(ses|msg|prt|evt|per|que|pty|wrk|tool|usr|prj)_[0-9A-Za-z]{12,}\b")
# The fake model's ids: <prefix>pasture<seq:04d><n:02d> (the sequence depends on side requests).
# an id a host makes from the clock and a random tail (Qwen Code's ``toolu_<ms>_<base36>``; Cline's
# ``agent_<ms>_<tail>``, ``conv_<ms>_<tail>`` and its bare root session id ``<ms>_<tail>``)
_STAMPED_ID = re.compile(r"\b(toolu|agent|conv)_\d{13}_[0-9a-z]{5,12}\b")
_STAMPED_BARE = re.compile(r"(?<![0-9A-Za-z_])\d{13}_[0-9a-z]{5}\b")
_FAKE_ID = re.compile(r"\b[A-Za-z_-]*pasture\d{6}\b")
_SHA256 = re.compile(r"\b[0-9a-f]{64}\b")
_SHA1 = re.compile(r"\b[0-9a-f]{40}\b")
# Codex rollout files: sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<uuid>.jsonl
_DASHED_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\b")
# Gemini CLI transcripts: chats/session-YYYY-MM-DDTHH-MM-<first 8 hex digits of the session id>.jsonl
_CHAT_FILE = re.compile(r"\bsession-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-[0-9a-f]{8}\.json")
_DATE_FOLDERS = re.compile(r"/\d{4}/\d{2}/\d{2}/")
_ISO_TIME = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_WRITTEN_DATE = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* "
    r"\d{1,2},? \d{4}\b"
)
# HTTP dates (RFC 9110 IMF-fixdate: a Date header Pi hands its after_provider_response handlers)
_HTTP_DATE = re.compile(
    r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
    r"\d{2}:\d{2}:\d{2} GMT\b"
)
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_PORT = re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}\b")
_CHUNK = re.compile(r"(Chunk ID: )[0-9A-Za-z]+")
_WALL = re.compile(r"(Wall time: )\d+(?:\.\d+)? seconds")
_SOCKS = re.compile(r"(cc-socks/)\d+")
_TOTAL_TOKENS = re.compile(r"(<total_tokens>)\d+( tokens left</total_tokens>)")

_TIME_WORDS = frozenset(
    {"time", "created", "updated", "completed", "start", "end", "started", "ended", "initialized", "timestamp", "t"}
)
_TIME_KEY_PARTS = re.compile(r"duration|elapsed|latency", re.I)
_TIME_KEY_SUFFIX = re.compile(r"(_ms|Ms|_at|At|_time|Time)$")
_COUNT_KEY = re.compile(r"token|usage|cost", re.I)
_PID_KEY = re.compile(r"(^|_)pid$", re.I)
# A literal path is replaced only where it starts a path, never in the middle of a longer one
# ("/tmp" inside "$RUN/tmp" stays), and only when no name character continues it.
_BEFORE = r"(?<![A-Za-z0-9_$.])"
_AFTER = r"(?![A-Za-z0-9_])"


def _literally(text: str) -> Callable[[re.Match[str]], str]:
    """A re.sub replacement that inserts ``text`` as it is (no backslash or group processing)."""
    return lambda _match: text


def _time_key(key: str) -> bool:
    return key.lower() in _TIME_WORDS or bool(_TIME_KEY_PARTS.search(key) or _TIME_KEY_SUFFIX.search(key))


_RANDOM_KEYS = frozenset({"slug"})
# Credentials: a string under such a key is never kept (the fake key included, so no pattern is learnt).
_SECRET_KEY = re.compile(r"api[-_]?key|secret|password|passwd|authorization|(^|_)token$|Token$|credential", re.I)


@dataclass
class Scrubber:
    """Stateful scrubber for one run; :meth:`scrub` any number of documents in a fixed order."""

    run_root: Path
    host_binary: Path | None = None
    repo_root: Path | None = None
    python: str = sys.executable
    user: str | None = None
    hostname: str | None = None
    _literals: list[tuple[re.Pattern[str], str, str]] = field(default_factory=list, init=False)
    _numbers: dict[str, dict[str, str]] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        if self.user is None:
            try:
                self.user = getpass.getuser()
            except (KeyError, OSError):
                self.user = os.environ.get("USER")
        if self.hostname is None:
            self.hostname = socket.gethostname()
        pairs: dict[str, str] = {}

        def add(value: str | os.PathLike[str] | None, placeholder: str) -> None:
            if value is None:
                return
            text = str(value)
            if len(text) > 1 and text not in ("/", ".") and text not in pairs:
                pairs[text] = placeholder  # the first placeholder named for a text wins

        root = Path(self.run_root)
        add(root, "$RUN")
        if root.resolve() != root:
            add(root.resolve(), "$RUN")
        add(re.sub(r"[^A-Za-z0-9]", "-", str(root)), "$RUN_SLUG")
        if self.host_binary is not None:
            add(Path(self.host_binary), "$HOST_BIN")
            add(Path(self.host_binary).resolve(), "$HOST_BIN_REAL")
            # The npm install the host runs from (its folder names a lockfile digest or a version, and
            # may sit behind a symlinked cache): hosts report package paths inside it (Codex's
            # CODEX_MANAGED_PACKAGE_ROOT), which must not change when an unrelated pin changes.
            for parent in Path(os.path.realpath(self.host_binary)).parents:
                if parent.name == "node_modules":
                    add(parent, "$NODE_MODULES")
                    break
            for parent in Path(self.host_binary).absolute().parents:
                if parent.name == "node_modules":
                    add(parent, "$NODE_MODULES")
                    break
        add(self.python, "$PYTHON")
        add(os.path.realpath(self.python), "$PYTHON")
        if self.repo_root is not None:
            add(Path(self.repo_root).resolve(), "$REPO")
        home = os.path.expanduser("~")
        if home not in ("/", "") and home != str(root):
            add(home, "$USER_HOME")
        add(tempfile.gettempdir(), "$TMP")
        # Longest first, so /tmp/x/project is not half-replaced by /tmp.
        ordered = sorted(pairs.items(), key=lambda p: (-len(p[0]), p[0]))
        self._literals = [
            (re.compile(_BEFORE + re.escape(text) + _AFTER), text, placeholder) for text, placeholder in ordered
        ]

    # --- public -----------------------------------------------------------------------------
    def scrub(self, value: Any, key: str | None = None, under_count: bool = False) -> Any:
        """A scrubbed copy of a JSON value. ``key`` is the mapping key it sits under, if any."""
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for k in sorted(value, key=str):
                new_key = self.text(str(k))
                out[new_key] = self.scrub(value[k], str(k), under_count or bool(_COUNT_KEY.search(str(k))))
            return out
        if isinstance(value, list):
            return [self.scrub(v, key, under_count) for v in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, (int, float)):
            return self.number(value, key, under_count)
        if isinstance(value, str):
            if key in _RANDOM_KEYS and value:
                return f"<{key}>"
            if key is not None and _SECRET_KEY.search(key) and value:
                return "<redacted>"
            if key is not None and _PID_KEY.search(key) and value.isdigit():
                return "<pid>"
            return self.text(value)
        return self.text(str(value))

    def number(self, value: int | float, key: str | None, under_count: bool) -> Any:
        if key is not None and _PID_KEY.search(key):
            return "<pid>"
        if key is not None and _time_key(key):
            return "<time>"
        if under_count:
            return "<count>"
        if isinstance(value, int) and 10**12 <= value < 10**13:
            return "<epoch-ms>"
        return value

    def text(self, value: str) -> str:
        for pattern, literal, placeholder in self._literals:
            if literal in value:
                value = pattern.sub(_literally(placeholder), value)
        value = _ISO_TIME.sub("<timestamp>", value)
        value = _CHAT_FILE.sub("session-<timestamp>-<id>.json", value)
        value = _DASHED_TIME.sub("<timestamp>", value)
        value = _DATE_FOLDERS.sub("/<date>/", value)
        value = _WRITTEN_DATE.sub("<date>", value)
        value = _HTTP_DATE.sub("<date>", value)
        value = _UUID.sub(lambda m: self._number("uuid", m.group(0).lower()), value)
        value = _TYPED_ID.sub(lambda m: self._number(m.group(1), m.group(0)), value)
        value = _FAKE_ID.sub(lambda m: self._number("fake-id", m.group(0)), value)
        value = _STAMPED_ID.sub(lambda m: self._number(m.group(1), m.group(0)), value)
        value = _STAMPED_BARE.sub(lambda m: self._number("stamp", m.group(0)), value)
        value = _SHA256.sub(lambda m: self._number("sha256", m.group(0)), value)
        value = _SHA1.sub(lambda m: self._number("sha1", m.group(0)), value)
        value = _ISO_DATE.sub("<date>", value)
        value = _PORT.sub(lambda m: f"{m.group(1)}:<port>", value)
        value = _CHUNK.sub(r"\1<chunk-id>", value)
        value = _WALL.sub(r"\1<seconds> seconds", value)
        value = _SOCKS.sub(r"\1<pid>", value)
        value = _TOTAL_TOKENS.sub(r"\1<count>\2", value)
        value = self._private(value)
        if len(value) > MAX_STRING:
            digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            value = f"{value[:160]}<elided {len(value)} chars, sha256 {digest}>"
        return value

    # --- helpers ----------------------------------------------------------------------------
    def _number(self, kind: str, raw: str) -> str:
        table = self._numbers.setdefault(kind, {})
        if raw not in table:
            table[raw] = f"<{kind}-{len(table) + 1}>"
        return table[raw]

    def _private(self, value: str) -> str:
        user = self.user
        if user and len(user) >= 2:
            if value == user:
                return "<user>"
            value = re.sub(rf"(?<=/){re.escape(user)}(?=/|$)", "<user>", value)
        host = self.hostname
        if host and len(host) >= 4 and host not in ("localhost",):
            value = re.sub(rf"\b{re.escape(host)}\b", "<hostname>", value)
        return value
