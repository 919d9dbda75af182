"""How to move the troops: zone limit, empty zones, Muslim and Christian movement."""

from __future__ import annotations

import pytest

from engine import RuleError
from engine.navas import actions, apply

from .helpers import deployed_except, do, find, has, shoot_with, turn_state, zone_units


def muslim_turn(changes: dict[str, list[str]], card: str = "g4r2"):  # type: ignore[no-untyped-def]
    return turn_state("muslim", card, deployed_except(changes))


def christian_turn(changes: dict[str, list[str]], card: str = "g2r5"):  # type: ignore[no-untyped-def]
    return turn_state("christian", card, deployed_except(changes))


@pytest.mark.rule("How to move the troops", "Movement")
def test_no_more_than_3_units_per_zone_and_never_into_the_opponents_zone() -> None:
    s = muslim_turn({"B2": ["m13"]})
    s = do(s, "muslim", type="zone", zone="B3")
    moves = {a["to"] for a in actions(s, "muslim") if a["type"] == "move"}
    assert "B4" not in moves and "A4" not in moves and "C4" not in moves  # Christian zones
    assert "A3" not in moves and "C3" not in moves  # already 3 units there
    s = do(s, "muslim", type="move", to="B2")
    groups = [a["units"] for a in actions(s, "muslim") if a["type"] == "units"]
    # m22, m23 and m24 are alike: one entry per distinct choice (issue 38), not one per subset
    assert sorted(len(g) for g in groups) == [1, 2]  # room for 2 more only
    with pytest.raises(RuleError) as err:
        apply(s, "muslim", {"type": "units", "units": ["m22", "m23", "m24"]})
    assert err.value.allowed
    s = do(s, "muslim", type="units", units=["m22", "m23"])
    assert zone_units(s, "B2") == ["m13", "m22", "m23"] and zone_units(s, "B3") == ["m24"]
    assert s["turn"]["ap"] == 3


@pytest.mark.rule("How to move the troops")
def test_refused_moves_say_why() -> None:
    s = muslim_turn({"B2": ["m13"]})
    s = do(s, "muslim", type="zone", zone="B3")
    with pytest.raises(RuleError, match="occupied by the opponent") as err:
        apply(s, "muslim", {"type": "move", "to": "B4"})
    assert err.value.rule == "Movement"
    with pytest.raises(RuleError, match="already holds 3 units"):
        apply(s, "muslim", {"type": "move", "to": "A3"})
    with pytest.raises(RuleError, match="not adjacent"):
        apply(s, "muslim", {"type": "move", "to": "B1"})
    with pytest.raises(RuleError, match="not a zone"):
        apply(s, "muslim", {"type": "move", "to": "Z9"})


@pytest.mark.rule("Movement")
def test_into_an_empty_zone_every_unit_must_go() -> None:
    s = muslim_turn({"A2": []})
    s = do(s, "muslim", type="zone", zone="B3")
    order = find(s, "muslim", type="move", to="A2")
    assert "3 units" in order["label"]
    s = apply(s, "muslim", order)
    assert s["pending"] is None  # no choice of units: all of them moved
    assert zone_units(s, "B3") == [] and zone_units(s, "A2") == ["m22", "m23", "m24"]
    assert s["turn"]["ap"] == 3


@pytest.mark.rule("Muslim movement")
def test_muslim_units_move_in_any_direction_including_diagonals() -> None:
    s = muslim_turn({"A2": [], "B2": [], "C2": ["m16"], "B1": ["m04", "m05"]})
    s = do(s, "muslim", type="zone", zone="B3")
    moves = {a["to"] for a in actions(s, "muslim") if a["type"] == "move"}
    assert moves == {"A2", "B2", "C2"}  # back, diagonally back-left, diagonally back-right (with room)


@pytest.mark.rule("Muslim movement", "Special Muslim units")
def test_al_nasir_and_the_black_guard_cannot_move() -> None:
    s = muslim_turn({"A1": [], "B2": []})
    assert not has(s, "muslim", type="zone", zone="B1")
    s["pending"] = {"kind": "zone", "role": "muslim", "zone": "B1"}
    assert all(a["type"] != "move" for a in actions(s, "muslim"))
    with pytest.raises(RuleError, match="al-Nasir and the Black Guard cannot move"):
        apply(s, "muslim", {"type": "move", "to": "B2"})


@pytest.mark.rule("Christian movement")
def test_christian_units_only_move_forward_or_backward_in_their_column() -> None:
    s = christian_turn({"A4": ["c01"], "B3": [], "B5": ["c13"]})
    s = do(s, "christian", type="zone", zone="B4")
    moves = {a["to"] for a in actions(s, "christian") if a["type"] == "move"}
    assert moves == {"B3", "B5"}
    with pytest.raises(RuleError, match="only forward or backward") as err:
        apply(s, "christian", {"type": "move", "to": "A4"})
    assert err.value.rule == "Christian movement"
    with pytest.raises(RuleError, match="only forward or backward"):
        apply(s, "christian", {"type": "move", "to": "A3"})


@pytest.mark.rule("Christian movement")
def test_an_empty_zone_of_the_muslim_area_costs_the_christians_2_points() -> None:
    s = christian_turn({"B3": []})
    s = do(s, "christian", type="zone", zone="B4")
    order = find(s, "christian", type="move", to="B3")
    assert "(2 AP)" in order["label"]
    s = apply(s, "christian", order)
    assert s["turn"]["ap"] == 3 and zone_units(s, "B3") == ["c10", "c11", "c12"]


@pytest.mark.rule("Christian movement")
def test_other_christian_moves_cost_1_point() -> None:
    # into an empty zone of the Christian area
    s = christian_turn({"A4": []})
    s = do(s, "christian", type="zone", zone="A5")
    s = do(s, "christian", type="move", to="A4")
    assert s["turn"]["ap"] == 4
    # into a zone of the Muslim area the Christians already hold
    s = christian_turn({"B3": ["c10"], "B4": ["c11", "c12"]})
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="move", to="B3")
    s = do(s, "christian", type="units", units=["c11"])
    assert s["turn"]["ap"] == 4 and zone_units(s, "B3") == ["c10", "c11"]


@pytest.mark.rule("Christian movement")
def test_a_christian_move_needs_the_points() -> None:
    s = christian_turn({"B3": []}, card="g6r1")  # 1 action point
    assert not has(s, "christian", type="zone", zone="B4")  # nothing B4 could pay for
    s["pending"] = {"kind": "zone", "role": "christian", "zone": "B4"}
    assert not has(s, "christian", type="move", to="B3")
    with pytest.raises(RuleError, match="costs 2 action points and 1 remain"):
        apply(s, "christian", {"type": "move", "to": "B3"})


@pytest.mark.rule("Exhaustion", "Movement")
def test_movement_does_not_exhaust_and_exhausted_units_still_move() -> None:
    s = christian_turn({"C4": ["c19"]})
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="C3")
    s = shoot_with(s, "christian", "c22")
    assert s["units"]["c22"]["exhausted"]
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="move", to="C4")
    s = do(s, "christian", type="units", units=["c22", "c23"])
    assert zone_units(s, "C4") == ["c19", "c22", "c23"]
    assert s["units"]["c22"]["exhausted"] and not s["units"]["c23"]["exhausted"]
