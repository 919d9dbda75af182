"""The 1212 built-in player: never a move that loses the game at once while another exists."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.api import find_action
from engine.navas import actions, active, apply, choose, result, setup
from engine.navas import player as navas_player

from .helpers import deployed_except, do, turn_state

pytestmark = pytest.mark.rule("Victory conditions")


def loses(state: dict[str, Any], role: str, action: dict[str, Any]) -> bool:
    outcome = result(apply(state, role, action))
    return outcome is not None and outcome["winner"] != role


def camp_under_attack() -> dict[str, Any]:
    """The Muslim distributes 4 damage in B1 (al-Nasir at 1 Power, two Black Guards at 2): losing
    both Black Guards keeps al-Nasir; every other choice eliminates him and loses on the spot."""
    layout = deployed_except({"B2": ["c10", "c11", "c12"], "B3": [], "B4": []})
    s = turn_state("christian", "g3r4", layout, deck=["g2r5"], powers={"m04": 1})
    s = do(s, "christian", type="zone", zone="B2")
    s = do(s, "christian", type="attack", target="B1")
    s = do(s, "christian", type="units", units=["c10", "c11", "c12"])
    assert s["pending"] == {"kind": "damage", "role": "muslim", "zone": "B1", "amount": 4}
    return s


def test_the_player_never_gives_up_al_nasir_while_flipping_the_guard_is_possible() -> None:
    s = camp_under_attack()
    legal = actions(s, "muslim")
    assert any(loses(s, "muslim", a) for a in legal) and any(not loses(s, "muslim", a) for a in legal)
    for seed in range(600):  # enough seeds for the occasional exploratory move to come up
        pick = choose(s, "muslim", seed)
        assert not loses(s, "muslim", pick), (seed, pick)


def test_the_possible_draws_include_the_real_ones() -> None:
    """What the player imagines for the next two battle cards always includes what is really
    there, and each imagined deal looks the same as the real one from its side."""
    from engine.navas import view

    for seed in (5, 6):
        rng = random.Random(seed)
        s = setup(seed, {"advanced": seed % 2 == 0})
        for step in range(400):
            if result(s) is not None:
                break
            role = rng.choice(active(s))
            if step % 9 == 0 and not s["deck_known"] and len(s["deck"]) >= 2:
                worlds = navas_player.Worlds(s, role, step).all()
                assert tuple(s["deck"][:2]) in {tuple(w["deck"][:2]) for w in worlds}
                assert all(view({**w, "log": s["log"]}, role) == view(s, role) for w in worlds[:3])
            s = apply(s, role, rng.choice(actions(s, role)))


@pytest.mark.parametrize("options", [{}, {"advanced": True}])
def test_the_chosen_move_never_loses_at_once_when_a_safe_one_exists(options: dict[str, Any]) -> None:
    """Over random positions: if the player's move loses the real game on the spot, then no
    legal alternative was safe whatever the hidden cards (in every deal the player imagines,
    which include the real one)."""
    checked = losing_positions = 0
    for seed in range(40, 44):
        rng = random.Random(seed)
        s = setup(seed, options)
        while result(s) is None:
            role = rng.choice(active(s))
            legal = actions(s, role)
            if len(legal) > 1 and rng.random() < 0.5:
                pick = choose(s, role, rng.randrange(1 << 30))
                assert find_action(legal, pick) is not None
                checked += 1
                if any(loses(s, role, a) for a in legal):
                    losing_positions += 1
                if loses(s, role, pick):
                    worlds = navas_player.Worlds(s, role, 1)
                    assert all(worlds.risk([a]) > 0 for a in legal), pick
            s = apply(s, role, rng.choice(legal))
    assert checked > 200 and losing_positions > 0
