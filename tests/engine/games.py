"""Random legal games for the engine's tests: the one way they walk a game."""

from __future__ import annotations

import random
from typing import Any

import engine
from engine.api import State


def random_game(game_id: str, seed: int, options: dict[str, Any], stop: int | None = None) -> list[State]:
    """The states along a game of uniformly random legal steps (the generator seeded with
    ``seed``, as the setup is), until it ends or has ``stop`` states."""
    module = engine.get(game_id)
    rng = random.Random(seed)
    state = module.setup(seed, options)
    states = [state]
    while module.result(state) is None and (stop is None or len(states) < stop):
        role = rng.choice(module.active(state))
        state = module.apply(state, role, rng.choice(module.actions(state, role)))
        states.append(state)
    return states
