"""The fast path of `pasture check`: skip loading and rendering when nothing the result depends on changed.

A full check that finds generated/ clean records, in the user's cache folder, a digest of everything
its verdict depended on:

* the project's profiles/ and captures/ (every file, bytes), and any other repository path a profile
  cites (its bytes, or that it is missing);
* the templates it rendered with: the packaged folder and the project's templates/ override, if any;
* the generator package's own sources, its version, the Python version, and the installed
  versions of the libraries that shape the output (jinja2, MarkupSafe, pydantic, pydantic-core,
  PyYAML);
* the bytes of generated/manifest.json, which lists every generated file with its sha256.

The next `pasture check` (same project, no --contract) recomputes that digest, hashes every file
under generated/ against the manifest, and checks no file is missing or extra. Only if all of that
matches does it print the full check's verdict without importing click, pydantic, jinja2 or yaml;
anything else (an edit anywhere above, no record, an unreadable file) falls through to the full check,
which is the only path that can report drift. The record lives outside the project (a repository
must not be able to vouch for its own generated/), and it is believed only with a valid HMAC made
with the user's key (pasture/statekey.py: ``$XDG_STATE_HOME/pasture/key``, 0600 in a 0700 folder,
owner checked): a hand-written or edited record sends the check down the full path, with a note.
Only a full check, or a `pasture generate` that ran the same evidence check, writes a record.
PASTURE_NO_CACHE=1 turns the fast path off; PASTURE_CACHE_DIR moves the records.

Standard library only: this module runs before anything heavy is imported.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any

from pasture import PastureError, __version__, resources, statekey

GENERATED = "generated"
MANIFEST = "manifest.json"
# Distributions whose version can change what generate writes (by the names pip gives their dist-info).
_SHAPING = ("jinja2", "markupsafe", "pydantic", "pydantic_core", "pyyaml")
# Exactly what generate.compare ignores: bytecode caches. Anything else is an input or output.
_SKIP_DIRS = {"__pycache__"}


# --- the digest -------------------------------------------------------------------------------------


def _read_regular(path: str, cap: int | None = None, follow: bool = True) -> bytes:
    """A file's bytes, regular files only (a FIFO or device must not hang the check: OSError)."""
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        with open(fd, "rb", closefd=False) as fh:
            return fh.read() if cap is None else fh.read(cap)
    finally:
        os.close(fd)


