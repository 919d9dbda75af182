"""The shortcuts that make Sabika's search cheaper (engine/ai/sabika.py, engine/sabika/rules.py,
player.py, turn.py, middle.py; issue 31) decide as the long way did, over positions of played
games (2 players, and solo against Yusuf, whose turns ``apply`` plays): a listed step applied
without the legality check gives the state the checked ``apply`` gives, apply's copy is the deep
copy but for the log's entries (shared, never changed), the move costs of a whole rondel are
each square's own, the remembered route lengths are those Dijkstra finds afresh, and the tree's
order below the root is the one fresh scores give."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

import engine
from engine import players
from engine.ai import sabika as sabika_ai
from engine.ai.search import chosen_first
from engine.api import clone
from engine.rng import Generator
from engine.sabika import middle, player, rules, turn
from engine.sabika.data import CITIES, WORKER_RONDEL
from engine.sabika.state import funds, ring

GAME = engine.get("sabika")


def _played(seed: int, options: dict[str, Any], steps: int) -> list[tuple[dict[str, Any], str]]:
    state = GAME.setup(seed, options)
    pick = Generator(seed + 700)
    out = []
    for _ in range(steps):
        if GAME.result(state) is not None:
            break
        role = GAME.active(state)[0]
        out.append((state, role))
        state = GAME.apply(state, role, players.choose(GAME, state, role, pick.randbelow(1 << 30)))
    return out


GAMES = {"duo": _played(21, {"players": 2}, 260), "solo": _played(22, {"players": 1}, 260)}


def _without_log(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "log"}


@pytest.mark.parametrize("game", ["duo", "solo"])
def test_a_listed_step_applied_unchecked_is_the_checked_apply(game: str) -> None:
    tried = 0
    for state, role in GAMES[game][::2]:
        before = clone(state)
        for action in rules.actions(state, role):
            assert rules.apply_listed(state, role, action) == rules.apply(state, role, action)
            tried += 1
        assert state == before, "apply_listed changed its input"
    assert tried > 200


@pytest.mark.parametrize("game", ["duo", "solo"])
def test_apply_copies_the_state_but_shares_the_logs_entries(game: str) -> None:
    """The copy apply changes is the deep copy, keys in the same order, but for the log's
    entries: the list is new, so lines added to it never reach the state given to apply."""
    for state, role in GAMES[game][::5]:
        before = clone(state)
        copy = rules._copy(state)
        assert copy == clone(state)
        assert list(copy) == list(state)
        assert copy["log"] is not state["log"] and copy["players"] is not state["players"]
        copy["log"].append({"text": "a line"})
        after = rules.apply(state, role, rules.actions(state, role)[0])
        assert len(after["log"]) >= len(state["log"])
        assert state == before, "apply or its copy changed the state given to it"


@pytest.mark.parametrize("game", ["duo", "solo"])
def test_the_move_costs_of_a_rondel_are_each_squares_own(game: str) -> None:
    checked = 0
    for state, _ in GAMES[game]:
        if state["phase"] == "setup":
            continue
        for role in state["roles"]:
            p = state["players"][role]
            for worker in p["workers"]:
                rondel = WORKER_RONDEL[worker.rstrip("12")]
                at = p["workers"][worker]["at"]
                costs = {sq: turn.move_cost(state, role, worker, sq) for sq in ring(state["n"], rondel) if sq != at}
                assert turn.move_costs(state, role, worker) == costs
                assert list(turn.move_costs(state, role, worker)) == list(costs)
                reachable = [sq for sq, c in costs.items() if c <= funds(p)]
                assert turn.destinations(state, role, worker) == reachable
                assert list(turn.reachable(state, role, worker).items()) == [(sq, costs[sq]) for sq in reachable]
                checked += 1
    assert checked > 500


def test_remembered_route_lengths_are_dijkstras() -> None:
    middle._DISTANCES.clear()
    some = list(CITIES)[:5]
    for n in range(len(some) + 1):
        for chosen in itertools.combinations(some, n):
            starts = ["granada", *chosen]
            fresh = middle._dijkstra(starts)
            assert middle.distances({}, starts) == fresh
            middle.distances({}, starts)["granada"] = 99  # a caller's change is not remembered
            assert middle.distances({}, starts) == fresh
    assert middle._DISTANCES


@pytest.mark.parametrize("game", ["duo", "solo"])
def test_below_the_root_the_order_is_that_of_fresh_scores(game: str) -> None:
    """The tree's order of a decision's options below the root: the policy's step first, then
    by the one-step judgement (the prior where a Worker goes), each computed here again."""
    checked = 0
    for i, (state, role) in enumerate(GAMES[game][::3]):
        actions = sabika_ai.candidates(GAME, state, role)
        if len(actions) < 2:
            continue
        chosen = sabika_ai.playout(GAME, state, role, i)
        if sabika_ai._is_move(state):
            scores = [player.prior(state, role, a) for a in actions]
        else:
            base = player.value(state, role)
            scores = [player.value(rules.apply(state, role, a), role) - base + player.prior(state, role, a)
                      for a in actions]
        expected = chosen_first(chosen, actions, scores)
        assert sabika_ai.rank(GAME, state, role, i, actions, False) == expected
        assert sabika_ai.rank(GAME, state, role, i, actions[1:], False) == chosen_first(
            chosen, actions[1:], scores[1:])
        checked += 1
    assert checked > 20
