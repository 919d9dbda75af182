"""The outer rondel: quarries, storehouses, market and constructions (Master Builders)."""

from __future__ import annotations

import pytest

from engine.api import RuleError
from engine.sabika import rules
from engine.sabika.construction import advance_favour, balance_colour
from engine.sabika.data import DATA, MAJORS, MINORS
from engine.sabika.scoring import wish_count
from engine.sabika.state import capacity, gain_pp, holdings, push_bonus, ring
from engine.sabika.turn import main_possible, square_action
from tests.engine.sabika.helpers import blank, find, give, kinds, legal_types, put_first, step, turn_of, work

B = "blue"


def at_turn(n: int = 2) -> tuple[dict, str]:  # type: ignore[type-arg]
    s = blank(n)
    turn_of(s, B)
    return s, B


@pytest.mark.rule("sabika:outer-rondel")
def test_the_outer_rondel_holds_the_construction_actions_and_master_builders_move_on_it() -> None:
    assert [square_action("outer", i) for i in ring(2, "outer")] == [
        "minor_quarry", "storehouse", "market", "construction", "major_quarry", "storehouse", "market", "construction"]
    s, r = at_turn()
    s = work(s, r, "builder1", 2, main=False)
    assert s["players"][r]["workers"]["builder1"] == {"at": 2, "up": False}


@pytest.mark.rule("sabika:quarry-actions")
@pytest.mark.parametrize(("square", "offered"), [(0, ["gypsum", "wood"]), (4, ["wood", "marble"])])
def test_quarries_give_three_materials_of_the_square_in_any_combination(square: int, offered: list[str]) -> None:
    s, r = at_turn()
    give(s, r, store=0)
    s["players"][r]["stores"][1]["tiles"] = ["s24"]  # room for 4
    s = work(s, r, "builder1", square)
    taken = []
    for _ in range(3):
        assert kinds(s) == "pickmat"
        assert sorted(a["material"] for a in rules.actions(s, r)) == sorted(offered)
        s = step(s, r, "material", material=offered[1])
        taken.append(offered[1])
        while kinds(s) == "store":
            s = step(s, r, "store", store=1)
    assert holdings(s["players"][r]) == {offered[1]: 3}


@pytest.mark.rule("sabika:storehouses")
def test_items_go_to_a_storehouse_with_room_and_a_full_player_may_make_room_or_forfeit() -> None:
    s, r = at_turn()
    for i in range(4):
        give(s, r, "gypsum", store=i)
    s = work(s, r, "builder1", 0)
    s = step(s, r, "material", material="wood")
    assert kinds(s) == "store"
    assert legal_types(s, r) == ["make_room"] * 4 + ["forfeit"]  # never a move between storehouses
    s = step(s, r, "make_room", store=2)
    s = step(s, r, "discard", item="gypsum")
    assert s["players"][r]["stores"][2]["items"] == ["wood"]
    s = step(s, r, "material", material="wood")
    s = step(s, r, "forfeit")
    assert holdings(s["players"][r]) == {"gypsum": 3, "wood": 1}


@pytest.mark.rule("sabika:storehouse-action")
def test_expanding_a_storehouse_scores_1_then_2_pp_gives_the_tile_bonus_and_keeps_the_goods() -> None:
    s, r = at_turn()
    give(s, r, "marble", store=3)
    s["store_display"]["left"] = ["s1", "s9"]  # s1: 1 box, 3 Dinars; s9: 2 boxes, 2 Dinars
    s = work(s, r, "builder1", 1)
    s = step(s, r, "expand", side="left", slot=0)
    s = step(s, r, "onto", store=3)
    p = s["players"][r]
    assert p["pp"] == 6 and p["dinars"] == 13 and p["stores"][3] == {"tiles": ["s1"], "items": ["marble"]}
    assert capacity(p, 3) == 2 and s["store_display"]["left"] == [None, "s9"]
    s = step(s, r, "done")
    turn_of(s, r)
    s = work(s, r, "builder2", 1)
    s = step(s, r, "expand", side="left", slot=1)
    s = step(s, r, "onto", store=3)
    p = s["players"][r]
    # 13 - 1 (the other Master Builder stands on the square) + 2 (s9's bonus)
    assert p["pp"] == 8 and p["dinars"] == 14 and capacity(p, 3) == 4
    assert p["stores"][3]["items"] == ["marble"]
    # a Storehouse is expanded at most twice
    s["store_display"]["left"] = ["s2", None]
    s["stack"] = [{"kind": "storehouse", "role": r, "side": "left"}]
    s = step(s, r, "expand", side="left", slot=0)
    assert [a["store"] for a in rules.actions(s, r)] == [0, 1, 2]


