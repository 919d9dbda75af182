"""Combat actions: archers, standard attacks, cavalry charges, karr wa-l-farr, damage."""

from __future__ import annotations

import pytest

from engine import RuleError
from engine.navas import actions, active, apply, damage, view

from .helpers import deployed_except, do, find, has, logs, power, shoot_with, turn_state, zone_units

JIHAD = ["m22", "m23", "m24"]


def parts(state: dict, side: str) -> dict[str, int]:  # type: ignore[type-arg]
    battle = state["last_battle"]
    key = "attacker_parts" if battle["attacker"] == side else "defender_parts"
    return {name: value for name, value in battle[key]}


# ---------------------------------------------------------------- the book's 10-7 example


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr", "Standard attack", "Damage",
                  "Special Muslim units")
def test_book_example_standard_attack_10_to_7() -> None:
    # Alba attacks C4 with all her Jihad Volunteers: -1 for the standard attack, +1 for the
    # Volunteers. The card gives 6 to the Christians and 1 to the Muslims: 10-7.
    s = turn_state("muslim", "g4r2", deployed_except({"C4": ["c19", "c20"]}), deck=["g1r6"])
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=JIHAD)
    battle = s["last_battle"]
    assert (battle["attacker_total"], battle["defender_total"]) == (7, 10)
    assert parts(s, "muslim") == {"card 1": 1, "units": 6, "standard attack": -1, "Jihad Volunteers attacking": 1}
    assert parts(s, "christian") == {"card 6": 6, "units": 4}
    # The Muslim side suffers 3 damage points and chooses how.
    assert active(s) == ["muslim"] and s["pending"] == {"kind": "damage", "role": "muslim", "zone": "B3", "amount": 3}
    options = [(sorted(a["flip"]), sorted(a["eliminate"])) for a in actions(s, "muslim")]
    # Flip her three units, or lose one unit and flip another: her three Volunteers are alike
    # (same unit, same face, all joined), so which one falls is no choice.
    assert options == [(JIHAD, []), (["m23"], ["m22"])]
    assert actions(s, "christian") == []
    s = do(s, "muslim", type="damage", flip=JIHAD, eliminate=[])
    assert [power(s, u) for u in JIHAD] == [1, 1, 1]
    assert zone_units(s, "C4") == ["c19", "c20"] and zone_units(s, "B3") == JIHAD  # no advance
    assert s["turn"]["ap"] == 3  # a Muslim standard attack costs 1


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr", "Damage")
def test_a_tie_deals_1_damage_to_each_side() -> None:
    # 3 + 6 - 1 + 1 = 9 against 3 + 6 = 9
    s = turn_state("muslim", "g4r2", deployed_except({}), deck=["g3r3"])
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=JIHAD)
    # C4's three Navarrese Knights are alike, and so are the three Volunteers who all joined:
    # each side's 1 damage has a single outcome and falls without a question.
    assert "the defenders" not in logs(s) and "a tie: both sides take 1 damage" in logs(s)
    assert [power(s, u) for u in ("c19", "c20", "c21")] == [1, 2, 2]
    assert [power(s, u) for u in JIHAD] == [1, 2, 2]
    assert s["pending"] is None and s["combat"] is None


@pytest.mark.rule("Damage", "Standard attacks, Cavalry charges and karr wa-l-farr")
def test_attackers_may_put_their_damage_on_units_that_did_not_join() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}), deck=["g1r6"])
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=["m22"])
    # 1 + 2 - 1 + 1 = 3 against 6 + 6 = 12: 9 damage, more than B3's 6 Power
    assert s["pending"] is None
    assert zone_units(s, "B3") == []  # every unit eliminated, the excess is lost
    assert all(s["units"][u]["zone"] is None and s["units"][u]["power"] == 0 for u in JIHAD)


