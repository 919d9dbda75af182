"""Every rule heading of the Sabika rulebook has a tagged test, or is declared not built yet.

The headings live in ``engine/sabika/data/headings.json`` (the rulebook folder is not part of the
repository); where ``../shared/rulebooks`` exists the list is checked against the book too.
A heading declared in ``not_implemented`` keeps the game out of ``engine.GAMES``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from engine.sabika import rules
from tests.rulebooks.tags import string_tags

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
HEADINGS = json.loads((ROOT / "engine" / "sabika" / "data" / "headings.json").read_text(encoding="utf-8"))
SLUGS = [h["slug"] for h in HEADINGS["headings"]]
NOT_BUILT = HEADINGS["not_implemented"]
BOOK = ROOT.parent / "shared" / "rulebooks" / "sabika.en.txt"


def tagged() -> dict[str, list[str]]:
    tags: dict[str, list[str]] = {}
    for value, path in string_tags(HERE.glob("test_*.py")):
        tags.setdefault(value, []).append(path.name)
    return tags


@pytest.mark.parametrize("slug", [s for s in SLUGS if s not in NOT_BUILT])
def test_every_built_heading_has_a_tagged_test(slug: str) -> None:
    assert f"sabika:{slug}" in tagged(), f"no test is tagged @pytest.mark.rule('sabika:{slug}')"


def test_every_tag_names_a_heading() -> None:
    unknown = sorted(t for t in tagged() if t.removeprefix("sabika:") not in SLUGS)
    assert unknown == []


def test_headings_not_built_keep_the_game_unregistered() -> None:
    assert set(NOT_BUILT) <= set(SLUGS)
    assert all(reason for reason in NOT_BUILT.values())
    assert ("sabika" in engine.GAMES) == (not NOT_BUILT)


def test_rule_references_of_the_engine_are_headings() -> None:
    refs = {getattr(rules, n) for n in dir(rules) if n.startswith("R_")} | set(rules.RULE_OF.values())
    assert refs and refs <= set(SLUGS)


@pytest.mark.skipif(not BOOK.exists(), reason="the rulebook is not beside the repository (../shared)")
def test_the_list_is_the_rulebooks_headings() -> None:
    lines = [line.strip() for line in BOOK.read_text(encoding="utf-8").splitlines()]
    for heading in HEADINGS["headings"]:
        title = heading["title"].split(" > ")[-1]
        assert title in lines, title
    assert len(SLUGS) == len(set(SLUGS))
