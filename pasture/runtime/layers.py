"""Where each policy layer lives, and the user-scope folders pasture keeps its own state in.

Layers, most authoritative first: managed (set by an administrator), user (the person running the
agent), project (the repository the agent works in, trusted only once its bytes are pinned).

Every root here comes from the environment the hook was given after pasture.runtime.injected has
dropped what a project's host settings set, and a path variable counts only when it is absolute (a
relative one would be resolved inside whatever folder the hook runs in, i.e. the repository).
"""

from pasture.runtime import fs

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Iterable

LAYERS = ("managed", "user", "project")
MANAGED_DEFAULT = "/etc/pasture/policy.toml"


def home(env: dict) -> str:
    value = env.get("HOME")
    if isinstance(value, str) and fs.isabs(value):
        return value
    # No usable HOME: the password database (never os.path.expanduser, which reads the process's
    # own HOME again, and that may be the value the screen dropped).
    try:
        import posix
        import pwd

        return pwd.getpwuid(posix.getuid()).pw_dir
    except (ImportError, KeyError):  # pragma: no cover - no passwd entry
        return "/"


def _xdg(env: dict, variable: str, *fallback: str) -> str:
    # The XDG spec: a relative value is invalid and must be ignored.
    value = env.get(variable)
    if isinstance(value, str) and fs.isabs(value):
        return value
    return fs.join(home(env), *fallback)


def config_home(env: dict) -> str:
    return _xdg(env, "XDG_CONFIG_HOME", ".config")


def state_dir(env: dict) -> str:
    """pasture's own state (the trust store): never inside a project."""
    return fs.join(_xdg(env, "XDG_STATE_HOME", ".local", "state"), "pasture")


def data_dir(env: dict) -> str:
    """pasture's installed files (the hook launcher)."""
    return fs.join(_xdg(env, "XDG_DATA_HOME", ".local", "share"), "pasture")


def cache_dir(env: dict) -> str:
    """The compiled-policy cache: `PASTURE_CACHE_DIR`, else `$XDG_CACHE_HOME/pasture`."""
    value = env.get("PASTURE_CACHE_DIR")
    if isinstance(value, str) and fs.isabs(value):
        return value
    return fs.join(_xdg(env, "XDG_CACHE_HOME", ".cache"), "pasture")


def _absolute(env: dict, variable: str) -> str | None:
    value = env.get(variable)
    return value if isinstance(value, str) and fs.isabs(value) else None


def managed_path(env: dict) -> str:
    return _absolute(env, "PASTURE_MANAGED_POLICY") or MANAGED_DEFAULT


def user_path(env: dict) -> str:
    return _absolute(env, "PASTURE_POLICY") or fs.join(config_home(env), "pasture", "policy.toml")


def project_path(root: str) -> str:
    return fs.join(root, ".pasture", "policy.toml")


def paths(root: str, env: dict) -> list[tuple[str, str]]:
    return [("managed", managed_path(env)), ("user", user_path(env)), ("project", project_path(root))]


def trust_store_path(env: dict) -> str:
    return _absolute(env, "PASTURE_TRUST_STORE") or fs.join(state_dir(env), "trust.json")


def _env_block_folders() -> dict:
    """folder -> its settings files, of every project settings file whose `env` block a host hands to its
    hooks (hostwire ENV_BLOCK_FILES: Claude Code's `.claude/settings.json` and `settings.local.json`)."""
    from pasture.runtime.hostwire import ENV_BLOCK_FILES

    folders: dict = {}
    for rel in ENV_BLOCK_FILES:
        folder, _, name = rel.rpartition("/")
        folders.setdefault(folder, []).append(name)
    return folders


def project_host_settings(starts: "Iterable[str | None]") -> list[str]:
    """Every project host-settings file whose `env` a host hands to hooks (hostwire ENV_BLOCK_FILES), in
    each start folder and every folder above it (what they inject is screened out by
    pasture.runtime.injected). The user's own (below the home from the password database, never $HOME)
    holds the user's settings, not a project's, and is skipped. One stat per folder."""
    seen: set = set()
    found: list[str] = []
    user: str | None | bool = False  # looked up only once a settings folder is met
    folders = _env_block_folders()
    for start in starts:
        if not isinstance(start, str) or not fs.isabs(start):
            continue
        here = fs.normpath(start)
        while here not in seen:
            seen.add(here)
            for rel, names in folders.items():
                folder = fs.join(here, rel)
                if fs.isdir(folder):
                    if user is False:
                        user = _password_home()
                    if here != user:
                        found.extend(fs.join(folder, name) for name in names)
            parent = fs.dirname(here)
            if parent == here:
                break
            here = parent
    return found


def _password_home() -> str | None:
    try:
        import posix
        import pwd

        return pwd.getpwuid(posix.getuid()).pw_dir
    except (ImportError, KeyError):  # pragma: no cover - no passwd entry
        return None


def cache_key_path(env: dict) -> str:
    """The key that authenticates the compiled-policy cache (pasture.runtime.effective): 0600 in the
    0700 state folder beside the trust store (wherever `PASTURE_TRUST_STORE` puts it), never in the
    cache folder it vouches for."""
    return fs.join(fs.dirname(trust_store_path(env)), "cache.key")
