"""Movement Phase: buying movement (7.1), land movement (7.3), leadership, force sizes."""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.api import RuleError
from engine.granada import movement
from tests.engine.granada.core_helpers import (
    act,
    at_movement,
    buy,
    choices,
    clear_board,
    has,
    land_blocks,
    locs_of,
    new_game,
    put,
    special_block,
    top,
    types,
)


def christian_at(loc_blocks: dict[str, list[str]], level: str = "total", seed: int = 1):
    s = clear_board(new_game(seed))
    for loc, ids in loc_blocks.items():
        put(s, loc, *ids)
    s = at_movement(s, "christian")
    return buy(s, "christian", level)


def steps_possible(s, role="christian") -> set[str]:
    return {a["to"] for a in g.actions(s, role) if a["type"] == "step"}


# ---------------------------------------------------------------- 7.1 buying movement

@pytest.mark.rule("7.1")
def test_buying_levels_cost_zero_one_two_cards():
    s = clear_board(new_game())
    put(s, "sevilla", *land_blocks("christian", 2))
    s = at_movement(s, "christian")
    hand = len(s["hands"]["christian"])
    levels = {a["level"] for a in choices(s, "christian")}
    assert levels == {"none", "minimal", "limited", "total"}
    for level, cost in (("minimal", 0), ("limited", 1), ("total", 2)):
        t = buy(s, "christian", level)
        assert len(t["hands"]["christian"]) == hand - cost
        assert len(t["discards"]["christian"]) == len(s["discards"]["christian"]) + cost


@pytest.mark.rule("7.1")
def test_minimal_movement_is_one_activation_or_mustering():
    blocks = land_blocks("christian", 2)
    s = clear_board(new_game())
    put(s, "sevilla", blocks[0])
    put(s, "cordoba", blocks[1])
    s = at_movement(s, "christian")
    s["blocks"][land_blocks("christian", 3)[2]]["loc"] = "recruit:christian"
    s = buy(s, "christian", "minimal")
    assert {"activate", "muster"} <= types(s, "christian")
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=blocks[0])
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="end_move")
    # the single activation is spent: neither another location nor mustering
    assert types(s, "christian") == {"end_movement"}


@pytest.mark.rule("7.1")
def test_limited_movement_three_activations_one_sea_zone_and_muster_instead_of_one():
    s = clear_board(new_game())
    ids = land_blocks("christian", 4)
    for loc, b in zip(("sevilla", "cordoba", "jaen", "murcia"), ids):
        put(s, loc, b)
    s = at_movement(s, "christian")
    s["blocks"][land_blocks("christian", 5)[4]]["loc"] = "recruit:christian"
    s = buy(s, "christian", "limited")
    assert top(s)["acts"] == 3 and top(s)["sea"] == 1
    s = act(s, "christian", type="muster")          # in lieu of one activation
    s = act(s, "christian", type="done")
    assert top(s)["acts"] == 2 and top(s)["muster"] == 0
    for loc in ("sevilla", "cordoba"):
        s = act(s, "christian", type="activate", loc=loc)
        s = act(s, "christian", type="done_location")
    assert "activate" not in types(s, "christian")


@pytest.mark.rule("7.1")
def test_total_movement_activates_every_location_and_still_musters():
    s = clear_board(new_game())
    ids = land_blocks("christian", 5)
    for loc, b in zip(("sevilla", "cordoba", "jaen", "murcia"), ids):
        put(s, loc, b)
    s = at_movement(s, "christian")
    s["blocks"][ids[4]]["loc"] = "recruit:christian"
    s = buy(s, "christian", "total")
    for loc in ("sevilla", "cordoba", "jaen", "murcia"):
        s = act(s, "christian", type="activate", loc=loc)
        s = act(s, "christian", type="done_location")
    assert "muster" in types(s, "christian")


@pytest.mark.rule("7.1")
def test_no_movement_exchanges_cards_one_for_one():
    s = clear_board(new_game())
    put(s, "sevilla", *land_blocks("christian", 1))
    s = at_movement(s, "christian")
    s = act(s, "christian", type="buy", level="none")
    assert "activate" not in types(s, "christian")
    hand = sorted(s["hands"]["christian"])
    s = act(s, "christian", type="exchange", card=hand[0])
    s = act(s, "christian", type="exchange", card=hand[1])
    assert len(s["hands"]["christian"]) == len(hand) - 2
    s = act(s, "christian", type="end_movement")
    assert len(s["hands"]["christian"]) == len(hand)
    assert hand[0] not in s["hands"]["christian"] and hand[1] not in s["hands"]["christian"]


