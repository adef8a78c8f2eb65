"""The effective policy: every layer loaded, trust applied, compiled once and cached by content.

Loading (both transports, every event): read the bytes of the managed, user and project layers
and of the trust store (regular files only, size-capped: a FIFO in a policy's place cannot hold the
hook). The compiled form of exactly those bytes (plus the environment that places the layers and
the guard's own files, the interpreter, and the compiler's own source) is kept in a marshal file in
the user's cache folder. Nothing cached is believed over its sources: the file must be a regular
file of ours, mode 0600, and carry a keyed BLAKE2b tag (a MAC) made with the key in the user's 0700
state folder (`cache.key`, 0600, ours); one that fails any of that is never unmarshalled, the policy
is compiled afresh, and the event says so (stderr and the journal). The cache holds rule patterns as
their source text, never a regular-expression engine program: they are compiled (`re`) when a rule
that has one is first evaluated. When every byte matches, nothing is parsed; otherwise
pasture.runtime.policy compiles each layer (tomllib, re) and the cache is rewritten. A cache that
cannot be read or written costs speed, never a decision.

Evaluation: the built-in guard rules, then every layer in order managed, user, project, and the
`packs` pseudo-layer (the protection pack rules the layers select, pasture.runtime.packs); each layer
weighs all its rules (deny > ask > rewrite > allow > proceed wherever listed; an allow is given only
when exact, an exception lifts only the rules it names, only for the commands it matches), else its
trusted gate (command or AI), else its default. Structured rules read the shell line once per event
(pasture.runtime.invocation). The most restrictive decision wins (deny > ask > proceed), so no layer
can relax another. Once a deny is known no gate runs. A layer that cannot be read or is invalid is
a failure: unless something denies anyway, the row's failure mode decides.
"""

import marshal
import sys

from pasture.runtime import fs, layers
from pasture.runtime.hostwire import USER_DIR_VARIABLES, WIRES  # the hook has it already: its answers are encoded there

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable

FORMAT = 4  # 4: a frozen pattern carries its plan (pasture.runtime.plainre)
MAGIC = b"PSTCACH3"
MAX_LAYER_BYTES = 4 << 20  # a policy layer (about 37,000 short rules); the packs ship inside pasture
MAX_TRUST_BYTES = 1 << 20  # the trust store
# the cache key holds each layer's bytes and the compiled form is about 1.6 times the source
MAX_CACHE_BYTES = 12 * MAX_LAYER_BYTES
_TAG = 32
_ENV_KEYS = (
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_DATA_HOME",
    "XDG_CACHE_HOME",
    *USER_DIR_VARIABLES,  # every host's user folder holds guard files (hostwire/<wire>.py USER_DIR)
    "PASTURE_POLICY",
    "PASTURE_MANAGED_POLICY",
    "PASTURE_TRUST_STORE",
    "PASTURE_CACHE_DIR",
)
# what a compiled policy is made from: the compiler and the hosts' declared guard files (hostwire GUARDED_*)
_COMPILER = ("policy.py", "builtin.py", "effective.py", "runrule.py", "packs.py", "argvcode.py") + tuple(
    f"hostwire/{wire}.py" for wire in ("guarded", *dict.fromkeys(WIRES.values()))
)
# deny > ask > rewrite > allow > proceed: a rewrite is an allow of the rewritten input, so it answers both
RANK = {"proceed": 0, "allow": 1, "rewrite": 2, "ask": 3, "deny": 4}
_MEMO: dict = {}


class Verdict:
    """decision proceed|deny|ask (or None: no decision, `failure` says why); which layer, rule and gate."""

    __slots__ = ("decision", "reason", "layer", "rule", "gate", "detail", "failure", "notes", "entry", "rewrites")

    def __init__(
        self,
        decision: "Any",  # proceed | deny | ask | allow | rewrite, or None with `failure` set
        reason: "Any",
        layer: "str | None" = None,
        rule: "str | None" = None,
        gate: str = "none",
        detail: "Any" = None,
        failure: "str | None" = None,
        notes: "Any" = (),
        entry: "dict | None" = None,
    ) -> None:
        self.decision, self.reason, self.layer, self.rule = decision, reason, layer, rule
        self.gate, self.detail, self.failure, self.notes = gate, detail, failure, notes
        self.entry = entry  # the compiled rule that decided (allow/rewrite: its on_unsupported, rewrite)
        self.rewrites: list = []  # (layer, rule) of every matching rewrite rule, in layer order


class Effective:
    """The loaded policy. `layers`: one dict per layer (managed, user, project) with at least name,
    path, status (absent | trusted | untrusted | invalid | unreadable), digest, error, ignored."""

    __slots__ = (
        "root",
        "layers",
        "journal",
        "notes",
        "protect",
        "files",
        "folders",
        "screen_words",
        "home",
        "from_cache",
        "alerts",
        "retention",
        "steer",
        "packs",
    )

    def __init__(self, data: dict, from_cache: bool, alerts: list | None = None) -> None:
        self.root = data["root"]
        self.layers = data["layers"]
        self.journal = data["journal"]
        self.alerts = alerts or []  # this load only (a cache that failed verification): never cached
        self.notes = data["notes"] + self.alerts
        self.protect = data["protect"]
        self.files, self.folders = data["protected"]
        self.screen_words = data.get("screen")  # every host's SCREEN_WORDS (pasture.runtime.builtin.screen)
        self.home = data["home"]
        self.retention = data.get("retention") or {}
        self.steer = data.get("steer") or {}  # "context:<on>" | "after" | "until" -> [(layer, entry)]
        self.from_cache = from_cache
        self.packs = data.get("packs")  # the `packs` pseudo-layer (pasture.runtime.packs), or None

    @property
    def configured(self) -> bool:
        return any(layer["status"] != "absent" for layer in self.layers)

    def layer(self, name: str) -> dict:
        return next(layer for layer in self.layers if layer["name"] == name)


