"""Granada's adapter for the search (engine/ai/granada.py): what the search may choose from."""

from __future__ import annotations

from typing import Any

import engine.granada as g
from engine import ai
from engine.ai.adapters import default_candidates
from engine.ai.registry import adapter
from engine.granada import movement
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


def _cartagena_roads_used() -> dict[str, Any]:
    """The Christians' Movement Phase at Cartagena (three blocks, two roads) after one block
    went along each road: the third may be taken but cannot step (7.3.1)."""
    state = buy(at_movement(new_game(1), "christian"), "christian", "total")
    state = g.apply(state, "christian", {"type": "activate", "loc": "cartagena"})
    for to, _kind in st.data().adjacency["cartagena"]:
        take = next(a for a in g.actions(state, "christian") if a["type"] == "take")
        state = g.apply(state, "christian", take)
        state = g.apply(state, "christian", {"type": "step", "to": to})
        state = g.apply(state, "christian", {"type": "end_move"})
    frame = st.top(state)
    assert frame is not None and frame["origin"] == "cartagena" and frame["mstack"] is None
    return state


def test_the_search_takes_no_blocks_that_cannot_step() -> None:
    """The other half of the circle: blocks that cannot step, once taken, can only be put back,
    and the search took them again (seed 1 as the Christians: 36 put-backs in 794 steps)."""
    state = _cartagena_roads_used()
    takes = [a for a in g.actions(state, "christian") if a["type"] == "take"]
    assert len(takes) == 1, "the engine offers the last block"
    taken = g.apply(state, "christian", takes[0])
    assert not any(a["type"] == "step" for a in g.actions(taken, "christian")), "every road is used"
    forced = g.apply(taken, "christian", {"type": "force_march"})
    while st.top(forced)["pay"]:
        forced = g.apply(forced, "christian", {"type": "pay", "card": sorted(forced["hands"]["christian"])[0]})
    assert not any(a["type"] == "step" for a in g.actions(forced, "christian")), "nor after a force march"
    searched = adapter("granada").candidates(g, state, "christian")
    assert [a["type"] for a in searched if a["type"] in ("take", "take_all")] == []
    assert any(a["type"] == "done_location" for a in searched)
    chosen = ai.choose(g, state, "christian", 1, "normal", iterations=8)
    assert chosen["type"] != "take"


def test_a_stack_a_force_march_lets_step_is_not_put_back() -> None:
    """A stack whose roads are all one too long may still move after a force march (7.3.3):
    the search does not put it back while the march is open to it."""
    checked = 0
    for seed in (1, 2, 3):
        state = _stack_taken(seed)
        frame = st.top(state)
        assert frame is not None
        for dist in range(1, 8):         # as if the stack had gone that far already
            for info in frame["mstack"]["blocks"].values():
                info["dist"] = dist
            legal = default_candidates(g, state, "christian")
            if not any(a["type"] == "step" for a in legal):
                break
        assert movement.can_step(state, frame, frame["mstack"]), "a force march gives one more"
        assert any(a["type"] == "force_march" for a in legal)
        assert any(a["type"] == "end_move" for a in legal)
        assert [a for a in legal if a["type"] != "end_move"] == adapter("granada").candidates(g, state, "christian")
        checked += 1
    assert checked == 3
