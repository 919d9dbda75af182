"""The built-in player: what takes an empty seat in the terminal table and at a deadline.

A game may offer ``module.choose(state, role, seed) -> action`` for a smarter player; any
other game gets a uniformly random legal action, which is also how the contract check
fuzzes the rules.
"""

from __future__ import annotations

from engine.api import Action, GameModule, State
from engine.rng import Generator


def choose(module: GameModule, state: State, role: str, seed: int) -> Action:
    custom = getattr(module, "choose", None)
    if custom is not None:
        action: Action = custom(state, role, seed)
        return action
    legal = module.actions(state, role)
    if not legal:
        raise ValueError(f"{role} has no legal action")
    return Generator(seed).choice(legal)