def _read(path: str, follow: bool = True, limit: int = 0) -> "bytes | tuple[str, Any] | None":
    """bytes, None when absent, ("unreadable", why), or ("too large", size): a regular file of at most
    `limit` bytes (MAX_LAYER_BYTES unless given) only."""
    limit = limit or MAX_LAYER_BYTES
    try:
        return fs.read_file(path, limit, follow)[0]
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if isinstance(exc, fs.NotRegular) and exc.errno == 27:  # EFBIG: said apart, with the size
            try:
                return ("too large", fs.stat(path).st_size)
            except OSError:
                pass
        return ("unreadable", exc.strerror or type(exc).__name__)


def too_large(path: str, size: int, limit: int = 0) -> str:
    """The line a layer over the cap gets (the hook and `pasture policy check` both say it)."""
    limit = limit or MAX_LAYER_BYTES
    mib = f" ({limit >> 20} MiB)" if limit % (1 << 20) == 0 else ""
    return (
        f"{path}: {size} bytes, over the {limit}-byte{mib} cap of a policy layer; make it smaller "
        "(drop or merge rules, or move them to another layer), then run: pasture policy check"
    )


def _fnv(text: str) -> str:
    # A stable file name for the cache entry without hashlib; the entry's full key is checked inside.
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def _compiler_stamp() -> tuple:
    """The compiler's files and the shipped packs (pasture.runtime.packs.stamp), by size and mtime: an
    upgrade of pasture or of a pack recompiles once."""
    from pasture import __version__
    from pasture.runtime.packs import stamp as packs_stamp

    here = fs.dirname(__file__)
    stamp: list[tuple[int, int] | None] = []
    for name in _COMPILER:
        try:
            st = fs.stat(fs.join(here, name))
            stamp.append((st.st_mtime_ns, st.st_size))
        except OSError:
            stamp.append(None)
    return (__version__, tuple(stamp), packs_stamp())


def cache_path(root: str, env: dict) -> str:
    env_key = tuple(env.get(k) for k in _ENV_KEYS)
    return fs.join(layers.cache_dir(env), "policy", _fnv(repr((root, env_key))) + ".cache")


def sources_of(root: str, env: dict) -> tuple:
    """(key, layer sources, trust store bytes): what a compiled policy is valid for."""
    env_key = tuple(env.get(k) for k in _ENV_KEYS)
    sources = [(name, path, _read(path)) for name, path in layers.paths(root, env)]
    trust_bytes = _read(layers.trust_store_path(env), follow=False, limit=MAX_TRUST_BYTES)
    key = (
        FORMAT,
        sys.hexversion,
        _compiler_stamp(),
        root,
        env_key,
        tuple((path, data) for _, path, data in sources),
        trust_bytes,
    )
    return key, sources, trust_bytes


def load(root: str, env: dict, deadline: float | None = None) -> Effective:
    """The effective policy for a project root; never raises for anything a file or the cache holds.

    `deadline`: a time.monotonic() instant by which a compile must be done (pasture.runtime.policy)."""
    key, sources, trust_bytes = sources_of(root, env)
    memo = _MEMO.get(root)
    if memo is not None and memo[0] == key and _programs_hold(memo[2]):
        return memo[1]
    cache = cache_path(root, env)
    secret, problem = cache_key(env)
    data, alerts, stored = None, [], None
    if secret is not None:
        stored, problem = read_cache(cache, secret)
        if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key and _programs_hold(stored[1]):
            data = stored[1]
    if problem:
        alerts.append(
            f"{problem}: not believed; the policy was compiled again from its files (if you did not "
            f"cause this, something rewrote pasture's cache: run pasture doctor)"
        )
    from_cache = data is not None
    if data is None:
        # `stored` is only ever a cache this user's key vouched for (read_cache), so its validated
        # patterns may be reused: an edited policy then re-validates only the patterns it changed.
        data = build(root, env, sources, trust_bytes, _patterns(stored, key), deadline, _catalog(stored, key))
        if data.get("incomplete"):  # a compile cut short by the deadline is never remembered
            return Effective(data, False, alerts)
        if secret is None and problem is None:
            secret = _new_key(env)
        if secret is not None:
            _store(cache, (key, data), secret)
    effective = Effective(data, from_cache, alerts)
    # the alerts are said once, by the load that found them (the OpenCode server reuses the memo)
    _MEMO[root] = (key, Effective(data, from_cache) if alerts else effective, data)
    return effective