# ---------------------------------------------------------------- 7.3.1 general rules

@pytest.mark.rule("7.3.1")
def test_no_block_moves_twice_and_origins_are_finished_one_at_a_time():
    a, b = land_blocks("christian", 2)
    s = christian_at({"sevilla": [a, b]})
    s = act(s, "christian", type="activate", loc="sevilla")
    assert "activate" not in types(s, "christian")       # finish Sevilla first
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="ecija")
    assert not has(s, "christian", type="take", block=b)  # this stack must finish first
    s = act(s, "christian", type="end_move")
    s = act(s, "christian", type="done_location")
    # Écija now holds a block that moved: activating Écija is not offered
    assert not has(s, "christian", type="activate", loc="ecija")
    assert s["blocks"][a]["moved"]


@pytest.mark.rule("7.3.1")
def test_one_pick_up_and_one_drop_off_per_stack():
    a, b, c, e = land_blocks("christian", 4)
    s = christian_at({"sevilla": [a, b], "ecija": [c], "cordoba": [e]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="take", block=b)
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="pick_up", block=c)        # pick up at Écija
    s = act(s, "christian", type="drop_off", block=a)       # and drop off there too
    s = act(s, "christian", type="step", to="cordoba")
    assert not has(s, "christian", type="pick_up", block=e)  # a second pick-up is refused
    assert "drop_off" not in types(s, "christian")          # and a second drop-off
    assert locs_of(s, a, b, c) == ["ecija", "cordoba", "cordoba"]


@pytest.mark.rule("7.3.1")
def test_road_segment_used_once_per_initial_location():
    a, b, c = land_blocks("christian", 3)
    s = christian_at({"sevilla": [a, b], "jerez": [c]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="end_move")
    s = act(s, "christian", type="take", block=b)
    assert "ecija" not in steps_possible(s)          # Sevilla-Écija already used from Sevilla
    s = act(s, "christian", type="end_move")         # b is put back without moving
    assert not s["blocks"][b]["moved"]
    s = act(s, "christian", type="done_location")
    s = act(s, "christian", type="activate", loc="jerez")
    s = act(s, "christian", type="take", block=c)
    s = act(s, "christian", type="step", to="sevilla")
    assert "ecija" in steps_possible(s)              # another initial location may use it


# ---------------------------------------------------------------- 7.3.2 enemies

@pytest.mark.rule("7.3.2")
def test_moving_blocks_stop_on_enemy_units():
    a, b = land_blocks("christian", 2)
    m = land_blocks("muslim", 1)
    s = christian_at({"antequera": [a, b]})
    put(s, "archidona", *m)
    s = act(s, "christian", type="activate", loc="antequera")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="step", to="archidona")
    assert top(s)["mstack"] is None                      # the stack had to stop
    assert locs_of(s, a, b) == ["archidona", "archidona"]
    assert "archidona" in s["entries"] and "antequera" in s["entries"]["archidona"]["christian"]


@pytest.mark.rule("7.3.2")
def test_stop_where_all_enemies_are_inside_a_castle_even_with_friends_there():
    a, b, c = land_blocks("christian", 3)
    m = land_blocks("muslim", 1)
    s = christian_at({"archidona": [a], "loja": [b, c]})
    put(s, "loja", *m, inside=True)
    s["castle"]["loja"] = "muslim"
    s = act(s, "christian", type="activate", loc="archidona")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="loja")
    assert top(s)["mstack"] is None


@pytest.mark.rule("7.3.2", "8.7.7", "8.7.4")
def test_besiegers_leave_freely_besieged_stay_and_a_disk_stops_movement():
    a, b = land_blocks("christian", 2)
    m = land_blocks("muslim", 1)
    s = christian_at({"loja": [a], "antequera": [b]})
    put(s, "loja", *m, inside=True)
    s["castle"]["loja"] = "muslim"
    s = act(s, "christian", type="activate", loc="loja")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="archidona")     # the besieger leaves
    s = act(s, "christian", type="end_move")
    assert top(s)["origin"] is None                         # nothing left to move from Loja
    # El Zegri alone in Málaga is a unit inside the castle: Christians entering must stop
    s = act(s, "christian", type="activate", loc="antequera")
    s = act(s, "christian", type="take", block=b)
    s = act(s, "christian", type="step", to="malaga")
    assert top(s)["mstack"] is None and s["blocks"][b]["loc"] == "malaga"
    assert s["castle"]["malaga"] == "muslim"