@pytest.mark.rule("Damage")
def test_damaged_side_distributes_among_all_its_units_in_the_zone() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}), deck=["g2r4"])
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=["m22"])
    # 2 + 2 - 1 + 1 = 4 against 4 + 6 = 10: 6 damage... equals the zone's Power: all gone
    assert zone_units(s, "B3") == []
    s = turn_state("muslim", "g4r2", deployed_except({}), deck=["g5r2"])
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=["m22"])
    # 5 + 2 - 1 + 1 = 7 against 2 + 6 = 8: 1 damage, on any unit of B3
    # (m23 and m24 did not join: hitting one or the other is the same choice)
    choices = [(a["flip"], a["eliminate"]) for a in actions(s, "muslim")]
    assert choices == [(["m22"], []), (["m23"], [])]
    s = do(s, "muslim", type="damage", flip=["m23"], eliminate=[])
    assert (power(s, "m22"), power(s, "m23"), power(s, "m24")) == (2, 1, 2)


@pytest.mark.rule("Damage")
def test_a_1_power_unit_hit_is_eliminated_for_good() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}), deck=["g6r1"], powers={"m25": 1})
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="C3")
    s = shoot_with(s, "christian", "c22")
    options = [(a["flip"], a["eliminate"]) for a in actions(s, "muslim")]
    assert ([], ["m25"]) in options and (["m26"], []) in options
    s = do(s, "muslim", type="damage", flip=[], eliminate=["m25"])
    assert s["units"]["m25"]["zone"] is None
    assert view(s, None)["units"]["m25"]["eliminated"] and view(s, None)["units"]["m25"]["power"] == 0
    # nothing brings it back: the Muslim's next turn offers no order naming it
    s = do(s, "christian", type="end_turn")
    s = apply(s, "muslim", actions(s, "muslim")[0])
    for zone_order in [a for a in actions(s, "muslim") if a["type"] == "zone"]:
        s2 = apply(s, "muslim", zone_order)
        assert all("m25" not in str(a) for a in actions(s2, "muslim"))


# ---------------------------------------------------------------- the game deck


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr")
def test_an_empty_deck_is_the_discard_pile_turned_over_without_shuffling() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}))
    s["discard"] = s["discard"] + s["deck"]
    s["deck"] = []
    order = list(s["discard"])
    assert len(order) == 3
    before = s["reveals"]
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=JIHAD)
    assert s["last_battle"]["card"] == order[0]  # the first card discarded is drawn first
    assert s["deck"] == order[1:] and s["deck_known"]
    assert s["discard"] == [order[0]]
    assert s["reveals"] == before  # the order was public: nothing new is revealed
    v = view(s, "christian")
    assert v["deck"] == {"size": 2, "order_known": True, "cards": order[1:]}
    assert "WITHOUT SHUFFLING" in logs(s)


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr")
def test_a_shuffled_deck_order_is_hidden_and_each_draw_is_a_reveal() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}), deck=["g1r6"])
    v = view(s, "christian")
    assert v["deck"] == {"size": 3, "order_known": False, "cards": None}
    before = s["reveals"]
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=JIHAD)
    assert s["reveals"] == before + 1 and s["discard"][-1] == "g1r6"


# ---------------------------------------------------------------- standard attack


@pytest.mark.rule("Standard attack", "For the King")
def test_christian_standard_attack_costs_2_gets_2_goes_diagonally_and_never_advances() -> None:
    s = turn_state("christian", "g2r5", deployed_except({"A3": ["m19"]}), deck=["g6r1"], powers={"m19": 1})
    s = do(s, "christian", type="zone", zone="B4")
    attacks = {a["target"] for a in actions(s, "christian") if a["type"] == "attack"}
    assert attacks == {"A3", "B3", "C3"}
    s = do(s, "christian", type="attack", target="A3")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert parts(s, "christian") == {"card 1": 1, "units": 6, "standard attack": 2, "For the King": 1}
    assert s["last_battle"]["defender_total"] == 7
    assert zone_units(s, "A3") == [] and zone_units(s, "B4") == ["c10", "c11", "c12"]
    assert s["turn"]["ap"] == 3
    assert all(s["units"][u]["exhausted"] for u in ("c10", "c11", "c12"))


