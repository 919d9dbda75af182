"""``ratings.rebuild``: how fast ``alcazaba ratings rebuild`` replays the rated games."""

from __future__ import annotations

import time

from benchmarks.common import (
    SEAT_USER_BASE,
    Bench,
    figure,
)


async def ratings_figures(bench: Bench) -> None:
    """``ratings.rebuild``: rated games replayed per second by ``alcazaba ratings rebuild``
    (bot/service/ratings.py) on a database of 1,000 finished 1212 games (200 with --quick)
    among 16 members of two servers, each ended by a resignation; checked to reproduce the
    stored ratings exactly."""
    import random

    import sqlalchemy as sa

    from bot.service import GameService
    from bot.service.ratings import rebuild_sync
    from bot.settings import sqlite_url

    games = 200 if bench.plan.quick else 1000
    path = bench.migrated_copy("ratings.db")
    service = GameService.open(sqlite_url(path))
    chooser = random.Random(29)
    try:
        for _ in range(games):
            a, b = chooser.sample(range(16), 2)
            info = await service.create_game("navas", {}, seed=chooser.randrange(1 << 30),
                                             guild_id=chooser.choice((1, 2)))
            await service.join(info.id, SEAT_USER_BASE + a, f"p{a}", "christian")
            await service.join(info.id, SEAT_USER_BASE + b, f"p{b}", "muslim")
            await service.start(info.id)
            loser = chooser.choice(("christian", "muslim"))
            await service.resign(info.id, loser, SEAT_USER_BASE + (a if loser == "christian" else b))
    finally:
        await service.close()
    engine_ = sa.create_engine(f"sqlite:///{path}")
    rates: list[float] = []
    try:
        for _ in range(3 if bench.plan.quick else 5):
            with engine_.begin() as conn:
                s0 = time.perf_counter()
                report = rebuild_sync(conn)
                rates.append(report.games / (time.perf_counter() - s0))
            if report.differed or report.games != games:
                raise RuntimeError(f"the rebuild did not reproduce the stored ratings: {report}")
    finally:
        engine_.dispose()
    bench.emit(figure("ratings.rebuild", "games/s", rates, games=games, ratings=report.ratings,
                     note="every rating made again from the rated games, in order; reproduced exactly"))

