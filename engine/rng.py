"""The one random generator of every game: SplitMix64 with its state kept in the game state.

A game state holds ``state["rng"]`` (an int). Every draw goes through these functions so
that a game is deterministic in (seed, options, actions) on any machine and Python version,
and so that the service can see a draw happened (the int changed) and stop undo there.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any, TypeVar

T = TypeVar("T")
_MASK = (1 << 64) - 1


def seed_state(seed: int) -> int:
    """The generator state for a seed (any int, including negative or large ones)."""
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK


def _next(x: int) -> tuple[int, int]:
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return x, z ^ (z >> 31)


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
    """Fisher-Yates in place."""
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
