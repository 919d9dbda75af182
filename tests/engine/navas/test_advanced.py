"""Advanced variant: the 12 special cards, one test (at least) per card."""

from __future__ import annotations

import pytest

from engine import RuleError
from engine.navas import actions, active, apply, setup, view
from engine.navas.data import CATALOG

from .helpers import deployed_except, do, give_specials, has, logs, power, turn_state, zone_units

ADV = "Advanced variant"


def sec(name: str) -> str:
    return f"{ADV} / {name}"


@pytest.mark.rule(ADV)
def test_each_side_draws_3_special_cards_discards_1_face_down_and_keeps_2() -> None:
    s = setup(4, {"advanced": True})
    assert s["phase"] == "special" and set(active(s)) == {"christian", "muslim"}
    for role in ("christian", "muslim"):
        assert len(s["specials"][role]["hand"]) == 3 and len(s["specials"][role]["reserve"]) == 3
    drop = s["specials"]["muslim"]["hand"][0]
    s = do(s, "muslim", type="discard_special", card=drop)
    assert s["specials"]["muslim"]["discarded"] == [drop] and len(s["specials"]["muslim"]["hand"]) == 2
    assert active(s) == ["christian"]
    seen = view(s, "christian")
    assert seen["specials"]["opponent_hand"] == 2 and seen["specials"]["opponent_discarded"] == 1
    name = CATALOG.specials[drop].name
    assert not any(name in e["text"] for e in seen["log"])
    assert name in str(view(s, "muslim")["log"])
    s = do(s, "christian", type="discard_special", card=s["specials"]["christian"]["hand"][2])
    assert s["phase"] == "initiative"
    assert set(active(s)) == {"christian", "muslim"}


@pytest.mark.rule(ADV)
def test_the_basic_game_has_no_special_cards() -> None:
    s = setup(4, {})
    assert s["phase"] == "initiative" and all(not v["hand"] for v in s["specials"].values())
    assert view(s, "christian")["specials"] == {}


@pytest.mark.rule(sec("Al-Nasir"), sec("Alfonso VIII"))
def test_al_nasir_and_alfonso_give_2_action_points_once() -> None:
    for role, card, tc in (("muslim", "al-nasir", "g4r2"), ("christian", "alfonso", "g2r5")):
        s = turn_state(role, tc, deployed_except({}), advanced=True)
        give_specials(s, role, [card])
        ap = s["turn"]["ap"]
        before = s["reveals"]
        s = do(s, role, type="special", card=card)
        assert s["turn"]["ap"] == ap + 2 and s["specials"][role]["used"] == [card]
        assert s["reveals"] == before + 1
        assert not has(s, role, type="special", card=card)


@pytest.mark.rule(ADV, sec("Alfonso VIII"))
def test_a_card_is_dead_once_its_units_are_eliminated() -> None:
    layout = deployed_except({"B6": ["c17", "c18"]})  # Alfonso VIII eliminated
    s = turn_state("christian", "g2r5", layout, advanced=True)
    give_specials(s, "christian", ["alfonso"])
    assert not has(s, "christian", type="special", card="alfonso")
    with pytest.raises(RuleError):
        apply(s, "christian", {"type": "special", "card": "alfonso"})


@pytest.mark.rule(ADV)
def test_advanced_turns_end_only_when_the_player_says_so() -> None:
    s = turn_state("christian", "g6r1", deployed_except({}), advanced=True)
    s = do(s, "christian", type="switch", shield=False)
    assert s["turn"]["ap"] == 0 and s["turn"]["role"] == "christian"
    assert has(s, "christian", type="end_turn")