def _mac(secret: bytes, blob: bytes) -> bytes:
    """A keyed BLAKE2b tag: BLAKE2's own keyed mode is a MAC (RFC 7693), so no `hmac` (whose import,
    with `hashlib`, would cost the hook more than the rest of a cache hit). `_blake2` is the C
    module `hashlib.blake2b` is."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python built without it
        from hashlib import blake2b
    return blake2b(blob, digest_size=_TAG, key=secret).digest()


def _uid() -> int:
    import posix

    return posix.getuid()


def _private(st: "Any") -> str | None:
    """Why a stat result is not a private file of ours, else None."""
    if st.st_uid != _uid():
        return f"owned by uid {st.st_uid}, not by you"
    if st.st_mode & 0o077:
        return f"mode {st.st_mode & 0o777:o}, not 0600"
    return None


def cache_key(env: dict) -> tuple:
    """(the cache's key bytes, None) | (None, None) when there is none yet | (None, why it is unusable)."""
    path = layers.cache_key_path(env)
    try:
        folder = fs.stat(fs.dirname(path))
        if folder.st_uid != _uid() or folder.st_mode & 0o022:
            return None, (
                f"the state folder {fs.dirname(path)} is not yours alone (owner uid {folder.st_uid}, "
                f"mode {folder.st_mode & 0o777:o}): the policy cache key in it is not used"
            )
        data, st = fs.read_file(path, 64, follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        return None, f"the policy cache key {path} cannot be read ({exc.strerror or type(exc).__name__})"
    why = _private(st) or (None if len(data) == _TAG else f"{len(data)} bytes, not {_TAG}")
    if why:
        return None, f"the policy cache key {path} is {why}"
    return data, None


def _new_key(env: dict) -> bytes | None:
    import posix

    path = layers.cache_key_path(env)
    try:
        _private_dir(fs.dirname(path))
        secret = posix.urandom(_TAG)
        temp = f"{path}.{posix.getpid()}.tmp"
        fd = posix.open(temp, fs.O_WRONLY | fs.O_CREAT | posix.O_EXCL | fs.O_NOFOLLOW | fs.O_CLOEXEC, 0o600)
        try:
            posix.write(fd, secret)
        finally:
            posix.close(fd)
        try:
            posix.link(temp, path)  # never replaces a key another process made meanwhile
        finally:
            posix.unlink(temp)
    except OSError:
        pass
    return cache_key(env)[0]


def _private_dir(path: str) -> None:
    """mkdir -p, the last folder 0700 (its parents as the umask says, like os.makedirs)."""
    if fs.isdir(path):
        return
    fs.makedirs(fs.dirname(path))
    import posix

    try:
        posix.mkdir(path, 0o700)
    except FileExistsError:
        pass


def _patterns(stored: "Any", key: tuple) -> dict:
    """The validated patterns of the previous (verified) compile on the same interpreter and compiler
    (the same first parts of the key), by source: ("re", source, literal, plan) as policy.freeze makes them."""
    reuse: dict = {}
    try:
        if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0][:4] == key[:4]):
            return reuse
        for layer in stored[1]["layers"]:
            for rule in layer.get("rules") or ():
                for frozen in (*rule["regexes"].values(), *rule["inputs"].values()):
                    if isinstance(frozen, tuple) and len(frozen) == 4 and frozen[0] == "re":
                        reuse[frozen[1]] = frozen
    except Exception:  # noqa: BLE001 - a cache of another shape: compile everything
        return {}
    return reuse


def _catalog(stored: "Any", key: tuple) -> dict | None:
    """The compiled packs of the previous (verified) compile when pasture, the compiler and every pack
    file are the same (key[:3]): a policy edit then does not compile the packs again."""
    try:
        if isinstance(stored, tuple) and len(stored) == 2 and stored[0][:3] == key[:3]:
            found = stored[1].get("catalog")
            return found if isinstance(found, dict) else None
    except Exception:  # noqa: BLE001 - a cache of another shape: compile the packs
        return None
    return None


def read_cache(cache: str, secret: bytes) -> tuple:
    """(the stored value, None) | (None, None) when there is no cache | (None, why it is not believed)."""
    try:
        raw, st = fs.read_file(cache, MAX_CACHE_BYTES, follow=False)
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except OSError as exc:
        return None, f"the policy cache {cache} cannot be read ({exc.strerror or type(exc).__name__})"
    why = _private(st)
    if why is None and (raw[: len(MAGIC)] != MAGIC or len(raw) < len(MAGIC) + _TAG):
        why = "not a pasture policy cache"
    if why is None:
        import _operator

        tag, blob = raw[len(MAGIC) : len(MAGIC) + _TAG], raw[len(MAGIC) + _TAG :]
        if not _operator._compare_digest(tag, _mac(secret, blob)):
            why = "not signed with your cache key (forged or damaged)"
    if why is not None:
        return None, f"the policy cache {cache} failed verification ({why})"
    try:
        return marshal.loads(blob), None  # only bytes this user's key vouches for are ever unmarshalled
    except Exception:  # pragma: no cover - a signed cache from another interpreter's marshal format
        return None, None


def _store(cache: str, value: "Any", secret: bytes) -> None:
    import posix

    try:
        _private_dir(fs.dirname(cache))
        blob = marshal.dumps(value)
        temp = f"{cache}.{posix.getpid()}.tmp"
        fd = posix.open(temp, fs.O_WRONLY | fs.O_CREAT | fs.O_TRUNC | fs.O_NOFOLLOW | fs.O_CLOEXEC, 0o600)
        try:
            posix.fchmod(fd, 0o600)  # a stale temp file keeps its old mode through O_TRUNC
            posix.write(fd, MAGIC + _mac(secret, blob) + blob)
        finally:
            posix.close(fd)
        posix.replace(temp, cache)
    except (OSError, ValueError):
        pass  # a read-only cache folder costs speed, never a decision


