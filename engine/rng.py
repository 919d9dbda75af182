"""The one random generator of every game: SplitMix64 with its state kept in the game state.

A game state holds ``state["rng"]`` (an int). Every draw goes through these functions so
that a game is deterministic in (seed, options, actions) on any machine and Python version,
and so that the service can see a draw happened (the int changed) and stop undo there.
"""

from __future__ import annotations

import functools
import operator
import sys
from collections.abc import MutableSequence
from typing import Any, TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1
_STEP, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_LITTLE = sys.byteorder == "little"


def seed_state(seed: int) -> int:
    """The generator state for a seed (any int, including negative or large ones)."""
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def _next(x: int) -> tuple[int, int]:
    x = (x + _STEP) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * _MIX1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX2) & _MASK
    return x, z ^ (z >> 31)


@functools.cache
def _lanes(m: int) -> tuple[int, int, int]:
    """For ``m`` draws at once, ints of ``m`` lanes of 128 bits: ones, the steps 1..m of the
    generator's state, the 64-bit mask."""
    ones = sum(1 << (128 * k) for k in range(m))
    return ones, sum(((_STEP * (k + 1)) & _MASK) << (128 * k) for k in range(m)), ones * _MASK


def _draws(x: int, m: int) -> list[int]:
    """The next ``m`` outputs of :func:`_next` from state ``x``, all at once: each lane of 128
    bits holds one state, wide enough for its product by a 64-bit constant, so one operation
    on the whole int is that operation on every lane (masks drop what a shift brings in from
    the next lane). An output costs a few hundred instructions instead of a few thousand:
    most of a Granada re-deal's, one at a time (issue 33)."""
    ones, steps, mask = _lanes(m)
    v = (x * ones + steps) & mask
    v ^= (v >> 30) & mask
    v = (v * _MIX1) & mask
    v ^= (v >> 27) & mask
    v = (v * _MIX2) & mask
    v ^= (v >> 31) & mask
    return memoryview(v.to_bytes(16 * m, "little")).cast("Q")[::2].tolist()


def randbelow(state: dict[str, Any], n: int) -> int:
    """A uniform int in [0, n), drawn from and advancing ``state["rng"]``."""
    if n <= 0:
        raise ValueError("randbelow needs n > 0")
    limit = (1 << 64) - ((1 << 64) % n)
    x = state["rng"]
    while True:
        x, value = _next(x)
        if value < limit:
            state["rng"] = x
            return value % n


def choice(state: dict[str, Any], items: list[T]) -> T:
    return items[randbelow(state, len(items))]


def shuffle(state: dict[str, Any], items: MutableSequence[Any]) -> None:
    """Fisher-Yates in place, drawing ``randbelow(i + 1)`` for i from the last index down.

    The draws are made at once (:func:`_draws`): the same swaps and the same state after as
    one :func:`randbelow` at a time, which refuses an output among the last ``2**64 % n``
    (fewer than n) values and draws again. When an output is that high (about once in 2**56
    draws), or the machine is big-endian, the draws are made one at a time."""
    size = len(items)
    if size < 2:
        return
    x = state["rng"]
    outputs = _draws(x, size - 1) if _LITTLE else []
    if not outputs or max(outputs) >= (1 << 64) - size:
        _shuffle_one_by_one(state, items)
        return
    # operator.mod, not int.__mod__: a slot wrapper called by map takes a slower path
    for i, j in zip(range(size - 1, 0, -1), map(operator.mod, outputs, range(size, 1, -1))):
        items[i], items[j] = items[j], items[i]
    state["rng"] = (x + (size - 1) * _STEP) & _MASK


def _shuffle_one_by_one(state: dict[str, Any], items: MutableSequence[Any]) -> None:
    for i in range(len(items) - 1, 0, -1):
        j = randbelow(state, i + 1)
        items[i], items[j] = items[j], items[i]


class Generator:
    """A generator over a bare int state, for code that needs draws outside a game state
    (``redeal`` seeds, the built-in player)."""

    def __init__(self, seed: int) -> None:
        self._holder: dict[str, Any] = {"rng": seed_state(seed)}

    def randbelow(self, n: int) -> int:
        return randbelow(self._holder, n)

    def choice(self, items: list[T]) -> T:
        return choice(self._holder, items)

    def shuffle(self, items: MutableSequence[Any]) -> None:
        shuffle(self._holder, items)
