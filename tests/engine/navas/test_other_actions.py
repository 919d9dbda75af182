"""Other actions (rally, switch cards) and the victory conditions."""

from __future__ import annotations

import pytest

from engine import RuleError
from engine.navas import actions, active, apply, result, view
from engine.navas.victory import evaluate

from .helpers import board, deployed_except, do, find, has, turn_state, zone_units


@pytest.mark.rule("Rally", "Other actions")
def test_rally_returns_an_unexhausted_unit_to_2_power_for_1_point_and_exhausts_it() -> None:
    s = turn_state("muslim", "g4r2", deployed_except({}), powers={"m22": 1, "m23": 1})
    s["units"]["m23"]["exhausted"] = True
    s = do(s, "muslim", type="zone", zone="B3")
    rallies = [a["unit"] for a in actions(s, "muslim") if a["type"] == "rally"]
    assert rallies == ["m22"]  # m23 is exhausted, m24 is unharmed
    s = do(s, "muslim", type="rally", unit="m22")
    assert s["units"]["m22"] == {"zone": "B3", "power": 2, "exhausted": True}
    assert s["turn"]["ap"] == 3
    # exhausted, it can neither rally again nor join an attack this turn
    s = do(s, "muslim", type="zone", zone="B3")
    assert not has(s, "muslim", type="rally")
    s = do(s, "muslim", type="attack", target="B4")  # only m24 can join: no choice is asked
    assert any(e["text"].endswith("standard attack B3→B4 with Jihad Volunteers (m24) (1 AP).") for e in s["log"])
    assert dict(p for p in s["last_battle"]["attacker_parts"])["units"] == 2


@pytest.mark.rule("Switch cards", "Other actions")
def test_switch_exchanges_the_initiative_cards_for_1_point() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    mine, theirs = s["initiative"]["christian"], s["initiative"]["muslim"]
    s = do(s, "christian", type="switch", shield=False)
    assert s["initiative"]["christian"] == theirs and s["initiative"]["muslim"] == mine
    assert s["turn"]["ap"] == 4
    s = do(s, "christian", type="end_turn")
    s = apply(s, "muslim", actions(s, "muslim")[0])
    assert has(s, "muslim", type="switch", shield=False)  # unshielded: the Muslim may switch back


@pytest.mark.rule("Switch cards")
def test_a_shielded_switch_costs_2_and_cannot_be_undone_this_round() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    theirs = s["initiative"]["muslim"]
    s = do(s, "christian", type="switch", shield=True)
    assert s["turn"]["ap"] == 3 and s["initiative"]["shield"] == "christian"
    assert not has(s, "christian", type="switch")
    s = do(s, "christian", type="end_turn")
    s = apply(s, "muslim", actions(s, "muslim")[0])
    assert not has(s, "muslim", type="switch")
    with pytest.raises(RuleError):
        apply(s, "muslim", {"type": "switch", "shield": False})
    # the card goes to the Christian's hand at maintenance
    s["turn"]["number"] = 4
    s["hands"] = {"christian": [], "muslim": []}
    s = do(s, "muslim", type="end_turn")
    assert theirs in s["hands"]["christian"]


@pytest.mark.rule("Switch cards")
def test_switch_needs_the_points() -> None:
    s = turn_state("christian", "g6r1", deployed_except({}))  # 1 point
    assert has(s, "christian", type="switch", shield=False)
    assert not has(s, "christian", type="switch", shield=True)


# ---------------------------------------------------------------- victory conditions


@pytest.mark.rule("Victory conditions")
def test_christians_win_when_al_nasir_falls() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    s["units"]["m04"].update({"zone": None, "power": 0})
    assert evaluate(s)["winner"] == "christian"  # type: ignore[index]


