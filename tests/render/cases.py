"""The pictures the render tests check, each drawn from a view of a REAL game.

Games are played by the built-in player (engine.players.choose) from fixed seeds, so the
views are the ones real play reaches (no hand-built views). The same cases feed the golden
tests and ``python -m tests.render.regenerate``.

If an engine's rules or built-in player change, a game's course changes and the golden
references with it: look at the new pictures and run ``make golden`` when they are right.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.api import GameModule, State
from engine.players import choose

NAVAS_SEED = 3
NAVAS_STEPS = 60
GRANADA_SEED = 1
GRANADA_STEPS = 150


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[], bytes]
    fmt: str                      # "PNG" | "GIF"
    min_size: tuple[int, int]     # at least this wide and high
    max_size: tuple[int, int]     # at most
    max_bytes: int
    golden: bool = True


def game(game_id: str) -> GameModule:
    module: GameModule = importlib.import_module(f"engine.{game_id}")  # type: ignore[assignment]
    return module


def play(module: GameModule, seed: int, options: dict[str, Any], steps: int,
         stop: Callable[[State], bool] | None = None) -> State:
    """``steps`` decisions of the built-in player (or until ``stop`` says so / the end)."""
    state = module.setup(seed, options)
    for n in range(steps):
        active = module.active(state)
        if not active:
            break
        role = active[0]
        state = module.apply(state, role, choose(module, state, role, seed * 100_003 + n))
        if stop is not None and stop(state):
            break
    return state


@functools.cache
def navas_state() -> State:
    return play(game("navas"), NAVAS_SEED, {"advanced": True}, NAVAS_STEPS)


@functools.cache
def granada_state() -> State:
    return play(game("granada"), GRANADA_SEED, {}, GRANADA_STEPS)


def _deployments(state: State, kind: str, least: int) -> bool:
    view = game("granada").view(state, None)
    b = view.get("battle")
    if not b or b.get("kind") != kind:
        return False
    if kind == "naval_battle":
        return True
    return sum(len(d["blocks"]) for side in b["deployed"].values() for d in side) >= least


@functools.cache
def granada_battle_state(kind: str) -> State:
    """The first state with a battle of ``kind`` showing deployments, in the first of a
    few fixed seeds whose game reaches one (sieges are rarer than field combats)."""
    least = 3 if kind == "battle" else 1
    for seed in range(GRANADA_SEED, GRANADA_SEED + 20):
        state = play(game("granada"), seed, {}, 5000, stop=lambda s: _deployments(s, kind, least))
        if _deployments(state, kind, least):
            return state
    raise AssertionError(f"no seeded Granada game reached a {kind} with {least} deployments")


@functools.cache
def granada_final_state() -> State:
    state = play(game("granada"), GRANADA_SEED, {}, 20000)
    if game("granada").result(state) is None:
        raise AssertionError("the seeded Granada game did not end")
    return state


@functools.cache
def granada_turn_views() -> tuple[dict[str, Any], ...]:
    """Spectator views at the start of every turn of the seeded game (replay frames)."""
    module = game("granada")
    state = module.setup(GRANADA_SEED, {})
    views = [module.view(state, None)]
    last = (state["year"], state["turn"])
    n = 0
    while module.active(state) and n < 20000:
        role = module.active(state)[0]
        state = module.apply(state, role, choose(module, state, role, GRANADA_SEED * 100_003 + n))
        n += 1
        if (state["year"], state["turn"]) != last:
            last = (state["year"], state["turn"])
            views.append(module.view(state, None))
    views.append(module.view(state, None))
    return tuple(views)


def _navas(kind: str, role: str | None, *args: Any) -> Callable[[], bytes]:
    def make() -> bytes:
        from render import navas

        view = game("navas").view(navas_state(), role)
        result: bytes = getattr(navas, kind)(view, *args)
        return result

    return make


def _granada(kind: str, role: str | None, state: Callable[[], State], *args: Any) -> Callable[[], bytes]:
    def make() -> bytes:
        from render import granada

        view = game("granada").view(state(), role)
        result: bytes = getattr(granada, kind)(view, *args)
        return result

    return make


def _granada_reveal() -> bytes:
    from render import granada

    module = game("granada")
    state = granada_final_state()
    return granada.reveal(module.view(state, "christian"), module.view(state, "muslim"))


def _granada_replay() -> bytes:
    from render import granada

    return granada.replay(list(granada_turn_views()))


MIB = 1024 * 1024
NAVAS_SIZE = (1500, 1000)
GRANADA_SIZE = (1800, 1347)

CASES: list[Case] = [
    Case("navas_board_christian", _navas("board", "christian"), "PNG", NAVAS_SIZE, NAVAS_SIZE, 2 * MIB),
    Case("navas_board_muslim", _navas("board", "muslim"), "PNG", NAVAS_SIZE, NAVAS_SIZE, 2 * MIB),
    Case("navas_board_spectator", _navas("board", None), "PNG", NAVAS_SIZE, NAVAS_SIZE, 2 * MIB),
    Case("navas_hand_christian", _navas("hand", "christian"), "PNG", (500, 250), (2000, 400), 1 * MIB),
    Case("navas_closeup_a3", _navas("closeup", "muslim", "A3"), "PNG", (800, 600), (1600, 1200), 2 * MIB),
    Case("granada_board_christian", _granada("board", "christian", granada_state), "PNG", GRANADA_SIZE,
         GRANADA_SIZE, 2 * MIB),
    Case("granada_board_muslim", _granada("board", "muslim", granada_state), "PNG", GRANADA_SIZE, GRANADA_SIZE,
         2 * MIB),
    Case("granada_board_spectator", _granada("board", None, granada_state), "PNG", GRANADA_SIZE, GRANADA_SIZE,
         2 * MIB),
    Case("granada_hand_muslim", _granada("hand", "muslim", granada_state), "PNG", (800, 400), (1200, 1600),
         1 * MIB),
    Case("granada_closeup_granada", _granada("closeup", "christian", granada_state, "granada"), "PNG", (800, 600),
         (1000, 800), 2 * MIB),
    Case("granada_battle_field", _granada("battle", "christian", lambda: granada_battle_state("battle")), "PNG",
         (1200, 700), (1600, 1000), 1 * MIB),
    Case("granada_battle_siege", _granada("battle", "muslim", lambda: granada_battle_state("siege")), "PNG",
         (1200, 700), (1600, 1000), 1 * MIB),
    Case("granada_battle_naval", _granada("battle", "christian", lambda: granada_battle_state("naval_battle")),
         "PNG", (1200, 500), (1600, 1000), 1 * MIB),
    Case("granada_reveal", _granada_reveal, "PNG", GRANADA_SIZE, GRANADA_SIZE, 2 * MIB),
    Case("granada_replay", _granada_replay, "GIF", (600, 400), GRANADA_SIZE, 10 * MIB, golden=False),
]

BY_NAME = {c.name: c for c in CASES}