@pytest.mark.rule("sabika:storehouse-action")
def test_activating_gives_the_bonus_of_a_visible_tile_and_starting_storehouses_have_none() -> None:
    s, r = at_turn()
    s["store_display"] = {"left": [None, None], "right": [None, None]}
    assert not main_possible(s, r, "storehouse", "left")  # nothing to expand with, nothing to activate
    s["players"][r]["stores"][2]["tiles"] = ["s1", "s9"]  # s9 covers the bonus of s1
    s = work(s, r, "builder1", 1)
    assert [a["store"] for a in rules.actions(s, r) if a["type"] == "activate"] == [2]
    s = step(s, r, "activate", store=2)
    assert s["players"][r]["dinars"] == 12  # s9's 2 Dinars, not s1's 3


@pytest.mark.rule("sabika:market-action")
def test_market_worked_example_two_dinars_trade_wood_for_marble_sell_a_good() -> None:
    s, r = at_turn()
    give(s, r, "wood", store=0)
    give(s, r, "pottery", store=1)
    s = work(s, r, "builder1", 2)
    assert s["players"][r]["dinars"] == 12  # (A) 2 Dinars
    s = step(s, r, "trade")
    s = step(s, r, "trade_item", give="wood", get="marble")  # (B) up the table: only the Marble
    s = put_first(s, r)
    assert s["players"][r]["dinars"] == 12
    s = step(s, r, "sell")
    s = step(s, r, "sell_item", item="pottery")  # (C) 3 Dinars; the second and last transaction
    assert s["players"][r]["dinars"] == 15
    assert holdings(s["players"][r]) == {"marble": 1}
    assert kinds(s) == "square"  # no third transaction
    assert s["discard_goods"]["pottery"] == 1


@pytest.mark.rule("sabika:market-action")
def test_market_prices_and_trading_down_earns_a_dinar() -> None:
    s, r = at_turn()
    give(s, r, "ceramic", store=0)
    s = work(s, r, "builder1", 2)
    s = step(s, r, "trade")
    labels = {(a["give"], a["get"]) for a in rules.actions(s, r) if a["type"] == "trade_item"}
    assert labels == {("ceramic", "marble")}  # only the neighbour in the table
    s = step(s, r, "trade_item", give="ceramic", get="marble")
    s = put_first(s, r)
    assert s["players"][r]["dinars"] == 13  # 10 + 2 + 1 for trading down
    s = step(s, r, "buy")
    prices = {a["item"]: a["label"].rsplit(" ", 2)[1] for a in rules.actions(s, r) if a["type"] == "buy_item"}
    assert prices == {"gypsum": "1", "wood": "1", "marble": "2", "ceramic": "3", "raw": "1"}
    s = step(s, r, "buy_item", item="ceramic")
    s = put_first(s, r)
    assert s["players"][r]["dinars"] == 10
    assert DATA["market"]["sell"] == {"gypsum": 1, "wood": 2, "marble": 3, "ceramic": 4, "good": 3}


@pytest.mark.rule("sabika:construction-action")
def test_renewing_the_minor_construction_cards_costs_1_dinar_earns_1_pp_once_per_turn() -> None:
    s, r = at_turn()
    give(s, r, "gypsum")
    before = list(s["minor_display"])
    s = work(s, r, "builder1", 3)
    s = step(s, r, "refresh")
    assert s["players"][r]["dinars"] == 9 and s["players"][r]["pp"] == 6
    assert s["minor_discard"] == before and s["minor_display"] != before
    assert "refresh" not in legal_types(s, r)


