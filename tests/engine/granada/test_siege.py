"""Castle sieges (8.7) through the battle/siege frame, and disks (10.6, 10.7)."""

from __future__ import annotations

from typing import Any

import pytest

from engine.granada import battle
from engine.granada import state as st
from tests.engine.granada.test_battle_impacts import act, blank, deploy, give, has, legal, place, top


def besieged(loc: str, inside: tuple[str, ...], outside: tuple[str, ...], c_cards: tuple[str, ...],
             m_cards: tuple[str, ...] = (), eliminated: tuple[str, ...] = ()) -> dict[str, Any]:
    s = blank()
    for b in eliminated:
        s["blocks"][b]["loc"] = "eliminated"
    place(s, loc, *inside, inside=True)
    place(s, loc, *outside)
    give(s, "christian", *c_cards)
    give(s, "muslim", *m_cards)
    battle.start_battle(s, loc, "christian")
    if top(s)["step"] == "castle":
        act(s, "muslim", "stay_inside")
    if top(s)["step"] == "avoid":
        act(s, "muslim", "fight")
    return s


@pytest.mark.rule("8.7.5", "8.3.3.2")
def test_book_example_nine_minus_three_kills_nothing() -> None:
    s = besieged("loja", ("K17",), ("W25", "W24"), ("C21", "C25"), ("M01",))
    assert top(s)["module"] == "siege" and top(s)["step"] == "besiege"
    act(s, "christian", "assault")
    deploy(s, "christian", "C21", "W25")          # Aragón artillery + trumpet: 3 + 2
    assert top(s)["step"] == "fire"
    # the defender may only fire artillery: no free leader, no other card
    assert {a["type"] for a in legal(s, "muslim")} == {"play", "hold_fire", "cease_fire"}
    deploy(s, "muslim", "M01", "K17")             # Andalusies artillery + trumpet: 1 + 2
    act(s, "muslim", "hold_fire")
    deploy(s, "christian", "C25", "W24")          # Aragón 3 + 1
    act(s, "muslim", "hold_fire")
    f = top(s)
    assert f["impacts"] == {"christian": 9, "muslim": 3}
    hands = {side: len(s["hands"][side]) for side in st.SIDES}
    act(s, "christian", "finish")
    act(s, "muslim", "hold_fire")                 # his last chance, then the siege is resolved
    assert s["blocks"]["K17"]["loc"] == "loja" and s["blocks"]["K17"]["inside"]
    assert s["castle"]["loja"] == "muslim"
    assert s["stack"][-1]["module"] == "sequence"
    # 8.8: both draw back the cards they played; no loss, no extra card
    assert {side: len(s["hands"][side]) for side in st.SIDES} == {"christian": hands["christian"] + 2,
                                                                    "muslim": hands["muslim"] + 1}


@pytest.mark.rule("8.7.5", "8.7.4", "10.6")
def test_el_zegri_is_the_last_unit_lost_at_malaga_and_the_port_needs_one_more_impact() -> None:
    def assault(blockade: bool) -> dict[str, Any]:
        s = besieged("malaga", ("K56",), ("W25", "W24", "W26"), ("C21", "C25", "C26"))
        if blockade:
            place(s, "sea:bay_of_malaga", "W59")
        act(s, "christian", "assault")
        deploy(s, "christian", "C21", "W25")      # 5
        act(s, "muslim", "cease_fire")
        deploy(s, "christian", "C25", "W24")      # 4
        deploy(s, "christian", "C26", "W26")      # 2 + 2 = 4: 13
        act(s, "christian", "finish")
        return s

    s = assault(blockade=False)                   # 13 // 8 (port) = 1: the Mujahideens
    assert s["blocks"]["K56"]["loc"] == "eliminated"
    assert s["disks"]["el_zegri"] == "malaga" and s["castle"]["malaga"] == "muslim"
    s = assault(blockade=True)                    # blockade: 13 // 7 = 1... still 1
    assert s["disks"]["el_zegri"] == "malaga"

    s = besieged("malaga", ("K56",), ("W25", "W24", "W26", "W27"), ("C21", "C25", "C26", "C27"))
    place(s, "sea:bay_of_malaga", "W59")          # Christian fleet: the port gives no protection
    hand = len(s["hands"]["muslim"])
    act(s, "christian", "assault")
    deploy(s, "christian", "C21", "W25")          # 5
    act(s, "muslim", "cease_fire")
    for card, block in (("C25", "W24"), ("C26", "W26"), ("C27", "W27")):
        deploy(s, "christian", card, block)       # 4, 4, 5: 18 // 7 = 2
    act(s, "christian", "finish")
    assert s["blocks"]["K56"]["loc"] == "eliminated" and s["disks"]["el_zegri"] == "eliminated"
    assert s["castle"]["malaga"] == "christian"   # the castle falls (8.7.5 E)
    assert len(s["hands"]["muslim"]) == hand + 2  # one card per block or disk lost (8.7.5 G)


