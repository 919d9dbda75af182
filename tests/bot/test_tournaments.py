"""Tournaments in the service (issue 29): an 8-player Swiss of 1212, a 5-player round robin
of Granada, 7 players in pods of Dirk Henn's Granada, withdrawal, and a round made exactly
once, also when the process making it is killed (SIGKILL) and started again."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from bot.models import utcnow
from bot.service import GameService, NotAllowed, ServiceError

GUILD = 9
ROOT = Path(__file__).resolve().parents[2]


async def signed_up(service: GameService, game_id: str, fmt: str, count: int, rounds: int = 3,
                    **options: object) -> int:
    info = await service.create_tournament(GUILD, 1, game_id, fmt, rounds, "72h", dict(options), channel_id=5)
    for user in range(1, count + 1):
        await service.join_tournament(info.id, user, f"p{user}")
    return info.id


async def resign_losers(service: GameService, tid: int, winners: set[int]) -> None:
    """End every game of the current round: the player not in ``winners`` resigns."""
    for table in await service.tables(tid):
        if table.game_pk is None:
            continue
        info = await service.game(table.game_pk)
        if info.status != "running":
            continue
        loser = next(u for u in table.players if u not in winners)
        await service.resign(table.game_pk, info.roles_of(loser)[0], loser)


async def test_an_eight_player_swiss(service: GameService) -> None:
    # Ratings: players 1..8 from the strongest (seeds decide the first round's order).
    with sqlite3.connect(service.db.url.database or "") as conn:
        for user in range(1, 9):
            conn.execute("INSERT INTO rating VALUES (?, 'navas', ?, ?, ?, 2.0, 5, 2, '', '2026-11-01')",
                         (GUILD, f"u:{user}", user, 40.0 - user))
    tid = await signed_up(service, "navas", "swiss", 8)
    with pytest.raises(NotAllowed, match="creator or a server manager"):
        await service.start_tournament(tid, by=5)
    await service.start_tournament(tid, by=1)
    with pytest.raises(NotAllowed, match="sign-up is closed"):
        await service.join_tournament(tid, 99, "late")

    def pairs() -> list[list[int]]:
        return [t.players for t in tables]

    tables = await service.tables(tid)
    assert pairs() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    # Seats: the first player of a pair holds the game's first role (christian).
    first = await service.game(tables[0].game_pk or 0)
    assert first.seat("christian").user_id == 1 and first.status == "open"  # type: ignore[union-attr]
    for t in tables:  # the front end opens (starts) them
        await service.start(t.game_pk or 0)
    await resign_losers(service, tid, {1, 4, 5, 8})
    assert await service.advance_tournament(tid) is not None
    tables = await service.tables(tid)
    assert pairs() == [[4, 1], [8, 5], [2, 3], [6, 7]]  # as tests/bot/test_pairing.py works it out
    for t in tables:
        await service.start(t.game_pk or 0)
    assert await service.advance_tournament(tid) is None  # games still running
    await resign_losers(service, tid, {4, 5, 2, 7})
    await service.advance_tournament(tid)
    table = await service.tournament_standings(tid)
    # 4 and 5: 2 points (Buchholz 4: 0 + 1 = 1; 5: 0 + 1 = 1; Sonneborn-Berger equal; rating: 4).
    assert [(line.user_id, line.points) for line in table][:2] == [(4, 2.0), (5, 2.0)]
    tables = await service.tables(tid)
    assert sorted(sorted(p) for p in pairs()) == [[1, 8], [2, 7], [3, 6], [4, 5]]
    for t in tables:
        await service.start(t.game_pk or 0)
    await resign_losers(service, tid, {5, 1, 2, 6})
    done = await service.advance_tournament(tid)
    assert done is not None and done.next is None
    final = await service.tournament_standings(tid)
    assert [(line.rank, line.user_id, line.points) for line in final][:2] == [(1, 5, 3.0), (2, 1, 2.0)]
    assert (await service.tournament(tid)).status == "finished"
    # Tournament games count for ratings.
    assert (await service.ratings_of(GUILD, 5, "navas"))[0].rating.games == 8


async def test_a_round_robin_with_a_withdrawal(service: GameService) -> None:
    tid = await signed_up(service, "granada", "round_robin", 5, rounds=1)
    info = await service.start_tournament(tid, by=1)
    assert info.rounds == 5  # the circle's rounds, whatever was asked
    tables = await service.tables(tid)
    assert [t.players for t in tables] == [[5, 2], [3, 4], [1]]  # circle method; 1 has the bye
    for t in tables:
        if t.game_pk:
            await service.start(t.game_pk)
    running = await service.withdraw(tid, 4)
    assert running == [tables[1].game_pk]
    info4 = await service.game(running[0])
    await service.resign(running[0], info4.roles_of(4)[0], 4)
    await resign_losers(service, tid, {5})
    await service.advance_tournament(tid)
    second = await service.tables(tid)
    # Round 2: 5-1 and 2-3; 4 (withdrawn) has the bye of the circle, which he does not get.
    assert [t.players for t in second] == [[5, 1], [2, 3]]
    with pytest.raises(NotAllowed, match="withdrew"):
        await service.withdraw(tid, 4)
    table = {line.user_id: line for line in await service.tournament_standings(tid)}
    assert table[3].points == 1.0 and table[4].points == 0.0 and table[4].withdrawn and table[1].points == 1.0


async def test_pods_of_three_and_four(service: GameService) -> None:
    tid = await signed_up(service, "granada_city", "pods", 7, rounds=2, players=4)
    await service.start_tournament(tid, by=1)
    tables = await service.tables(tid)
    assert [t.players for t in tables] == [[1, 2, 3, 4], [5, 6, 7]]
    small = await service.game(tables[1].game_pk or 0)
    assert small.options["players"] == 3 and [s.user_id for s in small.seats] == [5, 6, 7]


async def test_a_game_running_at_the_rounds_limit_is_a_shared_result(service: GameService) -> None:
    info = await service.create_tournament(GUILD, 1, "navas", "swiss", 2, "1h", channel_id=5)
    for user in (1, 2, 3, 4):
        await service.join_tournament(info.id, user, f"p{user}")
    await service.start_tournament(info.id, by=1)
    tables = await service.tables(info.id)
    for t in tables:
        await service.start(t.game_pk or 0)
    await service.resign(tables[0].game_pk or 0, "muslim", 2)  # 1 beats 2; the game of 3 and 4 runs on
    began = utcnow()
    assert await service.settle_round(info.id, began + timedelta(hours=39)) == []  # 40 moves of 1 h
    assert await service.settle_round(info.id, began + timedelta(hours=41)) == [tables[1].game_pk]
    assert (await service.game(tables[1].game_pk or 0)).status == "aborted"
    await service.advance_tournament(info.id)
    points = {line.user_id: line.points for line in await service.tournament_standings(info.id)}
    assert points == {1: 1.0, 2: 0.0, 3: 0.5, 4: 0.5}


async def test_a_round_is_made_once(service: GameService) -> None:
    tid = await signed_up(service, "navas", "swiss", 4)
    await service.start_tournament(tid, by=1)
    assert await service.make_round(tid, 1) is False
    assert len(await service.tables(tid, 1)) == 2


_CHILD = """
import asyncio, sys
from bot.service import GameService
from bot.settings import sqlite_url

