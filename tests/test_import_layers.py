"""Imports flow one way: front ends -> service -> engine, and no package's modules import each
other in a circle (a re-deal module and the views that call it, session 21, was one such
circle, found only by a tool outside the repository). Every import counts, at module level or
inside a function (a call-time import that dodges a circle at run time is still a two-way
dependency), except those under ``if TYPE_CHECKING:``, which exist for type hints only."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "render", "bot", "migrations", "benchmarks")
# what each layer may not import: the engine is pure rules, the pictures know no server
FORBIDDEN = {"engine": ("bot", "render", "benchmarks", "migrations"), "render": ("bot", "benchmarks")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _typing_only(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                lines |= {n.lineno for sub in node.body for n in ast.walk(sub) if hasattr(n, "lineno")}
    return lines


def imported(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The known modules ``source`` (module ``module``) imports: for ``from a import b``, the
    module ``a.b`` when it is one, else ``a``."""
    tree = ast.parse(source)
    skip = _typing_only(tree)
    base = module.split(".") if is_package else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            parent = ".".join(base[:len(base) - node.level + 1]) if node.level else ""
            head = ".".join(p for p in (parent, node.module or "") if p)
            names = [f"{head}.{alias.name}" if f"{head}.{alias.name}" in known else head for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def graph() -> dict[str, set[str]]:
    """Who imports whom. A package's ``__init__`` importing its own submodules (and they the
    package) is how a package is built, not a circle: those edges are left out."""
    paths = [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))]
    known = {module_name(p) for p in paths}
    edges = {}
    for path in paths:
        module = module_name(path)
        targets = imported(path.read_text(encoding="utf-8"), module, path.name == "__init__.py", known)
        edges[module] = {t for t in targets if not t.startswith(module + ".") or path.name != "__init__.py"}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def crossings(edges: dict[str, set[str]]) -> Iterator[str]:
    for module, targets in sorted(edges.items()):
        banned = FORBIDDEN.get(module.split(".")[0], ())
        for target in sorted(targets):
            if target.split(".")[0] in banned:
                yield f"{module} imports {target}"


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert cycles(graph()) == []


def test_the_engine_imports_no_front_end_and_the_pictures_no_server() -> None:
    assert list(crossings(graph())) == []


def test_the_graph_sees_relative_function_level_and_submodule_imports() -> None:
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c"}
    source = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n"
              "from . import b\n\ndef f():\n    import pkg.c\n")
    assert imported(source, "pkg.a", False, known) == {"pkg.b", "pkg.c"}
    assert imported("from pkg.b import name\n", "pkg.a", False, known) == {"pkg.b"}
    assert imported("from . import name\n", "pkg", True, known) == set()


@pytest.mark.parametrize(("edges", "expected"), [
    ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ({"a": {"b"}, "b": set(), "c": {"b"}}, []),
])
def test_cycles_are_found(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected


def test_a_crossing_is_found() -> None:
    assert list(crossings({"engine.x": {"bot.y", "engine.z"}, "bot.y": {"engine.x"}})) == ["engine.x imports bot.y"]
