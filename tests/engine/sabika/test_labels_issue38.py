"""What Sabika's menus say (issue 38): each entry tells what it does and how it differs from
the others, in the words the rulebook and the picture use."""

from __future__ import annotations

import pytest

from engine.sabika import rules
from engine.sabika.data import BALANCES, CITIES, CITY_TILES, MINORS
from engine.sabika.names import describe_bonus
from tests.engine.sabika.helpers import blank, give, kinds, step, turn_of, work

B = "blue"


def _labels(s: dict, role: str = B) -> list[str]:  # type: ignore[type-arg]
    return [str(a["label"]) for a in rules.actions(s, role)]


@pytest.mark.rule("sabika:phase-i-actions")
def test_two_builders_in_the_workshop_are_one_entry() -> None:
    """Both Master Builders in the workshop are the same choice: one entry, not
    ``Activate your builder (workshop)`` twice."""
    s = turn_of(blank(), B)
    labels = _labels(s)
    assert labels.count("Activate your builder (in the workshop)") == 1
    assert len(labels) == len(set(labels)) == 3  # builder, merchant, poet


@pytest.mark.rule("sabika:phase-i-actions")
def test_builders_on_two_squares_of_one_action_say_which_square() -> None:
    """Squares 3 and 7 are both Construction: the entries name the square, as the moves do."""
    s = turn_of(blank(), B)
    workers = s["players"][B]["workers"]
    workers["builder1"]["at"], workers["builder2"]["at"] = 3, 7
    labels = _labels(s)
    assert "Activate your builder (square 3, Construction)" in labels
    assert "Activate your builder (square 7, Construction)" in labels
    assert len(labels) == len(set(labels))
    # both still reachable: a different choice each
    assert sorted(a["worker"] for a in rules.actions(s, B) if a["worker"].startswith("builder")) == \
        ["builder1", "builder2"]


@pytest.mark.rule("sabika:phase-i-actions")
def test_rest_for_a_worker_in_the_workshop_says_it_stays_there() -> None:
    s = turn_of(blank(), B)
    s = step(s, B, "worker", worker="merchant")
    rest = [a["label"] for a in rules.actions(s, B) if a["type"] == "rest"]
    assert rest == ["Rest: stay in the workshop, earn 3 Dinars, lose 1 PP"]


@pytest.mark.rule("sabika:phase-i-actions")
def test_rest_for_a_worker_on_the_rondel_says_it_goes_back_and_what_it_costs() -> None:
    s = turn_of(blank(), B)
    s["players"][B]["workers"]["merchant"]["at"] = 2
    s = step(s, B, "worker", worker="merchant")
    rest = [a["label"] for a in rules.actions(s, B) if a["type"] == "rest"]
    assert rest == ["Rest: back to the workshop, earn 3 Dinars, lose 1 PP"]
    s = turn_of(blank(), B)
    s["players"][B]["pp"] = 0
    for w in s["players"][B]["workers"].values():
        w["up"] = False
    s["players"][B]["workers"]["merchant"].update(up=True, at=2)
    s["players"][B]["dinars"] = 0
    s["sultan"]["middle"] = [sq for sq in range(7) for _ in range(3)]  # nowhere to go: the Rest is free
    s = step(s, B, "worker", worker="merchant")
    rest = [a["label"] for a in rules.actions(s, B) if a["type"] == "rest"]
    assert rest == ["Rest: back to the workshop, earn 3 Dinars, no PP left to lose"]


@pytest.mark.rule("sabika:export-action")
def test_an_export_entry_tells_the_demand_from_the_bonus_and_the_seal() -> None:
    """``wants Sugar, Seal`` read as if the City wanted a Seal: the Seal and the City Bonus are
    what the export gives, the demand what it wants."""
    s = turn_of(blank(), B)
    give(s, B, "sugar")
    s = work(s, B, "merchant", 0)
    assert kinds(s) == "export"
    for a in rules.actions(s, B):
        tile = CITY_TILES[s["cities"][a["city"]]["tile"]]
        name = CITIES[a["city"]]["name"]
        assert a["label"].startswith(f"Export to {name} (cost ")
        wants, bonus = a["label"].split("; bonus: ")
        assert wants.endswith(f"wants {tile['demand'].capitalize()}") and "Seal" not in wants
        assert bonus == f"{describe_bonus(tile['bonus'])} and its Seal)"


@pytest.mark.rule("sabika:minor-construction-action")
def test_the_ends_of_the_row_name_the_card_there_and_the_balance() -> None:
    """``left end / right end of your row`` without the colours at the ends: the entries name
    the card at each end, the half the new card meets and the Balance it completes."""
    s = turn_of(blank(), B)
    p = s["players"][B]
    start = p["row"][0]  # an Architectural Balance card: a colour on its left, wild on its right
    colour = BALANCES[start]["left"]
    card = next(c for c, m in MINORS.items() if m["right"] == colour and m["left"] != colour)
    s["stack"] = [{"kind": "place_minor", "role": B, "card": card}]
    labels = _labels(s)
    assert labels == [
        f"Place it at the left end of your row, beside Architectural Balance ({colour}|any) (its {colour} half): "
        f"completes a {colour} Architectural Balance",
        f"Place it at the right end of your row, beside Architectural Balance ({colour}|any) (its wild half): "
        f"completes a {MINORS[card]['left']} Architectural Balance",
    ]
