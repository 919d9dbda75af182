"""Special cards and special units in battle (section 10)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.granada import battle
from engine.granada import state as st
from tests.engine.granada.test_battle_impacts import act, blank, came, deploy, give, has, legal, place, top


def field(christian: tuple[str, ...], muslim: tuple[str, ...], c_cards: tuple[str, ...] = (),
          m_cards: tuple[str, ...] = (), loc: str = "huescar", attacker: str = "christian") -> dict[str, Any]:
    s = blank()
    place(s, loc, *christian)
    place(s, loc, *muslim)
    give(s, "christian", *c_cards)
    give(s, "muslim", *m_cards)
    battle.start_battle(s, loc, attacker)
    return s


def deps(s: dict[str, Any], side: str) -> list[list[int]]:
    return [d["impacts"] for d in top(s)["deployed"][side]]


@pytest.mark.rule("10.1", "8.3.3.1")
def test_commander_deploys_any_block_with_its_special_attack() -> None:
    s = field(("W37", "W05"), ("K20",), ("C60", "C61"))
    act(s, "muslim", "fight")
    deploy(s, "christian", "C60", "W37")          # León 3 cavalry: 3 + 2
    assert top(s)["step"] == "deploy"             # Commander plays cannot be challenged
    act(s, "muslim", "finish")
    act(s, "christian", "play", card="C61")
    act(s, "christian", "deploy", block="W05")    # Castile 3 cavalry: 3 + 2 + 2 (previous cavalry)
    assert deps(s, "christian") == [[5], [7]]
    assert s["battle_discard"]["christian"] == ["C60", "C61"]


@pytest.mark.rule("10.1", "8.4.1")
def test_the_pre_battle_prompt_does_not_depend_on_the_hand() -> None:
    s = field(("W04",), ("K20", "K21"), m_cards=("M22",))
    assert top(s)["step"] == "avoid"
    assert {a["type"] for a in legal(s, "muslim")} == {"fight"}
    s = field(("W04",), ("K20", "K21"), m_cards=("M55",))
    assert {a["type"] for a in legal(s, "muslim")} == {"fight", "commander_retreat"}
    assert [a["type"] for a in legal(s, "muslim") if a.get("pass")] == ["fight"]


@pytest.mark.rule("10.3", "8.4.1", "8.3.3.1")
def test_watchtower_card_adds_four_and_stops_attacker_challenges_and_charges() -> None:
    # Vélez-Málaga: a Muslim watchtower
    s = field(("W05", "W10"), ("K22",), ("C01", "C02", "C56"), ("M57", "M17"), loc="velez_malaga")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C01", "W05")          # cavalry before the Watchtower: 3 + 2 counts
    act(s, "muslim", "pass")
    assert has(s, "muslim", "watchtower", card="M57")
    act(s, "muslim", "watchtower", card="M57")    # +4: 4-5, still behind
    assert top(s)["impacts"]["muslim"] == 4
    assert not has(s, "muslim", "watchtower")     # one per combat
    deploy(s, "muslim", "M17", "K22")             # Zegries 3 cavalry + trumpet: defender's charge counts
    assert top(s)["step"] == "deploy"             # no challenge against the Watchtower's defender
    assert top(s)["impacts"]["muslim"] == 4 + 5
    assert top(s)["initiative"] == "christian"
    deploy(s, "christian", "C02", "W10")          # Castile 2 cavalry + trumpet after it: 2 + 1 only
    assert deps(s, "christian") == [[5], [3]]
    assert top(s)["step"] == "morale"             # the defender may still challenge (10.3)


@pytest.mark.rule("10.3")
def test_only_the_defender_controlling_the_watchtower_may_play_the_card() -> None:
    s = field(("W04",), ("K20",), ("C64", "C07"), ("M57",), loc="huescar")   # no watchtower
    assert not has(s, "muslim", "watchtower")
    act(s, "muslim", "fight")
    assert not has(s, "christian", "watchtower")
    # a watchtower location the attacker controls: no card for the defender
    s = field(("W04",), ("K20",), ("C64",), ("M57",), loc="velez_malaga")
    s["control"]["velez_malaga"] = "christian"
    battle.start_battle(s, "velez_malaga", "christian")
    assert not has(s, "muslim", "watchtower")



@pytest.mark.rule("10.3", "8.2.2", "8.2.4", "8.3.3.1")
def test_the_attacker_deploys_first_so_a_castile_trumpet_charges_before_any_watchtower() -> None:
    # RULINGS_BATTLE 4 (revised): 8.2 "the attacker starts the battle by making the first
    # deployment"; the Watchtower card comes when the defender holds the initiative (8.2.4),
    # so 10.3's "before" window always exists for the attacker's charges and challenges
    s = field(("W05",), ("K20",), ("C01",), ("M57",), loc="velez_malaga")
    assert top(s)["step"] == "avoid"
    assert not has(s, "muslim", "watchtower")              # not in the pre-battle prompt
    act(s, "muslim", "fight")
    assert top(s)["initiative"] == "christian" and not has(s, "christian", "watchtower")
    deploy(s, "christian", "C01", "W05")                   # Castile cavalry + trumpet: 3 + 2
    assert deps(s, "christian") == [[5]]
    act(s, "muslim", "pass")
    act(s, "muslim", "watchtower", card="M57")
    assert top(s)["impacts"] == {"christian": 5, "muslim": 4}


@pytest.mark.rule("10.3", "8.3.3.2")
def test_artillery_special_attacks_at_a_watchtower() -> None:
    s = field(("W04", "W06", "W13"), ("K17", "K20"), ("C07", "C01", "C03"), ("M57", "M01"),
              loc="velez_malaga")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W04")          # the attacker opens (8.2): Castile 3
    act(s, "muslim", "pass")
    act(s, "muslim", "watchtower", card="M57")    # 4 against 3
    deploy(s, "christian", "C01", "W06")          # after a Watchtower card guns fire: 3 + 1 + 2
    act(s, "muslim", "pass")
    assert deps(s, "christian") == [[3], [6]]
    # the defender may now fire once: Andalusies 1 gun + 2
    deploy(s, "muslim", "M01", "K17")             # 4 + 3 = 7 against 9
    assert deps(s, "muslim") == [[3]]
    act(s, "muslim", "finish")
    deploy(s, "christian", "C03", "W13")          # 2 + 2 + 2 (artillery is not cumulative)
    act(s, "muslim", "pass")
    assert deps(s, "christian")[-1] == [6]


@pytest.mark.rule("8.3.3.2")
def test_no_artillery_special_attack_in_an_open_field() -> None:
    s = field(("W06",), ("K20",), ("C01",))
    act(s, "muslim", "fight")
    deploy(s, "christian", "C01", "W06")
    assert deps(s, "christian") == [[3]]


@pytest.mark.rule("10.4", "10.9")
def test_cavalry_charge_deploys_a_military_order_with_its_charge() -> None:
    s = field(("W57", "W58"), ("K20",), ("C67", "C48", "C51"))
    act(s, "muslim", "fight")
    deploy(s, "christian", "C67", "W57")          # 2 + 2
    assert top(s)["step"] == "deploy"             # Military Orders are immune to challenges
    act(s, "muslim", "finish")
    deploy(s, "christian", "C48", "W58")          # Other Kingdoms card, no trumpet: 2 + 1 (the other Order)
    assert deps(s, "christian") == [[4], [3]]


@pytest.mark.rule("10.9", "8.3.3.1")
def test_military_order_charges_with_a_trumpet_card_of_any_faction() -> None:
    s = field(("W57",), ("K20",), ("C45",))       # Other Kingdoms Special Attack
    act(s, "muslim", "fight")
    deploy(s, "christian", "C45", "W57")
    assert deps(s, "christian") == [[4]]


@pytest.mark.rule("10.4")
def test_crossbowmen_card_any_crossbow_block() -> None:
    s = field(("W28", "W45"), ("K20",), ("C68", "C34"))
    act(s, "muslim", "fight")
    act(s, "christian", "play", card="C68")
    assert [a["block"] for a in legal(s, "christian") if a["type"] == "deploy"] == ["W28", "W45"]
    act(s, "christian", "deploy", block="W28")    # Aragón 2 crossbow + 2 (cannot be challenged)
    act(s, "muslim", "finish")
    deploy(s, "christian", "C34", "W45")          # León 1 crossbow + 2 + 2 (previous crossbow)
    assert deps(s, "christian") == [[4], [5]]


@pytest.mark.rule("8.3.4", "10.11")
def test_a_double_card_on_an_any_faction_block_deploys_it_alone() -> None:
    s = field(("W04",), ("K56", "K20"), m_cards=("M27",), attacker="muslim")
    act(s, "christian", "fight")
    deploy(s, "muslim", "M27", "K56")             # Double Zegries on the Mujahideens: 4, no second
    assert top(s)["step"] == "deploy" and deps(s, "muslim") == [[4]]


@pytest.mark.rule("10.11")
def test_mujahideens_take_any_single_card_but_not_a_cavalry_charge() -> None:
    s = field(("W04",), ("K56", "K57"), m_cards=("M61", "M05", "M44"), attacker="muslim")
    act(s, "christian", "fight")
    assert not has(s, "muslim", "play", card="M61")
    deploy(s, "muslim", "M05", "K56")
    assert top(s)["step"] == "deploy"             # immune to Morale Challenges
    act(s, "christian", "finish")
    deploy(s, "muslim", "M44", "K57")
    assert deps(s, "muslim") == [[4], [5]]        # the other Mujahideens block's bonus


@pytest.mark.rule("10.8")
def test_el_zagal_deploys_free_first_or_with_any_single_card_for_two_impacts() -> None:
    s = field(("W04",), ("K02", "K20"), m_cards=("M43",), attacker="muslim")
    act(s, "christian", "fight")
    assert has(s, "muslim", "deploy_leader", block="K02")
    s = field(("W04",), ("K02", "K20"), m_cards=("M43", "M22"), attacker="muslim")
    act(s, "christian", "fight")
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    act(s, "christian", "finish")
    deploy(s, "muslim", "M43", "K02")             # a Banu Bannigas card for El Zagal
    assert deps(s, "muslim") == [[3], [2]]


@pytest.mark.rule("10.10")
def test_palace_guard_deploys_with_any_card_and_charges_with_cavalry_charge() -> None:
    s = field(("W04",), ("K54", "K55"), m_cards=("M61", "M05"), attacker="muslim", loc="illora")
    act(s, "christian", "fight")
    deploy(s, "muslim", "M61", "K55")             # the cavalry guard: 2 + 2
    act(s, "christian", "finish")
    deploy(s, "muslim", "M05", "K54")             # 2 + 1, immune to challenges
    assert deps(s, "muslim") == [[4], [3]] and top(s)["step"] == "deploy"


@pytest.mark.rule("10.10", "8.6.3")
def test_palace_guard_retreats_only_around_granada() -> None:
    s = field(("W04",), ("K54", "K06", "K07"), ("C07",), loc="moclin")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W04")
    act(s, "muslim", "pass")
    act(s, "muslim", "finish")
    act(s, "christian", "finish")
    act(s, "muslim", "lose", block="K07")
    # Moclín's neighbours: Alcalá la Real, Granada, Íllora; only the last two are next to Granada
    assert sorted(a["to"] for a in legal(s, "muslim")) == ["granada", "illora"]


@pytest.mark.rule("10.12.2", "8.4.1")
def test_grey_blocks_fight_apart_from_white_ones_with_christian_cards() -> None:
    s = field(("W04", "G2", "G5", "G1"), ("K20",), ("C45", "C07", "C25"), ("M51",))
    assert top(s)["step"] == "colour"
    act(s, "christian", "fight_with", colour="grey")
    act(s, "muslim", "fight")
    f = top(s)
    from engine.granada import battle_deploy as bd
    assert sorted(bd.force(s, f, "christian")) == ["G1", "G2", "G5"]
    # Banu Sarray grey with an Other Kingdoms Special Attack card: cavalry 2 + 2
    deploy(s, "christian", "C45", "G2")
    assert top(s)["step"] == "deploy"             # no challenge against the Mixed Army
    act(s, "muslim", "finish")
    # grey Castile only with a Castile card (grey Boabdil takes any single-faction card)
    act(s, "christian", "play", card="C07")
    assert [a["block"] for a in legal(s, "christian") if a["type"] == "deploy"] == ["G1", "G5"]
    act(s, "christian", "cancel")
    act(s, "christian", "play", card="C25")       # an Aragón card: Boabdil only
    assert [a["block"] for a in legal(s, "christian") if a["type"] == "deploy"] == ["G1"]


@pytest.mark.rule("10.12.1", "10.12.2", "8.8")
def test_grey_boabdil_losing_ends_the_alliance_and_grey_losses_draw_no_card() -> None:
    s = field(("W04", "G2", "G1"), ("K20", "K21"), ("C45",), ("M22", "M23"))
    s["boabdil"].update(captures=1, grey=["G1", "G2"], allied_until=5)
    s["blocks"]["K01"]["loc"] = "captured"
    came(s, "huescar", "christian", "ubeda")
    act(s, "christian", "fight_with", colour="grey")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C45", "G2")           # 4
    deploy(s, "muslim", "M22", "K20")             # 3
    act(s, "christian", "pass")
    deploy(s, "muslim", "M23", "K21")             # 3 + 1: 7
    act(s, "christian", "pass")
    assert top(s)["impacts"] == {"christian": 4, "muslim": 7}
    hand = len(s["hands"]["christian"])
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    # grey: 1 (7 impacts) + 1 (defeat) = 2, but Boabdil cannot be lost: G2 only
    assert s["blocks"]["G2"]["loc"] in ("eliminated", "boabdil_box")
    # Boabdil lost a combat: the grey army goes home; the white stack still retreats
    assert s["blocks"]["G1"]["loc"] == "boabdil_box" and s["boabdil"]["pending"] == "return"
    assert s["blocks"]["W04"]["loc"] == "ubeda"            # its one way back, taken at once
    assert len(s["hands"]["christian"]) == hand + 1   # the card played; no card for grey losses


@pytest.mark.rule("10.2")
def test_bombardment_in_a_field_combat_only_brings_artillery_back() -> None:
    s = field(("W04",), ("K20",), ("C62", "C01"))
    s["blocks"]["W06"]["loc"] = "eliminated"
    place(s, "jaen", "W16")
    act(s, "muslim", "fight")
    act(s, "christian", "bombard", card="C62")
    act(s, "christian", "place", block="W06")
    assert sorted(a["loc"] for a in legal(s, "christian")) == ["huescar", "jaen"]
    act(s, "christian", "place_at", loc="huescar")
    assert top(s)["pending"] is None              # no artillery special attack in the open
    deploy(s, "christian", "C01", "W06")          # then deployed with a Castile card: shields only
    assert deps(s, "christian") == [[3]]
    act(s, "muslim", "pass")
    assert st.top(s)["initiative"] == "muslim"


@pytest.mark.rule("10.3", "8.3.3.2")
def test_the_watchtower_defender_fires_one_artillery_special_attack_at_most() -> None:
    s = field(("W04", "W06"), ("K17", "K48"), ("C07", "C01"), ("M57", "M01", "M55"), loc="velez_malaga")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W04")          # 3
    act(s, "muslim", "pass")
    act(s, "muslim", "watchtower", card="M57")    # 4 against 3
    deploy(s, "christian", "C01", "W06")          # 3 + 1 + 2: 9 against 4
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M01", "K17")             # the one artillery special attack: 1 + 2
    deploy(s, "muslim", "M55", "K48")             # a Commander would launch it: no more, 2 only
    assert deps(s, "muslim") == [[3], [2]]
    assert [d["special"] for d in top(s)["deployed"]["muslim"]] == ["artillery", ""]


@pytest.mark.rule("10.3", "8.3.3.2")
def test_before_the_attacker_fires_the_watchtower_defender_may_not() -> None:
    s = field(("W04",), ("K17",), ("C07",), ("M57", "M01"), loc="velez_malaga")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W04")
    act(s, "muslim", "pass")
    act(s, "muslim", "watchtower", card="M57")
    act(s, "christian", "finish")
    deploy(s, "muslim", "M01", "K17")             # the attacker made no artillery attack: 1
    assert deps(s, "muslim") == [[1]]
