"""What a player reads in Dirk Henn's Granada's menus and headings (issue 38): two copies of a
money card are one entry, the flip says which money can pay, and a heading offers what its
menu offers."""

from __future__ import annotations

from engine.granada_city import actions, apply, view
from engine.granada_city.data import CATALOG, card_text
from engine.granada_city.player import choose
from tests.engine.granada_city.helpers import (
    card,
    game,
    labels,
    put_in_yard,
    remove_tile,
    set_hand,
    step,
    take_from_everywhere,
    tile,
    turn_of,
)


def _display(state: dict, *cards: str) -> None:
    for c in cards:
        take_from_everywhere(state, c)
    state["discard"].extend(state["display"])
    state["display"] = list(cards)


def test_two_copies_on_display_are_one_take_entry_and_either_copy_still_applies() -> None:
    """``2. Take 8 yellow`` / ``3. Take 8 yellow``: which copy is taken changes nothing."""
    s = game()
    turn_of(s, "red")
    _display(s, card("yellow", 8, 1), card("yellow", 8, 2), card("blue", 1, 1), card("blue", 1, 2))
    takes = [a for a in actions(s, "red") if a["type"] == "take"]
    assert [a["label"] for a in takes] == ["Take 8 yellow", "Take 1 blue"]
    # a log stored before this change took the second copy: it still replays
    after = apply(s, "red", {"type": "take", "card": card("blue", 1, 2)})
    assert card("blue", 1, 2) in after["hands"]["red"]
    also = [a["label"] for a in actions(after, "red") if a["type"] == "take"]
    assert also == ["Also take 1 blue (total 2)"]


def test_two_copies_in_hand_are_one_pay_entry_for_a_tile_and_for_a_flip() -> None:
    """``2. Pay 1 blue`` / ``4. Pay 1 blue`` while paying, and the same while flipping."""
    s = game()
    entry = tile("bath_house", 6)
    put_in_yard(s, 1, entry)
    set_hand(s, "red", card("blue", 1, 1), card("blue", 3, 1), card("blue", 1, 2), card("blue", 3, 2))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    assert labels(s, "red") == ["Pay 1 blue (total 1 of 6)", "Pay 3 blue (total 3 of 6)", "Back"]
    s = apply(s, "red", {"type": "pay", "card": card("blue", 3, 2)})  # the copy not listed: still legal
    assert labels(s, "red") == ["Pay 1 blue (total 4 of 6)", "Pay 3 blue (total 6 of 6: exact, another action)",
                                "Back"]


def test_flip_payment_lists_one_entry_per_value() -> None:
    s = game()
    arena = tile("arena", 8)
    remove_tile(s, arena[0])
    set_hand(s, "red", card("green", 1, 1), card("green", 1, 2), card("green", 1, 3), card("orange", 2, 1))
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[arena[0], "even", 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "where"}
    s = step(s, "red", type="build", flip=True)
    assert labels(s, "red") == ["Pay 1 green (total 1 of 3)", "Back"]


def test_the_flip_entry_names_the_currencies_that_can_pay() -> None:
    """``Pay 3+ of one currency to flip it to the School 10`` did not say which cards can pay."""
    s = game(players=2)
    arena = tile("arena", 8)
    remove_tile(s, arena[0])
    set_hand(s, "red", card("blue", 1, 1), card("blue", 2, 1), card("yellow", 5, 1), card("green", 2, 1))
    turn_of(s, "red")
    s["turn"].update(free=False, actions=1, bought=[[arena[0], "even", 1]])
    s["stage"] = "place"
    s["pending"] = {"kind": "place", "index": 0, "stage": "where"}
    flips = [a["label"] for a in actions(s, "red") if a.get("flip")]
    assert flips == ["Pay 3+ in blue (you hold 3) or yellow (you hold 5) to flip it to the Hospital 9 and build that",
                     "Pay 3+ in blue (you hold 3) or yellow (you hold 5) to flip it and donate the Hospital 9 to Dirk"]
    # the heading names every place the menu offers, Dirk's pile too
    assert view(s, "red")["prompt"] == ("Build the tile in your city (flipping it costs 3 or more of one "
                                             "currency), put it in your supply or donate it to Dirk.")


def test_the_extra_action_heading_offers_no_end_of_turn_and_names_only_what_is_listed() -> None:
    """``Exact payment: take another action (money, buy or rebuild), or end your turn.`` stood
    above a menu without an end of turn (the extra action must be taken) and without rebuilding."""
    s = game()
    entry = tile("bath_house", 6)
    put_in_yard(s, 1, entry)
    set_hand(s, "red", card("blue", 6, 1))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    s = step(s, "red", type="pay", card=card("blue", 6, 1))
    kinds = {a["type"] for a in actions(s, "red")}
    assert "end" not in kinds and "rebuild" not in kinds
    said = view(s, "red")["prompt"]
    assert "end your turn" not in said and "rebuild" not in said
    assert said.startswith("Exact payment: take another action: take money")
    s["display"] = []
    assert {a["type"] for a in actions(s, "red")} == {"end"}
    assert view(s, "red")["prompt"] == "No further action is possible: end your turn."


def test_the_built_in_player_pays_with_its_plan_when_its_copy_is_not_the_listed_one() -> None:
    """The player plans a payment with card ids; the menu lists one copy per value, so it rates
    a listed card by its currency and value, and still pays exactly."""
    s = game()
    entry = tile("bath_house", 6)
    put_in_yard(s, 1, entry)
    set_hand(s, "red", card("blue", 1, 1), card("blue", 5, 2), card("blue", 5, 1), card("blue", 2, 1))
    turn_of(s, "red")
    s = step(s, "red", type="buy", space=1)
    paid = []
    while s["pending"] is not None and s["pending"]["kind"] == "buy":
        pick = choose(s, "red", 1)
        paid.append(card_text(pick["card"]))
        s = apply(s, "red", pick)
    assert sorted(paid) == ["1 blue", "5 blue"]
    assert s["turn"]["free"] is True  # exact: another action


def test_one_per_value_keeps_the_first_copy_of_each_currency_and_value() -> None:
    from engine.granada_city.rules import one_per_value

    cards = [card("blue", 1, 2), card("blue", 1, 1), card("green", 1, 1), card("blue", 2, 1)]
    assert one_per_value(cards) == [card("blue", 1, 2), card("green", 1, 1), card("blue", 2, 1)]
    assert all(CATALOG.card(c) for c in cards)
    assert one_per_value([]) == []
