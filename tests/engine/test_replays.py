"""One replay (engine/replays.py): the loop the service and the front ends share to turn a
log back into states."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from engine.api import RuleError
from engine.players import choose
from tests.bot import toygame


def _log(seed: int, steps: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A game of the toy race played by the built-in player: (its moves as exported, the
    state after setup and after each move)."""
    state = toygame.setup(seed, {"target": 8})
    states, moves = [state], []
    for n in range(steps):
        if toygame.result(state) is not None:
            break
        role = toygame.active(state)[0]
        action = choose(toygame, state, role, seed * 1000 + n)
        moves.append({"role": role, "action": action})
        state = toygame.apply(state, role, action)
        states.append(state)
    return moves, states


def test_replay_yields_the_setup_then_the_state_after_each_move() -> None:
    moves, states = _log(3, 40)
    options = {"target": 8}
    replayed = list(engine.replay(toygame, 3, options, moves))
    assert [json.dumps(s, sort_keys=True) for s in replayed] == [json.dumps(s, sort_keys=True) for s in states]
    assert options == {"target": 8}
    pairs = [(m["role"], m["action"]) for m in moves]
    assert engine.replay_last(toygame, 3, options, pairs) == states[-1]


def test_replay_from_a_stored_state() -> None:
    moves, states = _log(4, 30)
    assert engine.replay_last(toygame, 4, {"target": 8}, moves[10:], start=states[10]) == states[-1]


def test_a_refused_move_stops_the_replay_after_the_states_before_it() -> None:
    moves, states = _log(5, 12)
    bad = [*moves[:6], {"role": moves[6]["role"], "action": {"type": "teleport"}}, *moves[7:]]
    replay = engine.replay(toygame, 5, {"target": 8}, bad)
    got = [next(replay) for _ in range(7)]
    assert got == states[:7]
    with pytest.raises(RuleError):
        next(replay)
