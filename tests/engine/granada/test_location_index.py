"""The location index during apply (issue 33): shifted by the blocks a step moves instead of
built again, and still exactly what a scan of the records builds (the lists in the records'
order, the places in the order of their first block, no empty place)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine.granada as g
from engine.granada import state as st
from tests.engine.granada.core_helpers import random_states


def _scanned(blocks: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for bid, rec in dict.items(blocks):
        out.setdefault(rec["loc"], []).append(bid)
    return out


@pytest.mark.parametrize(("seed", "options"), [(11, {}), (12, {"all": True})])
def test_the_index_of_a_step_that_moves_blocks_is_the_scanned_one(seed: int, options: dict[str, Any]) -> None:
    pick = random.Random(seed)
    checked = 0
    for state in random_states(seed, options, 400)[::9]:
        places = sorted({rec["loc"] for rec in state["blocks"].values()}) + ["nowhere_yet"]
        for listed in (True, False):
            step = g._StepState(state, st.by_location(state) if listed else None)
            moved = pick.sample(sorted(state["blocks"]), pick.randint(1, 4))
            for n, bid in enumerate(moved):
                step["blocks"][bid]["loc"] = pick.choice(places)
                index = st.by_location(step)
                expected = _scanned(step["blocks"])
                assert index == expected
                assert list(index) == list(expected), "places in the order of their first block"
                checked += 1
                if n == 0:
                    # a block put back where it was: the input's own placement again
                    step["blocks"][bid]["loc"] = state["blocks"][bid]["loc"]
                    assert st.by_location(step) == _scanned(state["blocks"])
    assert checked > 50


def test_a_step_that_moves_nothing_keeps_the_index_it_was_given() -> None:
    state = g.setup(3, {})
    index = st.by_location(state)
    step = g._StepState(state, index)
    step["blocks"][next(iter(state["blocks"]))]["moved"] = True
    assert st.by_location(step) is index
