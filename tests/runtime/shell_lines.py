"""Hypothesis strategies for shell lines that reach the guard's files through the paths the shell will
use (issue 27): a guarded place spelled through `~`, $HOME / ${HOME...}, $PWD / ${PWD...}, reached
directly, after cd / pushd / CDPATH, through a glob, a default assignment, a variable, or a `-c`
script's positional parameters (xargs -I too), optionally behind a reading bomb. Lines are relative
to the project root (the cwd) and $HOME, so they hold whatever folders the fixtures make."""

from __future__ import annotations

from hypothesis import strategies as st

# (base, path below it): places the guard protects in the fixtures of test_guard_reading.py
HOME_TARGETS = [
    ".config/pasture/policy.toml",  # the user's policy
    ".claude/settings.json",  # a host's settings
    ".gemini/settings.json",
    ".codex/hooks.json",
    ".local/state/pasture/trust.json",  # pasture's state: the trust store, until's counters
    ".local/share/pasture/bin/pasture-hook",  # the launcher
]
PROJECT_TARGETS = [".pasture/policy.toml", ".claude/settings.json", ".codex/config.toml", ".pasture"]
HOME_SPELLINGS = ["~", "$HOME", '"$HOME"', "${HOME}", "${HOME:-/x}", "${HOME-/x}", "${HOME:=/x}", "${HOME%/}",
                  "${HOME%%/}", "${HOME#}", "${HOME:0}", "${HOME/#/}", "${HOME:+$HOME}", "${HOME//qq/qq}"]  # fmt: skip
PROJECT_SPELLINGS = [".", "$PWD", "${PWD}", "~+", "${PWD%/}", "${PWD:-/x}", '"$PWD"']
WRITES = [": > {}", "echo x > {}", "rm -rf {}", "touch {}", "printf x >> {}", "mv /tmp/x {}", "cp /tmp/x {}"]
BOMB = "a=(x y); " + "a=(${a[@]} ${a[@]}); " * 24


def _glob(part: str, draw) -> str:
    """One part spelled as a glob that still matches it (`.cl*`, `.c?aude`)."""
    if len(part) < 3:
        return part
    cut = draw(st.integers(2, len(part) - 1))
    return part[:cut] + draw(st.sampled_from(["*", "?" + part[cut + 1 :]]))


@st.composite
def guarded_lines(draw) -> str:
    at_home = draw(st.booleans())
    target = draw(st.sampled_from(HOME_TARGETS if at_home else PROJECT_TARGETS))
    base = draw(st.sampled_from(HOME_SPELLINGS if at_home else PROJECT_SPELLINGS))
    prefix = ""
    if not at_home and draw(st.booleans()):  # from a subfolder: the project is ${PWD%/*}
        prefix, base = "cd src && ", draw(st.sampled_from(["${PWD%/*}", "..", "$OLDPWD"]))
    write = draw(st.sampled_from(WRITES))
    parts = target.split("/")
    split = draw(st.integers(0, len(parts) - 1))  # the folder part a cd reaches, then the rest
    folder, rest = "/".join(parts[:split]), "/".join(parts[split:])
    if draw(st.booleans()) and folder:
        folder = "/".join(_glob(p, draw) for p in folder.split("/"))
    how = draw(st.sampled_from(["direct", "cd", "pushd", "cdpath", "default", "variable", "dash-c", "xargs"]))
    whole = f"{base}/{target}"
    if how == "cd" and folder:
        line = f"cd {base}/{folder} && " + write.format(rest)
    elif how == "pushd" and folder:
        line = f"pushd {base}/{folder} >/dev/null; " + write.format(rest)
    elif how == "cdpath" and folder and not folder.startswith(("./", "../")):
        line = f"CDPATH={base} cd {folder} && " + write.format(rest)
    elif how == "default":
        line = f": ${{f:={whole}}}; " + write.format("$f")
    elif how == "variable":
        line = f"f={whole}; " + write.format('"$f"')
    elif how == "dash-c":
        script, arg = draw(st.sampled_from([("'{}' _ {}", "$1"), ("'{}' {}", "$0"), ("'{}' _ src {}", "$2")]))
        shell = draw(st.sampled_from(["bash -c", "sh -c", "bash -lc", "sh -ec"]))
        line = f"{shell} " + script.format(write.format(f'"{arg}"'), whole)
        if "rm" in write and draw(st.booleans()):
            line = f"bash -c 'rm -rf \"$@\"' _ {whole}"
    elif how == "xargs":
        line = f"echo {whole} | xargs -I{{}} sh -c '" + write.format("{}") + "'"
    else:
        line = write.format(whole)
    line = prefix + line
    if draw(st.integers(0, 9)) == 0:
        line = BOMB + line  # past the reading's budget: the line is judged on its own words
    return line
