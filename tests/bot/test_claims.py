"""Claims on a game's background work (bot/service/claims.py, issue 13 item 3): two services
on one database, as two bot processes, race for a game's due deadline or built-in player's
turn; exactly one gets it, and a holder that dies (never releases) holds it no longer than
its lease.

Each test runs on a real SQLite file and, when ALCAZABA_TEST_PG_URL names a server, on a
PostgreSQL database of its own (created here and dropped at the end), where the two
services race for real (row locks, ``FOR UPDATE SKIP LOCKED``).
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import make_url

from bot.db import migrate_async
from bot.models import utcnow
from bot.service import GameService, ServiceError
from bot.settings import sqlite_url

PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")


def _sync(url: str, database: str | None = None) -> sa.URL:
    parsed = make_url(url).set(drivername="postgresql+psycopg2")
    return parsed.set(database=database) if database is not None else parsed


@pytest.fixture(scope="module")
def pg_database() -> Iterator[str]:
    """A PostgreSQL database of this module's own (asyncpg URL), migrated by its first user
    (the migration runs its own event loop, so it cannot run inside a test's)."""
    if not PG_URL:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set")
    name = f"alcazaba_claims_{os.getpid()}_{secrets.token_hex(3)}"
    admin = sa.create_engine(_sync(PG_URL, "postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
async def two(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[tuple[GameService, GameService]]:
    """Two services (two engines, as two processes would have) on one database."""
    if request.param == "sqlite":
        url = sqlite_url(tmp_path / "alcazaba.db")
    else:
        url = request.getfixturevalue("pg_database")
    await migrate_async(url)
    first, second = GameService.open(url), GameService.open(url)
    try:
        yield first, second
    finally:
        await first.close()
        await second.close()


async def running_games(service: GameService, count: int) -> list[int]:
    games = []
    for k in range(count):
        info = await service.create_game("toy", {"target": 20}, seed=k + 1, created_by=11, guild_id=1, channel_id=2)
        await service.join(info.id, 11, "Ann", "red")
        await service.join(info.id, 12, "Bob", "blue")
        await service.start(info.id)
        games.append(info.id)
    return games


@pytest.mark.parametrize("kind", ["deadline", "bots"])
async def test_two_processes_racing_for_the_same_work_one_gets_each_game(
        two: tuple[GameService, GameService], kind: str) -> None:
    a, b = two
    games = await running_games(a, 12)
    got_a, got_b = await asyncio.gather(a.claim_games(kind, "proc-a", games, 30),
                                        b.claim_games(kind, "proc-b", games, 30))
    assert got_a.isdisjoint(got_b) and got_a | got_b == set(games), (got_a, got_b)
    holders = {c.game_pk: c.claimed_by for c in await a.claims() if c.kind == kind and c.game_pk in games}
    assert holders == {**{g: "proc-a" for g in got_a}, **{g: "proc-b" for g in got_b}}
    # Again, both at once: each renews its own and takes none of the other's before its lease.
    for _ in range(2):
        again_a, again_b = await asyncio.gather(a.claim_games(kind, "proc-a", games, 30),
                                                b.claim_games(kind, "proc-b", games, 30))
        assert (again_a, again_b) == (got_a, got_b)
    # One at a time, too: the second claim of a single game fails while the first holds it.
    first, second = await asyncio.gather(a.claim_game(kind, "proc-c", games[0], 30),
                                         b.claim_game(kind, "proc-d", games[0], 30))
    assert not first and not second  # held by proc-a or proc-b since round 0


async def test_a_dead_holders_claim_passes_on_when_its_lease_ran_out_not_before(
        two: tuple[GameService, GameService]) -> None:
    a, b = two
    [game] = await running_games(a, 1)
    t0 = utcnow()
    assert await a.claim_game("bots", "proc-a", game, 30, now=t0)
    # proc-a dies: it never renews nor releases.
    assert not await b.claim_game("bots", "proc-b", game, 30, now=t0 + timedelta(seconds=29))
    assert not await b.claim_game("bots", "proc-b", game, 30, now=t0 + timedelta(seconds=30))
    assert await b.claim_game("bots", "proc-b", game, 30, now=t0 + timedelta(seconds=31))
    [claim] = await b.claims(game)
    assert (claim.claimed_by, claim.expires_at) == ("proc-b", t0 + timedelta(seconds=61))
    # Had proc-a only stalled, it finds its claim gone: no renewal, no release of another's.
    assert not await a.renew_claim("bots", "proc-a", game, 30, now=t0 + timedelta(seconds=32))
    assert not await a.release_claim("bots", "proc-a", game)
    assert [c.claimed_by for c in await a.claims(game)] == ["proc-b"]


async def test_a_living_holder_renews_its_claim_and_releases_it_when_done(
        two: tuple[GameService, GameService]) -> None:
    a, b = two
    [game] = await running_games(a, 1)
    t0 = utcnow()
    assert await a.claim_game("bots", "proc-a", game, 10, now=t0)
    # A search that thinks longer than the lease renews it while it thinks.
    for k in range(1, 6):
        assert await a.renew_claim("bots", "proc-a", game, 10, now=t0 + timedelta(seconds=5 * k))
        assert not await b.claim_game("bots", "proc-b", game, 10, now=t0 + timedelta(seconds=5 * k + 6))
    assert await a.release_claim("bots", "proc-a", game)
    [claim] = await a.claims(game)
    assert claim.claimed_by is None and claim.expires_at is None
    # Released: taken at once, well within what the lease would have been.
    assert await b.claim_game("bots", "proc-b", game, 10, now=t0 + timedelta(seconds=26))


async def test_the_kinds_of_work_are_claimed_apart(two: tuple[GameService, GameService]) -> None:
    a, b = two
    [game] = await running_games(a, 1)
    assert await a.claim_game("deadline", "proc-a", game, 30)
    assert await b.claim_game("bots", "proc-b", game, 30)
    assert {(c.kind, c.claimed_by) for c in await a.claims(game)} == {("deadline", "proc-a"), ("bots", "proc-b")}
    with pytest.raises(ServiceError, match="the kinds are deadline, bots"):
        await a.claim_game("outbox", "proc-a", game, 30)


async def test_a_game_that_is_gone_is_not_claimed(two: tuple[GameService, GameService]) -> None:
    a, _ = two
    games = await running_games(a, 1)
    assert await a.claim_games("deadline", "proc-a", [*games, 10_000], 30) == set(games)
    assert [c.game_pk for c in await a.claims(games[0])] == games
    assert await a.claims(10_000) == []


@pytest.mark.postgres
async def test_the_claim_skips_a_row_another_process_is_claiming_on_postgresql(pg_database: str) -> None:
    """SELECT ... FOR UPDATE SKIP LOCKED: while another process's claim transaction holds a
    game's claim row, a claim of several games returns the others at once, without waiting."""
    await migrate_async(pg_database)
    service, holder = GameService.open(pg_database), GameService.open(pg_database)
    statements: list[str] = []

    def spy(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(" ".join(statement.split()).upper())

    event.listen(service.db.sync_engine, "before_cursor_execute", spy)
    try:
        games = await running_games(service, 3)
        assert await service.claim_games("deadline", "probe", games, 30) == set(games)
        for game in games:
            assert await service.release_claim("deadline", "probe", game)
        claims = [s for s in statements if "FROM GAME_CLAIM" in s and "FOR UPDATE" in s]
        assert claims and all("SKIP LOCKED" in s for s in claims), statements
        async with holder.db.connect() as conn:
            trans = await conn.begin()
            await conn.execute(sa.text("SELECT game_pk FROM game_claim WHERE game_pk = :pk AND kind = 'deadline' "
                                       "FOR UPDATE"), {"pk": games[1]})
            taken = await asyncio.wait_for(service.claim_games("deadline", "other", games, 30), timeout=5)
            await trans.rollback()
        assert taken == {games[0], games[2]}
    finally:
        await service.close()
        await holder.close()
