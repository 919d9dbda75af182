"""The 2-player game: 72 money cards, Dirk's tiles (6 at the start, 6 after scoring A, a third
of the bag after scoring B), donating to Dirk, Dirk scoring majorities but not moats."""

from __future__ import annotations

import pytest

from engine.granada_city import rules, setup
from engine.granada_city.scoring import score

from .helpers import build, card, game, set_hand, step, tile, turn_of, with_moats

pytestmark = pytest.mark.rule("granada_city:special-rules-for-2-players")


def test_72_money_cards_one_copy_of_each_set_aside_and_dirk_holds_6_even_tiles() -> None:
    s = setup(4, {"players": 2})
    assert s["roles"] == ["red", "blue"] and len(s["aside"]) == 36
    cards = s["deck"] + s["display"] + [c for h in s["hands"].values() for c in h]
    assert len([c for c in cards if c not in ("A", "B")]) == 72 and not set(cards) & set(s["aside"])
    assert len(s["dirk"]) == 6 and all(side == "even" for _t, side in s["dirk"])
    assert len(s["bag"]) == 54 - 4 - 6 and "dirk" in s["scores"]


def test_dirk_gets_6_tiles_after_scoring_a_and_a_third_of_the_bag_after_b_with_the_marker_side() -> None:
    s = game(2)
    s["marker"] = "odd"
    rules.hold_scoring(s, "A")
    assert len(s["dirk"]) == 12 and all(side == "odd" for _t, side in s["dirk"][6:])
    bag = len(s["bag"])
    s["marker"] = "even"
    rules.hold_scoring(s, "B")
    assert len(s["dirk"]) == 12 + bag // 3 and len(s["bag"]) == bag - bag // 3
    assert all(side == "even" for _t, side in s["dirk"][12:])


def test_a_bought_tile_may_be_donated_to_dirk_as_bought_or_flipped_for_3() -> None:
    s = game(2)
    entry = tile("park", 10)
    s["yard"][0] = entry
    s["bag"] = [t for t in s["bag"] if t != entry[0]]
    s["dirk"] = [d for d in s["dirk"] if d[0] != entry[0]]
    set_hand(s, "red", card("blue", 9), card("blue", 2), card("green", 3))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    s = step(s, "red", type="pay", card=card("blue", 9))
    s = step(s, "red", type="pay", card=card("blue", 2))
    menu = {(a["type"], a.get("flip")) for a in rules.actions(s, "red")}
    assert {("dirk", False), ("dirk", True)} <= menu
    s = step(s, "red", type="dirk", flip=True)
    s = step(s, "red", type="pay", card=card("green", 3))
    assert s["dirk"][-1] == [entry[0], "odd"] and s["hands"]["red"] == []


def test_three_players_cannot_donate() -> None:
    s = game(3)
    set_hand(s, "red", card("blue", 9), card("blue", 8), card("blue", 7))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    while s["pending"] is not None and s["pending"]["kind"] == "buy":
        s = rules.apply(s, "red", [a for a in rules.actions(s, "red") if a["type"] == "pay"][0])
    while s["stage"] == "play":  # an exact payment: the extra action takes money
        s = rules.apply(s, "red", next(a for a in rules.actions(s, "red") if a["type"] in ("take", "done")))
    assert not any(a["type"] == "dirk" for a in rules.actions(s, "red"))


def test_dirk_scores_majorities_but_no_moats_and_cannot_win() -> None:
    s = game(2)
    s["dirk"] = [tile("school", 2), tile("school", 3)]
    build(s, "red", {(1, 0): tile("school", 13)})
    north = with_moats("n")
    build(s, "blue", {(1, 0): [north, "even"]})
    report = score("B", rules.competitors(s), s["cities"], False)
    school = report["types"]["school"]
    assert school["total"] == 3
    assert [(r["who"], r["points"]) for r in school["ranking"]] == [("dirk", 6), ("red", 3)]
    assert "dirk" not in report["moats"] and report["moats"]["blue"] == 1
    s["scores"] = {"red": 10, "blue": 12, "dirk": 99}
    rules.finish(s)
    assert s["result"]["winner"] == "blue" and s["result"]["score"]["dirk"] == 99


def test_scoring_a_comes_after_the_yard_refill_and_dirk_takes_the_side_the_moved_marker_shows() -> None:
    """RULINGS.md 17 and 22 (kept): "When a scoring card is revealed it is removed from the game
    and replaced by a money card. Then, before the next player's turn, scoring takes place."
    The yard refill and the marker's move are part of the turn's end ("Then the next player to
    the left performs their turn"), so Dirk's 6 new tiles take the side of the moved marker
    and are drawn after the yard's."""
    s = game(2)
    turn_of(s, "red")
    top = s["deck"].index("A")
    s["deck"].insert(0, s["deck"].pop(top))
    s["yard"][1] = None  # a space to refill: the marker moves
    s["marker"] = "odd"
    dirk = len(s["dirk"])
    s = rules.apply(s, "red", {"type": "take", "card": s["display"][0]})
    if s["pending"] is not None:
        s = rules.apply(s, "red", {"type": "done"})
    texts = [e["text"] for e in s["log"]]
    refill = next(i for i, t in enumerate(texts) if t.startswith("The construction yard is refilled (odd side up)"))
    scored = next(i for i, t in enumerate(texts) if t.startswith("Scoring A"))
    given = next(i for i, t in enumerate(texts) if t.startswith("Dirk receives 6 more tiles (even side up)"))
    assert refill < scored < given
    assert s["yard"][1][1] == "odd" and s["marker"] == "even"
    assert len(s["dirk"]) == dirk + 6 and all(side == "even" for _t, side in s["dirk"][dirk:])