@pytest.mark.rule(sec("Al-Husayni"))
def test_al_husayni_takes_a_card_from_the_deck_for_the_initiative_card() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}), number=4, advanced=True)
    give_specials(s, "muslim", ["al-husayni"])
    mine = s["initiative"]["muslim"]
    s = do(s, "christian", type="end_turn")
    assert s["phase"] == "maintenance"
    assert s["pending"] == {"kind": "window", "role": "muslim", "card": "al-husayni"}
    s = do(s, "muslim", type="special", card="al-husayni")
    wanted = sorted(s["deck"])[0]
    assert has(s, "muslim", type="take", card=s["discard"][0], **{"from": "discard"})
    s = do(s, "muslim", type="take", card=wanted, **{"from": "deck"})
    # the taken card replaced the initiative card (which went back into the shuffle)
    assert s["round"] == 2 and wanted in s["hands"]["muslim"] and len(s["hands"]["muslim"]) == 3
    assert "Muslim takes back the initiative card" not in logs(s)
    assert "Christian takes back the initiative card" in logs(s)
    assert mine in s["deck"] + s["hands"]["muslim"] + s["hands"]["christian"]
    # taken from the deck: the Christian does not learn which card it was
    assert wanted not in view(s, "christian")["known_opponent_cards"]
    assert all(wanted not in e["text"] or "to" in e for e in s["log"][-12:] if "Al-Husayni" in e["text"])


@pytest.mark.rule(sec("Al-Husayni"), ADV)
def test_reaction_windows_open_whether_or_not_the_card_is_held() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}), number=4, advanced=True)
    give_specials(s, "muslim", ["jund"])
    s = do(s, "christian", type="end_turn")
    assert s["pending"] == {"kind": "window", "role": "muslim", "card": "al-husayni"}
    assert [a["type"] for a in actions(s, "muslim")] == ["pass", "pass"]
    assert view(s, "christian")["prompt"] == "Waiting for Muslim to react."
    s = do(s, "muslim", type="pass", auto=True)
    assert s["round"] == 2 and s["autopass"]["muslim"]


@pytest.mark.rule(sec("Black Guard"))
def test_black_guard_inflicts_2_damage_on_the_zone_attacking_the_camp() -> None:
    layout = deployed_except({"B2": ["c10", "c11", "c12"], "B3": [], "B4": []})
    s = turn_state("christian", "g3r4", layout, deck=["g6r1"], advanced=True)
    give_specials(s, "muslim", ["black-guard"])
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="attack", target="B1")
    s = do(s, "christian", type="units", units=["c10", "c11"])
    assert s["pending"] == {"kind": "window", "role": "muslim", "card": "black-guard"}
    assert s["last_battle"] is None  # before the attack is resolved
    s = do(s, "muslim", type="special", card="black-guard")
    assert s["pending"] == {"kind": "damage", "role": "christian", "zone": "B2", "amount": 2}
    s = do(s, "christian", type="damage", flip=["c10", "c11"], eliminate=[])
    # the attack goes on with the flipped units: 1 + 2 + 2 = 5 against 6 + 6 + 2 = 14
    assert s["last_battle"]["attacker_total"] == 5


@pytest.mark.rule(sec("Black Guard"))
def test_an_attack_whose_units_all_fall_to_a_card_is_not_resolved() -> None:
    layout = deployed_except({"B2": ["c10"], "B3": [], "B4": []})
    s = turn_state("christian", "g3r4", layout, deck=["g6r1"], advanced=True, powers={"c10": 2})
    give_specials(s, "muslim", ["black-guard"])
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="attack", target="B1")
    s = do(s, "muslim", type="special", card="black-guard")
    assert zone_units(s, "B2") == [] and s["last_battle"] is None and s["deck"][0] == "g6r1"


@pytest.mark.rule(sec("Jund Infantry"))
def test_jund_card_stops_the_christian_column_after_a_cleared_zone() -> None:
    layout = deployed_except({"B3": ["c10", "c11", "c12"], "B4": ["c13", "c14", "c15"], "B5": [], "B6": [],
                              "B2": ["m14", "m15"]})
    s = turn_state("christian", "g3r4", layout, deck=["g1r6"], advanced=True, powers={"m14": 1, "m15": 1})
    give_specials(s, "muslim", ["jund"])
    s = do(s, "christian", type="zone", zone="B3")
    s = do(s, "christian", type="charge", target="B2")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert zone_units(s, "B2") == []
    assert s["pending"] == {"kind": "window", "role": "muslim", "card": "jund"}
    s = do(s, "muslim", type="special", card="jund")
    assert zone_units(s, "B2") == [] and zone_units(s, "B3") == ["c10", "c11", "c12"]
    assert "stops the advance" in logs(s)


