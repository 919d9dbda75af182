"""The built-in player: what takes an empty seat in the terminal table and at a deadline.

A game may offer ``choose(state, role, seed) -> action`` for a smarter player; any other game
gets a uniformly random legal action, which is also how the contract check fuzzes the rules
(:meth:`engine.api.Game.choose`).
"""

from __future__ import annotations

from engine.api import Action, GameModule, RulesModule, State, adapt


def choose(module: GameModule | RulesModule, state: State, role: str, seed: int) -> Action:
    return adapt(module).choose(state, role, seed)