def build(
    root: str,
    env: dict,
    sources: list,
    trust_bytes: "Any",
    reuse: dict | None = None,
    deadline: float | None = None,
    catalog: dict | None = None,
) -> dict:
    """Compile every layer (off the hot path: tomllib, re, hashlib)."""
    from pasture.runtime import builtin
    from pasture.runtime.policy import PolicyError, PolicyTimeout, compile_layer
    from pasture.runtime.trust import TrustStoreError, digest, holds, programs, store_path
    from pasture.runtime.trust import key as trust_key
    from pasture.runtime.trust import parse as parse_trust

    notes: list[str] = []
    if catalog is not None:  # the packs of the previous verified compile, when nothing they depend on changed
        from pasture.runtime.packs import seed

        seed(catalog)
    try:
        trusted_entries = parse_trust(trust_bytes, store_path(env)) if not isinstance(trust_bytes, tuple) else {}
        if isinstance(trust_bytes, tuple):
            why = trust_bytes[1] if trust_bytes[0] != "too large" else f"{trust_bytes[1]} bytes, over its cap"
            notes.append(f"trust store {store_path(env)} unreadable ({why}): no project policy is trusted")
    except TrustStoreError as exc:
        trusted_entries = {}
        notes.append(f"{exc}: no project policy is trusted")
    compiled = []
    incomplete = False
    pinned_programs: tuple = ()
    for name, path, raw in sources:
        layer = {
            "name": name,
            "path": path,
            "status": "absent",
            "digest": None,
            "error": None,
            "ignored": [],
            "rules": [],
            "kind": "rules",
            "default": "proceed",
            "events": None,
            "journal": None,
            "protect": None,
            "trusted": False,
            "pinned": None,
            "context": [],
            "after": [],
            "until": [],
        }
        if raw is None:
            compiled.append(layer)
            continue
        if isinstance(raw, tuple) and raw[0] == "too large":
            layer.update(status="unreadable", error=too_large(path, raw[1]))
            compiled.append(layer)
            continue
        if isinstance(raw, tuple):
            layer.update(
                status="unreadable",
                error=f"{path}: cannot be read ({raw[1]}); fix its permissions "
                f"or remove it, then run: pasture policy check",
            )
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
            layer.update(compile_layer(name, path, raw, root, trusted, reuse, deadline))
            layer["status"] = "trusted" if trusted else "untrusted"
        except PolicyTimeout as exc:
            incomplete = True
            layer.update(status="invalid", error=str(exc))
        except PolicyError as exc:
            layer.update(status="invalid", error=f"{exc} (run: pasture policy check)")
        compiled.append(layer)
        if layer["status"] == "untrusted" and layer["ignored"]:
            state = (
                why
                if why == "changed since you trusted it"
                else f"not trusted ({why})"
                if why
                else ("changed since you trusted it" if layer["pinned"] else "not trusted")
            )
            notes.append(
                f"project policy {path} is {state}: ignored {'; '.join(layer['ignored'])}; its rules "
                f"still apply. Review it, then run: pasture policy trust --project {root}"
            )
        elif layer["ignored"]:
            notes.append(f"{name} policy {path}: ignored {'; '.join(layer['ignored'])}")
    packs_layer, compiled_packs = _packs_layer(compiled, notes)
    _check_exceptions(compiled, packs_layer)
    protect = True
    for layer in compiled:  # managed outranks user
        if layer["name"] in ("managed", "user") and layer.get("protect") is not None:
            protect = layer["protect"]
            break
    journal = next((layer["journal"] for layer in compiled if layer.get("journal")), None)
    retention: dict = {}
    for layer in compiled:  # managed outranks user, key by key (a project layer never sets it)
        if layer["name"] in ("managed", "user"):
            for rkey, value in (layer.get("retention") or {}).items():
                retention.setdefault(rkey, value)
    steer: dict = {}
    for layer in compiled:  # only a layer that compiled (an untrusted project layer's are already dropped)
        if layer["status"] not in ("trusted", "untrusted"):
            continue
        for entry in layer.get("context") or ():
            steer.setdefault("context:" + entry["on"], []).append((layer["name"], entry))
        for array in ("after", "until"):
            for entry in layer.get(array) or ():
                steer.setdefault(array, []).append((layer["name"], entry))
    return {
        "steer": steer,
        "root": root,
        "layers": compiled,
        "journal": journal,
        "notes": notes,
        "protect": protect,
        "retention": retention,
        "incomplete": incomplete,
        "protected": builtin.protected(root, env),
        "screen": builtin.screen_words(),
        "home": layers.home(env),
        "programs": pinned_programs,
        "packs": packs_layer,
        "catalog": compiled_packs,
    }


def _packs_layer(compiled: list, notes: list) -> tuple:
    """(the `packs` pseudo-layer: the pack rules the layers select (pasture.runtime.packs.select), every
    compiled pack or None)."""
    from pasture.runtime.packs import folder, select
    from pasture.runtime.policy import PackError, pack_catalog

    layer: dict = {
        "name": "packs",
        "path": folder(),
        "status": "trusted",
        "error": None,
        "ignored": [],
        "rules": [],
        "kind": "rules",
        "default": None,
        "events": None,
        "selected": {},
        "versions": {},
    }
    try:
        packs = pack_catalog()
    except PackError as exc:
        layer.update(status="invalid", error=f"{exc} (reinstall pasture)")
        return layer, None
    selected, rules, said = select(compiled, packs)
    notes.extend(said)
    layer.update(selected=selected, rules=rules, versions={n: p["version"] for n, p in packs.items()})
    return layer, packs


