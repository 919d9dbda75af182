"""What every view carries for a front end that knows nothing of 1212 (docs/architecture.md, "What a view
carries"): ``phase`` changes exactly when a new public picture is worth posting, ``reaction``
says a prompt only asks whether to react, ``focus`` is the zone of a battle."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.navas import actions, active, apply, result, setup, view

from .helpers import deployed_except, do, give_specials, turn_state

ROLES_AND_SPECTATOR: list[str | None] = ["christian", "muslim", None]


def phases(s: dict[str, Any]) -> str:
    """The phase, checked to be the same for both sides and a spectator (it is public)."""
    seen = {view(s, r)["phase"] for r in ROLES_AND_SPECTATOR}
    assert len(seen) == 1, seen
    phase = seen.pop()
    assert isinstance(phase, str) and 0 < len(phase) <= 60
    return phase


@pytest.mark.rule("Action phase", "Combat actions")
def test_the_phase_changes_with_a_battle_and_a_turn_but_not_with_menus_or_moves() -> None:
    s = turn_state("christian", "g2r5", deployed_except({"C4": ["c19"]}), deck=["g6r1"])
    start = phases(s)
    assert "turn 1" in start and "round 1" in start.lower()
    s = do(s, "christian", type="zone", zone="C5")
    assert phases(s) == start  # opening a menu is no news
    s = do(s, "christian", type="back")
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="move", to="C4")
    s = do(s, "christian", type="units", units=["c22"])
    assert phases(s) == start  # neither is a move
    assert all(view(s, r)["focus"] is None for r in ROLES_AND_SPECTATOR)
    s = do(s, "christian", type="zone", zone="C5")
    s = do(s, "christian", type="archers", target="C3")  # c23 is the one archer left in C5
    after_shot = phases(s)
    assert after_shot != start  # the archers' battle is worth a picture
    assert all(view(s, r)["focus"] == "C3" for r in ROLES_AND_SPECTATOR)
    s = do(s, "christian", type="zone", zone="C4")
    s = do(s, "christian", type="back")
    assert phases(s) == after_shot
    s = do(s, "christian", type="end_turn")
    next_turn = phases(s)
    assert next_turn not in (start, after_shot) and "turn 2" in next_turn
    assert view(s, None)["focus"] is None


@pytest.mark.rule("Standard attacks, Cavalry charges and karr wa-l-farr", "Karr wa-l-farr")
def test_a_battle_under_way_keeps_the_phase_and_shows_its_zone_until_it_is_resolved() -> None:
    s = turn_state("christian", "g3r4", deployed_except({}), deck=["g1r6", "g6r1"])
    before = phases(s)
    s = do(s, "christian", type="zone", zone="B4")
    s = do(s, "christian", type="charge", target="B3")
    s = do(s, "christian", type="units", units=["c10", "c11"])
    # B3 holds no cavalry: the charge is fought at once
    assert s["combat"] is None and phases(s) != before and view(s, None)["focus"] == "B3"
    s = turn_state("christian", "g1r6", deployed_except({"A4": ["c01", "c02"]}), deck=["g4r3", "g5r2"])
    before = phases(s)
    s = do(s, "christian", type="zone", zone="A4")
    s = do(s, "christian", type="charge", target="A3")
    s = do(s, "christian", type="units", units=["c01", "c02"])
    assert s["pending"]["kind"] == "karr"
    assert phases(s) == before  # nothing fought yet
    assert all(view(s, r)["focus"] == "A3" for r in ROLES_AND_SPECTATOR)
    assert view(s, "muslim")["reaction"] is False  # karr wa-l-farr is a decision, not a mere reaction
    s = do(s, "muslim", type="karr", declare=True)
    # fought, but the Muslim now distributes 3 damage: the battle is still under way
    assert s["pending"]["kind"] == "damage" and phases(s) == before
    while s["combat"] is not None:
        role = s["pending"]["role"]
        s = apply(s, role, actions(s, role)[0])
    assert phases(s) != before and view(s, None)["focus"] == "A3"


@pytest.mark.rule("How to play?", "Initiative phase", "Maintenance phase")
def test_the_phase_names_rounds_and_phases_and_is_the_same_for_everyone() -> None:
    s = setup(3, {})
    first = phases(s)
    assert "initiative" in first
    rng = random.Random(3)
    seen = [first]
    rounds = set()
    while result(s) is None:
        role = rng.choice(active(s))
        s = apply(s, role, rng.choice(actions(s, role)))
        phase = phases(s)
        if phase != seen[-1]:
            seen.append(phase)
        rounds.add(s["round"])
    assert seen[-1] == phases(s) and "over" in seen[-1].lower()
    assert len(seen) == len(set(seen))  # never back to an earlier picture
    for r in rounds:
        assert any(f"round {r}" in p.lower() and "initiative" in p for p in seen)


@pytest.mark.rule("Advanced variant / Black Guard", "Advanced variant")
def test_a_special_card_window_is_a_reaction_with_an_identified_pass() -> None:
    layout = deployed_except({"B2": ["c10", "c11", "c12"], "B3": [], "B4": []})
    s = turn_state("christian", "g3r4", layout, deck=["g6r1"], advanced=True)
    give_specials(s, "muslim", ["black-guard"])
    assert view(s, "christian")["reaction"] is False
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="attack", target="B1")
    s = do(s, "christian", type="units", units=["c10", "c11"])
    assert s["pending"]["kind"] == "window"
    assert view(s, "muslim")["reaction"] is True
    assert view(s, "christian")["reaction"] is False and view(s, None)["reaction"] is False
    assert all(view(s, r)["focus"] == "B1" for r in ROLES_AND_SPECTATOR)
    passes = [a for a in view(s, "muslim")["actions"] if a.get("pass")]
    assert len(passes) == 1 and passes[0]["type"] == "pass" and "auto" not in passes[0]
    s = apply(s, "muslim", passes[0])
    assert s["pending"] is None or s["pending"]["kind"] != "window"
    assert not s["autopass"]["muslim"]  # a plain pass keeps later windows open
