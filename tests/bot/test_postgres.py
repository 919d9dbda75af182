"""The service on PostgreSQL (asyncpg). Runs when ALCAZABA_TEST_PG_URL names a scratch
database (its tables are dropped and re-created), e.g.
``ALCAZABA_TEST_PG_URL=postgresql+asyncpg://postgres@127.0.0.1:5432/alcazaba_test``."""

from __future__ import annotations

import asyncio
import os

import pytest

from bot.service import GameService, StaleVersion, UndoRefused
from engine.api import RuleError

pytestmark = pytest.mark.postgres
PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")


async def test_a_game_on_postgresql(pg_service: GameService) -> None:
    service = pg_service
    info = await service.create_game("toy", {"target": 5}, seed=2**62, channel_id=2**60, created_by=2**61)
    await service.join(info.id, 2**61, "Ann")
    await service.join(info.id, 2**61 + 1, "Bob")
    await service.start(info.id)
    step = await service.apply(info.id, "red", {"type": "add", "n": 2}, 0, 2**61)
    with pytest.raises(StaleVersion):
        await service.apply(info.id, "red", {"type": "add", "n": 2}, 0, 2**61)
    with pytest.raises(RuleError):
        await service.apply(info.id, "red", {"type": "add", "n": 9}, 1, 2**61)
    step = await service.undo(info.id, "red", step.version, 2**61)
    step = await service.apply(info.id, "red", {"type": "draw"}, step.version, 2**61)
    with pytest.raises(UndoRefused):
        await service.undo(info.id, "red", step.version, 2**61)
    # two orders racing for the same version: one wins
    other = GameService.open(PG_URL)
    try:
        outcomes = await asyncio.gather(
            service.apply(info.id, "red", {"type": "add", "n": 1}, step.version, 2**61),
            other.apply(info.id, "red", {"type": "add", "n": 2}, step.version, 2**61),
            return_exceptions=True,
        )
    finally:
        await other.close()
    assert sorted(type(o).__name__ for o in outcomes) == ["StaleVersion", "StepResult"]
    assert (await service.replay_check(info.id)).ok
    data = await service.export(info.id)
    copy = await service.import_game(data)
    assert (await service.state(copy))[1] == (await service.state(info.id))[1]
    claimed = await service.claim_outbox("w1", limit=100)
    assert claimed and await service.claim_outbox("w2") == []
    assert all(await asyncio.gather(*(service.mark_sent(o.id, "w1") for o in claimed)))


async def test_a_new_deadline_wakes_the_live_pages_of_another_process(pg_service: GameService,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A deadline set by the scheduler (``set_schedule``) is part of what an open page shows
    (its change stamp): its commit NOTIFYs the pages' channel, as a move's does, so that the
    watcher of another service, which polls only every minute here, reads it at once."""
    from datetime import timedelta

    from bot.models import utcnow
    from bot.service.web import stamp_of
    from bot.web import live

    monkeypatch.setattr(live, "PG_POLL_S", 60.0)
    service = pg_service
    info = await service.create_game("toy", {"target": 5}, seed=3, created_by=2**61)
    await service.join(info.id, 2**61, "Ann")
    await service.join(info.id, 2**61 + 1, "Bob")
    await service.start(info.id)
    pages = GameService.open(PG_URL)
    watcher = live.Watcher(pages)
    await watcher.start()
    try:
        assert watcher._listener is not None, "the watcher LISTENs on PostgreSQL"
        async with watcher.watching(info.id):
            # A move NOTIFYs: the watcher reads the game's stamp as it stands.
            waiting = asyncio.create_task(watcher.changed(info.id, 10.0))
            await asyncio.sleep(0.2)
            await service.apply(info.id, "red", {"type": "add", "n": 1}, 0, 2**61)
            assert await waiting, "a move reaches the pages"
            for change in ({"deadline_at": utcnow() + timedelta(hours=5)}, {"clear_deadline": True}):
                waiting = asyncio.create_task(watcher.changed(info.id, 10.0))
                await asyncio.sleep(0.2)
                await service.set_schedule(info.id, **change)  # type: ignore[arg-type]
                assert await waiting, f"set_schedule({change}) did not reach the pages"
                assert watcher._stamps[info.id] == stamp_of(await service.game(info.id))
    finally:
        await watcher.stop()
        await pages.close()
