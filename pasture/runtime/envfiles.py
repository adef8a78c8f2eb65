"""What a repository's dotenv files put into a host's environment, and screening the guard's roots out of it.

Gemini CLI loads the first `.gemini/.env` or `.env` from the folder it starts in up to `/` into its own
environment (variables not set yet), and its hooks inherit it (pasture/runtime/hostwire/gemini_cli.py);
so `PASTURE_POLICY=.pasture/mine.toml` in a cloned repository's `.env` would replace the user's policy.
Each host declares the files it loads (``ENV_FILES``); the hook reads them from each start folder up
to `/` (the user's own home folder is the user's, and skipped) and drops a `PASTURE_*`, `XDG_*` or
`HOME` variable whose value is exactly what such a file sets, as if unset, and says so. Ordinary `.env`
contents (API keys, a project's own settings) are not touched, and the guard does not refuse writing
a `.env`: the screen is what holds. Cost: two stats per folder; a file is read (bounded) only when it exists.
"""

from pasture.runtime import fs
from pasture.runtime.injected import UNREAD  # a file that exists but could not be read: it may set any of them

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Callable, Iterable

MAX_BYTES = 1 << 20
NAMES = ("HOME",)
PREFIXES = ("PASTURE_", "XDG_")


def screened(name: str) -> bool:
    return name in NAMES or name.startswith(PREFIXES)


def find(starts: "Iterable[str | None]", names: tuple) -> list[str]:
    """The env files named `names` (relative paths) in each start folder and every folder above it."""
    if not names:
        return []
    seen: set = set()
    found: list[tuple[str, str]] = []
    for start in starts:
        if not isinstance(start, str) or not fs.isabs(start):
            continue
        here = fs.normpath(start)
        while here not in seen:
            seen.add(here)
            found.extend((here, path) for rel in names if fs.isfile(path := fs.join(here, rel)))
            parent = fs.dirname(here)
            if parent == here:
                break
            here = parent
    if not found:
        return []
    from pasture.runtime.layers import _password_home  # looked up only once a file is met

    user = _password_home()
    return [path for folder, path in found if folder != user]


def values(text: str, wanted: "Callable[[str], bool] | None" = None) -> dict[str, list[str]]:
    """name -> every value a dotenv reader could give it (the raw text, unquoted, with and without a
    trailing comment): a superset, since only an exact match with the environment counts. `wanted`:
    which names to read (default: the screened ones)."""
    wanted = wanted or screened
    out: dict[str, list[str]] = {}
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        cut = min((k for k in (line.find("="), line.find(":")) if k > 0), default=-1)
        if cut < 0 or line.startswith("#"):
            continue
        name, raw = line[:cut].strip(), line[cut + 1 :].strip()
        if not wanted(name):
            continue
        if raw[:1] in ("'", '"', "`") and raw.count(raw[0]) == 1:  # a quoted value over several lines
            while i < len(lines) and raw[0] not in lines[i]:
                raw += "\n" + lines[i]
                i += 1
            if i < len(lines):
                raw += "\n" + lines[i]
                i += 1
        found = out.setdefault(name, [])
        forms = [raw, raw.split(" #", 1)[0].strip()]
        for form in list(forms):
            if len(form) >= 2 and form[0] == form[-1] and form[0] in ("'", '"', "`"):
                forms += [form[1:-1], form[1:-1].replace("\\n", "\n")]
            end = form.find(form[:1], 1) if form[:1] in ("'", '"', "`") else -1
            if end > 0:
                forms.append(form[1:end])
        found.extend(f for f in forms if f not in found)
    return out


def injected(paths: "Iterable[str]") -> dict[str, list[tuple[str, str]]]:
    """name -> [(value, file)] for every screened variable the env files set."""
    out: dict[str, list[tuple[str, str]]] = {}
    for path in paths:
        try:
            data = fs.read_file(path, MAX_BYTES)[0]
        except FileNotFoundError:
            continue
        except OSError:  # past the cap, not a regular file, unreadable: the host may still read it
            out.setdefault(UNREAD, []).append(("", path))
            continue
        for name, forms in values(data.decode("utf-8", "replace")).items():
            out.setdefault(name, []).extend((form, path) for form in forms)
    return out


def screen(env: dict, paths: "Iterable[str]") -> tuple[dict, list[str]]:
    """`env` without what the env files supplied, and one note per file naming what was dropped."""
    found = injected(paths)
    if not found:
        return env, []
    from pasture.runtime.injected import drop

    return drop(
        env,
        found,
        screened,
        "set by the project's env file {path}, which the host loads into its environment: a repository "
        "cannot move the guard's policy, trust store or cache; remove them from that file (pasture doctor "
        "lists them)",
    )
