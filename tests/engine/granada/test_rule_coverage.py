"""Every section of *Granada: Last Stand of the Moors*, the basic rules (2.1-10.x) and the
optional rules of section 11 (game options), has at least one tagged test
(``@pytest.mark.rule("8.4.1")``), and every numbered tag names a section.

The section list is data in the repository (tests/rulebooks/, numbers and titles only), so
that this runs on a lone clone; where the rulebook is beside the clone it is parsed too and
must give the same list.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.rulebooks import sections as books
from tests.rulebooks.tags import string_tags

TESTS = Path(__file__).resolve().parents[2]
NUMBERED = re.compile(r"^\d+\.\d+(?:\.\d+)*$")

SECTIONS = books.load(books.GRANADA_BOOK)
RULES = books.granada_rule_sections(SECTIONS)
BASIC = [n for n in RULES if not books.is_optional(n)]
OPTIONAL = [n for n in RULES if books.is_optional(n)]


def tagged_sections() -> dict[str, list[str]]:
    """Numbered rule tags anywhere under tests/ (``pytestmark`` included) -> files."""
    tags: dict[str, list[str]] = {}
    for value, path in string_tags(TESTS.rglob("test_*.py")):
        tag = value.strip().strip("[]")
        if NUMBERED.match(tag):
            tags.setdefault(tag, []).append(str(path.relative_to(TESTS)))
    return tags


TAGS = tagged_sections()


def test_the_section_list_is_the_rulebook_s() -> None:
    book = books.book_path(books.GRANADA_BOOK)
    if book is None:
        pytest.skip(f"the rulebook is not beside this clone ({books.BOOKS}); the stored list is used as it is")
    assert books.parse_granada(book.read_text(encoding="utf-8")) == SECTIONS, (
        "the rulebook's headings changed: run python -m tests.rulebooks.sections and look at the difference")


def test_the_list_is_the_rulebook_structure() -> None:
    titles = {s["number"]: s["title"] for s in SECTIONS}
    assert titles["2.1"] == "Instant Victory" and titles["8.4"] == "Morale Challenge Cards"
    assert BASIC[0] == "2.1" and "8.3.3" not in BASIC and {"8.3.3.1", "8.3.3.2"} <= set(BASIC)
    assert len(BASIC) == 82
    assert OPTIONAL == ["11.1", "11.1.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8"]


@pytest.mark.parametrize("section", BASIC)
def test_every_basic_rules_section_has_a_tagged_test(section: str) -> None:
    assert section in TAGS, f"no test is tagged @pytest.mark.rule({section!r})"


@pytest.mark.parametrize("section", OPTIONAL)
def test_every_optional_rule_has_a_tagged_test(section: str) -> None:
    assert section in TAGS, f"optional rule {section} ({_title(section)}): no test is tagged with it"


def test_every_numbered_tag_names_a_rulebook_section() -> None:
    known = {s["number"] for s in SECTIONS}
    unknown = sorted(set(TAGS) - known, key=lambda n: tuple(int(x) for x in n.split(".")))
    assert unknown == [], {n: TAGS[n] for n in unknown}


def _title(number: str) -> str:
    return next(s["title"] for s in SECTIONS if s["number"] == number)