@pytest.mark.rule("8.7.5", "8.7.4")
def test_without_artillery_nine_impacts_per_loss() -> None:
    s = besieged("loja", ("K04", "K06"), ("W04", "W09", "W15"), ("C07", "C08", "C09"))
    act(s, "christian", "assault")
    for card, block in (("C07", "W04"), ("C08", "W09"), ("C09", "W15")):
        deploy(s, "christian", card, block)
        act(s, "muslim", "hold_fire")
    act(s, "christian", "finish")
    act(s, "muslim", "hold_fire")
    # 3 + 3 + 4 = 10: one loss at 9; the defender chooses it
    assert {a["block"] for a in legal(s, "muslim")} == {"K04", "K06"}
    act(s, "muslim", "lose", block="K06")
    assert s["blocks"]["K04"]["inside"] and s["castle"]["loja"] == "muslim"


@pytest.mark.rule("8.7.1")
def test_an_assault_that_cannot_eliminate_a_unit_cannot_start() -> None:
    s = besieged("loja", ("K04",), ("W16", "W17"), ("C07", "C08"))
    # 1 + 2 = 3 impacts at most: the siege cannot start. The attacker is still asked (holding
    # at once would tell the defender about his hand), but may only hold.
    assert top(s)["step"] == "besiege"
    assert [a["type"] for a in legal(s, "christian")] == ["hold"]
    act(s, "christian", "hold")
    assert s["stack"][-1]["module"] == "sequence"
    assert "does not assault" in s["log"][-1]["text"]
    s = besieged("loja", ("K04",), ("W04", "W09", "W15"), ("C07", "C08", "C09"))
    assert {a["type"] for a in legal(s, "christian")} == {"assault", "hold"}
    act(s, "christian", "hold")                   # the besieger may wait (8.7.5 note)
    assert s["stack"][-1]["module"] == "sequence"
    assert s["blocks"]["K04"]["inside"] and s["castle"]["loja"] == "muslim"


@pytest.mark.rule("8.7.2")
def test_declaring_inside_or_outside() -> None:
    # more than 2 blocks always fight outside: no question asked
    s = blank()
    place(s, "loja", "K04", "K06", "K07")
    place(s, "loja", "W04")
    battle.start_battle(s, "loja", "christian")
    assert top(s)["mode"] == "field"
    # 2 blocks: the owner chooses; outside is a field combat
    s = blank()
    place(s, "loja", "K04", "K06", inside=True)
    place(s, "loja", "W04")
    battle.start_battle(s, "loja", "christian")
    assert top(s)["step"] == "castle" and {a["type"] for a in legal(s, "muslim")} == {"stay_inside", "come_out"}
    act(s, "muslim", "come_out")
    assert top(s)["mode"] == "field"
    assert not s["blocks"]["K04"]["inside"]