@pytest.mark.rule("7.1", "7.3.2")
def test_besieged_blocks_may_only_come_out_to_fight():
    m1, m2 = land_blocks("muslim", 2)
    c = land_blocks("christian", 1)
    s = clear_board(new_game())
    put(s, "loja", m1, m2, inside=True)
    put(s, "loja", *c)
    s["castle"]["loja"] = "muslim"
    s["control"]["loja"] = "christian"
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", "total")
    s = act(s, "muslim", type="activate", loc="loja")
    assert "take" not in types(s, "muslim")
    s = act(s, "muslim", type="leave_castle")
    assert not s["blocks"][m1]["inside"] and not s["blocks"][m2]["inside"]
    from engine.granada import sequence

    assert "loja" in sequence.pending_battles(s, "muslim")


# ---------------------------------------------------------------- 7.3.3 - 7.3.5 distance

@pytest.mark.rule("7.3.3", "7.3.4")
def test_four_locations_with_main_roads_castle_leadership_and_force_march():
    ids = land_blocks("christian", 5)
    s = christian_at({"sevilla": ids})
    hand = len(s["hands"]["christian"])
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="force_march")
    s = act(s, "christian", type="pay", card=sorted(s["hands"]["christian"])[0])
    assert len(s["hands"]["christian"]) == hand - 1
    for loc in ("ecija", "cordoba", "jaen", "ubeda"):
        s = act(s, "christian", type="step", to=loc)
    assert steps_possible(s) == set()         # four is the most a stack ever moves
    assert locs_of(s, *ids) == ["ubeda"] * 5


@pytest.mark.rule("7.3.3")
def test_without_force_march_three_locations():
    ids = land_blocks("christian", 5)
    s = christian_at({"sevilla": ids})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take_all")
    for loc in ("ecija", "cordoba", "jaen"):
        s = act(s, "christian", type="step", to=loc)
    assert steps_possible(s) == set()


@pytest.mark.rule("7.3.3")
def test_a_secondary_road_loses_the_main_road_bonus():
    a = land_blocks("christian", 1)[0]
    s = christian_at({"sevilla": [a]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="olvera")        # secondary road
    # base 1 + castle leadership 1 = 2: one more location, on any road (even back: no other
    # block of Sevilla used that road, 7.3.1)
    assert steps_possible(s) == {"antequera", "setenil", "zahara", "sevilla"}
    s = act(s, "christian", type="step", to="antequera")
    assert steps_possible(s) == set()


@pytest.mark.rule("4.7", "7.3.3", "10.12.2")
def test_hybrid_roads_are_main_roads_for_muslims_and_the_grey_army_only():
    assert movement.is_main("hybrid", "muslim", False)
    assert movement.is_main("hybrid", "christian", True)
    assert not movement.is_main("hybrid", "christian", False)
    m = land_blocks("muslim", 1)[0]
    s = clear_board(new_game())
    put(s, "alhama", m)
    s["control"]["alhama"] = "muslim"
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", "total")
    s = act(s, "muslim", type="activate", loc="alhama")
    s = act(s, "muslim", type="take", block=m)
    s = act(s, "muslim", type="step", to="granada")          # red-black road: main for him
    assert "guadix" in steps_possible(s, "muslim")


@pytest.mark.rule("7.3.4")
def test_leader_leadership_is_declared_to_the_opponent():
    leader = land_blocks("christian", 1, leaders=True)[0]
    a = land_blocks("christian", 1)[0]
    s = christian_at({"ecija": [leader, a]})
    reveals = s["reveals"]
    s = act(s, "christian", type="activate", loc="ecija")
    s = act(s, "christian", type="take", block=a)          # the leader stays behind
    s = act(s, "christian", type="step", to="cordoba")
    s = act(s, "christian", type="step", to="jaen")
    assert leader not in s["known"]["muslim"]               # no need for the leader yet
    s = act(s, "christian", type="step", to="ubeda")        # 3rd location: leadership used
    assert leader in s["known"]["muslim"] and s["reveals"] > reveals
    assert not s["blocks"][leader]["revealed"]              # stood up again after declaring


@pytest.mark.rule("7.3.4")
def test_castle_leadership_needs_an_aligned_castle_under_control():
    a, b = land_blocks("christian", 2)
    s = christian_at({"loja": [a, b]})
    s["castle"]["loja"] = "christian"          # a Muslim castle the Christians hold
    s = act(s, "christian", type="activate", loc="loja")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="step", to="archidona")
    s = act(s, "christian", type="step", to="antequera")
    assert steps_possible(s) == set()          # 1 + main roads, no leadership
    assert movement.structural_leadership(s, "cordoba", "christian")
    assert movement.structural_leadership(s, "granada", "muslim")
    assert not movement.structural_leadership(s, "granada", "christian")


