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

And a second test kills shard 1's process while a game of its server has the built-in player
thinking and another a deadline due: shard 0's process takes both over (its deadline pass
claims the game's work once the dead process's claim ran out: bot/service/claims.py).

Skipped, with the reason, when ALCAZABA_TEST_PG_URL is unset (CI sets it).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

import engine
from bot.service import GameService, _bot_seed
from bot.thinking import think
from engine.api import strip_label
from tests.reliability.conftest import PG_SKIP, PG_URL, _sync_url, pg_rows
from tests.reliability.test_crash import (
    BotProcess,
    Table,
    check_moves,
    check_notifications,
    click_problems,
    confirmed,
    drained,
    open_games,
    states_along,
)
from tests.standin import StandIn
from tests.standin.server import iter_components

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
        self.name = f"shard {shard}"
        self.commands_route = f"/guilds/{guild}/commands"

    async def on_gateway(self) -> None:
        await self.si.wait_shards({self.shard}, timeout=90)

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


@dataclass
class Cluster:
    """The stand-in, one server per shard, one process per shard (started), and the database."""

    si: StandIn
    servers: list[tuple[int, int, list[int]]]
    procs: list[ShardProcess]
    db: GameService


@asynccontextmanager
async def two_shard_processes(url: str, tmp_path: Path) -> AsyncIterator[Cluster]:
    """The stand-in and a server of each shard, one ``alcazaba run`` per shard on the
    database at ``url`` (started one after the other: each migrates the database at start),
    all stopped at the end."""
    clean_front_end(url)
    si = StandIn()
    await si.start()
    procs: list[ShardProcess] = []
    db: GameService | None = None
    try:
        servers = [server(si, shard) for shard in range(SHARDS)]
        assert [(g >> 22) % SHARDS for g, _, _ in servers] == [0, 1]
        for shard, (guild, _, _) in enumerate(servers):
            procs.append(ShardProcess(si, tmp_path / f"shard{shard}", guild, url, shard))
            await procs[-1].start()
        db = GameService.open(url)
        yield Cluster(si, servers, procs, db)
    finally:
        if db is not None:
            await db.close()
        for p in procs:
            await p.stop()
        await si.stop()


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
    rng = random.Random(13)
    async with two_shard_processes(pg_clean, tmp_path) as cluster:
        si, servers, procs, db = cluster.si, cluster.servers, cluster.procs, cluster.db
        assert sorted(set(si.shard_sessions)) == [(0, SHARDS), (1, SHARDS)]
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

# --------------------------------------------------------------------------- a dead shard's games


async def open_game(si: StandIn, db: GameService, host: int, channel: int, guild: int, **options: Any) -> int:
    """``/game new`` in ``channel``; a person invited joins from the lobby. The new game's id."""
    before = {g.id for g in await db.games(guild_id=guild, limit=None)}
    threads = len(si.threads(channel))
    await si.settle(await si.slash(host, channel, "game new", **options), timeout=30)
    deadline = time.monotonic() + 60
    while len(si.threads(channel)) <= threads:  # a loaded machine may open the thread after a pause
        assert time.monotonic() < deadline, "the game's thread was never opened"
        await asyncio.sleep(0.1)
    [game] = [g.id for g in await db.games(guild_id=guild, limit=None) if g.id not in before]
    guest = int(options["opponent"])
    if guest != si.application_id:
        while not si.channel_messages(si.threads(channel)[threads].id):  # the lobby may come after a pause
            assert time.monotonic() < deadline, "the game's lobby was never posted"
            await asyncio.sleep(0.1)
        lobby = si.channel_messages(si.threads(channel)[threads].id)[0]
        join = next(c["custom_id"] for c in iter_components(lobby.components) if c.get("custom_id"))
        await si.settle(await si.click(guest, lobby.id, join), timeout=30)
    return game


async def until(what: str, check: Callable[[], Awaitable[bool]], timeout: float) -> float:
    """Wait for ``check``; the seconds it took (AssertionError naming ``what`` after ``timeout``)."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < timeout, f"{what}: not within {timeout} s"
        await asyncio.sleep(0.05)
    return time.monotonic() - start


async def built_in_moves(db: GameService, pk: int, level: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The moves of the seats the built-in player holds at the end, and the problems with them:
    each must be the built-in player's own decision at its version (``think`` with the seed
    ``_bot_seed`` of that version), so none is doubled, lost or made up."""
    info = await db.game(pk)
    module = engine.get(info.game_id)
    bots = {s.role for s in info.seats if s.is_bot}
    state = module.setup(info.seed, dict(info.options))
    made: list[dict[str, Any]] = []
    problems: list[str] = []
    for m in await db.moves(pk):
        if m["role"] in bots:
            made.append(m)
            version = m["seq"] - 1
            expected = strip_label(think(info.game_id, state, m["role"], _bot_seed(info.seed, version, m["role"]),
                                         level))
            if m["action"] != expected:
                problems.append(f"game {pk}: move {m['seq']} of the built-in {m['role']} is {m['action']}, "
                                f"not its decision {expected}")
        state = module.apply(state, m["role"], m["action"])
    return made, problems


