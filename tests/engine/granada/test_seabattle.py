"""Naval battles (9.1), evasion (9.2), replenishment (9.3)."""

from __future__ import annotations

from typing import Any

import pytest

import engine.granada as g
from engine.granada import components as comp
from engine.granada import seabattle
from engine.granada import state as st
from tests.engine.granada.test_battle_impacts import act, blank, give, legal, place, top

C = comp.load().cards


def at_sea(s: dict[str, Any], zone: str, *fleets: str) -> None:
    place(s, f"sea:{zone}", *fleets)


def board(s: dict[str, Any], fleet: str, *blocks: str) -> None:
    for b in blocks:
        s["blocks"][b].update(loc=s["blocks"][fleet]["loc"], carried_by=fleet)


def adra() -> dict[str, Any]:
    """Section 9 example: one Christian and one Muslim fleet in the Adra zone; another
    Christian fleet carrying a 3-shield Aragón block arrives and draws a Naval Battle card."""
    s = blank()
    at_sea(s, "adra_coast", "W59", "K58", "W60")
    board(s, "W60", "W24")
    give(s, "christian", "C02", "C03")             # naval 1 and naval 4
    give(s, "muslim", "M03", "M05")                # naval 4 and ...
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
    return s


@pytest.mark.rule("9.1", "9.3")
def test_book_example_naval_battle_at_adra() -> None:
    assert C["C02"].naval == 1 and C["M03"].naval == 4
    s = adra()
    f = top(s)
    assert f["module"] == "seabattle"
    assert seabattle.participants(s, f, "christian") == ["W60"]    # W59 was already there
    assert sorted(st.active_roles(s)) == ["christian", "muslim"]   # simultaneous choice
    act(s, "christian", "naval_card", card="C02")
    # the choice is secret: the Muslim's view says only that it is made
    view_m = seabattle.view(s, "muslim", top(s))
    assert view_m["chosen"] == {"christian": True, "muslim": False} and "my_choice" not in view_m
    assert seabattle.view(s, "christian", top(s))["my_choice"] == "C02"
    assert st.active_roles(s) == ["muslim"]
    hands = {side: len(s["hands"][side]) for side in st.SIDES}
    act(s, "muslim", "naval_card", card="M03")
    # "the Muslim player wins with a difference higher than 3, so up to two Christian fleets
    # could be eliminated" (the reconstructed decks have no Muslim naval 5: 4 against 1 is a
    # difference of 3, which 9.1 already counts: "equal to or higher than 3")
    assert seabattle.naval_outcome(C["C02"], C["M03"], "christian", "muslim") == ("muslim", 2, [])
    # "Only the moving Christian fleet is eliminated": it sinks with the Aragón block aboard
    assert s["blocks"]["W60"]["loc"] == "eliminated" and s["blocks"]["W24"]["loc"] == "eliminated"
    assert s["blocks"]["W59"]["loc"] == "sea:adra_coast"
    assert s["stack"][-1]["module"] == "sequence"
    assert s["stack"][-1]["returns"][-1] == {
        "kind": "naval_battle", "zone": "adra_coast", "winner": "muslim", "attacker": "christian",
        "survivors": [], "evaded": {}, "evaded_to": {}}
    # 9.3: each discards his card and draws one; 1 fleet and 1 carried block lost: nothing more
    assert {side: len(s["hands"][side]) for side in st.SIDES} == hands
    assert "C02" in s["discards"]["christian"] and "M03" in s["discards"]["muslim"]


@pytest.mark.rule("9.1")
def test_a_draw_goes_to_the_arms_on_the_naval_battle_card_and_a_small_difference_sinks_one() -> None:
    s = blank()
    at_sea(s, "adra_coast", "W60", "W61", "K58", "K59")
    give(s, "christian", "C01")                    # naval 3
    give(s, "muslim", "M05")
    assert C["C01"].naval == 3 and C["M05"].naval == 3
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60", "W61"], "N13")  # Christian arms
    act(s, "muslim", "naval_card", card="M05")
    act(s, "christian", "naval_card", card="C01")
    # the loser has two fleets and loses one: he chooses
    assert top(s)["step"] == "sink" and [a["fleet"] for a in legal(s, "muslim")] == ["K58", "K59"]
    act(s, "muslim", "sink", fleet="K59")
    assert s["blocks"]["K59"]["loc"] == "eliminated" and s["blocks"]["K58"]["loc"] == "sea:adra_coast"
    out = s["stack"][-1]["returns"][-1]
    assert out["winner"] == "christian" and out["survivors"] == ["W60", "W61"]


