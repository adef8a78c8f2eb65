"""Safe YAML loading that remembers where every value came from and refuses duplicate keys.

Profiles are untrusted input, so loading is bounded before anything is built: a document larger than
MAX_BYTES, nested deeper than MAX_DEPTH, with a recursive alias, or whose aliases would expand it
past a budget proportional to its own distinct nodes (billion laughs: a few hundred bytes that
expand to 10^9 nodes) is refused with the line to change. The check walks the composed node graph once, counting
every shared node by its expanded size, so refusing costs time linear in the text, not in the
expansion.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pasture import PastureError

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


class YamlProblem(PastureError):
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

# The largest committed profile is ~40 kB and a 5,000-event synthetic one (benchmarks) ~3.2 MB.
MAX_BYTES = 4 * 1024 * 1024
# Profiles nest about 6 deep; libyaml itself stops at 1,000, our recursive builder needs less.
MAX_DEPTH = 64
# Aliases may repeat values, but the expanded document may hold at most this many nodes per distinct
# node of the text, plus a floor: ordinary anchors and merge keys stay far below it, an alias bomb
# (each level repeating the one before) passes it within a few levels.
_EXPANSION_PER_NODE = 4
_EXPANSION_FLOOR = 10_000


def _compose(text: str) -> tuple[Any, Any]:
    """(loader, root node); the caller disposes the loader. Syntax errors raise from the pure-Python parser."""
    fast_error = None
    if _FAST_LOADER is not None:
        fast = _FAST_LOADER(text)
        try:
            return fast, fast.get_single_node()
        except yaml.YAMLError as exc:
            fast_error = exc
            fast.dispose()
            if "nesting depth" in str(getattr(exc, "problem", "")):
                raise  # the pure-Python parser would only recurse to the same verdict, slowly
    loader = yaml.SafeLoader(text)
    try:
        return loader, loader.get_single_node()
    except RecursionError:
        # The pure-Python composer recurses per nesting level; libyaml already said where it stopped.
        loader.dispose()
        if fast_error is not None:
            raise fast_error from None
        raise YamlProblem(
            f"YAML nesting deeper than {MAX_DEPTH} levels",
            Mark(1, 1),
            "flatten the document; profiles nest a few levels deep",
        ) from None
    except BaseException:
        loader.dispose()
        raise


def load(path: Path, text: str) -> Source:
    """Parse one YAML document with the safe loader; raise YamlProblem on syntax, duplicate keys, or a
    document past the bounds above."""
    if len(text) > MAX_BYTES:
        raise YamlProblem(
            f"document is {len(text):,} characters; at most {MAX_BYTES:,} are read",
            Mark(1, 1),
            "split it; a profile describes one host version",
        )
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
        _check_bounds(node)
        src.data = _build(loader, node, (), src)
        return src
    finally:
        if loader is not None:
            loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_bounds(root: yaml.Node) -> None:
    """Refuse a node graph that is cyclic, too deep, or whose aliases expand it past the budget, before
    building it.

    One iterative post-order walk: a node reached again through an alias is not walked again, its
    expanded size is reused, so the cost is linear in the number of distinct nodes however large
    the expansion (Python integers do not overflow).
    """
    size: dict[int, int] = {}
    order: list[yaml.Node] = []  # post-order, to name the first value past the budget
    active: set[int] = set()
    stack: list[tuple[yaml.Node, int, list | None]] = [(root, 1, None)]
    while stack:
        node, depth, kids = stack.pop()
        key = id(node)
        if kids is not None:  # leaving: every child is sized
            active.discard(key)
            total = 1
            for kid in kids:
                total += size[id(kid)]
            size[key] = total
            order.append(node)
            continue
        if key in size:
            continue
        if isinstance(node, yaml.ScalarNode):
            size[key] = 1
            order.append(node)
            continue
        if key in active:
            raise YamlProblem(
                "recursive alias: this value contains itself",
                _mark(node),
                "remove the alias that refers back to its own anchor",
            )
        if depth > MAX_DEPTH:
            raise YamlProblem(
                f"nesting deeper than {MAX_DEPTH} levels",
                _mark(node),
                "flatten the document; profiles nest a few levels deep",
            )
        kids = _children(node)
        active.add(key)
        stack.append((node, depth, kids))
        stack.extend((kid, depth + 1, None) for kid in kids)
    budget = _EXPANSION_FLOOR + _EXPANSION_PER_NODE * len(order)
    if size[id(root)] > budget:
        first = next(n for n in order if size[id(n)] > budget)
        raise YamlProblem(
            f"aliases expand this value to {size[id(first)]:,} nodes; a document of {len(order):,} distinct "
            f"nodes may expand to at most {budget:,}",
            _mark(first),
            "write the values out instead of repeating anchors; profiles need few aliases, if any",
        )


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