@pytest.mark.rule("sabika:major-construction-action")
def test_major_construction_worked_example_gypsum_and_marble_score_4_pp() -> None:
    s, r = at_turn()
    give(s, r, "gypsum", "marble", "ceramic", store=0)
    s = work(s, r, "builder1", 3)
    s = step(s, r, "major")
    assert kinds(s) == "scaffold"
    extras = {a.get("material") for a in rules.actions(s, r) if a["type"] == "use"}
    assert extras == {"marble", "ceramic"}  # never a second Gypsum; no Wood held
    s = step(s, r, "use", material="marble")
    s = step(s, r, "done")
    assert s["players"][r]["pp"] == 9  # 5 + 1 (Gypsum) + 3 (Marble)
    assert holdings(s["players"][r]) == {"ceramic": 1}  # Scaffold Materials back to the Reserve
    tiles = [a["tile"] for a in rules.actions(s, r)]
    assert tiles == s["majors"]["1"] and all(MAJORS[t]["era"] == 1 for t in tiles)  # current Era only
    s = step(s, r, "tile", tile="I1")  # bonus: 3 Dinars
    assert s["players"][r]["favour"] == 1  # the first space: its bonus (2 Dinars) is the only choice
    texts = [e["text"] for e in s["log"]]
    favour = texts.index("Blue earns 2 Dinars (Sultan's Favour space 1).")
    bonus = texts.index("Blue earns 3 Dinars (the Palace).")
    assert favour < bonus  # (A) the Sultan's Favour first, (B) then the construction bonus
    assert s["players"][r]["dinars"] == 15
    assert s["players"][r]["majors"] == ["I1"] and "I1" not in s["majors"]["1"]


@pytest.mark.rule("sabika:major-construction-action")
def test_the_favour_bonus_is_that_space_or_a_previous_one_and_the_last_space_gives_1_pp() -> None:
    s, r = at_turn()
    p = s["players"][r]
    p["favour"] = 2
    advance_favour(s, r)
    assert [a["space"] for a in rules.actions(s, r)] == [0, 1, 2]
    s["stack"].pop()
    last = len(DATA["favour_track"]["spaces"])
    p["favour"] = last
    advance_favour(s, r)
    assert p["pp"] == 6 and p["favour"] == last
    assert [a["space"] for a in rules.actions(s, r)] == list(range(last - 1))


@pytest.mark.rule("sabika:minor-construction-action")
def test_minor_construction_base_material_extras_and_balance_with_the_wild_half() -> None:
    s, r = at_turn()
    card = next(c for c, d in MINORS.items() if d["base"] == "wood" and d["left"] == "yellow")
    s["minor_display"][0] = card
    give(s, r, "wood", "gypsum", "ceramic")
    s = work(s, r, "builder1", 3)
    s = step(s, r, "minor", slot=0)
    assert {a.get("material") for a in rules.actions(s, r) if a["type"] == "use"} == {"gypsum", "ceramic"}
    s = step(s, r, "use", material="ceramic")
    s = step(s, r, "done")
    assert s["players"][r]["pp"] == 11  # Wood 2 + Glazed Ceramic 4
    s = step(s, r, "place", side="right")  # its left half meets the balance card's wild half
    assert s["players"][r]["balances"] == ["yellow"]
    assert kinds(s) == "dp"
    s = step(s, r, "split", parias=1)  # 3 Dinars and 1 Paria
    assert s["players"][r]["dinars"] == 13 and s["players"][r]["parias"] == 1
    assert s["players"][r]["row"][-1] == card


@pytest.mark.rule("sabika:minor-construction-action")
def test_no_balance_when_the_artwork_has_two_colours() -> None:
    row = ["b1"]  # yellow half on its left
    card = next(c for c, d in MINORS.items() if d["right"] == "green")
    assert balance_colour(row, card, "left") is None
    match = next(c for c, d in MINORS.items() if d["right"] == "yellow")
    assert balance_colour(row, match, "left") == "yellow"
    other = next(c for c, d in MINORS.items() if d["right"] == "white" and d["left"] == "blue")
    third = next(c for c, d in MINORS.items() if d["left"] == "white")
    assert balance_colour([other], third, "right") == "white"


@pytest.mark.rule("sabika:major-and-minor-constructions")
def test_construction_types_are_palace_fountain_door_and_garden_tower_window() -> None:
    assert {d["type"] for d in MAJORS.values()} == {"palace", "fountain", "door"}
    assert {d["type"] for d in MINORS.values()} == {"garden", "tower", "window"}
    s, r = at_turn()
    s["players"][r]["majors"] = ["I1", "I4"]
    s["players"][r]["minors"] = [next(c for c, d in MINORS.items() if d["type"] == "tower")]
    assert wish_count(s, r, "palace") == 2 and wish_count(s, r, "tower") == 1


