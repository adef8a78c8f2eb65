"""The package layout stays what ARCHITECTURE.md says: no import cycles anywhere in pasture/ (lazy
imports inside functions count too: a cycle that only works because one side imports late is
still a cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

from repo_paths import REPO

PACKAGE = REPO / "pasture"


def _module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    if target in modules:
                        graph[name].add(target)
                    elif node.module in modules:
                        graph[name].add(node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in modules)
    for name in graph:
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_pasture():
    assert cycles(import_graph()) == []


# --- the package graph (issue 30): package = pasture.X, its second dotted component ---------------------

#: what every package may import besides what ARCHITECTURE.md's "Layers" table gives it: the package's own
#: __init__ (PastureError, __version__) and where the installed package keeps its data
ALWAYS = {"pasture", "resources"}


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_edges() -> dict[str, dict[str, list[str]]]:
    """package -> imported package -> the module imports that make the arrow ("a -> b")."""
    edges: dict[str, dict[str, list[str]]] = {}
    for module, targets in import_graph().items():
        mine = edges.setdefault(package_of(module), {})
        for target in sorted(targets):
            if package_of(target) != package_of(module):
                mine.setdefault(package_of(target), []).append(f"{module} -> {target}")
    return edges


def declared_layers() -> dict[str, set[str]]:
    """ARCHITECTURE.md's "Layers" table: package -> the packages it may import."""
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    layers: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].startswith("`"):
            layers[cells[0].strip("`")] = {
                c.strip().strip("`") for c in cells[1].split(",") if c.strip() not in ("", "-")
            }
    return layers


def test_no_package_imports_one_that_imports_it_back():
    edges = package_edges()
    found = cycles({package: set(targets) for package, targets in edges.items()})
    detail = [
        arrow for cycle in found for a in cycle for b in cycle if b in edges.get(a, {}) for arrow in edges[a][b][:3]
    ]
    assert found == [], f"package cycles {found}; the imports that make them: {detail}"


def test_packages_import_only_what_architecture_allows():
    declared = declared_layers()
    edges = package_edges()
    assert set(declared) == set(edges), (
        f"ARCHITECTURE.md's Layers table lists {sorted(set(declared) - set(edges))} that do not exist and misses "
        f"{sorted(set(edges) - set(declared))}"
    )
    wrong = {
        f"{package} -> {target}": arrows[:3]
        for package, targets in edges.items()
        for target, arrows in targets.items()
        if target not in declared[package] | ALWAYS
    }
    assert not wrong, f"imports ARCHITECTURE.md's Layers table does not allow: {wrong}"


def test_the_layers_table_is_itself_acyclic():
    declared = declared_layers()
    assert cycles({p: {t for t in targets if t in declared} for p, targets in declared.items()}) == []
