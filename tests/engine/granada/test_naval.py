"""Naval movement (7.5.1), carrying (7.5.2), Naval deck draws (7.5.3), disembarking into
combat (7.5.4), blockades (7.5.5)."""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.granada import naval, sequence
from tests.engine.granada.core_helpers import (
    D,
    act,
    at_movement,
    buy,
    clear_board,
    fleets,
    has,
    land_blocks,
    new_game,
    put,
    special_block,
    top,
    types,
)

QUIET = sorted(c for c, card in D.cards.items() if card.kind == "quiet_crossing")
BATTLE = sorted(c for c, card in D.cards.items() if card.kind == "naval_battle")


def christian_fleets(n=2, zone="gulf_of_cadiz", level="total"):
    s = clear_board(new_game())
    fl = fleets("christian", n)
    for f in fl:
        put(s, f"sea:{zone}", f)
    return s, fl


def go(s, side="christian", level="total"):
    s = at_movement(s, side)
    return buy(s, side, level)


def zones_possible(s, role="christian"):
    return {a["zone"] for a in g.actions(s, role) if a["type"] == "sail_to"}


@pytest.mark.rule("7.5.1")
def test_one_stack_of_at_most_two_fleets_moves_up_to_three_zones():
    s, fl = christian_fleets(3)
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="take_fleet", fleet=fl[1])
    assert "take_fleet" not in types(s, "christian")          # no third fleet
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="sail")
    for z in ("strait_of_gibraltar", "bay_of_marbella", "bay_of_malaga"):
        s = act(s, "christian", type="sail_to", zone=z)
    assert zones_possible(s) == set()
    s = act(s, "christian", type="stop")
    s = act(s, "christian", type="stay_at_sea")
    assert [s["blocks"][f]["loc"] for f in fl] == ["sea:bay_of_malaga"] * 2 + ["sea:gulf_of_cadiz"]
    # the sea zone was activated once; the third fleet cannot move from it any more
    assert not has(s, "christian", type="activate_sea", zone="gulf_of_cadiz")


@pytest.mark.rule("7.5.1", "7.1")
def test_limited_movement_activates_one_sea_zone_only():
    s, fl = christian_fleets(1)
    put(s, "sea:cartagena_coast", fleets("christian", 2)[1])
    s = go(s, level="limited")
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="cancel")
    assert "activate_sea" not in types(s, "christian")


@pytest.mark.rule("7.5.2")
def test_carrying_two_blocks_per_fleet_and_landing_in_another_port():
    s, fl = christian_fleets(1)
    ids = land_blocks("christian", 3)
    put(s, "sevilla", *ids)
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="embark", block=ids[0])
    s = act(s, "christian", type="embark", block=ids[1])
    assert "embark" not in types(s, "christian")               # 2 per fleet
    s = act(s, "christian", type="sail")
    s = act(s, "christian", type="stop")
    assert "disembark" not in types(s, "christian")            # not back in the same port
    s = act(s, "christian", type="stay_at_sea")
    assert s["blocks"][ids[0]]["carried_by"] == fl[0]
    assert s["blocks"][ids[0]]["loc"] == "sea:gulf_of_cadiz"


@pytest.mark.rule("7.5.2")
def test_disembarked_blocks_may_not_use_land_movement_that_turn():
    s, fl = christian_fleets(1)
    ids = land_blocks("christian", 2)
    put(s, "sevilla", *ids)
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="embark", block=ids[0])
    s = act(s, "christian", type="sail")
    s = act(s, "christian", type="sail_to", zone="strait_of_gibraltar")
    s = act(s, "christian", type="stop")
    s = act(s, "christian", type="disembark")
    assert s["blocks"][ids[0]]["loc"] == "gibraltar" and s["blocks"][ids[0]]["carried_by"] is None
    assert not has(s, "christian", type="activate", loc="gibraltar")


@pytest.mark.rule("7.5.2", "3.2")
def test_boabdil_never_embarks():
    s = clear_board(new_game())
    f = fleets("muslim", 1)[0]
    put(s, "sea:bay_of_malaga", f)
    boabdil = special_block("boabdil")
    other = land_blocks("muslim", 1)[0]
    put(s, "malaga", boabdil, other)
    s = go(s, side="muslim")
    s = act(s, "muslim", type="activate_sea", zone="bay_of_malaga")
    s = act(s, "muslim", type="take_fleet", fleet=f)
    s = act(s, "muslim", type="confirm")
    assert has(s, "muslim", type="embark", block=other)
    assert not has(s, "muslim", type="embark", block=boabdil)


