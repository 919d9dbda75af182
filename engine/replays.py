"""Replaying a game's log: the one loop that turns (seed, options, moves) back into states.

The service replays logs to check them, to import a game, to take a step back and to check
stored games after a rules upgrade; the front ends replay a finished game for its animation.
Each did it with its own loop; they now share this one, so that what "replaying a game"
means (``setup`` from a copy of the options, then ``apply`` of each move in order) is written
once, and a game whose replay needs more (a state stored at a rules upgrade to start from)
says so with ``start``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.api import Action, GameModule, State, clone

Move = Mapping[str, Any] | tuple[str, Action]
"""A move as a log holds it: ``{"role": ..., "action": ...}`` (an exported move), or a
``(role, action)`` pair."""


def replay(module: GameModule, seed: int, options: Mapping[str, Any], moves: Iterable[Move], *,
           start: State | None = None) -> Iterator[State]:
    """The state before the first move, then the state after each move, one at a time (a
    long game is never held whole). The first is ``module.setup(seed, options)`` (on a copy of
    the options, which ``setup`` may keep), or ``start`` when the replay begins from a stored
    state. A move the rules refuse raises the engine's :class:`RuleError` when its state is
    asked for, after every state before it was yielded."""
    state = module.setup(seed, clone(dict(options))) if start is None else start
    yield state
    for move in moves:
        role, action = (move["role"], move["action"]) if isinstance(move, Mapping) else move
        state = module.apply(state, role, action)
        yield state


def replay_last(module: GameModule, seed: int, options: Mapping[str, Any], moves: Iterable[Move], *,
                start: State | None = None) -> State:
    """The state the moves lead to (see :func:`replay`)."""
    last: deque[State] = deque(replay(module, seed, options, moves, start=start), maxlen=1)
    return last[0]
