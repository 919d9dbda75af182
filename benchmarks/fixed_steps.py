"""The throughput loop's fixed work, for counting a service step's instructions (issue 33).

``throughput.steps_per_s`` counts the steps of a few seconds, which a loaded machine halves; a
change of a few per cent in a step shows only in a count of instructions of the same work.
This plays the loop of ``benchmarks.service.throughput`` (200 running Granada games of the
bench's store in turns, each step as a front end makes it: ``front_end_step``, after
WARMUP_STEPS unmeasured steps per game) for a fixed number of steps, and prints the CPU time
per step. Under valgrind's callgrind started with ``--instr-atstart=no``, instructions are
counted over the measured steps only (``callgrind_control`` switches counting on after the
warm-up and off before the service closes)::

    .venv/bin/python -m benchmarks.fixed_steps build /tmp/fixed
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/tmp/fixed/cg \\
        .venv/bin/python -m benchmarks.fixed_steps run /tmp/fixed 300
    grep ^totals /tmp/fixed/cg        # instructions of 300 steps

To compare two commits on the very same steps, run this file by its path with
``PYTHONPATH=<the other commit's tree>`` (and ``PYTHONHASHSEED=0``): the store, the games and
the players' choices are fixed, so both make the same steps (the printed ``check`` says so).

What one part of a step costs in place (its memos as the loop leaves them, across 200
games, which a measurement of the part alone would not see): ``run --twice PART`` does that
part twice at every step, one answer thrown away, and the difference of the totals is its
instructions (a lower bound: the second call finds what the first remembered). Each part
gives the same answer twice, so the steps stay the same (``check``): ``view`` (the game's own
view, ``engine.api.Game.own_view``) and ``forced`` (the check for a forced step after each
step, ``ServiceCore._forced_next``). Measured so in session 22 (issue 33), of some 5.3
million instructions a step: the view about 1.2 million, the forced check about 0.5; in
session 24, of some 4.4 million: the view about 1.0 million."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import engine
from benchmarks.common import CONCURRENT_GAMES, Bench, Plan
from benchmarks.service import front_end_step, warm_up
from engine.rng import Generator

GAME = "granada"


def build(where: Path) -> None:
    """The bench's store (``--quick``'s) in ``where``, with the games the loop plays."""
    from benchmarks.store import build_store

    work = where / "build"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    bench = Bench(Plan.make(True), work, lambda _line: None)
    bench.prepare_empty_db()
    path, templates = asyncio.run(build_store(bench))
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    module, states = engine.get(GAME), templates[GAME]
    running = [pk for pk, src in con.execute(
        "SELECT g.id, m.src FROM game g JOIN bench_source m ON m.id = g.id "
        "WHERE g.status = 'running' AND g.game_id = ? ORDER BY g.id", (GAME,)) if module.result(states[src]) is None]
    seats = [list(row) for row in con.execute("SELECT game_pk, role, user_id FROM seat")]
    con.close()
    shutil.copyfile(path, where / "store.db")
    (where / "games.json").write_text(json.dumps({"games": running[-CONCURRENT_GAMES:], "seats": seats}))
    shutil.rmtree(work)


def _callgrind(switch: str) -> None:
    """Counting on or off, when this process runs under callgrind (else nothing happens)."""
    subprocess.run(["callgrind_control", "-i", switch, str(os.getpid())], capture_output=True, check=False)


async def _loop(db: Path, games: list[int], seats: dict[tuple[int, str], int], steps: int) -> dict[str, Any]:
    from bot.service import GameService
    from bot.settings import sqlite_url

    service = GameService.open(sqlite_url(db))
    left = steps
    warm = asyncio.Event()
    warming = len(games)
    out: dict[str, Any] = {"check": 0, "steps": 0}

    async def player(pk: int, seed: int) -> None:
        nonlocal left, warming
        pick = Generator(seed)
        active: list[str] = []
        try:
            active = await warm_up(service, pk, pick, seats)
        finally:
            warming -= 1
            if warming == 0:
                _callgrind("on")
                out["cpu"] = time.process_time()
                warm.set()
        await warm.wait()
        while left > 0 and active:
            left -= 1
            step = await front_end_step(service, pk, active, pick, seats)
            if step is None:
                return
            out["check"] += step.version * pk
            out["steps"] += 1
            active = list(step.active)
            await asyncio.sleep(0)

    try:
        await asyncio.gather(*(player(pk, i) for i, pk in enumerate(games)))
        out["cpu"] = time.process_time() - out["cpu"]
        _callgrind("off")
    finally:
        await service.close()
    return out


TWICE = ("view", "forced")


def _twice(part: str) -> None:
    """Do ``part`` (one of :data:`TWICE`) twice wherever the service does it (see above)."""
    if part == "view":
        game = engine.get(GAME)
        own = game.own_view

        def view_twice(state: Any, role: str | None) -> Any:
            own(state, role)
            return own(state, role)

        game.own_view = view_twice
    elif part == "forced":
        from bot.service.core import ServiceCore

        forced_next = ServiceCore._forced_next

        def forced_twice(loaded: Any, state: Any) -> Any:
            forced_next(loaded, state)
            return forced_next(loaded, state)

        ServiceCore._forced_next = staticmethod(forced_twice)  # type: ignore[method-assign]
    else:
        raise ValueError(f"--twice: one of {', '.join(TWICE)}, not {part!r}")


def run(where: Path, steps: int, twice: str | None = None) -> None:
    """``steps`` steps of the loop on a copy of the store built in ``where`` (``twice``: a part
    done twice at every step, see above)."""
    if twice is not None:
        _twice(twice)
    meta = json.loads((where / "games.json").read_text())
    work = where / f"run{os.getpid()}"
    work.mkdir()
    try:
        db = work / "store.db"
        shutil.copyfile(where / "store.db", db)
        seats = {(pk, role): uid for pk, role, uid in meta["seats"]}
        # Under valgrind everything is some fifty times slower: the 200 games' first looks
        # must not time out waiting for a pooled connection.
        import sqlalchemy.pool.impl

        patient = sqlalchemy.pool.impl.QueuePool.__init__

        def never_timing_out(pool: Any, *args: Any, **kwargs: Any) -> None:
            patient(pool, *args, **kwargs)
            pool._timeout = 1e6

        sqlalchemy.pool.impl.QueuePool.__init__ = never_timing_out  # type: ignore[method-assign,assignment]
        out = asyncio.run(_loop(db, meta["games"], seats, steps))
    finally:
        shutil.rmtree(work)
    print(json.dumps({"steps": out["steps"], "cpu_ms_per_step": round(1000 * out["cpu"] / max(1, out["steps"]), 3),
                      "check": out["check"]}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build").add_argument("where", type=Path)
    running = sub.add_parser("run")
    running.add_argument("where", type=Path)
    running.add_argument("steps", type=int)
    running.add_argument("--twice", choices=TWICE, help="do this part of a step twice (its instructions, in place)")
    args = parser.parse_args()
    if args.command == "build":
        build(args.where)
    else:
        run(args.where, args.steps, args.twice)


if __name__ == "__main__":
    main()
