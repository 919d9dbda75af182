"""The middle rondel: export, consolidate and produce (Merchants), Ships, Seals and Parias."""

from __future__ import annotations

import pytest

from engine.sabika import rules
from engine.sabika.data import DATA
from engine.sabika.middle import export_cities, route_cost
from engine.sabika.parias import paria_leader
from engine.sabika.round_end import _step_income
from engine.sabika.state import gain_parias, holdings, ring
from engine.sabika.turn import main_possible, square_action
from tests.engine.sabika.helpers import blank, give, kinds, legal_types, put_first, step, turn_of, work

B, Y, P = "blue", "yellow", "pink"


def board(n: int = 3) -> dict:  # type: ignore[type-arg]
    s = blank(n)
    for info in s["cities"].values():
        info.update(left=[], right=[], seal=True)
    return s


@pytest.mark.rule("sabika:middle-rondel")
def test_the_middle_rondel_holds_export_consolidate_and_produce_for_merchants() -> None:
    assert {square_action("middle", i) for i in ring(2, "middle")} == {"export", "consolidate", "produce"}
    s = board()
    turn_of(s, B)
    s = rules.apply(s, B, {"type": "worker", "worker": "merchant"})
    squares = [a["square"] for a in rules.actions(s, B) if a["type"] == "move"]
    assert squares == ring(3, "middle")


@pytest.mark.rule("sabika:export-action")
def test_export_worked_example_florence_to_constantinople() -> None:
    s = board()
    s["cities"]["florence"]["left"] = [B]
    s["cities"]["constantinople"]["tile"] = "c1"  # wants Clothes; City Bonus: any Material
    s["players"][B]["ships"] = 8
    give(s, B, "clothes", "sugar")
    turn_of(s, B)
    assert route_cost(s, B, "constantinople") == 4  # Florence-Ragusa 2 + Ragusa-Constantinople 2
    s = work(s, B, "merchant", 0)
    assert "florence" not in [a["city"] for a in rules.actions(s, B)]  # never again where you have a Ship
    s = step(s, B, "city", city="constantinople")
    p = s["players"][B]
    assert p["dinars"] == 6  # (A) 4 Dinars for the routes
    assert s["cities"]["constantinople"]["left"] == [B] and p["ships"] == 7
    assert p["seals"] == 1 and s["cities"]["constantinople"]["seal"] is False  # (B) first to arrive
    s = step(s, B, "good", good="clothes")
    s = step(s, B, "good", good="sugar")
    p = s["players"][B]
    assert p["pp"] == 8 and p["parias"] == 3  # (C) 3 PP and 3 Parias
    assert kinds(s) == "pickmat"  # (D) any Material of their choice
    assert {a["material"] for a in rules.actions(s, B)} == {"gypsum", "wood", "marble", "ceramic"}


@pytest.mark.rule("sabika:export-action")
def test_export_needs_a_good_and_the_route_money_and_exports_at_most_two() -> None:
    s = board()
    turn_of(s, B)
    assert not main_possible(s, B, "export")
    give(s, B, "pottery", "pottery", "pottery")
    s["players"][B]["dinars"] = 1
    cities = export_cities(s, B)
    assert sorted(cities) == ["barcelona", "fez", "tlemcen"]  # 1-Dinar routes from the Kingdom of Granada
    s["players"][B]["dinars"] = 10
    s = work(s, B, "merchant", 0)
    s = step(s, B, "city", city="fez")
    assert legal_types(s, B) == ["good"]  # at least 1 Good
    s = step(s, B, "good", good="pottery")
    s = step(s, B, "good", good="pottery")
    assert holdings(s["players"][B]) == {"pottery": 1}
    assert kinds(s) != "export_goods"


