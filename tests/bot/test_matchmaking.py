"""Matchmaking's pairing and sides (pure, hand-worked), and its tickets in the service: one
per member and pool, expiry by pace, and two processes matching the same tickets at once
never use one twice (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.service import GameService, NotAllowed, ServiceError
from bot.service.matchmaking import Waiting, assign_sides, expiry, group_tickets
from bot.settings import sqlite_url

T0 = datetime(2026, 11, 27, 12, 0, 0)


def w(ticket: int, user: int, rating: float, minutes: int = 0) -> Waiting:
    return Waiting(ticket, user, rating, T0 + timedelta(minutes=minutes))


def test_pairs_are_the_closest_ratings_first() -> None:
    # Ratings 34, 32, 0, 4, 6, 21 (tickets in that order). Gaps in rating order 0-4-6-21-32-34:
    # 4, 2, 15, 11, 2. The two gaps of 2: (4, 6) and (32, 34); the pair waiting longest first
    # (ticket 1 is older than ticket 4). Left: 0 and 21.
    tickets = [w(1, 11, 34, 0), w(2, 12, 32, 1), w(3, 13, 0, 2), w(4, 14, 4, 3), w(5, 15, 6, 4), w(6, 16, 21, 5)]
    assert group_tickets(tickets, 2) == [[2, 1], [4, 5], [3, 6]]
    # Arrival order would have paired 34-32, 0-4, 6-21: not what a rating pairing does.


def test_groups_of_three_and_the_odd_one_waits() -> None:
    tickets = [w(1, 1, 10), w(2, 2, 11), w(3, 3, 30), w(4, 4, 12), w(5, 5, 31), w(6, 6, 50), w(7, 7, 32)]
    # Runs of three in rating order: 10-11-12 (spread 2), 30-31-32 (2); 50 waits.
    assert group_tickets(tickets, 3) == [[1, 2, 4], [3, 5, 7]]
    assert group_tickets([w(1, 1, 10)], 2) == []


def test_a_member_is_never_matched_with_himself() -> None:
    assert group_tickets([w(1, 7, 10), w(2, 7, 10)], 2) == []
    assert group_tickets([w(1, 7, 10), w(2, 7, 11), w(3, 8, 30)], 2) == [[2, 3]]


def test_sides_alternate() -> None:
    roles = ["christian", "muslim"]
    # Ann played the Christians twice and the Muslims once: she gets the Muslims, whoever asked first.
    assert assign_sides(roles, [(1, {}, None), (2, {"christian": 2, "muslim": 1}, "muslim")]) == \
        {2: "muslim", 1: "christian"}
    # Even histories: each avoids the side he played last.
    assert assign_sides(roles, [(1, {"christian": 1, "muslim": 1}, "muslim"),
                                (2, {"christian": 1, "muslim": 1}, "christian")]) == {1: "christian", 2: "muslim"}
    # Newcomers: the first ticket takes the first side.
    assert assign_sides(roles, [(5, {}, None), (6, {}, None)]) == {5: "christian", 6: "muslim"}
    # Three seats: each takes the side he played least.
    three = ["red", "blue", "green"]
    assert assign_sides(three, [(1, {"red": 2, "blue": 2}, "blue"), (2, {"red": 1}, "red"), (3, {}, None)]) == \
        {1: "green", 2: "blue", 3: "red"}


def test_expiry_by_pace() -> None:
    assert expiry("live") == timedelta(minutes=30)
    assert expiry("24h") == timedelta(days=2)
    assert expiry("7d") == timedelta(days=7)
    assert expiry("12h") == timedelta(days=1) and expiry("10d") == timedelta(days=10)


async def test_tickets_refusals_and_expiry(service: GameService) -> None:
    first = await service.seek(1, 10, "Ann", "navas", "24h", now=T0, channel_id=5)
    assert first.players == 2 and first.expires_at == T0 + timedelta(days=2)
    with pytest.raises(NotAllowed, match=f"waiting for that game already \\(ticket #{first.id}\\)"):
        await service.seek(1, 10, "Ann", "navas", "24h", now=T0)
    with pytest.raises(ServiceError, match="played by 2, not 3"):
        await service.seek(1, 10, "Ann", "navas", "48h", players=3, now=T0)
    with pytest.raises(NotAllowed, match="no ticket"):
        await service.cancel_ticket(1, 11, first.id)  # not his
    other = await service.seek(1, 10, "Ann", "navas", "live", now=T0)
    assert [t.id for t in await service.tickets(1, 10, now=T0)] == [first.id, other.id]
    assert await service.expire_tickets(T0 + timedelta(minutes=31)) == 1
    assert [t.id for t in await service.tickets(1, 10, now=T0 + timedelta(minutes=31))] == [first.id]
    await service.cancel_ticket(1, 10, first.id)
    assert await service.tickets(1, 10, now=T0) == []
    with pytest.raises(NotAllowed, match="cancelled already"):
        await service.cancel_ticket(1, 10, first.id)


async def _two_processes_match(url: str, service: GameService) -> None:
    for user in range(20, 28):
        await service.seek(1, user, f"p{user}", "navas", "24h", now=T0, channel_id=5)
    other = GameService.open(url)
    try:
        later = T0 + timedelta(minutes=1)
        made = await asyncio.gather(service.match_tickets(now=later, gather_seconds=30),
                                    other.match_tickets(now=later, gather_seconds=30))
    finally:
        await other.close()
    games = [m for batch in made for m in batch]
    players = [user for m in games for _role, user, _name in m.seats]
    assert len(games) == 4 and sorted(players) == list(range(20, 28))  # each ticket in one game, once
    matched = await service.tickets(1, status="matched")
    assert sorted(t.game_pk or 0 for t in matched) == sorted(m.game_pk for m in games for _ in range(2))


async def test_two_processes_never_match_a_ticket_twice(service: GameService, db_path: Path) -> None:
    await _two_processes_match(sqlite_url(db_path), service)


@pytest.mark.postgres
async def test_two_processes_never_match_a_ticket_twice_on_postgresql(pg_service: GameService) -> None:
    from tests.bot.conftest import PG_URL

    await _two_processes_match(PG_URL, pg_service)