def _check_exceptions(compiled: list, packs_layer: dict) -> None:
    """Every name in a rule's `except` is a rule of its own or a lower layer, or a pack rule id; else
    the layer is invalid (file:line, the known names)."""
    from pasture.runtime.policy import pack_catalog

    try:
        ids = [i for pack in pack_catalog().values() for i in pack["ids"]]
    except Exception:  # noqa: BLE001 - a broken pack is reported by the packs layer
        ids = []
    for index, layer in enumerate(compiled):
        if layer["status"] not in ("trusted", "untrusted"):
            continue
        lower = [r["name"] for other in compiled[index:] for r in other.get("rules") or ()]
        for rule in layer.get("rules") or ():
            wrong = [n for n in rule.get("except", ()) if n not in lower and n not in ids]
            if wrong:
                known = sorted(set(lower) - {rule["name"]}) + ids
                at = f"{layer['path']}:{rule['line']}" if rule.get("line") else layer["path"]
                layer.update(
                    status="invalid",
                    rules=[],
                    error=f"{at}: rule {rule['name']!r}: except names unknown rule(s) "
                    f"{', '.join(map(repr, wrong))}; known: {', '.join(known) or 'none'} (run: pasture policy check)",
                )
                break


def _signature(path: str) -> tuple | None:
    """What changes whenever a file's bytes do (ctime cannot be set back by a user), without reading it."""
    try:
        st = fs.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _programs_hold(data: dict) -> bool:
    """The programs a pinned project layer runs are unchanged since it was compiled (else: rebuild,
    and the rebuild compares their bytes with the pins)."""
    for path, want in data.get("programs", ()):
        if _signature(path) != want:
            return False
    return True


# --- evaluation ------------------------------------------------------------------------------------

_THAWED: dict = {}


def build_pattern(frozen: tuple) -> "Any":
    """The compiled pattern of a cached one: ("re", source). The cache never holds an engine program:
    thawing one from a file let a crafted program crash the hook (SIGSEGV)."""
    compiler = _sre_compiler()
    if compiler is not None:
        return compiler.compile(frozen[1], 0)
    import re

    return re.compile(frozen[1])


_SRE_COMPILER: list = []


def _sre_compiler() -> "Any":
    """The standard library's own regex compiler (`re/_compiler.py`, what `re.compile` calls), loaded
    without `re/__init__.py`: that file imports `enum` and `functools`, most of what `import re` costs
    the hook (measured: benchmarks/README.md). Same files, loaded under a private package name so the
    real `re` is untouched; None (use `re`) wherever that layout is not there."""
    if _SRE_COMPILER:
        return _SRE_COMPILER[0]
    compiler = None
    try:
        encodings = sys.modules["encodings"].__path__[0]
        package = type(sys)("_pasture_re")
        package.__path__ = [fs.join(fs.dirname(encodings), "re")]
        sys.modules["_pasture_re"] = package
        from _pasture_re import _compiler  # type: ignore[import-not-found]

        if _compiler.compile("a+b", 0).search("xaab").span() == (1, 4):
            compiler = _compiler
    except Exception:  # another layout or implementation: `import re` does it
        sys.modules.pop("_pasture_re", None)
    _SRE_COMPILER.append(compiler)
    return compiler


def thaw(frozen: tuple) -> "Any":
    """The compiled pattern for a cached one (memoized per process: the OpenCode server reuses it)."""
    key = frozen[1]
    pattern = _THAWED.get(key)
    if pattern is None:
        pattern = _THAWED[key] = build_pattern(frozen)
    return pattern


class _Budget(BaseException):
    """The row's deadline passed while a rule's pattern was matching (a BaseException: no `except
    Exception` on the way, say in the pattern compiler's loader, may swallow it)."""


def _expired(signum: int, frame: "Any") -> None:
    raise _Budget()


def _arm(deadline: float | None) -> tuple | None:
    """Interrupt matching at `deadline` (SIGALRM: the regex engine checks signals as it runs). Only the
    main thread can take a signal; elsewhere (the OpenCode server's workers) the compile-time screen
    of catastrophic patterns (pasture.runtime.policy) is what bounds a match. The old handler, or None."""
    if deadline is None:
        return None
    import _signal  # type: ignore[import-not-found]  # the C half of `signal`, which has no stub
    import time

    try:
        old = _signal.signal(_signal.SIGALRM, _expired)
    except ValueError:  # not the main thread
        return None
    _signal.setitimer(_signal.ITIMER_REAL, max(deadline - time.perf_counter(), 0.001))
    return (old,)


def _disarm(armed: tuple | None) -> None:
    if armed is None:
        return
    import _signal

    _signal.signal(_signal.SIGALRM, _signal.SIG_IGN)  # a tick already on its way is dropped, not raised here
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    _signal.signal(_signal.SIGALRM, armed[0] if armed[0] is not None else _signal.SIG_DFL)


def _text(value: "Any") -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    from pasture.runtime.fastjson import dumps

    return dumps(value, ascii=False, default=str)


def search(frozen: tuple, text: str) -> bool:
    """re.search(pattern, text) is not None; a subject without the pattern's required literal, and
    every subject of a pattern without repeats (its plan), is answered without compiling (or
    importing `re`)."""
    if len(frozen) > 2 and frozen[2] and frozen[2] not in text:
        return False
    if len(frozen) > 3 and frozen[3] is not None:
        from pasture.runtime.plainre import search as plain_search

        found = plain_search(frozen[3], text)
        if found is not None:
            return found
    return thaw(frozen).search(text) is not None


