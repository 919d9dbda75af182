"""The end of the game: a yard that cannot be refilled completely, the leftover tiles given in
space order to the player holding the most of each currency, scoring C, shared wins."""

from __future__ import annotations

from typing import Any

import pytest

from engine import RuleError
from engine.granada_city import active, apply, result, rules, view

from .helpers import card, game, set_hand, step, turn_of

R = pytest.mark.rule


def _last_turn() -> dict[str, Any]:
    """Red buys the tile at space 1 with the bag empty: the yard cannot be refilled."""
    s = game(3)
    s["bag"] = []
    price = rules.price(s["yard"][0])
    set_hand(s, "red", card("blue", price - 1), card("blue", 2), card("orange", 1))
    set_hand(s, "blue", card("green", 9), card("orange", 1, 2))
    set_hand(s, "green", card("green", 2), card("yellow", 1, 3))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    s = step(s, "red", type="pay", card=card("blue", price - 1))
    s = step(s, "red", type="pay", card=card("blue", 2))
    return s


@R("granada_city:end-of-the-game")
def test_the_yard_not_refilled_completely_ends_the_game_and_leftovers_go_by_currency() -> None:
    s = _last_turn()
    space2 = list(s["yard"][1])
    s = step(s, "red", type="supply", side="even")
    texts = [e["text"] for e in s["log"]]
    assert "The construction yard cannot be refilled completely: the game ends." in texts
    # space 2 (green): Blue holds 9 green, Green 2: Blue receives it and must decide at once
    assert s["stage"] == "award" and active(s) == ["blue"] and s["pending"]["tile"] == space2
    kinds = {a["type"] for a in rules.actions(s, "blue")}
    assert kinds == {"position", "supply"}  # never flipped: no payment, no other side
    assert [a for a in rules.actions(s, "blue") if a["type"] == "supply"][0]["side"] == space2[1]
    with pytest.raises(RuleError) as err:
        apply(s, "blue", {"type": "supply", "side": "odd" if space2[1] == "even" else "even"})
    assert err.value.rule == "granada_city:end-of-the-game"
    s = apply(s, "blue", [a for a in rules.actions(s, "blue") if a["type"] == "position"][0])
    assert space2 in s["cities"]["blue"].values()
    # space 3 (orange): Red and Blue hold 1 each: a tie, nobody; space 4 (yellow): Green alone
    assert any("orange money: the" in t and "given to no one" in t for t in [e["text"] for e in s["log"]])
    assert active(s) == ["green"]
    s = apply(s, "green", [a for a in rules.actions(s, "green") if a["type"] == "supply"][0])
    assert result(s) is not None and [x["card"] for x in s["scorings"]] == ["C"]
    assert view(s, None)["prompt"].startswith("The game is over")


@R("granada_city:end-of-the-game", "granada_city:object-of-the-game")
def test_the_most_victory_points_wins_and_ties_share_the_win() -> None:
    s = _last_turn()
    s = step(s, "red", type="supply", side="even")
    s = step(s, "blue", type="supply", side=s["pending"]["tile"][1])
    s["scores"] = {"red": 50, "blue": 50, "green": 10}
    s = step(s, "green", type="supply", side=s["pending"]["tile"][1])
    res = result(s)
    assert res is not None
    # the final scoring added nothing (no buildings, no moats): Red and Blue share the win
    assert res["winner"] is None and res["winners"] == ["red", "blue"] and "share the win" in res["reason"]
    assert res["score"] == {"red": 50, "blue": 50, "green": 10}
    assert active(s) == [] and rules.actions(s, "red") == []
    with pytest.raises(RuleError, match="over"):
        apply(s, "red", {"type": "pass"})