async def main():
    service = GameService.open(sqlite_url(sys.argv[1]))
    print("ready", flush=True)
    await service.start_tournament(int(sys.argv[2]), by=1)
    print("started", flush=True)
    await service.close()

asyncio.run(main())
"""


def _counts(db: Path, tid: int) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        rounds = conn.execute("SELECT count(*) FROM tournament_round WHERE tournament_id = ?", (tid,)).fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM tournament_game WHERE tournament_id = ?", (tid,)).fetchone()[0]
        games = conn.execute("SELECT count(*) FROM game").fetchone()[0]
    return rounds, tables, games


@pytest.mark.slow
async def test_a_process_killed_while_making_a_round_leaves_it_whole_or_absent(service: GameService,
                                                                             db_path: Path) -> None:
    tid = await signed_up(service, "navas", "swiss", 64)
    killed_midway = 0
    for attempt in range(12):
        child = subprocess.Popen([sys.executable, "-c", _CHILD, str(db_path), str(tid)], cwd=ROOT,
                                 stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready"
        await asyncio.sleep(0.02 * attempt)
        child.send_signal(signal.SIGKILL)
        child.wait()
        rounds, tables, games = _counts(db_path, tid)
        assert (rounds, tables, games) in ((0, 0, 0), (1, 32, 32)), (rounds, tables, games)
        if rounds:
            break
        killed_midway += 1
    assert killed_midway, "no kill landed before the round was made"
    # Started again (by this process, as a restarted bot would): the round exists once.
    if _counts(db_path, tid)[0] == 0:
        await service.start_tournament(tid, by=1)
    assert await service.make_round(tid, 1) is False
    assert _counts(db_path, tid) == (1, 32, 32)


async def test_sign_up_refusals(service: GameService) -> None:
    with pytest.raises(ServiceError, match="swiss pairs two players"):
        await service.create_tournament(GUILD, 1, "granada_city", "swiss", 3, "72h")
    with pytest.raises(ServiceError, match="Pods are tables of 3 to 6"):
        await service.create_tournament(GUILD, 1, "navas", "pods", 3, "72h")
    tid = await signed_up(service, "navas", "swiss", 64)
    with pytest.raises(NotAllowed, match="is full \\(64 players\\)"):
        await service.join_tournament(tid, 65, "p65")
    with pytest.raises(NotAllowed, match="signed up for tournament #1 already"):
        await service.join_tournament(tid, 3, "p3")
    with pytest.raises(NotAllowed, match="not signed up"):
        await service.leave_tournament(tid, 99)
    await service.leave_tournament(tid, 64)
    assert len((await service.tournament(tid)).players) == 63


async def _two_processes_advance(service: GameService, url: str) -> None:
    tid = await signed_up(service, "navas", "swiss", 4, rounds=2)
    await service.start_tournament(tid, by=1)
    for t in await service.tables(tid):
        await service.start(t.game_pk or 0)
    await resign_losers(service, tid, {1, 3})
    other = GameService.open(url)
    try:
        done = await asyncio.gather(service.advance_tournament(tid), other.advance_tournament(tid),
                                    return_exceptions=True)
    finally:
        await other.close()
    assert sorted(d is None for d in done) == [False, True], done  # one made round 2, the other nothing
    assert len(await service.tables(tid, 2)) == 2
    posted = await asyncio.gather(service.standings_posted(tid, 1), service.standings_posted(tid, 1))
    assert sorted(posted) == [False, True]  # the round's standings are posted once


async def test_two_processes_advance_a_round_once(service: GameService, db_path: Path) -> None:
    from bot.settings import sqlite_url

    await _two_processes_advance(service, sqlite_url(db_path))


@pytest.mark.postgres
async def test_two_processes_advance_a_round_once_on_postgresql(pg_service: GameService) -> None:
    from tests.bot.conftest import PG_URL

    await _two_processes_advance(pg_service, PG_URL)
