"""The canonical text made from the last state's parts is exactly ``dumps`` of the state,
along whole random games of every registered game, whatever memo it is given."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

import engine
from bot.models import dumps, loads
from bot.service.canon import (
    Canonical,
    by_parts,
    canonical,
    quick_dumps,
    same_text,
    text_delta,
    text_delta_text,
)
from bot.service.deltas import apply_delta, state_hash
from engine.api import clone
from tests.engine.games import random_game


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_the_text_made_step_by_step_is_the_canonical_text(game_id: str) -> None:
    for seed in (1, 2):
        states = random_game(game_id, seed, {}, stop=400)
        memo: Canonical | None = None
        last: Canonical | None
        for state in states:
            last, memo = memo, canonical(state, memo)
            assert memo.text == dumps(state)
            assert memo.hash == state_hash(dumps(state))
            if last is not None and last.parts is not None:  # the delta, read back, rebuilds the state
                delta = loads(dumps(text_delta(last, memo)))
                assert dumps(apply_delta(loads(last.text), delta)) == memo.text
                assert text_delta_text(last, memo) == dumps(text_delta(last, memo))
        # a memo of another game, or of a later point of this one, still gives the right text
        assert canonical(states[0], memo).text == dumps(states[0])
        assert canonical(clone(states[-1]), canonical(states[0])).text == dumps(states[-1])


@pytest.mark.parametrize("game_id", sorted(engine.GAMES))
def test_a_game_loaded_cold_encodes_its_steps_by_parts_without_learning(game_id: str) -> None:
    """A command that loads its game cold makes the state's text by parts (``by_parts``) and
    its steps' texts with ``learn=False`` (issue 33); a later command learns the items'
    texts. Every text is ``dumps``, every delta rebuilds the state, from any point of a game."""
    for seed in (1, 2):
        states = random_game(game_id, seed, {}, stop=300)
        for start in range(0, len(states) - 1, 23):
            memo = by_parts(states[start])
            assert memo.text == dumps(states[start])
            for n, state in enumerate(states[start + 1:start + 8]):
                last, memo = memo, canonical(state, memo, learn=n >= 3)  # three steps cold, then hot
                assert memo.text == dumps(state)
                assert memo.hash == state_hash(dumps(state))
                assert last.parts is not None
                delta = loads(dumps(text_delta(last, memo)))
                assert dumps(apply_delta(loads(last.text), delta)) == memo.text
                assert text_delta_text(last, memo) == dumps(text_delta(last, memo))
                learnt = canonical(last.state, canonical(last.state))  # a hot game's parts
                hot = dumps(text_delta(learnt, canonical(state, learnt)))
                assert len(dumps(delta)) <= len(hot) + 200, "as small as a hot game's delta"


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
        assert text_delta_text(last, memo) == dumps(text_delta(last, memo)), what
        state = new


def test_a_state_that_is_not_a_plain_dict_is_encoded_whole() -> None:
    assert canonical([1, {"b": 2, "a": 1}]).text == dumps([1, {"a": 1, "b": 2}])


def test_a_copy_keeps_its_text_only_when_its_leaves_print_the_same() -> None:
    """Engines copy parts they do not change (Granada copies every top-level part at each
    step): a copy of a part keeps the part's text, but a leaf Python finds equal and JSON
    prints apart (``1``/``True``/``1.0``, ``0.0``/``-0.0``), in a copy at any depth, is a
    change."""
    swaps: list[tuple[Any, Any]] = [(1, True), (True, 1), (1, 1.0), (0.0, -0.0), (0, False), ("1", "1")]
    for old_leaf, new_leaf in swaps:
        for size in (3, 20):  # a small part (encoded whole) and a large one (item by item)
            state: dict[str, Any] = {
                "flat": {f"k{i}": old_leaf if i == 1 else i for i in range(size)},
                "lists": {"a": [old_leaf] * size, "b": ["x"] * size},
                "deep": [{"frame": [{"n": old_leaf}]} for _ in range(size)],
                "log": [{"text": str(i)} for i in range(size)],
            }
            memo = canonical(state, canonical(state))
            copied = {"flat": dict(state["flat"]), "lists": {k: v[:] for k, v in state["lists"].items()},
                      "deep": clone(state["deep"]), "log": state["log"][:]}
            same = canonical(copied, memo)
            assert same.text == dumps(copied) == memo.text
            assert same.parts is not None and memo.parts is not None
            # (a large part copied deep is compared item by item, and its text made anew)
            kept = ["flat", "lists", "log"] + (["deep"] if size < 16 else [])
            assert all(same.parts[k][1] is memo.parts[k][1] for k in kept), "a copy keeps its piece"
            changed = clone(copied)
            changed["flat"]["k1"] = new_leaf
            changed["lists"]["a"][size - 1] = new_leaf
            changed["deep"][size - 1]["frame"][0]["n"] = new_leaf
            after = canonical(changed, same)
            assert after.text == dumps(changed), (old_leaf, new_leaf, size)
            delta = loads(dumps(text_delta(same, after)))
            assert dumps(apply_delta(loads(same.text), delta)) == after.text
            assert text_delta_text(same, after) == dumps(text_delta(same, after)), (old_leaf, new_leaf, size)


def random_json(rng: random.Random, depth: int, leaves: Sequence[Any], keys: Sequence[str], *, width: int,
                leaf_below: float, list_below: float) -> Any:
    """A random JSON value of at most ``depth`` levels: a leaf, a list or an object of fewer
    than ``width`` items, as a draw falls below ``leaf_below``, ``list_below`` or above."""
    pick = rng.random()
    if depth == 0 or pick < leaf_below:
        return rng.choice(leaves)
    def inner() -> Any:
        return random_json(rng, depth - 1, leaves, keys, width=width, leaf_below=leaf_below, list_below=list_below)
    if pick < list_below:
        return [inner() for _ in range(rng.randrange(width))]
    return {rng.choice(keys): inner() for _ in range(rng.randrange(width))}

def test_two_values_have_one_text_exactly_when_same_text_says_so() -> None:
    """``same_text`` is the one test behind both the text reuse and the move delta: on pairs
    of JSON values, equal or not, copies or not, it must agree with ``dumps`` itself."""
    rng = random.Random(15)
    leaves: list[Any] = [0, 1, 2, True, False, None, 0.0, -0.0, 1.0, 0.1, 0.1 + 0.2, 0.30000000000000004,
                         1e16, 10000000000000000, "0", "1", "", "a"]

    def value(depth: int) -> Any:
        return random_json(rng, depth, leaves, "abc", width=4, leaf_below=0.4, list_below=0.7)

    agreed = {True: 0, False: 0}
    for _ in range(4000):
        a = value(3)
        b = rng.choice([clone(a), value(3), a])
        if rng.random() < 0.5 and isinstance(b, dict) and b:  # the same keys in another order
            b = dict(reversed(list(b.items())))
        same = dumps(a) == dumps(b)
        assert same_text(b, a) is same and same_text(a, b) is same, (a, b)
        agreed[same] += 1
    assert min(agreed.values()) > 500  # both answers were put to the test


def test_the_hash_read_on_from_the_last_state_is_the_hash_of_the_text() -> None:
    """A state's hash is read on from the digest of the last state's text before the first
    piece a step changed (``Canonical.marks``): a change at any place of a long text, a part
    added or removed, and a memo of another state all give the hash of the whole text."""
    rng = random.Random(33)
    state: dict[str, Any] = {k: list(range(i * 1000, i * 1000 + 300)) for i, k in enumerate("abcdefgh")}
    state["log"] = [{"text": "x" * 50}] * 40
    memo = canonical(state, canonical(state))
    assert memo.marks is not None and len(memo.marks) > 3, "the text is long enough to be read from several marks"
    others = [memo]
    for _ in range(300):
        new = dict(state)
        key = rng.choice([*"abcdefgh", "log", "new"])
        if key == "log":
            new["log"] = [*state["log"], {"text": str(rng.random())}]
        elif key in new and rng.random() < 0.1:
            del new[key]
        else:
            new[key] = [*state.get(key, [])[:-1], rng.randrange(10**6)]
        memo = canonical(new, rng.choice(others) if rng.random() < 0.1 else memo)
        assert memo.hash == state_hash(dumps(new)), key
        assert memo.text == dumps(new)
        others.append(memo)
        state = new


def test_the_direct_encoder_writes_what_dumps_writes() -> None:
    """The canonical texts of parts are made by the C encoder called straight (``quick_dumps``):
    the very text of ``dumps`` for every kind of JSON value, and the same refusals."""
    rng = random.Random(7)
    leaves: list[Any] = [0, -1, 2**70, True, False, None, 0.0, -0.0, 1e16, 0.1 + 0.2, 1e-300, "", "a\"b\\",
                         "\u00e9\u4e2d\U0001f600", "\n\t\x00", "</script>"]

    def value(depth: int) -> Any:
        return random_json(rng, depth, leaves, ["b", "a", "é", "10", "9", ""], width=5, leaf_below=0.3,
                           list_below=0.6)

    for _ in range(3000):
        v = value(4)
        assert quick_dumps(v) == dumps(v), v
    for bad in (float("nan"), [float("inf")], {"a": object()}, {1: 2, "a": 3}):
        with pytest.raises((ValueError, TypeError)):
            dumps(bad)
        with pytest.raises((ValueError, TypeError)):
            quick_dumps(bad)
