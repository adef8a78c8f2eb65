"""Safe YAML loading that remembers where every value came from and refuses duplicate keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Mark:
    line: int  # 1-based
    col: int  # 1-based


@dataclass
class Source:
    """A parsed YAML document plus the position of every mapping key and value in it."""

    path: Path
    data: Any
    values: dict[Path_, Mark] = field(default_factory=dict)
    keys: dict[Path_, Mark] = field(default_factory=dict)

    def mark(self, loc: Path_) -> Mark:
        """The closest known position for loc: the value itself, else its nearest parent."""
        loc = tuple(loc)
        while loc:
            if loc in self.values:
                return self.values[loc]
            loc = loc[:-1]
        return self.values.get((), Mark(1, 1))


class YamlProblem(Exception):
    def __init__(self, message: str, mark: Mark, fix: str):
        super().__init__(message)
        self.message = message
        self.mark = mark
        self.fix = fix


def _mark(node: yaml.Node) -> Mark:
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1)


# libyaml (PyYAML's C parser, in every PyYAML wheel) composes the same nodes with the same marks about
# ten times faster than the pure-Python parser, which dominated generate/check time on large profiles
# (benchmarks/bench_generate.py). A document libyaml rejects is parsed again by the pure-Python
# parser, so syntax errors keep their exact wording and position.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)


def _compose(text: str) -> tuple[Any, Any]:
    """(loader, root node); the caller disposes the loader. Syntax errors raise from the pure-Python parser."""
    if _FAST_LOADER is not None:
        fast = _FAST_LOADER(text)
        try:
            return fast, fast.get_single_node()
        except yaml.YAMLError:
            fast.dispose()
    loader = yaml.SafeLoader(text)
    try:
        return loader, loader.get_single_node()
    except BaseException:
        loader.dispose()
        raise


def load(path: Path, text: str) -> Source:
    """Parse one YAML document with the safe loader; raise YamlProblem on syntax or duplicate keys."""
    loader = None
    try:
        try:
            loader, node = _compose(text)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = Mark(mark.line + 1, mark.column + 1) if mark else Mark(1, 1)
            raise YamlProblem(
                f"YAML syntax error: {exc.problem or exc.context}", where, "fix the YAML syntax at this position"
            ) from None
        except yaml.YAMLError as exc:
            raise YamlProblem(f"YAML error: {exc}", Mark(1, 1), "fix the YAML syntax") from None
        src = Source(path=path, data=None)
        if node is None:
            src.data = None
            return src
        src.data = _build(loader, node, (), src)
        return src
    finally:
        if loader is not None:
            loader.dispose()


def _build(loader: yaml.SafeLoader, node: yaml.Node, loc: Path_, src: Source) -> Any:
    src.values[loc] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        loader.flatten_mapping(node)
        for key_node, value_node in node.value:
            key = _scalar(loader, key_node)
            if not isinstance(key, (str, int, bool)) or isinstance(key_node, (yaml.MappingNode, yaml.SequenceNode)):
                raise YamlProblem("mapping keys must be plain scalars", _mark(key_node), "use a plain string key")
            if key in out:
                first = src.keys[loc + (key,)]
                raise YamlProblem(
                    f"duplicate key {key!r} (first at line {first.line})",
                    _mark(key_node),
                    "remove one of the two entries; YAML keeps only the last, silently",
                )
            src.keys[loc + (key,)] = _mark(key_node)
            out[key] = _build(loader, value_node, loc + (key,), src)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, loc + (i,), src) for i, item in enumerate(node.value)]
    return _scalar(loader, node)


def _scalar(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        try:
            return loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise YamlProblem(f"cannot read value: {exc.problem}", _mark(node), "quote the value") from None
    return None