@pytest.mark.rule("For the King")
def test_no_for_the_king_bonus_when_the_arms_do_not_match_the_column() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}), deck=["g6r1"])  # Castile card
    s = do(s, "christian", type="zone", zone="C4")  # the Navarrese column
    s = do(s, "christian", type="attack", target="C3")
    s = do(s, "christian", type="units", units=["c19", "c20", "c21"])
    assert "For the King" not in parts(s, "christian")


# ---------------------------------------------------------------- cavalry charges


@pytest.mark.rule("Christian cavalry charge", "Standard attacks, Cavalry charges and karr wa-l-farr")
def test_christian_charge_goes_forward_only_and_the_whole_column_advances() -> None:
    s = turn_state("christian", "g3r4", deployed_except({}), deck=["g1r6"])
    s = do(s, "christian", type="zone", zone="B4")
    assert [a["target"] for a in actions(s, "christian") if a["type"] == "charge"] == ["B3"]
    with pytest.raises(RuleError, match="only goes forward") as err:
        apply(s, "christian", {"type": "charge", "target": "A3"})
    assert err.value.rule == "Christian cavalry charge"
    s = do(s, "christian", type="charge", target="B3")
    s = do(s, "christian", type="units", units=["c10", "c11"])
    # 6 + 4 + 5 = 15 against 1 + 6 - 1 (Volunteers defending) = 6: the zone is cleared
    assert parts(s, "muslim") == {"card 1": 1, "units": 6, "Jihad Volunteers defending": -1}
    assert s["last_battle"]["attacker_total"] == 15
    assert zone_units(s, "B3") == ["c10", "c11", "c12"]  # every unit of B4, joined or not
    assert zone_units(s, "B4") == ["c13", "c14", "c15"] and zone_units(s, "B5") == ["c16", "c17", "c18"]
    assert zone_units(s, "B6") == []
    assert s["turn"]["ap"] == 1  # the advance is free


@pytest.mark.rule("Christian cavalry charge")
def test_the_column_advance_stops_at_the_first_gap() -> None:
    layout = deployed_except({"B5": []})
    s = turn_state("christian", "g3r4", layout, deck=["g1r6"])
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="charge", target="B3")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert zone_units(s, "B3") == ["c10", "c11", "c12"] and zone_units(s, "B4") == []
    assert zone_units(s, "B6") == ["c16", "c17", "c18"]


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr", "Combat actions")
def test_a_charge_needs_an_unexhausted_cavalry_unit_and_the_group_must_include_one() -> None:
    s = turn_state("muslim", "g5r2", deployed_except({"B3": ["c13"]}))
    s = do(s, "muslim", type="zone", zone="B2")
    s = do(s, "muslim", type="charge", target="B3")
    groups = [a["units"] for a in actions(s, "muslim") if a["type"] == "units"]
    assert len(groups) == 4 and all("m13" in g for g in groups)  # al-Husayni is the only horseman
    # units of another zone can never join
    assert all(set(g) <= {"m13", "m14", "m15"} for g in groups)
    s = turn_state("muslim", "g5r2", deployed_except({"B3": ["c13"]}))
    s["units"]["m13"]["exhausted"] = True
    s = do(s, "muslim", type="zone", zone="B2")
    assert not has(s, "muslim", type="charge")
    assert has(s, "muslim", type="attack", target="B3")
    with pytest.raises(RuleError, match="needs an unexhausted unit with the cavalry icon"):
        apply(s, "muslim", {"type": "charge", "target": "B3"})


@pytest.mark.rule("Muslim cavalry charge")
def test_muslim_charge_any_direction_plus_2_and_may_advance() -> None:
    for go in (True, False):
        s = turn_state("muslim", "g5r2", deployed_except({"B4": ["c10"]}), deck=["g4r2"], powers={"c10": 1})
        s = do(s, "muslim", type="zone", zone="A3")
        assert {a["target"] for a in actions(s, "muslim") if a["type"] == "charge"} == {"A4", "B4"}
        s = do(s, "muslim", type="charge", target="B4")  # diagonally
        s = do(s, "muslim", type="units", units=["m19", "m20", "m21"])
        assert parts(s, "muslim") == {"card 4": 4, "units": 6, "cavalry charge": 2}
        assert s["turn"]["ap"] == 2
        assert s["pending"] == {"kind": "advance", "role": "muslim", "from": "A3", "to": "B4"}
        s = do(s, "muslim", type="advance", go=go)
        if go:
            assert zone_units(s, "B4") == ["m19", "m20", "m21"] and zone_units(s, "A3") == []
        else:
            assert zone_units(s, "B4") == [] and zone_units(s, "A3") == ["m19", "m20", "m21"]
        assert s["turn"]["ap"] == 2  # the advance is a free move


