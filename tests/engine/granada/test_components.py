"""Granada's components against every count and statement of the rulebook.

The map, blocks and cards are reconstructions (the rulebook shows them as pictures), so
these tests pin what the TEXT fixes: totals, named places and pieces, the rule exceptions,
and the bounds that the box's control pieces put on the map. Expected values come from the
rulebook, never from the data.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter, deque
from pathlib import Path
from typing import Any

import pytest

from engine.granada import components as comp

C = comp.load()
DATA = comp.DATA_DIR


def blocks(**where: Any) -> list[comp.Block]:
    return [b for b in C.blocks.values() if all(getattr(b, k) == v for k, v in where.items())]


def deck(side: str) -> list[comp.Card]:
    return [C.cards[i] for i in C.decks[side]]


def loc_named(name: str) -> comp.Location:
    found = [loc for loc in C.locations.values() if loc.name == name]
    assert len(found) == 1, name
    return found[0]


# ------------------------------------------------------------------------------ data files

def test_every_data_file_is_marked_reconstructed_with_notes() -> None:
    for name in ("map", "blocks", "cards", "setup"):
        doc = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
        assert doc["reconstructed"] is True, name
        assert len(doc["notes"]) > 200, name
    assert C.reconstructed is True
    assert "RULING" in C.notes


def test_load_is_cached() -> None:
    assert comp.load() is comp.load()
    assert comp.load(DATA) is comp.load()


# ------------------------------------------------------------------------------ blocks

@pytest.mark.rule("3.2")
def test_137_blocks_68_white_63_black_6_grey() -> None:
    assert len(C.blocks) == 137
    colours = Counter(b.colour for b in C.blocks.values())
    assert colours == {"white": 68, "black": 63, "grey": 6}
    assert {b.side for b in blocks(colour="white")} == {"christian"}
    assert {b.side for b in blocks(colour="black")} == {"muslim"}


@pytest.mark.rule("3.2")
def test_blocks_carry_a_faction_shield_of_their_side_and_1_to_4_shields() -> None:
    for b in C.blocks.values():
        if b.fleet:
            continue
        if b.leader == 2:
            assert b.shields == 0, b.id  # army leaders: two-dot banner, no shield (8.3.1)
        else:
            assert 1 <= b.shields <= 4, b.id
        if b.faction is not None and b.colour != "grey":
            assert b.faction in comp.FACTIONS[b.side], b.id
    for side, factions in comp.FACTIONS.items():
        for faction in factions:
            assert blocks(side=side, faction=faction, colour="white" if side == "christian" else "black")


@pytest.mark.rule("3.2")
def test_the_eight_factions() -> None:
    assert comp.FACTIONS == {"christian": ("castile", "aragon", "leon", "other_kingdoms"),
                             "muslim": ("andalusies", "banu_bannigas", "banu_sarray", "zegries")}


@pytest.mark.rule("3.2")
def test_single_dot_leaders_have_one_shield_and_two_dot_leaders_are_the_four_army_leaders() -> None:
    two_dots = {b.name for b in C.blocks.values() if b.leader == 2 and b.colour != "grey"}
    assert two_dots == {"Ferdinand", "Isabella", "Boabdil", "El Zagal"}
    for b in blocks(leader=1):
        assert b.shields == 1 and b.faction is not None, b.id
    # every faction has a (single-dot) leader, e.g. the León and Zegries leaders of 8.4's example
    for factions in comp.FACTIONS.values():
        for faction in factions:
            assert any(b.leader == 1 for b in blocks(faction=faction)), faction


@pytest.mark.rule("3.2", "7.5.2")
def test_both_sides_have_fleet_blocks_without_shields() -> None:
    for side in comp.SIDES:
        fleets = blocks(side=side, fleet=True)
        assert len(fleets) >= 2, side
        assert all(b.shields == 0 and b.faction is None and b.leader == 0 for b in fleets)
    assert not blocks(colour="grey", fleet=True)


@pytest.mark.rule("3.2", "8.3.3.1", "8.3.3.2")
def test_horse_crossbow_and_gun_icons_on_both_sides() -> None:
    for side in comp.SIDES:
        colour = "white" if side == "christian" else "black"
        for icon in ("horse", "crossbow", "gun"):
            assert blocks(colour=colour, **{icon: True}), (side, icon)
    # the Christians brought the modern artillery (history, 8.3.3.2)
    assert len(blocks(colour="white", gun=True)) > len(blocks(colour="black", gun=True))


@pytest.mark.rule("2.1")
def test_ferdinand_and_isabella_exist_as_christian_army_leaders() -> None:
    for special, name in (("ferdinand", "Ferdinand"), ("isabella", "Isabella")):
        (b,) = blocks(special=special)
        assert (b.name, b.side, b.colour, b.leader) == (name, "christian", "white", 2)


@pytest.mark.rule("3.2", "7.5.2")
def test_boabdil_and_el_zagal_are_muslim_army_leaders() -> None:
    (boabdil,) = blocks(special="boabdil")
    (zagal,) = blocks(special="el_zagal")
    assert (boabdil.name, boabdil.colour, boabdil.leader) == ("Boabdil", "black", 2)
    assert (zagal.name, zagal.colour, zagal.leader) == ("El Zagal", "black", 2)


@pytest.mark.rule("8.3.1", "8.3.2", "8.3.3.1")
def test_blocks_of_the_impact_scoring_example_exist() -> None:
    # Christians: León leader (1 shield), two 2-shield Aragón blocks, 1-shield Castile crossbow,
    # 1-shield León cavalry. Muslims: 1-shield Banu Bannigas cavalry, two 3-shield Zegries,
    # the Zegries leader (1 shield).
    assert [b for b in blocks(faction="leon", leader=1) if b.shields == 1]
    assert len([b for b in blocks(faction="aragon", colour="white") if b.shields == 2]) >= 2
    assert [b for b in blocks(faction="castile", colour="white", crossbow=True) if b.shields == 1]
    assert [b for b in blocks(faction="leon", horse=True) if b.shields == 1]
    assert [b for b in blocks(faction="banu_bannigas", horse=True) if b.shields == 1]
    assert len([b for b in blocks(faction="zegries") if b.shields == 3]) >= 2
    assert [b for b in blocks(faction="zegries", leader=1) if b.shields == 1]


@pytest.mark.rule("10.9")
def test_two_military_orders_with_2_shields_and_horse() -> None:
    orders = blocks(special="military_order")
    assert len(orders) == 2
    assert all(b.shields == 2 and b.horse and b.side == "christian" for b in orders)


@pytest.mark.rule("10.10")
def test_two_nasrid_palace_guard_blocks_one_with_horse() -> None:
    guard = blocks(special="palace_guard")
    assert len(guard) == 2
    assert all(b.shields == 2 and b.side == "muslim" for b in guard)
    assert sorted(b.horse for b in guard) == [False, True]
    assert set(C.setup.palace_guard) == {b.id for b in guard}


@pytest.mark.rule("10.11")
def test_two_mujahideens_the_only_4_shield_blocks() -> None:
    muj = blocks(special="mujahideen")
    assert len(muj) == 2 and all(b.side == "muslim" for b in muj)
    assert {b.id for b in C.blocks.values() if b.shields == 4} == {b.id for b in muj}


@pytest.mark.rule("10.12.1", "10.12.2")
def test_six_grey_blocks_boabdil_three_banu_sarray_and_castile() -> None:
    grey = blocks(colour="grey")
    assert len(grey) == 6
    assert all(b.side == "christian" for b in grey)  # the Christian player controls them
    assert len([b for b in grey if b.leader == 2 and b.name == "Boabdil"]) == 1
    sarray = [b for b in grey if b.faction == "banu_sarray"]
    assert len(sarray) == 3
    assert {b.faction for b in grey if b.leader != 2} == {"banu_sarray", "castile"}
    # "a Cavalry Charge card (only the cavalry block)": one cavalry block in each group
    assert sum(b.horse for b in sarray) == 1
    assert sum(b.horse for b in grey if b.faction == "castile") == 1
    assert set(C.setup.boabdil_box) == {b.id for b in grey}


# Section 11 (optional rules) is not implemented yet: these check only that its pieces are
# kept out of the basic game, so they are tagged with the component sections, not with 11.x.
@pytest.mark.rule("3.2")
def test_optional_blocks_kept_aside_within_the_137() -> None:
    optional = [b for b in C.blocks.values() if b.optional]
    assert Counter((b.side, b.special) for b in optional) == {
        ("christian", "mercenaries"): 2, ("muslim", "mercenaries"): 2, ("christian", "crusaders"): 2}
    assert all(b.shields == 2 and b.horse for b in optional if b.special == "crusaders")  # as 10.9
    placed = {bid for ids in C.setup.fixed.values() for bid in ids}
    assert not placed & {b.id for b in optional}


@pytest.mark.rule("10.6", "10.7", "8.7.4")
def test_disks_el_zegri_at_malaga_and_sidi_yahya_at_baza() -> None:
    assert {d.id: d.castle for d in C.disks.values()} == {"el_zegri": "malaga", "sidi_yahya": "baza"}
    assert C.setup.disks == {"el_zegri": "malaga", "sidi_yahya": "baza"}
    assert all(C.locations[d.castle].castle and d.side == "muslim" for d in C.disks.values())
    assert not set(C.disks) & set(C.blocks)


# ------------------------------------------------------------------------------ map

PLACES = ["Granada", "Córdoba", "Alhama", "Málaga", "Baza", "Guadix", "Fiñana", "Gergal", "Albox",
          "Almería", "Almuñécar", "Adra", "Marbella", "Ronda", "Loja", "Zahara", "Lucena", "Úbeda",
          "Sevilla", "Cartagena", "Gibraltar", "Oran", "Antequera", "Alcalá la Real", "Moclín", "Íllora",
          "Montefrío", "Setenil", "Salobreña", "Purchena", "Casarabonela"]


@pytest.mark.rule("4.1")
def test_places_named_by_the_rules_and_history_are_on_the_map() -> None:
    for name in PLACES:
        loc_named(name)
    assert len(set(C.locations)) == len(C.locations)
    assert all(loc.id.isascii() and loc.id == loc.id.lower() for loc in C.locations.values())


@pytest.mark.rule("4.1")
def test_locations_sit_at_their_real_positions() -> None:
    g, m, a, c, o = (C.locations[i] for i in ("granada", "malaga", "almeria", "cordoba", "oran"))
    assert abs(g.lat - 37.18) < 0.05 and abs(g.lon + 3.60) < 0.05
    assert m.lon < g.lon and m.lat < g.lat          # Málaga south-west of Granada
    assert a.lon > g.lon                            # Almería east
    assert c.lat > g.lat and c.lon < g.lon          # Córdoba north-west
    assert o.lat < min(loc.lat for loc in C.locations.values() if loc.id != "oran")  # across the sea
    for zone in C.sea_zones.values():
        assert abs(zone.lat - C.locations[zone.port].lat) < 1.0, zone.id


@pytest.mark.rule("4.5")
def test_nine_ports_each_giving_access_to_its_own_sea_zone() -> None:
    ports = [loc for loc in C.locations.values() if loc.port is not None]
    assert len(ports) == 9
    assert len(C.sea_zones) == 9
    assert sorted(z.port for z in C.sea_zones.values()) == sorted(loc.id for loc in ports)
    for loc in ports:
        assert C.port_zone[loc.id] == loc.port
        assert C.sea_zones[loc.port].port == loc.id
    # ports the rules name: Adra (9.2 example), Cartagena/Gibraltar (11.1), Málaga/Oran (11.1),
    # Marbella and Almería (history: 'strategic ports')
    for name in ("adra", "cartagena", "gibraltar", "malaga", "oran", "marbella", "almeria", "almunecar"):
        assert C.locations[name].port is not None, name


@pytest.mark.rule("4.5", "7.5.1")
def test_sea_zone_adjacency_symmetric_and_connected() -> None:
    for z in C.sea_zones.values():
        assert z.adjacent, z.id
        for n in z.adjacent:
            assert z.id in C.sea_zones[n].adjacent, (z.id, n)
    start = next(iter(C.sea_zones))
    seen = {start}
    todo = deque([start])
    while todo:
        for n in C.sea_zones[todo.popleft()].adjacent:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(C.sea_zones)


@pytest.mark.rule("4.6")
def test_capitals_granada_and_cordoba_are_resources_with_their_alignment() -> None:
    capitals = {loc.id for loc in C.locations.values() if loc.capital}
    assert capitals == {"granada", "cordoba"}
    assert C.locations["granada"].resource and C.locations["granada"].control == "muslim"
    assert C.locations["cordoba"].resource and C.locations["cordoba"].control == "christian"
    assert C.locations["granada"].castle  # the Alhambra (8.7.3)


@pytest.mark.rule("4.7", "7.3.3", "10.12.2")
def test_three_road_types_and_exactly_two_hybrid_roads() -> None:
    kinds = Counter(r.kind for r in C.roads)
    assert set(kinds) == {"secondary", "main", "hybrid"}
    hybrids = {frozenset((r.a, r.b)) for r in C.roads if r.kind == "hybrid"}
    assert hybrids == {frozenset(("granada", "alhama")), frozenset(("almeria", "guadix"))}
    assert C.road("alhama", "granada") == "hybrid" and C.road("guadix", "almeria") == "hybrid"
    assert kinds["main"] >= 10  # the red roads carry the historic routes
    pairs = [frozenset((r.a, r.b)) for r in C.roads]
    assert len(pairs) == len(set(pairs))


@pytest.mark.rule("4.1", "4.7")
def test_every_land_location_reachable_by_road_and_oran_by_sea_only() -> None:
    assert C.adjacency["oran"] == ()
    assert C.locations["oran"].port is not None
    land = [loc for loc in C.locations if loc != "oran"]
    seen = {"granada"}
    todo = deque(["granada"])
    while todo:
        for n, _ in C.adjacency[todo.popleft()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == set(land)
    for loc in land:
        assert 2 <= len(C.adjacency[loc]) <= 6, (loc, C.adjacency[loc])
    for r in C.roads:
        assert (r.b, r.kind) in C.adjacency[r.a] and (r.a, r.kind) in C.adjacency[r.b]


def _km(a: comp.Location, b: comp.Location) -> float:
    la1, lo1, la2, lo2 = map(math.radians, (a.lat, a.lon, b.lat, b.lon))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 6371 * 2 * math.asin(math.sqrt(h))


@pytest.mark.rule("4.1", "4.7")
def test_roads_join_neighbouring_towns_and_never_cross_between_locations() -> None:
    # A printed map draws roads from town to town: plotted at the real positions, no two roads
    # may cross away from a location, none may pass over a town it does not serve, and none
    # may join towns more than a long day's march apart.
    def pt(loc: str) -> tuple[float, float]:
        return C.locations[loc].lon, C.locations[loc].lat

    def orient(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float]) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    for i, r in enumerate(C.roads):
        assert _km(C.locations[r.a], C.locations[r.b]) < 100, r
        for s in C.roads[i + 1:]:
            if {r.a, r.b} & {s.a, s.b}:
                continue
            a, b, c, d = pt(r.a), pt(r.b), pt(s.a), pt(s.b)
            crossing = orient(a, b, c) * orient(a, b, d) < 0 and orient(c, d, a) * orient(c, d, b) < 0
            assert not crossing, (r, s)
        a, b = pt(r.a), pt(r.b)
        for loc in C.locations:
            if loc in (r.a, r.b):
                continue
            c = pt(loc)
            ab = (b[0] - a[0], b[1] - a[1])
            t = max(0.0, min(1.0, ((c[0] - a[0]) * ab[0] + (c[1] - a[1]) * ab[1]) / (ab[0] ** 2 + ab[1] ** 2)))
            assert math.dist(c, (a[0] + t * ab[0], a[1] + t * ab[1])) > 0.03, (r, loc)


@pytest.mark.rule("4.3")
def test_castles_take_their_natural_alignment() -> None:
    for loc in C.locations.values():
        if loc.castle:
            assert loc.control == ("muslim" if loc.kingdom else "christian"), loc.id
    for name in ("granada", "malaga", "baza", "almeria", "almunecar", "ronda", "loja", "marbella", "setenil"):
        assert C.locations[name].castle and C.locations[name].kingdom, name


@pytest.mark.rule("4.4", "5.1")
def test_zahara_lucena_and_alhama_are_watchtowers() -> None:
    for loc in ("zahara", "lucena", "alhama"):
        assert C.locations[loc].watchtower and not C.locations[loc].castle


@pytest.mark.rule("5.1")
def test_initial_control_white_outside_black_inside_with_the_three_exceptions() -> None:
    exceptions = {"zahara": "muslim", "lucena": "muslim", "alhama": "christian"}
    assert not C.locations["zahara"].kingdom and not C.locations["lucena"].kingdom
    assert C.locations["alhama"].kingdom
    for loc in C.locations.values():
        if loc.castle or loc.watchtower or loc.resource:
            natural = "muslim" if loc.kingdom else "christian"
            assert loc.control == exceptions.get(loc.id, natural), loc.id
        else:
            assert loc.control is None, loc.id


@pytest.mark.rule("3.4", "5.1")
def test_control_pieces_in_the_box_bound_the_map() -> None:
    # 20 castles (10+10), 20 watchtowers (10+10), 26 cubes (13+13) of which 3+3 mark the VP track:
    # every castle/watchtower/resource location starts with a piece of its control colour, so
    # each colour's initial pieces fit its supply, and the map's totals fit both supplies.
    for kind, per_colour in (("castle", 10), ("watchtower", 10), ("resource", 13 - 3)):
        with_kind = [loc for loc in C.locations.values() if getattr(loc, kind)]
        assert len(with_kind) <= 2 * per_colour, kind
        for side in comp.SIDES:
            assert sum(loc.control == side for loc in with_kind) <= per_colour, (kind, side)
    # the game's premise: the Muslims start with more castles (4.3, 6.4's seventh card)
    castles = Counter(loc.control for loc in C.locations.values() if loc.castle)
    assert castles["muslim"] > castles["christian"] > 0


@pytest.mark.rule("4.2", "2.2")
def test_resource_locations_on_both_sides() -> None:
    resources = Counter(loc.control for loc in C.locations.values() if loc.resource)
    assert resources["christian"] >= 4 and resources["muslim"] >= 4


@pytest.mark.rule("4.8", "7.2")
def test_recruitment_locations_for_every_faction_in_its_own_territory() -> None:
    for side, factions in comp.FACTIONS.items():
        for faction in factions:
            where = [loc for loc in C.locations.values() if faction in loc.recruit]
            assert where, faction
            assert any((loc.control or loc.alignment) == side for loc in where), faction
    # 7.2's example: the Muslim player musters in Almuñécar, a castle location
    alm = C.locations["almunecar"]
    assert alm.castle and set(alm.recruit) & set(comp.FACTIONS["muslim"])


@pytest.mark.rule("10.12.1")
def test_the_four_b_towns() -> None:
    assert {loc.id for loc in C.locations.values() if loc.b_town} == {"guadix", "finana", "gergal", "albox"}
    assert all(C.locations[t].kingdom for t in ("guadix", "finana", "gergal", "albox"))


@pytest.mark.rule("4.3")
def test_optional_rule_places_exist_with_the_right_alignment() -> None:
    for loc in ("cartagena", "gibraltar"):
        assert C.locations[loc].control == "christian"
    assert C.locations["malaga"].control == "muslim" and C.locations["oran"].alignment == "muslim"
    # 11.7 puts Pioneers "on top of the stacks" at Córdoba, Úbeda and Cartagena: stacks exist there
    for loc in ("cordoba", "ubeda", "cartagena"):
        assert loc in C.setup.fixed or loc in C.setup.random["christian"], loc


# ------------------------------------------------------------------------------ setup

@pytest.mark.rule("5.2.1", "10.8", "10.9", "10.11")
def test_setup_crowns_and_fixed_special_blocks() -> None:
    def where(special: str) -> list[str]:
        return sorted(loc for loc, ids in C.setup.fixed.items() for bid in ids
                      if C.blocks[bid].special == special)

    for crown in ("ferdinand", "isabella", "boabdil", "el_zagal"):
        assert len(where(crown)) == 1, crown
    assert where("el_zagal") == ["malaga"]
    assert where("military_order") == ["sevilla", "ubeda"]
    assert where("mujahideen") == ["malaga", "oran"]
    for side in comp.SIDES:
        side_locs = [loc for loc, ids in C.setup.fixed.items() if C.blocks[ids[0]].side == side]
        assert len(side_locs) >= 5, side


@pytest.mark.rule("5.1", "5.2.1")
def test_setup_places_each_block_once_on_its_own_side() -> None:
    placed = [bid for ids in C.setup.fixed.values() for bid in ids]
    boxed = list(C.setup.palace_guard) + list(C.setup.boabdil_box)
    assert len(placed + boxed) == len(set(placed + boxed))
    for loc, ids in C.setup.fixed.items():
        owner = C.locations[loc].control or C.locations[loc].alignment
        for bid in ids:
            b = C.blocks[bid]
            assert b.side == owner and not b.fleet and not b.optional and b.colour != "grey", (loc, bid)
    assert set(C.setup.fixed["alhama"]) and C.blocks[C.setup.fixed["alhama"][0]].side == "christian"


@pytest.mark.rule("5.2.2", "5.2.3")
def test_random_draws_are_plus_1_2_or_3_and_the_bags_can_supply_them() -> None:
    assert set(C.setup.random) == {"christian", "muslim"}
    placed = {bid for ids in C.setup.fixed.values() for bid in ids}
    placed |= set(C.setup.palace_guard) | set(C.setup.boabdil_box)
    for side, draws in C.setup.random.items():
        assert draws
        for loc, n in draws.items():
            assert n in (1, 2, 3)
            assert (C.locations[loc].control or C.locations[loc].alignment) == side, loc
        bag = [b for b in C.blocks.values()
               if b.side == side and b.colour != "grey" and not b.optional and b.id not in placed]
        land = [b for b in bag if not b.fleet]
        # fleets drawn at setup are set aside and returned (5.2.2); then 4 / 3 blocks go to the box
        assert len(land) >= sum(draws.values())
        assert len(bag) - sum(draws.values()) >= comp.SETUP_RECRUITMENT_DRAWS[side]
    assert comp.SETUP_RECRUITMENT_DRAWS == {"christian": 4, "muslim": 3}
    assert comp.STARTING_HAND == 6


# ------------------------------------------------------------------------------ cards

@pytest.mark.rule("3.3", "10.5")
def test_deck_sizes_74_67_17_including_surrender_and_optional_cards() -> None:
    def physical(side: str) -> int:
        return (len(C.decks[side]) + len(C.surrender[side])
                + sum(c.deck == side for c in C.optional_cards.values()))

    assert physical("christian") == 74
    assert physical("muslim") == 67
    assert len(C.decks["naval"]) == 17
    # the 4 Castle Surrender cards never enter a draw deck (10.5)
    surrender = [c for c in C.cards.values() if c.deck == "surrender"]
    assert len(surrender) == 4
    assert set(C.decks["christian"]) | set(C.decks["muslim"]) | set(C.decks["naval"]) == \
        {c.id for c in C.cards.values() if c.deck != "surrender" and c.id not in C.optional_cards}


@pytest.mark.rule("10.5")
def test_two_castle_surrender_cards_each_without_numbers() -> None:
    assert len(C.surrender["christian"]) == 2 and len(C.surrender["muslim"]) == 2
    for ids in C.surrender.values():
        for cid in ids:
            c = C.cards[cid]
            assert c.kind == "surrender" and c.bid is None and c.naval is None and not c.evade


@pytest.mark.rule("10.1")
def test_two_commander_cards_each() -> None:
    for side in comp.SIDES:
        assert sum(c.kind == "commander" for c in deck(side)) == 2


@pytest.mark.rule("10.2")
def test_two_bombardment_cards_christians_only() -> None:
    assert sum(c.kind == "bombardment" for c in deck("christian")) == 2
    assert not any(c.kind == "bombardment" for c in deck("muslim"))


@pytest.mark.rule("10.3")
def test_watchtower_cards_3_christian_4_muslim_without_numbers() -> None:
    assert sum(c.kind == "watchtower" for c in deck("christian")) == 3
    assert sum(c.kind == "watchtower" for c in deck("muslim")) == 4
    for c in C.cards.values():
        if c.kind == "watchtower":
            assert c.bid is None and c.naval is None and not c.evade


@pytest.mark.rule("10.4")
def test_one_cavalry_charge_and_one_crossbowmen_each() -> None:
    for side in comp.SIDES:
        kinds = Counter(c.kind for c in deck(side))
        assert kinds["cavalry_charge"] == 1 and kinds["crossbowmen"] == 1


@pytest.mark.rule("8.4.1", "9.3")
def test_morale_challenge_cards_in_both_decks_with_a_naval_icon() -> None:
    for side in comp.SIDES:
        morale = [c for c in deck(side) if c.kind == "morale"]
        assert morale
        assert all(c.naval is not None or c.evade for c in morale)


@pytest.mark.rule("8.2.1", "8.3.3.1", "8.3.4")
def test_faction_cards_single_and_double_shield_and_trumpets() -> None:
    for side, factions in comp.FACTIONS.items():
        cards = deck(side)
        for faction in factions:
            single = [c for c in cards if c.kind == "faction" and c.factions == (faction,)]
            assert single and any(c.trumpet for c in single), faction
            assert any(not c.trumpet for c in single), faction
        doubles = [c for c in cards if c.kind == "double"]
        assert doubles
        for c in doubles:
            assert len(c.factions) == 2 and c.factions[0] == c.factions[1] and not c.trumpet
        for c in cards:
            assert all(f in factions for f in c.factions), c.id


@pytest.mark.rule("3.2", "8.2.1")
def test_faction_cards_roughly_proportional_to_faction_blocks() -> None:
    for side, factions in comp.FACTIONS.items():
        colour = "white" if side == "christian" else "black"
        n_blocks = {f: len(blocks(faction=f, colour=colour)) for f in factions}
        n_cards = {f: sum(f in c.factions for c in deck(side)) for f in factions}
        for f in factions:
            ratio = n_cards[f] / n_blocks[f]
            assert 0.6 <= ratio <= 1.5, (f, n_cards[f], n_blocks[f])
        biggest = max(factions, key=lambda f: n_blocks[f])
        assert n_cards[biggest] == max(n_cards.values())


@pytest.mark.rule("6.2", "9.1", "9.2")
def test_bid_and_naval_corners() -> None:
    for side in comp.SIDES:
        for c in deck(side):
            if c.kind == "watchtower":
                continue
            assert c.bid is not None and c.bid >= 1, c.id
            assert (c.naval is None) == c.evade, c.id
        assert any(c.evade for c in deck(side))  # evade arrows exist (9.2)
        navals = [c.naval for c in deck(side) if c.naval is not None]
        assert max(navals) - min(navals) >= 3  # a 2-fleet sinking (difference >= 3) is possible


@pytest.mark.rule("7.5.3", "9.1")
def test_naval_deck_quiet_crossings_and_naval_battles_for_both_coats_of_arms() -> None:
    naval = [C.cards[i] for i in C.decks["naval"]]
    kinds = Counter(c.kind for c in naval)
    assert set(kinds) == {"quiet_crossing", "naval_battle"}
    assert kinds["quiet_crossing"] > kinds["naval_battle"]
    winners = Counter(c.draw_winner for c in naval if c.kind == "naval_battle")
    assert set(winners) == {"christian", "muslim"}
    assert all(c.draw_winner is None and c.bid is None and c.naval is None
               for c in naval if c.kind == "quiet_crossing")


@pytest.mark.rule("3.3")
def test_optional_cards_kept_apart() -> None:
    kinds = Counter((c.deck, c.kind) for c in C.optional_cards.values())
    assert kinds == {("christian", "papal_bull"): 1, ("christian", "general_mobilization"): 1,
                     ("christian", "boabdil_captured"): 1, ("christian", "naval_bombardment"): 1,
                     ("muslim", "sortie"): 2, ("muslim", "naval_bombardment"): 1}
    for c in C.optional_cards.values():
        if c.kind in ("papal_bull", "boabdil_captured", "sortie"):
            assert c.bid is None and c.naval is None  # "has no number on it"
    # every face is in C.cards (hands may hold optional cards); the basic decks never
    assert set(C.optional_cards) <= set(C.cards)
    assert not set(C.optional_cards) & {c for d in C.decks.values() for c in d}


def test_ids_follow_the_plan() -> None:
    for cid in C.decks["christian"]:
        assert cid.startswith("C") and not cid.startswith("CS")
    for cid in C.decks["muslim"]:
        assert cid.startswith("M") and not cid.startswith("MS")
    assert all(cid.startswith("N") for cid in C.decks["naval"])
    for b in C.blocks.values():
        prefix = "O" if b.optional else {"white": "W", "black": "K", "grey": "G"}[b.colour]
        assert b.id.startswith(prefix), b.id
    assert comp.card_side(C.cards["CS1"]) == "christian" and comp.card_side(C.cards["MS2"]) == "muslim"
    assert comp.card_side(C.cards[C.decks["naval"][0]]) is None


# ------------------------------------------------------------------------------ validation

def _corrupt(tmp_path: Path, name: str, mutate: Any) -> Path:
    target = tmp_path / "data"
    shutil.copytree(DATA, target)
    path = target / f"{name}.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    mutate(doc)
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return target


def _road_to_nowhere(doc: dict[str, Any]) -> None:
    doc["roads"].append({"a": "granada", "b": "atlantis", "kind": "secondary"})


def _asymmetric_sea(doc: dict[str, Any]) -> None:
    zone = next(z for z in doc["sea_zones"] if z["id"] == "gulf_of_cadiz")
    zone["adjacent"].append("bay_of_malaga")


def _tenth_port(doc: dict[str, Any]) -> None:
    loc = next(x for x in doc["locations"] if x["id"] == "vera")
    loc["port"] = "gulf_of_almeria"


def _third_hybrid(doc: dict[str, Any]) -> None:
    road = next(r for r in doc["roads"] if {r["a"], r["b"]} == {"loja", "granada"})
    road["kind"] = "hybrid"


def _zahara_white(doc: dict[str, Any]) -> None:
    next(x for x in doc["locations"] if x["id"] == "zahara")["control"] = "christian"


def _isolate_vera(doc: dict[str, Any]) -> None:
    doc["roads"] = [r for r in doc["roads"] if "vera" not in (r["a"], r["b"])]


def _eleven_black_castles(doc: dict[str, Any]) -> None:
    loc = next(x for x in doc["locations"] if x["id"] == "tabernas")
    loc["castle"] = True
    loc["control"] = "muslim"


def _unknown_faction(doc: dict[str, Any]) -> None:
    next(b for b in doc["blocks"] if b["id"] == "W05")["faction"] = "navarre"


def _wrong_side_faction(doc: dict[str, Any]) -> None:
    next(b for b in doc["blocks"] if b["id"] == "W05")["faction"] = "zegries"


def _duplicate_block(doc: dict[str, Any]) -> None:
    doc["blocks"].append(dict(doc["blocks"][10]))


def _lost_block(doc: dict[str, Any]) -> None:
    doc["blocks"] = [b for b in doc["blocks"] if b["id"] != "K20"]


def _fifth_shield(doc: dict[str, Any]) -> None:
    next(b for b in doc["blocks"] if b["id"] == "W05")["shields"] = 4


def _lost_card(doc: dict[str, Any]) -> None:
    doc["cards"] = [c for c in doc["cards"] if c["id"] != "M10"]


def _numbered_watchtower(doc: dict[str, Any]) -> None:
    card = next(c for c in doc["cards"] if c["kind"] == "watchtower")
    card["bid"] = 5


def _mixed_double(doc: dict[str, Any]) -> None:
    card = next(c for c in doc["cards"] if c["kind"] == "double" and c["deck"] == "christian")
    card["factions"] = ["castile", "aragon"]


def _setup_ghost(doc: dict[str, Any]) -> None:
    doc["fixed"]["granada"].append("K99")


def _setup_unknown_place(doc: dict[str, Any]) -> None:
    doc["random"]["christian"]["toledo"] = 1


def _zagal_moved(doc: dict[str, Any]) -> None:
    ids = doc["fixed"]["malaga"]
    zagal = ids[0]
    doc["fixed"]["malaga"] = ids[1:]
    doc["fixed"]["granada"].append(zagal)


def _plus_four(doc: dict[str, Any]) -> None:
    doc["random"]["muslim"]["granada"] = 4


CORRUPTIONS = [
    ("map", _road_to_nowhere, "atlantis"),
    ("map", _asymmetric_sea, "gulf_of_cadiz"),
    ("map", _tenth_port, "gulf_of_almeria"),
    ("map", _third_hybrid, "loja"),
    ("map", _zahara_white, "zahara"),
    ("map", _isolate_vera, "vera"),
    ("map", _eleven_black_castles, "tabernas"),
    ("blocks", _unknown_faction, "W05"),
    ("blocks", _wrong_side_faction, "W05"),
    ("blocks", _duplicate_block, "duplicate block"),
    ("blocks", _lost_block, "62 black"),
    ("blocks", _fifth_shield, "W05"),
    ("cards", _lost_card, "66 muslim"),
    ("cards", _numbered_watchtower, "watchtower"),
    ("cards", _mixed_double, "identical"),
    ("setup", _setup_ghost, "K99"),
    ("setup", _setup_unknown_place, "toledo"),
    ("setup", _zagal_moved, "El Zagal"),
    ("setup", _plus_four, "granada"),
]


@pytest.mark.rule("3.2", "3.3", "4.5", "4.7", "5.1", "5.2.1", "5.2.2", "8.3.4", "10.3", "10.8")
@pytest.mark.parametrize(("name", "mutate", "named"), CORRUPTIONS,
                         ids=[m.__name__.strip("_") for _, m, _ in CORRUPTIONS])
def test_corrupted_data_is_refused_naming_the_entry(tmp_path: Path, name: str, mutate: Any,
                                                    named: str) -> None:
    bad = _corrupt(tmp_path, name, mutate)
    with pytest.raises(ValueError) as err:
        comp.load(bad)
    assert named in str(err.value)


def test_an_untouched_copy_loads(tmp_path: Path) -> None:
    good = _corrupt(tmp_path, "map", lambda doc: None)
    copy = comp.load(good)
    assert copy is not C
    assert len(copy.blocks) == len(C.blocks) and len(copy.locations) == len(C.locations)


def test_missing_reconstructed_flag_is_refused(tmp_path: Path) -> None:
    bad = _corrupt(tmp_path, "cards", lambda doc: doc.pop("reconstructed"))
    with pytest.raises(ValueError, match="cards.json"):
        comp.load(bad)
