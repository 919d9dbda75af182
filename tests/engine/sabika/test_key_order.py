"""The same state gives the same step whatever the order of its dicts' keys: the service
stores states as JSON with sorted keys and reads them back, and a replay of the log from the
setup must reach the state it stored (``alcazaba replay-check``)."""

from __future__ import annotations

import json
import random

import engine


def test_a_state_read_back_from_sorted_json_steps_the_same() -> None:
    module = engine.get("sabika")
    state = module.setup(3, {"players": 3})
    rng = random.Random(1212)
    tributes = 0
    while module.result(state) is None:
        role = module.active(state)[0]
        action = rng.choice(module.actions(state, role))
        stepped = module.apply(state, role, action)
        read_back = module.apply(json.loads(json.dumps(state, sort_keys=True)), role, action)
        assert json.dumps(stepped, sort_keys=True) == json.dumps(read_back, sort_keys=True), action
        tributes += sum("pays the tribute" in e["text"] for e in stepped["log"][len(state["log"]):])
        state = stepped
    assert tributes >= 2, "the game had tributes, whose log line lists the means of paying"
