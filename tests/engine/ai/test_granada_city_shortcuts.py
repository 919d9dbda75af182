"""The shortcuts that make Dirk Henn's Granada's search cheaper (engine/ai/granada_city.py,
engine/granada_city/player.py; issue 31) decide as the long way did: the playout policy's
steps listed without the rebuilding checks are those of the full listing it filtered before,
the tree's order below the root is the one fresh ratings give, and the built-in player's
remembered answers are those it computes afresh, over positions of played games (2 and 3
players, Dirk included), each cache warmed by the positions before it."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine import players
from engine.ai import granada_city as city_ai
from engine.ai.adapters import default_candidates
from engine.ai.search import chosen_first
from engine.granada_city import city as C
from engine.granada_city import player
from engine.rng import Generator

GAME = engine.get("granada_city")


def _played(seed: int, options: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    state = GAME.setup(seed, options)
    pick = Generator(seed + 900)
    out = []
    while GAME.result(state) is None:
        role = GAME.active(state)[0]
        out.append((state, role))
        state = GAME.apply(state, role, players.choose(GAME, state, role, pick.randbelow(1 << 30)))
    return out


GAMES = {players_n: _played(11 + players_n, {"players": players_n}) for players_n in (2, 3)}


@pytest.mark.parametrize("players_n", [2, 3])
def test_the_playout_chooses_among_the_full_listings_steps(players_n: int) -> None:
    """Before the shortcut the policy listed every legal step and dropped rebuilding and going
    back (keeping them only when nothing else was legal): the same steps, in the same order."""
    seen_rebuild = 0
    for state, role in GAMES[players_n]:
        legal = default_candidates(GAME, state, role)
        wanted = [a for a in legal if a["type"] not in ("rebuild", "back")] or legal
        seen_rebuild += any(a["type"] == "rebuild" for a in legal)
        assert city_ai._moves(state, role) == wanted
    assert seen_rebuild > 0, "no position offered a rebuilding: the shortcut was never tried"


def test_below_the_root_the_order_is_that_of_fresh_ratings() -> None:
    """The tree's order of a decision's options below the root: the policy's step first, then
    by the built-in player's ratings, each computed here again."""
    checked = 0
    for i, (state, role) in enumerate(GAMES[3][::3]):
        actions = city_ai.candidates(GAME, state, role)
        if len(actions) < 2:
            continue
        chosen = city_ai.playout(GAME, state, role, i)
        scores = [-1e9 if a["type"] in city_ai.SKIPPED else player._rate(state, role, a) for a in actions]
        assert city_ai.rank(GAME, state, role, i, actions, False) == chosen_first(chosen, actions, scores)
        checked += 1
    assert checked > 10


@pytest.mark.parametrize("players_n", [2, 3])
def test_remembered_positions_and_exact_payments_are_computed_ones(players_n: int) -> None:
    player._BEST.clear()
    player._EXACT.clear()
    for state, role in GAMES[players_n]:
        for entry in [e for e in state["yard"] if e is not None]:
            tid = entry[0]
            fresh: tuple[float, C.Cell | None] = (-1e9, None)
            for cell in C.positions(state["cities"][role], tid):
                score = player.position_score(state, role, tid, cell)
                if score > fresh[0]:
                    fresh = (score, cell)
            assert player.best_position(state, role, tid) == fresh
        hand = state["hands"][role]
        assert player._exact_chances(state, hand) == player._count_exact(state, hand)
    assert player._BEST and player._EXACT
