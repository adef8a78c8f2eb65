"""The hook launcher: ``<data>/pasture/bin/pasture-hook``, the one binary every installed hook runs.

``<data>`` is ``$XDG_DATA_HOME`` (when absolute) or ``~/.local/share``. One launcher per user serves
every host and project; ``pasture install`` rewrites it (atomically, mode 755) and records its
absolute path in the hooks it installs, ``<launcher> hook lifecycle ...`` with no variable in front of
it, so the hooks work whatever PATH the host gives them (no venv to activate, no pyenv shim in
between) and nothing a repository's host settings put into the hook's environment (Claude Code's
project ``env``: ``PASTURE_BIN=true`` once made every hook a no-op) can swap the runtime.

The launcher is a tiny Python file run as ``<absolute interpreter> -I -S``: no site-packages, no
``PYTHON*`` variables, no user site, no script folder on ``sys.path``. It puts exactly the folders
install found first on ``sys.path`` (the parent of the ``pasture`` package and the parent of the
generated ``pasture_contracts`` tables) and calls the runtime entry. The hook path only needs the
standard library and those two, and skipping ``site`` is also faster than a console script.

If the runtime cannot be imported (the checkout moved, the package was uninstalled, the tables are
missing) it writes ONE line naming what is missing and the fix, and exits :data:`EXIT_BROKEN`; the
fail-closed tail of every blocking row (``pasture.render.commands``) turns that into a refusal.
If the interpreter itself is gone the kernel cannot start it; the shell reports exit 126/127, the
same tail applies, and ``pasture doctor`` names the fix.

Before a new launcher replaces the old one it must pass its self-test (``pasture-hook
--pasture-self-test HARNESS``: the runtime entry and the tables import, and the tables know the
harness), run with an empty environment exactly as the kernel will run it; a launcher that fails
is never put in place, so a working one is never broken by an install.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Mapping

from pasture import PastureError

NAME = "pasture-hook"
#: The launcher's exit code when the runtime cannot be imported (EX_SOFTWARE).
EXIT_BROKEN = 70
SELF_TEST = "--pasture-self-test"
HEADER = "# pasture hook launcher"

# Linux reads at most 255 bytes of a "#!" line (BINPRM_BUF_SIZE 256, kernels >= 5.1; 127 before).
_SHEBANG_MAX = 127
_SHEBANG_SAFE = re.compile(r"[A-Za-z0-9_./+@%:,=-]+")
_WORD_SAFE = re.compile(r"[A-Za-z0-9_./+@%:,=-]+")
_WORD_QUOTABLE = re.compile(r"[^'}\x00-\x1f\x7f]+")

#: The ONE place that names the runtime entry: `pasture.runtime.main.main(argv)` with the whole argv
#: (`hook lifecycle ...`, `hook serve ...`), reached without click (DESIGN-runtime.md); the launcher
#: is the whole process, so a one-event hook may skip the interpreter's teardown (process=True).
ENTRY = """\
def _entry():
    from pasture.runtime.main import main
    return lambda argv: main(argv, process=True)
"""

_TEMPLATE = """\
{shebang}
{header}: written by `pasture install` (run it again to refresh; do not edit).
# Every installed command hook runs this file (by absolute path), and every installed plugin
# starts it. -I -S: no site-packages, no PYTHON* variables, no
# user site; the runtime comes from exactly the folders below, which install checked.
import sys

PATHS = {paths!r}
sys.path[0:0] = PATHS
{entry}

def _broken(exc):
    argv = sys.argv[1:]
    harness = argv[argv.index("--harness") + 1] if "--harness" in argv[:-1] else "<host>"
    sys.stderr.write("pasture: the hook runtime cannot be loaded (%s: %s; interpreter %s, folders %s); "
                     "fix: reinstall pasture, then run `pasture install %s`\\n"
                     % (type(exc).__name__, exc, sys.executable, ", ".join(PATHS), harness))
    return {exit_broken}


def _self_test(argv):
    import json
    import pasture_contracts

    harness = argv[0] if argv else None
    known = sorted(pasture_contracts.ADMISSIONS)
    if harness is not None and harness not in known:
        raise LookupError("the tables know no harness %r (known: %s)" % (harness, ", ".join(known)))
    import pasture
    print(json.dumps({{"ok": True, "python": sys.executable, "version": sys.version.split()[0],
                      "pasture": pasture.__file__, "tables": pasture_contracts.__file__}}))
    return 0


if __name__ == "__main__":
    try:
        main = _entry()
        if sys.argv[1:2] == [{self_test!r}]:
            sys.exit(_self_test(sys.argv[2:]))
    except Exception as exc:
        sys.exit(_broken(exc))
    sys.exit(main(sys.argv[1:]))
