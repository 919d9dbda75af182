"""Every heading and rule paragraph of the 1212 rulebook has at least one tagged test.

The section list is data in the repository (tests/rulebooks/, titles only), so that this
runs on a lone clone; where the rulebook is beside the clone (``../shared/rulebooks``) it is
parsed too and must give the same list, so a heading added to the book (or a test tag that
drifts from the book's wording) fails here instead of going unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.navas import core
from tests.rulebooks import sections as books
from tests.rulebooks.tags import rule_arguments

HERE = Path(__file__).resolve().parent


def rulebook_sections() -> list[str]:
    """Headings (special cards as "Advanced variant / <card>") and bold paragraph lead-ins."""
    return [s["title"] for s in books.load(books.NAVAS_BOOK)]


def tagged_sections() -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for arg, path in rule_arguments(HERE.glob("test_*.py")):
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            tags.setdefault(arg.value, []).append(path.name)
        elif isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "sec":
            name = arg.args[0]
            assert isinstance(name, ast.Constant)
            tags.setdefault(f"Advanced variant / {name.value}", []).append(path.name)
    return tags


SECTIONS = rulebook_sections()


def test_the_section_list_is_the_rulebook_s() -> None:
    book = books.book_path(books.NAVAS_BOOK)
    if book is None:
        pytest.skip(f"the rulebook is not beside this clone ({books.BOOKS}); the stored list is used as it is")
    assert books.parse_navas(book.read_text(encoding="utf-8")) == books.load(books.NAVAS_BOOK), (
        "the rulebook's headings changed: run python -m tests.rulebooks.sections and look at the difference")


def test_the_parsed_table_is_the_rulebook_structure() -> None:
    assert SECTIONS[:3] == ["List of units", "Components", "Game board"]
    for expected in ("Initiative phase", "Action phase", "Maintenance phase", "End of the game", "Movement",
                     "Muslim movement", "Christian movement", "Damage", "Exhaustion", "Attack limitations",
                     "Archer attack", "Standard attacks, Cavalry charges and karr wa-l-farr", "Standard attack",
                     "Christian cavalry charge", "Muslim cavalry charge", "Karr wa-l-farr", "Rally",
                     "Switch cards", "Special Muslim units", "For the King", "Victory conditions",
                     "Historical context", "Quick reference"):
        assert expected in SECTIONS
    cards = [s for s in SECTIONS if s.startswith("Advanced variant / ")]
    assert len(cards) == 12


@pytest.mark.parametrize("section", SECTIONS)
def test_every_rulebook_section_has_a_tagged_test(section: str) -> None:
    assert section in tagged_sections(), f"no test is tagged @pytest.mark.rule({section!r})"


def test_every_tag_names_a_rulebook_section() -> None:
    unknown = sorted(set(tagged_sections()) - set(SECTIONS))
    assert unknown == []


def test_engine_rule_references_are_rulebook_sections() -> None:
    names = [getattr(core, n) for n in dir(core) if n.startswith("S_")]
    assert names and all(name in SECTIONS for name in names)
    for card in core.CATALOG.specials:
        assert core.special_section(card) in SECTIONS
