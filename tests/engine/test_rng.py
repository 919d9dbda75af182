"""engine.rng's shuffle draws its outputs all at once (issue 33: most of a Granada re-deal's
cost was drawing one output at a time); it must shuffle exactly as Fisher-Yates over
``randbelow`` does, the generator's definition, since every game's replays and re-deals depend
on the same swaps and the same state after."""

from __future__ import annotations

from typing import Any

import pytest

from engine import rng

_MASK = (1 << 64) - 1
_STEP = 0x9E3779B97F4A7C15
SEEDS = [0, 1, 7, 42, -3, 2**70 + 5]


def fisher_yates(state: dict[str, Any], items: list[Any]) -> None:
    """The textbook shuffle, one ``randbelow`` at a time."""
    for i in range(len(items) - 1, 0, -1):
        j = rng.randbelow(state, i + 1)
        items[i], items[j] = items[j], items[i]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 60, 137, 256, 257, 300])
def test_the_shuffle_draws_what_the_generator_draws(n: int) -> None:
    for seed in [*SEEDS, *range(40)]:
        mine, theirs = {"rng": rng.seed_state(seed)}, {"rng": rng.seed_state(seed)}
        a, b = list(range(n)), list(range(n))
        rng.shuffle(mine, a)
        fisher_yates(theirs, b)
        assert a == b
        assert mine == theirs


def test_a_generators_shuffle_is_the_state_shuffle() -> None:
    gen, held = rng.Generator(5), {"rng": rng.seed_state(5)}
    a, b = list("abcdefghij"), list("abcdefghij")
    gen.shuffle(a)
    fisher_yates(held, b)
    assert a == b and gen.randbelow(1 << 62) == rng.randbelow(held, 1 << 62)


def test_the_outputs_at_once_are_the_generators_one_at_a_time() -> None:
    for seed in [*SEEDS, *range(20)]:
        x = rng.seed_state(seed)
        want = []
        y = x
        for _ in range(150):
            y, out = rng._next(y)
            want.append(out)
        assert rng._draws(x, 150) == want
        assert rng._draws(x, 1) == want[:1]


def _unmix(z: int) -> int:
    """The generator state whose output is ``z`` (SplitMix64's mixing undone)."""

    def unshift(v: int, s: int) -> int:
        x = v
        for _ in range(64 // s + 1):
            x = v ^ (x >> s)
        return x

    z = unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _MASK
    z = unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _MASK
    return unshift(z, 30)


@pytest.mark.parametrize("at", [0, 1, 5])
def test_an_output_the_generator_refuses_is_drawn_again(at: int) -> None:
    """randbelow(n) refuses the last 2**64 % n outputs (once in 2**56 draws): a state whose
    ``at``-th draw gives the highest output, refused by randbelow(3), shuffles as Fisher-Yates
    over randbelow does, with the same state after."""
    x = _unmix(_MASK)
    assert rng._next((x - _STEP) & _MASK)[1] == _MASK
    size = 3 + at            # the draw for n = 3 is the at-th of the shuffle
    start = (x - (at + 1) * _STEP) & _MASK
    mine, theirs = {"rng": start}, {"rng": start}
    a, b = list(range(size)), list(range(size))
    rng.shuffle(mine, a)
    fisher_yates(theirs, b)
    assert a == b and mine == theirs
