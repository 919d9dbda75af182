"""What every section of ``alcazaba bench`` shares: the run (:class:`Plan`, :class:`Bench`),
the figures' format (one JSON object per line: :func:`figure`, :func:`skipped`, their targets and
floors) and random legal play (:func:`play_random`), the engine figures' and the databases' source."""

from __future__ import annotations

import shutil
import sqlite3
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from engine.api import GameModule, State
from engine.rng import Generator

if TYPE_CHECKING:
    pass


STORED_GAMES = 10_000
WARMUP_STEPS = 3
"""Steps each game of ``throughput.*`` makes before the clock starts: its first look loads it
cold, and its first two steps learn the texts of its state's parts (bot/service/canon.py)."""
CONCURRENT_GAMES = 200
MAX_GAME_STEPS = 50_000
SEAT_USER_BASE = 700_000_000_000_000_000
"""Fake Discord user ids of the benchmark's seats (snowflake-sized, never real users)."""

TARGETS: dict[str, tuple[str, float, str]] = {
    # figure -> (statistic, limit, text) from issue 6
    "service.step": ("p95", 3.0, "p95 <= 3 ms"),  # issue 13 (issue 6 asked for 25 ms)
    "render.board.granada": ("median", 150.0, "<= 150 ms"),
    "render.leaderboard": ("median", 150.0, "<= 150 ms (as the boards)"),
    "engine.step.granada": ("median", 0.03, "median <= 30 µs (issue 33; issue 15 asked for 60)"),
    "engine.game.granada": ("median", 1000.0, "median <= 1 s"),
    "web.page": ("p95", 50.0, "p95 <= 50 ms (issue 30)"),
    "web.replay_frame": ("median", 150.0, "<= 150 ms (issue 30)"),
}
FLOORS: dict[str, float] = {
    # figure -> the least median (issue 13)
    "throughput.steps_per_s": 1000.0,
    "throughput.pg_two_processes": 2000.0,
}
PG_URL_VARIABLE = "ALCAZABA_TEST_PG_URL"
"""The PostgreSQL server of the ``throughput.pg_*`` figures (.ci/postgres.sh exports it); the
figure makes a database of its own there and drops it at the end."""


# --------------------------------------------------------------------------- statistics and output


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100): a value that was actually measured."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("no values")
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def rounded(value: float) -> float:
    if value == 0 or abs(value) >= 100:
        return round(value, 1)
    if abs(value) >= 1:
        return round(value, 3)
    return float(f"{value:.4g}")


def figure(name: str, unit: str, samples: Sequence[float], baseline: Sequence[float] | None = None,
           **extra: Any) -> dict[str, Any]:
    """One figure: median and p95 of ``samples``; with ``baseline``, its median and the ratio."""
    median = statistics.median(samples)
    out: dict[str, Any] = {"name": name, "unit": unit, "median": rounded(median),
                           "p95": rounded(percentile(samples, 95)), "n": len(samples)}
    if baseline:
        base = statistics.median(baseline)
        out["baseline"] = rounded(base)
        out["ratio"] = rounded(median / base) if base > 0 else None
    target = TARGETS.get(name)
    if target is not None:
        stat, limit, text = target
        out["target"] = text
        out["meets_target"] = (median if stat == "median" else percentile(samples, 95)) <= limit
    floor = FLOORS.get(name)
    if floor is not None:
        out["target"] = f"median >= {floor:g} {unit}"
        out["meets_target"] = median >= floor
    out.update(extra)
    return out


def skipped(name: str, reason: str) -> dict[str, Any]:
    return {"name": name, "skipped": reason}


# --------------------------------------------------------------------------- random play


def default_options(module: GameModule) -> dict[str, Any]:
    return module.defaults()


def pick_move(module: GameModule, state: State, pick: Generator) -> tuple[str, dict[str, Any]] | None:
    """A uniformly random legal (role, action), or None when the game is over."""
    if module.result(state) is not None:
        return None
    active = list(module.active(state))
    pick.shuffle(active)
    for role in active:
        legal = module.actions(state, role)
        if legal:
            return role, pick.choice(legal)
    raise RuntimeError(f"{module.id}: active roles {active} have no legal action")


@dataclass
class PlayedGame:
    seed: int
    moves: list[tuple[str, dict[str, Any]]]
    state: State
    seconds: float
    step_ms: list[float]
    finished: bool


