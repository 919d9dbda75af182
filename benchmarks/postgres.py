"""The PostgreSQL figures (``throughput.pg_*``): player processes playing at once on one
database, each step as a front end makes it, beside the floor: the same processes running only
the statements of those steps on the driver."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
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


def pg_two_processes(bench: Bench) -> None:
    """Steps per second of two processes playing at once on one PostgreSQL database, each
    its half of the games, each step as a front end makes it (view, then apply), as
    ``throughput.steps_per_s`` does in one process on SQLite; then
    ``throughput.pg_floor_two_processes``, the same two processes running only the
    statements of those steps on the driver (asyncpg), with no engine and no service
    code: what this machine's PostgreSQL allows at most. Each figure says the CPU time
    per step of each player process and of the PostgreSQL server (its backends), so that
    what bounds the figure is measured in every run."""
    name = "throughput.pg_two_processes"
    floor_name = "throughput.pg_floor_two_processes"
    server = os.environ.get(PG_URL_VARIABLE, "")
    game_id = bench.service_game()
    if not server or game_id is None:
        for figure_name in (name, floor_name):
            bench.emit(skipped(figure_name, f"{PG_URL_VARIABLE} is not set (eval \"$(.ci/postgres.sh)\")"
                              if not server else "no game is registered"))
        return
    import sqlalchemy as sa
    from sqlalchemy.engine import make_url

    from bot.db import migrate

    database = f"alcazaba_bench_{os.getpid()}"
    admin = sa.create_engine(make_url(server).set(drivername="postgresql+psycopg2", database="postgres"),
                             isolation_level="AUTOCOMMIT")
    url = make_url(server).set(database=database).render_as_string(hide_password=False)
    games = CONCURRENT_GAMES // 2 if bench.plan.quick else CONCURRENT_GAMES
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.exec_driver_sql(f'CREATE DATABASE "{database}"')
            postmaster = _postmaster_pid(conn)
        migrate(url)
        seats = asyncio.run(_pg_games(url, game_id, games))
        pks = sorted({pk for pk, _ in seats})
        halves = [[[pk, role, uid] for (pk, role), uid in seats.items() if pk in half]
                  for half in (pks[0::2], pks[1::2])]
        for figure_name, script in ((name, PG_PLAYER), (floor_name, PG_FLOOR)):
            stamps, start_at, clients, server_cpu = _pg_processes(bench, script, url, halves, postmaster)
            seconds = max(2, int(bench.plan.throughput_s))
            windows = [0] * seconds
            for t in stamps:
                k = int(t - start_at)
                if 0 <= k < seconds:
                    windows[k] += 1
            rates = [float(w) for w in windows[1:]]
            steps = max(1, sum(windows))
            bench.emit(figure(figure_name, "steps/s", rates, game=game_id, games=games, processes=2,
                             mean=rounded(sum(windows[1:]) / (seconds - 1)), total_steps=len(stamps),
                             warmup_s=1, min=min(rates),
                             client_cpu_ms_per_step=[rounded(1000 * c / steps) for c in clients],
                             server_cpu_ms_per_step=rounded(1000 * server_cpu / steps),
                             cpu_ms_per_step=rounded(1000 * (sum(clients) + server_cpu) / steps),
                             cores=os.cpu_count()))
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.dispose()



def _pg_processes(bench: Bench, script: str, url: str, halves: list[list[list[Any]]],
                  postmaster: int | None) -> tuple[list[float], float, list[float], float]:
    """Run ``script`` in two processes, one per half of the seats, started together:
    the times of their steps, the start, each process's CPU seconds and the PostgreSQL
    server's over the measured time (the server's: 0 when its processes cannot be read)."""
    seconds = bench.plan.throughput_s
    procs = [subprocess.Popen([sys.executable, "-c", script, url, json.dumps(half), str(seconds)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(repo_root()))
             for half in halves]
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
        server_cpu = _server_cpu(postmaster) - server_start
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
    None when it runs elsewhere."""
    backend = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    try:
        return int(Path(f"/proc/{backend}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _server_cpu(postmaster: int | None) -> float:
    """CPU seconds of the PostgreSQL server so far: its main process, its live children (the
    backends, the WAL writer...) and the children it reaped (``cutime``/``cstime``)."""
    if postmaster is None:
        return 0.0
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick


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
    """One process of ``throughput.pg_two_processes``: loads its games, prints "ready", reads
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
    """One process of ``throughput.pg_floor_two_processes``: for each of its games at once,
    the statements of a front end's step without the engine or the service (the view's
    statement; then, in one transaction, the locked read, the move row, the game row and two
    notification rows), with payloads of a step's size, on a pool of 15 connections (as many
    as SQLAlchemy's pool gave the service, 5 and 10 more when busy; the service now keeps 8 of
    its own, ``bot.db.PG_DRIVERS``). What PostgreSQL and the driver allow on this machine for
    those statements, to hold ``throughput.pg_two_processes`` against."""
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