@pytest.mark.rule(sec("Kurdish cavalry"))
def test_kurdish_card_strikes_the_charging_zone_after_karr_is_declared() -> None:
    layout = deployed_except({"A4": ["c01", "c02"]})
    s = turn_state("christian", "g1r6", layout, deck=["g4r3", "g5r2"], advanced=True)
    give_specials(s, "muslim", ["kurdish"])
    s = do(s, "christian", type="zone", zone="A4")
    s = do(s, "christian", type="charge", target="A3")
    s = do(s, "christian", type="units", units=["c01", "c02"])
    s = do(s, "muslim", type="karr", declare=True)
    assert s["pending"] == {"kind": "window", "role": "muslim", "card": "kurdish"}
    s = do(s, "muslim", type="special", card="kurdish")
    # 2 damage on A4's 4 Power: the Christian distributes it before the charge
    s = do(s, "christian", type="damage", flip=["c01", "c02"], eliminate=[])
    assert "Damage in A4: flip Aragonese Knights (c01), Aragonese Knights (c02)." in logs(s)
    battle = next(e["text"] for e in s["log"] if e["text"].startswith("Battle A4→A3"))
    assert f"Christian {3 + 2 + 5 + 1} = " in battle


@pytest.mark.rule(sec("Kurdish cavalry"))
def test_no_kurdish_window_without_karr_wa_l_farr() -> None:
    s = turn_state("christian", "g1r6", deployed_except({}), deck=["g4r3", "g5r2"], advanced=True)
    give_specials(s, "muslim", ["kurdish"])
    s = do(s, "christian", type="zone", zone="A4")
    s = do(s, "christian", type="charge", target="A3")
    s = do(s, "christian", type="units", units=["c01", "c02", "c03"])
    s = do(s, "muslim", type="karr", declare=False)
    assert s["pending"] is None or s["pending"]["kind"] == "damage"
    assert "kurdish" not in s["specials"]["muslim"]["used"]


@pytest.mark.rule(sec("Jihad Volunteers"))
def test_jihad_card_avenges_the_last_volunteers() -> None:
    s = turn_state("christian", "g3r4", deployed_except({}), deck=["g1r6"], advanced=True)
    give_specials(s, "muslim", ["jihad"])
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="charge", target="B3")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert s["pending"] == {"kind": "window", "role": "muslim", "card": "jihad"}
    assert zone_units(s, "B3") == [] and zone_units(s, "B4") == ["c10", "c11", "c12"]  # before the advance
    s = do(s, "muslim", type="special", card="jihad")
    s = do(s, "christian", type="damage", flip=["c10", "c11"], eliminate=[])
    assert zone_units(s, "B3") == ["c10", "c11", "c12"]  # the column still advances


@pytest.mark.rule(sec("Peter II"))
def test_peter_ii_gives_a_free_move_of_aragonese_cavalry_into_an_empty_zone() -> None:
    s = turn_state("christian", "g6r1", deployed_except({"A3": []}), advanced=True)
    give_specials(s, "christian", ["peter"])
    moves = [(a["from"], a["to"]) for a in actions(s, "christian") if a.get("card") == "peter"]
    assert moves == [("A4", "A3")]
    s = do(s, "christian", type="special", card="peter")
    assert zone_units(s, "A3") == ["c01", "c02", "c03"] and s["turn"]["ap"] == 1