def _every_or_any(rule: dict, frozen: tuple, paths: list) -> bool:
    """A tool that touches several files (a patch): a rule that refuses or asks matches if any path
    does; one that approves or rewrites only if every path does (an allow for docs/ must not carry a
    patch that also writes elsewhere)."""
    hits = (search(frozen, _text(path)) for path in paths)
    return any(hits) if rule.get("decision") in ("deny", "ask") else all(hits)


def _matches(rule: dict, envelope: dict) -> bool:
    for key, allowed in rule["lists"].items():
        if envelope.get(key) not in allowed:
            return False
    for key, frozen in rule["regexes"].items():
        if key == "file_path" and len(envelope.get("file_paths") or ()) > 1:
            if not _every_or_any(rule, frozen, envelope["file_paths"]):
                return False
            continue
        value = envelope.get(key)
        if value is None or not search(frozen, _text(value)):
            return False
    if rule["inputs"]:
        tool_input = envelope.get("tool_input")
        if not isinstance(tool_input, dict):
            return False
        for field, frozen in rule["inputs"].items():
            if field not in tool_input or not search(frozen, _text(tool_input[field])):
                return False
    return True


class _Shell:
    """The invocations of a shell call (pasture.runtime.invocation), read once per event and shared by
    every structured rule; None when the reader cannot follow the line."""

    __slots__ = ("command", "_invocations", "_read", "_deadline", "_clock")

    def __init__(
        self, envelope: dict, deadline: float | None = None, clock: "Callable[[], float] | None" = None
    ) -> None:
        self._deadline, self._clock = deadline, clock
        command = envelope.get("command") if envelope.get("tool_kind") == "shell" else None
        if command is None and envelope.get("tool_kind") == "shell":
            tool_input = envelope.get("tool_input")
            argv = tool_input.get("command", tool_input.get("cmd")) if isinstance(tool_input, dict) else None
            if isinstance(argv, list) and argv and all(isinstance(w, str) for w in argv):
                # an argv the host runs as it is (["bash", "-lc", "..."]): the same words, quoted back
                command = " ".join("'" + w.replace("'", "'\\''") + "'" for w in argv)
        self.command = command if isinstance(command, str) else None
        self._invocations: list | None = None
        self._read = False

    def invocations(self) -> list | None:
        if not self._read:
            self._read = True
            from pasture.runtime.invocation import read
            from pasture.runtime.shellparse import Unparsable
            from pasture.runtime.shellwrites import Budget

            # bounded as the guard's own reading is (steps, sizes, the row's deadline); past a bound the
            # line counts as one the reader cannot follow: deny and ask rules read it loosely
            budget = Budget(deadline=self._deadline, clock=self._clock)
            try:
                self._invocations = read(self.command or "", budget=budget)
            except (Unparsable, RecursionError, ValueError):
                self._invocations = None
            except Exception:  # noqa: BLE001 - a reader fault: read the line as one it cannot follow
                self._invocations = None
        return self._invocations


def _hits(rule: dict, envelope: dict, shell: "_Shell") -> "Any":
    """None (the rule does not match), "line" (a rule without [rules.run] matches the call), or
    {invocation index: "match" | "unknown"} (with "loose" keys when the line could not be read)."""
    if not _matches(rule, envelope):
        return None
    run = rule.get("run")
    if run is None:
        return "line"
    if shell.command is None:
        return None
    from pasture.runtime.invocation import loose, match

    invocations = shell.invocations()
    if invocations is None:
        if rule["decision"] not in ("deny", "ask"):
            return None  # an unreadable line is approved, rewritten or excepted by nothing
        invocations = loose(shell.command, run["program"])
        found: dict = {("loose", i): match(run, inv, search) for i, inv in enumerate(invocations)}
    else:
        every = rule["decision"] not in ("deny", "ask")  # an approval or exception vouches for every argument
        found = {i: match(run, inv, search, every) for i, inv in enumerate(invocations)}
    hits = {i: how for i, how in found.items() if how is not None}
    return hits or None


_SCOPES = {"managed": 0, "user": 1, "project": 2}


def _exceptions(effective: Effective, envelope: dict, shell: "_Shell", event: "str | None") -> list:
    """(scope, names, invocations covered, covers the whole line) for each exception rule that matches."""
    lifts: list = []
    if shell.command is not None and any(rule.get("except") for layer in effective.layers for rule in layer["rules"]):
        if shell.invocations() is None:
            return lifts  # a line the reader cannot follow is excepted by nothing
    for layer in effective.layers:
        if layer["name"] not in ("managed", "user") or layer["status"] not in ("trusted", "untrusted"):
            continue
        if layer["events"] is not None and event not in layer["events"]:
            continue
        for rule in layer["rules"]:
            if not rule.get("except"):
                continue
            hits = _hits(rule, envelope, shell)
            if hits is None:
                continue
            if hits == "line":
                lifts.append((_SCOPES[layer["name"]], rule["except"], frozenset(), True))
                continue
            covered = frozenset(i for i, how in hits.items() if how == "match" and isinstance(i, int))
            everything = shell.invocations() or []
            whole = bool(everything) and len(covered) == len(everything)
            lifts.append((_SCOPES[layer["name"]], rule["except"], covered, whole))
    return lifts


