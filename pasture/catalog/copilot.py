"""GitHub Copilot CLI's catalog, read from the package its native binary carries.

The npm package ``@github/copilot`` holds only ``npm-loader.js``; the platform package
(``@github/copilot-linux-x64``) holds the native binary, which unpacks its JavaScript package into
``$XDG_CACHE_HOME/copilot/pkg/<platform>/<version>/`` the first time it runs. The reader runs
``copilot --version`` once, in a loopback-only network namespace with a fresh private cache folder
(never the user's), and reads that unpacked package:

* ``prebuilds/<platform>/runtime.node`` (the native hook runtime): the settings schema it embeds,
  one ``{"path":"hooks.<event>","leafKind":"json",...}`` entry per hook event a hooks file may name;
* ``copilot-sdk/types.d.ts``: the ``SessionHooks`` interface (``on<Event>`` handlers), each handler's
  input and output types resolved by the TypeScript checker (:mod:`.tscheck`). An output that is a
  union of objects (subagentStop's block | allow) is one object whose keys are all optional and whose
  string-literal keys take every variant's values; where the hook runtime states the decisions it
  accepts (``<event> decision must be "allow" or "block"``), the typed ones must be exactly those;
* ``package.json``: the version the binary unpacked (it must be the version read).

An event is in the catalog when the settings schema names it and the SDK types it. A typed handler
the settings schema lacks, no settings entry at all, or a missing file is a :class:`CatalogError`
naming it. Settings events without typings are named in the runtime source's ``read`` text and left
out (a catalog entry is never empty). The SDK typings describe the SDK's own callbacks: the command
hooks' payload differs (``cwd`` for ``workingDirectory``, ``timestamp`` in epoch milliseconds, as the
captures show); the captures are the wire's record.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.packages import HostFile, _published
from pasture.profile.catalog import CatalogError, normalize

PACKAGE = "@github/copilot"
SDK_TYPES = "copilot-sdk/types.d.ts"
INTERFACE = "SessionHooks"
_SETTING = re.compile(rb'\{"path":"hooks\.([A-Za-z]+)","leafKind":"json"')
_DEPTH = 3
#: the hook runtime's own check of a decision: ``subagentStop decision must be "allow" or "block"``
_DECISION_CHECK = re.compile(rb'([a-z][A-Za-z]+) decision must be ((?:"\w+"(?:, | or |, or )?)+)')
UNPACK_TIMEOUT = 120.0


def _platform_dirs(node_modules: Path) -> list[Path]:
    return sorted(p for p in (node_modules / "@github").glob("copilot-*") if (p / "copilot").is_file())


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The native binary of the platform package (what the catalog is unpacked from)."""
    for folder in _platform_dirs(node_modules):
        add(folder, "copilot", "the native binary; run once offline to unpack the package the catalog is read from")
        break


def unpack(binary: Path, version: str) -> Path:
    """The package folder ``binary`` unpacks (into a private temporary cache, removed at exit)."""
    from pasture.hostenv.netns import isolation_support

    cache = Path(tempfile.mkdtemp(prefix="pasture-copilot-"))
    atexit.register(shutil.rmtree, cache, True)
    home = cache / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(cache / "cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "COPILOT_OFFLINE": "true",
        "COPILOT_AUTO_UPDATE": "false",
    }
    argv = [*isolation_support().wrapper, str(binary), "--version"]
    try:
        proc = subprocess.run(
            argv, env=env, capture_output=True, text=True, timeout=UNPACK_TIMEOUT, stdin=subprocess.DEVNULL, check=False
        )
    except subprocess.TimeoutExpired:
        raise CatalogError(f"{binary} --version did not finish unpacking within {UNPACK_TIMEOUT:g}s") from None
    except OSError as exc:
        raise CatalogError(f"cannot run {binary}: {exc}") from None
    found = sorted((cache / "cache" / "copilot" / "pkg").glob(f"*/{version}"))
    if proc.returncode != 0 or not found:
        raise CatalogError(
            f"{binary} --version (exit {proc.returncode}) unpacked no package for {version} under "
            f"$XDG_CACHE_HOME/copilot/pkg/: {(proc.stderr or proc.stdout).strip()[-400:]}"
        )
    return found[0]


def _settings_events(runtime: Path) -> list[str]:
    names: list[str] = []
    for m in _SETTING.finditer(runtime.read_bytes()):
        name = m.group(1).decode()
        if name not in names:
            names.append(name)
    if not names:
        raise CatalogError(f'{runtime}: no hook settings ({{"path":"hooks.<event>"...}}) found in the hook runtime')
    return names


def _event_name(handler: str) -> str:
    if not handler.startswith("on") or len(handler) < 3:
        raise CatalogError(f"{SDK_TYPES}: {INTERFACE}[{handler!r}] is not named on<Event>")
    return handler[2].lower() + handler[3:]