"""


class LauncherError(PastureError, RuntimeError):
    """The launcher cannot be written or does not run: nothing was changed."""


def data_home(env: Mapping[str, str]) -> Path:
    value = env.get("XDG_DATA_HOME")
    if value and os.path.isabs(value):
        return Path(value)
    home = env.get("HOME")
    return (Path(home) if home else Path.home()) / ".local" / "share"


def launcher_path(env: Mapping[str, str]) -> Path:
    return data_home(env) / "pasture" / "bin" / NAME


def import_dirs() -> list[str]:
    """The folders the runtime is imported from: the parent of ``pasture`` and of ``pasture_contracts``."""
    import pasture

    package = Path(pasture.__file__).resolve().parent
    dirs = [str(package.parent)]
    tables = find_spec("pasture_contracts")
    if tables is not None and tables.origin:
        where = Path(tables.origin).resolve().parent.parent
    else:  # a checkout: the runtime finds them beside the package (pasture.runtime.tables)
        where = package.parent / "generated" / "python"
    if str(where) not in dirs:
        dirs.append(str(where))
    return dirs


def interpreter() -> str:
    """This interpreter, absolute (a venv's python keeps the venv: its pyvenv.cfg is read without site)."""
    path = sys.executable
    if not path or not os.path.isabs(path):
        raise LauncherError(f"cannot tell the absolute path of this Python interpreter ({path!r})")
    return path


def _shebang(python: str) -> str:
    line = f"#!{python} -IS"
    if _SHEBANG_SAFE.fullmatch(python) and len(line) <= _SHEBANG_MAX:
        return line
    # A path the kernel cannot take on a #! line (too long, blanks): sh starts it instead (one
    # extra exec). The line is a no-op string expression for Python.
    if '"' in python or "\\" in python or "$" in python or "`" in python or "\n" in python:
        raise LauncherError(f"the interpreter path {python!r} cannot be written into a launcher")
    return f'#!/bin/sh\n"exec" "{python}" "-IS" "$0" "$@"'


def render(python: str, paths: list[str]) -> str:
    return _TEMPLATE.format(
        shebang=_shebang(python), header=HEADER, paths=paths, entry=ENTRY, exit_broken=EXIT_BROKEN, self_test=SELF_TEST
    )


def shell_word(path: Path | str) -> str:
    """``path`` as the shell word the installed hooks start with (bare when safe, else single-quoted)."""
    text = str(path)
    if _WORD_SAFE.fullmatch(text):
        return text
    if _WORD_QUOTABLE.fullmatch(text):
        return f"'{text}'"
    raise LauncherError(
        f"the launcher path {text!r} holds a quote, a brace or a control character; set "
        "XDG_DATA_HOME to a plain folder and run the command again"
    )


@dataclass
class SelfTest:
    ok: bool
    detail: str  # the launcher's JSON line, or what went wrong
    exit_code: int | None = None


def self_test(path: Path, harness: str | None = None, timeout: float = 30.0) -> SelfTest:
    """Run ``path --pasture-self-test [harness]`` as a host would: no environment at all."""
    argv = [str(path), SELF_TEST] + ([harness] if harness else [])
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={"PATH": "/usr/bin:/bin"},
            stdin=subprocess.DEVNULL,
            cwd="/",
            check=False,
        )
    except subprocess.TimeoutExpired:
        return SelfTest(False, f"`{path} {SELF_TEST}` did not finish within {timeout:.0f}s")
    except OSError as exc:
        return SelfTest(False, f"cannot run {path}: {exc.strerror or exc}")
    if done.returncode == 0:
        try:
            if json.loads(done.stdout).get("ok") is True:
                return SelfTest(True, done.stdout.strip(), 0)
        except ValueError:
            pass
    said = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
    return SelfTest(False, f"exit {done.returncode}: {said}", done.returncode)


@dataclass
class Written:
    path: Path
    change: str  # created | updated | unchanged
    python: str
    paths: list[str]
    check: SelfTest


def _stage(path: Path, text: str) -> Path:
    tmp = path.with_name(f".{path.name}.pasture-tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o755)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o755)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def ensure(env: Mapping[str, str], harness: str | None = None) -> Written:
    """Write the launcher for this interpreter and package (if it differs) and check that it runs.

    Raises LauncherError, leaving any existing launcher as it was, when it cannot be written or the
    new one fails its self-test.
    """
    path = launcher_path(env)
    python, paths = interpreter(), import_dirs()
    text = render(python, paths)
    try:
        current = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        current = None
    if current == text and os.access(path, os.X_OK):
        check = self_test(path, harness)
        if not check.ok:
            raise LauncherError(f"the launcher {path} does not run: {check.detail}")
        return Written(path, "unchanged", python, paths, check)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = _stage(path, text)
    except OSError as exc:
        raise LauncherError(f"cannot write the launcher {path}: {exc.strerror or exc}") from None
    try:
        check = self_test(tmp, harness)
        if not check.ok:
            raise LauncherError(f"the new launcher does not run ({check.detail}); {path} was left as it was")
        os.replace(tmp, path)
    except OSError as exc:
        raise LauncherError(f"cannot put the launcher in place at {path}: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return Written(path, "created" if current is None else "updated", python, paths, check)
