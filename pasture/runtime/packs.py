"""Protection packs (issue 26): curated rule sets shipped in `pasture/packs/<name>.toml`, selected by
the policy layers and compiled with them into the effective cache (pasture.runtime.effective).

Off the hook path's steady state: this runs when the cache is rebuilt (a policy, pasture or a pack
changed). A pack file:

    [pack]
    name = "git"                # the file's own name
    version = 1                 # bumped whenever its rules change
    recommended = true          # part of "recommended" (the default selection)
    description = "..."
    [[rules]]
    id = "git.push-force"       # "<pack>.<name>", unique across packs
    decision = "deny"           # deny | ask
    reason = "..."
    instead = "..."             # optional: the safer thing to do
    [rules.run]                 # the structured rule (pasture.runtime.runrule)
    program = "git"

Selection (`select`): the managed layer's `packs`, if it has one, decides (the user layer may add
packs to it); else the user layer's; else the recommended packs (counted as the user's choice). A
project layer adds packs, never removes one. `disable` turns pack rules off by id: the managed
layer's always, the user layer's for packs the managed layer did not select; a project layer's is
ignored (pasture.runtime.policy reports it).
"""

from pasture.runtime import fs

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable

_CATALOG: dict = {}
SELECTORS = ("managed", "user", "project")  # who selected a pack, most authoritative first


def folder() -> str:
    return fs.join(fs.dirname(fs.dirname(__file__)), "packs")


def files() -> list[str]:
    try:
        import posix

        names = sorted(n for n in posix.listdir(folder()) if n.endswith(".toml"))
    except OSError:
        return []
    return [fs.join(folder(), n) for n in names]


def stamp() -> tuple:
    """What the compiled packs depend on, without reading them: every pack file's name, size and mtime."""
    out: list = []
    for path in files():
        try:
            st = fs.stat(path)
            out.append((fs.basename(path), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((fs.basename(path), None, None))
    return tuple(out)


def seed(packs: dict) -> None:
    """Take the compiled packs a verified cache holds (same pasture, compiler and pack files) as this
    process's catalog, unless one is already compiled."""
    if not _CATALOG:
        _CATALOG.update(packs=packs, stamp=stamp())


def catalog(load: "Callable[[str], Any]") -> dict:
    """name -> {name, version, recommended, description, path, rules, ids}: every shipped pack, compiled by
    `load` (pasture.runtime.policy.load_pack: packs sit below the policy compiler, which hands itself in)
    and memoized per process while the pack files are unchanged (`pasture hook serve` lives through upgrades)."""
    now = stamp()
    if _CATALOG.get("stamp") == now:
        return _CATALOG["packs"]
    packs: dict = {}
    for path in files():
        pack = load(path)
        packs[pack["name"]] = pack
    _CATALOG.update(packs=packs, stamp=now)
    return packs


def select(layers: list, packs: dict) -> tuple[dict, list, list]:
    """({pack name: the layer that selected it}, [compiled pack rules in force, each with its `selector`],
    [notes]) for the compiled layers (managed, user, project)."""
    by_name = {layer["name"]: layer for layer in layers if layer.get("status") in ("trusted", "untrusted")}
    recommended = [name for name, pack in sorted(packs.items()) if pack["recommended"]]

    def names(layer: dict) -> list:
        out: list = []
        for item in layer.get("packs", ()):
            for name in recommended if item == "recommended" else [item]:
                if name not in out:
                    out.append(name)
        return out

    selected: dict = {}
    if "packs" in by_name.get("managed", {}):
        selected = dict.fromkeys(names(by_name["managed"]), "managed")
        for name in names(by_name.get("user", {})):  # the user may add to the managed choice, not remove
            selected.setdefault(name, "user")
    elif "packs" in by_name.get("user", {}):
        selected = dict.fromkeys(names(by_name["user"]), "user")
    else:
        selected = dict.fromkeys(recommended, "user")  # the default: as if the user had said "recommended"
    if "project" in by_name:
        for name in names(by_name["project"]):
            selected.setdefault(name, "project")
    notes: list = []
    disabled: set = set(by_name.get("managed", {}).get("disable", ()))
    for rule_id in by_name.get("user", {}).get("disable", ()):
        pack = rule_id.split(".", 1)[0]
        if selected.get(pack) == "managed":
            notes.append(
                f"user policy: disable {rule_id!r} ignored (the managed policy selected pack {pack!r}; "
                "only it can turn that pack's rules off)"
            )
        else:
            disabled.add(rule_id)
    rules = []
    for name, selector in selected.items():
        pack = packs.get(name)
        if pack is None:
            continue
        for rule in pack["rules"]:
            if rule["id"] not in disabled:
                rules.append(dict(rule, selector=selector))
    return selected, rules, notes