@pytest.mark.rule("sabika:resources")
def test_earning_a_raw_material_you_hold_processes_yours_and_leaves_the_token_clay_example() -> None:
    s, r = at_turn()
    s["raw_squares"] = {"0": "pottery", "1": None, "2": None, "3": None}
    s["players"][r]["processing"] = ["pottery"]
    s["stack"].append({"kind": "raw", "role": r, "good": False})
    s = step(s, r, "token", square=0)  # (A) one Clay on the rondel, (B) one in the workshop
    s = put_first(s, r)
    assert s["raw_squares"]["0"] == "pottery"  # left in place
    assert s["players"][r]["processing"] == [] and holdings(s["players"][r]) == {"pottery": 1}  # (C)
    s["stack"].append({"kind": "raw", "role": r, "good": False})
    s = step(s, r, "token", square=0)
    assert s["raw_squares"]["0"] is None and s["players"][r]["processing"] == ["pottery"]


@pytest.mark.rule("sabika:resources")
def test_a_good_earned_directly_is_a_rondel_token_flipped() -> None:
    s, r = at_turn()
    s["raw_squares"] = {"0": "sugar", "1": None, "2": None, "3": None}
    s["players"][r]["processing"] = ["sugar"]
    s["stack"].append({"kind": "raw", "role": r, "good": True})
    s = step(s, r, "token", square=0)
    s = put_first(s, r)
    assert s["raw_squares"]["0"] is None and s["players"][r]["processing"] == ["sugar"]
    assert holdings(s["players"][r]) == {"sugar": 1}


@pytest.mark.rule("sabika:prestige-points")
def test_prestige_points_are_earned_and_lost() -> None:
    s, r = at_turn()
    gain_pp(s, r, 3, "test")
    gain_pp(s, r, -2, "test")
    assert s["players"][r]["pp"] == 6
    assert s["log"][-1]["text"] == "Blue loses 2 PP (test)."


def test_a_refused_step_names_its_rule_and_the_legal_ones() -> None:
    s, r = at_turn()
    with pytest.raises(RuleError) as err:
        rules.apply(s, r, {"type": "worker", "worker": "vizier"})
    assert err.value.rule == "phase-i-actions" and "Master Builder" in err.value.explain()
    with pytest.raises(RuleError, match="not yellow's decision"):
        rules.apply(s, "yellow", find(s, r, "worker", worker="poet"))


@pytest.mark.rule("sabika:construction-action")
def test_the_construction_action_needs_a_base_material_to_build_or_to_hope_for() -> None:
    s, r = at_turn()
    assert not main_possible(s, r, "construction")  # no Material at all
    give(s, r, "ceramic")
    assert not main_possible(s, r, "construction")  # Glazed Ceramic is never a base Material
    s["minor_display"] = [c for c in MINORS if MINORS[c]["base"] == "marble"][:4]
    give(s, r, "wood", store=1)
    assert main_possible(s, r, "construction")  # new cards might ask for Wood
    s = work(s, r, "builder1", 3)
    assert legal_types(s, r) == ["refresh", "skip"]


@pytest.mark.rule("sabika:minor-construction-action")
@pytest.mark.parametrize(("colour", "first"), [
    ("green", ["Raw Material", "Good"]),  # 1 Raw Material and 1 Good OR an Export Action
    ("blue", ["Gypsum", "Glazed Ceramic"]),  # 1 Gypsum and 1 Glazed Ceramic OR a Carve Poem Action
])
def test_balance_bonuses_offer_their_two_alternatives(colour: str, first: list[str]) -> None:
    s, r = at_turn()
    s["stack"] = []
    give(s, r, "sugar" if colour == "green" else "gypsum")  # a Good to export, a Material to carve with
    push_bonus(s, r, DATA["balances"]["bonus"][colour], "balance")
    rules._advance(s)
    labels = [a["label"] for a in rules.actions(s, r)]
    assert len(labels) == 2 and all(word in labels[0] for word in first)
    assert "Action" in labels[1]


@pytest.mark.rule("sabika:minor-construction-action")
def test_white_balance_gives_1_dinar_then_a_storehouse_action() -> None:
    s, r = at_turn()
    s["stack"] = []
    push_bonus(s, r, DATA["balances"]["bonus"]["white"], "balance")
    rules._advance(s)
    assert s["players"][r]["dinars"] == 11 and s["stack"][-1]["kind"] == "storehouse"
    assert len([a for a in rules.actions(s, r) if a["type"] == "expand"]) == 4  # tiles of both sides
