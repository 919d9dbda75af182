"""Forced steps (issue 38): the only action of a menu, which decides nothing
(``engine.api.Game.forced_step``), is taken by the service itself after a step
(``ServiceCore._step``), unless the seat asks to confirm such steps or taking it at once would
tell another seat something hidden. What decides that, and how a recorded move says it."""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from bot.models import loads
from bot.service.sql import STANDING_TAIL
from engine.api import GameModule, State

CONFIRM_FORCED = "confirm_forced"
"""The seat preference (true/false, default false) asking that forced steps be asked like any
other, instead of taken by the service itself (``/prefs`` on Discord, ``confirm on`` at the
terminal table)."""
FORCED_LIMIT = 32
"""Forced steps the service takes by itself in a row at most, after one step: a game whose
forced steps never end still returns."""
assert FORCED_LIMIT < STANDING_TAIL


@lru_cache(maxsize=256)
def confirms_forced(prefs: str | None) -> bool:
    """Whether a seat whose stored preferences are the text ``prefs`` asks to confirm forced
    steps (:data:`CONFIRM_FORCED`). Parsed once per text: every step asks it of each seat to
    act, and seats share a few texts (``{}`` mostly)."""
    return (loads(prefs) or {}).get(CONFIRM_FORCED) is True


def is_auto(action: dict[str, Any]) -> bool:
    """Whether a recorded action is a forced step the service took by itself."""
    return action.get("automatic") is True


FORCED_SAMPLES = 2
"""Worlds per other seat in which :func:`_forced_tells` asks whether a step is still forced."""


def _forced_tells(module: GameModule, state: State, who: str, others: Sequence[str], seed: int) -> bool:
    """Whether ``who``'s step being forced depends on something another seat cannot see (a
    hand with nothing to play): taken at once, with a public line, it would tell that seat so.
    Asked in a few worlds each other seat cannot tell from this one (``redeal``), seeded, so
    that a replayed command decides the same."""
    chooser = random.Random(seed)
    for other in others:
        for _ in range(FORCED_SAMPLES):
            world = module.redeal(state, other, chooser.randrange(1 << 30))
            if module.forced_step(world, who) is None:
                return True
    return False