def play_random(module: GameModule, seed: int, max_steps: int = MAX_GAME_STEPS, time_steps: bool = False) -> PlayedGame:
    """One game of random legal steps; with ``time_steps``, the time of each step (legal
    actions + apply, the engine's share of a turn)."""
    pick = Generator(seed * 31 + 7)
    clock = time.perf_counter
    t0 = clock()
    state = module.setup(seed, default_options(module))
    moves: list[tuple[str, dict[str, Any]]] = []
    step_ms: list[float] = []
    finished = False
    for _ in range(max_steps):
        if module.result(state) is not None:
            finished = True
            break
        active = list(module.active(state))
        role = active[0] if len(active) == 1 else pick.choice(active)
        s0 = clock()
        legal = module.actions(state, role)
        if not legal:
            others = [r for r in active if r != role and module.actions(state, r)]
            if not others:
                raise RuntimeError(f"{module.id} seed {seed}: active roles {active} have no legal action")
            role = others[0]
            s0 = clock()
            legal = module.actions(state, role)
        action = legal[pick.randbelow(len(legal))]
        state = module.apply(state, role, action)
        if time_steps:
            step_ms.append((clock() - s0) * 1000)
        moves.append((role, action))
    return PlayedGame(seed, moves, state, clock() - t0, step_ms, finished)


# --------------------------------------------------------------------------- the run


@dataclass
class Plan:
    """Repetitions and time budgets of one run (quick or full)."""

    quick: bool
    engine_games: int
    engine_budget_s: float
    templates_per_game: int
    template_max_steps: int
    service_steps: int
    service_games: int
    throughput_s: float
    render_reps: int
    storage_games: int
    memory_samples: int

    @classmethod
    def make(cls, quick: bool) -> Plan:
        if quick:
            return cls(True, engine_games=20, engine_budget_s=4.0, templates_per_game=4, template_max_steps=60,
                       service_steps=300, service_games=300, throughput_s=5.0, render_reps=5, storage_games=1,
                       memory_samples=5)
        return cls(False, engine_games=100, engine_budget_s=30.0, templates_per_game=12, template_max_steps=200,
                   service_steps=2000, service_games=400, throughput_s=20.0, render_reps=30, storage_games=5,
                   memory_samples=20)


@dataclass
class Bench:
    """One run: its plan, its scratch directory and where its lines go (``only``: the prefix
    of the figures asked for). The random games the engine figures played and the databases
    made so far are kept here for the later sections (each section a module's function taking
    the run)."""

    plan: Plan
    workdir: Path
    out: Callable[[dict[str, Any]], None]
    only: str | None = None
    played: dict[str, list[PlayedGame]] = field(default_factory=dict)
    db_path: Path | None = None
    empty_db: Path | None = None

    def wants(self, prefix: str) -> bool:
        return self.only is None or prefix.startswith(self.only) or self.only.startswith(prefix)

    def emit(self, line: dict[str, Any]) -> None:
        if self.only is None or str(line.get("name", "")).startswith(self.only):
            self.out(line)

    def played_games(self, game_id: str, count: int) -> list[PlayedGame]:
        """Finished random games of ``game_id`` (from the engine figures when possible)."""
        have = [g for g in self.played.get(game_id, []) if g.finished]
        seed = 1000
        module = engine.get(game_id)
        while len(have) < count:
            game = play_random(module, seed)
            seed += 1
            if game.finished:
                have.append(game)
        return have[:count]

    # ------------------------------------------------------------------ database set-up

    def service_game(self) -> str | None:
        """The game the service figures play: the flagship when it is registered."""
        if "granada" in engine.GAMES:
            return "granada"
        return sorted(engine.GAMES)[0] if engine.GAMES else None

    def prepare_empty_db(self) -> None:
        """A migrated empty database to copy (migrations run their own event loop, so this
        happens before the benchmark's loops start)."""
        from bot.db import migrate
        from bot.settings import sqlite_url

        if self.empty_db is None:
            self.empty_db = self.workdir / "empty.db"
            migrate(sqlite_url(self.empty_db))
            con = sqlite3.connect(self.empty_db)
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            con.close()

    def migrated_copy(self, name: str) -> Path:
        assert self.empty_db is not None, "prepare_empty_db() first"
        path = self.workdir / name
        shutil.copyfile(self.empty_db, path)
        return path


def repo_root() -> Path:
    """The clone's top directory (benchmarks/ is not installed: it runs from a clone)."""
    return Path(__file__).resolve().parent.parent

