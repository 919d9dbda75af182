"""Victory conditions (2.1, 2.2)."""

from __future__ import annotations

import pytest

from engine.granada import victory
from tests.engine.granada.core_helpers import D, clear_board, land_blocks, new_game, put, special_block


@pytest.mark.rule("2.1")
def test_alhambra_falling_to_christian_blocks_wins_at_once():
    s = clear_board(new_game())
    put(s, "granada", land_blocks("christian", 1)[0])
    victory.check_instant(s)
    assert s["result"] is None                 # a block there is not yet the castle falling
    s["castle"]["granada"] = "christian"
    victory.check_instant(s)
    assert s["result"]["winner"] == "christian" and "2.1" in s["result"]["reason"]
    assert s["stack"] == []


@pytest.mark.rule("2.1", "10.12.2")
def test_grey_blocks_do_not_take_the_alhambra():
    from engine.granada import state as st

    s = clear_board(new_game())
    grey = [b for b, blk in D.blocks.items() if blk.colour == "grey"]
    put(s, "granada", *grey)
    st.settle_location(s, "granada")
    victory.check_instant(s)
    assert s["result"] is None and s["castle"]["granada"] is None


@pytest.mark.rule("2.1")
def test_muslims_win_when_ferdinand_and_isabella_are_both_eliminated():
    s = clear_board(new_game())
    s["blocks"][special_block("ferdinand")]["loc"] = "eliminated"
    victory.check_instant(s)
    assert s["result"] is None
    s["blocks"][special_block("isabella")]["loc"] = "eliminated"
    victory.check_instant(s)
    assert s["result"]["winner"] == "muslim"


def blank_map(s):
    for loc in s["control"]:
        s["control"][loc] = None
    for loc in s["castle"]:
        s["castle"][loc] = None


@pytest.mark.rule("2.2")
def test_points_per_castle_watchtower_and_resource():
    s = clear_board(new_game())
    blank_map(s)
    s["castle"]["sevilla"] = "christian"       # castle 2
    s["control"]["sevilla"] = "christian"      # resource 1
    s["control"]["olvera"] = "christian"       # watchtower 0.5
    s["castle"]["loja"] = "muslim"             # castle 3
    s["control"]["loja"] = "muslim"            # resource 1.5 (connected to Granada)
    s["control"]["montefrio"] = "muslim"       # watchtower 1
    assert victory.score(s) == {"christian": 3.5, "muslim": 5.5}


@pytest.mark.rule("2.2")
def test_muslim_resources_need_a_line_of_communication_avoiding_christian_locations():
    s = clear_board(new_game())
    blank_map(s)
    s["control"]["baza"] = "muslim"
    assert victory.score(s)["muslim"] == 1.5     # Granada-Guadix-Baza, none Christian
    s["control"]["guadix"] = "christian"
    # Baza's other roads go to Huéscar, Vélez Blanco and Purchena: cut them too
    for loc in ("huescar", "velez_blanco", "purchena"):
        s["control"][loc] = "christian"
    assert victory.score(s)["muslim"] == 0.0
    s["control"]["granada"] = "christian"
    assert victory.connected_to_granada(s) == set()


@pytest.mark.rule("2.2")
def test_muslims_win_ties():
    s = clear_board(new_game())
    blank_map(s)
    s["castle"]["sevilla"] = "christian"
    s["control"]["sevilla"] = "christian"       # 3
    s["castle"]["loja"] = "muslim"              # 3
    victory.final_score(s)
    assert s["result"]["winner"] == "muslim" and s["result"]["score"] == {"christian": 3.0, "muslim": 3.0}


@pytest.mark.rule("2.1", "4.3")
def test_white_blocks_entering_an_empty_granada_take_the_alhambra_and_win_at_once():
    import engine.granada as g
    from tests.engine.granada.core_helpers import act, at_movement, buy

    s = clear_board(new_game())
    a = land_blocks("christian", 1)[0]
    put(s, "loja", a)
    s["control"]["loja"] = s["castle"]["loja"] = "christian"
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="loja")
    s = act(s, "christian", type="take", block=a)
    assert g.result(s) is None
    s = act(s, "christian", type="step", to="granada")
    assert g.result(s)["winner"] == "christian" and g.active(s) == []
