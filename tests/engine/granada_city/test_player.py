"""The built-in player is not random: it pays exactly when it can, reaches for majorities, lays
moats end to end, and beats random players."""

from __future__ import annotations

from typing import Any

from benchmarks import ai_sets
from engine.granada_city import choose, rules
from engine.granada_city.data import CATALOG, moats_of

from .helpers import build, card, game, put_in_yard, remove_tile, set_hand, step, tile, turn_of, with_moats


def test_it_pays_exactly_when_the_cards_allow() -> None:
    s = game(3)
    put_in_yard(s, 2, tile("school", 10))
    set_hand(s, "red", card("green", 6), card("green", 5), card("green", 4))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=2)
    paid = []
    for seed in range(2):
        action = choose(s, "red", seed)
        assert action["type"] == "pay"
        paid.append(action["card"])
        s = rules.apply(s, "red", action)
    assert sorted(paid) == [card("green", 4), card("green", 6)]
    assert s["turn"]["free"]  # the exact payment earned another action


def test_it_buys_the_building_that_gives_it_a_majority() -> None:
    # three rivals hold 3 schools each: a fourth school would rank Red fourth, worth nothing;
    # nobody has a park: one makes Red first
    s = game(4)
    build(s, "blue", {(1, 0): tile("school", 2), (2, 0): tile("school", 3), (3, 0): tile("school", 4)})
    build(s, "green", {(1, 0): tile("school", 5), (2, 0): tile("school", 6), (3, 0): tile("school", 7)})
    build(s, "yellow", {(1, 0): tile("school", 9), (2, 0): tile("school", 10), (3, 0): tile("school", 11)})
    put_in_yard(s, 1, tile("school", 8))
    put_in_yard(s, 3, tile("park", 8))
    set_hand(s, "red", card("blue", 8), card("orange", 8))
    s["display"] = [c for c in s["display"] if int(c.split("-")[1]) <= 2][:1]  # little money to take instead
    turn_of(s, "red")
    action = choose(s, "red", 1)
    assert action == {"type": "buy", "space": 3, "label": action["label"]} and "Park" in action["label"]


def test_it_lays_a_moat_to_extend_its_longest_moat() -> None:
    s = game(3)
    first = with_moats("n")
    build(s, "red", {(1, 0): [first, "even"]})
    second = with_moats("n", {first})
    s["bag"].remove(second)
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[second, "even", 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "position", "side": "even"}
    options = {(a["x"], a["y"]) for a in rules.actions(s, "red") if a["type"] == "position"}
    assert (2, 0) in options and len(options) > 1
    action = choose(s, "red", 5)
    assert (action["x"], action["y"]) == (2, 0)


def test_it_wins_most_three_player_games_against_random_players() -> None:
    lines: list[dict[str, Any]] = []
    ai_sets.ai_figures(["granada_city"], [ai_sets.EASY_VS_RANDOM], 6, None, 1, lines.append)
    figures = lines[0]
    assert figures["games"] == 6 and figures["seats"] == 3, figures
    assert figures["wins"] >= 5, figures


def test_it_picks_from_a_long_menu_directly_even_after_a_stored_page_turn() -> None:
    s = game(3)
    plain = [t for t in CATALOG.tile_order if not moats_of(t)]
    build(s, "red", {(x, 0): [plain[i], "even"] for i, x in enumerate([1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6])})
    remove_tile(s, plain[12])
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[plain[12], "even", 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "position", "side": "even"}
    s = rules.apply(s, "red", {"type": "page", "page": 1})   # a stored log's page turn: no effect on the choice
    action = choose(s, "red", 3)
    assert action["type"] == "position" and abs(action["x"]) + abs(action["y"]) == 1