def _merged_variants(variants: list[dict[str, Any]]) -> dict[str, Any]:
    """One field spec per key of a union of objects, each optional (no single variant is required). A key
    every variant types as string literals or enums takes every variant's values, first variant first:
    subagentStop's ``{decision: "block", reason} | {decision?: "allow"}`` is ``decision: "block" | "allow"``
    (the hook runtime's own check says the same: 'subagentStop decision must be "allow" or "block"')."""
    output: dict[str, Any] = {}
    for variant in variants:
        for key, sub in variant.get("fields", {}).items():
            have = output.get(key)
            if have is None:
                output[key] = {**sub, "required": False}
            elif have.get("type") in ("enum", "literal") and sub.get("type") in ("enum", "literal"):
                values = list(have.get("values", []))
                values += [v for v in sub.get("values", []) if v not in values]
                output[key] = {**have, "type": "enum" if len(values) > 1 else have["type"], "values": values}
    return output


def read_package(pkg: Path, root: Path | None) -> tuple[list[str], dict[str, dict[str, Any]], list[str], Path]:
    """(event names, entries, settings events without typings, the runtime file) of an unpacked package."""
    from pasture.catalog import tscheck

    runtimes = sorted(pkg.glob("prebuilds/*/runtime.node"))
    types = pkg / SDK_TYPES
    for what, path in (
        ("the hook runtime prebuilds/<platform>/runtime.node", runtimes[0] if runtimes else None),
        (SDK_TYPES, types),
    ):
        if path is None or not path.is_file():
            raise CatalogError(f"{pkg}: {what} is missing (has the package layout changed?)")
    runtime = runtimes[0]
    settings = _settings_events(runtime)
    answer = tscheck.resolve_handlers(pkg, types, INTERFACE, depth=_DEPTH, root=root)
    checks = {
        m.group(1).decode(): set(re.findall(r'"(\w+)"', m.group(2).decode()))
        for m in _DECISION_CHECK.finditer(runtime.read_bytes())
    }
    events: dict[str, dict[str, Any]] = {}
    for handler in answer:
        name = _event_name(handler["name"])
        if name not in settings:
            raise CatalogError(
                f"{types}: {INTERFACE}[{handler['name']!r}] types an event {name!r} that the hook runtime's "
                f"settings ({runtime.name}) do not name; settings name {', '.join(settings)}"
            )
        spec_in, spec_out = normalize(handler["input"]), normalize(handler["output"])
        if spec_in.get("type") != "object" or not spec_in.get("fields"):
            raise CatalogError(f"{types}: {INTERFACE}[{handler['name']!r}] takes an input that is not an object")
        output = spec_out.get("fields")
        if output is None and spec_out.get("type") == "object-union":  # subagentStop: block | allow
            output = _merged_variants(spec_out.get("variants", []))
        if not output:
            raise CatalogError(f"{types}: {INTERFACE}[{handler['name']!r}] returns no object fields")
        checked = checks.get(name)
        typed = set(output.get("decision", {}).get("values", []))
        if checked is not None and checked != typed:
            raise CatalogError(
                f"{name}: {types.name} types decision as {sorted(typed)}, the hook runtime ({runtime.name}) "
                f"accepts {sorted(checked)}"
            )
        events[name] = {"kind": "hook", "input": spec_in["fields"], "output": output, "sources": [PACKAGE]}
    names = [n for n in settings if n in events]
    untyped = [n for n in settings if n not in events]
    return names, events, untyped, runtime


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    native = found[0].path if found else None
    if native is None and binary is not None:
        real = Path(os.path.realpath(binary))
        if real.name == "npm-loader.js":
            dirs = _platform_dirs(real.parents[2])
            native = dirs[0] / "copilot" if dirs else None
        else:
            native = real
    if native is None:
        raise CatalogError(
            f"no Copilot CLI native binary found under {node_modules} (@github/copilot-<platform>/copilot); "
            "--version installs one"
        )
    pkg = unpack(native, version)
    names, entries, untyped, runtime = read_package(pkg, root)
    name, pkg_version, _here = _published(pkg)
    if pkg_version != version:
        raise CatalogError(f"{native} unpacked {name} {pkg_version}, not {version}")

    def unpacked(rel: str, read: str) -> HostFile:
        return HostFile(PACKAGE, pkg_version, f"(unpacked)/{rel}", pkg / rel, read)

    left_out = f"; no typings for {', '.join(untyped)}, which stay out of the catalog" if untyped else ""
    sources = [
        *found,
        unpacked("package.json", "the version the binary unpacked"),
        unpacked(
            runtime.relative_to(pkg).as_posix(),
            "the hook events of the settings schema it embeds "
            f'({{"path":"hooks.<event>"}}: {len(untyped) + len(names)})' + left_out,
        ),
        unpacked(SDK_TYPES, f"the {INTERFACE} handlers' input and output types (TypeScript checker)"),
    ]
    if not found:
        sources.insert(0, HostFile("", version, native.name, native, "the native binary the package was unpacked from"))
    return sources, [{"name": n, **entries[n]} for n in names]