@pytest.mark.rule("8.7.2")
def test_an_active_owner_staying_inside_means_no_combat() -> None:
    s = blank()
    s["castle"]["loja"] = "christian"
    place(s, "loja", "W04", inside=True)
    place(s, "loja", "W09")                       # a newcomer outside
    place(s, "loja", "K04")
    battle.start_battle(s, "loja", "christian")
    assert top(s)["step"] == "castle"
    act(s, "christian", "stay_inside")
    assert s["stack"][-1]["module"] == "sequence"
    assert s["blocks"]["W09"]["inside"] and s["blocks"]["W04"]["inside"]


@pytest.mark.rule("8.7.7")
def test_blocks_joining_besieged_friends_fight_outside_when_they_make_three() -> None:
    s = blank()
    place(s, "loja", "K04", "K06", inside=True)
    place(s, "loja", "K07")                       # a friend arrived
    place(s, "loja", "W04")
    battle.start_battle(s, "loja", "christian")
    assert top(s)["mode"] == "field"
    assert not any(s["blocks"][b]["inside"] for b in ("K04", "K06", "K07"))


@pytest.mark.rule("8.7.3")
def test_alhambra_split_and_no_siege_this_turn() -> None:
    s = blank()
    place(s, "granada", "K04", "K06", "K07", "K08")
    place(s, "granada", "W04", "W09")
    give(s, "christian", "C07")
    battle.start_battle(s, "granada", "christian")
    assert top(s)["step"] == "castle"
    act(s, "muslim", "keep_inside", block="K07")
    act(s, "muslim", "keep_inside", block="K08")
    assert not has(s, "muslim", "keep_inside")    # 2 at most
    act(s, "muslim", "split_done")
    act(s, "muslim", "fight")
    f = top(s)
    assert f["mode"] == "field" and f["step"] == "deploy"
    from engine.granada import battle_deploy as bd
    assert sorted(bd.force(s, f, "muslim")) == ["K04", "K06"]
    deploy(s, "christian", "C07", "W04")
    act(s, "muslim", "pass")
    act(s, "muslim", "finish")
    act(s, "christian", "finish")
    act(s, "muslim", "lose", block="K04")
    # the castle already holds two: no room left to retreat into it
    act(s, "muslim", "retreat", to=legal(s, "muslim")[0]["to"])
    assert s["stack"][-1]["module"] == "sequence"   # no siege follows this turn
    assert s["blocks"]["K07"]["inside"] and s["blocks"]["K08"]["inside"]
    assert s["castle"]["granada"] == "muslim"


@pytest.mark.rule("8.7.6", "8.3.3.1")
def test_no_cavalry_special_attack_and_no_morale_challenge_in_a_siege() -> None:
    s = besieged("loja", ("K04",), ("W05", "W11", "W04"), ("C01", "C07", "C08"), ("M51",))
    act(s, "christian", "assault")
    deploy(s, "christian", "C01", "W05")          # Castile cavalry with a trumpet: shields only
    f = top(s)
    assert f["deployed"]["christian"][0]["special"] == "" and f["impacts"]["christian"] == 3
    assert f["step"] == "fire"                    # the defender fires or not; no challenge
    assert not has(s, "muslim", "challenge")


@pytest.mark.rule("8.7.6", "10.4")
def test_crossbowmen_card_in_a_siege_adds_a_flat_two() -> None:
    s = besieged("loja", ("K04",), ("W07", "W12"), ("C68", "C01"))
    act(s, "christian", "assault")
    deploy(s, "christian", "C68", "W07")          # Castile 3 crossbow + 2
    act(s, "muslim", "cease_fire")
    deploy(s, "christian", "C01", "W12")          # Castile 2 crossbow +1 +2 (not +4)
    assert top(s)["impacts"]["christian"] == 5 + 5