@pytest.mark.rule("7.5.3")
def test_entering_enemy_fleets_draws_one_card_per_moving_fleet_quiet_crossing_goes_on():
    s, fl = christian_fleets(2)
    put(s, "sea:strait_of_gibraltar", fleets("muslim", 1)[0])
    s["decks"]["naval"] = [c for c in s["decks"]["naval"] if c not in QUIET[:2]] + QUIET[:2]
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="take_fleet", fleet=fl[1])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="sail")
    naval_before = len(s["decks"]["naval"])
    s = act(s, "christian", type="sail_to", zone="strait_of_gibraltar")
    assert len(s["decks"]["naval"]) == naval_before - 2
    assert s["discards"]["naval"][-2:] == [QUIET[1], QUIET[0]]
    assert "bay_of_marbella" in zones_possible(s)               # may continue


@pytest.mark.rule("7.5.3", "9.1")
def test_a_naval_battle_card_stops_the_draws_and_starts_a_naval_battle():
    s, fl = christian_fleets(2)
    put(s, "sea:strait_of_gibraltar", fleets("muslim", 1)[0])
    s["decks"]["naval"] = [c for c in s["decks"]["naval"] if c != BATTLE[0]] + [BATTLE[0]]
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="take_fleet", fleet=fl[1])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="sail")
    naval_before = len(s["decks"]["naval"])
    s = act(s, "christian", type="sail_to", zone="strait_of_gibraltar")
    assert len(s["decks"]["naval"]) == naval_before - 1       # stopped at the battle card
    assert top(s)["module"] == "seabattle"
    assert s["stack"][-2]["kind"] == "sea_move"


@pytest.mark.rule("7.5.3")
def test_fleets_starting_beside_enemy_fleets_draw_when_designated():
    s, fl = christian_fleets(1)
    put(s, "sea:gulf_of_cadiz", fleets("muslim", 1)[0])
    s["decks"]["naval"] = [c for c in s["decks"]["naval"] if c != QUIET[0]] + [QUIET[0]]
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    n = len(s["decks"]["naval"])
    s = act(s, "christian", type="confirm")       # also how a player triggers a battle in place
    assert len(s["decks"]["naval"]) == n - 1


@pytest.mark.rule("7.5.3", "7.4")
def test_no_overrun_at_sea():
    s, fl = christian_fleets(2)
    mf = fleets("muslim", 1)[0]
    put(s, "sea:strait_of_gibraltar", mf)
    s["decks"]["naval"] = [c for c in s["decks"]["naval"] if c not in QUIET[:2]] + QUIET[:2]
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="take_fleet", fleet=fl[1])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="sail")
    s = act(s, "christian", type="sail_to", zone="strait_of_gibraltar")
    assert s["blocks"][mf]["loc"] == "sea:strait_of_gibraltar"


@pytest.mark.rule("7.5.4", "4.5")
def test_disembarking_into_an_enemy_occupied_port_starts_a_battle_there():
    s, fl = christian_fleets(1, zone="strait_of_gibraltar")
    ids = land_blocks("christian", 2)
    put(s, "gibraltar", *ids)
    foe = land_blocks("muslim", 1)[0]
    put(s, "marbella", foe)
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="strait_of_gibraltar")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="embark", block=ids[0])
    s = act(s, "christian", type="embark", block=ids[1])
    s = act(s, "christian", type="sail")
    s = act(s, "christian", type="sail_to", zone="bay_of_marbella")
    s = act(s, "christian", type="stop")
    s = act(s, "christian", type="disembark")
    assert "marbella" in sequence.pending_battles(s, "christian")
    assert "sea:bay_of_marbella" in s["entries"]["marbella"]["christian"]   # came by sea


@pytest.mark.rule("7.5.4")
def test_landing_beside_a_besieged_friendly_castle_joins_it_up_to_two():
    s = clear_board(new_game())
    f = fleets("muslim", 1)[0]
    put(s, "sea:almunecar_coast", f)
    carried = land_blocks("muslim", 1)[0]
    put(s, "sea:almunecar_coast", carried)
    s["blocks"][carried]["carried_by"] = f
    inside = land_blocks("muslim", 1, exclude=(carried,))[0]
    put(s, "almunecar", inside, inside=True)
    put(s, "almunecar", *land_blocks("christian", 1))
    s = go(s, side="muslim")
    s = act(s, "muslim", type="activate_sea", zone="almunecar_coast")
    s = act(s, "muslim", type="take_fleet", fleet=f)
    s = act(s, "muslim", type="confirm")
    s = act(s, "muslim", type="sail")
    s = act(s, "muslim", type="stop")
    s = act(s, "muslim", type="disembark")
    assert s["blocks"][carried]["inside"] and s["blocks"][inside]["inside"]


