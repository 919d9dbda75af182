"""The inner rondel (Poets: carve, reactivate, artisanal labour) and the Secondary Actions."""

from __future__ import annotations

import pytest

from engine.sabika import rules
from engine.sabika.data import POEMS
from engine.sabika.inner import carve_cost, carve_options
from engine.sabika.state import holdings
from engine.sabika.turn import main_possible
from tests.engine.sabika.helpers import blank, give, kinds, legal_types, put_first, step, turn_of, work

B, Y = "blue", "yellow"


def ready(n: int = 2) -> dict:  # type: ignore[type-arg]
    s = blank(n)
    turn_of(s, B)
    return s


@pytest.mark.rule("sabika:inner-rondel-carving-poems")
def test_carving_costs_grow_with_the_poems_of_that_colour() -> None:
    p = blank()["players"][B]
    assert (carve_cost(p, "blue"), carve_cost(p, "red"), carve_cost(p, "grey")) == (1, 2, 4)
    p["blue"], p["red"], p["grey"] = ["p1", "p2"], ["p3"], ["A1"]
    assert (carve_cost(p, "blue"), carve_cost(p, "red"), carve_cost(p, "grey")) == (3, 3, 5)


@pytest.mark.rule("sabika:inner-rondel-carving-poems")
def test_carving_a_red_poem_base_material_one_extra_pp_and_its_immediate_effect() -> None:
    s = ready()
    s["poem_display"][0] = "p1"  # red: 4 Dinars
    give(s, B, "ceramic", "wood", "marble")
    s = work(s, B, "poet", 0)
    s = step(s, B, "poem", slot=0, colour="red")
    assert s["players"][B]["dinars"] == 8  # 2 Dinars for a first red Poem
    assert {a["material"] for a in rules.actions(s, B)} == {"wood", "marble"}  # base: Gypsum, Wood or Marble
    s = step(s, B, "use", material="wood")
    assert {a.get("material") for a in rules.actions(s, B)} == {"marble", "ceramic", None}  # 1 extra, or finish
    s = step(s, B, "use", material="ceramic")
    assert legal_types(s, B) == ["done"]  # only 1 extra Material
    s = step(s, B, "done")
    p = s["players"][B]
    assert p["pp"] == 11 and p["red"] == ["p1"] and p["dinars"] == 12  # 2 + 4 PP; then the red effect
    assert s["poem_display"][0] is None


@pytest.mark.rule("sabika:poems")
def test_a_blue_poem_is_a_permanent_effect_market_gets_a_third_transaction() -> None:
    s = ready()
    s["players"][B]["blue"] = ["p5"]  # blue: +1 transaction in every Market Action
    assert POEMS["p5"]["blue"] == "market"
    s = work(s, B, "builder1", 2)
    assert s["stack"][-1]["left"] == 3


@pytest.mark.rule("sabika:poems")
def test_at_most_two_major_poems_per_game() -> None:
    s = ready()
    s["players"][B]["dinars"] = 30
    give(s, B, "gypsum")
    assert any(a["colour"] == "grey" for a in carve_options(s, B))
    s["players"][B]["grey"] = ["A1", "B1"]
    assert not any(a["colour"] == "grey" for a in carve_options(s, B))


@pytest.mark.rule("sabika:reactivate-action")
def test_reactivate_reapplies_one_red_poem() -> None:
    s = ready()
    assert not main_possible(s, B, "reactivate")
    s["players"][B]["red"] = ["p1", "p3"]  # 4 Dinars; 3 Parias
    s = work(s, B, "poet", 1)
    assert [a["card"] for a in rules.actions(s, B)] == ["p1", "p3"]
    s = step(s, B, "poem", card="p3")
    assert s["players"][B]["parias"] == 3 and s["players"][B]["dinars"] == 10


@pytest.mark.rule("sabika:artisanal-labour-action")
def test_artisanal_labour_3_dinars_plus_1_per_2_poem_cards() -> None:
    s = ready()
    s["players"][B].update(blue=["p2"], red=["p3", "p4"], grey=[])
    s = work(s, B, "poet", 3)
    assert s["players"][B]["dinars"] == 14  # 3 + 1 (3 Poems)


@pytest.mark.rule("sabika:secondary-actions")
def test_raw_material_secondary_costs_1_for_the_builder_and_nothing_for_the_merchant() -> None:
    s = ready()
    s["raw_squares"]["0"] = "clothes"  # between outer square 1 and middle square 0
    s = work(s, B, "builder1", 1, main=False)
    s = step(s, B, "secondary")
    assert s["players"][B]["dinars"] == 9 and s["players"][B]["processing"] == ["clothes"]
    s = step(s, B, "done")
    turn_of(s, B)
    s = work(s, B, "merchant", 0, main=False)
    assert "secondary" in legal_types(s, B)  # the square is empty: process a Raw Material instead
    s = step(s, B, "secondary")
    s = step(s, B, "process", good="clothes")
    s = put_first(s, B)
    assert s["players"][B]["dinars"] == 9 and holdings(s["players"][B]) == {"clothes": 1}


@pytest.mark.rule("sabika:secondary-actions")
def test_marble_secondary_costs_2_for_the_merchant_1_for_the_poet_then_gypsum_or_wood() -> None:
    s = ready()
    s = work(s, B, "merchant", 1, main=False)  # marble square 0: middle 1 / inner 0
    s = step(s, B, "secondary")
    s = put_first(s, B)
    assert s["players"][B]["dinars"] == 8 and holdings(s["players"][B]) == {"marble": 1}
    assert s["marble_squares"]["0"] is False
    s = step(s, B, "done")
    turn_of(s, B)
    s = work(s, B, "poet", 0, main=False)
    s = step(s, B, "secondary")
    assert kinds(s) == "pickmat" and [a["material"] for a in rules.actions(s, B)] == ["gypsum", "wood"]
    assert s["players"][B]["dinars"] == 7


@pytest.mark.rule("sabika:secondary-actions")
def test_a_square_without_a_secondary_action_offers_none() -> None:
    s = ready()
    s = work(s, B, "builder1", 0, main=False)
    assert legal_types(s, B) == ["main", "done"]