@pytest.mark.rule("10.5", "10.6", "8.6.7")
def test_castle_surrender_saves_the_blocks_but_loses_el_zegri() -> None:
    s = blank()
    place(s, "malaga", "K04", inside=True)
    place(s, "malaga", "W04", "W09")
    hand = len(s["hands"]["muslim"])
    battle.start_battle(s, "malaga", "christian")
    act(s, "muslim", "stay_inside")
    assert has(s, "muslim", "surrender", card="MS1")
    act(s, "muslim", "surrender", card="MS1")
    act(s, "muslim", "retreat", to="velez_malaga")
    assert s["blocks"]["K04"]["loc"] == "velez_malaga" and not s["blocks"]["K04"]["inside"]
    assert s["disks"]["el_zegri"] == "eliminated"
    assert s["castle"]["malaga"] == "christian" and s["control"]["malaga"] == "christian"
    assert s["surrender"]["muslim"] == ["MS2"]
    assert len(s["hands"]["muslim"]) == hand       # no card for the disk (10.6)
    assert s["stack"][-1]["module"] == "sequence"


@pytest.mark.rule("10.7", "8.7.4")
def test_sidi_yahya_alone_can_be_besieged_and_lost() -> None:
    s = blank()
    place(s, "baza", "W25", "W24")
    give(s, "christian", "C21", "C25")
    hand = len(s["hands"]["muslim"])
    battle.start_battle(s, "baza", "christian")
    assert top(s)["step"] == "avoid"              # surrender may be offered
    act(s, "muslim", "fight")
    act(s, "christian", "assault")
    deploy(s, "christian", "C21", "W25")          # 5: no defender block, no fire window
    deploy(s, "christian", "C25", "W24")          # 4: 9 // 7 = 1
    act(s, "christian", "finish")
    assert s["disks"]["sidi_yahya"] == "eliminated" and s["castle"]["baza"] == "christian"
    assert len(s["hands"]["muslim"]) == hand + 1   # a card for the disk (8.7.4)


@pytest.mark.rule("10.1", "8.7.7")
def test_commander_can_take_besieged_blocks_away_before_the_siege() -> None:
    s = blank()
    place(s, "loja", "K04", inside=True)
    place(s, "loja", "W04", "W09")
    give(s, "muslim", "M56")
    battle.start_battle(s, "loja", "christian")
    act(s, "muslim", "stay_inside")
    act(s, "muslim", "commander_retreat", card="M56")
    dest = legal(s, "muslim")[0]["to"]
    act(s, "muslim", "retreat", to=dest)
    assert s["blocks"]["K04"]["loc"] == dest
    assert s["castle"]["loja"] == "christian"


@pytest.mark.rule("10.2")
def test_bombardment_brings_back_artillery_and_fires_in_a_siege() -> None:
    # W06, a Castile gun lost earlier, can come back: 5 + 3 = 8 >= 7 lets the siege start
    s = besieged("loja", ("K04",), ("W04", "W09"), ("C62", "C07"), eliminated=("W06",))
    act(s, "christian", "assault")
    act(s, "christian", "bombard", card="C62")
    act(s, "christian", "place", block="W06")
    act(s, "christian", "place_at", loc="loja")   # no other gun in the pile: on to firing
    act(s, "christian", "deploy", block="W06")    # artillery special of any faction: 3 + 2
    f = top(s)
    assert f["impacts"]["christian"] == 5 and s["blocks"]["W06"]["loc"] == "loja"
    assert s["battle_discard"]["christian"] == ["C62"]


@pytest.mark.rule("10.10", "8.7.3")
def test_palace_guard_may_stay_inside_the_alhambra() -> None:
    s = blank()
    place(s, "granada", "K54", "K55", "K04")
    place(s, "granada", "W04")
    battle.start_battle(s, "granada", "christian")
    act(s, "muslim", "keep_inside", block="K54")
    act(s, "muslim", "keep_inside", block="K55")
    act(s, "muslim", "split_done")
    assert top(s)["mode"] == "field"
