"""Scorings A, B and C with the book's examples, the tie-break, moats (the ruling on "moats
within a city", on drawn cities) and the moment a scoring card is scored."""

from __future__ import annotations

from typing import Any

import pytest

from engine.granada_city import active, rules
from engine.granada_city import city as C
from engine.granada_city.scoring import score

from .helpers import build, game, tile, turn_of, with_moats

R = pytest.mark.rule


def _schools(s: dict[str, Any], role: str, prices: list[int], row: int) -> None:
    build(s, role, {(x + 1, row): tile("school", p) for x, p in enumerate(prices)})


def _school_report(s: dict[str, Any], card_name: str) -> dict[str, Any]:
    return score(card_name, rules.competitors(s), s["cities"], s["options"]["simplified"])["types"]["school"]


@R("granada_city:scoring-a", "granada_city:victory-points-for-majorities-of-buildings")
def test_scoring_a_yellow_with_3_of_7_schools_gains_7() -> None:
    s = game(4)
    _schools(s, "yellow", [2, 3, 4], 0)
    _schools(s, "red", [5, 6], 0)
    _schools(s, "green", [7, 8], 0)
    report = _school_report(s, "A")
    assert report["total"] == 7
    assert [(r["who"], r["points"]) for r in report["ranking"]] == [("yellow", 7), ("green", 0), ("red", 0)]


@R("granada_city:scoring-a", "granada_city:victory-points-for-majorities-of-buildings")
def test_a_tie_is_settled_by_the_most_expensive_building() -> None:
    s = game(4)
    _schools(s, "yellow", [2, 3, 9], 0)
    _schools(s, "red", [4, 5, 11], 0)
    report = _school_report(s, "A")
    assert [(r["who"], r["points"]) for r in report["ranking"]] == [("red", 6), ("yellow", 0)]


@R("granada_city:scoring-b")
def test_scoring_b_blue_gains_18_and_green_9_of_9_schools() -> None:
    s = game(4)
    _schools(s, "blue", [2, 3, 4, 5], 0)
    _schools(s, "green", [6, 7, 8], 0)
    _schools(s, "red", [9, 10], 0)
    report = _school_report(s, "B")
    assert report["total"] == 9
    assert [(r["who"], r["points"]) for r in report["ranking"]] == [("blue", 18), ("green", 9), ("red", 0)]


@R("granada_city:scoring-c")
def test_scoring_c_green_paid_12_so_green_30_blue_20_red_10() -> None:
    s = game(4)
    _schools(s, "blue", [9, 2, 3, 4], 0)
    _schools(s, "green", [12, 5, 6, 7], 0)
    _schools(s, "red", [8, 10], 0)
    report = _school_report(s, "C")
    assert report["total"] == 10
    assert [(r["who"], r["best"], r["points"]) for r in report["ranking"]] == [
        ("green", 12, 30), ("blue", 9, 20), ("red", 10, 10)]


@R("granada_city:scoring-c", "granada_city:scoring")
def test_only_built_tiles_count_never_the_supply() -> None:
    s = game(3)
    _schools(s, "red", [2], 0)
    s["supplies"]["blue"] = [tile("school", 5), tile("school", 6)]
    report = _school_report(s, "C")
    assert report["total"] == 1 and [(r["who"], r["points"]) for r in report["ranking"]] == [("red", 3)]


@R("granada_city:simplified-scoring", "granada_city:simplified-scoring-scoring-a",
   "granada_city:simplified-scoring-scoring-b", "granada_city:simplified-scoring-scoring-c",
   "granada_city:simplified-scoring-points-in-a-beginners-game-applies-to-all-types-of-buildings")
def test_simplified_scoring_gives_3_then_10_3_then_18_10_3() -> None:
    s = game(4, simplified=True)
    _schools(s, "blue", [2, 3, 4, 5], 0)
    _schools(s, "green", [6, 7, 8], 0)
    _schools(s, "red", [9, 10], 0)
    got = {c: [r["points"] for r in _school_report(s, c)["ranking"]] for c in "ABC"}
    assert got == {"A": [3, 0, 0], "B": [10, 3, 0], "C": [18, 10, 3]}
    # the moats still score as usual
    north = with_moats("n")
    build(s, "yellow", {(1, 0): [north, "even"]})
    assert score("A", rules.competitors(s), s["cities"], True)["moats"]["yellow"] == 1


# ---------------------------------------------------------------- moats (ruling 15), drawn cities
#
#   legend: S = starting tile, ~ on an edge = moat. Coordinates x east, y south.