@pytest.mark.rule(sec("Sancho VII"))
def test_sancho_vii_adds_2_to_a_navarrese_standard_attack_on_the_centre() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}), deck=["g6r1"], advanced=True)
    give_specials(s, "christian", ["sancho"])
    s = do(s, "christian", type="zone", zone="C4")
    assert not has(s, "christian", type="attack", target="C3", card="sancho")
    s = do(s, "christian", type="attack", target="B3", card="sancho")
    s = do(s, "christian", type="units", units=["c19", "c20", "c21"])
    battle = dict((k, v) for k, v in s["last_battle"]["attacker_parts"])
    assert battle["Sancho VII card"] == 2 and s["specials"]["christian"]["used"] == ["sancho"]


@pytest.mark.rule(sec("Lopez de Haro"))
def test_lopez_de_haro_adds_2_to_an_attack_he_joins() -> None:
    s = turn_state("christian", "g3r4", deployed_except({}), deck=["g1r6"], advanced=True)
    give_specials(s, "christian", ["lopez"])
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="charge", target="B3", card="lopez")
    groups = [a["units"] for a in actions(s, "christian") if a["type"] == "units"]
    assert groups and all("c10" in g for g in groups)
    s = do(s, "christian", type="units", units=["c10", "c11"])
    battle = dict((k, v) for k, v in s["last_battle"]["attacker_parts"])
    assert battle["López de Haro card"] == 2 and s["last_battle"]["attacker_total"] == 6 + 4 + 5 + 2


@pytest.mark.rule(sec("Jimenez de Rada"))
def test_jimenez_de_rada_looks_at_a_random_card_of_the_muslims_hand() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}), advanced=True)
    give_specials(s, "christian", ["jimenez"])
    hand = list(s["hands"]["muslim"])
    s = do(s, "christian", type="special", card="jimenez")
    seen = view(s, "christian")["known_opponent_cards"]
    assert len(seen) == 1 and seen[0] in hand
    assert view(s, "muslim")["opponent_knows"] == seen
    assert view(s, None)["known_opponent_cards"] == []
    assert not any(seen[0] in e["text"] for e in view(s, None)["log"])


@pytest.mark.rule(sec("Council Militia"))
def test_council_militia_rallies_their_zones_at_the_start_of_the_turn_only() -> None:
    powers = {"c04": 1, "c06": 1, "c25": 1, "c01": 1}
    s = turn_state("christian", "g2r5", deployed_except({}), advanced=True, powers=powers)
    give_specials(s, "christian", ["militia"])
    s2 = do(s, "christian", type="special", card="militia")
    assert [power(s2, u) for u in ("c04", "c06", "c25", "c01")] == [2, 2, 2, 1]  # A4 has no militia
    assert not s2["units"]["c04"]["exhausted"] and s2["turn"]["ap"] == 5
    s3 = do(s, "christian", type="switch", shield=False)
    assert not has(s3, "christian", type="special", card="militia")
    give_specials(s, "christian", ["alfonso"])
    s4 = do(s, "christian", type="special", card="alfonso")  # extra points are not an order
    assert has(s4, "christian", type="special", card="militia")


@pytest.mark.rule(sec("Lopez de Haro"), "Christian cavalry charge")
def test_a_lopez_de_haro_charge_without_lopez_is_refused_for_the_card_not_the_direction() -> None:
    # Lopez de Haro stands in B5, so B4's forward charge at B3 is legal without the card; with
    # the card it is refused because Lopez would not join, not because of the direction.
    layout = deployed_except({"B4": ["c11", "c12"], "B5": ["c10", "c13", "c14"]})
    s = turn_state("christian", "g3r4", layout, deck=["g1r6"], advanced=True)
    give_specials(s, "christian", ["lopez"])
    s = do(s, "christian", type="zone", zone="B4")
    assert has(s, "christian", type="charge", target="B3")
    assert not has(s, "christian", type="charge", target="B3", card="lopez")
    with pytest.raises(RuleError) as err:
        apply(s, "christian", {"type": "charge", "target": "B3", "card": "lopez"})
    assert "only goes forward" not in str(err.value)
    assert "López de Haro" in str(err.value) and "B4" in str(err.value)
    assert err.value.rule == sec("Lopez de Haro")