def _judge_layer(
    layer: dict, envelope: dict, shell: "_Shell", lifts: list, root: str, said: list, at: list
) -> "tuple | None":
    """The rule that decides one layer (deny > ask > rewrite > allow > proceed wherever listed), as
    (decision, reason, rule), or None when no rule does (the layer's gate or default then)."""
    from_packs = layer["name"] == "packs"
    best = None
    allows: list = []
    proceeds: list = []
    for rule in layer["rules"]:
        at[:] = [rule]  # the rule being matched, for a deadline that passes meanwhile
        hits = _hits(rule, envelope, shell)
        if hits is None:
            continue
        decision = rule["decision"]
        if decision in ("deny", "ask"):
            scope = _SCOPES.get(rule.get("selector"), 2) if from_packs else _SCOPES.get(layer["name"], 2)
            mine = [lift for lift in lifts if lift[0] <= scope and rule["name"] in lift[1]]
            if hits == "line":
                if any(lift[3] for lift in mine):
                    continue
                found = decision
            else:
                if any(lift[3] for lift in mine) and shell.invocations() is not None:
                    continue  # an exception that covers every command of the line
                left = {i: how for i, how in hits.items() if not any(i in lift[2] for lift in mine)}
                if not left:
                    continue
                found = decision if "match" in left.values() else rule["run"].get("unknown", decision)
                if found == "proceed":
                    continue
            if best is None or RANK[found] > RANK[best[0]]:
                reason = rule["reason"]
                if found != decision:
                    reason = f"{reason} (its target is only known when it runs)"
                best = (found, reason, rule)
                if found == "deny":
                    return best
        elif decision == "rewrite":
            problem = _rewrite_problem(rule, hits, shell, root)
            if problem is None:
                found = ("rewrite", rule["reason"], rule)
            elif rule["on_unsupported"] == "deny":
                found = ("deny", f"rule {rule['name']!r}: {problem}; refused (on_unsupported = deny)", rule)
            else:
                said.append(f"rule {rule['name']!r}: {problem}; no rewrite (on_unsupported = proceed)")
                continue
            if best is None or RANK[found[0]] > RANK[best[0]]:
                best = found
        elif decision == "allow":
            allows.append((rule, hits))
        else:
            proceeds.append(rule)
    if best is not None:
        return best
    if allows:
        given = _allow_given(allows, shell, root, said)
        if given is not None:
            return ("allow", given["reason"], given)
    if proceeds:
        return ("proceed", proceeds[0]["reason"], proceeds[0])
    return None


def _rewrite_problem(rule: dict, hits: "Any", shell: "_Shell", root: str) -> str | None:
    """Why a matching rewrite cannot apply: a structured one only to a line that is the one command it
    matched; any rewrite (an approval of what it makes) not to a program reached through a path or
    with a VAR=value prefix."""
    if shell.command is None:
        return None
    from pasture.runtime.invocation import exact

    invocations = shell.invocations()
    if invocations is None:
        return "the shell line cannot be read, so the command it would rewrite is not known"
    if hits != "line" and (len(invocations) != 1 or hits.get(0) != "match"):
        return "a rewrite applies only to a shell line that is the one command it matches"
    if hits == "line" and len(invocations) > 1:
        return None  # a regex rewrite of a chain: refused as a chain (pasture.runtime.lifecycle)
    for inv in invocations:
        why = exact(inv, root) or (_code_on_line(inv) if hits == "line" else None)
        if why:
            return f"cannot rewrite: {why}"
    return None


def _code_on_line(inv: "Any") -> str | None:
    """A regex rule sees text, not programs: it cannot approve an interpreter running code from the line
    (`python3 -c "..." git push --force` holds the text a `git push` regex looks for)."""
    if inv.script is not None:
        return f"{inv.program} runs code given on its command line, which a regex rule cannot approve ([rules.run] can)"
    return None


def _allow_given(allows: list, shell: "_Shell", root: str, said: list) -> "Any":
    """The allow rule that approves the call, or None: a structured allow only when every command of the
    line matches one of the layer's structured allows; any allow only when no command has a VAR=value
    prefix, a program reached through a path, or an output redirection outside the project."""
    if shell.command is None:
        return allows[0][0]
    from pasture.runtime.invocation import exact

    invocations = shell.invocations()
    name = allows[0][0]["name"]
    if invocations and len(invocations) > 1 and all(hits == "line" for _, hits in allows):
        return allows[0][0]  # a regex allow of a chain: refused as a chain (pasture.runtime.lifecycle)
    if not invocations:
        said.append(f"rule {name!r}: the shell line cannot be read; allow is not given")
        return None
    for inv in invocations:
        why = exact(inv, root)
        if why:
            said.append(f"rule {name!r}: {why}; allow is not given")
            return None
    structured = [(rule, hits) for rule, hits in allows if hits != "line"]
    if structured:
        covered: set = set()
        for _, hits in structured:
            covered.update(i for i, how in hits.items() if how == "match")
        missing = [inv.program for i, inv in enumerate(invocations) if i not in covered]
        if not missing:
            return structured[0][0]
        if len(structured) == len(allows):
            said.append(f"rule {name!r}: {', '.join(missing)} is not one of the allowed commands; allow is not given")
            return None
    regex = next(rule for rule, hits in allows if hits == "line")
    why = next((w for w in map(_code_on_line, invocations) if w), None)
    if why:
        said.append(f"rule {regex['name']!r}: {why}; allow is not given")
        return None
    return regex