@R("granada_city:victory-points-for-moats")
def test_moat_straight_line_of_two_edges_scores_2() -> None:
    #   ~~ ~~
    #   S  a  b
    a, b = with_moats("n"), with_moats("n", {with_moats("n")})
    city = {"0,0": ["start-red", "start"], "1,0": [a, "even"], "2,0": [b, "even"]}
    assert C.problem(city) is None
    assert C.longest_moat(city) == 2


@R("granada_city:victory-points-for-moats")
def test_moat_turning_a_corner_is_continuous() -> None:
    #      ~~
    #   S  a ~      (a has moats north and east)
    a = with_moats("ne")
    city = {"0,0": ["start-red", "start"], "1,0": [a, "even"]}
    assert C.problem(city) is None
    assert C.longest_moat(city) == 2


@R("granada_city:victory-points-for-moats")
def test_moats_side_by_side_within_the_city_score_nothing() -> None:
    #   S  a ~|~ b     a's east moat lies against b's west moat: inside the city, worth nothing;
    #   .  c     d     b also has a moat to the north (1 point); one walks to b through c and d
    a = with_moats("e")
    b = with_moats("wn")
    c, d = with_moats(""), with_moats("", {with_moats("")})
    city = {"0,0": ["start-red", "start"], "1,0": [a, "even"], "2,0": [b, "even"], "1,1": [c, "even"],
            "2,1": [d, "even"]}
    assert C.problem(city) is None
    assert len(C.outer_moats(city)) == 1
    assert C.longest_moat(city) == 1


@R("granada_city:victory-points-for-moats")
def test_an_inner_moat_pair_scores_nothing_while_the_outer_line_runs_past_it() -> None:
    #   ~~    ~~ ~~
    #   a ~|~ b  e        a (moats north, east) and b (west, north) face each other moat to moat:
    #   S     c  d        that pair is inside the city; the three norths form one outer line
    a, b, e = with_moats("ne"), with_moats("wn"), with_moats("n")
    c, d = with_moats(""), with_moats("", {with_moats("")})
    city = {"0,0": ["start-red", "start"], "0,-1": [a, "even"], "1,-1": [b, "even"], "2,-1": [e, "even"],
            "1,0": [c, "even"], "2,0": [d, "even"]}
    assert C.problem(city) is None
    assert sorted(C.outer_moats(city)) == sorted([((0, -1), (1, -1)), ((1, -1), (2, -1)), ((2, -1), (3, -1))])
    # a's north and b's north meet at a corner: the outer line runs on along the top, 3 edges
    assert C.longest_moat(city) == 3


@R("granada_city:victory-points-for-moats")
def test_two_separate_moats_only_the_longest_scores() -> None:
    #   ~~ ~~
    #   a  b  S  c      a and b: moats north (2); c: moat south (1)
    #             ~~
    a, b = with_moats("n"), with_moats("n", {with_moats("n")})
    c = with_moats("s")
    city = {"0,0": ["start-red", "start"], "-1,0": [b, "even"], "-2,0": [a, "even"], "1,0": [c, "even"]}
    assert C.problem(city) is None
    assert C.longest_moat(city) == 2
    s = game(3)
    build(s, "red", {(-1, 0): [b, "even"], (-2, 0): [a, "even"], (1, 0): [c, "even"]})
    assert score("A", rules.competitors(s), s["cities"], False)["moats"]["red"] == 2


# ---------------------------------------------------------------- when a scoring happens


@R("granada_city:scoring", "granada_city:scoring-a")
def test_a_revealed_scoring_card_is_replaced_by_money_and_scored_before_the_next_turn() -> None:
    s = game(3)
    _schools(s, "blue", [4], 0)
    turn_of(s, "red")
    top = s["deck"].index("A")
    s["deck"].insert(0, s["deck"].pop(top))
    before = dict(s["scores"])
    s = rules.apply(s, "red", {"type": "take", "card": s["display"][0]})
    if s["pending"] is not None:
        s = rules.apply(s, "red", {"type": "done"})
    assert active(s) == ["blue"]
    assert "A" not in s["display"] and len(s["display"]) == 4
    assert [x["card"] for x in s["scorings"]] == ["A"]
    moat = C.longest_moat(s["cities"]["blue"])
    assert s["scores"]["blue"] == before["blue"] + 1 + moat  # 1 school of 1 in all cities: 1 x 1
    texts = [e["text"] for e in s["log"]]
    reveal = next(i for i, t in enumerate(texts) if t.startswith("Scoring card A is revealed"))
    scored = next(i for i, t in enumerate(texts) if t.startswith("Scoring A"))
    turn = next(i for i, t in enumerate(texts) if t.startswith("Turn ") and "Blue" in t)
    assert reveal < scored < turn
