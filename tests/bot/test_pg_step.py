"""What a step and a view cost PostgreSQL in round trips, counted on the driver: a view of a
hot game is one statement; a step of a hot game is two, its read without a lock and one
statement for all its writes, guarded by the game row as read and committing by itself
(bot/service/sql.py ``_PgWrite``). A game changed between the two (another process stepped
it, a thread was set) makes the guard find no row: nothing written, the step made again under
the game's lock, as when two steps met before, each message in the outbox once. Several
steps in one command (the built-in player's easy moves) update the game row once, and every
move is recorded at its own version. Runs when ALCAZABA_TEST_PG_URL names a scratch database."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from bot.db import PgDrivers
from bot.service import GameService, NotAllowed, StaleVersion
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


async def test_a_view_is_one_statement_and_a_step_two(counted: tuple[GameService, list[str]]) -> None:
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
    # the read, without a lock and outside any transaction; the one write, which commits by
    # itself and NOTIFYs the web pages (bot.web.live): two round trips (a transaction made four)
    assert [s.split()[0] for s in sent] == ["SELECT", "WITH"] and "FOR UPDATE" not in sent[0]
    write = sent[1]
    assert write.startswith("WITH g AS (UPDATE game SET ") and "AND game.version = $" in write
    assert write.endswith("SELECT pg_notify('alcazaba_moves', '') FROM g")
    # the move, the game row and the notifications (a line in the channel, a prompt to blue),
    # each in the database at the step's version
    assert all(f"INSERT INTO {table}" in write for table in ("move", "outbox"))
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
    # the first batch is one write: the game row updated once (at the last move's version),
    # every move and notification with it
    first = next(s for s in sent if s.startswith("WITH"))
    assert first.count("UPDATE game SET") == 1 and first.count("INSERT INTO move") > 2
    moves = await service.moves(info.id)
    assert [m["seq"] for m in moves] == [m.version for m in made]
    assert (await service.game(info.id)).version == made[-1].version
    assert (await service.replay_check(info.id)).ok


async def _two_services_at(counted: tuple[GameService, list[str]]) -> tuple[GameService, GameService, int]:
    """A game of Ann (red) and Bob (blue), hot in two services (two processes) at version 0."""
    service, _sent = counted
    other = GameService.open(PG_URL)
    info = await service.create_game("toy", {"target": 20}, seed=3, channel_id=5)
    await service.join(info.id, 7, "Ann", role="red")
    await service.join(info.id, 8, "Bob", role="blue")
    await service.start(info.id)
    for svc in (service, other):
        assert (await svc.view(info.id, "red", user_id=7)).version == 0
    return service, other, info.id


def _meanwhile(monkeypatch: pytest.MonkeyPatch, service: GameService, change: Callable[[], Awaitable[Any]]) -> None:
    """``change`` made (by another service) right after ``service``'s next step read its game
    without a lock, before it writes: two processes meeting at one game."""
    read = service._load_unlocked
    done: list[bool] = []

    async def then_change(session: Any, game_pk: int) -> Any:
        loaded = await read(session, game_pk)
        if not done:
            done.append(True)
            await change()
        return loaded

    monkeypatch.setattr(service, "_load_unlocked", then_change)


async def _outbox_keys(service: GameService, game_pk: int) -> list[str]:
    return [o.dedupe_key for o in await service.outbox(game_pk)]


async def test_a_step_meeting_another_is_refused_and_writes_nothing(
        counted: tuple[GameService, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    service, other, pk = await _two_services_at(counted)
    sent = counted[1]
    try:
        _meanwhile(monkeypatch, service, lambda: other.apply(pk, "red", {"type": "add", "n": 2}, 0, 7))
        sent.clear()
        with pytest.raises(StaleVersion) as refused:
            await service.apply(pk, "red", {"type": "add", "n": 1}, 0, 7)
        assert refused.value.version == 1
        # its guarded write found no row (the other's step moved the game), then it read the
        # game again under the lock and refused, as when two steps met in the lock
        mine = [s for s in sent if s.startswith("WITH g AS (UPDATE game")]
        assert len(mine) == 2  # the other's step, and this one's that found no row
        assert any(s.endswith("FOR UPDATE OF game") for s in sent[sent.index(mine[-1]):])
        moves = await service.moves(pk)
        assert [(m["seq"], m["action"]) for m in moves] == [(1, {"type": "add", "n": 2})]
        keys = await _outbox_keys(service, pk)
        assert len(keys) == len(set(keys)) and f"g{pk}:v1:turn:red" in keys
        # the service that lost reads the game's new state and steps from it
        step = await service.apply(pk, "red", {"type": "add", "n": 1}, 1, 7)
        assert step.version == 2 and (await service.replay_check(pk)).ok
    finally:
        await other.close()


async def test_a_step_meeting_a_change_of_thread_is_made_again_under_the_lock(
        counted: tuple[GameService, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """A change that moves no version (the game's thread set, a seat handed over) changes the
    game row's ``updated_at``, which the guard checks too: the step is made again under the
    lock, reads the new thread, and its line goes there, once."""
    service, other, pk = await _two_services_at(counted)
    try:
        _meanwhile(monkeypatch, service, lambda: other.set_place(pk, thread_id=99))
        step = await service.apply(pk, "red", {"type": "bank"}, 0, 7)
        assert step.version == 1
        assert [m["seq"] for m in await service.moves(pk)] == [1]
        lines = [o for o in await service.outbox(pk) if o.payload.get("version") == 1]
        assert sorted((o.kind, o.recipient) for o in lines) == [("channel", "99"), ("dm", "8")]
    finally:
        await other.close()


async def test_a_step_meeting_a_seat_handed_over_is_refused(
        counted: tuple[GameService, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    service, other, pk = await _two_services_at(counted)
    try:
        _meanwhile(monkeypatch, service, lambda: other.hand_over(pk, "red", "The deadline passed"))
        with pytest.raises(NotAllowed, match="The built-in player holds the red seat"):
            await service.apply(pk, "red", {"type": "bank"}, 0, 7)
        assert await service.moves(pk) == []
    finally:
        await other.close()


class _AnswerLost(NotingConnection):
    """A connection that runs the first guarded write of a step (it commits on the server) and
    then drops before its answer arrives: PgDrivers.fetch sends it again on a fresh connection."""

    lost: list[bool] = []

    async def fetch(self, sql: str, *args: Any) -> Any:
        if not sql.startswith("WITH g AS (UPDATE game") or self.lost:
            return await super().fetch(sql, *args)
        self._note(sql)
        await self.conn.fetch(sql, *args)
        self.lost.append(True)
        await self.conn.close()
        raise asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation")


@pytest.mark.parametrize("expected", [0, None], ids=["with its version", "without a version"])
async def test_a_guarded_write_sent_twice_after_its_answer_was_lost_is_one_step(
        monkeypatch: pytest.MonkeyPatch, expected: int | None) -> None:
    """The write committed, the connection dropped before its answer, and the resend found the
    game at the step's own new version (no row: changed since the read). The step is done: not
    refused as stale, and (an order given without a version) not made a second time."""
    await fresh_pg_database()
    sent: list[str] = []
    connect = PgDrivers._connect
    monkeypatch.setattr(_AnswerLost, "lost", [])

    async def losing(self: PgDrivers) -> Any:
        return _AnswerLost(await connect(self), sent)

    monkeypatch.setattr(PgDrivers, "_connect", losing)
    service = GameService.open(PG_URL)
    try:
        info = await service.create_game("toy", {"target": 20}, seed=3, channel_id=5)
        await service.join(info.id, 7, "Ann", role="red")
        await service.join(info.id, 8, "Bob", role="blue")
        await service.start(info.id)
        assert (await service.view(info.id, "red", user_id=7)).version == 0
        if expected is not None:
            step = await service.apply(info.id, "red", {"type": "add", "n": 1}, expected, 7)
        else:  # a typed order for the game as it stands
            [step] = await service.apply_order(info.id, "red", "add 1", None, 7)
        assert _AnswerLost.lost == [True]
        assert len([s for s in sent if s.startswith("WITH g AS (UPDATE game")]) == 2  # sent twice
        assert step.version == 1
        assert [(m["seq"], m["action"]) for m in await service.moves(info.id)] == [(1, {"type": "add", "n": 1})]
        keys = await _outbox_keys(service, info.id)
        assert len(keys) == len(set(keys))
        assert (await service.replay_check(info.id)).ok
        assert (await service.apply(info.id, "red", {"type": "bank"}, 1, 7)).version == 2
    finally:
        await service.close()