@pytest.mark.rule("4.6", "7.3.4")
def test_capital_leadership_only_for_own_controlled_capital():
    s = clear_board(new_game())
    s["castle"]["cordoba"] = "muslim"
    assert movement.structural_leadership(s, "cordoba", "christian")   # the capital still leads
    s["control"]["cordoba"] = "muslim"
    assert not movement.structural_leadership(s, "cordoba", "christian")


@pytest.mark.rule("7.3.5")
@pytest.mark.parametrize("n,penalty", [(5, 0), (6, 1), (8, 1), (9, 2), (11, 2), (12, 3)])
def test_force_size_penalties(n, penalty):
    assert movement.size_penalty(n) == penalty


@pytest.mark.rule("7.3.5")
def test_six_blocks_move_one_location_less():
    ids = land_blocks("christian", 6)
    s = christian_at({"sevilla": ids})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take_all")
    for loc in ("ecija", "cordoba"):
        s = act(s, "christian", type="step", to=loc)
    assert steps_possible(s) == set()        # 3 - 1 for the 6th block


@pytest.mark.rule("7.3.5")
def test_penalty_given_by_the_largest_group_a_block_travelled_in():
    ids = land_blocks("christian", 6)
    s = christian_at({"sevilla": ids[:5], "ecija": [ids[5]]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="step", to="ecija")          # 5 blocks: no penalty yet
    s = act(s, "christian", type="pick_up", block=ids[5])     # now 6
    s = act(s, "christian", type="step", to="cordoba")        # 2nd step with 6: allowance 2
    assert steps_possible(s) == set()


@pytest.mark.rule("7.3.1")
def test_illegal_step_is_refused_with_a_rule():
    a = land_blocks("christian", 1)[0]
    s = christian_at({"sevilla": [a]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    with pytest.raises(RuleError):
        act(s, "christian", type="step", to="granada")


@pytest.mark.rule("10.10")
def test_palace_guard_stays_in_or_next_to_granada():
    guard = special_block("palace_guard")
    s = clear_board(new_game())
    put(s, "granada", guard)
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", "total")
    s = act(s, "muslim", type="activate", loc="granada")
    s = act(s, "muslim", type="take", block=guard)
    s = act(s, "muslim", type="step", to="loja")
    # from Loja: Alhama (next to Granada) and back to Granada yes; Archidona, Lucena,
    # Montefrío no
    assert steps_possible(s, "muslim") == {"alhama", "granada"}


@pytest.mark.rule("7.2", "7.1")
def test_total_movement_may_muster_between_two_stacks():
    a, b, r = land_blocks("christian", 3)
    s = clear_board(new_game())
    put(s, "sevilla", a, b)
    s["blocks"][r]["loc"] = "recruit:christian"
    s = at_movement(s, "christian")
    s = buy(s, "christian", "total")
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    assert "muster" not in types(s, "christian")            # not in the middle of a stack
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="end_move")
    assert "muster" in types(s, "christian")


@pytest.mark.rule("4.3", "7.3.1")
def test_a_castle_left_empty_reverts_at_once():
    a = land_blocks("christian", 1)[0]
    s = christian_at({"loja": [a]})
    s["castle"]["loja"] = "christian"
    s = act(s, "christian", type="activate", loc="loja")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="archidona")
    assert s["castle"]["loja"] == "muslim"


def test_built_in_player_finishes_games():
    from engine.players import choose

    for seed in (11, 12):
        s = new_game(seed)
        for k in range(20000):
            if g.result(s) is not None:
                break
            role = g.active(s)[0]
            s = g.apply(s, role, choose(g, s, role, seed * 7 + k))
        assert g.result(s) is not None and g.active(s) == []


# ---------------------------------------------------------------- audit additions

@pytest.mark.rule("7.3.1")
def test_a_picked_up_block_closes_its_roads_to_later_blocks_of_its_own_location():
    a, c, e = land_blocks("christian", 3)
    s = christian_at({"sevilla": [a], "ecija": [c, e]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="pick_up", block=c)        # c begins its move at Écija
    s = act(s, "christian", type="step", to="cordoba")
    s = act(s, "christian", type="end_move")             # nothing left at Sevilla
    s = act(s, "christian", type="activate", loc="ecija")
    s = act(s, "christian", type="take", block=e)
    # Écija-Córdoba was travelled by c, another block of Écija; Écija-Sevilla only by a block
    # of Sevilla
    assert steps_possible(s) == {"antequera", "sevilla"}


@pytest.mark.rule("7.3.1")
def test_one_pick_up_per_stack_even_back_at_the_same_place():
    a, c, e = land_blocks("christian", 3)
    s = christian_at({"sevilla": [a], "ecija": [c, e]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="pick_up", block=c)
    s = act(s, "christian", type="step", to="cordoba")
    s = act(s, "christian", type="step", to="ecija")     # back: the stack's own road
    assert s["blocks"][a]["loc"] == "ecija"
    assert not has(s, "christian", type="pick_up", block=e)
    assert "drop_off" in types(s, "christian")            # the drop-off is still to be made


@pytest.mark.rule("7.3.1")
def test_blocks_taken_but_put_back_were_part_of_no_move():
    a, b = land_blocks("christian", 2)
    s = christian_at({"sevilla": [a, b]})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="end_move")              # put back
    assert not s["blocks"][a]["moved"] and top(s)["origin"] == "sevilla"
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="take", block=b)
    s = act(s, "christian", type="step", to="ecija")
    assert s["blocks"][a]["loc"] == s["blocks"][b]["loc"] == "ecija"


@pytest.mark.rule("7.3.4")
def test_leadership_never_gives_more_than_one_location():
    ferdinand = special_block("ferdinand")
    ids = land_blocks("christian", 4)
    s = christian_at({"sevilla": [ferdinand] + ids})      # castle, and a leader too
    s = act(s, "christian", type="activate", loc="sevilla")
    for b in ids:
        s = act(s, "christian", type="take", block=b)
    for loc in ("ecija", "cordoba", "jaen"):
        s = act(s, "christian", type="step", to=loc)
    assert steps_possible(s) == set()          # 1 + main roads + 1 for all the leadership


@pytest.mark.rule("4.7", "7.3.3")
def test_red_black_road_is_no_main_road_for_white_blocks():
    a = land_blocks("christian", 1)[0]
    s = christian_at({"almeria": [a]})
    s["control"]["almeria"] = "christian"
    s = act(s, "christian", type="activate", loc="almeria")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="guadix")     # Almería-Guadix, red-black
    # base 1 only: a Muslim castle gives the Christians no leadership, the road no bonus
    assert steps_possible(s) == set()


