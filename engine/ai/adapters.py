"""What the search needs to know about one game, and nothing the contract already says.

The search (:mod:`engine.ai.search`) works on any game behind the contract; a game may add an
:class:`Adapter` that makes it better or makes it exact:

* ``canonical(state, role)``: one representative of everything ``role`` cannot tell from
  ``state`` (hidden collections put in a fixed order). Every sample the search draws is
  ``redeal(canonical(state, role), role, k)``, so the same seed gives the same decision on any
  two states ``role`` cannot tell apart, not only the same distribution of decisions. Without
  it (the default, for a game not listed here) the search is still fair, since every sample
  still comes from ``redeal``, but two such states may give different decisions.
* ``evaluate(state)``: the chance of each role winning from a position that is not over,
  where playouts to the end are too long.
* ``candidates(module, state, role)``: the decisions worth searching (no menu pages, no
  auto-pass preference).
* ``playout(module, state, role, seed)``: the policy of the playouts (default: the built-in
  player, ``engine.players.choose``). A cheaper policy buys more iterations in the same time;
  the tree still tries the built-in player's choice first at every decision.
* ``risk(state, role, seed)``: a judge of the role's options, the share of the worlds the role
  cannot rule out in which an option loses the game at once (default: none ever does). The
  search never answers with an option that may lose at once while one that cannot exists, the
  rule every built-in player keeps.
* ``rank(module, state, role, seed, actions, checked)``: the order in which the tree tries a
  decision's options, best first, as indices into ``actions`` (default: the built-in player's
  choice, then the game's order). ``checked`` is true at the root, where the first must be the
  built-in player's own full choice (safety check included); below it a cheaper guess will do.
* ``budgets``: iterations and playout length per level.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from engine import players
from engine.api import Action, GameModule, State, adapt, clone, strip_label


@dataclass(frozen=True)
class Budget:
    """The search effort of one level.

    ``iterations`` fixes the work (not the wall time) so that a decision is reproducible on
    any machine and under any load; ``depth`` is how many steps a playout takes before the
    evaluation judges the position; ``widen`` scales progressive widening (how many of a
    decision's options the tree may try after n visits: ``max(2, ceil(widen * sqrt(n)))``);
    ``explore`` is UCB1's constant and ``bias`` the weight of the built-in player's choice.
    ``deep``, when given, widens the decisions below the root more slowly, ``max(1, floor(deep
    * sqrt(n)))`` options after n visits (None: as the root): there the first visits follow the built-in player's choice, so
    that a root option is judged by its good continuation rather than by the average of
    untried ones (with a few dozen iterations a reply's every alternative dilutes it).
    ``margin``: the search answers with another option than the built-in player's choice only
    when that option's mean score beats the choice's by more than this (None: the most
    visited wins). A few dozen noisy samples otherwise trade a sound move for a lucky one.
    """

    iterations: int
    depth: int
    widen: float = 2.0
    explore: float = 0.3
    bias: float = 0.5
    deep: float | None = None
    margin: float | None = None


def level_budgets(normal: int, hard: int, depth: int, deep: float | None = None,
                  margin: float | None = None) -> dict[str, Budget]:
    """The ``normal`` and ``hard`` budgets of an adapter that differ only in iterations."""
    return {level: Budget(iterations=n, depth=depth, deep=deep, margin=margin)
            for level, n in (("normal", normal), ("hard", hard))}


def _identity(state: State, role: str) -> State:
    copied: State = clone(state)
    return copied


def _no_opinion(state: State) -> dict[str, float]:
    return {}


def _no_risk(state: State, role: str, seed: int) -> Callable[[Action], float]:
    return lambda action: 0.0


def easy_first(module: GameModule, state: State, role: str, seed: int, actions: list[Action],
               checked: bool) -> list[int]:
    """The built-in player's choice, then the others in the game's order."""
    wanted = strip_label(players.choose(module, state, role, seed))
    first = next((i for i, a in enumerate(actions) if strip_label(a) == wanted), 0)
    return [first] + [i for i in range(len(actions)) if i != first]


def default_candidates(module: GameModule, state: State, role: str) -> list[Action]:
    """Every legal decision of ``role``: the unpaged list when the game offers one."""
    game = adapt(module)
    return [a for a in game.legal_actions(state, role) if not game.is_nav(a)]


@dataclass(frozen=True)
class Adapter:
    canonical: Callable[[State, str], State] = _identity
    evaluate: Callable[[State], dict[str, float]] = _no_opinion
    candidates: Callable[[GameModule, State, str], list[Action]] = default_candidates
    playout: Callable[[GameModule, State, str, int], Action] = players.choose
    risk: Callable[[State, str, int], Callable[[Action], float]] = _no_risk
    rank: Callable[[GameModule, State, str, int, list[Action], bool], list[int]] = easy_first
    budgets: dict[str, Budget] = field(default_factory=lambda: {
        "normal": Budget(iterations=200, depth=60), "hard": Budget(iterations=800, depth=60)})
