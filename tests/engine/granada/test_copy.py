"""The copy ``apply`` makes (issue 15): equal to a deep copy, and the input never changes.

``engine.granada._copy`` copies each key of the state by its known shape instead of a
generic deep copy, and hands the block records over copy-on-access (``_CopyOnAccess``). If
a rule module ever stores a list inside a block record, or a dict in a key declared flat,
or reaches a record by a way that does not copy it, ``apply`` would change its input: these
tests play random games (every optional rule on and off) and check every intermediate state.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine.granada as g
from engine.api import clone
from engine.check import containers
from engine.granada import state as st
from engine.rng import Generator
from tests.engine.granada.core_helpers import random_states


def states(seed: int, options: dict[str, Any], steps: int = 900) -> list[dict[str, Any]]:
    return random_states(seed, options, steps)


@pytest.mark.parametrize("seed,options", [(1, {}), (2, {}), (5, {"all": True}), (6, {"all": True})])
def test_the_copy_equals_a_deep_copy_and_shares_only_log_entries(seed: int, options: dict[str, Any]) -> None:
    for state in states(seed, options)[::7]:
        copied = g._copy(state)
        for rec in copied["blocks"].values():  # a step that reaches every block
            rec["moved"] = rec["moved"]
        copied = g._seal(copied)
        assert type(copied["blocks"]) is dict
        assert copied == clone(state)
        assert list(copied) == list(state), "key order is kept (stored JSON stays byte-identical)"
        entries = set(containers(state["log"])) - {id(state["log"])}
        shared = set(containers(copied)) & set(containers(state))
        assert shared <= entries, "only log entries (never changed once written) may be shared"




@pytest.mark.parametrize("seed,options", [(3, {"all": True}), (4, {})])
def test_apply_never_changes_its_input_whatever_the_order(seed: int, options: dict[str, Any]) -> None:
    for state in states(seed, options, steps=700)[::5]:
        before = clone(state)
        for role in g.active(state):
            for action in g.legal_actions(state, role):
                after = g.apply(state, role, action)
                assert state == before
                assert type(after["blocks"]) is dict


def test_every_way_out_of_the_copied_records_copies_first() -> None:
    source = {"A": {"loc": "x"}, "B": {"loc": "y"}, "C": {"loc": "z"}}
    cow = g._CopyOnAccess(source)
    cow["A"]["loc"] = "changed"
    cow.get("B")["loc"] = "changed"  # type: ignore[index]
    for rec in cow.values():
        rec["inside"] = True
    for _, rec in cow.items():
        rec["fresh"] = True
    assert source == {"A": {"loc": "x"}, "B": {"loc": "y"}, "C": {"loc": "z"}}
    assert dict.copy(cow)["C"] == {"loc": "z", "inside": True, "fresh": True}
    for refused in (lambda: cow.pop("A"), cow.popitem, lambda: cow.setdefault("D", {}),
                    lambda: cow.update({}), cow.copy):
        with pytest.raises(TypeError):
            refused()


@pytest.mark.parametrize("seed,options", [(7, {}), (8, {"all": True}), (9, {}), (10, {"all": True})])
def test_no_later_step_changes_an_earlier_state(seed: int, options: dict[str, Any]) -> None:
    """apply shares what a step did not reach with its input (issue 33: the keys of the state,
    the frames below the top of the stack, the block records): a whole game is played, and
    every state along it must still be what it was when apply returned it."""
    pick = Generator(seed)
    state = g.setup(seed, options)
    kept = [(state, json.dumps(state))]
    while g.result(state) is None and len(kept) < 3000:
        role = next(r for r in g.active(state) if g.legal_actions(state, r))
        legal = g.legal_actions(state, role)
        state = g.apply(state, role, legal[pick.randbelow(len(legal))])
        kept.append((state, json.dumps(state)))
    assert g.result(state) is not None, "the game ended, so every frame and phase was popped at least once"
    changed = [i for i, (s, text) in enumerate(kept) if json.dumps(s) != text]
    assert not changed, f"states changed after apply returned them: steps {changed[:10]}"


def test_deep_copy_is_equal_and_shares_no_container() -> None:
    """frames.deep_copy (what apply copies a frame with) copies the containers of a dict's
    dicts in its own loop, and replaces an empty container without a call (issue 33): at
    every depth, empty or not, the copy must equal its source and share none of its lists
    or dicts (an edited frame would otherwise change apply's input)."""
    value = {"module": "battle", "n": None, "i": 3, "empty_dict": {}, "empty_list": [],
             "sides": {"christian": ["K1", "K2"], "muslim": [], "nested": {"deep": [{"x": []}]}, "flat": 0},
             "lists": [{"a": [1]}, [], [[]], "s"], "top": [[{"k": {}}]]}
    before = json.dumps(value)
    copied = st.deep_copy(value)
    assert copied == value and json.dumps(value) == before
    assert not (set(containers(copied)) & set(containers(value)))
    for state in states(1, {}, steps=600)[::11]:
        for frame in state["stack"]:
            copied = st.deep_copy(frame)
            assert copied == frame
            assert not (set(containers(copied)) & set(containers(frame)))


def test_the_listing_memo_stamps_the_state_as_stamp_does() -> None:
    """_list and _listed build the memo's stamp inline (issue 33: a call less each); it must
    stay what _stamp says, or apply would take an order listed for a state edited since."""
    for state in states(2, {}, steps=300)[::13]:
        for role in g.active(state):
            g.legal_actions(state, role)
            assert g._LEGAL_MEMO[role][1] == g._stamp(state)