@pytest.mark.rule("9.3")
def test_the_loser_draws_for_two_fleets_and_two_carried_blocks_lost() -> None:
    s = blank()
    at_sea(s, "adra_coast", "W60", "W61", "K58")
    board(s, "W60", "W24", "W26")
    give(s, "christian", "C02")                    # 1
    give(s, "muslim", "M03")                       # 4
    hands = {side: len(s["hands"][side]) for side in st.SIDES}
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60", "W61"], "N15")
    act(s, "christian", "naval_card", card="C02")
    act(s, "muslim", "naval_card", card="M03")
    assert all(s["blocks"][b]["loc"] == "eliminated" for b in ("W60", "W61", "W24", "W26"))
    # the played card is drawn back (net 0), +1 for 2 fleets, +1 for 2 carried blocks
    assert len(s["hands"]["christian"]) == hands["christian"] + 2
    assert len(s["hands"]["muslim"]) == hands["muslim"]


@pytest.mark.rule("9.2")
def test_an_arrow_evades_to_an_adjacent_zone() -> None:
    s = blank()
    at_sea(s, "adra_coast", "W60", "K58")
    board(s, "W60", "W24")
    evade = next(c for c in ("C57", "C59") if C[c].evade)
    give(s, "christian", evade)
    give(s, "muslim", "M03")
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
    act(s, "christian", "naval_card", card=evade)
    act(s, "muslim", "naval_card", card="M03")
    assert top(s)["step"] == "evade"
    assert sorted(a["zone"] for a in legal(s, "christian")) == ["almunecar_coast", "gulf_of_almeria",
                                                                 "gulf_of_oran"]
    act(s, "christian", "evade", zone="almunecar_coast")
    assert s["blocks"]["W60"]["loc"] == "sea:almunecar_coast"
    assert s["blocks"]["W24"]["loc"] == "sea:almunecar_coast"   # the carried block goes along
    out = s["stack"][-1]["returns"][-1]
    assert out["winner"] is None and out["evaded"] == {"christian": ["W60"]}
    assert out["evaded_to"] == {"christian": "almunecar_coast"}


@pytest.mark.rule("9.2")
def test_both_evade_the_active_player_first_and_meeting_enemies_draws_naval_cards() -> None:
    s = blank()
    at_sea(s, "adra_coast", "W60", "K58")
    at_sea(s, "gulf_of_almeria", "K59")
    c_arrow = next(c for c in ("C57", "C59") if C[c].evade)
    m_arrow = next(c for c in ("M52", "M54") if C[c].evade)
    give(s, "christian", c_arrow)
    give(s, "muslim", m_arrow)
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
    act(s, "christian", "naval_card", card=c_arrow)
    act(s, "muslim", "naval_card", card=m_arrow)
    assert st.active_roles(s) == ["christian"]
    naval_before = len(s["decks"]["naval"]) + len(s["discards"]["naval"])
    act(s, "christian", "evade", zone="gulf_of_almeria")      # enemies there: a Naval card is drawn
    assert len(s["discards"]["naval"]) >= 1 and naval_before == len(s["decks"]["naval"]) + len(s["discards"]["naval"])
    assert st.active_roles(s) == ["muslim"]
    act(s, "muslim", "evade", zone="almunecar_coast")
    assert s["blocks"]["K58"]["loc"] == "sea:almunecar_coast"


@pytest.mark.rule("9.1")
def test_a_player_with_no_naval_card_plays_nothing() -> None:
    s = blank()
    at_sea(s, "adra_coast", "W60", "K58")
    give(s, "christian", "C64")                    # a Watchtower card has no naval icon
    give(s, "muslim", "M03")
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
    assert [a["card"] for a in legal(s, "christian")] == [seabattle.NONE]
    act(s, "christian", "naval_card", card=seabattle.NONE)
    act(s, "muslim", "naval_card", card="M03")
    assert s["blocks"]["W60"]["loc"] == "eliminated"
    assert s["hands"]["christian"] == ["C64"]


@pytest.mark.rule("9.1")
def test_redeal_keeps_the_secret_choice_consistent() -> None:
    s = adra()
    act(s, "christian", "naval_card", card="C02")
    for seed in range(5):
        other = g.redeal(s, "muslim", seed)
        choice = top(other)["secret"]["christian"]
        assert choice in other["hands"]["christian"]
        assert g.view(other, "muslim") == g.view(s, "muslim")


def naval_top(s: dict[str, Any], *cards: str) -> None:
    """Put Naval cards on top of the Naval deck (the last one is drawn first)."""
    for c in cards:
        for pile in (s["decks"]["naval"], s["discards"]["naval"]):
            if c in pile:
                pile.remove(c)
        s["decks"]["naval"].append(c)


