"""The doctor's one window on the hook runtime: project root, policy layers, trust, journal, gates.

The doctor must see exactly what the runtime sees, so it asks the runtime's own modules
(DESIGN-runtime.md): ``generator.hook.project.find_root``, ``generator.hook.effective.load`` (layers
with their trust status, the journal path, the gate settings per layer), ``generator.hook.journal
.writable``. This module is the only place that names them. Where a build predates them, it falls
back to what that runtime does (one policy: ``$PASTURE_POLICY`` or ``<root>/.pasture/policy.toml``,
no trust layer) and says so, so the doctor never claims more than the runtime it checks.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


@dataclass
class Layer:
    name: str  # managed | user | project
    path: str | None
    status: str  # absent | trusted | untrusted | invalid | unreadable
    error: str | None = None
    ignored: tuple[str, ...] = ()  # what an untrusted project layer does not get to do


@dataclass
class Gate:
    layer: str
    kind: str  # rules | command | ai
    command: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass
class View:
    root: str
    layers: list[Layer]
    journal: str | None
    gates: list[Gate]
    notes: list[str]
    design: bool  # True: the runtime's layered modules answered; False: the older single-policy runtime


def find_root(start: str, env: Mapping[str, str]) -> str:
    """The project root the runtime uses for a session started in ``start``."""
    try:
        from ..hook.project import find_root as runtime_find_root
    except ImportError:
        return _find_root(start)
    return runtime_find_root(start, dict(env))


def _find_root(start: str) -> str:
    """DESIGN-runtime.md: the nearest ancestor holding .pasture/, else the nearest holding .git, else start."""
    here = os.path.abspath(start)
    chain = [here, *[str(p) for p in Path(here).parents]]
    for marker in (".pasture", ".git"):
        for folder in chain:
            if os.path.exists(os.path.join(folder, marker)) and (marker != ".pasture"
                                                                 or os.path.isdir(os.path.join(folder, marker))):
                return folder
    return here


def load(root: str, env: Mapping[str, str]) -> View:
    try:
        from ..hook import effective
    except ImportError:
        return _load_single_policy(root, env)
    state = effective.load(root, dict(env))
    layers = [Layer(l.name, l.path, l.status, getattr(l, "error", None), tuple(getattr(l, "ignored", ()) or ()))
              for l in state.layers]
    gates = [Gate(g.layer, g.kind, tuple(getattr(g, "command", ()) or ()), dict(getattr(g, "settings", {}) or {}))
             for g in getattr(state, "gates", [])]
    return View(root, layers, state.journal, gates, list(getattr(state, "notes", [])), True)


def _load_single_policy(root: str, env: Mapping[str, str]) -> View:
    from ..hook.policy import PolicyError, find, load as load_policy

    path = find(root, dict(env))
    layers: list[Layer] = []
    gates: list[Gate] = []
    journal = env.get("PASTURE_JOURNAL") or os.path.join(root, ".pasture", "journal.sqlite3")
    if path is None:
        layers.append(Layer("project", os.path.join(root, ".pasture", "policy.toml"), "absent"))
    else:
        try:
            policy = load_policy(path)
        except PolicyError as exc:
            layers.append(Layer("project", path, "invalid", str(exc)))
        except OSError as exc:
            layers.append(Layer("project", path, "unreadable", exc.strerror))
        else:
            layers.append(Layer("project", path, "trusted"))
            gates.append(Gate("project", policy.kind, policy.command, dict(policy.gate)))
            if policy.journal and not env.get("PASTURE_JOURNAL"):
                journal = os.path.join(root, policy.journal)
    return View(root, layers, journal, gates, [], False)


def journal_writable(path: str) -> tuple[bool, str]:
    """(writable, why not) for the journal at ``path``, without writing an event."""
    try:
        from ..hook.journal import writable
    except ImportError:
        writable = None
    if writable is not None:
        result = writable(path)
        if isinstance(result, tuple):
            return bool(result[0]), str(result[1] or "")
        return bool(result), "" if result else "the runtime says it cannot write it"
    return _writable(path)


def _writable(path: str) -> tuple[bool, str]:
    target = os.path.abspath(path)
    if os.path.exists(target):
        if os.path.isdir(target):
            return False, f"{target} is a folder"
        return (True, "") if os.access(target, os.W_OK) else (False, f"{target} is not writable")
    folder = os.path.dirname(target)
    while not os.path.exists(folder) and folder != os.path.dirname(folder):
        folder = os.path.dirname(folder)
    if os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
        return True, ""
    return False, f"cannot create it: {folder} is not writable"


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


def _first_set(field_name: str, env: Mapping[str, str]) -> str | None:
    from ..gates._env import ENV_FALLBACKS  # the AI gate's own lookup table (first set variable wins)

    names, default = ENV_FALLBACKS[field_name]
    for var in names:
        if env.get(var) is not None:
            return env[var]
    return default


def ai_configured(settings: Mapping[str, Any], env: Mapping[str, str]) -> tuple[bool, str]:
    """Whether an AI gate has an endpoint, a model and (off loopback) an API key, from the policy or
    the environment, as the gate itself looks them up. The key's value is never read out."""
    from urllib.parse import urlsplit

    base_url = settings.get("base_url") or _first_set("ai_base_url", env)
    model = settings.get("model") or _first_set("ai_model", env)
    key = _first_set("ai_api_key", env)
    host = urlsplit(base_url or "").hostname or ""
    missing = [what for what, value in (("endpoint (base_url)", base_url), ("model", model)) if not value]
    if not key and host not in ("127.0.0.1", "localhost", "::1"):
        missing.append("API key (PASTURE_AI_API_KEY, OPENROUTER_API_KEY or OPENAI_API_KEY)")
    if missing:
        return False, f"the AI gate has no {', no '.join(missing)}"
    return True, f"model {model} at {base_url}"
