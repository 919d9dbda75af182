"""The PostgreSQL figures (``throughput.pg_*``): player processes playing at once on one
database, each step as a front end makes it, beside the floor: the same processes running only
the statements of those steps on the driver."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from benchmarks.common import (
    CONCURRENT_GAMES,
    PG_URL_VARIABLE,
    SEAT_USER_BASE,
    Bench,
    default_options,
    figure,
    repo_root,
    rounded,
    skipped,
)
from benchmarks.service import front_end_step
from engine.rng import Generator

PG_FIGURE = "throughput.pg_processes"
PG_TWO = "throughput.pg_two_processes"
PG_FLOOR_TWO = "throughput.pg_floor_two_processes"
PG_FIGURES = (PG_FIGURE, PG_TWO, PG_FLOOR_TWO)
CPU_OVER_FLOOR = 1.5
"""Issue 33: a service step's CPU (players and server) at most this many times the floor's."""


def default_process_counts(cores: int | None) -> list[int]:
    """1 and 2, then doubling up to the machine's cores, and the cores themselves: 1, 2 on two
    cores; 1, 2, 4, 6 on six; 1, 2, 4, 8, 16 on sixteen."""
    top = max(2, cores or 1)
    counts = [1]
    n = 2
    while n <= top:
        counts.append(n)
        n *= 2
    if counts[-1] != top:
        counts.append(top)
    return counts


def counts_option(text: str) -> list[int]:
    """``N[,N...]`` of the command line: distinct positive counts, in increasing order."""
    try:
        values = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of counts: {text!r}") from None
    if not values or values[0] < 1:
        raise argparse.ArgumentTypeError(f"counts are at least 1: {text!r}")
    return values


def default_games_per_process(bench: Bench) -> int:
    """The games each process plays: as ``throughput.pg_two_processes`` always had them
    (100 in all with ``--quick``, 200 otherwise, half a process)."""
    return (CONCURRENT_GAMES // 2 if bench.plan.quick else CONCURRENT_GAMES) // 2


@dataclass
class Measured:
    """One run of a script in its processes: the steps of each whole second (the first one a
    warm-up), the CPU seconds of each process and of the PostgreSQL server (None when the
    server's processes cannot be read here), and the steps made over the measured time."""

    rates: list[float]
    clients: list[float]
    server_cpu: float | None
    steps: int
    total_steps: int

    def cpu(self) -> dict[str, Any]:
        """CPU milliseconds per step: all the processes together, each of them, the server's,
        and the sum (None without the server's)."""
        per = 1000 / max(1, self.steps)
        clients = sum(self.clients)
        return {"client_cpu_ms_per_step": rounded(per * clients),
                "client_cpu_ms_per_step_each": [rounded(per * c) for c in self.clients],
                "server_cpu_ms_per_step": None if self.server_cpu is None else rounded(per * self.server_cpu),
                "cpu_ms_per_step": None if self.server_cpu is None else rounded(per * (clients + self.server_cpu))}

    def summary(self) -> dict[str, Any]:
        """The figure's own fields: the rate's median, mean and least, and the CPU."""
        return {"median": rounded(statistics.median(self.rates)), "mean": rounded(statistics.mean(self.rates)),
                "min": min(self.rates), "total_steps": self.total_steps, **self.cpu()}


def pg_figures(bench: Bench, counts: Sequence[int], per_process: Sequence[int]) -> None:
    """``throughput.pg_processes``: steps per second of N processes playing at once on one
    PostgreSQL database, for each N of ``counts`` and each number of games a process plays of
    ``per_process``, each process its own games, each step as a front end makes it (view, then
    apply), as ``throughput.steps_per_s`` does in one process on SQLite. Beside each, the floor
    (``floor`` and ``baseline``): the same processes on the same games running only the
    statements of those steps on the driver (asyncpg), with no engine and no service code,
    what this machine's PostgreSQL allows at most. Each says the CPU time per step of the
    player processes and of the PostgreSQL server (its backends, read from /proc), so that
    what bounds the figure is measured in every run, and ``cpu_vs_floor``: how many times the
    floor's CPU a step costs (issue 33: at most ``CPU_OVER_FLOOR``).

    Two processes are also printed under the names they had before the count was variable,
    ``throughput.pg_two_processes`` and ``throughput.pg_floor_two_processes``."""
    server = os.environ.get(PG_URL_VARIABLE, "")
    game_id = bench.service_game()
    if not server or game_id is None:
        for name in PG_FIGURES:
            bench.emit(skipped(name, f"{PG_URL_VARIABLE} is not set (eval \"$(.ci/postgres.sh)\")"
                               if not server else "no game is registered"))
        return
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    from bot.db import migrate

    database = f"alcazaba_bench_{os.getpid()}"
    admin = sa.create_engine(make_url(server).set(drivername="postgresql+psycopg2", database="postgres"),
                             isolation_level="AUTOCOMMIT")
    url = make_url(server).set(database=database).render_as_string(hide_password=False)
    sets = [(p, g) for g in per_process for p in counts]
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
            postmaster = _postmaster_pid(conn)
        migrate(url)
        # Each set plays games of its own: the floor's rows are not real moves, so a game it
        # wrote to can no longer be loaded by the service.
        seats = asyncio.run(_pg_games(url, game_id, sum(p * g for p, g in sets)))
        pks = sorted({pk for pk, _ in seats})
        for processes, games in sets:
            mine, pks = pks[: processes * games], pks[processes * games:]
            parts = [[[pk, role, uid] for (pk, role), uid in seats.items() if pk in mine[i::processes]]
                     for i in range(processes)]
            played = _measure(bench, PG_PLAYER, url, parts, postmaster)
            floor = _measure(bench, PG_FLOOR, url, parts, postmaster)
            mine_cpu, floor_cpu = played.cpu()["cpu_ms_per_step"], floor.cpu()["cpu_ms_per_step"]
            judged: dict[str, Any] = {"target": f"cpu_ms_per_step <= {CPU_OVER_FLOOR:g} x the floor's (issue 33)"}
            if mine_cpu is not None and floor_cpu:
                judged["cpu_vs_floor"] = rounded(mine_cpu / floor_cpu)
                judged["meets_target"] = mine_cpu <= CPU_OVER_FLOOR * floor_cpu
            common: dict[str, Any] = {"game": game_id, "processes": processes, "games_per_process": games,
                      "games": processes * games, "warmup_s": 1, "cores": os.cpu_count()}
            line = figure(PG_FIGURE, "steps/s", played.rates, floor.rates, **common,
                          **{k: v for k, v in played.summary().items() if k != "median"},
                          floor=floor.summary(), **judged)
            bench.emit(line)
            if processes == 2:
                for name, run in ((PG_TWO, played), (PG_FLOOR_TWO, floor)):
                    cpu = run.cpu()
                    bench.emit(figure(name, "steps/s", run.rates, **common, mean=run.summary()["mean"],
                                      total_steps=run.total_steps, min=min(run.rates),
                                      client_cpu_ms_per_step=cpu["client_cpu_ms_per_step_each"],
                                      server_cpu_ms_per_step=cpu["server_cpu_ms_per_step"],
                                      cpu_ms_per_step=cpu["cpu_ms_per_step"]))
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.dispose()


def _measure(bench: Bench, script: str, url: str, parts: list[list[list[Any]]], postmaster: int | None) -> Measured:
    """Run ``script`` in one process per part of the seats, started together, for the plan's
    ``throughput_s`` (at least 2 s, the first second a warm-up not counted in the rates)."""
    seconds = max(2, int(bench.plan.throughput_s))
    stamps, start_at, clients, server_cpu = _pg_processes(script, url, parts, seconds, postmaster)
    windows = [0] * seconds
    for t in stamps:
        k = int(t - start_at)
        if 0 <= k < seconds:
            windows[k] += 1
    return Measured([float(w) for w in windows[1:]], clients, server_cpu, max(1, sum(windows)), len(stamps))


def _pg_processes(script: str, url: str, parts: list[list[list[Any]]], seconds: float,
                  postmaster: int | None) -> tuple[list[float], float, list[float], float | None]:
    """Run ``script`` in one process per part of the seats, started together: the times of
    their steps, the start, each process's CPU seconds and the PostgreSQL server's over the
    measured time (the server's: None when its processes cannot be read)."""
    procs = [subprocess.Popen([sys.executable, "-c", script, url, json.dumps(part), str(seconds)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(repo_root()))
             for part in parts]
    try:
        for proc in procs:  # each has imported, connected and loaded its games
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.startswith("ready"):
                raise RuntimeError(f"a player process did not start: {line!r}")
        start_at = time.time() + 0.5
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write(f"{start_at}\n")
            proc.stdin.flush()
        time.sleep(max(0.0, start_at - time.time()))
        server_start = _server_cpu(postmaster)
        time.sleep(max(0.0, start_at + seconds - time.time()))
        server_end = _server_cpu(postmaster)
        server_cpu = None if server_start is None or server_end is None else server_end - server_start
        stamps: list[float] = []
        clients: list[float] = []
        for proc in procs:
            out, _ = proc.communicate(timeout=seconds + 120)
            if proc.returncode != 0:
                raise RuntimeError(f"a player process failed (exit {proc.returncode})")
            report = json.loads(out.strip().splitlines()[-1])
            stamps += report["stamps"]
            clients.append(report["cpu_s"])
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return stamps, start_at, clients, server_cpu


PG_PLAYER = r"""
import asyncio, json, sys
from benchmarks.postgres import pg_player
stamps, cpu_s = asyncio.run(pg_player(sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])))
print(json.dumps({"stamps": stamps, "cpu_s": cpu_s}), flush=True)
"""

PG_FLOOR = r"""
import asyncio, json, sys
from benchmarks.postgres import pg_floor_player
stamps, cpu_s = asyncio.run(pg_floor_player(sys.argv[1], json.loads(sys.argv[2]), float(sys.argv[3])))
print(json.dumps({"stamps": stamps, "cpu_s": cpu_s}), flush=True)
"""


def _postmaster_pid(conn: Any) -> int | None:
    """The PostgreSQL server's main process on this machine (the parent of our backend), or
    None when it runs elsewhere: on another machine, or in a container, where the backend's
    process id names another process here (so both must be PostgreSQL's)."""
    backend = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    try:
        parent = int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
        names = [Path(f"/proc/{pid}/comm").read_text().strip() for pid in (backend, parent)]
    except (OSError, ValueError, IndexError):
        return None
    return parent if all(name.startswith("postgres") for name in names) else None


def _server_cpu(postmaster: int | None) -> float | None:
    """CPU seconds of the PostgreSQL server so far (None when it is not on this machine): its
    main process, its live children (the backends, the WAL writer...) and the children it
    reaped (``cutime``/``cstime``), from /proc/<pid>/stat.

    A backend that exits while /proc is read (a player process closing its connections) would
    be in neither the children read nor the main process's ``cutime`` read before it: its CPU
    would be lost from the sum. So the main process is read again after the children, and the
    whole reading made again until the two agree."""
    if postmaster is None:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    for _ in range(20):
        before = _stat(postmaster)
        if before is None:
            return None
        children = 0
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and entry.name != str(postmaster):
                fields = _stat(int(entry.name))
                if fields is not None and int(fields[1]) == postmaster:
                    children += int(fields[11]) + int(fields[12])  # utime stime
        after = _stat(postmaster)
        if after is not None and after[11:15] == before[11:15]:
            return (sum(int(f) for f in after[11:15]) + children) / tick  # utime stime cutime cstime
    raise RuntimeError("the PostgreSQL server's processes kept changing while their CPU time was read")


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command's name (``fields[1]`` is the parent,
    ``fields[11:15]`` utime, stime, cutime, cstime), or None when the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


async def _pg_games(url: str, game_id: str, count: int) -> dict[tuple[int, str], int]:
    """``count`` running games with a person in every seat; their seats' users."""
    from bot.service import GameService

    service = GameService.open(url)
    module = engine.get(game_id)
    seats: dict[tuple[int, str], int] = {}
    try:
        for n in range(count):
            info = await service.create_game(game_id, default_options(module), seed=n)
            for i, role in enumerate(info.roles):
                uid = SEAT_USER_BASE + n * 10 + i
                await service.join(info.id, uid, f"player {uid}", role=role)
                seats[(info.id, role)] = uid
            await service.start(info.id)
    finally:
        await service.close()
    return seats


async def pg_player(url: str, seats: list[list[Any]], seconds: float) -> tuple[list[float], float]:
    """One process of ``throughput.pg_processes``: loads its games, prints "ready", reads
    the start time (wall clock, shared with the other process) from stdin, then plays its
    games at once for ``seconds``; the time of each step, and the CPU seconds it took."""
    from bot.service import GameService, StaleVersion

    service = GameService.open(url)
    users = {(int(pk), str(role)): int(uid) for pk, role, uid in seats}
    stamps: list[float] = []
    pks = sorted({pk for pk, _ in users})
    infos = {pk: await service.game(pk) for pk in pks}
    for (pk, role), uid in users.items():
        await service.view(pk, role, user_id=uid)  # the state cache holds every game, as in play
    print("ready", flush=True)
    start_at = float(await asyncio.to_thread(sys.stdin.readline))
    stop_at = start_at + seconds

    async def player(pk: int, seed: int) -> None:
        pick = Generator(seed)
        active = list(infos[pk].active)
        while time.time() < stop_at and active:
            try:
                step = await front_end_step(service, pk, active, pick, users)
            except StaleVersion:
                continue
            if step is None:
                return
            stamps.append(time.time())
            active = list(step.active)

    try:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        cpu = time.process_time()
        await asyncio.gather(*(player(pk, i) for i, pk in enumerate(pks)))
        cpu = time.process_time() - cpu
    finally:
        await service.close()
    return stamps, cpu


# The statements of a step and of the view before it, as the service ran them on PostgreSQL
# until it sent a step's writes as one statement (bot/service/core.py ``_PgWrite``): the game
# row with its seats and last rules upgrade, locked for the step; the move row; the game row;
# the notifications, one statement each, written out for asyncpg. Kept as they were, so that
# the floor's figures compare with the earlier ones; the service now makes fewer round trips.
_FLOOR_LOOK = ("SELECT game.*, (SELECT coalesce(max(rules_upgrade.id), 0) FROM rules_upgrade "
               "WHERE rules_upgrade.game_pk = game.id) AS upgrade_mark, seat.* "
               "FROM game LEFT OUTER JOIN seat ON seat.game_pk = game.id WHERE game.id = $1 ORDER BY seat.id")
_FLOOR_MOVE = ("INSERT INTO move (game_pk, seq, role, user_id, action, kind, undoes_seq, barrier, state_hash, "
               "created_at, delta) VALUES ($1, $2, $3, $4, $5, 'step', NULL, false, $6, $7, $8)")
_FLOOR_GAME = "UPDATE game SET version = $2, active = $3, updated_at = $4 WHERE game.id = $1"
_FLOOR_OUTBOX = ("INSERT INTO outbox (game_pk, kind, recipient, payload, dedupe_key, created_at, attempts, "
                 "next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6, 0, $6)")


async def pg_floor_player(url: str, seats: list[list[Any]], seconds: float) -> tuple[list[float], float]:
    """One process of the floor of ``throughput.pg_processes``: for each of its games at once,
    the statements of a front end's step without the engine or the service (the view's
    statement; then, in one transaction, the locked read, the move row, the game row and two
    notification rows), with payloads of a step's size, on a pool of 15 connections (as many
    as SQLAlchemy's pool gave the service, 5 and 10 more when busy; the service now keeps 8 of
    its own, ``bot.db.PG_DRIVERS``). What PostgreSQL and the driver allow on this machine for
    those statements, to hold ``throughput.pg_processes`` against."""
    from datetime import UTC, datetime

    import asyncpg
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    pool = await asyncpg.create_pool(user=parsed.username, password=parsed.password, host=parsed.host,
                                     port=parsed.port, database=parsed.database, min_size=15, max_size=15)
    pks = sorted({int(pk) for pk, _role, _uid in seats})
    users = {int(pk): (str(role), int(uid)) for pk, role, uid in seats}
    stamps: list[float] = []
    async with pool.acquire() as conn:
        versions = {r["id"]: r["version"] for r in await conn.fetch("SELECT id, version FROM game WHERE id = ANY($1)", pks)}
    delta = json.dumps({"{": {"log": {"[": 120, "+": [{"text": "x" * 60}] * 3}, "stack": {"=": [{"kind": "movement"}]}}})
    print("ready", flush=True)
    start_at = float(await asyncio.to_thread(sys.stdin.readline))
    stop_at = start_at + seconds

    async def player(pk: int) -> None:
        role, uid = users[pk]
        while time.time() < stop_at:
            async with pool.acquire() as conn:
                await conn.fetch(_FLOOR_LOOK, pk)
            version = versions[pk] + 1
            now = datetime.now(UTC).replace(tzinfo=None)
            async with pool.acquire() as conn, conn.transaction():
                await conn.fetch(_FLOOR_LOOK + " FOR UPDATE OF game", pk)
                await conn.execute(_FLOOR_MOVE, pk, version, role, uid, '{"type":"pass"}', "0123456789abcdef",
                                   now, delta)
                await conn.execute(_FLOOR_GAME, pk, version, f'["{role}"]', now)
                await conn.executemany(_FLOOR_OUTBOX, [
                    (pk, "channel", "1", '{"type":"log","lines":["' + "x" * 80 + '"]}', f"f{pk}:v{version}:log", now),
                    (pk, "dm", str(uid), '{"type":"your_turn"}', f"f{pk}:v{version}:turn", now)])
            versions[pk] = version
            stamps.append(time.time())

    try:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        cpu = time.process_time()
        await asyncio.gather(*(player(pk) for pk in pks))
        cpu = time.process_time() - cpu
    finally:
        await pool.close()
    return stamps, cpu


