"""Mustering (7.2) with the book's examples A-D at Almuñécar."""

from __future__ import annotations

import pytest

import engine.granada as g
from engine.granada import muster
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
    top,
    types,
)


def muslim_recruit(*ids: str, seed: int = 1, level: str = "total"):
    s = clear_board(new_game(seed))
    for b in ids:
        s["blocks"][b]["loc"] = "recruit:muslim"
    return s


def andalusies(n: int) -> list[str]:
    return land_blocks("muslim", n, faction="andalusies")


def start(s, level: str = "total"):
    s = at_movement(s, "muslim")
    s = buy(s, "muslim", level)
    return act(s, "muslim", type="muster")


@pytest.mark.rule("7.2", "4.8")
def test_example_a_besieged_friendly_unit():
    new, besieged = andalusies(2)
    s = muslim_recruit(new)
    put(s, "almunecar", besieged, inside=True)
    put(s, "almunecar", *land_blocks("christian", 2))
    s["control"]["almunecar"] = "christian"
    assert "almunecar" in muster.eligible(s, "muslim", "andalusies")
    s = start(s)
    s = act(s, "muslim", type="muster_single", block=new)
    s = act(s, "muslim", type="muster_at", loc="almunecar")
    assert s["blocks"][new]["loc"] == "almunecar" and s["blocks"][new]["inside"]


@pytest.mark.rule("7.2", "4.8")
def test_example_b_unoccupied_location():
    new = andalusies(1)[0]
    s = muslim_recruit(new)
    assert s["control"]["almunecar"] == "muslim"
    assert "almunecar" in muster.eligible(s, "muslim", "andalusies")


@pytest.mark.rule("7.2", "4.8")
def test_example_c_besieging_friendly_units():
    new, besieger = andalusies(2)
    s = muslim_recruit(new)
    put(s, "almunecar", besieger)
    put(s, "almunecar", *land_blocks("christian", 1), inside=True)
    s["castle"]["almunecar"] = "christian"
    assert "almunecar" in muster.eligible(s, "muslim", "andalusies")
    s = start(s)
    s = act(s, "muslim", type="muster_single", block=new)
    s = act(s, "muslim", type="muster_at", loc="almunecar")
    assert not s["blocks"][new]["inside"]           # joins the besiegers outside


@pytest.mark.rule("7.2", "4.8")
def test_example_d_enemy_controlled_location_occupied_only_by_christians():
    new = andalusies(1)[0]
    s = muslim_recruit(new)
    put(s, "almunecar", *land_blocks("christian", 1))
    s["control"]["almunecar"] = "christian"
    s["castle"]["almunecar"] = "christian"
    assert "almunecar" not in muster.eligible(s, "muslim", "andalusies")


@pytest.mark.rule("7.2")
def test_faction_muster_shows_the_blocks_and_they_cannot_move():
    a, b = andalusies(2)
    s = muslim_recruit(a, b)
    s = start(s)
    assert not has(s, "muslim", type="muster_faction", faction="zegries")
    s = act(s, "muslim", type="muster_faction", faction="andalusies")
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    s = act(s, "muslim", type="bring", block=a)
    s = act(s, "muslim", type="bring", block=b)      # the last one: placed at once
    assert {a, b} <= set(s["known"]["christian"])    # displayed to the opponent
    assert s["blocks"][a]["loc"] == "velez_malaga" and s["blocks"][a]["fresh"]
    s = act(s, "muslim", type="done") if top(s)["module"] == "muster" else s
    assert not has(s, "muslim", type="activate", loc="velez_malaga")


@pytest.mark.rule("7.2")
def test_single_block_muster_is_unseen_and_goes_to_any_friendly_recruitment_location():
    z = land_blocks("muslim", 1, faction="zegries")[0]
    s = muslim_recruit(z)
    s = start(s)
    s = act(s, "muslim", type="muster_single", block=z)
    # Vélez-Málaga bears the Andalusies shield only: fine for a single unseen block
    assert has(s, "muslim", type="muster_at", loc="velez_malaga")
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    assert z not in s["known"]["christian"]
    public = [e["text"] for e in s["log"] if "to" not in e]
    assert not any(z in t for t in public)