@pytest.mark.rule("Special Muslim units", "Modifiers")
def test_volunteers_who_clear_a_zone_must_advance() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({"C4": ["c19"]}), deck=["g5r2"],
                   powers={"c19": 1})
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="C4")
    s = do(s, "muslim", type="units", units=["m22"])
    # 5 + 2 - 1 + 1 = 7 against 2 + 1 = 3
    assert s["pending"] is None
    assert zone_units(s, "C4") == JIHAD and zone_units(s, "B3") == []


@pytest.mark.rule("Special Muslim units", "Modifiers")
def test_al_nasirs_camp_defends_with_plus_2() -> None:
    layout = deployed_except({"B2": ["c10", "c11", "c12"], "B3": [], "B4": []})
    s = turn_state("christian", "g3r4", layout, deck=["g6r1"])
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="attack", target="B1")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert parts(s, "muslim") == {"card 6": 6, "units": 6, "al-Nasir's camp": 2}
    assert parts(s, "christian") == {"card 1": 1, "units": 6, "standard attack": 2}


# ---------------------------------------------------------------- attack limitations and archers


@pytest.mark.rule("Attack limitations")
def test_at_most_two_combat_actions_and_one_archer_attack_per_turn() -> None:
    s = turn_state("christian", "g1r6", deployed_except({}), deck=["g6r1", "g5r2", "g4r3"])
    s = do(s, "christian", type="zone", zone="A5")
    s = do(s, "christian", type="archers", target="A3")
    s = shoot_with(s, "christian", "c04")
    assert power(s, "m19") == 1  # three alike Kurdish Cavalry: no choice to ask about
    assert not has(s, "christian", type="zone", zone="C5")  # its archers were its only order
    s["pending"] = {"kind": "zone", "role": "christian", "zone": "C5"}
    assert not has(s, "christian", type="archers")
    with pytest.raises(RuleError, match="only one archer attack per turn") as err:
        apply(s, "christian", {"type": "archers", "target": "C3"})
    assert err.value.rule == "Attack limitations"
    s = do(s, "christian", type="back")
    s = do(s, "christian", type="zone", zone="C4")
    s = do(s, "christian", type="attack", target="C3")
    s = do(s, "christian", type="units", units=["c19", "c20", "c21"])
    while s["pending"] is not None:
        role = s["pending"]["role"]
        s = apply(s, role, actions(s, role)[0])
    assert s["turn"]["combats"] == 2 and s["turn"]["ap"] == 3
    s["pending"] = {"kind": "zone", "role": "christian", "zone": "B4"}
    assert not any(a["type"] in ("attack", "charge", "archers") for a in actions(s, "christian"))
    with pytest.raises(RuleError, match="at most 2 combat actions"):
        apply(s, "christian", {"type": "charge", "target": "B3"})


@pytest.mark.rule("Archer attack")
def test_christian_archers_shoot_2_zones_away_for_1_point_and_1_damage() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    s = do(s, "christian", type="zone", zone="C5")
    assert {a["target"] for a in actions(s, "christian") if a["type"] == "archers"} == {"A3", "B3", "C3"}
    # laterally and diagonally, 2 zones away; one archer shoots, and c22 and c23 are alike
    # (issue 38): which one shoots is no question, the first does
    s = do(s, "christian", type="archers", target="A3")
    # 1 damage on three alike Kurdish Cavalry: one outcome, applied without a question
    assert s["pending"] is None and [power(s, u) for u in ("m19", "m20", "m21")] == [1, 2, 2]
    assert s["turn"]["ap"] == 4 and s["units"]["c22"]["exhausted"] and not s["units"]["c23"]["exhausted"]


