"""The bot process (``alcazaba run`` against the Discord stand-in) killed with SIGKILL while
it makes a tournament's round, started again (issue 29: "the bot killed while a round is
being created, restarted, and the round exists once").

The moment is picked through Discord, with no hook in the bot: the stand-in holds the first
request the bot makes for the new round, and the process is killed while it waits for the
answer. Two moments:

* ``standings``: the round has just been made (its games, seats and DMs committed in one
  transaction) and the bot posts the last round's standings with the new pairings;
* ``posted``: the same post, which Discord made but whose answer never came back (sent
  again under the same nonce, Discord hands back the first);
* ``thread``: the bot opens the round's first game, and Discord made its thread but the
  answer never came back.

Started again, the round exists once, each of its games once, in one thread each, and each
message (the standings with the pairings, each player's DM, each game's lobby) was sent
exactly once. And round 1, made by ``/tournament start``: the process killed before it
posted the pairings finds, started again, a sign-up message still open on a running
tournament, and finishes the start once. (The bot's process and its short waits:
tests/bot/discord/killing.py.)
"""

from __future__ import annotations

import collections
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot.service import GameService
from tests.bot.discord.conftest import Harness, components
from tests.bot.discord.killing import bot_process
from tests.bot.discord.test_tournaments import until
from tests.standin import StandIn

pytestmark = pytest.mark.slow


def _counts(db: Path) -> tuple[list[int], list[tuple[int, int]], int]:
    """(the rounds made, (round, game) of each table, the games) of tournament 1."""
    with sqlite3.connect(db) as conn:
        rounds = [r for (r,) in conn.execute("SELECT round FROM tournament_round WHERE tournament_id = 1 "
                                             "ORDER BY round")]
        tables = [(r, g) for r, g in conn.execute("SELECT round, game_pk FROM tournament_game "
                                                  "WHERE tournament_id = 1 ORDER BY round, table_no")]
        games = conn.execute("SELECT count(*) FROM game").fetchone()[0]
    return rounds, tables, int(games)


async def _signed_up(h: Harness) -> tuple[int, int]:
    """Tournament #1 (a Swiss of 1212 over two rounds) with four players; (its thread, the
    sign-up message)."""
    await h.cmd(h.alice, "tournament new", game="navas", format="swiss", rounds=2, pace="7d")
    thread = h.si.threads(h.channel)[-1].id
    signup = h.si.channel_messages(thread)[0]
    join = next(c["custom_id"] for c in components(signup) if c["label"] == "Join")
    for user in (h.alice, h.bob, h.carol, h.mod):
        await h.settle(await h.si.click(user, signup.id, join))
    return thread, signup.id


def _round_once(h: Harness, svc: GameService, round_no: int) -> Callable[[], Awaitable[None]]:
    async def check() -> None:
        for table in await svc.tables(1, round_no):
            game = await svc.game(table.game_pk or 0)
            made = [t for t in h.si.threads(h.channel) if t.name.endswith(f"#{game.id}")]
            assert [t.id for t in made] == [game.thread_id], "one thread per game"
            posts = collections.Counter(m.content for m in h.si.channel_messages(game.thread_id or 0))
            assert all(n == 1 for n in posts.values()), posts
        for user in (h.alice, h.bob, h.carol, h.mod):
            told_of = [m.content for m in h.dm_messages(user) if f"round {round_no}:" in m.content]
            assert len(told_of) == 1, told_of
            assert all(n == 1 for n in collections.Counter(m.content for m in h.dm_messages(user)).values())
    return check


async def test_the_bot_killed_while_starting_a_tournament_starts_it_once(standin: StandIn, tmp_path: Path) -> None:
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        thread, signup = await _signed_up(h)
        stall = si.stall("POST", rf"^/channels/{thread}/messages$", contains="Round 1 of 2")
        await si.slash(h.alice, h.channel, "tournament start", tournament=1)
        await run.kill_when_held(stall)
        db = h.data_dir / "alcazaba.db"
        made = _counts(db)
        assert made[0] == [1] and len(made[1]) == 2 and made[2] == 2, "round 1 was made before the kill"

        await run.restart()
        svc = run.service()

        async def told() -> bool:
            games = [await svc.game(t.game_pk or 0) for t in await svc.tables(1, 1)]
            return (any("Round 1 of 2" in m.content for m in si.channel_messages(thread))
                    and not components(si.messages[signup])
                    and all(g.status == "running" and g.thread_id for g in games)
                    and all(any("round 1:" in m.content for m in h.dm_messages(u))
                            for u in (h.alice, h.bob, h.carol, h.mod)))

        await until(told, "the start finished: pairings posted, sign-up closed, games open, players told",
                    timeout=150)
        await si.wait_quiet(1.0, 60)
        assert _counts(db) == made
        assert len([m for m in si.channel_messages(thread) if "Round 1 of 2" in m.content]) == 1
        await _round_once(h, svc, 1)()