@pytest.mark.rule("7.3.5", "7.3.3")
@pytest.mark.parametrize("n,reach", [(9, 2), (12, 1)])
def test_nine_and_twelve_blocks_lose_two_and_three_locations(n, reach):
    ids = land_blocks("christian", n)
    s = christian_at({"sevilla": ids})
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take_all")
    s = act(s, "christian", type="force_march")
    s = act(s, "christian", type="pay", card=sorted(s["hands"]["christian"])[0])
    route = ("ecija", "cordoba", "jaen", "ubeda")
    for loc in route[:reach]:
        s = act(s, "christian", type="step", to=loc)
    assert steps_possible(s) == set()          # 4 (main roads, castle, force march) - penalty


@pytest.mark.rule("7.1", "7.5.1")
def test_minimal_movement_may_activate_one_sea_zone_instead_of_a_location():
    from tests.engine.granada.core_helpers import fleets

    s = clear_board(new_game())
    put(s, "sevilla", land_blocks("christian", 1)[0])
    put(s, "sea:gulf_of_cadiz", fleets("christian", 1)[0])
    s = at_movement(s, "christian")
    s = buy(s, "christian", "minimal")
    assert {"activate", "activate_sea"} <= types(s, "christian")
    s = act(s, "christian", type="activate_sea", zone="gulf_of_cadiz")
    s = act(s, "christian", type="cancel")
    assert types(s, "christian") == {"end_movement"}


@pytest.mark.rule("7.2", "7.1")
def test_limited_movement_may_muster_between_two_stacks_for_one_activation():
    a, b, r = land_blocks("christian", 3)
    s = clear_board(new_game())
    put(s, "sevilla", a, b)
    s["blocks"][r]["loc"] = "recruit:christian"
    s = at_movement(s, "christian")
    s = buy(s, "christian", "limited")
    s = act(s, "christian", type="activate", loc="sevilla")
    s = act(s, "christian", type="take", block=a)
    s = act(s, "christian", type="step", to="ecija")
    s = act(s, "christian", type="end_move")
    assert top(s)["acts"] == 2
    s = act(s, "christian", type="muster")
    s = act(s, "christian", type="muster_single", block=r)
    s = act(s, "christian", type="muster_at", loc="cordoba")
    assert top(s)["acts"] == 1 and top(s)["origin"] == "sevilla"   # back to Sevilla's moves
    assert s["blocks"][r]["loc"] == "cordoba"
