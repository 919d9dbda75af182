"""The service's figures on SQLite: ``service.step`` (one step, the worst case) and
``throughput.steps_per_s`` (steps per second of 200 games played at once in one process).

``service.step`` cycles through more games than the service's state cache holds, so every step
loads its state from the database (the last snapshot plus the deltas of the moves after it,
checked against the last move's hash). Its baseline is a bare ``sqlite3`` insert-and-commit of
the same bytes (action, state, notifications) with the same journal settings: the floor any
design storing those bytes pays (:func:`sqlite_floor`)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import engine
from benchmarks.common import (
    CONCURRENT_GAMES,
    WARMUP_STEPS,
    Bench,
    figure,
    percentile,
    pick_move,
    rounded,
    skipped,
)
from benchmarks.store import build_store, storage_per_move
from engine.rng import Generator

if TYPE_CHECKING:
    from bot.service import GameService, StepResult


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


async def service_figures(bench: Bench) -> None:
    """``service.step`` on the stored-games database, then ``throughput.steps_per_s`` and
    ``storage.bytes_per_move`` on the same database."""
    from bot.service import GameService
    from bot.settings import sqlite_url

    game_id = bench.service_game()
    if game_id is None:
        for name in ("service.step", "throughput.steps_per_s", "storage.bytes_per_move"):
            bench.emit(skipped(name, "no game is registered"))
        return
    module = engine.get(game_id)
    t0 = time.perf_counter()
    path, templates = await build_store(bench)
    build_s = time.perf_counter() - t0
    states = templates[game_id]
    con = sqlite3.connect(path)
    running = [pk for (pk, src) in con.execute(
        "SELECT g.id, m.src FROM game g JOIN bench_source m ON m.id = g.id "
        "WHERE g.status = 'running' AND g.game_id = ? ORDER BY g.id", (game_id,))
        if module.result(states[src]) is None]
    sources = dict(con.execute("SELECT id, src FROM bench_source"))
    seats = {(pk, role): uid for pk, role, uid in con.execute("SELECT game_pk, role, user_id FROM seat")}
    versions = dict(con.execute("SELECT id, version FROM game"))
    stored = con.execute("SELECT count(*) FROM game").fetchone()[0]
    mark = con.execute("SELECT coalesce(max(id), 0) FROM move").fetchone()[0]
    con.close()
    if len(running) < 2:
        bench.emit(skipped("service.step", f"fewer than 2 running {game_id} games among the stored ones"))
        return
    from bot.service.storage import _STATE_CACHE_SIZE

    # More games than the cache holds, so that every step is a miss (the worst case).
    measured = running[: max(bench.plan.service_games, _STATE_CACHE_SIZE + 44)]
    concurrent = running[len(measured): len(measured) + CONCURRENT_GAMES]
    if len(concurrent) < CONCURRENT_GAMES:
        concurrent = running[-CONCURRENT_GAMES:]

    service = GameService.open(sqlite_url(path))
    reader = sqlite3.connect(path)
    last_outbox = reader.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0]
    local = {pk: states[sources[pk]] for pk in measured}
    pick = Generator(777)
    times: list[float] = []
    cpu: list[float] = []  # the process's CPU time of each step: what a loaded machine does not inflate
    written: list[tuple[str, str, str]] = []
    try:
        alive = list(measured)
        i = 0
        while len(times) < bench.plan.service_steps and alive:
            pk = alive[i % len(alive)]
            i += 1
            move = pick_move(module, local[pk], pick)
            if move is None:
                alive.remove(pk)
                continue
            role, action = move
            c0, s0 = time.process_time(), time.perf_counter()
            step = await service.apply(pk, role, action, versions[pk], user_id=seats[(pk, role)])
            times.append((time.perf_counter() - s0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            versions[pk] = step.version
            local[pk] = module.apply(local[pk], role, action)
            for forced in step.forced:  # the forced steps the service took after it (issue 38)
                assert forced.action is not None, "a forced step says its action"
                local[pk] = module.apply(local[pk], forced.role, forced.action)
            payloads = [p for (p,) in reader.execute(
                "SELECT payload FROM outbox WHERE id > ? ORDER BY id", (last_outbox,))]
            last_outbox = reader.execute("SELECT coalesce(max(id), 0) FROM outbox").fetchone()[0]
            written.append((_dumps(action), _dumps(local[pk]), "".join(payloads)))
    finally:
        reader.close()
        await service.close()
    baseline = sqlite_floor(bench.workdir / "floor.db", written)
    state_bytes = statistics.median(len(w[1]) for w in written)
    bench.emit(figure("service.step", "ms", times, baseline, game=game_id, stored_games=stored,
                     state_cache="miss", games_cycled=len(measured), state_bytes_median=int(state_bytes),
                     cpu_ms_median=rounded(statistics.median(cpu)), cpu_ms_p95=rounded(percentile(cpu, 95)),
                     build_seconds=round(build_s, 1)))
    await throughput(bench, path, game_id, concurrent, seats)
    storage_per_move(bench, path, mark)


async def throughput(bench: Bench, path: Path, game_id: str, games: list[int], seats: dict[tuple[int, str], int]) -> None:
    """Steps per second with CONCURRENT_GAMES games played at once through one service,
    each step as a front end makes it: the role's view (legal actions), then apply.

    The games take turns, one step each, as requests arriving from the network would (on
    SQLite nothing in a step waits, so without a turn of the event loop between two steps
    one player would play its game alone: a working set of one game, which is not a
    server's). Every game first makes WARMUP_STEPS steps unmeasured, so that the figure
    is the steady state of games kept hot (a game loaded cold costs what ``service.step``
    measures); the CPU time per step is measured over the same period."""
    from bot.service import GameService
    from bot.settings import sqlite_url

    service = GameService.open(sqlite_url(path))
    stamps: list[float] = []
    stepped: set[int] = set()
    clock = {"stop": float("inf")}
    warm = asyncio.Event()
    warming = {"left": len(games)}

    def warmed() -> None:
        warming["left"] -= 1
        if warming["left"] == 0:
            warm.set()

    async def player(pk: int, seed: int) -> None:
        pick = Generator(seed)
        try:
            active = await warm_up(service, pk, pick, seats)
        finally:
            warmed()
        await warm.wait()
        while time.perf_counter() < clock["stop"] and active:
            step = await front_end_step(service, pk, active, pick, seats)
            if step is None:
                return
            stamps.append(time.perf_counter())
            stepped.add(pk)
            active = list(step.active)
            await asyncio.sleep(0)  # the other games' turn

    async def timer() -> tuple[float, float]:
        await warm.wait()
        clock["stop"] = time.perf_counter() + bench.plan.throughput_s
        return time.perf_counter(), time.process_time()

    try:
        timing = asyncio.ensure_future(timer())
        await asyncio.gather(timing, *(player(pk, i) for i, pk in enumerate(games)))
        start, cpu_start = timing.result()
        cpu_s = time.process_time() - cpu_start
    finally:
        await service.close()
    seconds = max(1, int(bench.plan.throughput_s))
    windows = [0] * seconds
    for t in stamps:
        k = int(t - start)
        if k < seconds:
            windows[k] += 1
    rates = [float(w) for w in windows]
    # The process's CPU time per step (its threads' too: the WAL checkpointer): what the
    # figure would be on an idle core, when other work on the machine holds the
    # wall-clock rate down.
    bench.emit(figure("throughput.steps_per_s", "steps/s", rates, game=game_id, games=len(games),
                     games_stepped=len(stepped), mean=rounded(len(stamps) / bench.plan.throughput_s),
                     total_steps=len(stamps), warmup_steps=WARMUP_STEPS, min=min(rates),
                     cpu_ms_per_step=rounded(1000 * cpu_s / max(1, len(stamps)))))


def sqlite_floor(path: Path, rows: list[tuple[str, str, str]]) -> list[float]:
    """Bare sqlite3: insert the same bytes as each service step and commit, with the
    service's journal settings (WAL, synchronous=NORMAL). Milliseconds per row."""
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("CREATE TABLE IF NOT EXISTS floor (id INTEGER PRIMARY KEY, action TEXT, state TEXT, notes TEXT)")
    times: list[float] = []
    for action, state, notes in rows:
        s0 = time.perf_counter()
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO floor (action, state, notes) VALUES (?, ?, ?)", (action, state, notes))
        con.execute("COMMIT")
        times.append((time.perf_counter() - s0) * 1000)
    con.close()
    return times


async def warm_up(service: GameService, pk: int, pick: Generator,
                  seats: dict[tuple[int, str], int]) -> list[str]:
    """A game's unmeasured first steps (:data:`WARMUP_STEPS`): its first look loads it cold,
    which ``service.step`` measures, not the throughput loop. The roles to act after them
    (none when the game ended or refused a step)."""
    active = list((await service.game(pk)).active)
    made = 0
    while active and made < WARMUP_STEPS:
        step = await front_end_step(service, pk, active, pick, seats)
        if step is None:
            return []
        made += 1
        active = list(step.active)
        await asyncio.sleep(0)
    return active


async def front_end_step(service: GameService, pk: int, active: list[str], pick: Generator,
                         users: dict[tuple[int, str], int]) -> StepResult | None:
    """One step of a random player as a front end makes it: the view of an active role (in a
    random order) with legal actions, then one of them applied at that view's version. None
    when no active role has an action; StaleVersion passes through (another process moved)."""
    pick.shuffle(active)
    for role in active:
        chosen = await _choose(service, pk, role, pick, users)
        if chosen is not None:
            return await service.apply(pk, role, chosen[0], chosen[1], user_id=users[(pk, role)])
    return None


async def _choose(service: GameService, pk: int, role: str, pick: Generator,
                  users: dict[tuple[int, str], int]) -> tuple[dict[str, Any], int] | None:
    """One of the actions the view of ``role`` offers, and the view's version (None: it offers
    none). The view is dropped before the step, as a front end drops a prompt's view once it
    is drawn: a view held while steps wait for their commit would only keep thousands of
    objects alive for the garbage collector to walk."""
    seen = await service.view(pk, role, user_id=users[(pk, role)])
    legal = seen.view.get("actions") or []
    return (pick.choice(legal), seen.version) if legal else None


