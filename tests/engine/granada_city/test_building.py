"""The building rules, and each of the book's pictured illegal placements, through the engine."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import RuleError
from engine.granada_city import active, apply, rules
from engine.granada_city import city as C
from engine.granada_city.data import CATALOG, moats_of

from .helpers import build, game, remove_tile, turn_of, with_moats

R = pytest.mark.rule
START = {"0,0": ["start-red", "start"]}


def _placing(cells: dict[tuple[int, int], list[str]], new: str) -> dict[str, Any]:
    """A 3-player game where Red, at the end of his turn, places ``new`` (bought as even)."""
    s = game()
    build(s, "red", cells)
    remove_tile(s, new)
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[new, "even", 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "position", "side": "even"}
    return s


@R("granada_city:building-rules-for-granada", "granada_city:the-following-tile-placements-are-illegal")
def test_a_moat_edge_against_an_open_edge_is_refused_naming_the_rule() -> None:
    west_moat = with_moats("w")
    assert C.add_problem(START, west_moat, (1, 0)) == C.R_EDGES
    s = _placing({}, west_moat)
    legal = {(a["x"], a["y"]) for a in rules.actions(s, "red") if a["type"] == "position"}
    assert (1, 0) not in legal and (-1, 0) in legal
    with pytest.raises(RuleError) as err:
        apply(s, "red", {"type": "position", "x": 1, "y": 0})
    assert err.value.rule == "granada_city:building-rules-for-granada"
    assert "moat against moat" in str(err.value) and err.value.allowed


@R("granada_city:building-rules-for-granada", "granada_city:the-following-tile-placements-are-illegal")
def test_the_pedestrian_rule_no_tile_reached_only_across_a_moat() -> None:
    east_moat = with_moats("e")
    west_moat = with_moats("w")
    city = START | {"1,0": [east_moat, "even"]}
    assert C.problem(city) is None
    # the tile east of it would match moat to moat, but one cannot walk there
    assert C.add_problem(city, west_moat, (2, 0)) == C.R_FOOT
    s = _placing({(1, 0): [east_moat, "even"]}, west_moat)
    with pytest.raises(RuleError, match="accessible on foot"):
        apply(s, "red", {"type": "position", "x": 2, "y": 0})


@R("granada_city:building-rules-for-granada", "granada_city:the-following-tile-placements-are-illegal")
def test_tiles_must_touch_edge_to_edge_not_only_diagonally() -> None:
    plain = with_moats("")
    assert C.add_problem(START, plain, (1, 1)) == C.R_TOUCH
    assert (1, 1) not in C.positions(START, plain)
    s = _placing({}, plain)
    with pytest.raises(RuleError, match="edge to edge"):
        apply(s, "red", {"type": "position", "x": 1, "y": 1})


@R("granada_city:building-rules-for-granada", "granada_city:the-following-tile-placements-are-illegal")
def test_no_hole_an_empty_space_surrounded_on_four_sides() -> None:
    plain = [t for t in CATALOG.tile_order if not moats_of(t)]
    cells = {(1, 0): [plain[0], "even"], (2, 0): [plain[1], "even"], (2, 1): [plain[2], "even"],
             (0, 1): [plain[3], "even"], (0, 2): [plain[4], "even"]}
    city = START | {C.key(c): e for c, e in cells.items()}
    assert C.problem(city) is None
    assert C.add_problem(city, plain[5], (1, 2)) == C.R_HOLE  # (1,1) would be enclosed
    assert C.add_problem(city, plain[5], (1, 1)) is None  # filling it is fine
    s = _placing(cells, plain[5])
    with pytest.raises(RuleError, match="hole"):
        apply(s, "red", {"type": "position", "x": 1, "y": 2})


@R("granada_city:building-rules-for-granada", "granada_city:the-following-tile-placements-are-illegal")
def test_one_orientation_a_position_is_all_a_placement_says() -> None:
    plain = with_moats("")
    s = _placing({}, plain)
    pos = [a for a in rules.actions(s, "red") if a["type"] == "position"]
    assert pos and all(set(a) == {"type", "x", "y", "label"} for a in pos)
    with pytest.raises(RuleError):
        apply(s, "red", {"type": "position", "x": pos[0]["x"], "y": pos[0]["y"], "rotation": 90})


@R("granada_city:building-rules-for-granada")
def test_positions_are_lettered_in_reading_order_and_match_the_legal_cells() -> None:
    plain = with_moats("")
    s = _placing({}, plain)
    pos = [a for a in rules.actions(s, "red") if a["type"] == "position"]
    assert [a["label"] for a in pos] == ["A: 1 north", "B: 1 west", "C: 1 east", "D: 1 south"]
    assert rules.position_list(s, "red") == [{"label": "A", "x": 0, "y": -1}, {"label": "B", "x": -1, "y": 0},
                                             {"label": "C", "x": 1, "y": 0}, {"label": "D", "x": 0, "y": 1}]
    assert C.position_label(25) == "Z" and C.position_label(26) == "AA"


@R("granada_city:building-rules-for-granada")
def test_more_than_25_positions_are_offered_at_once_and_stored_page_turns_still_replay() -> None:
    plain = [t for t in CATALOG.tile_order if not moats_of(t)]
    row = {(x, 0): [plain[i], "even"] for i, x in enumerate([1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6])}
    new = plain[12]
    s2 = _placing(row, new)
    every, fixed = rules._choices(s2, "red")
    assert len(every) > 25
    assert rules.actions(s2, "red") == every + fixed       # no page: paging is the front end's
    assert fixed == [{"type": "back", "label": "Back"}]
    # a log stored when the game paged its menus holds page turns: they still replay, move
    # only the page pointer, and are navigation (never a move)
    turned = apply(s2, "red", {"type": "page", "page": 1})
    assert turned["page"] == 1 and {**turned, "page": 0} == s2
    assert engine.get("granada_city").is_nav({"type": "page", "page": 1})
    assert rules.actions(turned, "red") == every + fixed


@R("granada_city:rebuilding-your-individual-city-of-granada", "granada_city:building-rules-for-granada")
def test_rebuilding_is_checked_against_every_building_rule() -> None:
    plain = with_moats("")
    north_moat = with_moats("n")
    east_moat = with_moats("e")
    city = START | {"1,0": [plain, "even"], "2,0": [north_moat, "even"]}
    assert C.problem(city) is None
    # removing the bridge would leave (2,0) unreachable
    assert C.removal_problem(city, (1, 0)) == C.R_FOOT
    # exchanging the bridge for a tile with a moat to the east (against open (2,0)) is refused
    assert C.exchange_problem(city, (1, 0), east_moat, "even") == C.R_EDGES
    assert C.exchange_problem(city, (0, 0), plain, "even") == C.R_START
    assert C.removal_problem(city, (2, 0)) is None


@R("granada_city:rebuilding-your-individual-city-of-granada", "granada_city:building-rules-for-granada")
def test_the_quick_exchange_check_agrees_with_the_whole_city_check() -> None:
    import random

    from engine.granada_city import setup

    rng = random.Random(4)
    compared = 0
    s = setup(4, {"players": 3})
    while s["stage"] != "over" and compared < 5000:
        role = active(s)[0]
        s = apply(s, role, rng.choice(rules.actions(s, role)))
        for r in s["roles"]:
            cityd = s["cities"][r]
            for k in cityd:
                cell = C.cell_of(k)
                for tid in CATALOG.tile_order[::5]:
                    quick = C.exchange_problem(cityd, cell, tid, "even") is None
                    whole = cell != C.START and C.problem(dict(cityd) | {k: [tid, "even"]}) is None
                    assert quick == whole
                    compared += 1
    assert compared >= 5000


@R("granada_city:building-rules-for-granada", "granada_city:the-following-tile-placements-are-illegal")
def test_an_enclosed_area_of_two_spaces_is_not_a_hole() -> None:
    """RULINGS.md 12 (kept): a hole is "an empty space surrounded by tiles on all four sides";
    each of two enclosed neighbouring spaces has an empty space beside it."""
    plain = [t for t in CATALOG.tile_order if not moats_of(t)]
    ring = [(1, 0), (2, 0), (3, 0), (3, 1), (3, 2), (2, 2), (1, 2), (0, 2)]
    cells = {c: [plain[i], "even"] for i, c in enumerate(ring[:-1])}
    # (0,1) is the last cell of the ring: it encloses (1,1) and (2,1) together
    city = START | {C.key(c): e for c, e in cells.items()}
    assert C.add_problem(city, plain[10], (0, 2)) is None
    closed = city | {C.key((0, 2)): [plain[10], "even"]}
    assert C.add_problem(closed, plain[11], (0, 1)) is None  # (1,1) and (2,1): two spaces, not a hole
    two = closed | {C.key((0, 1)): [plain[11], "even"]}
    assert C.problem(two) is None
    assert C.add_problem(two, plain[12], (1, 1)) == C.R_HOLE  # now (2,1) alone would be enclosed