@pytest.mark.rule("7.2", "4.5")
def test_one_fleet_to_a_sea_zone_with_a_friendly_port_even_with_enemy_fleets():
    new = andalusies(1)[0]
    f = fleets("muslim", 1)[0]
    s = muslim_recruit(new, f)
    s["blocks"][fleets("christian", 1)[0]]["loc"] = "sea:bay_of_malaga"
    s = start(s)
    assert has(s, "muslim", type="muster_fleet", zone="bay_of_malaga")
    assert not has(s, "muslim", type="muster_fleet", zone="gulf_of_cadiz")   # Christian port
    s = act(s, "muslim", type="muster_fleet", zone="bay_of_malaga")
    assert s["blocks"][f]["loc"] == "sea:bay_of_malaga" and s["blocks"][f]["fresh"]
    # the land muster is still open in the same action
    assert "muster_single" in types(s, "muslim")


@pytest.mark.rule("7.2")
def test_at_most_one_muster_per_turn():
    a, b = andalusies(2)
    s = muslim_recruit(a, b)
    s = start(s)
    s = act(s, "muslim", type="muster_single", block=a)
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    assert top(s)["kind"] == "movement"           # nothing else can come out: back to moving
    assert "muster" not in types(s, "muslim")


@pytest.mark.rule("7.2")
def test_mustering_a_third_block_into_a_besieged_castle_makes_a_field_combat():
    new = andalusies(1)[0]
    inside = land_blocks("muslim", 2, exclude=(new,))
    s = muslim_recruit(new)
    put(s, "almunecar", *inside, inside=True)
    put(s, "almunecar", *land_blocks("christian", 1))
    s["control"]["almunecar"] = "christian"
    s = start(s)
    s = act(s, "muslim", type="muster_single", block=new)
    s = act(s, "muslim", type="muster_at", loc="almunecar")
    assert not any(s["blocks"][b]["inside"] for b in inside + [new])


@pytest.mark.rule("7.2", "7.4")
def test_mustering_can_overrun():
    ids = andalusies(3)
    s = muslim_recruit(*ids)
    put(s, "velez_malaga", land_blocks("muslim", 1, exclude=tuple(ids))[0])
    foe = land_blocks("christian", 1)[0]
    put(s, "velez_malaga", foe)
    s = start(s)
    s = act(s, "muslim", type="muster_faction", faction="andalusies")
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    for b in ids:
        s = act(s, "muslim", type="bring", block=b)
    assert s["blocks"][foe]["loc"] == "eliminated"


@pytest.mark.rule("4.8")
def test_recruitment_locations_bear_a_friendly_shield():
    mus = muster.recruitment_locations("muslim")
    chris = muster.recruitment_locations("christian")
    assert "granada" in mus and "cordoba" not in mus and "cordoba" in chris
    assert all(set(D.locations[loc].recruit) for loc in mus + chris)


@pytest.mark.rule("7.2")
def test_an_attack_cannot_come_from_the_recruitment_box_but_can_be_supported_from_it():
    new = andalusies(1)[0]
    s = muslim_recruit(new)
    foe = land_blocks("christian", 1)[0]
    put(s, "velez_malaga", foe)               # Christians alone there; control still Muslim
    assert s["control"]["velez_malaga"] == "muslim"
    assert "velez_malaga" not in muster.eligible(s, "muslim")
    put(s, "velez_malaga", land_blocks("muslim", 1, exclude=(new,))[0])
    assert "velez_malaga" in muster.eligible(s, "muslim")       # a combat begun on the map


@pytest.mark.rule("7.2")
def test_a_faction_musters_shown_only_where_its_shield_is_printed():
    z = land_blocks("muslim", 2, faction="zegries")
    s = muslim_recruit(*z)
    s = start(s)
    s = act(s, "muslim", type="muster_faction", faction="zegries")
    where = {a["loc"] for a in g.actions(s, "muslim") if a["type"] == "muster_at"}
    assert "malaga" in where and "velez_malaga" not in where       # Vélez: Andalusies only
    assert all("zegries" in D.locations[loc].recruit for loc in where)


@pytest.mark.rule("7.2", "7.1")
def test_under_minimal_movement_mustering_replaces_the_only_activation():
    new = andalusies(1)[0]
    s = muslim_recruit(new)
    put(s, "loja", land_blocks("muslim", 1, exclude=(new,))[0])
    s = start(s, level="minimal")
    s = act(s, "muslim", type="muster_single", block=new)
    s = act(s, "muslim", type="muster_at", loc="velez_malaga")
    assert types(s, "muslim") == {"end_movement", "palace_guard"}
