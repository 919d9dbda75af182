"""Two bot processes sharing one PostgreSQL database, as two shards would (issue 6, "Beyond
one machine"): both apply moves correctly (the version check holds across processes) and
never deliver the same notification twice (claims take row locks with
``FOR UPDATE SKIP LOCKED``, so two workers neither wait for each other nor take the same
row). Skipped, with the reason, when ALCAZABA_TEST_PG_URL is unset.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from bot.service import GameService
from tests.reliability import hammer
from tests.reliability.conftest import PG_SKIP, PG_URL
from tests.reliability.test_concurrency import run_racers

pytestmark = [pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=PG_SKIP)]


async def test_two_processes_play_and_deliver_on_one_postgresql(pg_clean: str, tmp_path: Path) -> None:
    service = GameService.open(pg_clean)
    try:
        games = await hammer.make_games(service, 4, seed=70)
        events = await asyncio.to_thread(run_racers, pg_clean, games, tmp_path, 2, True)
        assert [e for e in events if e["event"] == "stale"], "the processes never collided"
        for worker in ("proc0", "proc1"):
            assert [e for e in events if e["event"] == "ok" and e["worker"] == worker], f"{worker} never moved"
            assert [e for e in events if e["event"] == "delivered" and e["worker"] == worker], \
                f"{worker} never delivered: the test did not exercise two couriers"
        problems: list[str] = []
        for pk in games:
            assert (await service.game(pk)).status == "finished"
            problems += await hammer.check_game(service, pk, events)
        rows = {o.id for pk in games for o in await service.outbox(pk)}
        problems += hammer.check_deliveries(events, rows)
        assert problems == []
        assert await service.outbox(pending_only=True) == []
    finally:
        await service.close()


async def test_outbox_claim_locks_rows_and_skips_locked_ones(pg_clean: str) -> None:
    """The claim query itself: SELECT ... FOR UPDATE SKIP LOCKED on PostgreSQL. And while one
    worker's claim transaction holds its rows, another worker's claim returns the other rows
    at once instead of waiting or taking the same ones."""
    service = GameService.open(pg_clean)
    statements: list[str] = []

    def spy(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(" ".join(statement.split()).upper())

    event.listen(service.db.sync_engine, "before_cursor_execute", spy)
    holder = GameService.open(pg_clean)
    try:
        games = await hammer.make_games(service, 3)
        pending = await service.outbox(pending_only=True)
        assert len(pending) >= 6
        await service.claim_outbox("probe", limit=1)
        claims = [s for s in statements if "FROM OUTBOX" in s and "FOR UPDATE" in s]
        assert claims and all("SKIP LOCKED" in s for s in claims), statements
        # Hold row locks on the two oldest unclaimed rows in an open transaction, as a slow
        # worker in the middle of its claim would.
        async with holder.db.connect() as conn:
            trans = await conn.begin()
            held = list((await conn.execute(sa.text(
                "SELECT id FROM outbox WHERE sent_at IS NULL AND claimed_at IS NULL ORDER BY id LIMIT 2 "
                "FOR UPDATE"))).scalars())
            assert len(held) == 2
            taken = await asyncio.wait_for(service.claim_outbox("other", limit=100), timeout=5)
            await trans.rollback()
        ids = {o.id for o in taken}
        assert ids and not ids & set(held), (held, ids)
        assert ids == {o.id for o in pending} - set(held) - {o.id for o in pending[:1]}
        assert games
    finally:
        await holder.close()
        await service.close()
