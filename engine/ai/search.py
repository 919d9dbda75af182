"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

One tree for the searching role's information set. Each iteration:

1. draws a world ``redeal(canonical(state, role), role, k)``: everything the role cannot
   see is drawn again, so the search knows only what the role knows;
2. descends the tree with UCB1, counting a child's *availability* (how often its action was
   legal when its parent was reached) in place of the parent's visits, because a hidden
   card or block makes an action exist in some worlds only;
3. adds one node (progressive widening: after n visits the root may have tried at most
   ``max(2, ceil(widen * sqrt(n)))`` options, a decision below it as many or, with
   ``Budget.deep``, ``max(1, floor(deep * sqrt(n)))``; the built-in player's choice is tried first,
   and keeps a fading bonus in UCB, the others come in the order of the game's ``Adapter.rank``,
   by default the order the game lists them);
4. plays the game's playout policy (adapters.py; by default the built-in player
   ``engine.players.choose``, the "easy" level) for ``depth`` steps, then scores the
   position: the result when the game is over, else the game's evaluation;
5. credits each node with the score of the role that chose it.

Decisions with a single option, the searching role's or anyone's, are taken at once and do
not take a level of the tree. The answer is the most visited option at the root (ties: the
better mean, then the game's own order), or with ``Budget.margin`` the option tried first
(the built-in player's choice) unless the most visited one's mean beats it by more than the
margin, among those that cannot lose the game at once (``Adapter.risk``, over every legal
option, including any the game's ``candidates`` keep out of the tree) while one that cannot
exists. Every draw comes from ``engine.rng`` seeded by the
caller's seed, so a search is a pure function of (state as the role knows it, seed, budget).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.ai.adapters import Adapter, Budget, default_candidates
from engine.api import Action, GameModule, State, find_action, strip_label
from engine.rng import Generator

MAX_TREE_STEPS = 400
"""A bound on the steps one descent may take (forced steps included)."""


def policy_step(moves: list[Action], scores: list[float], seed: int) -> Action:
    """A heuristic playout policy's step (the adapters' ``playout``): the best-scored of
    ``moves``, ties broken by draws of a generator seeded by ``seed``, one a move in order."""
    gen = Generator(seed)
    return moves[max(range(len(moves)), key=lambda i: (scores[i], gen.randbelow(1000)))]


def chosen_first(chosen: Action, actions: list[Action], scores: list[float]) -> list[int]:
    """An adapter's ``rank`` of ``actions``: the built-in player's (or the playout policy's)
    ``chosen`` first, then the others by ``scores``, highest first, then in the menu's order,
    so that a few dozen iterations go to the steps the heuristic nearly chose."""
    pick = strip_label(chosen)
    return sorted(range(len(actions)), key=lambda i: (strip_label(actions[i]) != pick, -scores[i], i))


def action_key(action: Action) -> str:
    return json.dumps(strip_label(action), sort_keys=True, separators=(",", ":"))


@dataclass
class Node:
    role: str | None = None          # who chose the action leading here (None at the root)
    action: Action | None = None
    order: int = 0                   # the action's place in its first list (tie-break)
    visits: int = 0
    value: float = 0.0               # sum of the scores of ``role``
    avail: int = 0
    prior: float = 0.0               # 1 for the built-in player's own choice (progressive bias)
    children: dict[str, Node] = field(default_factory=dict)

    def mean(self) -> float:
        return self.value / self.visits if self.visits else 0.0


@dataclass
class Stats:
    """What one search did, for benchmarks and tests."""

    iterations: int = 0
    options: list[tuple[Action, int, float]] = field(default_factory=list)  # (action, visits, mean)
    first: Action | None = None      # the root option tried first: the built-in player's choice


def outcome(module: GameModule, state: State, roles: list[str], adapter: Adapter) -> dict[str, float]:
    """Each role's score in [0, 1]: 1/0 for a finished game's winner/losers, 1/k for each of k
    players sharing a win (the result's ``winners``: Dirk Henn's Granada, Sabika; a solo
    player beaten by the game's own opponent, who is no role, scores 0), 0.5 all round for a
    draw without winners, else the adapter's evaluation (0.5 for a role it has no opinion
    about)."""
    res = module.result(state)
    if res is not None:
        winner = res.get("winner")
        if winner is not None:
            return {r: 1.0 if r == winner else 0.0 for r in roles}
        winners = res.get("winners")
        if winners:
            return {r: 1.0 / len(winners) if r in winners else 0.0 for r in roles}
        return {r: 0.5 for r in roles}
    guess = adapter.evaluate(state)
    return {r: guess.get(r, 0.5) for r in roles}


def _mover(module: GameModule, state: State, prefer: str | None) -> str | None:
    active = list(module.active(state))
    if not active:
        return None
    if prefer is not None and prefer in active:
        return prefer
    return active[0]


def search(module: GameModule, state: State, role: str, seed: int, budget: Budget,
           adapter: Adapter) -> tuple[Action, Stats]:
    """The search's choice for ``role`` in ``state`` and its statistics.

    ``state`` is read only through ``adapter.canonical``; the caller maps the answer back to
    the real state's legal actions.
    """
    base = adapter.canonical(state, role)
    roles = list(module.roles(base.get("options", {}) or {}))
    options = adapter.candidates(module, base, role)
    every = default_candidates(module, base, role)  # the safety rule may need one the tree leaves out
    if not options:
        raise ValueError(f"{role} has no legal action")
    stats = Stats()
    if len(options) == 1:
        if len(every) == 1:
            return options[0], stats
        return _safest(every, options, adapter.risk(base, role, seed)), stats
    gen = Generator(seed)
    root = Node()
    for _ in range(max(1, budget.iterations)):
        world = module.redeal(base, role, gen.randbelow(1 << 62))
        if not roles:
            roles = list(module.active(world))
        _iterate(module, world, role, root, gen, budget, adapter, roles)
        stats.iterations += 1
    ranked = sorted(root.children.values(), key=lambda n: (-n.visits, -n.mean(), n.order))
    anchor = next((n for n in ranked if n.prior), None)
    stats.first = None if anchor is None else anchor.action
    if (budget.margin is not None and anchor is not None and ranked[0] is not anchor
            and ranked[0].mean() - anchor.mean() <= budget.margin):
        ranked.remove(anchor)
        ranked.insert(0, anchor)
    stats.options = [(n.action or {}, n.visits, n.mean()) for n in ranked]
    return _safest(every, [n.action for n in ranked if n.action is not None],
                   adapter.risk(base, role, seed)), stats


def _safest(options: list[Action], ranked: list[Action], risk: Callable[[Action], float]) -> Action:
    """The best ranked option that cannot lose the game at once; when every ranked one may, the
    first of the others (in the game's order) that cannot; when every option may, the least
    likely to. The search's statistics cannot be trusted with this: a step that loses in a
    few of the worlds may still look good on the average of a few dozen samples."""
    tried = [chosen for chosen in (find_action(options, a) for a in ranked) if chosen is not None]
    keys = {action_key(a) for a in tried}
    for action in tried + [a for a in options if action_key(a) not in keys]:
        if risk(action) == 0:
            return action
    return min(tried + [a for a in options if action_key(a) not in keys], key=risk)


def _iterate(module: GameModule, state: State, role: str, root: Node, gen: Generator, budget: Budget,
             adapter: Adapter, roles: list[str]) -> None:
    node = root
    path: list[Node] = []
    prefer: str | None = role             # the searching role decides at the root
    expanded = False
    for _ in range(MAX_TREE_STEPS):
        if module.result(state) is not None:
            break
        mover = _mover(module, state, prefer)
        prefer = None
        if mover is None:
            break
        legal = adapter.candidates(module, state, mover)
        if not legal:
            break
        if len(legal) == 1:
            state = module.apply(state, mover, legal[0])
            continue
        if expanded:
            break
        keyed = [(action_key(a), i, a) for i, a in enumerate(legal)]
        present = []
        fresh = []
        for key, i, a in keyed:
            child = node.children.get(key)
            if child is None:
                fresh.append((key, i, a))
            else:
                child.avail += 1
                present.append(child)
        if node is root or budget.deep is None:
            limit = max(2, math.ceil(budget.widen * math.sqrt(node.visits + 1)))
        else:
            limit = max(1, math.floor(budget.deep * math.sqrt(node.visits + 1)))
        if fresh and len(present) < limit:
            key, i, a = _first_to_try(module, state, mover, fresh, gen, adapter, node is root)
            child = Node(role=mover, action=a, order=i, avail=1, prior=0.0 if node.children else 1.0)
            node.children[key] = child
            expanded = True
        else:
            child = max(present, key=lambda c: (_ucb(c, budget.explore, budget.bias), -c.order))
        assert child.action is not None
        state = module.apply(state, mover, child.action)
        path.append(child)
        node = child
    state = _playout(module, state, gen, budget.depth, adapter)
    score = outcome(module, state, roles, adapter)
    root.visits += 1
    for child in path:
        child.visits += 1
        child.value += score.get(child.role or "", 0.5)


def _first_to_try(module: GameModule, state: State, mover: str, fresh: list[tuple[str, int, Action]],
                  gen: Generator, adapter: Adapter, checked: bool) -> tuple[str, int, Action]:
    """The untried option the game's ranking (``Adapter.rank``) puts first: by default the
    built-in player's choice when it is still untried, else the first untried option."""
    if len(fresh) > 1:
        order = adapter.rank(module, state, mover, gen.randbelow(1 << 62), [a for _, _, a in fresh], checked)
        return fresh[order[0]]
    return fresh[0]


def _ucb(child: Node, explore: float, bias: float) -> float:
    """UCB1 with availability counts, plus a progressive bias (Chaslot et al. 2008) toward the
    built-in player's choice that fades as real results come in: with few iterations the
    search then keeps the heuristic's move unless the playouts clearly say otherwise."""
    if child.visits == 0:
        return math.inf
    return (child.mean() + explore * math.sqrt(math.log(max(child.avail, 1)) / child.visits)
            + bias * child.prior / (child.visits + 1))


def _playout(module: GameModule, state: State, gen: Generator, depth: int, adapter: Adapter) -> State:
    policy = adapter.playout
    for _ in range(depth):
        if module.result(state) is not None:
            break
        mover = _mover(module, state, None)
        if mover is None:
            break
        action = policy(module, state, mover, gen.randbelow(1 << 62))
        state = module.apply(state, mover, action)
    return state


def describe_stats(stats: Stats) -> list[dict[str, Any]]:
    """The root's options as plain data (visits and mean score), best first."""
    return [{"action": strip_label(a), "visits": v, "mean": round(m, 4)} for a, v, m in stats.options]
