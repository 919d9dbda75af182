"""Two bot processes, each running half of the gateway shards, on one PostgreSQL database
(issue 13, "Gateway shards and several processes").

Two real ``alcazaba run`` processes (tests/reliability/botproc.py) with SHARD_COUNT=2, one
with SHARD_IDS=0 and one with SHARD_IDS=1, against the Discord stand-in, whose gateway
routes a server's events to shard ``(guild_id >> 22) % 2`` as Discord does (direct
messages to shard 0). Two servers, one per shard, each with two players and two games of
1212 played at once, from their opening to their end (a random game of 1212 lasts hundreds
of moves, so after some fifty clicks each game ends by its active player's ``/game resign``
in its server's channel). In the middle the process of shard 1 is killed with SIGKILL and
started again. At the end, after the outbox drained:

* each interaction was dispatched to one gateway session only, that of its server's shard,
  and every server's session belongs to the process that owns it;
* no move lost, nothing doubled, every notification delivered exactly once, Discord's rules
  held (the checks of the crash test, tests/reliability/test_crash.py);
* the stored state of each game is the replay of its log.

Skipped, with the reason, when ALCAZABA_TEST_PG_URL is unset (CI sets it).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.service import GameService
from tests.reliability.conftest import PG_SKIP, PG_URL, _sync_url
from tests.reliability.test_crash import (
    BotProcess,
    Table,
    check_moves,
    check_notifications,
    confirmed,
    drained,
    open_games,
)
from tests.standin import StandIn

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.skipif(not PG_URL, reason=PG_SKIP)]

SHARDS = 2
FRONT_END_TABLES = ("discord_seat", "discord_message", "discord_game", "discord_guild")


class ShardProcess(BotProcess):
    """``alcazaba run`` with SHARD_COUNT=2 and one shard of its own, on the PostgreSQL database."""

    def __init__(self, si: StandIn, workdir: Path, guild: int, url: str, shard: int) -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        super().__init__(si, workdir, guild)
        self.shard = shard
        self.env.update({"DATABASE_URL": url, "SHARD_COUNT": str(SHARDS), "SHARD_IDS": str(shard)})

    async def start(self) -> None:
        mark = len(self.si.requests)
        with self.log.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.reliability.botproc", cwd=str(self.workdir), env=self.env,
                stdout=log, stderr=log)
        self.starts += 1
        ready = asyncio.ensure_future(self.si.wait_shards({self.shard}, timeout=90))
        exited = asyncio.ensure_future(self.proc.wait())
        await asyncio.wait({ready, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited.done() or ready.exception() is not None:
            ready.cancel()
            raise AssertionError(f"shard {self.shard} did not come up (start {self.starts}):\n{self.tail()}")
        exited.cancel()
        guild = self.env["DISCORD_DEV_GUILD_ID"]
        await self.si.wait_for(lambda r: r.method == "PUT" and r.route.endswith(f"/guilds/{guild}/commands"),
                               timeout=60, start=mark)

    async def kill(self) -> None:
        assert self.proc is not None
        self.proc.kill()
        await self.proc.wait()
        await self.si.disconnect_shards({self.shard})


def clean_front_end(url: str) -> None:
    engine = sa.create_engine(_sync_url(url))
    try:
        with engine.begin() as conn:
            present = set(sa.inspect(conn).get_table_names())
            tables = [t for t in FRONT_END_TABLES if t in present]
            if tables:
                conn.exec_driver_sql(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
    finally:
        engine.dispose()


def server(si: StandIn, shard: int) -> tuple[int, int, list[int]]:
    """A server of ``shard`` with a games channel and two members: (guild, channel, players)."""
    owner = si.add_user(f"owner {shard}")
    guild = si.add_guild(f"server of shard {shard}", owner, shard=(shard, SHARDS))
    channel = si.add_text_channel(guild, "games")
    players = [si.add_user(f"alice {shard}"), si.add_user(f"bob {shard}")]
    for user in players:
        si.add_member(guild, user)
    return guild, channel, players


async def play_until_over(tables: list[Table], clicks: int) -> None:
    """Both servers click at once, each ``clicks`` times or until its games are over."""

    async def one(table: Table) -> None:
        for _ in range(clicks):
            statuses = [(await table.db.game(g)).status for g in table.games]
            if "running" not in statuses:
                return
            if await table.click_once(wait=True) is None:
                await asyncio.sleep(0.2)

    await asyncio.gather(*(one(t) for t in tables))


async def test_two_processes_each_with_half_the_shards_lose_and_double_nothing(
        pg_clean: str, tmp_path: Path) -> None:
    clean_front_end(pg_clean)
    rng = random.Random(13)
    si = StandIn()
    await si.start()
    procs: list[ShardProcess] = []
    db: GameService | None = None
    try:
        servers = [server(si, shard) for shard in range(SHARDS)]
        assert [(g >> 22) % SHARDS for g, _, _ in servers] == [0, 1]
        for shard, (guild, _, _) in enumerate(servers):
            # One after the other: each migrates the database at start.
            procs.append(ShardProcess(si, tmp_path / f"shard{shard}", guild, pg_clean, shard))
            await procs[-1].start()
        assert sorted(set(si.shard_sessions)) == [(0, SHARDS), (1, SHARDS)]
        db = GameService.open(pg_clean)
        tables: list[Table] = []
        for shard, (guild, channel, players) in enumerate(servers):
            await open_games(si, players, channel)
            games = [g.id for g in await db.games(guild_id=guild, limit=10)]
            assert len(games) == 2, f"server of shard {shard}: games {games}"
            tables.append(Table(si, db, players, random.Random(rng.random()), channel, games))

        await play_until_over(tables, 12)
        # Shard 1's process dies mid-command: one click sent, killed a few ms later.
        await tables[1].click_once(wait=False)
        await asyncio.sleep(0.01)
        await procs[1].kill()
        await play_until_over(tables[:1], 4)  # shard 0's server plays on meanwhile
        await procs[1].start()
        await play_until_over(tables, 40)
        # A random game of 1212 lasts hundreds of moves: each game is ended by its active
        # player's /game resign in its server's channel (an interaction of that shard).
        for table in tables:
            for g in table.games:
                info = await db.game(g)
                seat = info.seat(info.active[0])
                assert seat is not None and seat.user_id is not None
                inter = await si.slash(seat.user_id, table.channel, "game resign", game=g)
                await si.settle(inter, timeout=60)
        await drained(db, si, timeout=180)

        problems: list[str] = []
        for table in tables:
            for g in table.games:
                info = await db.game(g)
                if info.status != "finished":
                    problems.append(f"game {g} not played to its end: {info.status} at move {info.version}")
        # Each server's interactions went to its own shard's session, and no other.
        by_guild = {guild: shard for shard, (guild, _, _) in enumerate(servers)}
        for inter in si.interactions.values():
            if inter.guild_id is None:
                continue
            sent_to = [shard for shard, iid in si.dispatched_interactions if iid == inter.id]
            if sent_to != [by_guild[inter.guild_id]]:
                problems.append(f"interaction {inter.id} of server {inter.guild_id} went to shards {sent_to}")
        answered = [i for i in si.interactions.values() if i.guild_id is not None and i.answered_at is not None]
        for shard in range(SHARDS):
            assert any(by_guild[i.guild_id] == shard for i in answered), f"shard {shard} answered nothing"
        games = [g for t in tables for g in t.games]
        clicks = [c for t in tables for c in t.clicks]
        problems += await check_moves(db, games, clicks, si)
        problems += await check_notifications(db, games, si)
        problems += [f"Discord rule broken: {v}" for v in si.violations]
        summary = json.dumps({"clicks": len(clicks), "confirmed": sum(confirmed(si, c) for c in clicks),
                              "moves": [len(await db.moves(g)) for g in games], "starts": [p.starts for p in procs]})
        logs = "\n".join(f"--- shard {p.shard} log ---\n{p.tail(30)}" for p in procs)
        assert problems == [], f"{summary}\n" + "\n".join(problems[:40]) + f"\n{logs}"
        print(summary)
    finally:
        if db is not None:
            await db.close()
        for p in procs:
            await p.stop()
        await si.stop()

