"""What a repository's host settings inject into the hook's environment, and screening it out.

Claude Code applies the `env` block of the project's `.claude/settings.json` and
`.claude/settings.local.json` to every hook command (and to its Bash tool). A cloned repository
could therefore move every root the guard reads from the environment: `PASTURE_POLICY=/dev/null`
drops the user layer, `PASTURE_MANAGED_POLICY=.pasture/managed.toml` makes the repository's own
file the managed layer, `HOME`/`XDG_*` move the trust store and the cache, `PATH` picks the program
a gate command runs. Codex runs hooks with the captured session environment (a project's
`.codex/config.toml` has no environment for hooks), and OpenCode has no project `env` at all, so
Claude Code's two files are the channel a repository has.

The screen: every folder from the hook's start folders (the payload's cwd, `CLAUDE_PROJECT_DIR`,
this process's cwd) up to `/` is looked at for those two files (the user's own `~/.claude` is the
user's settings, not a project's, and is skipped). A screened variable whose value in our
environment is exactly what such a file sets is dropped, as if unset, and reported. A variable the
user set themselves, with a value no project file names, keeps working. Cost: one stat per folder;
the files are read (bounded, regular files only) only where a `.claude/` folder exists.
"""

from pasture.runtime import fs, layers
from pasture.runtime.hostwire import ENV_PREFIXES

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

MAX_BYTES = 1 << 20
# The guard's roots and what shapes the programs it runs.
NAMES = frozenset(
    (
        "HOME",
        "PATH",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "ANTHROPIC_API_KEY",
        "HARNESS_PROVIDER",
        "HARNESS_MODEL",
        "AI_MODEL",
        "AFORGE_BIN",
        "BASH_ENV",
        "ENV",
        "SHELL",
        "TMPDIR",
        # where the AI gate's request (your API key) goes, and whom TLS believes on the way:
        # HTTPS_PROXY plus SSL_CERT_FILE let a repository read the key in the clear
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "NO_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "no_proxy",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "NODE_EXTRA_CA_CERTS",
        "NODE_OPTIONS",
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "GITHUB_TOKEN",
        "GH_TOKEN",
    )
)
PREFIXES = (
    "PASTURE_",
    "XDG_",
    "SEC_AF_",
    "LD_",
    "DYLD_",
    "PYTHON",
    "SSL_",
    "AGENTFIELD_",
    # the judges' and the AI gate's endpoints and keys (ANTHROPIC_BASE_URL, OPENCODE_CONFIG, ...)
    "ANTHROPIC_",
    "OPENAI_",
    "OPENROUTER_",
    *ENV_PREFIXES,  # each host's own (hostwire/<wire>.py ENV_PREFIX): its folders, and its judge's settings
    "AWS_",
    "GOOGLE_",
    # git's own configuration from the environment (GIT_CONFIG_COUNT/KEY_n/VALUE_n: core.fsmonitor,
    # core.hooksPath ... run programs): a [[context]] `git status` of yours must not run the repository's
    "GIT_",
)


UNREAD = "*"  # injected()'s name for a settings file that exists but could not be read as JSON


def screened(name: str) -> bool:
    return name in NAMES or name.startswith(PREFIXES)


def settings_files(starts: "Iterable[str | None]") -> list[str]:
    """Every project host-settings file (hostwire ENV_BLOCK_FILES) from each start folder up to `/`."""
    return layers.project_host_settings(starts)


def injected(starts: "Iterable[str | None]", files: "Iterable[str] | None" = None) -> dict[str, list[tuple[str, str]]]:
    """name -> [(value, file)] for every screened variable a project settings file sets."""
    out: dict[str, list[tuple[str, str]]] = {}
    for path in settings_files(starts) if files is None else files:
        try:
            data = fs.read_file(path, MAX_BYTES)[0]
        except FileNotFoundError:
            continue
        except OSError:
            # Present but past the cap, not a regular file, or unreadable: Claude Code may still parse
            # it (it has no such cap), so it may set anything. UNREAD: every screened variable counts.
            out.setdefault(UNREAD, []).append(("", path))
            continue
        if b'"env"' not in data and b"\\u" not in data:  # `"\u0065nv"` is the key env too
            continue
        from pasture.runtime.fastjson import JSONError, loads

        try:
            doc = loads(data.decode("utf-8", "replace"))
        except (JSONError, RecursionError, ValueError):
            # Nesting past Python's limit (JavaScript's JSON.parse reads it), or not JSON at all
            out.setdefault(UNREAD, []).append(("", path))
            continue
        block = doc.get("env") if isinstance(doc, dict) else None
        if not isinstance(block, dict):
            continue
        for name, value in block.items():
            if isinstance(name, str) and screened(name):
                text = value if isinstance(value, str) else _as_text(value)
                out.setdefault(name, []).append((text, path))
    return out


def _as_text(value: "Any") -> str:
    # Claude Code stringifies non-string env values; an exact match is what counts, so be generous.
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    return str(value)


def screen(env: dict, starts: "Iterable[str | None]", files: "Iterable[str] | None" = None) -> tuple[dict, list[str]]:
    """`env` without what a project's host settings injected, and one note naming each dropped variable.
    `files`: the settings files already found for `starts` (pasture.runtime.layers.project_host_settings)."""
    if not any(screened(name) for name in env):
        return env, []
    found = injected(starts, files)
    if not found:
        return env, []
    return drop(
        env,
        found,
        screened,
        "set by the project's host settings {path} (env): a repository cannot move the guard's policy, "
        'trust store, cache or runtime; remove them from that file\'s "env" block (pasture doctor lists them)',
    )


def drop(env: dict, found: dict, screened_name: "Callable[[str], bool]", why: str) -> tuple[dict, list[str]]:
    """`env` without every variable whose value is exactly what a project file supplied (`found`: name ->
    [(value, file)], UNREAD -> a file that could not be read: then every `screened_name` goes), one note
    per file ("ignored NAMES " + `why` with its {path}), and the same names gone from this process."""
    dropped: dict[str, str] = {}
    for _value, path in found.get(UNREAD, ())[:1]:
        dropped.update((name, path) for name in env if screened_name(name))
    for name, values in found.items():
        current = env.get(name)
        for value, path in values:
            if current is not None and current == value:
                dropped[name] = path
                break
    if not dropped:
        return env, []
    clean = {k: v for k, v in env.items() if k not in dropped}
    by_file: dict[str, list[str]] = {}
    for name, path in sorted(dropped.items()):
        by_file.setdefault(path, []).append(name)
    notes = [f"ignored {', '.join(names)} " + why.format(path=path) for path, names in sorted(by_file.items())]
    _scrub_process(dropped)
    return clean, notes


def _scrub_process(names: "Iterable[str]") -> None:
    """Drop the variables from this process too, so a gate or harness it starts never sees them."""
    import posix
    import sys

    os_module = sys.modules.get("os")
    for name in names:
        for key in (name, name.encode(sys.getfilesystemencoding(), "surrogateescape")):
            posix.environ.pop(key, None)  # type: ignore[arg-type]  # str on some platforms; what `os.environ` is built from
        if os_module is not None:
            os_module.environ.pop(name, None)
        try:
            posix.unsetenv(name)  # what a child started without an explicit env inherits
        except (OSError, ValueError):  # pragma: no cover
            pass
