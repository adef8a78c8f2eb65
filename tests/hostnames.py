"""Which modules of pasture/ name a host in their code (issue 30): a module names a host when a string
constant or an identifier outside its docstrings holds the host's word (the harness id's first part:
``claude``, ``codex``, ``opencode``, ``gemini``, ``copilot``, ``pi``). Comments and docstrings do not count."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from repo_paths import REPO

PACKAGE = REPO / "pasture"


def host_word(harness: str) -> str:
    return harness.split("-")[0]


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for token in re.split(r"[^A-Za-z0-9]+", text):
        if token:
            out.add(token.lower())
            out.update(part.lower() for part in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", token))
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def code_words(path: Path) -> set[str]:
    """Every word of the module's string constants (docstrings aside) and identifiers."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree)
    words: set[str] = set()
    for node in ast.walk(tree):
        texts: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            texts = [node.value]
        elif isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts = [node.name]
        elif isinstance(node, ast.arg):
            texts = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            texts = [node.arg]
        elif isinstance(node, ast.alias):
            texts = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom) and node.module:
            texts = [node.module]
        for text in texts:
            words |= _words(text)
    return words


def names(word: str, words: set[str]) -> bool:
    # a short word (pi) only as a whole word; a long one also inside one (".claude", "CodexHost")
    return word in words if len(word) < 5 else any(word in w for w in words)


def naming_modules(harness: str, own: set[str]) -> list[str]:
    """The modules (paths relative to the repository) outside ``own`` whose code names ``harness``."""
    word = host_word(harness)
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if "__pycache__" in path.parts or rel in own:
            continue
        if names(word, code_words(path)):
            found.append(rel)
    return found
