"""The doctor's one window on the hook runtime: project root, policy layers, trust, journal, gates.

The doctor must see exactly what the runtime sees, so it asks the runtime's own modules and never
re-implements them: ``pasture.runtime.project.find_root`` (the root, found upwards as git finds
``.git``), ``pasture.runtime.effective.load`` (every layer with its trust status, what an untrusted
layer is denied, the notes), ``pasture.runtime.lifecycle.journal_for`` (the journal the hooks write)
and ``pasture.runtime.journal.writable``. This module is the only place that names them.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from typing import Any, Mapping


@dataclass
class Layer:
    name: str  # managed | user | project
    path: str | None
    status: str  # absent | trusted | untrusted | invalid | unreadable
    error: str | None = None
    ignored: tuple[str, ...] = ()  # what an untrusted layer does not get to do


@dataclass
class Gate:
    layer: str
    kind: str  # a kind that runs: command | ai | agent (pasture.runtime.gatekinds)
    command: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class View:
    root: str
    layers: list[Layer]
    journal: str
    gates: list[Gate]
    notes: list[str]


def find_root(start: str, env: Mapping[str, str]) -> str:
    """The project root the runtime uses for a session started in ``start``."""
    from pasture.runtime.project import find_root as runtime_find_root

    return runtime_find_root(os.path.normpath(os.path.abspath(start)))


def load(root: str, env: Mapping[str, str]) -> View:
    from pasture.runtime.effective import load as load_effective
    from pasture.runtime.lifecycle import journal_for

    state = load_effective(root, dict(env))
    layers = [
        Layer(layer["name"], layer.get("path"), layer["status"], layer.get("error"), tuple(layer.get("ignored") or ()))
        for layer in state.layers
    ]
    # a layer with a gate to run (pasture.runtime.gatekinds): its settings sit under the kind's name
    gates = [
        Gate(
            layer["name"],
            layer["kind"],
            tuple(layer.get("command") or ()),
            dict(layer[layer["kind"]]) if isinstance(layer.get(layer["kind"]), dict) else {},
        )
        for layer in state.layers
        if layer["status"] in ("trusted", "untrusted") and layer.get("kind", "rules") != "rules"
    ]
    return View(root, layers, journal_for(root, dict(env)), gates, list(state.notes))


def journal_writable(path: str) -> tuple[bool, str]:
    """(writable, why not) for the journal at ``path``, as the runtime judges it, writing nothing."""
    from pasture.runtime.journal import writable

    why = writable(path)
    return why is None, why or ""


def journal_torn(path: str) -> tuple[int, str | None]:
    """(how many spool lines the journal kept aside as torn or garbage, the first one's place), read only."""
    import sqlite3

    from pasture.journal import db as journaldb

    if not os.path.isfile(path):
        return 0, None
    try:
        conn = journaldb.connect(path, readonly=True)
        try:
            n = journaldb.torn_count(conn)
            first = next(iter(journaldb.torn_lines(conn, 1)), None) if n else None
        finally:
            conn.close()
    except sqlite3.Error:
        return 0, None
    where = f"byte {first[2]} of spool {first[1]}: {first[5]}" if first else None
    return n, where


def command_reachable(argv: tuple[str, ...], root: str) -> tuple[bool, str]:
    """Whether a command gate's program exists and can be executed (relative paths from the root)."""
    if not argv:
        return False, "the command gate names no program"
    program = argv[0]
    if os.sep in program:
        # the runtime starts it from the hook's cwd, the folder the host session runs in (normally the root)
        path = program if os.path.isabs(program) else os.path.normpath(os.path.join(root, program))
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return True, path
        return False, f"{path} is not an executable file"
    found = shutil.which(program)
    return (True, found) if found else (False, f"{program} is not on PATH")


def agent_reachable(settings: Mapping[str, Any], root: str) -> tuple[bool, str]:
    """Whether an agent gate's host executable is there, found as the gate itself finds it."""
    from pasture.gates.agent import find_binary
    from pasture.runtime.agentgate import judges

    judge = judges()[settings["host"]]
    found = find_binary(dict(settings), root, judge)
    if found:
        return True, f"host {settings['host']} at {found}"
    return False, (
        f"host {settings['host']} is not installed ({settings.get('binary') or 'not on PATH'}); install it "
        f"({judge.install}) or set [gate] binary"
    )


def _first_set(field_name: str, env: Mapping[str, str]) -> str | None:
    from pasture.gates._env import ENV_FALLBACKS  # the AI gate's own lookup table (first set variable wins)

    names, default = ENV_FALLBACKS[field_name]
    for var in names:
        if env.get(var) is not None:
            return env[var]
    return default


def ai_base_url(settings: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The endpoint the AI gate calls, looked up as the gate looks it up."""
    return str(settings.get("base_url") or _first_set("ai_base_url", env) or "")


def ai_configured(settings: Mapping[str, Any], env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether an AI gate has an endpoint, a model and (off loopback) an API key, from the policy or
    the environment, as the gate itself looks them up. The key's value is never read out."""
    from urllib.parse import urlsplit

    base_url = ai_base_url(settings, env)
    model = settings.get("model") or _first_set("ai_model", env)
    key = _first_set("ai_api_key", env)
    host = urlsplit(base_url or "").hostname or ""
    missing = [what for what, value in (("endpoint (base_url)", base_url), ("model", model)) if not value]
    if not key and host not in ("127.0.0.1", "localhost", "::1"):
        missing.append("API key (PASTURE_AI_API_KEY, OPENROUTER_API_KEY or OPENAI_API_KEY)")
    if missing:
        return False, f"the AI gate has no {', no '.join(missing)}"
    return True, f"model {model} at {base_url}"


AI_PROBE_SECONDS = 5.0  # one bounded request: doctor must not hang on an endpoint that never answers


def ai_reachable(base_url: str, timeout: float = AI_PROBE_SECONDS) -> tuple[bool, str]:
    """Whether the AI gate's endpoint answers: GET <base_url>/models, no key sent (a project layer's
    endpoint never gets the user's key). Any HTTP answer below 500 shows it is up (a 401 asks for the
    key the gate sends); a refused connection, a timeout, a name that does not resolve or a 5xx is not."""
    import urllib.error
    import urllib.request

    url = base_url.rstrip("/") + "/models"
    request = urllib.request.Request(url, method="GET", headers={"User-Agent": "pasture-doctor"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only, below
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except (urllib.error.URLError, OSError, ValueError) as exc:
        why = getattr(exc, "reason", None) or exc
        return False, f"{url} does not answer ({why})"
    if status >= 500:
        return False, f"{url} answers HTTP {status}"
    return True, f"{url} answers (HTTP {status})"
