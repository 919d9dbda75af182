"""A turn: collecting money, buying (the book's Green and Red examples), rebuilding, placing
the bought tiles with or without flipping them (the book's Arena and Library example), and the
end of the turn (refills, the black marker, the book's yard example)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import RuleError
from engine.granada_city import active, apply, rules
from engine.granada_city.data import CATALOG, tile_text

from .helpers import (
    build,
    card,
    game,
    labels,
    put_in_yard,
    remove_tile,
    set_hand,
    step,
    tile,
    turn_of,
    with_moats,
)

R = pytest.mark.rule


def _display(state: dict[str, Any], *cards: str) -> None:
    for c in state["display"]:
        state["deck"].insert(0, c)
        state["piles"][0] += 1
    state["display"] = []
    for c in cards:
        if c in state["deck"]:
            i = state["deck"].index(c)
            state["deck"].remove(c)
            at = 0
            for p, n in enumerate(state["piles"]):
                if at <= i < at + n:
                    state["piles"][p] -= 1
                    break
                at += n
        for hand in state["hands"].values():
            if c in hand:
                hand.remove(c)
        if c in state["discard"]:
            state["discard"].remove(c)
        state["display"].append(c)


@R("granada_city:collecting-money")
def test_one_card_of_any_value_or_several_totalling_at_most_five() -> None:
    s = game()
    turn_of(s, "red")
    _display(s, card("blue", 2), card("green", 3), card("orange", 7), card("yellow", 4))
    menu = labels(s, "red")
    assert {"Take 2 blue", "Take 3 green", "Take 7 orange", "Take 4 yellow"} <= set(menu)
    # a 7 alone: the action is over
    after = step(s, "red", type="take", card=card("orange", 7))
    assert card("orange", 7) in after["hands"]["red"] and active(after) == ["blue"]
    # 2, then 3 (total 5): allowed; 4 would make 6: not offered
    s2 = step(s, "red", type="take", card=card("blue", 2))
    more = labels(s2, "red")
    assert "Also take 3 green (total 5)" in more and not any("yellow" in m or "orange" in m for m in more)
    with pytest.raises(RuleError) as err:
        apply(s2, "red", {"type": "take", "card": card("yellow", 4)})
    assert err.value.rule == "granada_city:collecting-money"
    s3 = step(s2, "red", type="take", card=card("green", 3))
    assert {card("blue", 2), card("green", 3)} <= set(s3["hands"]["red"]) and active(s3) == ["blue"]
    # or stop after one small card
    s4 = step(s2, "red", type="done")
    assert card("green", 3) in s4["display"] and active(s4) == ["blue"]


@R("granada_city:buying-a-building-tile", "granada_city:sequence-of-play")
def test_green_pays_11_for_the_school_priced_10_and_his_turn_ends() -> None:
    s = game()
    school = tile("school", 10)
    put_in_yard(s, 2, school)
    assert CATALOG.yard_currency[1] == "green"
    set_hand(s, "green", card("green", 6), card("green", 5))
    turn_of(s, "green")
    assert any(a["type"] == "buy" and a["space"] == 2 for a in rules.actions(s, "green"))
    s = step(s, "green", type="buy", space=2)
    assert "Pay 5 green (total 5 of 10)" in labels(s, "green")
    s = step(s, "green", type="pay", card=card("green", 6))
    assert "Pay 5 green (total 11 of 10: no change, your turn ends)" in labels(s, "green")
    s = step(s, "green", type="pay", card=card("green", 5))
    assert s["hands"]["green"] == [] and {card("green", 6), card("green", 5)} <= set(s["discard"])
    assert s["turn"]["bought"] == [[school[0], school[1], 2]] and s["turn"]["free"] is False
    assert s["stage"] == "place"  # no further action: only placing the school remains
    assert s["yard"][1] is None  # not refilled during the turn
    assert "(no change): the turn ends" in s["log"][-1]["text"]


@R("granada_city:buying-a-building-tile")
def test_a_tile_cannot_be_bought_without_enough_of_its_currency_and_back_takes_the_offer_back() -> None:
    s = game()
    put_in_yard(s, 3, tile("market", 9))
    set_hand(s, "red", card("orange", 4), card("orange", 4, 2), card("blue", 9))
    turn_of(s, "red")
    with pytest.raises(RuleError) as err:
        apply(s, "red", {"type": "buy", "space": 3})
    assert err.value.rule == "granada_city:buying-a-building-tile"
    set_hand(s, "red", card("orange", 4), card("orange", 5), card("blue", 9))
    s = step(s, "red", type="buy", space=3)
    assert all(a["card"].startswith("orange") for a in rules.actions(s, "red") if a["type"] == "pay")
    s1 = step(s, "red", type="pay", card=card("orange", 4))
    s2 = step(s1, "red", type="back")
    assert s2["pending"] is None and sorted(s2["hands"]["red"]) == sorted(s["hands"]["red"])


@R("granada_city:buying-a-building-tile", "granada_city:rebuilding-your-individual-city-of-granada",
   "granada_city:place-one-or-more-building-tiles")
def test_red_buys_twice_exactly_rebuilds_then_places_both_tiles() -> None:
    s = game()
    first, second = tile("park", 4), tile("hostel", 7)
    put_in_yard(s, 1, first)
    put_in_yard(s, 3, second)
    set_hand(s, "red", card("blue", 4), card("orange", 7), card("yellow", 1))
    old, new = [with_moats(""), "even"], [with_moats("", {with_moats("")}), "odd"]
    build(s, "red", {(1, 0): old})
    s["supplies"]["red"] = [new]
    s["bag"].remove(new[0])
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    s = step(s, "red", type="pay", card=card("blue", 4))
    assert s["turn"]["free"] and "exact, another action" in s["log"][-1]["text"] and s["stage"] == "play"
    s = step(s, "red", type="buy", space=3)
    s = step(s, "red", type="pay", card=card("orange", 7))
    assert s["turn"]["free"] and s["turn"]["actions"] == 2
    s = step(s, "red", type="rebuild", how="exchange")
    s = step(s, "red", type="cell", x=1, y=0)
    s = step(s, "red", type="supply_tile", index=0)
    assert s["cities"]["red"]["1,0"] == new and s["supplies"]["red"] == [old]
    assert s["stage"] == "place" and len(s["turn"]["bought"]) == 2 and active(s) == ["red"]
    # any order: the hostel first, into the supply; then the park into the city
    s = step(s, "red", type="tile", index=1)
    s = step(s, "red", type="supply", side="odd")
    assert s["supplies"]["red"][-1] == [second[0], "odd"]
    s = step(s, "red", type="build", flip=False)
    pos = [a for a in rules.actions(s, "red") if a["type"] == "position"][0]
    s = apply(s, "red", pos)
    assert s["cities"]["red"][f"{pos['x']},{pos['y']}"] == first
    assert active(s) == ["blue"] and s["yard"][0] is not None and s["yard"][2] is not None


@R("granada_city:buying-a-building-tile")
def test_at_most_five_actions_four_exact_payments_then_one_more() -> None:
    s = game()
    prices = []
    for space in range(1, 5):
        cur = CATALOG.yard_currency[space - 1]
        entry = s["yard"][space - 1]
        prices.append((cur, rules.price(entry)))
    set_hand(s, "red", *[card(cur, p - 1) for cur, p in prices], *[card(cur, 1, 2) for cur, _p in prices])
    turn_of(s, "red")
    for space, (cur, p) in enumerate(prices, start=1):
        s = step(s, "red", type="buy", space=space)
        s = step(s, "red", type="pay", card=card(cur, p - 1))
        s = step(s, "red", type="pay", card=card(cur, 1, 2))
    assert s["turn"]["actions"] == 4 and s["turn"]["free"] and s["stage"] == "play"
    assert not any(a["type"] == "buy" for a in rules.actions(s, "red"))  # the yard is empty until the turn ends
    s = step(s, "red", type="take", card=s["display"][0])
    if s["pending"] is not None and s["pending"]["kind"] == "take":
        s = step(s, "red", type="done")
    assert s["turn"]["actions"] == 5 and s["stage"] == "place"


@R("granada_city:place-one-or-more-building-tiles", "granada_city:end-of-turn")
def test_red_flips_the_arena_paying_3_orange_and_the_library_paying_5_green() -> None:
    s = game()
    arena, library = tile("arena", 8), tile("library", 12)
    assert rules.price(arena) == 8
    assert CATALOG.tiles[arena[0]].odd.type == "hospital" and CATALOG.tiles[library[0]].odd.type == "district"
    for entry in (arena, library):
        remove_tile(s, entry[0])
    set_hand(s, "red", card("orange", 3), card("green", 5), card("blue", 1))
    turn_of(s, "red")
    s["turn"].update(free=False, actions=2, bought=[[arena[0], "even", 1], [library[0], "even", 2]])
    s["stage"] = "place"
    s = step(s, "red", type="tile", index=0)
    # the label names the currencies that can pay (red holds only 1 blue)
    assert ("Pay 3+ in green (you hold 5) or orange (you hold 3) to flip it to the Hospital 9 and build that"
            in labels(s, "red"))
    s = step(s, "red", type="build", flip=True)
    # one currency only: the blue 1 cannot help (red holds less than 3 blue)
    assert {a["card"] for a in rules.actions(s, "red") if a["type"] == "pay"} == {card("orange", 3),
                                                                                 card("green", 5)}
    assert "Pay 3 orange (total 3 of 3: exact)" in labels(s, "red")
    s = step(s, "red", type="pay", card=card("orange", 3))
    assert s["stage"] == "place" and s["turn"]["free"] is False  # no extra action for paying 3 sharp
    s = apply(s, "red", [a for a in rules.actions(s, "red") if a["type"] == "position"][0])
    assert [arena[0], "odd"] in s["cities"]["red"].values()
    s = step(s, "red", type="build", flip=True)
    assert "Pay 5 green (total 5 of 3: no change)" in labels(s, "red")
    s = step(s, "red", type="pay", card=card("green", 5))
    assert "pays 5 green = 5 to flip the Library 12 over to the District 13" in s["log"][-1]["text"]
    s = apply(s, "red", [a for a in rules.actions(s, "red") if a["type"] == "position"][0])
    assert [library[0], "odd"] in s["cities"]["red"].values()
    assert s["hands"]["red"] == [card("blue", 1)] and active(s) == ["blue"]


@R("granada_city:place-one-or-more-building-tiles")
def test_supply_takes_either_side_free_and_a_supply_tile_is_never_flipped() -> None:
    s = game()
    entry = tile("bath_house", 6)
    put_in_yard(s, 1, entry)
    set_hand(s, "red", card("blue", 6))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    s = step(s, "red", type="pay", card=card("blue", 6))
    s["display"] = []  # nothing left to do in the extra action: the turn may end
    s = step(s, "red", type="end")
    assert {a["label"] for a in rules.actions(s, "red") if a["type"] == "supply"} == {
        "Put it in your supply as the Bath House 6", f"Put it in your supply as the {tile_text(entry[0], 'odd')}"}
    s = step(s, "red", type="supply", side="odd")
    assert s["supplies"]["red"] == [[entry[0], "odd"]] and s["hands"]["red"] == []
    # later, rebuilding extends the city with it as it lies: no flip is ever offered
    turn_of(s, "red")
    s = step(s, "red", type="rebuild", how="extend")
    s = step(s, "red", type="supply_tile", index=0)
    assert all(a["type"] in ("position", "back", "page") for a in rules.actions(s, "red"))
    s = apply(s, "red", [a for a in rules.actions(s, "red") if a["type"] == "position"][0])
    assert [entry[0], "odd"] in s["cities"]["red"].values()


@R("granada_city:rebuilding-your-individual-city-of-granada")
def test_rebuilding_extends_removes_or_exchanges_but_never_the_starting_tile() -> None:
    s = game()
    a, b = with_moats(""), with_moats("", {with_moats("")})
    build(s, "red", {(1, 0): [a, "even"], (2, 0): [b, "odd"]})
    turn_of(s, "red")
    menu = {x.get("how") for x in rules.actions(s, "red") if x["type"] == "rebuild"}
    assert menu == {"remove"}  # empty supply: nothing to extend or exchange with
    s1 = step(s, "red", type="rebuild", how="remove")
    cells = {(x["x"], x["y"]) for x in rules.actions(s1, "red") if x["type"] == "cell"}
    assert cells == {(2, 0)}  # the Alhambra never; (1,0) would cut (2,0) off
    with pytest.raises(RuleError):
        apply(s1, "red", {"type": "cell", "x": 0, "y": 0})
    s2 = step(s1, "red", type="cell", x=2, y=0)
    assert s2["supplies"]["red"] == [[b, "odd"]] and "2,0" not in s2["cities"]["red"]
    assert active(s2) == ["blue"]  # rebuilding is one action


@R("granada_city:end-of-turn", "granada_city:example")
def test_the_yard_is_refilled_in_space_order_with_the_marker_side_then_the_marker_moves() -> None:
    s = game()
    s["marker"] = "even"
    s["bag"].extend(t[0] for i, t in enumerate(s["yard"]) if i in (1, 3))
    s["bag"].sort()
    s["yard"][1] = s["yard"][3] = None
    turn_of(s, "red")
    taken = s["display"][0]
    s = step(s, "red", type="take", card=taken)
    if s["pending"] is not None:
        s = step(s, "red", type="done")
    refill = next(e["text"] for e in s["log"] if e["text"].startswith("The construction yard is refilled"))
    assert refill.startswith("The construction yard is refilled (even side up): 2: ")
    assert refill.index("2: ") < refill.index("4: ")
    assert s["yard"][1][1] == "even" and s["yard"][3][1] == "even" and s["marker"] == "odd"
    assert len(s["display"]) == 4 and taken not in s["display"]


@R("granada_city:end-of-turn")
def test_an_exhausted_money_deck_is_replaced_by_the_shuffled_discard_pile() -> None:
    s = game()
    turn_of(s, "red")
    s["discard"].extend(s["deck"][2:])
    s["discard"] = [c for c in s["discard"] if c not in ("A", "B")]
    s["deck"] = [c for c in s["deck"][:2] if c not in ("A", "B")]
    s["piles"] = [len(s["deck"])]
    pile = len(s["discard"])
    s["display"] = s["display"][:1]
    rules.end_turn(s)  # two cards come from the old deck, the third from the new one
    assert len(s["display"]) == 4
    assert any("discard pile is shuffled" in e["text"] for e in s["log"])
    assert s["discard"] == [] and len(s["deck"]) == pile - 1


@R("granada_city:buying-a-building-tile", "granada_city:sequence-of-play")
def test_the_extra_action_of_an_exact_payment_must_be_taken_while_one_is_possible() -> None:
    """RULINGS.md 6: "they perform another turn, again deciding between the three possible
    actions"; the active player "must decide between three possible actions"."""
    s = game()
    put_in_yard(s, 1, tile("bath_house", 6))
    set_hand(s, "red", card("blue", 6))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    s = step(s, "red", type="pay", card=card("blue", 6))
    menu = rules.actions(s, "red")
    assert s["stage"] == "play" and menu and {a["type"] for a in menu} == {"take"}
    with pytest.raises(RuleError):
        apply(s, "red", {"type": "end"})
    s["display"] = []
    assert [a["type"] for a in rules.actions(s, "red")] == ["end"]
