"""What a step and a view cost PostgreSQL in round trips, counted on the driver: a view of a
hot game is one statement; a step is BEGIN, the locked read, one statement for all its writes
(bot/service/sql.py ``_PgWrite``) and COMMIT. Several steps in one transaction (the
built-in player's easy moves) update the game row once per statement, and every move is
recorded at its own version. Runs when ALCAZABA_TEST_PG_URL names a scratch database."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.db import PgDrivers
from bot.service import GameService
from tests.bot.conftest import NotingConnection, fresh_pg_database

pytestmark = pytest.mark.postgres
PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")


@pytest.fixture
async def counted(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[GameService, list[str]]]:
    await fresh_pg_database()
    sent: list[str] = []
    connect = PgDrivers._connect

    async def counting(self: PgDrivers) -> Any:
        return NotingConnection(await connect(self), sent)

    monkeypatch.setattr(PgDrivers, "_connect", counting)
    service = GameService.open(PG_URL)
    yield service, sent
    await service.close()


async def test_a_view_is_one_statement_and_a_step_four(counted: tuple[GameService, list[str]]) -> None:
    service, sent = counted
    info = await service.create_game("toy", {"target": 20}, seed=3, channel_id=5)
    await service.join(info.id, 7, "Ann", role="red")
    await service.join(info.id, 8, "Bob", role="blue")
    await service.start(info.id)
    view = await service.view(info.id, "red", user_id=7)  # loads the game: not yet hot
    sent.clear()
    view = await service.view(info.id, "red", user_id=7)
    assert len(sent) == 1 and sent[0].startswith("SELECT game.id")
    sent.clear()
    step = await service.apply(info.id, "red", {"type": "bank"}, view.version, 7)
    # the commit carries the NOTIFY of the web pages (bot.web.live): still four round trips
    assert [s.split()[0] for s in sent] == ["BEGIN", "SELECT", "WITH", "NOTIFY"] and sent[-1].endswith("; COMMIT")
    assert sent[1].endswith("FOR UPDATE OF game")
    # the one write: the move, the game row and the notifications (a line in the channel, a
    # prompt to blue), each in the database at the step's version
    assert all(f"INSERT INTO {table}" in sent[2] for table in ("move", "outbox")) and "UPDATE game" in sent[2]
    moves = await service.moves(info.id)
    assert [(m["seq"], m["role"]) for m in moves] == [(step.version, "red")]
    claimed = await service.claim_outbox("w", limit=10)
    assert sorted((o.kind, o.payload["type"]) for o in claimed if o.payload.get("version") == step.version) == [
        ("channel", "log"), ("dm", "your_turn")]
    assert (await service.game(info.id)).version == step.version == 1


async def test_easy_moves_in_one_transaction_each_at_its_version(counted: tuple[GameService, list[str]]) -> None:
    service, sent = counted
    info = await service.create_game("toy", {"target": 8}, seed=11, channel_id=5)
    await service.start(info.id, fill_with_bots=True)
    await service.set_levels(info.id, {"red": "easy", "blue": "easy"})
    sent.clear()
    made = await service.play_bots(info.id, batch=20)
    assert len(made) > 2 and [m.version for m in made] == list(range(1, len(made) + 1))
    # the first batch shares one transaction, its game row updated once per statement
    first_commit = next(i for i, s in enumerate(sent) if s.endswith("COMMIT"))  # with the web pages' NOTIFY
    writes = [s for s in sent[:first_commit] if s.startswith("WITH") or s.startswith("UPDATE")]
    assert len(writes) >= 2 and all(s.count("UPDATE game SET") == 1 for s in writes)
    moves = await service.moves(info.id)
    assert [m["seq"] for m in moves] == [m.version for m in made]
    assert (await service.game(info.id)).version == made[-1].version
    assert (await service.replay_check(info.id)).ok