async def test_a_dead_shards_deadline_and_built_in_turn_are_taken_by_the_other_process(
        pg_clean: str, tmp_path: Path) -> None:
    """The process of shard 1 is killed while a game of its server has the built-in player
    thinking (at ``hard``: seconds) and another has a deadline due that hands the late seat
    to the built-in player. The process of shard 0, which no interaction of that server
    reaches, takes the built-in turn once the dead process's claim ran out (not before) and
    handles the deadline; nothing is doubled or lost when shard 1's process comes back."""
    async with two_shard_processes(pg_clean, tmp_path) as cluster:
        si, servers, procs, db = cluster.si, cluster.servers, cluster.procs, cluster.db
        guild, channel, (alice, bob) = servers[1]
        dead_pid = procs[1].proc.pid if procs[1].proc is not None else -1

        # A game of 24 hours a move where a late seat goes to the built-in player: alice moves,
        # bob is late. Shard 1's process sets bob's clock.
        timed = await open_game(si, db, alice, channel, guild, game="navas", side="christian", opponent=bob,
                                pace="24h", at_deadline="bot", seed=31)
        table = Table(si, db, [alice], random.Random(5), channel, [timed])
        started = time.monotonic()
        while "christian" in (await db.game(timed)).active:  # her prompt may still be on its way
            assert time.monotonic() - started < 60, "alice could not move"
            if await table.click_once(wait=True) is None:
                await asyncio.sleep(0.2)

        async def clock_set() -> bool:
            info = await db.game(timed)
            rows = pg_rows(pg_clean, "SELECT deadline_version FROM discord_game WHERE game_pk = :pk", pk=timed)
            return info.active == ["muslim"] and info.deadline_at is not None and rows == [(info.version,)]

        await until("shard 1's process sets bob's clock", clock_set, 60)

        # A game against the built-in player at hard: it starts thinking at once, in shard 1's
        # process, which claims the game's built-in turn.
        versus = await open_game(si, db, alice, channel, guild, game="navas", side="christian",
                                 opponent=si.application_id, pace="live", level="hard", seed=32)

        async def thinking_in_shard_1() -> bool:
            return any(c.kind == "bots" and (c.claimed_by or "").startswith(f"discord-{dead_pid}-")
                       for c in await db.claims(versus))

        await until("shard 1's process claims the built-in turn", thinking_in_shard_1, 60)
        await procs[1].kill()
        assert await db.moves(versus) == [], "the built-in player answered before the kill: nothing to take over"
        [dead] = [c for c in await db.claims(versus) if c.kind == "bots"]
        assert dead.expires_at is not None
        # Bob's day passes while shard 1's process is down.
        pg_rows(pg_clean, "UPDATE game SET deadline_at = deadline_at - interval '25 hours' WHERE id = :pk "
                          "RETURNING id", pk=timed)

        async def bot_moved() -> bool:
            return any(m["role"] == "muslim" for m in await db.moves(versus))

        async def handed_over_and_moved() -> bool:
            info = await db.game(timed)
            seat = info.seat("muslim")
            return seat is not None and seat.is_bot and any(m["role"] == "muslim" for m in await db.moves(timed))

        lease = float(procs[0].env.get("ALCAZABA_TEST_LEASE", "3"))
        # Within the lease and a decision at hard (seconds of thinking on a loaded machine).
        taken = await until("shard 0's process takes the built-in turn", bot_moved, lease + 90)
        await until("shard 0's process hands bob's late seat over", handed_over_and_moved, lease + 60)
        [first] = [m for m in await db.moves(versus) if m["role"] == "muslim"][:1]
        assert first["created_at"] >= dead.expires_at, (
            f"the built-in turn was taken over at {first['created_at']}, before the dead claim ran out "
            f"at {dead.expires_at}")
        assert all(c.claimed_by is None or not c.claimed_by.startswith(f"discord-{dead_pid}-")
                   for c in await db.claims(versus)), "the dead process still holds the built-in turn"

        # Shard 1's process comes back; alice resigns both games in her server's channel.
        await procs[1].start()
        for pk in (timed, versus):
            await si.settle(await si.slash(alice, channel, "game resign", game=pk), timeout=60)
        await drained(db, si, timeout=180)

        problems: list[str] = []
        for pk, level in ((timed, "easy"), (versus, "hard")):
            info = await db.game(pk)
            if info.status != "finished":
                problems.append(f"game {pk} not ended by the resignation: {info.status}")
            report = await db.replay_check(pk)
            if not report.ok:
                problems.append(f"game {pk}: stored state is not the replay of the log: {report.message}")
            made, wrong = await built_in_moves(db, pk, level)
            problems += wrong
            if not made:
                problems.append(f"game {pk}: the built-in player never moved")
            module = engine.get(info.game_id)
            moves = await db.moves(pk)
            problems += click_problems(moves, {s.role for s in info.seats if s.is_bot}, table.clicks, pk, module,
                                       states_along(module, info, moves), info, si)
        problems += await check_notifications(db, [timed, versus], si)
        problems += [f"Discord rule broken: {v}" for v in si.violations]
        logs = "\n".join(f"--- shard {p.shard} log ---\n{p.tail(40)}" for p in procs)
        assert problems == [], "\n".join(problems[:40]) + f"\n{logs}"
        print(json.dumps({"taken_over_after_s": round(taken, 1), "lease_s": lease}))
