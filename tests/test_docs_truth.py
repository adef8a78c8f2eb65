"""The docs name only what exists (issue 30 item 3): every `pasture ...` command and flag that README.md
and docs/*.md show (in code blocks and inline code) is a real command taking that flag (its
`--help` runs), and every module ARCHITECTURE.md and CONTRIBUTING.md name is in the package."""

from __future__ import annotations

import importlib
import importlib.util
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from repo_paths import REPO

from pasture.cli import main

USER_DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DEVELOPER_DOCS = [REPO / "ARCHITECTURE.md", REPO / "CONTRIBUTING.md"]

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
_INLINE = re.compile(r"`([^`\n]+)`")
# `pasture` as the program: at the start, or after a shell separator, `$`, `run:` or `-m`
_INVOCATION = re.compile(r"(?:^|[\s;&|(]|\$\s|run:\s)pasture((?:\s+[^\s;&|#>]+)+)")
_STOP = re.compile(r"\s(?:#|&&|\|\||;|>|2>)")


def code_texts(path: Path) -> list[tuple[int, str]]:
    """(line, text) of every code block line and every inline code span of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    out: list[tuple[int, str]] = []
    for block in _FENCE.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        out += [(first + i, line) for i, line in enumerate(block.group(1).splitlines())]
    prose = _FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    for span in _INLINE.finditer(prose):
        out.append((prose.count("\n", 0, span.start()) + 1, span.group(1)))
    return out


#: Inline code that quotes what pasture prints, not a command line (file -> the quoted text's start).
QUOTED_OUTPUT = {
    "docs/failures.md": ("pasture runtime cannot run",),
    "docs/policy.md": ("pasture pack rule ", "pasture reads at most"),
    "README.md": ("pasture pack rule ",),  # a pack rule's reason, a gate's line
}


def invocations(path: Path) -> list[tuple[str, list[str]]]:
    """("<file>:<line>", words after `pasture`) for every invocation the file shows."""
    found = []
    quoted = QUOTED_OUTPUT.get(path.relative_to(REPO).as_posix(), ())
    for line, text in code_texts(path):
        for match in _INVOCATION.finditer(text):
            if re.search(r"(^|\s)--?[\w-]+\s*$", text[: match.start(1) - len("pasture")]):
                continue  # `--provider pasture`: a value, not the program
            if any(text[match.start(1) - len("pasture") :].startswith(q) for q in quoted):
                continue
            words = _STOP.split(" " + match.group(1), maxsplit=1)[0]
            # usage syntax: [--flag X], a | b, (x): brackets and bars separate alternatives
            words = re.sub(r"[\[\]()|,]", " ", words).split()
            if words:
                found.append((f"{path.relative_to(REPO)}:{line}", words))
    return found


def _options(command: click.Command, path: list[str]) -> dict[str, bool]:
    """Every option the command takes -> whether it takes a value."""
    names = {"-h": False, "--help": False}
    for param in command.params:
        if isinstance(param, click.Option):
            for name in (*param.opts, *param.secondary_opts):
                names[name] = not param.is_flag and not param.count
    if command.context_settings.get("ignore_unknown_options"):
        # the hook commands parse their own flags (the runtime, without click): those its help names
        text = CliRunner().invoke(main, [*path, "--help"]).output
        names.update({flag: True for flag in re.findall(r"--[a-z][a-z-]*", text) if flag not in names})
    return names


def resolve(words: list[str]) -> tuple[list[str], list[str]]:
    """The command path the words name and every problem (a missing command, an unknown flag)."""
    command: click.Command = main
    path: list[str] = []
    problems: list[str] = []
    positional = False
    skip = False
    for word in words:
        if skip:  # an option's value
            skip = False
            continue
        if word == "--":  # the rest are the command's arguments (`policy test -- COMMAND...`)
            break
        if word.startswith("-") and len(word) > 1:
            flag, has_value = word.split("=", 1)[0], "=" in word
            options = _options(command, path)
            if flag not in options:
                problems.append(f"`pasture {' '.join(path)}` has no option {flag}")
                skip = not has_value  # what follows may be its value: not a command either way
            else:
                skip = options[flag] and not has_value
            continue
        if isinstance(command, click.Group) and not positional:
            sub = command.commands.get(word)
            if sub is not None:
                command = sub
                path.append(word)
                continue
            if re.fullmatch(r"[a-z][a-z-]*", word) and not _arguments(command):
                problems.append(f"`pasture {' '.join([*path, word])}` is no command")
        positional = True
    return path, problems


def _arguments(command: click.Command) -> list[click.Argument]:
    return [p for p in command.params if isinstance(p, click.Argument)]


SHOWN = sorted({(where, tuple(words)) for doc in USER_DOCS for where, words in invocations(doc)})


def test_the_user_docs_show_commands() -> None:
    # the extraction itself works: these are in README.md today
    shown = {words[:2] for _, words in SHOWN}
    assert {("install", "claude-code"), ("policy", "check"), ("hook", "serve")} <= shown


@pytest.mark.parametrize(("where", "words"), SHOWN, ids=[f"{w} pasture {' '.join(ws)}" for w, ws in SHOWN])
def test_every_documented_command_and_flag_exists(where: str, words: tuple[str, ...]) -> None:
    path, problems = resolve(list(words))
    assert problems == [], f"{where}: {'; '.join(problems)}"
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, f"{where}: `pasture {' '.join(path)} --help` exits {result.exit_code}"


def test_a_missing_command_or_flag_is_named() -> None:
    assert resolve(["journal", "--format", "json"])[1] == ["`pasture journal` has no option --format"]
    assert resolve(["frobnicate"])[1] == ["`pasture frobnicate` is no command"]
    assert resolve(["install", "claude-code", "--project", "DIR"]) == (["install"], [])


# --- module paths in the developer docs ------------------------------------------------------------

_FILE = re.compile(r"(?<![\w/.])(pasture/[\w/]*[\w]+\.py)\b")
_DOTTED = re.compile(r"(?<![\w/.])(pasture(?:\.[a-z_][a-z0-9_]*)+)")


def _exists(dotted: str) -> bool:
    """A module, or a module's attribute (pasture.runtime.effective.load)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:  # the import name, as installed: pyproject maps templates/ to pasture.templates, etc.
            spec = importlib.util.find_spec(".".join(parts[:cut]))
        except ModuleNotFoundError:
            spec = None
        if spec is not None:
            obj = importlib.import_module(".".join(parts[:cut]))
            for attr in parts[cut:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
    return False


def named_modules(path: Path) -> list[tuple[str, str]]:
    text = path.read_text(encoding="utf-8")
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        where = f"{path.relative_to(REPO)}:{number}"
        out += [(where, m.group(1)) for m in _FILE.finditer(line)]
        out += [(where, m.group(1).rstrip(".")) for m in _DOTTED.finditer(line)]
    return out


NAMED = sorted({item for doc in DEVELOPER_DOCS for item in named_modules(doc)})


def test_the_developer_docs_name_modules() -> None:
    assert any(name == "pasture/runtime/effective.py" for _, name in NAMED)


@pytest.mark.parametrize(("where", "name"), NAMED, ids=[f"{w} {n}" for w, n in NAMED])
def test_every_module_the_developer_docs_name_exists(where: str, name: str) -> None:
    ok = (REPO / name).is_file() if name.endswith(".py") else _exists(name)
    assert ok, f"{where}: {name} does not exist"


def test_the_package_description_names_every_host() -> None:
    import tomllib

    from pasture.hosts import HOSTS

    description = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["description"]
    assert [h.display_name for h in HOSTS.values() if h.display_name not in description] == []
