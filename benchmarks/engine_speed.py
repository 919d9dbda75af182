"""The engine's figures (``engine.*``): a step (legal actions of one role, apply one), a whole
random game, a late step against an early one and random playouts per second (issue 15).

Every engine figure plays uniformly random legal actions, as the contract check does: it
reaches every phase and needs nothing game-specific."""

from __future__ import annotations

import statistics
import time
from typing import Any

import engine
from benchmarks.common import (
    MAX_GAME_STEPS,
    Bench,
    PlayedGame,
    figure,
    pick_move,
    play_random,
    rounded,
    skipped,
)
from engine.api import State
from engine.rng import Generator


def engine_figures(bench: Bench) -> None:
    """``engine.step.<game>`` and ``engine.game.<game>`` for every registered game: random games
    until the plan's count or time budget, kept in ``bench.played`` for the later sections."""
    for game_id in sorted(engine.GAMES):
        module = engine.get(game_id)
        games: list[PlayedGame] = []
        start = time.perf_counter()
        seed = 1
        while len(games) < bench.plan.engine_games and (
                not games or time.perf_counter() - start < bench.plan.engine_budget_s):
            games.append(play_random(module, seed, time_steps=True))
            seed += 1
        bench.played[game_id] = games
        unfinished = [g.seed for g in games if not g.finished]
        steps = [s for g in games for s in g.step_ms]
        bench.emit(figure(f"engine.step.{game_id}", "ms", steps, games=len(games)))
        whole = [g.seconds * 1000 for g in games if g.finished]
        if whole:
            extra: dict[str, Any] = {"steps_median": statistics.median(len(g.moves) for g in games if g.finished)}
            if unfinished:
                extra["unfinished_seeds"] = unfinished
            bench.emit(figure(f"engine.game.{game_id}", "ms", whole, **extra))
        else:
            bench.emit(skipped(f"engine.game.{game_id}", f"no random game ended within {MAX_GAME_STEPS} steps"))


# --------------------------------------------------------------------------- engine speed (issue 15)

LATE_STEP = 600
PLAYOUT_FROM_STEP = 300


def playout_start(module: Any) -> State | None:
    """The state playouts start from: after PLAYOUT_FROM_STEP random steps of the first
    random game that lasts that long (None if none of 49 does)."""
    for seed in range(1, 50):
        game = play_random(module, seed, max_steps=PLAYOUT_FROM_STEP)
        if not game.finished:
            return game.state
    return None


def playout(module: Any, start: State, seed: int) -> int:
    """Uniform random legal actions from ``start`` to the end (playout number ``seed``, the
    same moves every run): the steps played."""
    pick = Generator(10_000 + seed)
    state, n = start, 0
    while n < MAX_GAME_STEPS and (move := pick_move(module, state, pick)) is not None:
        state = module.apply(state, *move)
        n += 1
    return n


def engine_speed_figures(bench: Bench, game_id: str = "granada") -> None:
    """Issue 15's figures: whether a step's cost grows with the game's length, and how many
    random playouts a search could run per second.

    ``engine.step.<game>.late`` is the time of the steps after the 600th of the random games
    of ``engine.step.<game>``; its baseline is the steps up to the 600th, so ``ratio`` says
    how much a long game slows a step (issue 15: at most 1.2). ``engine.playouts_per_s.<game>``
    plays UNIFORM RANDOM LEGAL actions (the offered ``actions()``, as ``engine.step`` does)
    from the state after 300 random steps of a game to the end, one sample per playout.
    """
    if game_id not in engine.GAMES:
        bench.emit(skipped(f"engine.step.{game_id}.late", f"{game_id} is not registered"))
        return
    module = engine.get(game_id)
    games = bench.played.get(game_id) or [play_random(module, seed, time_steps=True) for seed in range(1, 11)]
    early = [ms for g in games for ms in g.step_ms[:LATE_STEP]]
    late = [ms for g in games for ms in g.step_ms[LATE_STEP:]]
    if late:
        bench.emit(figure(f"engine.step.{game_id}.late", "ms", late, baseline=early,
                          target=f"median <= 1.2 x the steps up to the {LATE_STEP}th (issue 15)",
                          meets_target=statistics.median(late) <= 1.2 * statistics.median(early)))
    else:
        bench.emit(skipped(f"engine.step.{game_id}.late", f"no random game went past {LATE_STEP} steps"))
    start = playout_start(module)
    if start is None:
        bench.emit(skipped(f"engine.playouts_per_s.{game_id}", f"every game ended before step {PLAYOUT_FROM_STEP}"))
        return
    budget = 3.0 if bench.plan.quick else 15.0
    rates: list[float] = []
    cpu_rates: list[float] = []
    steps: list[int] = []
    began = time.perf_counter()
    seed = 0
    while len(rates) < 3 or time.perf_counter() - began < budget:
        t0, c0 = time.perf_counter(), time.process_time()
        n = playout(module, start, seed)
        seed += 1
        rates.append(1.0 / (time.perf_counter() - t0))
        cpu_rates.append(1.0 / max(time.process_time() - c0, 1e-9))
        steps.append(n)
    # cpu_median: the same playouts by the process's CPU time, which other processes on a
    # shared machine disturb less than the wall clock (issue 33's comparisons)
    bench.emit(figure(f"engine.playouts_per_s.{game_id}", "playouts/s", rates, policy="uniform random legal actions",
                      from_step=PLAYOUT_FROM_STEP, playout_steps_median=statistics.median(steps),
                      cpu_median=rounded(statistics.median(cpu_rates))))