@pytest.mark.rule("Archer attack")
def test_muslim_archers_pay_2_and_deal_2_never_at_an_adjacent_zone() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({"A3": ["c01"]}), powers={})
    s = do(s, "muslim", type="zone", zone="A2")
    targets = {a["target"] for a in actions(s, "muslim") if a["type"] == "archers"}
    assert targets == {"A4", "B4", "C4"}  # A3 is Christian but adjacent
    with pytest.raises(RuleError, match="exactly 2 zones away, and A3 is 1 from A2"):
        apply(s, "muslim", {"type": "archers", "target": "A3"})
    s = do(s, "muslim", type="archers", target="C4")
    s = shoot_with(s, "muslim", "m10")
    assert s["pending"] == {"kind": "damage", "role": "christian", "zone": "C4", "amount": 2}
    assert s["turn"]["ap"] == 2
    s = do(s, "christian", type="damage", flip=["c19", "c20"], eliminate=[])
    assert s["units"]["m10"]["exhausted"]


# ---------------------------------------------------------------- karr wa-l-farr


def karr_position(deck: tuple[str, str] = ("g2r4", "g4r3")):  # type: ignore[no-untyped-def]
    """The book's example: Luis's column in B3-B5 charges B2, al-Nasir waits in B1."""
    layout = deployed_except({"B3": ["c10", "c11", "c12"], "B4": ["c13", "c14", "c15"],
                              "B5": ["c16", "c17", "c18"], "B6": []})
    return turn_state("christian", "g3r4", layout, deck=list(deck), powers={"m15": 1})


@pytest.mark.rule("Karr wa-l-farr", "Christian cavalry charge")
def test_book_example_charge_then_karr_wa_l_farr() -> None:
    s = karr_position()
    s = do(s, "christian", type="zone", zone="B3")
    s = do(s, "christian", type="charge", target="B2")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    # before resolving, the Christian must ask: B2 holds a unit with the cavalry icon
    assert active(s) == ["muslim"] and s["pending"] == {"kind": "karr", "role": "muslim"}
    assert s["last_battle"] is None
    s = do(s, "muslim", type="karr", declare=True)
    log = logs(s)
    # First combat: 4 + 6 + 5 = 15 against 2 + 5 = 7: 8 damage, B2 wiped out, the column advances.
    assert "Christian 15" in log and "Muslim 7" in log and "the defenders in B2 take 8 damage" in log
    assert zone_units(s, "B2") == ["c10", "c11", "c12"] and zone_units(s, "B3") == ["c13", "c14", "c15"]
    # Second combat, the karr wa-l-farr from B1: 4 + 6 + 2 = 12 against 3 + 6 = 9: 3 damage.
    assert s["last_battle"]["kind"] == "karr"
    assert (s["last_battle"]["from"], s["last_battle"]["to"]) == ("B1", "B2")
    assert (s["last_battle"]["attacker_total"], s["last_battle"]["defender_total"]) == (12, 9)
    assert parts(s, "muslim") == {"card 4": 4, "units": 6, "karr wa-l-farr": 2}
    assert parts(s, "christian") == {"card 3": 3, "units": 6}  # the defender has no modifiers
    assert s["pending"] == {"kind": "damage", "role": "christian", "zone": "B2", "amount": 3}
    s = do(s, "christian", type="damage", flip=["c10", "c11", "c12"], eliminate=[])
    assert not any(s["units"][u]["exhausted"] for u in ("m04", "m05", "m06"))  # karr does not exhaust
    assert s["turn"]["ap"] == 1 and s["combat"] is None


