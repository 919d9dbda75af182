"""The search player: a built-in opponent at three levels, for every game behind the contract.

``choose(game, state, role, seed, level)`` is pure: the same arguments give the same action on
any machine, and its arguments (a game id, a JSON state, strings and an int) pickle, so the
service may call it in a process pool.

Levels:

* ``easy``: the built-in player of :mod:`engine.players` (a heuristic or weighted random
  player, instant).
* ``normal`` and ``hard``: information-set Monte Carlo tree search (:mod:`engine.ai.search`)
  that tries the easy player's choice first at every decision, plays out with the game's
  playout policy (the easy player unless the game's adapter has a cheaper one) and scores
  with the game's evaluation where playouts are cut short (:mod:`engine.ai.navas`,
  :mod:`engine.ai.granada`, :mod:`engine.ai.granada_city`, :mod:`engine.ai.sabika`).

The budget is a number of iterations, not seconds. A wall-time budget would make a decision
depend on the machine's load: a replay, a test or a bug report could not reproduce it. Each
game's iteration counts are calibrated to the level's think-time budget (``SECONDS``: 2 s per
decision for ``hard``, 0.5 s for ``normal``) on the 2-core reference machine (``alcazaba bench
--ai`` prints the time actually taken, ``ai.think_s``, and judges it against the budget).
``iterations`` overrides the level's count.

Fairness: the search reads ``state`` only through the game's ``canonical`` form and
``redeal`` (adapters.py), so it knows exactly what ``role`` knows.
"""

from __future__ import annotations

import dataclasses

from engine import players
from engine.ai.adapters import Adapter, Budget, default_candidates
from engine.ai.registry import adapter
from engine.ai.search import Stats, search
from engine.api import Action, GameModule, State, adapt, find_action

__all__ = ["LEVELS", "SECONDS", "Adapter", "Budget", "budget", "choose", "choose_with_stats"]

LEVELS = ("easy", "normal", "hard")
SECONDS = {"easy": 0.0, "normal": 0.5, "hard": 2.0}
"""Each level's think-time budget per decision on the 2-core reference machine: what the
games' iteration counts are calibrated to (``alcazaba bench --ai`` checks ai.think_s
against it: median within the budget, p95 at most 1.5 times it)."""


def _module(game: str | GameModule) -> GameModule:
    """The game behind the whole contract (engine.api.Game: every optional capability there)."""
    if isinstance(game, str):
        import engine

        return engine.get(game)
    return adapt(game)


def budget(game: str | GameModule, level: str, iterations: int | None = None) -> Budget:
    """The search budget of ``level`` for a game; ``iterations`` replaces its count."""
    module = _module(game)
    if level not in LEVELS or level == "easy":
        raise ValueError(f"unknown search level {level!r}; search levels: normal, hard")
    chosen = adapter(module.id).budgets[level]
    if iterations is not None:
        chosen = dataclasses.replace(chosen, iterations=iterations)
    return chosen


def choose_with_stats(game: str | GameModule, state: State, role: str, seed: int, level: str = "normal",
                      iterations: int | None = None) -> tuple[Action, Stats]:
    """The level's action for ``role`` and what the search did (empty for ``easy`` and for a
    decision with one option, which are answered at once)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
    module = _module(game)
    if level == "easy":
        return players.choose(module, state, role, seed), Stats()
    plan = budget(module, level, iterations)
    game_adapter = adapter(module.id)
    legal = default_candidates(module, state, role)
    if len(legal) == 1:
        return legal[0], Stats()
    picked, stats = search(module, state, role, seed, plan, game_adapter)
    # the search ran on the canonical state: give back the real state's own action
    real = find_action(legal, picked)
    if real is None:
        raise RuntimeError(f"{module.id}: the search chose {picked!r}, which is not among {role}'s legal "
                           "actions (the game's canonical form changed what the role may do)")
    return real, stats


def choose(game: str | GameModule, state: State, role: str, seed: int, level: str = "normal",
           iterations: int | None = None) -> Action:
    """The action of the built-in opponent of ``level`` for ``role`` (see the module notes)."""
    return choose_with_stats(game, state, role, seed, level, iterations)[0]