def evaluate(
    effective: Effective, envelope: dict, deadline: float | None = None, clock: "Callable[[], float] | None" = None
) -> Verdict:
    """Decide one gate-consultation event. `deadline`: a time.perf_counter() instant no gate may outlive."""
    decisions: list[tuple] = []  # (decision, reason, layer, rule, gate, detail)
    failures: list[str] = []
    failed_gate = (None, "none")  # (layer, gate) of the first gate that produced no decision
    pending: list[dict] = []
    read: list[str] = []  # what the built-in guard's reading notes (it stopped at its budget)
    if effective.protect:
        from pasture.runtime.builtin import RULE, check

        reason = check(
            envelope, effective.files, effective.folders, effective.home, effective.root,
            deadline=deadline, clock=clock, notes=read, words=effective.screen_words,
        )  # fmt: skip
        if reason is not None:
            return Verdict("deny", reason, "builtin", RULE, f"builtin:{RULE}", notes=effective.notes)
    if read:
        verdict = _layers(effective, envelope, deadline, clock, decisions, failures, failed_gate, pending)
        verdict.notes = list(verdict.notes) + read
        return verdict
    return _layers(effective, envelope, deadline, clock, decisions, failures, failed_gate, pending)


def _layers(
    effective: Effective,
    envelope: dict,
    deadline: float | None,
    clock: "Callable[[], float] | None",
    decisions: list,
    failures: list,
    failed_gate: tuple,
    pending: list,
) -> Verdict:
    """The policy layers' decision (evaluate, past the built-in guard)."""
    event = envelope.get("event")
    armed = _arm(deadline)
    layer = current = None
    shell = _Shell(envelope, deadline, clock)
    said: list = []
    at: list = []
    try:
        lifts = _exceptions(effective, envelope, shell, event)
        everyone = list(effective.layers)
        if effective.packs is not None:
            everyone.append(effective.packs)
        for layer in everyone:
            status = layer["status"]
            if status == "absent":
                continue
            if status in ("invalid", "unreadable"):
                failures.append(f"{layer['name']} policy: {layer['error']}")
                continue
            if layer["events"] is not None and event not in layer["events"]:
                continue
            found = _judge_layer(layer, envelope, shell, lifts, effective.root, said, at)
            at[:] = []
            if found is not None:
                rule = found[2]
                decisions.append((found[0], found[1], layer["name"], rule["name"], f"rules:{rule['name']}", None, rule))
                if found[0] == "deny":
                    break  # nothing can outrank it: no other layer's patterns run
            elif layer["kind"] != "rules":  # a gate to run (pasture.runtime.gatekinds)
                pending.append(layer)
            elif layer["default"] is not None:
                decisions.append(
                    (layer["default"], "no policy rule matched", layer["name"], None, "rules:default", None, None)
                )
    except _Budget:
        current = at[0] if at else None
        layer = layer or {"name": "the", "path": "?"}
        where = f"{layer['path']}:{current['line']}" if current and current.get("line") else layer["path"]
        what = f"rule {current['name']!r}" if current else "its rules"
        failures.append(
            f"{layer['name']} policy {what} ({where}) was still matching at the row's deadline; "
            f"simplify its pattern, then run: pasture policy check"
        )
        pending = []  # no time is left for a gate
        if failed_gate[0] is None:
            failed_gate = (layer["name"], "rules")
    finally:
        try:
            _disarm(armed)
        except _Budget:  # the one tick landed while it was being stopped: nothing is left running
            _disarm(armed)
    if not any(d[0] == "deny" for d in decisions):
        for layer in pending:
            from pasture.gates.errors import GateFailure
            from pasture.runtime.consult import run_gate

            try:
                decision, reason, detail = run_gate(layer, envelope, effective.root, deadline, clock)
            except GateFailure as exc:
                failures.append(f"{layer['name']} policy {layer['kind']} gate: {exc}")
                if failed_gate[0] is None:
                    failed_gate = (layer["name"], layer["kind"])
                if exc.detail:
                    decisions.append((None, None, layer["name"], None, layer["kind"], exc.detail, None))
                continue
            decisions.append((decision, reason, layer["name"], None, layer["kind"], detail, None))
            if decision == "deny":
                break
    if said:
        effective_notes = [*effective.notes, *said]
    else:
        effective_notes = effective.notes
    real = [d for d in decisions if d[0] is not None]
    detail = next((d[5] for d in decisions if d[5]), None)
    if real:
        best = max(real, key=lambda d: RANK[d[0]])  # max keeps the first of equals: the outermost layer
        if best[0] == "deny" or not failures:
            verdict = Verdict(best[0], best[1], best[2], best[3], best[4], best[5] or detail, None, effective_notes)
        else:
            verdict = Verdict(best[0], best[1], best[2], best[3], best[4], detail, "; ".join(failures), effective_notes)
        verdict.entry = best[6]
        if best[0] == "rewrite":
            verdict.rewrites = [(d[2], d[6]) for d in real if d[0] == "rewrite"]
        return verdict
    if failures:
        return Verdict(None, None, failed_gate[0], None, failed_gate[1], detail, "; ".join(failures), effective_notes)
    if not effective.configured:
        return Verdict("proceed", "no policy configured", None, None, "none", notes=effective_notes)
    return Verdict("proceed", "no layer of the policy covers this event", None, None, "none", notes=effective_notes)
