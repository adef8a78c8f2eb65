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

PACK_KEYS = ("name", "version", "recommended", "description")
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


def catalog() -> dict:
    """name -> {name, version, recommended, description, path, rules, ids}: every shipped pack, compiled
    (memoized per process while the pack files are unchanged: `pasture hook serve` lives through upgrades)."""
    from pasture.runtime.policy import PackError

    now = stamp()
    if _CATALOG.get("stamp") == now:
        return _CATALOG["packs"]
    packs: dict = {}
    owner: dict = {}
    for path in files():
        pack = load(path)
        for rule_id in pack["ids"]:
            if rule_id in owner:
                raise PackError(f"{path}: rule id {rule_id!r} is also in pack {owner[rule_id]!r}; ids are unique")
            owner[rule_id] = pack["name"]
        packs[pack["name"]] = pack
    _CATALOG.update(packs=packs, stamp=now)
    return packs


def load(path: str) -> dict:
    from pasture.runtime.policy import PackError, PolicyError, _at, _Lines, _run_line, compile_rule, parse_text

    try:
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: the pack cannot be read ({exc}); reinstall pasture") from None
    doc = parse_text(path, text)
    lines = _Lines(text)
    extra = sorted(set(doc) - {"pack", "rules"})
    if extra:
        at = _at(path, lines.table(extra[0]))
        raise PackError(f"{at}: unknown table(s) {', '.join(extra)}; allowed: pack, rules")
    head = doc.get("pack")
    where = _at(path, lines.table("pack"))
    if not isinstance(head, dict):
        raise PackError(f"{path}: needs a [pack] table ({', '.join(PACK_KEYS)})")
    wrong = sorted(set(head) - set(PACK_KEYS))
    if wrong:
        raise PackError(f"{where}: [pack] has unknown key(s) {', '.join(wrong)}; allowed: {', '.join(PACK_KEYS)}")
    name = head.get("name")
    if name != fs.basename(path)[: -len(".toml")]:
        raise PackError(f"{where}: [pack] name {name!r} must be the file's name")
    version = head.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise PackError(f"{where}: [pack] version must be a whole number from 1")
    recommended = head.get("recommended", False)
    if not isinstance(recommended, bool):
        raise PackError(f"{where}: [pack] recommended must be true or false")
    description = head.get("description", "")
    if not isinstance(description, str):
        raise PackError(f"{where}: [pack] description must be a string")
    raw_rules = doc.get("rules", [])
    if not isinstance(raw_rules, list):
        raise PackError(f"{path}: 'rules' must be an array of tables ([[rules]])")
    rules, ids = [], []
    for index, raw in enumerate(raw_rules):
        line = lines.rule(index)
        rule_id = raw.get("id") if isinstance(raw, dict) else None
        label = f"rule {rule_id!r}" if isinstance(rule_id, str) else f"rules[{index}]"
        run_line = _run_line(lines, line)
        try:
            rule = compile_rule(
                raw,
                f"{_at(path, line)}: {label}",
                {},
                f"{_at(path, run_line)}: {label} [rules.run]" if run_line else None,
                pack=name,
            )
        except PackError:
            raise
        except PolicyError as exc:
            raise PackError(str(exc)) from None
        if "run" not in rule:
            raise PackError(f"{_at(path, line)}: {label}: a pack rule needs a [rules.run] table")
        if rule["name"] in ids:
            raise PackError(f"{_at(path, line)}: {label}: the id is used twice")
        rule["line"] = line
        rules.append(rule)
        ids.append(rule["name"])
    return {
        "name": name,
        "version": version,
        "recommended": recommended,
        "description": description,
        "path": path,
        "rules": rules,
        "ids": tuple(ids),
    }


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
