"""The effective policy: every layer loaded, trust applied, compiled once and cached by content.

Loading (both transports, every event): read the bytes of the managed, user and project layers
and of the trust store. The compiled form of exactly those bytes (plus the environment that
places the layers and the guard's own files, the interpreter, and the compiler's own source) is
kept in a marshal file in the user's cache folder; when every byte matches, nothing is parsed and
no regular expression is compiled (see generator.hook.policy.freeze). Otherwise generator.hook.policy
compiles each layer (tomllib, re) and the cache is rewritten. A cache that cannot be read or
written costs speed, never a decision.

Evaluation: the built-in guard rules, then every layer in order managed, user, project; each layer
gives its first matching rule, else its trusted gate (command or AI), else its default. The most
restrictive decision wins (deny > ask > proceed), so no layer can relax another. Once a deny is
known no gate runs. A layer that cannot be read or is invalid is a failure: unless something denies
anyway, the row's failure mode decides.
"""

import marshal
import sys

from . import fs, layers

FORMAT = 1
_ENV_KEYS = ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "CODEX_HOME",
             "CLAUDE_CONFIG_DIR", "PASTURE_POLICY", "PASTURE_MANAGED_POLICY", "PASTURE_TRUST_STORE",
             "PASTURE_CACHE_DIR")
_COMPILER = ("policy.py", "builtin.py", "effective.py")
RANK = {"proceed": 0, "ask": 1, "deny": 2}
_MEMO: dict = {}


class Verdict:
    """decision proceed|deny|ask (or None: no decision, `failure` says why); which layer, rule and gate."""

    __slots__ = ("decision", "reason", "layer", "rule", "gate", "detail", "failure", "notes")

    def __init__(self, decision, reason, layer=None, rule=None, gate="none", detail=None, failure=None, notes=()):
        self.decision, self.reason, self.layer, self.rule = decision, reason, layer, rule
        self.gate, self.detail, self.failure, self.notes = gate, detail, failure, notes


class Effective:
    """The loaded policy. `layers`: one dict per layer (managed, user, project) with at least name,
    path, status (absent | trusted | untrusted | invalid | unreadable), digest, error, ignored."""

    __slots__ = ("root", "layers", "journal", "notes", "protect", "files", "folders", "home", "from_cache")

    def __init__(self, data: dict, from_cache: bool) -> None:
        self.root = data["root"]
        self.layers = data["layers"]
        self.journal = data["journal"]
        self.notes = data["notes"]
        self.protect = data["protect"]
        self.files, self.folders = data["protected"]
        self.home = data["home"]
        self.from_cache = from_cache

    @property
    def configured(self) -> bool:
        return any(layer["status"] != "absent" for layer in self.layers)

    def layer(self, name: str) -> dict:
        return next(layer for layer in self.layers if layer["name"] == name)