@pytest.mark.parametrize("kill_at", ["standings", "posted", "thread"])
async def test_the_bot_killed_while_making_a_round_makes_it_once(standin: StandIn, tmp_path: Path,
                                                                kill_at: str) -> None:
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        people = [h.alice, h.bob, h.carol, h.mod]
        thread, _signup = await _signed_up(h)
        await h.cmd(h.alice, "tournament start", tournament=1)
        svc = run.service()

        async def opened(round_no: int) -> bool:
            tables = await svc.tables(1, round_no)
            games = [await svc.game(t.game_pk or 0) for t in tables]
            return bool(tables) and all(g.status == "running" and g.thread_id for g in games)

        await until(lambda: opened(1), "round 1's games running in their threads")
        if kill_at in ("standings", "posted"):
            stall = si.stall("POST", rf"^/channels/{thread}/messages$", contains="standings after round 1",
                             mode="after" if kill_at == "posted" else "before")
        else:
            stall = si.stall("POST", rf"^/channels/{h.channel}/threads$", contains="T1 R2", mode="after")
        for table in await svc.tables(1, 1):
            game = await svc.game(table.game_pk or 0)
            await h.cmd(table.players[1], "game resign", channel=game.thread_id)
        await run.kill_when_held(stall)
        db = h.data_dir / "alcazaba.db"
        rounds, tables, games = _counts(db)
        assert rounds == [1, 2] and len(tables) == 4 and games == 4, "the round was made before the kill"

        await run.restart()
        await until(lambda: opened(2), "round 2's games running in their threads", timeout=150)

        async def told() -> bool:
            posted = any("standings after round 1" in m.content for m in si.channel_messages(thread))
            dms = all(any("round 2:" in m.content for m in h.dm_messages(u)) for u in people)
            return posted and dms

        await until(told, "the standings of round 1 and the round 2 DMs", timeout=60)
        await si.wait_quiet(1.0, 60)

        assert _counts(db) == (rounds, tables, games), "the round, its tables and games exist once"
        standings = [m for m in si.channel_messages(thread) if "standings after round 1" in m.content]
        assert len(standings) == 1, [m.content for m in standings]
        assert "Round 2 of 2" in standings[0].content
        await _round_once(h, svc, 2)()


@pytest.mark.parametrize("kill_at", ["thread", "signup", "announced"])
async def test_the_bot_killed_while_opening_a_tournament_opens_it_once(standin: StandIn, tmp_path: Path,
                                                                      kill_at: str) -> None:
    """``/tournament new`` answers first, commits the tournament, then makes its thread, its
    sign-up message and the post in the channel that points to it, and stores the thread;
    killed after Discord did one of them (its answer never came back), the bot started again
    finishes it once: one thread, the one stored, one sign-up message with working buttons,
    one pointer."""
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        if kill_at == "thread":
            stall = si.stall("POST", rf"^/channels/{h.channel}/threads$", contains="Tournament #1", mode="after")
        elif kill_at == "signup":
            stall = si.stall("POST", r"^/channels/\d+/messages$", contains="Sign-up open", mode="after")
        else:
            stall = si.stall("POST", rf"^/channels/{h.channel}/messages$", contains="opened **tournament",
                             mode="after")
        inter = await si.slash(h.alice, h.channel, "tournament new", game="navas", format="swiss", rounds=2,
                               pace="7d")
        await run.kill_when_held(stall, 120)
        assert inter.done.is_set(), "the interaction was answered before the tournament's thread was asked for"

        await run.restart()
        svc = run.service()

        async def placed() -> bool:
            info = await svc.tournament(1)
            return info.thread_id is not None and info.message_id is not None

        await until(placed, "the tournament's thread and sign-up message stored", timeout=150)
        await si.wait_quiet(1.0, 60)
        info = await svc.tournament(1)
        made = [t for t in si.threads(h.channel) if t.name.startswith("Tournament #1")]
        assert [t.id for t in made] == [info.thread_id], "one thread, the one stored"
        signups = [m for m in si.channel_messages(info.thread_id or 0) if "Sign-up open" in m.content]
        assert [m.id for m in signups] == [info.message_id], [m.content for m in signups]
        pointers = [m.content for m in si.channel_messages(h.channel) if "opened **tournament #1**" in m.content]
        assert len(pointers) == 1 and f"<#{info.thread_id}>" in pointers[0], pointers
        join = next(c["custom_id"] for c in components(signups[0]) if c["label"] == "Join")
        await h.settle(await si.click(h.bob, signups[0].id, join))
        assert [p[0] for p in (await svc.tournament(1)).players] == [h.bob]
        assert si.violations == []