@pytest.mark.rule("sabika:ships")
def test_a_seal_pays_1_dinar_or_1_paria_of_tribute() -> None:
    s = board()
    turn_of(s, B)
    p = s["players"][B]
    p["dinars"], p["seals"] = 0, 2
    give(s, B, "sugar")
    s = work(s, B, "merchant", 0)
    s = step(s, B, "city", city="fez")
    # no Dinar: the only way to pay the 1-Dinar route is a Seal, then Fez's Seal is taken
    assert "Blue pays 0 Dinars and 1 Seal (routes)." in [e["text"] for e in s["log"]]
    assert s["players"][B]["seals"] == 2 and s["players"][B]["dinars"] == 0
    s["stack"] = [{"kind": "tribute", "role": B, "left": 1, "total": 1}]
    assert "seal" in [a["means"] for a in rules.actions(s, B)]
    s = step(s, B, "paria", means="seal")
    assert s["players"][B]["seals"] == 1 and s["players"][B]["parias"] == 0  # the Paria track is untouched
    assert DATA["map"]["ships"] == 9


@pytest.mark.rule("sabika:consolidate-action")
def test_consolidate_worked_example_yellow_in_cairo() -> None:
    s = board()
    s["cities"]["cairo"].update(tile="c2", left=[Y], right=[B, P])  # red: a Construction Action
    give(s, Y, "gypsum")
    turn_of(s, Y)
    s = work(s, Y, "merchant", 1)
    s = step(s, Y, "city", city="cairo")
    assert s["cities"]["cairo"]["right"] == [B, P, Y] and s["cities"]["cairo"]["left"] == []  # (A)
    for r in (B, P):  # (B)
        assert s["players"][r]["pp"] == 6 and s["players"][r]["dinars"] == 11
    assert kinds(s) == "construct"  # (C) at once
    assert s["players"][Y]["pp"] == 5


@pytest.mark.rule("sabika:consolidate-action")
def test_a_blue_city_gives_nothing_at_once_but_income_at_the_end_of_round() -> None:
    s = board()
    s["cities"]["fez"].update(tile="c9", left=[B])  # blue: 3 Dinars of income
    turn_of(s, B)
    s = work(s, B, "merchant", 1)
    s = step(s, B, "city", city="fez")
    assert kinds(s) == "square" and s["players"][B]["dinars"] == 10
    s["stack"] = []
    _step_income(s)
    rules._advance(s)
    assert s["players"][B]["dinars"] == 13


@pytest.mark.rule("sabika:produce-action")
def test_produce_city_bonus_and_process_up_to_two_in_either_order() -> None:
    s = board()
    s["cities"]["fez"].update(tile="c9", left=[B])  # City Bonus: 2 Dinars and 1 Paria
    s["players"][B]["processing"] = ["sugar", "clothes", "pottery"]
    turn_of(s, B)
    s = work(s, B, "merchant", 2)
    assert legal_types(s, B) == ["city_bonus", "process_two", "done"]
    s = step(s, B, "process_two")
    s = step(s, B, "process", good="sugar")
    s = put_first(s, B)
    s = step(s, B, "process", good="pottery")
    s = put_first(s, B)
    assert s["players"][B]["processing"] == ["clothes"]  # at most 2
    assert legal_types(s, B) == ["city_bonus", "done"]
    s = step(s, B, "city_bonus")
    s = step(s, B, "city", city="fez")
    assert s["players"][B]["dinars"] == 12 and s["players"][B]["parias"] == 1


@pytest.mark.rule("sabika:parias")
def test_paria_tokens_stack_and_the_one_on_top_leads_a_tie() -> None:
    s = board()
    gain_parias(s, B, 2)
    gain_parias(s, Y, 2)
    assert paria_leader(s) == Y  # landed on blue's space: on top
    gain_parias(s, B, 1)
    s["stack"] = [{"kind": "tribute", "role": B, "left": 1, "total": 1}]
    s = step(s, B, "paria", means="track")
    assert s["players"][B]["parias"] == 2 and paria_leader(s) == B  # moved back onto yellow: on top
