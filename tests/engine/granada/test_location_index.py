"""The location index during apply (issue 33): shifted by the blocks a step moves instead of
built again, and still exactly what a scan of the records builds (the lists in the records'
order, the places in the order of their first block, no empty place)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine.granada as g
from engine.granada import placement
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


def _played(seed: int, steps: int) -> list[dict[str, Any]]:
    """The states of a game of random legal orders, each listed before its step (as a view
    lists them), the first after setup."""
    state = g.setup(seed, {})
    pick = random.Random(seed)
    out = [state]
    for _ in range(steps):
        if g.result(state) is not None:
            break
        role = g.active(state)[0]
        st.by_location(state)
        state = g.apply(state, role, pick.choice(g.legal_actions(state, role)))
        out.append(state)
    return out


def test_a_games_state_is_found_after_other_games_stepped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The service plays hundreds of games in turn: the state a game stepped to is found at
    its next view without a scan however many states other games made meanwhile."""
    mine = [s for s in _played(21, 120) if id(s["blocks"]) in placement._SEALED]
    assert mine, "some step of the game moved blocks"
    state = mine[-1]
    others = 0
    seed = 100
    while id(state["blocks"]) in placement._SEALED:       # until the recent states forgot it
        others += len(_played(seed, 60))
        seed += 1
        assert seed < 140
    assert others > placement._SEALED_SIZE

    def no_scan(_state: Any) -> dict[str, list[str]]:
        raise AssertionError("scanned")

    monkeypatch.setattr(placement, "_by_location", no_scan)
    index = st.by_location(state)
    expected = _scanned(state["blocks"])
    assert index == expected and list(index) == list(expected)


def test_the_games_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(placement, "_LINEAGES", type(placement._LINEAGES)())
    monkeypatch.setattr(placement, "_LINEAGES_SIZE", 6)
    monkeypatch.setattr(placement, "_LINEAGE_STATES", 3)
    for seed in range(40, 52):
        _played(seed, 80)
    assert len(placement._LINEAGES) == placement._LINEAGES_SIZE
    assert all(len(kept[2]) <= placement._LINEAGE_STATES for kept in placement._LINEAGES.values())


def test_a_state_from_elsewhere_edited_in_place_is_scanned_again() -> None:
    """An input that apply did not return (setup, storage, a test's position) is never kept:
    a test may edit it in place after a step from it."""
    states = _played(5, 40)
    state = states[-1]
    position = {**state, "blocks": {b: dict(r) for b, r in state["blocks"].items()}}
    role = g.active(position)[0]
    st.by_location(position)
    for action in g.legal_actions(position, role):
        g.apply(position, role, action)
    moved = next(iter(position["blocks"]))
    position["blocks"][moved]["loc"] = "nowhere_yet"
    assert st.by_location(position) == _scanned(position["blocks"])
