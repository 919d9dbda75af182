"""Every heading of the Granada (Dirk Henn) rulebook has at least one tagged test.

The headings are kept in ``engine/granada_city/data/headings.txt`` (the rulebook folder is not
part of the repository); where the rulebook is present beside the project, the list is also
checked against the book, so a heading added to it (or a slug drifting from it) fails here.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from engine.granada_city import core

HERE = Path(__file__).resolve().parent
BOOK = HERE.parents[3] / "shared" / "rulebooks" / "granada-dirk-henn.en.txt"
PREFIX = "granada_city:"


def slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")


def book_headings(text: str) -> list[tuple[str, str]]:
    """(slug, heading) for each Markdown heading of the book; headings under "Simplified
    scoring" take its slug as prefix (the book repeats "Scoring A" there)."""
    out = []
    under = ""
    for line in text.splitlines():
        if not line.startswith("#"):
            continue
        heading = line.lstrip("#").replace("■", "").strip()
        level = len(line) - len(line.lstrip("#"))
        if level == 2:
            under = "simplified-scoring-" if heading == "Simplified scoring" else ""
            out.append((slug(heading), heading))
        else:
            out.append((under + slug(heading), heading))
    return out


def tagged() -> dict[str, list[str]]:
    """rule tag -> test names, read from the marks pytest itself would apply."""
    tags: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        module = importlib.import_module(f"tests.engine.granada_city.{path.stem}")
        module_marks = getattr(module, "pytestmark", [])
        module_marks = module_marks if isinstance(module_marks, list) else [module_marks]
        for name_, fn in vars(module).items():
            if not name_.startswith("test_") or not callable(fn):
                continue
            for mark in list(getattr(fn, "pytestmark", [])) + module_marks:
                if mark.name == "rule":
                    for arg in mark.args:
                        tags.setdefault(arg, []).append(f"{path.name}::{name_}")
    return tags


SLUGS = list(core.HEADINGS)


def test_the_heading_list_matches_the_rulebook_where_it_is_present() -> None:
    if not BOOK.exists():
        pytest.skip("the rulebook is not beside this checkout; the kept list stands alone")
    assert book_headings(BOOK.read_text(encoding="utf-8")) == list(core.HEADINGS.items())


def test_the_heading_list_is_the_books_structure() -> None:
    assert SLUGS[0] == "a-game-by-dirk-henn-for-2-6-players" and "scoring-c" in SLUGS
    assert len(SLUGS) == len(set(SLUGS)) == 26


@pytest.mark.parametrize("heading", SLUGS)
def test_every_rulebook_heading_has_a_tagged_test(heading: str) -> None:
    assert PREFIX + heading in tagged(), f"no test is tagged @pytest.mark.rule({PREFIX + heading!r})"


def test_every_tag_names_a_rulebook_heading() -> None:
    unknown = sorted(t for t in tagged() if not t.startswith(PREFIX) or t[len(PREFIX):] not in core.HEADINGS)
    assert unknown == []


def test_engine_rule_references_are_rulebook_headings() -> None:
    names = [getattr(core, n) for n in dir(core) if n.startswith("S_")]
    assert names and all(n.startswith(PREFIX) and n[len(PREFIX):] in core.HEADINGS for n in names)
