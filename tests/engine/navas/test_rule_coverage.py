"""Every heading and rule paragraph of the 1212 rulebook has at least one tagged test.

The table is parsed from the rulebook text at test time, so a heading added to the book (or
a test tag that drifts from the book's wording) fails here instead of going unnoticed.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from engine.navas import core

HERE = Path(__file__).resolve().parent
BOOK = HERE.parents[3] / "shared" / "rulebooks" / "1212-las-navas-de-tolosa.en.txt"

# Lines that look like headings but are captions of pictures or of the table of contents.
CAPTIONS = {"Index", "Aragon Castile Navarre", "Muslims", "Christians"}
LEAD_IN = re.compile(r"^\**([A-Z][A-Za-z' ]{2,30}?)\**:\s")


def _is_heading(line: str) -> bool:
    words = line.split()
    return (bool(words) and len(words) <= 8 and "\t" not in line and ":" not in line
            and line[0].isalpha() and line[0].isupper() and not line.isupper()
            and line[-1] not in ".,;!" and not line.startswith("Example") and line not in CAPTIONS)


def rulebook_sections() -> list[str]:
    """Headings (special cards as "Advanced variant / <card>") and bold paragraph lead-ins."""
    found: list[str] = []
    under_variant = False
    in_body = False
    for raw in BOOK.read_text(encoding="utf-8").splitlines():
        line = re.sub(r"\*|</?i>", "", raw).strip()
        if not line or "\t" in raw:
            continue
        if _is_heading(line):
            if line == "Components":
                in_body = True
            if line == "Victory conditions":
                in_body, under_variant = False, False
            name = f"Advanced variant / {line}" if under_variant else line
            if line == "Advanced variant":
                under_variant = True
            if name not in found:
                found.append(name)
            continue
        lead = LEAD_IN.match(raw.strip())
        if in_body and lead and lead.group(1) != "Example" and lead.group(1) not in found:
            found.append(lead.group(1))
    return found


def tagged_sections() -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "rule"
                    and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "mark"):
                for arg in node.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        tags.setdefault(arg.value, []).append(path.name)
                    elif isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "sec":
                        name = arg.args[0]
                        assert isinstance(name, ast.Constant)
                        tags.setdefault(f"Advanced variant / {name.value}", []).append(path.name)
    return tags


SECTIONS = rulebook_sections()


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
