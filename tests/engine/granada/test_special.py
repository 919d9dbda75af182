"""Section 10 outside battles: Nasrid Palace Guard (10.10), Boabdil Mixed Army (10.12)."""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.granada import run, special
from engine.granada import state as st
from tests.engine.granada.core_helpers import (
    D,
    act,
    at_movement,
    buy,
    choices,
    clear_board,
    has,
    land_blocks,
    new_game,
    put,
    special_block,
    top,
    types,
)

BOABDIL = special_block("boabdil")
GREY = sorted(b for b, blk in D.blocks.items() if blk.colour == "grey")


# ---------------------------------------------------------------- 10.10

@pytest.mark.rule("10.10")
def test_each_card_sacrificed_brings_one_guard_block_to_granada():
    s = clear_board(new_game())
    s = at_movement(s, "muslim")
    s = act(s, "muslim", type="buy", level="none")        # even without movement
    guard = special.palace_box(s)[0]
    hand = len(s["hands"]["muslim"])
    s = act(s, "muslim", type="palace_guard", block=guard)
    s = act(s, "muslim", type="pay", card=sorted(s["hands"]["muslim"])[0])
    assert len(s["hands"]["muslim"]) == hand - 1
    assert s["blocks"][guard]["loc"] == "granada" and s["blocks"][guard]["fresh"]
    assert len(special.palace_box(s)) == 1                # nothing ever goes back


@pytest.mark.rule("10.10")
def test_guard_arriving_cannot_move_that_turn():
    s = clear_board(new_game())
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", "total")
    guard = special.palace_box(s)[0]
    s = act(s, "muslim", type="palace_guard", block=guard)
    s = act(s, "muslim", type="pay", card=sorted(s["hands"]["muslim"])[0])
    assert not has(s, "muslim", type="activate", loc="granada")


@pytest.mark.rule("10.10")
def test_whole_guard_appears_when_christians_attack_granada():
    s = clear_board(new_game())
    special.palace_guard_join(s, "loja", "christian")
    assert len(special.palace_box(s)) == 2
    special.palace_guard_join(s, "granada", "muslim")
    assert len(special.palace_box(s)) == 2
    special.palace_guard_join(s, "granada", "christian")
    assert special.palace_box(s) == []
    assert all(s["blocks"][b]["loc"] == "granada" for b in D.setup.palace_guard)


# ---------------------------------------------------------------- 10.12.1

def captured_in(year: int, turn: int, seed: int = 1):
    s = clear_board(new_game(seed))
    s["year"], s["turn"] = year, turn
    put(s, "loja", BOABDIL)
    special.capture_boabdil(s)
    return s


@pytest.mark.rule("10.12.1")
def test_capture_timing_example_turn_two_of_1485():
    s = captured_in(2, 2)           # turn II of 1485
    assert st.TURNS[s["boabdil"]["allied_until"]] == (4, 2)      # turn II of 1487-1488
    assert s["blocks"][BOABDIL]["loc"] == "captured"
    run(s)
    assert top(s)["kind"] == "grey_place" and g.active(s) == ["christian"]
    s = act(s, "christian", type="place_grey", loc="guadix")
    assert all(s["blocks"][b]["loc"] == "guadix" for b in GREY)
    # the Christians still have the grey force during 1487-1488 II...
    for y, t in ((3, 1), (3, 2), (4, 1), (4, 2)):
        s["year"], s["turn"] = y, t
        assert special.grey_in_play(s)
        if (y, t) != (4, 2):
            special.end_of_turn(s)
    # ...and Boabdil becomes black at the END of that turn
    special.end_of_turn(s)
    assert not special.grey_in_play(s)
    assert all(s["blocks"][b]["loc"] == "boabdil_box" for b in GREY)
    run(s)
    assert g.active(s) == ["muslim"] and top(s)["kind"] == "boabdil_return"
    s = act(s, "muslim", type="place_boabdil", loc="baza")
    assert s["blocks"][BOABDIL]["loc"] == "baza" and BOABDIL in s["known"]["christian"]


@pytest.mark.rule("10.12.1")
def test_grey_army_placed_only_in_a_b_town_without_enemies():
    s = captured_in(2, 2)
    put(s, "guadix", land_blocks("muslim", 1)[0])
    run(s)
    assert {a["loc"] for a in choices(s, "christian")} == {"finana", "gergal", "albox"}


