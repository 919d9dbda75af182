"""Setup: the yard and the black marker, the starting capital, the starting player, the display
and the money deck's five piles; the seats for 2 to 6 players."""

from __future__ import annotations

import pytest

from engine.granada_city import active, roles, rules, setup
from engine.granada_city.core import totals, value_of
from engine.granada_city.data import CATALOG
from engine.granada_city.setup import new_state

R = pytest.mark.rule


@R("granada_city:a-game-by-dirk-henn-for-2-6-players")
def test_two_to_six_seats_named_by_colour() -> None:
    assert roles({}) == ["red", "blue", "green"]
    for n in range(2, 7):
        assert roles({"players": n}) == list(CATALOG.colours[:n])
        s = setup(n, {"players": n})
        assert set(s["cities"]) == set(roles({"players": n}))
    for bad in (1, 7):
        with pytest.raises(ValueError):
            setup(1, {"players": bad})
    with pytest.raises(ValueError, match="unknown option"):
        setup(1, {"dirk": True})


@R("granada_city:setup")
def test_yard_even_side_up_then_the_marker_on_odd_and_each_city_its_alhambra() -> None:
    s = setup(5, {"players": 4})
    assert all(t is not None and t[1] == "even" for t in s["yard"]) and s["marker"] == "odd"
    assert len(s["bag"]) == 50
    for r in s["roles"]:
        assert s["cities"][r] == {"0,0": [f"start-{r}", "start"]} and s["scores"][r] == 0


@R("granada_city:setup")
def test_starting_capital_is_dealt_card_by_card_to_20_or_more() -> None:
    for seed in range(30):
        s = setup(seed, {"players": 6})
        for r in s["roles"]:
            hand = s["hands"][r]
            total = sum(value_of(c) for c in hand)
            assert 20 <= total <= 28  # the book's note
            assert sum(value_of(c) for c in hand[:-1]) < 20  # dealing stopped at the first card reaching 20
        assert len(s["display"]) == 4
        cards = s["deck"] + s["display"] + [c for h in s["hands"].values() for c in h]
        assert sorted(cards) == sorted(list(CATALOG.money) + ["A", "B"])


@R("granada_city:setup")
def test_starting_player_fewest_cards_then_lowest_total_then_lots() -> None:
    seen_lots = False
    for seed in range(60):
        s = setup(seed, {"players": 4})
        first = active(s)[0]
        key = {r: (len(s["hands"][r]), sum(totals(s["hands"][r]).values())) for r in s["roles"]}
        assert key[first] == min(key.values())
        if list(key.values()).count(min(key.values())) > 1:
            seen_lots = True
            assert any("lots are drawn (instead of the youngest player)" in e["text"] for e in s["log"])
    assert seen_lots


@R("granada_city:setup")
def test_five_piles_with_a_in_the_second_and_b_in_the_fourth() -> None:
    for seed in range(40):
        s = setup(seed, {"players": 3})
        piles = s["piles"]
        assert len(piles) == 5 and max(piles) - min(piles) <= 1 + 1  # similar sizes (+1 for the scoring card)
        bounds = [sum(piles[:i]) for i in range(6)]
        assert bounds[1] <= s["deck"].index("A") < bounds[2]
        assert bounds[3] <= s["deck"].index("B") < bounds[4]
        assert sum(piles) == len(s["deck"])


@R("granada_city:setup")
def test_setup_is_deterministic_in_the_seed() -> None:
    assert new_state(3, {"players": 5}) == new_state(3, {"players": 5})
    assert new_state(3, {"players": 5})["deck"] != new_state(4, {"players": 5})["deck"]


@R("granada_city:sequence-of-play")
def test_turns_go_clockwise_from_the_starting_player_with_three_actions_offered() -> None:
    s = setup(2, {"players": 5})
    order = s["roles"]
    first = active(s)[0]
    kinds = {a["type"] for a in rules.actions(s, first)}
    assert "take" in kinds and kinds <= {"take", "buy", "rebuild"}
    seen = [first]
    for _ in range(5):
        role = active(s)[0]
        s = rules.apply(s, role, {"type": "take", "card": max(s["display"], key=value_of)})
        if s["pending"] is not None:
            s = rules.apply(s, role, {"type": "done"})
        seen.append(active(s)[0])
    start = order.index(first)
    assert seen == [order[(start + i) % 5] for i in range(6)]
