"""Shared vocabulary of the Granada (Dirk Henn) rules modules: rulebook sections, money, logs.

Section names are ``granada_city:<slug of a rulebook heading>`` (the headings are kept in
``data/headings.txt``), so that a ``RuleError.rule`` and a test's ``@pytest.mark.rule`` point
at the same place in the book.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.granada_city.data import CATALOG

State = dict[str, Any]
Action = dict[str, Any]

GAME = "granada_city"
HEADINGS_FILE = Path(__file__).with_name("data") / "headings.txt"


def _headings() -> dict[str, str]:
    """slug -> heading, from the data file (the rulebook folder is not part of the repository)."""
    out: dict[str, str] = {}
    for line in HEADINGS_FILE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            slug, heading = line.split("\t", 1)
            out[slug] = heading
    return out


HEADINGS = _headings()


def section(slug: str) -> str:
    if slug not in HEADINGS:
        raise KeyError(f"{slug!r} is not a heading of the rulebook (data/headings.txt)")
    return f"{GAME}:{slug}"


S_COMPONENTS = section("game-components")
S_OBJECT = section("object-of-the-game")
S_SETUP = section("setup")
S_SEQUENCE = section("sequence-of-play")
S_MONEY = section("collecting-money")
S_BUY = section("buying-a-building-tile")
S_REBUILD = section("rebuilding-your-individual-city-of-granada")
S_END_TURN = section("end-of-turn")
S_PLACE = section("place-one-or-more-building-tiles")
S_BUILDING = section("building-rules-for-granada")
S_ILLEGAL = section("the-following-tile-placements-are-illegal")
S_SCORING = section("scoring")
S_MOATS = section("victory-points-for-moats")
S_MAJORITIES = section("victory-points-for-majorities-of-buildings")
S_END = section("end-of-the-game")
S_TWO = section("special-rules-for-2-players")
S_SIMPLIFIED = section("simplified-scoring")

FLIP_PRICE = 3
TAKE_LIMIT = 5
MENU = 25


def log(state: State, text: str, to: list[str] | None = None) -> None:
    entry: dict[str, Any] = {"text": text}
    if to is not None:
        entry["to"] = list(to)
    state["log"].append(entry)


def name(role: str) -> str:
    return role.capitalize()


def totals(cards: list[str]) -> dict[str, int]:
    """Money held per currency."""
    out = {c: 0 for c in CATALOG.currencies}
    for cid in cards:
        cur, value = CATALOG.card(cid)
        out[cur] += value
    return out


def value_of(cid: str) -> int:
    return CATALOG.card(cid)[1]


def currency_of(cid: str) -> str:
    return CATALOG.card(cid)[0]


def sort_cards(cards: list[str]) -> list[str]:
    order = {c: i for i, c in enumerate(CATALOG.money)}
    return sorted(cards, key=lambda c: order[c])
