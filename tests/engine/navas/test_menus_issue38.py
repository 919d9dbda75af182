"""What a player reads in 1212's menus and headings (issue 38): alike units are one choice, and
units of one name say what sets them apart (the picture shows no ids)."""

from __future__ import annotations

import pytest

from engine.api import RuleError
from engine.navas import actions, apply, view

from .helpers import deployed_except, do, give_specials, turn_state


def _labels(state: dict, role: str) -> list[str]:
    return [a["label"] for a in actions(state, role)]


@pytest.mark.rule("Archer attack")
def test_alike_archers_are_one_choice_and_archers_of_two_faces_say_their_power() -> None:
    """``Shoot with Council Militia (archer, c22)`` / ``(archer, c23)``: the same shot twice."""
    s = turn_state("christian", "g2r5", deployed_except({}))
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="A3")
    assert s["pending"] is None  # no question: the first of two alike archers shoots
    assert s["units"]["c22"]["exhausted"] and not s["units"]["c23"]["exhausted"]
    s = turn_state("christian", "g2r5", deployed_except({}), powers={"c22": 1})
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="A3")
    assert _labels(s, "christian") == ["Shoot with Council Militia (archer, Power 1, c22)",
                                       "Shoot with Council Militia (archer, Power 2, c23)",
                                       "Back to the orders for C5"]


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr")
def test_knights_of_one_name_on_different_faces_say_their_power() -> None:
    """``Attack with Aragonese Knights (c01)`` against ``(c02)``: only the picture told the
    1-Power knight from the 2-Power one, and it shows no ids."""
    s = turn_state("christian", "g2r5", deployed_except({}), powers={"c01": 1})
    s = do(s, "christian", type="zone", zone="A4")
    s = do(s, "christian", type="attack", target="A3")
    assert _labels(s, "christian") == [
        "Attack with Aragonese Knights (Power 1, c01), Aragonese Knights (Power 2, c02), "
        "Aragonese Knights (Power 2, c03)",
        "Attack with Aragonese Knights (Power 1, c01), Aragonese Knights (Power 2, c02)",
        "Attack with Aragonese Knights (Power 2, c02), Aragonese Knights (Power 2, c03)",
        "Attack with Aragonese Knights (Power 1, c01)",
        "Attack with Aragonese Knights (Power 2, c02)",
        "Back to the orders for A4"]


@pytest.mark.rule("Rally")
def test_alike_units_to_rally_are_one_entry_and_the_other_is_refused_with_a_reason() -> None:
    """``Rally Jund Infantry (m07)`` / ``(m08)``: the same rally twice."""
    s = turn_state("christian", "g2r5", deployed_except({}), powers={"c01": 1, "c02": 1})
    s = do(s, "christian", type="zone", zone="A4")
    rallies = [a for a in actions(s, "christian") if a["type"] == "rally"]
    assert [a["label"] for a in rallies] == ["Rally Aragonese Knights (c01) to its 2-Power face (1 AP)"]
    with pytest.raises(RuleError, match=r"Cannot rally: Aragonese Knights \(c02\) and Aragonese Knights \(c01\) "
                                        r"are alike"):
        apply(s, "christian", {"type": "rally", "unit": "c02"})


@pytest.mark.rule("Damage")
def test_damage_choices_name_the_face_of_units_of_one_name() -> None:
    """``Flip López de Haro (c10), Castilian Knights (c11)`` against ``... (c12)``."""
    s = turn_state("muslim", "g4r2", deployed_except({}), deck=["g5r2"], powers={"c11": 1})
    s = do(s, "muslim", type="zone", zone="B3")
    s = do(s, "muslim", type="attack", target="B4")
    if s["pending"] is not None and s["pending"]["kind"] == "units":
        s = apply(s, "muslim", [a for a in actions(s, "muslim") if a["type"] == "units"][0])
    assert s["pending"] is not None and s["pending"]["kind"] == "damage", s["pending"]
    labels = _labels(s, "christian")
    assert labels and all("Castilian Knights (Power" in x for x in labels if "Castilian Knights" in x), labels


def test_the_turn_heading_offers_only_what_its_menu_lists() -> None:
    """``choose a zone, another order, or end the turn`` stood above a lone ``End the turn``."""
    s = turn_state("christian", "g2r5", deployed_except({}))
    assert view(s, "christian")["prompt"].endswith("choose a zone, another order or end the turn.")
    s["turn"]["ap"] = 0
    assert {a["type"] for a in actions(s, "christian")} == {"end_turn"}
    assert view(s, "christian")["prompt"] == ("Turn 1: 0 action points left, 2 combat actions available; "
                                             "end the turn.")


def test_a_reaction_window_without_its_card_says_so() -> None:
    """``Maintenance begins: you may play Al-Husayni ...`` above a lone ``Pass``: the window
    opens whether or not the card is held (the opponent must not learn which)."""
    s = turn_state("christian", "g2r5", deployed_except({}), advanced=True)
    s["pending"] = {"kind": "window", "role": "muslim", "card": "al-husayni"}
    assert {a["type"] for a in actions(s, "muslim")} == {"pass"}
    assert view(s, "muslim")["prompt"] == "Maintenance begins; you do not hold the Al-Husayni card: pass."
    give_specials(s, "muslim", ["al-husayni"])
    assert "special" in {a["type"] for a in actions(s, "muslim")}
    assert view(s, "muslim")["prompt"] == ("Maintenance begins: you may play Al-Husayni to take a card from the "
                                           "discard pile or deck.")
