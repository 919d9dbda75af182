"""A thread's notifications are claimed together, by one worker at a time, and marked sent
together (``claim_outbox(together=...)``, ``mark_all_sent``): what the Discord worker needs
so that a group it posts holds every unsent row of its thread, in order, and a dead
worker's half-posted group is taken over whole (bot/discord/cogs/delivery.py). A real SQLite
file (and PostgreSQL when ALCAZABA_TEST_PG_URL is set), several workers by name, as several
processes would claim."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlmodel import col

from bot.models import Outbox, utcnow
from bot.service import GameService
from bot.settings import sqlite_url
from tests.databases import migrated_sqlite
from tests.reliability import hammer
from tests.reliability.conftest import PG_SKIP, PG_URL

TOGETHER = ("channel",)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=[
    pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=PG_SKIP)])])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgresql":
        url: str = request.getfixturevalue("pg_clean")
        return url
    return sqlite_url(migrated_sqlite(tmp_path / "outbox.db"))


@pytest.fixture
async def service(db_url: str) -> AsyncIterator[GameService]:
    svc = GameService.open(db_url)
    yield svc
    await svc.close()


async def banked(svc: GameService, pk: int, times: int) -> None:
    """``times`` turns of the toy race, each banking (one thread row and one DM row each)."""
    for _ in range(times):
        info = await svc.game(pk)
        role = info.active[0]
        seat = info.seat(role)
        assert seat is not None
        await svc.apply(pk, role, {"type": "bank"}, info.version, seat.user_id)


async def claimed_at(svc: GameService, item_id: int, seconds_ago: float) -> None:
    """Move a claim back in time (a worker that claimed the row earlier, then died)."""
    async with svc.writing() as session:
        await session.execute(sa.update(Outbox).where(col(Outbox.id) == item_id)
                              .values(claimed_at=utcnow() - timedelta(seconds=seconds_ago)))


async def test_a_second_worker_takes_no_row_of_a_thread_another_worker_holds(service: GameService) -> None:
    (pk,) = await hammer.make_games(service, 1)
    first = await service.claim_outbox("a", limit=100, together=TOGETHER)
    assert [o.kind for o in first] == ["channel", "dm"]
    await banked(service, pk, 1)
    other = await service.claim_outbox("b", limit=100, together=TOGETHER)
    assert [o.kind for o in other] == ["dm"], "the thread's new row waits for the worker holding its older one"
    more = await service.claim_outbox("a", limit=100, together=TOGETHER)
    assert [o.kind for o in more] == ["channel"]
    # Without ``together`` a row is anyone's (the old behaviour, kept for other callers).
    await banked(service, pk, 1)
    anyone = await service.claim_outbox("b", limit=100)
    assert [o.kind for o in anyone] == ["channel", "dm"]


async def test_a_dead_workers_thread_rows_are_taken_over_all_at_once(service: GameService) -> None:
    (pk,) = await hammer.make_games(service, 1)
    await banked(service, pk, 2)
    rows = [o for o in await service.outbox(pk) if o.kind == "channel"]
    assert len(rows) == 3
    dead = await service.claim_outbox("dead", limit=100, kinds=TOGETHER, together=TOGETHER)
    assert [o.id for o in dead] == [o.id for o in rows]
    # It claimed them in three passes: the claims run out one at a time.
    for row, ago in zip(rows, (50.0, 40.0, 5.0), strict=True):
        await claimed_at(service, row.id, ago)
    await banked(service, pk, 1)  # a fourth thread row, free
    lease = 30.0
    taken = await service.claim_outbox("new", limit=100, lease_seconds=lease, together=TOGETHER)
    assert [o.kind for o in taken] == ["dm", "dm", "dm", "dm"], "no thread row while one is still the dead's"
    await claimed_at(service, rows[2].id, 40.0)  # now the last claim ran out too
    taken = await service.claim_outbox("new", limit=100, lease_seconds=lease, together=TOGETHER)
    assert [o.id for o in taken] == [o.id for o in rows] + [
        o.id for o in await service.outbox(pk, pending_only=True) if o.kind == "channel" and o.id > rows[-1].id]
    assert len(taken) == 4


async def test_a_row_waiting_for_a_retry_holds_back_its_thread(service: GameService) -> None:
    (pk,) = await hammer.make_games(service, 1)
    (started,) = await service.claim_outbox("a", limit=100, kinds=TOGETHER, together=TOGETHER)
    assert await service.mark_failed(started.id, "a", "HTTP 503", retry_in_seconds=60)
    await banked(service, pk, 1)
    assert await service.claim_outbox("b", limit=100, kinds=TOGETHER, together=TOGETHER) == [], \
        "a later line must not overtake the one Discord refused"
    async with service.writing() as session:  # a minute later
        await session.execute(sa.update(Outbox).where(col(Outbox.id) == started.id)
                              .values(next_attempt_at=utcnow() - timedelta(seconds=1)))
    both = await service.claim_outbox("b", limit=100, kinds=TOGETHER, together=TOGETHER)
    assert [o.payload["type"] for o in both] == ["started", "log"]


async def test_a_group_is_marked_sent_at_once_and_only_by_its_claimer(service: GameService) -> None:
    (pk,) = await hammer.make_games(service, 1)
    await banked(service, pk, 2)
    group = await service.claim_outbox("a", limit=100, kinds=TOGETHER, together=TOGETHER)
    ids = [o.id for o in group]
    assert len(ids) == 3
    assert await service.mark_all_sent(ids, "b") == 0
    assert await service.mark_all_sent(ids, "a") == 3
    assert await service.mark_all_sent(ids, "a") == 0, "already sent"
    assert not [o for o in await service.outbox(pk, pending_only=True) if o.kind == "channel"]