@pytest.mark.rule("7.5.5")
def test_naval_blockade_needs_enemy_fleets_in_the_port_zone():
    s = clear_board(new_game())
    assert not naval.blockaded(s, "malaga", "muslim")
    put(s, "sea:bay_of_malaga", fleets("muslim", 1)[0])
    assert not naval.blockaded(s, "malaga", "muslim")          # friendly fleets do not count
    put(s, "sea:bay_of_malaga", fleets("christian", 1)[0])
    assert naval.blockaded(s, "malaga", "muslim")              # nor do they lift it
    assert not naval.blockaded(s, "granada", "muslim")         # no port


@pytest.mark.rule("7.5.2")
def test_all_carried_units_embark_together_a_loaded_stack_takes_no_more():
    s, fl = christian_fleets(1)
    aboard = land_blocks("christian", 1)[0]
    put(s, "sea:gulf_of_cadiz", aboard)
    s["blocks"][aboard]["carried_by"] = fl[0]
    put(s, "sevilla", *land_blocks("christian", 1, exclude=(aboard,)))
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    assert "embark" not in types(s, "christian")     # room for one more, but not together
    s = act(s, "christian", type="sail")
    s = act(s, "christian", type="stop")
    assert "disembark" in types(s, "christian")      # troops from an earlier turn may land


@pytest.mark.rule("7.5.2", "4.3")
def test_embarking_the_last_blocks_of_a_castle_location_reverts_the_castle():
    s, fl = christian_fleets(1, zone="gulf_of_almeria")
    ids = land_blocks("christian", 2)
    put(s, "almeria", *ids)
    s["castle"]["almeria"] = s["control"]["almeria"] = "christian"
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_almeria")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="embark", block=ids[0])
    assert s["castle"]["almeria"] == "christian"
    s = act(s, "christian", type="embark", block=ids[1])
    assert s["castle"]["almeria"] == "muslim"        # no block left: natural alignment


@pytest.mark.rule("7.5.3")
def test_one_naval_card_per_moving_fleet_friendly_fleets_present_do_not_count():
    s, fl = christian_fleets(1)
    put(s, "sea:strait_of_gibraltar", fleets("christian", 2)[1], fleets("muslim", 1)[0])
    s["decks"]["naval"] = [c for c in s["decks"]["naval"] if c not in QUIET[:2]] + QUIET[:2]
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="sail")
    n = len(s["decks"]["naval"])
    s = act(s, "christian", type="sail_to", zone="strait_of_gibraltar")
    assert len(s["decks"]["naval"]) == n - 1


@pytest.mark.rule("7.5.3", "9.1")
def test_friendly_fleets_already_in_a_naval_battle_zone_may_not_move_afterwards():
    from engine.granada import run
    from engine.granada import state as st

    s, fl = christian_fleets(1)
    present = fleets("christian", 2)[1]
    put(s, "sea:strait_of_gibraltar", present, fleets("muslim", 1)[0])
    s["decks"]["naval"] = [c for c in s["decks"]["naval"] if c != BATTLE[0]] + [BATTLE[0]]
    s = go(s)
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="take_fleet", fleet=fl[0])
    s = act(s, "christian", type="confirm")
    s = act(s, "christian", type="sail")
    s = act(s, "christian", type="sail_to", zone="strait_of_gibraltar")
    assert top(s)["module"] == "seabattle"
    # the naval battle ends (seabattle.py's protocol, state.py): the moving fleet survived
    st.finish_frame(s, {"kind": "naval_battle", "zone": "strait_of_gibraltar",
                        "survivors": [fl[0]], "evaded": {}})
    run(s)
    assert top(s)["kind"] == "sea_move" and s["blocks"][present]["moved"]
    s = act(s, "christian", type="stop")
    s = act(s, "christian", type="stay_at_sea")
    assert not has(s, "christian", type="activate_sea", zone="strait_of_gibraltar")