@pytest.mark.rule("Victory conditions")
def test_muslims_win_when_christians_hold_no_muslim_zone_and_4_or_fewer_zones() -> None:
    layout = {"A1": ["m01"], "B1": ["m04"], "C1": ["m07"], "A2": ["m10"], "B2": ["m13"], "C2": ["m16"],
              "A4": ["c01"], "B4": ["c10"], "C4": ["c19"], "B5": ["c13"], "C5": ["c22"]}
    s = turn_state("christian", "g2r5", layout)  # 5 Christian zones: not yet
    s = do(s, "christian", type="zone", zone="B5")
    s = do(s, "christian", type="move", to="B4")  # c13 is B5's only unit: it goes, B5 empties
    assert result(s)["winner"] == "muslim"  # type: ignore[index]
    assert "no zone of the Muslim area" in result(s)["reason"]  # type: ignore[index]
    assert active(s) == [] and s["phase"] == "over"
    # ... but not while a Christian unit stands in the Muslim area
    layout2 = {"A1": ["m01"], "B1": ["m04"], "C1": ["m07"], "A2": ["m10"], "B2": ["m13"],
               "A3": ["c01"], "B4": ["c10"], "C4": ["c19"], "C5": ["c22"]}
    s2 = turn_state("christian", "g2r5", layout2)
    assert evaluate(s2) is None


@pytest.mark.rule("Victory conditions")
def test_either_side_wins_with_twice_as_many_zones() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    board(s, {"B1": ["m04"], "A2": ["m10"], "B2": ["m13"], "A4": ["c01"], "B4": ["c10"], "C4": ["c19"],
              "A5": ["c04"], "B5": ["c13"], "C3": ["c22"]})
    assert evaluate(s)["winner"] == "christian"  # type: ignore[index]
    board(s, {"B1": ["m04"], "A2": ["m10"], "B2": ["m13"], "C2": ["m16"], "A3": ["m19"], "B3": ["m22"],
              "A4": ["c01"], "C3": ["c19"], "B4": ["c10"]})
    outcome = evaluate(s)
    assert outcome is not None and outcome["winner"] == "muslim" and "twice" in outcome["reason"]


@pytest.mark.rule("Victory conditions")
def test_victory_priority_caliph_first_then_the_muslim_condition() -> None:
    s = turn_state("christian", "g2r5", deployed_except({}))
    # al-Nasir dead AND the Christians down to 3 zones outside the Muslim area: Christian victory
    board(s, {"A1": ["m01"], "C1": ["m07"], "A2": ["m10"], "B2": ["m13"], "C2": ["m16"], "A3": ["m19"],
              "A4": ["c01"], "B4": ["c10"], "C4": ["c19"]})
    assert evaluate(s)["winner"] == "christian"  # type: ignore[index]
    # Muslim condition AND Christians with twice the Muslim zones (4 vs 2): Muslim victory
    board(s, {"B1": ["m04"], "A2": ["m10"], "A4": ["c01"], "B4": ["c10"], "C4": ["c19"], "C5": ["c22"]})
    outcome = evaluate(s)
    assert outcome is not None and outcome["winner"] == "muslim" and "Muslim area" in outcome["reason"]


@pytest.mark.rule("Victory conditions", "End of the game")
def test_victory_ends_the_game_at_once_in_the_middle_of_a_combat() -> None:
    layout = deployed_except({"B2": ["c10", "c11", "c12"], "B3": [], "B4": [], "B1": ["m04"]})
    s = turn_state("christian", "g2r5", layout, deck=["g6r1"], powers={"m04": 1})
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="charge", target="B1")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    # 1 + 6 + 5 + 1 (For the King) = 13 against 6 + 1 + 2 (camp) = 9: al-Nasir falls
    assert result(s)["winner"] == "christian"  # type: ignore[index]
    # the game ended before the mandatory advance and before the turn's end
    assert zone_units(s, "B2") == ["c10", "c11", "c12"] and zone_units(s, "B1") == []
    assert s["turn"]["ap"] == 2 and s["phase"] == "over" and s["combat"] is None
    assert view(s, None)["result"] == result(s)
    with pytest.raises(RuleError, match="over"):
        apply(s, "christian", find(turn_state("christian", "g2r5", deployed_except({})), "christian",
                                   type="end_turn"))
