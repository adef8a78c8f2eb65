"""Every host's declarations (pasture/runtime/hostwire/__init__.py), read together: the files and folders the
built-in guard keeps the agent off, the names `find -delete` must not match, each host's env files.

Off the per-call path: pasture.runtime.builtin.protected runs when the policy is compiled, and
pasture.runtime.shellwrites only for a command that names something like the guard's files.
"""

from pasture.runtime import fs, layers
from pasture.runtime.hostwire import WIRES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


# every host's wire module (the hook's registry WIRES, kept equal to the hosts' registry), each once
MODULES = tuple(dict.fromkeys(WIRES.values()))


def module(name: str) -> "Any":
    import sys

    full = "pasture.runtime.hostwire." + name
    found = sys.modules.get(full)
    if found is None:
        __import__(full)
        found = sys.modules[full]
    return found


def modules() -> list:
    return [module(name) for name in MODULES]


def user_dir(wire: "Any", env: dict) -> str:
    """The host's user folder: its variable when set (absolute, or `~/...` where the host expands it), else
    the default below HOME or the XDG config folder."""
    variable, base, relative = wire.USER_DIR
    home = layers.home(env)
    value = env.get(variable) if variable else None
    if isinstance(value, str) and value:
        if value == "~" or value.startswith("~/"):  # Pi expands a leading ~ itself (config.js getAgentDir)
            return home + value[1:]
        return value
    return fs.join(layers.config_home(env) if base == "config" else home, relative)


#: the launcher every managed hook runs (pasture install --managed), one for every user of the machine
SYSTEM_LAUNCHER = "/usr/local/lib/pasture/bin/pasture-hook"


def host_paths(root: str, env: dict) -> tuple[list[str], list[str]]:
    """(files, folders) every host declares, in the project `root`, in each host's user folder and in the
    system (its managed channel), and the managed launcher's folder."""
    files: list[str] = []
    folders: list[str] = [SYSTEM_LAUNCHER.rsplit("/", 2)[0]]
    for wire in modules():
        user = user_dir(wire, env)
        files += [fs.join(root, rel) for rel in wire.GUARDED_FILES]
        files += [fs.join(user, rel) for rel in wire.GUARDED_USER_FILES]
        folders += [fs.join(root, rel) for rel in wire.GUARDED_FOLDERS]
        folders += [fs.join(user, rel) for rel in wire.GUARDED_USER_FOLDERS]
        folders += [fs.join(layers.home(env), rel) for rel in getattr(wire, "GUARDED_HOME_FOLDERS", ())]
        files += list(wire.GUARDED_SYSTEM_FILES)
        folders += list(wire.GUARDED_SYSTEM_FOLDERS)
    return files, folders


# pasture's own names: its folder, policy, journal, trust store, and the folders above its state
_OWN_NAMES = (
    ".pasture",
    "policy.toml",
    "journal.sqlite3",
    "trust.json",
    "pasture",
    ".config",
    ".local",
    ".cache",
    "state",
    "share",
)


def guard_names() -> tuple[str, ...]:
    """Every name of a guard file or of a folder above one (`find -name PATTERN -delete` must match none)."""
    names = list(_OWN_NAMES)
    for wire in modules():
        rels = wire.GUARDED_FILES + wire.GUARDED_FOLDERS + wire.GUARDED_USER_FILES + wire.GUARDED_USER_FOLDERS
        rels += tuple(getattr(wire, "GUARDED_HOME_FOLDERS", ()))
        names += [p for rel in rels + (wire.USER_DIR[2],) for p in rel.split("/") if p]
    return tuple(dict.fromkeys(names))


def tool_kinds() -> dict:
    """Every host's tool name (lower case) -> its kind (each wire's TOOL_KINDS): what `pasture policy check`
    knows arrives as a kind, not as the name."""
    kinds: dict = {}
    for wire in modules():
        kinds.update(wire.TOOL_KINDS)
    return kinds


def env_files(harness: str) -> tuple[str, ...]:
    """The dotenv files `harness` loads into its environment (relative to each folder it looks in)."""
    name = WIRES.get(harness)
    return tuple(module(name).ENV_FILES) if name else ()
