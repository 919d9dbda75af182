"""Retreats after field combat and before combat (8.6), follow-on battles (8.6.6)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.granada import battle
from engine.granada import state as st
from tests.engine.granada.test_battle_impacts import act, blank, came, deploy, give, legal, place, top


def muslim_defeat_at(loc: str, muslim: tuple[str, ...], christian: tuple[str, ...] = ("W04",),
                     card: str = "C07", lose: str | None = None,
                     around: dict[str, str] | None = None,
                     entries: dict[str, Any] | None = None) -> dict[str, Any]:
    """The Christians attack ``loc``; the Muslims deploy nothing, lose, and lose ``lose``
    (by default the first block they may pick) for the defeat (8.5.1)."""
    s = blank()
    place(s, loc, *christian)
    place(s, loc, *muslim)
    for where, b in (around or {}).items():      # Christian blocks around the battle
        place(s, where, b)
    s["entries"] = entries or {}
    give(s, "christian", card)
    battle.start_battle(s, loc, "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", card, christian[0])
    act(s, "muslim", "pass")
    act(s, "muslim", "finish")
    act(s, "christian", "finish")
    if top(s)["step"] == "loss":
        act(s, "muslim", "lose", block=lose or legal(s, "muslim")[0]["block"])
    return s


@pytest.mark.rule("8.6.3", "8.6.1")
def test_defender_retreats_away_from_enemies_and_where_they_came_from() -> None:
    s2 = blank()
    came(s2, "huescar", "christian", "ubeda")
    entries = s2["entries"]
    s2 = muslim_defeat_at("huescar", ("K20", "K21"), around={"velez_blanco": "W16"}, entries=entries)
    # the Muslim lost 1 block (the defeat); the other retreats to the one place allowed: Baza
    # (Úbeda: the enemy came from there; Vélez Blanco: enemies), at once as nothing is to choose
    assert s2["stack"][-1]["module"] == "sequence"
    left = [b for b in ("K20", "K21") if s2["blocks"][b]["loc"] == "baza"]
    assert len(left) == 1
    assert s2["control"]["huescar"] == "christian"


@pytest.mark.rule("8.6.3", "8.6.6")
def test_a_cornered_defender_may_retreat_anywhere_adjacent_even_onto_enemies() -> None:
    s = muslim_defeat_at("huescar", ("K20", "K21", "K04"),
                         around={"baza": "W16", "ubeda": "W17", "velez_blanco": "W21"})
    assert sorted(a["to"] for a in legal(s, "muslim")) == ["baza", "ubeda", "velez_blanco"]
    act(s, "muslim", "retreat", to="velez_blanco")
    # 8.6.6: 2 Muslim blocks against 1 Christian: no overrun (needs 4 times); a new battle
    # at once, the retreating blocks attacking
    f = top(s)
    assert f["module"] == "battle" and f["loc"] == "velez_blanco" and f["attacker"] == "muslim"


@pytest.mark.rule("8.6.6")
def test_a_retreat_can_overrun() -> None:
    s = muslim_defeat_at("huescar", ("K20", "K21", "K04", "K06", "K07"),
                         around={"baza": "W16", "ubeda": "W17", "velez_blanco": "W21"})
    act(s, "muslim", "retreat", to="velez_blanco")     # 4 retreating blocks against 1
    assert s["blocks"]["W21"]["loc"] == "eliminated"
    assert s["stack"][-1]["module"] == "sequence"


@pytest.mark.rule("8.6.2")
def test_attacker_retreats_where_it_came_from_or_anywhere_if_it_came_by_sea() -> None:
    def attack(origins: tuple[str, ...]) -> dict[str, Any]:
        s = blank()
        place(s, "huescar", "W16", "W17", "W21")
        place(s, "huescar", "K20")
        came(s, "huescar", "christian", *origins)
        give(s, "muslim", "M22")
        battle.start_battle(s, "huescar", "christian")
        act(s, "muslim", "fight")
        act(s, "christian", "finish")
        deploy(s, "muslim", "M22", "K20")
        act(s, "christian", "pass")
        act(s, "muslim", "finish")
        act(s, "christian", "lose", block="W16")      # an undeployed block, his choice
        return s

    s = attack(("ubeda", "baza"))
    assert sorted(a["to"] for a in legal(s, "christian")) == ["baza", "ubeda"]
    s = attack(("muster",))
    assert sorted(a["to"] for a in legal(s, "christian")) == ["baza", "ubeda", "velez_blanco"]


@pytest.mark.rule("8.6.4")
def test_artillery_used_in_battle_cannot_retreat() -> None:
    s = blank()
    place(s, "huescar", "W06", "W13")                    # two Castile artillery blocks
    place(s, "huescar", "K20", "K21")
    came(s, "huescar", "christian", "ubeda")
    give(s, "christian", "C07")
    give(s, "muslim", "M22", "M23")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W13")                 # 2
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M22", "K20")                    # 3
    act(s, "christian", "pass")
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    # loss for the defeat: W13 (deployed) is forced; W06 was never used and retreats
    assert s["blocks"]["W13"]["loc"] == "eliminated"
    assert s["blocks"]["W06"]["loc"] == "ubeda"          # the one way back


@pytest.mark.rule("8.6.4")
def test_deployed_artillery_left_after_losses_is_eliminated_on_retreat() -> None:
    s = blank()
    place(s, "huescar", "W06", "W16", "W09")
    place(s, "huescar", "K20", "K28")
    came(s, "huescar", "christian", "ubeda")
    give(s, "christian", "C07", "C08")
    give(s, "muslim", "M22", "M23")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W06")                 # 3 (guns do not count in the open)
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M22", "K20")                    # 3: the defender leads
    act(s, "christian", "pass")
    deploy(s, "christian", "C08", "W16")                 # 1 + 1 = 5
    act(s, "muslim", "pass")
    deploy(s, "muslim", "M23", "K28")                    # 1 + 1: 5-5, the defender leads
    act(s, "christian", "pass")
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    assert top(s)["to_lose"] == {"christian": 1, "muslim": 0}
    assert {a["block"] for a in legal(s, "christian")} == {"W06", "W16"}   # deployed first
    act(s, "christian", "lose", block="W16")
    assert s["blocks"]["W06"]["loc"] == "eliminated"      # used in battle: cannot retreat
    assert s["blocks"]["W09"]["loc"] == "ubeda"
    assert top(s)["returns"][-1]["winner"] == "muslim"


@pytest.mark.rule("8.6.4", "8.4.1")
def test_artillery_that_failed_a_morale_challenge_cannot_retreat() -> None:
    s = blank()
    place(s, "huescar", "W06", "W04", "W09")
    place(s, "huescar", "K20")
    came(s, "huescar", "christian", "ubeda")
    give(s, "christian", "C07")
    give(s, "muslim", "M22", "M51")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "fight")
    deploy(s, "christian", "C07", "W06")
    act(s, "muslim", "challenge", card="M51")
    act(s, "christian", "concede")
    act(s, "christian", "finish")
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    act(s, "muslim", "finish")
    # the defeat's loss is forced on the one deployed block, W06 itself
    assert s["blocks"]["W06"]["loc"] == "eliminated"
    assert {s["blocks"][b]["loc"] for b in ("W04", "W09")} == {"ubeda"}


@pytest.mark.rule("8.6.5", "8.7.2")
def test_loser_who_held_the_castle_may_leave_two_blocks_inside() -> None:
    s = muslim_defeat_at("loja", ("K04", "K06", "K07", "K08"))   # 4 blocks: must fight outside
    f = top(s)
    assert f["mode"] == "field" and f["step"] == "castle_retreat"
    act(s, "muslim", "enter_castle", block="K06")
    act(s, "muslim", "enter_castle", block="K07")
    assert top(s)["step"] == "retreat"                  # the castle is full
    dest = legal(s, "muslim")[0]["to"]
    act(s, "muslim", "retreat", to=dest)
    assert s["blocks"]["K06"]["inside"] and s["blocks"]["K07"]["inside"]
    assert s["castle"]["loja"] == "muslim" and s["control"]["loja"] == "christian"


@pytest.mark.rule("8.6.5")
def test_the_castle_is_no_refuge_for_the_side_that_did_not_hold_it() -> None:
    s = blank()
    s["castle"]["loja"] = "christian"
    s["control"]["loja"] = "christian"
    place(s, "loja", "K04", "K06", "K07")
    place(s, "loja", "W16", "W17", "W21")
    give(s, "muslim", "M05")
    battle.start_battle(s, "loja", "muslim")            # 3 Christian blocks: a field combat
    act(s, "christian", "fight")
    deploy(s, "muslim", "M05", "K04")
    act(s, "christian", "pass")
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    act(s, "christian", "lose", block="W16")
    assert top(s)["step"] == "castle_retreat"            # the Christians held it
    s2 = muslim_defeat_at("huescar", ("K04", "K06"))
    assert top(s2)["step"] == "retreat"


@pytest.mark.rule("8.6.7", "10.1")
def test_commander_retreat_before_combat_up_to_two_locations() -> None:
    s = blank()
    place(s, "huescar", "W04")
    place(s, "huescar", "K20", "K21")
    came(s, "huescar", "christian", "ubeda")
    give(s, "muslim", "M55")
    hand_before = list(s["hands"]["muslim"])
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "commander_retreat", card="M55")
    dests = {a["to"] for a in legal(s, "muslim")}
    # one step: Baza, Vélez Blanco (not Úbeda, where the attack came from); two steps on from
    # those: Guadix, Purchena, Albox, Lorca (not back to Huéscar)
    assert dests == {"baza", "velez_blanco", "guadix", "purchena", "albox", "lorca"}
    act(s, "muslim", "retreat", to="guadix")
    assert {s["blocks"][b]["loc"] for b in ("K20", "K21")} == {"guadix"}
    assert s["stack"][-1]["module"] == "sequence"        # the battle does not take place
    assert "M55" in s["discards"]["muslim"] and hand_before == ["M55"] and s["hands"]["muslim"] == []
    assert s["control"]["huescar"] == "christian"


@pytest.mark.rule("8.6.7", "10.1")
def test_a_stack_of_more_than_five_retreats_one_location_only() -> None:
    s = blank()
    place(s, "huescar", "W04")
    place(s, "huescar", "K20", "K21", "K04", "K06", "K07", "K08")
    place(s, "velez_blanco", "W16")
    give(s, "muslim", "M55")
    battle.start_battle(s, "huescar", "christian")
    act(s, "muslim", "commander_retreat", card="M55")
    assert {a["to"] for a in legal(s, "muslim")} == {"baza", "ubeda"}


@pytest.mark.rule("10.12.1", "8.5.2")
def test_boabdil_is_captured_when_all_his_companions_are_eliminated() -> None:
    s = muslim_defeat_at("huescar", ("K01", "K20"))      # Boabdil and a Zegries block
    # the defeat's loss must be K20: Boabdil cannot be eliminated
    assert s["blocks"]["K20"]["loc"] == "eliminated"
    assert s["blocks"]["K01"]["loc"] == "captured"
    assert s["boabdil"]["captures"] == 1 and s["boabdil"]["pending"] == "place"
    assert s["stack"][-1]["module"] == "sequence"


@pytest.mark.rule("10.12.1")
def test_boabdil_with_companions_left_retreats_with_them() -> None:
    s = muslim_defeat_at("huescar", ("K01", "K20", "K21"), lose="K20")
    assert s["blocks"]["K20"]["loc"] == "eliminated"
    act(s, "muslim", "retreat", to="baza")
    assert s["blocks"]["K01"]["loc"] not in ("captured", "eliminated", "huescar")


def test_battle_frames_offer_only_to_the_active_role() -> None:
    s = muslim_defeat_at("huescar", ("K20", "K21"))
    assert legal(s, "christian") == []
    assert st.top(s)["step"] == "retreat"


@pytest.mark.rule("8.6.1", "10.12.1")
def test_boabdil_with_nowhere_to_retreat_is_captured_not_left_behind() -> None:
    # Orán has no road: the defeated Muslims cannot retreat and are eliminated, all but
    # Boabdil, who is then alone: captured (he "cannot be eliminated").
    s = muslim_defeat_at("oran", ("K01", "K20", "K21"), lose="K20")
    assert s["blocks"]["K21"]["loc"] == "eliminated"
    assert s["blocks"]["K01"]["loc"] == "captured" and s["boabdil"]["captures"] == 1
    assert not st.blocks_at(s, "oran", "muslim")


def christian_defeat_at_illora(granada: tuple[str, ...] = (), christian: tuple[str, ...] = (
        "W04", "W16", "W17", "W21")) -> dict[str, Any]:
    """The Muslims attack the Christians at Íllora from Montefrío; a Muslim block holds
    Moclín, so the only way out for the beaten Christians is Granada (8.6.3)."""
    s = blank()
    place(s, "illora", *christian)
    place(s, "illora", "K20", "K21", "K22")
    place(s, "moclin", "K28")
    place(s, "granada", *granada)
    came(s, "illora", "muslim", "montefrio")
    give(s, "muslim", "M22")
    battle.start_battle(s, "illora", "muslim")
    act(s, "christian", "fight")
    deploy(s, "muslim", "M22", "K20")
    act(s, "christian", "pass")
    act(s, "christian", "finish")
    act(s, "muslim", "finish")
    while top(s)["module"] == "battle" and top(s)["loc"] == "illora" and top(s)["step"] == "loss":
        act(s, "christian", "lose", block=legal(s, "christian")[0]["block"])
    if top(s)["loc"] == "illora" and top(s)["step"] == "retreat":
        act(s, "christian", "retreat", to="granada")      # cornered: anywhere adjacent
    return s


@pytest.mark.rule("10.10", "8.6.6")
def test_a_christian_retreat_into_granada_meets_the_palace_guard() -> None:
    guard = ("K54", "K55")
    s = christian_defeat_at_illora(granada=("K29", "K32", "K33", "K34", "K40"))
    f = top(s)
    assert f["module"] == "battle" and f["loc"] == "granada" and f["attacker"] == "christian"
    # 10.10: the guard appears at the declaration of any battle Christians bring to Granada
    assert [s["blocks"][b]["loc"] for b in guard] == ["granada", "granada"]
    act(s, "muslim", "split_done")                      # every block fights outside (8.7.3)
    act(s, "muslim", "fight")
    assert "against 7 Muslim blocks (8.2)" in s["log"][-1]["text"]


@pytest.mark.rule("10.10", "8.6.6", "8.6.3")
def test_a_christian_retreat_into_an_empty_granada_meets_the_palace_guard() -> None:
    s = christian_defeat_at_illora()
    # Granada with the guard in its box counts as held (RULINGS.md 30): the cornered
    # Christians chose it among the adjacent places, and attack it
    f = top(s)
    assert f["module"] == "battle" and f["loc"] == "granada" and f["attacker"] == "christian"
    assert {s["blocks"][b]["loc"] for b in ("K54", "K55")} == {"granada"}
    assert s["control"]["granada"] == "muslim"


@pytest.mark.rule("8.6.6", "7.4")
def test_a_retreating_force_among_four_times_as_many_enemies_is_overrun_after_its_retreat() -> None:
    # RULINGS.md 20: "an overrun can occur after the retreat" (8.6.6 note) works both ways
    s = muslim_defeat_at("huescar", ("K20", "K21", "K04"),
                         around={"baza": "W16", "ubeda": "W17", "velez_blanco": "W21"})
    place(s, "velez_blanco", "W22", "W23", "W24", "W25", "W26", "W27", "W28")
    left = [b for b in ("K20", "K21", "K04") if s["blocks"][b]["loc"] == "huescar"]
    assert len(left) == 2
    hand = len(s["hands"]["muslim"])
    act(s, "muslim", "retreat", to="velez_blanco")     # 2 blocks against 8
    assert [s["blocks"][b]["loc"] for b in left] == ["eliminated", "eliminated"]
    assert s["stack"][-1]["module"] == "sequence"       # no battle is fought
    assert s["control"]["velez_blanco"] == "christian"
    assert len(s["hands"]["muslim"]) >= hand + 1        # a card for 2 blocks lost (8.8)


@pytest.mark.rule("8.6.6", "7.4")
def test_a_retreating_force_among_fewer_than_four_times_as_many_enemies_attacks() -> None:
    s = muslim_defeat_at("huescar", ("K20", "K21", "K04"),
                         around={"baza": "W16", "ubeda": "W17", "velez_blanco": "W21"})
    place(s, "velez_blanco", "W22", "W23", "W24", "W25", "W26", "W27")   # 7 against 2
    act(s, "muslim", "retreat", to="velez_blanco")
    f = top(s)
    assert f["module"] == "battle" and f["loc"] == "velez_blanco" and f["attacker"] == "muslim"


@pytest.mark.rule("8.6.7", "8.6.3", "10.10")
def test_no_retreat_takes_refuge_in_granada_while_the_guard_waits_in_its_box() -> None:
    from engine.granada import retreat as rt

    s = blank()
    place(s, "illora", "W04")
    place(s, "moclin", "K28")
    came(s, "illora", "muslim", "montefrio")
    assert "granada" not in rt.avoid_destinations(s, "illora", "christian", ["W04"])
    # after a defeat Granada is no refuge either: only cornered may they go there (8.6.3)
    assert rt.retreat_destinations(s, "illora", "christian", ["W04"], False) == [
        "granada", "moclin", "montefrio"]
    for b in ("K54", "K55"):
        s["blocks"][b]["loc"] = "eliminated"         # the box is empty: Granada is open
    assert "granada" in rt.avoid_destinations(s, "illora", "christian", ["W04"])
    assert rt.retreat_destinations(s, "illora", "christian", ["W04"], False) == ["granada"]