def _read(path: str):
    """bytes, None when absent, or ("unreadable", why)."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return ("unreadable", exc.strerror or type(exc).__name__)


def _fnv(text: str) -> str:
    # A stable file name for the cache entry without hashlib; the entry's full key is checked inside.
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def _compiler_stamp() -> tuple:
    here = fs.dirname(__file__)
    stamp = []
    for name in _COMPILER:
        try:
            st = fs.stat(fs.join(here, name))
            stamp.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stamp.append(None)
    return tuple(stamp)


def _sre_magic():
    try:
        import _sre

        return (_sre.MAGIC, _sre.CODESIZE)
    except (ImportError, AttributeError):  # pragma: no cover
        return None


def load(root: str, env: dict) -> Effective:
    """The effective policy for a project root; never raises for anything a file or the cache holds."""
    env_key = tuple(env.get(k) for k in _ENV_KEYS)
    sources = [(name, path, _read(path)) for name, path in layers.paths(root, env)]
    trust_bytes = _read(layers.trust_store_path(env))
    key = (FORMAT, sys.hexversion, _sre_magic(), _compiler_stamp(), root, env_key,
           tuple((path, data) for _, path, data in sources), trust_bytes)
    memo = _MEMO.get(root)
    if memo is not None and memo[0] == key and _programs_hold(memo[2]):
        return memo[1]
    cache = fs.join(layers.cache_dir(env), "policy", _fnv(repr((root, env_key))) + ".marshal")
    data = None
    try:
        with open(cache, "rb") as fh:
            stored = marshal.loads(fh.read())  # marshal.load(file) reads item by item: ~8x the cost
        if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key and _programs_hold(stored[1]):
            data = stored[1]
    except Exception:  # absent, unreadable, truncated or from another format: compile afresh
        data = None
    from_cache = data is not None
    if data is None:
        data = build(root, env, sources, trust_bytes)
        _store(cache, (key, data))
    effective = Effective(data, from_cache)
    _MEMO[root] = (key, effective, data)
    return effective


def _store(cache: str, value) -> None:
    import os

    try:
        os.makedirs(os.path.dirname(cache), mode=0o700, exist_ok=True)
        temp = f"{cache}.{os.getpid()}.tmp"
        with open(temp, "wb") as fh:
            fh.write(marshal.dumps(value))
        os.replace(temp, cache)
    except (OSError, ValueError):
        pass  # a read-only cache folder costs speed, never a decision


def build(root: str, env: dict, sources: list, trust_bytes) -> dict:
    """Compile every layer (off the hot path: tomllib, re, hashlib)."""
    from . import builtin
    from .policy import PolicyError, compile_layer
    from .trust import TrustStoreError, digest, holds, key as trust_key, parse as parse_trust, programs, store_path

    notes: list[str] = []
    try:
        trusted_entries = parse_trust(trust_bytes, store_path(env)) if not isinstance(trust_bytes, tuple) else {}
        if isinstance(trust_bytes, tuple):
            notes.append(f"trust store {store_path(env)} unreadable ({trust_bytes[1]}): no project policy is trusted")
    except TrustStoreError as exc:
        trusted_entries = {}
        notes.append(f"{exc}: no project policy is trusted")
    compiled = []
    pinned_programs: tuple = ()
    for name, path, raw in sources:
        layer = {"name": name, "path": path, "status": "absent", "digest": None, "error": None, "ignored": [],
                 "rules": [], "kind": "rules", "default": "proceed", "events": None, "journal": None,
                 "protect": None, "trusted": False, "pinned": None}
        if raw is None:
            compiled.append(layer)
            continue
        if isinstance(raw, tuple):
            layer.update(status="unreadable", error=f"{path}: cannot be read ({raw[1]}); fix its permissions "
                                                    f"or remove it, then run: pasture policy check")
            compiled.append(layer)
            continue
        layer["digest"] = digest(raw)
        why = None
        if name == "project":
            entry = trusted_entries.get(trust_key(path))
            layer["pinned"] = entry["policy"] if entry else None
            trusted = entry is not None
            if trusted:  # the pin holds for the policy, the project it resolves into and its programs
                try:
                    would_run = compile_layer(name, path, raw, root, True)
                except PolicyError:
                    would_run = None
                # the cache is believed only while these files are unchanged since (taken before hashing)
                pinned_programs = tuple((p, _signature(p)) for p in (programs(would_run, root) if would_run else []))
                why = holds(entry, path, root, layer["digest"], would_run)
                trusted = why is None
        else:
            trusted = True
        try:
            layer.update(compile_layer(name, path, raw, root, trusted))
            layer["status"] = "trusted" if trusted else "untrusted"
        except PolicyError as exc:
            layer.update(status="invalid", error=f"{exc} (run: pasture policy check)")
        compiled.append(layer)
        if layer["status"] == "untrusted" and layer["ignored"]:
            state = why if why == "changed since you trusted it" else f"not trusted ({why})" if why else \
                ("changed since you trusted it" if layer["pinned"] else "not trusted")
            notes.append(f"project policy {path} is {state}: ignored {'; '.join(layer['ignored'])}; its rules "
                         f"still apply. Review it, then run: pasture policy trust --project {root}")
        elif layer["ignored"]:
            notes.append(f"{name} policy {path}: ignored {'; '.join(layer['ignored'])}")
    protect = True
    for layer in compiled:  # managed outranks user
        if layer["name"] in ("managed", "user") and layer.get("protect") is not None:
            protect = layer["protect"]
            break
    journal = next((layer["journal"] for layer in compiled if layer.get("journal")), None)
    return {"root": root, "layers": compiled, "journal": journal, "notes": notes, "protect": protect,
            "protected": builtin.protected(root, env), "home": layers.home(env), "programs": pinned_programs}


def _signature(path: str):
    """What changes whenever a file's bytes do (ctime cannot be set back by a user), without reading it."""
    try:
        st = fs.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _programs_hold(data) -> bool:
    """The programs a pinned project layer runs are unchanged since it was compiled (else: rebuild,
    and the rebuild compares their bytes with the pins)."""
    for path, want in data.get("programs", ()):
        if _signature(path) != want:
            return False
    return True


