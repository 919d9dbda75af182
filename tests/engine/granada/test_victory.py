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
    for guard in D.setup.palace_guard:         # an empty box: nothing else defends Granada
        s["blocks"][guard]["loc"] = "eliminated"
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


def walk_into_granada(guard_left: int):
    """White blocks at Loja, Christian Movement Phase; Granada itself empty and
    ``guard_left`` blocks still in the Nasrid Palace Guard box (the others eliminated)."""
    from tests.engine.granada.core_helpers import at_movement, buy

    s = clear_board(new_game())
    for guard in D.setup.palace_guard[guard_left:]:
        s["blocks"][guard]["loc"] = "eliminated"
    whites = land_blocks("christian", 5)
    put(s, "loja", *whites)
    s["control"]["loja"] = s["castle"]["loja"] = "christian"
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    return s, whites


@pytest.mark.rule("2.1", "4.3", "10.10")
def test_white_blocks_entering_an_empty_granada_with_an_empty_guard_box_win_at_once():
    import engine.granada as g
    from tests.engine.granada.core_helpers import act

    s, whites = walk_into_granada(0)
    s = act(s, "christian", type="activate", loc="loja")
    s = act(s, "christian", type="take", block=whites[0])
    assert g.result(s) is None
    s = act(s, "christian", type="step", to="granada")
    assert g.result(s)["winner"] == "christian" and g.active(s) == []
    assert s["castle"]["granada"] == "christian"


@pytest.mark.rule("2.1", "10.10", "8.7.3")
@pytest.mark.parametrize("guard_left, play", [(2, 0), (2, 1), (1, 0), (1, 1)])
def test_christians_reaching_granada_while_the_guard_box_holds_blocks_fight_the_guard(guard_left, play):
    """10.10: "If Granada is attacked by Christian forces, at the moment combat is declared,
    all blocks in the Nasrid Palace Guard box appear in Granada location and join the
    battle" (FR: "Si Grenade est attaquée par des forces chrétiennes, au moment où le combat
    est déclaré, tous les blocs de la case de la garde du palais nasride apparaissent à
    Grenade"): the Alhambra does not fall (2.1, "tombe") to a walk into an empty city."""
    import engine.granada as g
    from engine.granada import sequence
    from engine.granada import state as st
    from tests.engine.granada.core_helpers import act, top

    s, whites = walk_into_granada(guard_left)
    box = [b for b in D.setup.palace_guard[:guard_left]]
    s = act(s, "christian", type="activate", loc="loja")
    for b in whites:
        s = act(s, "christian", type="take", block=b)
    s = act(s, "christian", type="step", to="granada")
    # the stack stops at Granada (as before enemy units) and takes no control piece
    assert top(s)["mstack"] is None
    assert all(s["blocks"][b]["loc"] == "granada" for b in whites)
    assert g.result(s) is None
    assert s["castle"]["granada"] == "muslim" and s["control"]["granada"] == "muslim"
    assert all(s["blocks"][b]["loc"] == "palace" for b in box)
    assert sequence.pending_battles(s, "christian") == ["granada"]
    assert sequence.pending_battles(s, "muslim") == []
    assert {"loc": "granada", "siege": False} in g.view(s, None)["contested"]
    # the Combat Phase: the battle is declared, the whole guard appears and defends
    s = act(s, "christian", type="end_movement")
    assert g.result(s) is None
    assert all(s["blocks"][b]["loc"] == "granada" for b in box)
    assert not any(rec["loc"] == "palace" for rec in s["blocks"].values())
    assert any(f["module"] == "battle" and f["loc"] == "granada" for f in s["stack"])
    assert g.active(s) == ["muslim"]            # 8.7.3: the Muslim places his defenders first
    # fought to its end by the built-in players, the battle alone decides the Alhambra
    for k in range(500):
        if g.result(s) is not None or not any(f["module"] in ("battle", "siege") for f in s["stack"]):
            break
        role = g.active(s)[0]
        s = g.apply(s, role, g.choose(s, role, 100 * play + k))
    muslims_left = st.units_at(s, "granada", "muslim")
    if muslims_left:
        assert g.result(s) is None and s["castle"]["granada"] == "muslim"
    elif st.blocks_at(s, "granada", "christian"):
        assert g.result(s)["winner"] == "christian"
    else:
        assert g.result(s) is None
