"""The same state gives the same step and the same views whatever the order of its dicts'
keys: the service stores states as JSON with sorted keys and reads them back, and a replay of
the log from the setup must reach the state it stored (``alcazaba replay-check``).

``alcazaba check`` looks at this at its deep steps; here whole games are checked at every
step, each chosen to pass the moments that once went wrong: the log line of a Sabika tribute
listed the means of paying, a Dirk Henn scoring report listed the players, and a solo Sabika
view listed Yusuf's cities, each in the order of the state's keys."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine.api import State
from engine.check import as_json


def tributes(before: State, after: State) -> int:
    return sum("pays the tribute" in e["text"] for e in after["log"][len(before["log"]):])


def scorings(before: State, after: State) -> int:
    return len(after["scorings"]) - len(before["scorings"])


def yusuf_presence(before: State, after: State) -> int:
    return int(len(engine.get("sabika").view(after, None)["yusuf"]["presence"]) >= 2)


CASES: list[tuple[str, int, dict[str, Any], Callable[[State, State], int], int]] = [
    ("sabika", 3, {"players": 3}, tributes, 2),
    ("granada_city", 1, {"players": 4}, scorings, 3),
    ("sabika", 5, {"players": 1}, yusuf_presence, 1),
]


@pytest.mark.parametrize(("game", "seed", "options", "moment", "least"), CASES,
                         ids=[f"{c[0]}-{c[3].__name__}" for c in CASES])
def test_a_state_read_back_from_sorted_json_steps_and_shows_the_same(
        game: str, seed: int, options: dict[str, Any], moment: Callable[[State, State], int], least: int) -> None:
    module = engine.get(game)
    state = module.setup(seed, options)
    roles = module.roles(options)
    rng = random.Random(1212)
    seen = 0
    while module.result(state) is None:
        read_back = json.loads(json.dumps(state, sort_keys=True))
        for role in [*roles, None]:
            assert as_json(module.view(read_back, role), "view") == as_json(module.view(state, role), "view"), role
        role = module.active(state)[0]
        action = rng.choice(module.actions(state, role))
        stepped = module.apply(state, role, action)
        assert as_json(module.apply(read_back, role, action), "state") == as_json(stepped, "state"), action
        seen += moment(state, stepped)
        state = stepped
    assert seen >= least, f"the game passed the moment {moment.__name__} fewer than {least} times"
