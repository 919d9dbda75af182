"""The canonical text made from the last state's parts is exactly ``dumps`` of the state,
along whole random games of every registered game, whatever memo it is given."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot.models import dumps, loads
from bot.service.canon import canonical, text_delta
from bot.service.core import apply_delta
from engine.api import clone
from tests.engine.games import random_game


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_the_text_made_step_by_step_is_the_canonical_text(game_id: str) -> None:
    for seed in (1, 2):
        states = random_game(game_id, seed, {}, stop=400)
        memo = None
        for state in states:
            last, memo = memo, canonical(state, memo)
            assert memo.text == dumps(state)
            if last is not None and last.parts is not None:  # the delta, read back, rebuilds the state
                delta = loads(dumps(text_delta(last, memo)))
                assert dumps(apply_delta(loads(last.text), delta)) == memo.text
        # a memo of another game, or of a later point of this one, still gives the right text
        assert canonical(states[0], memo).text == dumps(states[0])
        assert canonical(clone(states[-1]), canonical(states[0])).text == dumps(states[-1])


def test_parts_changed_in_a_copy_are_encoded_anew() -> None:
    """A step shares what it does not change, and changes only copies: each kind of change
    at each level shows in the text."""
    # parts of 20 items: past bot.service.canon._ITEMISED, so their items' texts are reused
    state: dict[str, Any] = {"log": [{"text": str(i)} for i in range(20)],
                             "blocks": {f"b{i}": {"at": "x"} for i in range(20)},
                             "turn": 1, "hands": [[1, 2], [3]] * 10, "score": 0.5, "é": "ü"}
    memo = canonical(state)
    assert memo.text == dumps(state) and memo.parts is None  # cold: made whole
    memo = canonical(state, memo)
    assert memo.text == dumps(state) and memo.parts is not None  # the parts are learnt at once
    rng = random.Random(4)
    for _ in range(200):
        new = dict(state)
        what = rng.randrange(7)
        if what == 0:
            new["log"] = [*state["log"], {"text": str(rng.random())}]
        elif what == 1:
            new["log"] = state["log"][:-1] if len(state["log"]) > 17 else [{"text": "x"}, *state["log"]]
        elif what == 2:
            new["blocks"] = {**state["blocks"], rng.choice(["b1", "b2", "b30"]): {"at": rng.choice("xyz")}}
        elif what == 3:
            new["blocks"] = {k: v for k, v in state["blocks"].items() if k != "b1"}
        elif what == 4:
            new["hands"] = [*state["hands"][:-1], [*state["hands"][-1], rng.randrange(9)]]
        elif what == 5:
            new["turn"] = rng.choice([0, 1, False, 1.0, None, "1"])
        else:
            new.pop("score", None) if rng.random() < 0.5 else new.update(score=-0.0)
        last, memo = memo, canonical(new, memo)
        assert memo.text == dumps(new), what
        assert dumps(apply_delta(loads(last.text), loads(dumps(text_delta(last, memo))))) == memo.text, what
        state = new


def test_a_state_that_is_not_a_plain_dict_is_encoded_whole() -> None:
    assert canonical([1, {"b": 2, "a": 1}]).text == dumps([1, {"a": 1, "b": 2}])