@pytest.mark.rule("10.12.1")
def test_all_b_towns_occupied_waits_for_a_christian_movement_phase():
    s = clear_board(new_game())
    s["year"], s["turn"] = 2, 2
    for town, b in zip(("guadix", "finana", "gergal", "albox"), land_blocks("muslim", 4)):
        put(s, town, b)
    put(s, "loja", BOABDIL)
    special.capture_boabdil(s)
    run(s)
    assert s["boabdil"]["pending"] == "wait"
    assert all(s["blocks"][b]["loc"] == "aside" for b in GREY)
    s["blocks"][land_blocks("muslim", 4)[1]]["loc"] = "bag:muslim"      # Fiñana freed
    s = at_movement(s, "muslim")
    run(s)
    assert top(s)["kind"] == "movement"          # not at the Muslim's phase
    s = at_movement(s, "christian")
    run(s)
    assert top(s)["kind"] == "grey_place"
    assert {a["loc"] for a in choices(s, "christian")} == {"finana"}


@pytest.mark.rule("10.12.1")
def test_second_capture_four_blocks_for_two_turns_third_removes_boabdil():
    s = captured_in(1, 1)
    special.return_to_muslims(s, "test")
    s["blocks"][BOABDIL]["loc"] = "loja"
    s["boabdil"]["pending"] = None
    s["year"], s["turn"] = 3, 1
    special.capture_boabdil(s)
    grey = s["boabdil"]["grey"]
    assert len(grey) == 4
    assert all(D.blocks[b].leader or D.blocks[b].faction == "banu_sarray" for b in grey)
    assert s["boabdil"]["allied_until"] == st.TURNS.index((3, 1)) + 2
    special.return_to_muslims(s, "test")
    s["blocks"][BOABDIL]["loc"] = "loja"
    s["boabdil"]["pending"] = None
    special.capture_boabdil(s)
    assert s["blocks"][BOABDIL]["loc"] == "removed" and s["boabdil"]["pending"] is None


@pytest.mark.rule("10.12.1")
def test_automatic_return_at_the_beginning_of_1491_1492():
    s = captured_in(5, 2)
    run(s)
    s = act(s, "christian", type="place_grey", loc="albox")
    s["year"] = 6
    special.start_of_year(s)
    assert not special.grey_in_play(s) and s["boabdil"]["pending"] == "return"


@pytest.mark.rule("10.12.1")
def test_grey_boabdil_losing_to_the_muslims_ends_the_alliance_at_once():
    s = captured_in(2, 2)
    run(s)
    s = act(s, "christian", type="place_grey", loc="albox")
    s["blocks"][GREY[1]]["loc"] = "eliminated"
    special.grey_defeated(s)
    assert all(s["blocks"][b]["loc"] == "boabdil_box" for b in GREY)   # eliminated ones too


# ---------------------------------------------------------------- 10.12.2

def grey_on_map(loc="guadix"):
    s = captured_in(2, 2)
    run(s)
    s = act(s, "christian", type="place_grey", loc=loc)
    for b in GREY:
        s["blocks"][b]["fresh"] = False
        s["blocks"][b]["moved"] = False
    return s


@pytest.mark.rule("10.12.2")
def test_grey_blocks_move_together_and_never_with_white_blocks():
    s = grey_on_map()
    white = land_blocks("christian", 1)[0]
    put(s, "guadix", white)
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="guadix")
    s = act(s, "christian", type="take_grey")
    assert sorted(top(s)["mstack"]["blocks"]) == GREY
    assert not has(s, "christian", type="take", block=white)


@pytest.mark.rule("10.12.2", "4.1")
def test_grey_blocks_remove_muslim_control_without_placing_christian_control():
    s = grey_on_map()
    assert s["control"]["guadix"] is None and s["castle"]["guadix"] is None
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="guadix")
    s = act(s, "christian", type="take_grey")
    s = act(s, "christian", type="step", to="finana")
    assert s["control"]["finana"] is None
    # the army leaves: pieces left without a tower take the troops' or natural alignment
    special.return_to_muslims(s, "test")
    assert s["control"]["finana"] == "muslim" and s["castle"]["guadix"] == "muslim"


@pytest.mark.rule("10.12.2")
def test_grey_army_uses_red_black_roads_as_main_roads():
    s = grey_on_map("guadix")
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="guadix")
    s = act(s, "christian", type="take_grey")
    s = act(s, "christian", type="step", to="almeria")          # hybrid road
    assert top(s)["mstack"]["blocks"][GREY[0]]["main"]
    assert "take_grey" not in types(s, "christian")