@pytest.mark.rule("9.2", "7.5.3")
def test_a_naval_battle_caused_by_an_evasion_is_resolved_immediately() -> None:
    # Both players show an arrow at Adra. The Christian (active) evades first into the Gulf
    # of Almería where a Muslim fleet waits: he draws one Naval card (one evading fleet), a
    # Naval Battle card, and that battle is fought at once, before the Muslim evades.
    s = blank()
    at_sea(s, "adra_coast", "W60", "K58")
    at_sea(s, "gulf_of_almeria", "K59")
    c_arrow = next(c for c in ("C57", "C59") if C[c].evade)
    m_arrow = next(c for c in ("M52", "M54") if C[c].evade)
    give(s, "christian", c_arrow, "C03")           # C03: naval 4
    give(s, "muslim", m_arrow, "M02")              # M02: naval 1
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
    act(s, "christian", "naval_card", card=c_arrow)
    act(s, "muslim", "naval_card", card=m_arrow)
    naval_top(s, "N14")                            # Christian arms win a draw
    act(s, "christian", "evade", zone="gulf_of_almeria")
    f = top(s)
    assert f["module"] == "seabattle" and f["zone"] == "gulf_of_almeria" and f["step"] == "choose"
    assert f["attacker"] == "christian" and f["moving"] == ["W60"]
    assert seabattle.participants(s, f, "muslim") == ["K59"]
    assert s["blocks"]["K58"]["loc"] == "sea:adra_coast"        # the Muslim has not evaded yet
    assert s["stack"][-2]["step"] == "evade_battle"
    act(s, "christian", "naval_card", card="C03")
    act(s, "muslim", "naval_card", card="M02")
    assert s["blocks"]["K59"]["loc"] == "eliminated"            # 4 against 1: one fleet sunk
    # the first battle goes on: now the Muslim evades (through the dispatcher's advance)
    g.run(s)
    assert top(s)["zone"] == "adra_coast" and st.active_roles(s) == ["muslim"]
    assert {a["type"] for a in legal(s, "muslim")} == {"evade"}
    act(s, "muslim", "evade", zone="almunecar_coast")
    assert s["blocks"]["K58"]["loc"] == "sea:almunecar_coast"
    assert s["stack"][-1]["module"] == "sequence"


@pytest.mark.rule("9.2")
def test_both_evading_into_the_same_zone_the_last_mover_checks() -> None:
    s = blank()
    at_sea(s, "adra_coast", "W60", "K58", "K59")
    c_arrow = next(c for c in ("C57", "C59") if C[c].evade)
    m_arrow = next(c for c in ("M52", "M54") if C[c].evade)
    give(s, "christian", c_arrow, "C02")
    give(s, "muslim", m_arrow, "M03")
    seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
    act(s, "christian", "naval_card", card=c_arrow)
    act(s, "muslim", "naval_card", card=m_arrow)
    drawn = len(s["discards"]["naval"])
    act(s, "christian", "evade", zone="gulf_of_oran")           # an empty zone: no draw
    assert len(s["discards"]["naval"]) == drawn
    naval_top(s, "N13", "N15")                     # two Muslim fleets: two draws, N15 first
    act(s, "muslim", "evade", zone="gulf_of_oran")
    f = top(s)
    # the Muslim, last to move, drew a Naval Battle card: he attacks with his two fleets
    assert f["zone"] == "gulf_of_oran" and f["attacker"] == "muslim" and f["moving"] == ["K58", "K59"]
    assert f["draw_winner"] == "muslim"
    assert seabattle.participants(s, f, "christian") == ["W60"]
    act(s, "muslim", "naval_card", card="M03")
    act(s, "christian", "naval_card", card="C02")
    assert s["blocks"]["W60"]["loc"] == "eliminated"
    g.run(s)
    assert s["stack"][-1]["module"] == "sequence"


@pytest.mark.rule("9.2")
def test_moving_fleets_evade_no_further_than_their_three_zone_allowance() -> None:
    from engine.granada import naval

    def evasion_zones(start: str) -> list[str]:
        s = blank()
        at_sea(s, "adra_coast", "W60", "K58")
        c_arrow = next(c for c in ("C57", "C59") if C[c].evade)
        give(s, "christian", c_arrow)
        give(s, "muslim", "M03")
        naval.start(s, "christian", start)         # the move began in ``start``
        top(s)["fleets"] = ["W60"]
        seabattle.start_naval_battle(s, "adra_coast", "christian", ["W60"], "N15")
        act(s, "christian", "naval_card", card=c_arrow)
        act(s, "muslim", "naval_card", card="M03")
        return sorted(a["zone"] for a in legal(s, "christian"))

    # from the Bay of Málaga Adra is 2 zones away: every zone next to Adra is within 3
    assert evasion_zones("bay_of_malaga") == ["almunecar_coast", "gulf_of_almeria", "gulf_of_oran"]
    # from the Bay of Marbella Adra is 3 zones away: the Gulfs of Almería and Orán would be 4
    assert evasion_zones("bay_of_marbella") == ["almunecar_coast"]
    assert seabattle.sea_distance("bay_of_marbella", "gulf_of_oran") == 4