# --- evaluation ------------------------------------------------------------------------------------

_THAWED: dict = {}


def build_pattern(frozen: tuple):
    """A compiled pattern from its frozen form (generator.hook.policy.freeze), without `re` where it can."""
    if frozen[0] == "sre":
        import _sre

        return _sre.compile(frozen[1], frozen[2], frozen[3], frozen[4], frozen[5], frozen[6])
    import re

    return re.compile(frozen[1])


def thaw(frozen: tuple):
    """The compiled pattern for a frozen one (memoized per process: the OpenCode server reuses it)."""
    key = frozen[1]
    pattern = _THAWED.get(key)
    if pattern is None:
        pattern = _THAWED[key] = build_pattern(frozen)
    return pattern

def _text(value) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    from .fastjson import dumps

    return dumps(value, ascii=False, default=str)


def _matches(rule: dict, envelope: dict) -> bool:
    for key, allowed in rule["lists"].items():
        if envelope.get(key) not in allowed:
            return False
    for key, frozen in rule["regexes"].items():
        value = envelope.get(key)
        if value is None or thaw(frozen).search(_text(value)) is None:
            return False
    if rule["inputs"]:
        tool_input = envelope.get("tool_input")
        if not isinstance(tool_input, dict):
            return False
        for field, frozen in rule["inputs"].items():
            if field not in tool_input or thaw(frozen).search(_text(tool_input[field])) is None:
                return False
    return True


def evaluate(effective: Effective, envelope: dict, deadline: float | None = None, clock=None) -> Verdict:
    """Decide one gate-consultation event. `deadline`: a time.perf_counter() instant no gate may outlive."""
    decisions: list[tuple] = []  # (decision, reason, layer, rule, gate, detail)
    failures: list[str] = []
    failed_gate = (None, "none")  # (layer, gate) of the first gate that produced no decision
    pending: list[dict] = []
    if effective.protect:
        from .builtin import RULE, check

        reason = check(envelope, effective.files, effective.folders, effective.home, effective.root)
        if reason is not None:
            return Verdict("deny", reason, "builtin", RULE, f"builtin:{RULE}", notes=effective.notes)
    event = envelope.get("event")
    for layer in effective.layers:
        status = layer["status"]
        if status == "absent":
            continue
        if status in ("invalid", "unreadable"):
            failures.append(f"{layer['name']} policy: {layer['error']}")
            continue
        if layer["events"] is not None and event not in layer["events"]:
            continue
        rule = next((r for r in layer["rules"] if _matches(r, envelope)), None)
        if rule is not None:
            decisions.append((rule["decision"], rule["reason"], layer["name"], rule["name"], f"rules:{rule['name']}",
                              None))
        elif layer["kind"] in ("command", "ai"):
            pending.append(layer)
        else:
            decisions.append((layer["default"], "no policy rule matched", layer["name"], None, "rules:default", None))
    if not any(d[0] == "deny" for d in decisions):
        for layer in pending:
            from .gates import GateFailure, run_gate

            try:
                decision, reason, detail = run_gate(layer, envelope, effective.root, deadline, clock)
            except GateFailure as exc:
                failures.append(f"{layer['name']} policy {layer['kind']} gate: {exc}")
                if failed_gate[0] is None:
                    failed_gate = (layer["name"], layer["kind"])
                if exc.detail:
                    decisions.append((None, None, layer["name"], None, layer["kind"], exc.detail))
                continue
            decisions.append((decision, reason, layer["name"], None, layer["kind"], detail))
            if decision == "deny":
                break
    real = [d for d in decisions if d[0] is not None]
    detail = next((d[5] for d in decisions if d[5]), None)
    if real:
        best = max(real, key=lambda d: RANK[d[0]])
        if best[0] == "deny" or not failures:
            return Verdict(best[0], best[1], best[2], best[3], best[4], best[5] or detail, None, effective.notes)
        return Verdict(best[0], best[1], best[2], best[3], best[4], detail, "; ".join(failures), effective.notes)
    if failures:
        return Verdict(None, None, failed_gate[0], None, failed_gate[1], detail, "; ".join(failures), effective.notes)
    if not effective.configured:
        return Verdict("proceed", "no policy configured", None, None, "none", notes=effective.notes)
    return Verdict("proceed", "no layer of the policy covers this event", None, None, "none", notes=effective.notes)