def _files(folder: str, only_py: bool = False, skip: frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(relative POSIX path, absolute path) of every file under folder, sorted; [] when absent."""
    out: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        rel_dir = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and rel_dir + d not in skip)
        for name in filenames:
            if name.endswith(".pyc") or (only_py and not name.endswith(".py")):
                continue
            out.append((rel_dir + name, os.path.join(dirpath, name)))
    out.sort()
    return out


def _feed(h: Any, label: str, folder: str, **kw: Any) -> None:
    h.update(f"\0folder {label}\0".encode())
    for rel, path in _files(folder, **kw):
        data = _read_regular(path, None)  # a FIFO among the inputs must not hang the check
        h.update(f"\0file {rel} {len(data)}\0".encode())
        h.update(data)


def _distributions() -> list[str]:
    """The dist-info names of the output-shaping libraries on sys.path (first occurrence wins)."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            project = name.split("-", 1)[0].lower().replace(".", "_")
            if project in _SHAPING and project not in found:
                found[project] = name
    return [found.get(project, f"{project} (not found)") for project in _SHAPING]


def stamp(root: str | os.PathLike[str]) -> str | None:
    """The digest of the project-wide inputs, taken before a full check reads them (so an edit made
    while it runs cannot be recorded as verified); None when records are off or cannot be made."""
    root = os.fspath(root)
    if _cache_file(root) is None:
        return None
    try:
        return _base_digest(root)
    except (OSError, resources.MissingResource):
        return None


def _base_digest(root: str) -> str:
    h = hashlib.sha256()
    h.update(f"pasture {__version__}\0python {sys.version}\0".encode())
    h.update("\0".join(_distributions()).encode())
    package = resources.package_folder("pasture")
    # In a wheel the data packages live inside pasture/; they are hashed as what they are below.
    data = frozenset(name.rsplit(".", 1)[1] for name in resources.DATA_PACKAGES)
    _feed(h, "pasture", package, only_py=True, skip=data)
    for i, folder in enumerate(resources.template_folders(root)):
        _feed(h, f"templates {i}", folder)
    _feed(h, "profiles", os.path.join(root, "profiles"))
    _feed(h, "captures", os.path.join(root, "captures"))
    return h.hexdigest()


def _with_cited(base: str, root: str, cited: list[str]) -> str:
    """The base digest extended by the repository paths citations resolved to (outside profiles/ and
    captures/, which the base covers whole)."""
    h = hashlib.sha256(base.encode())
    for rel in sorted(set(cited)):
        path = os.path.join(root, rel)
        h.update(f"\0cited {rel}\0".encode())
        if os.path.isfile(path):
            h.update(_read_regular(path))
        elif os.path.isdir(path):
            _feed(h, f"cited folder {rel}", path)
        else:
            h.update(b"\0missing\0")
    return h.hexdigest()


def inputs_digest(root: str, cited: list[str]) -> str:
    """sha256 over everything but generated/ that the verdict of a full check depends on."""
    return _with_cited(_base_digest(root), root, cited)


# --- generated/ against its manifest ----------------------------------------------------------------


def _generated_matches(root: str, manifest: dict) -> bool:
    """Every file under generated/ is listed with its sha256 (CRLF read as LF), nothing missing or extra."""
    out = os.path.join(root, GENERATED)
    listed = {entry["path"]: entry["sha256"] for entry in manifest["files"]}
    seen = 0
    for rel, path in _files(out):
        if rel == MANIFEST or os.path.basename(rel).startswith(".pasture-tmp-"):
            continue
        want = listed.get(rel)
        if want is None:
            return False
        data = _read_regular(path).replace(b"\r\n", b"\n")
        if hashlib.sha256(data).hexdigest() != want:
            return False
        seen += 1
    return seen == len(listed)


# --- the record -------------------------------------------------------------------------------------


def _cache_file(root: str) -> str | None:
    if os.environ.get("PASTURE_NO_CACHE"):
        return None
    base = os.environ.get("PASTURE_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "pasture")
    key = hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return os.path.join(base, "check", f"{key}.json")


def remember(root: str | os.PathLike[str], cited: list[str], before: str | None, manifest: bytes) -> None:
    """After a full check (or generate) left generated/ clean: record what that verdict rests on.

    ``before`` is stamp() taken before the inputs were read; ``manifest`` the manifest's rendered
    bytes. Cited paths matter to the verdict only by existing, so one that vanished meanwhile means
    no record. Best effort: a record that cannot be written only costs the next check its shortcut.
    """
    root = os.fspath(root)
    path = _cache_file(root)
    if path is None or before is None:
        return
    try:
        if not all(os.path.exists(os.path.join(root, rel)) for rel in cited):
            return
        record = {
            "root": os.path.realpath(root),
            "inputs": _with_cited(before, root, cited),
            "cited": sorted(set(cited)),
            "manifest": hashlib.sha256(manifest).hexdigest(),
        }
        mac = statekey.sign(_signed(record), _PURPOSE)
        if mac is None:
            return  # no usable key: an unsigned record would be believed by nobody
        record["mac"] = mac
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh)
        os.replace(tmp, path)
    except (OSError, ValueError, resources.MissingResource):
        pass


_PURPOSE = "check-verdict"
_RECORD_CAP = 1 << 20


_FIELDS = ("root", "inputs", "cited", "manifest")


def _signed(record: dict) -> bytes:
    """The bytes the record's MAC covers: its fields, canonically encoded."""
    return json.dumps({k: record.get(k) for k in _FIELDS}, sort_keys=True, separators=(",", ":")).encode()


class Forged(PastureError):
    """A record is there but its MAC does not verify: not written by this user's pasture."""


def verified(root: str) -> int | None:
    """The number of generated files (manifest included) when the fast path vouches generated/ is
    clean; None whenever the full check has to decide. Raises Forged for a record whose MAC fails."""
    path = _cache_file(root)
    if path is None:
        return None
    try:
        record = json.loads(_read_regular(path, _RECORD_CAP, follow=False))
        if not isinstance(record, dict):
            raise Forged(path)
        # Believed only if this user's pasture wrote it (the key never leaves the user's state folder).
        if not statekey.verify(_signed(record), record.get("mac"), _PURPOSE):
            raise Forged(path)
        # CRLF on disk is not drift
        manifest_bytes = _read_regular(os.path.join(root, GENERATED, MANIFEST)).replace(b"\r\n", b"\n")
        if record.get("root") != os.path.realpath(root):
            return None
        if hashlib.sha256(manifest_bytes).hexdigest() != record.get("manifest"):
            return None
        manifest = json.loads(manifest_bytes)
        if record.get("inputs") != inputs_digest(root, list(record.get("cited") or ())):
            return None
        if not _generated_matches(root, manifest):
            return None
        return len(manifest["files"]) + 1
    except (OSError, ValueError, KeyError, TypeError, AttributeError, resources.MissingResource):
        return None


# --- the command line -------------------------------------------------------------------------------


def _parse(argv: list[str]) -> tuple[str | None, bool] | None:
    """(--root, --json) of `[--root DIR] check [--root DIR] [--json]`; None for anything else."""
    root: str | None = None
    as_json = False
    seen_check = False
    items = iter(argv)
    for item in items:
        if item == "check" and not seen_check:
            seen_check = True
        elif item == "--json" and seen_check:
            as_json = True
        elif item == "--root" or item.startswith("--root="):
            value = item.partition("=")[2] if "=" in item else next(items, None)
            if not value:
                return None
            if seen_check or root is None:  # the command's --root wins over the group's
                root = value
        else:
            return None
    return (root, as_json) if seen_check else None


def main(argv: list[str]) -> int | None:
    """Exit 0 with the full check's clean verdict, or None: run the full check."""
    parsed = _parse(argv)
    if parsed is None:
        return None
    root_arg, as_json = parsed
    root = os.path.realpath(root_arg or os.getcwd())
    try:
        count = verified(root)
    except Forged as exc:
        sys.stderr.write(
            f"note: the recorded check verdict {exc} does not verify against your "
            "state key (forged, or signed with an older key); running the full check.\n"
        )
        count = None
    if count is None:
        return None
    if as_json:
        doc = {
            "ok": True,
            "clean": True,
            "missing": [],
            "extra": [],
            "modified": [],
            "files": count,
            "diffs": {},
            "evidence": [],
            "templates": list(resources.template_folders(root)),
            "overridden_templates": resources.overridden_templates(root),
        }
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(f"generated/ matches the profiles ({count} files); every cited evidence holds.\n")
    sys.stdout.flush()
    return 0
