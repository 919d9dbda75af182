"""The rule tags of the tests (``@pytest.mark.rule(...)``, ``pytestmark`` included), read from
the source with :mod:`ast` so that coverage tests need not import every test module: the
one reader every game's coverage test uses."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path


def rule_arguments(paths: Iterable[Path]) -> Iterator[tuple[ast.expr, Path]]:
    """Each argument of each ``pytest.mark.rule(...)`` call in the files, with its file."""
    for path in sorted(paths):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rule"
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "mark"):
                for arg in node.args:
                    yield arg, path


def string_tags(paths: Iterable[Path]) -> Iterator[tuple[str, Path]]:
    """The tags written as plain strings, with their files."""
    for arg, path in rule_arguments(paths):
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            yield arg.value, path
