"""Granada's adapter for the search (engine/ai/granada.py): what the search may choose from."""

from __future__ import annotations

from typing import Any

import engine.granada as g
from engine import ai
from engine.ai.adapters import default_candidates
from engine.ai.registry import adapter
from engine.granada import state as st
from tests.engine.granada.core_helpers import at_movement, buy, new_game


def _stack_taken(seed: int) -> dict[str, Any]:
    """The Christians' Movement Phase (total movement) with a stack of one block taken at
    the first location activated that has a block to take, before it steps."""
    state = buy(at_movement(new_game(seed), "christian"), "christian", "total")
    for activate in [a for a in g.actions(state, "christian") if a["type"] == "activate"]:
        origin = g.apply(state, "christian", activate)
        take = next((a for a in g.actions(origin, "christian") if a["type"] == "take"), None)
        if take is not None:
            return g.apply(origin, "christian", take)
    raise AssertionError("no location with a block to take")


def test_a_stack_that_can_step_is_not_put_back_by_the_search() -> None:
    """Putting a taken stack back undoes the taking: the search went round that circle for
    thousands of steps (take, judge every step worse, put back, take again). The order
    stays the player's (the engine offers it), but not the search's while a step exists."""
    module = g
    for seed in (1, 2, 3):
        state = _stack_taken(seed)
        frame = st.top(state)
        assert frame is not None and frame["mstack"]["steps"] == 0
        legal = default_candidates(module, state, "christian")
        assert any(a["type"] == "end_move" for a in legal), "the engine offers the put-back"
        assert any(a["type"] == "step" for a in legal)
        searched = adapter("granada").candidates(module, state, "christian")
        assert [a for a in searched if a["type"] == "end_move"] == []
        assert [a for a in legal if a["type"] != "end_move"] == searched
        chosen = ai.choose(module, state, "christian", seed, "normal", iterations=8)
        assert chosen["type"] != "end_move"


def test_a_stack_that_has_stepped_may_still_end_its_move() -> None:
    checked = 0
    for seed in (1, 2, 3):
        state = _stack_taken(seed)
        for step in [a for a in g.actions(state, "christian") if a["type"] == "step"]:
            moved = g.apply(state, "christian", step)
            frame = st.top(moved)
            if frame is None or frame.get("mstack") is None:  # the step ended the move (a battle)
                continue
            assert frame["mstack"]["steps"] == 1
            assert any(a["type"] == "end_move" for a in adapter("granada").candidates(g, moved, "christian"))
            checked += 1
    assert checked > 0