@pytest.mark.rule("Karr wa-l-farr")
def test_karr_survivors_strike_back_at_the_charging_zone() -> None:
    s = karr_position(("g5r2", "g4r3"))
    s = do(s, "christian", type="zone", zone="B3")
    s = do(s, "christian", type="charge", target="B2")
    s = do(s, "christian", type="units", units=["c10"])
    s = do(s, "muslim", type="karr", declare=True)
    # 2 + 2 + 5 = 9 against 5 + 5 = 10: the charge fails, 1 damage on B3
    assert s["pending"] == {"kind": "damage", "role": "christian", "zone": "B3", "amount": 1}
    s = do(s, "christian", type="damage", flip=["c11"], eliminate=[])
    # the B2 survivors counter-attack B3: 4 + 5 + 2 = 11 against 3 + 5 = 8
    assert (s["last_battle"]["kind"], s["last_battle"]["from"], s["last_battle"]["to"]) == ("karr", "B2", "B3")
    assert (s["last_battle"]["attacker_total"], s["last_battle"]["defender_total"]) == (11, 8)


@pytest.mark.rule("Karr wa-l-farr")
def test_declining_karr_means_no_second_battle() -> None:
    s = karr_position()
    s = do(s, "christian", type="zone", zone="B3")
    s = do(s, "christian", type="charge", target="B2")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    s = do(s, "muslim", type="karr", declare=False)
    assert s["last_battle"]["kind"] == "charge" and s["combat"] is None
    assert s["discard"][-1] == "g2r4" and s["deck"][0] == "g4r3"


@pytest.mark.rule("Karr wa-l-farr")
def test_no_karr_without_a_cavalry_unit_in_the_charged_zone() -> None:
    s = turn_state("christian", "g3r4", deployed_except({}), deck=["g1r6"])
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="charge", target="B3")  # the Jihad Volunteers have no horses
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert s["pending"] is None and "karr" not in logs(s)


@pytest.mark.rule("Karr wa-l-farr")
def test_no_second_battle_when_the_next_zone_is_empty() -> None:
    layout = deployed_except({"A3": ["c01", "c02", "c03"], "A4": ["c04", "c05", "c06"], "A2": ["m19"],
                              "A1": []})
    s = turn_state("christian", "g3r4", layout, deck=["g1r6", "g4r3"], powers={"m19": 1})
    s = do(s, "christian", type="zone", zone="A3")
    s = do(s, "christian", type="charge", target="A2")
    s = do(s, "christian", type="units", units=["c01", "c02", "c03"])
    s = do(s, "muslim", type="karr", declare=True)
    # A2 falls and the column advances (A4 into A3; A5 is empty so the column stops there);
    # the next zone of the column, A1, is empty: no second battle.
    assert zone_units(s, "A2") == ["c01", "c02", "c03"] and zone_units(s, "A3") == ["c04", "c05", "c06"]
    assert s["last_battle"]["kind"] == "charge" and s["deck"][0] == "g4r3"
    assert "no Muslim units in the next zone" in logs(s)


@pytest.mark.rule("Combat actions")
def test_combat_orders_name_one_zone_and_one_target_and_refuse_friendly_targets() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    s = do(s, "christian", type="zone", zone="B4")
    with pytest.raises(RuleError, match="not occupied by the opponent"):
        apply(s, "christian", {"type": "attack", "target": "B5"})
    order = find(s, "christian", type="attack", target="B3")
    assert order["label"] == "Standard attack B4→B3 (2 AP)"


@pytest.mark.rule("Damage")
def test_the_damage_menu_offers_distinct_outcomes_only() -> None:
    # B1 holds two Jund Infantry without icons (alike) and one with the archer icon; B2 takes
    # 1 damage from a tie: flipping one plain Jund or the other is the same outcome.
    layout = deployed_except({"A1": ["m01", "m02", "m03"]})
    s = turn_state("christian", "g3r4", layout, deck=["g6r1"])
    choices = damage.distributions(s, "A1", 1)
    assert [(c["flip"], c["eliminate"]) for c in choices] == [(["m01"], []), (["m03"], [])]
    # units on different faces or in different states are not alike
    s["units"]["m02"]["power"] = 1
    choices = damage.distributions(s, "A1", 1)
    assert [(c["flip"], c["eliminate"]) for c in choices] == [(["m01"], []), (["m03"], []), ([], ["m02"])]
    s["units"]["m02"].update({"power": 2, "exhausted": True})
    choices = damage.distributions(s, "A1", 1)
    assert [(c["flip"], c["eliminate"]) for c in choices] == [(["m01"], []), (["m02"], []), (["m03"], [])]
