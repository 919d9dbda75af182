"""The bot process (``alcazaba run`` against the Discord stand-in) killed with SIGKILL while
it opens a game that matchmaking made (issue 29: a crash at any moment sends no message
twice and loses none).

The matched game is committed with its seats before the bot opens it; opening is a
background pass that makes the game's thread, announces the game in the channel the tickets
came from, stores the thread, starts the game and posts its lobby. The moment is picked
through Discord, with no hook in the bot (the stand-in holds one request and the process is
killed while it waits for the answer):

* ``thread``: Discord made the thread, its answer never came back;
* ``announcing``: the thread is made, the announcement not yet;
* ``announced``: Discord posted the announcement, its answer never came back;
* ``lobby``: Discord posted the lobby message in the thread, its answer never came back (so
  its id was never stored).

Started again, the game has one thread, the one stored for it, and the announcement, the
lobby and each player's DMs were each sent exactly once. (The bot's process and its short
waits: tests/bot/discord/killing.py.)
"""

from __future__ import annotations

import collections
import sqlite3
from pathlib import Path

import pytest

from tests.bot.discord.killing import bot_process
from tests.bot.discord.test_tournaments import until
from tests.standin import StandIn

pytestmark = pytest.mark.slow

ANNOUNCEMENT = "🎯 Matchmaking"


@pytest.mark.parametrize("kill_at", ["thread", "announcing", "announced", "lobby"])
async def test_the_bot_killed_while_opening_a_matched_game_opens_it_once(standin: StandIn, tmp_path: Path,
                                                                        kill_at: str) -> None:
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        if kill_at == "thread":
            stall = si.stall("POST", rf"^/channels/{h.channel}/threads$", contains="#1", mode="after")
        elif kill_at == "lobby":
            stall = si.stall("POST", r"^/channels/\d+/messages$", contains="Seats:", mode="after")
        else:
            stall = si.stall("POST", rf"^/channels/{h.channel}/messages$", contains="Matchmaking",
                             mode="after" if kill_at == "announced" else "before")
        for user in (h.alice, h.bob):
            await h.cmd(user, "game seek", game="navas", pace="24h")
        await run.kill_when_held(stall, 120)

        await run.restart()
        svc = run.service()

        def lobby_stored() -> bool:
            with sqlite3.connect(h.data_dir / "alcazaba.db") as conn:
                row = conn.execute("SELECT lobby_message_id FROM discord_game WHERE game_pk = 1").fetchone()
            return row is not None and row[0] is not None

        async def opened() -> bool:
            game = await svc.game(1)
            return (game.status == "running" and game.thread_id is not None and lobby_stored()
                    and any(ANNOUNCEMENT in m.content for m in si.channel_messages(h.channel))
                    and all(h.dm_messages(u) for u in (h.alice, h.bob)))

        await until(opened, "the matched game open in its thread, announced, its players told", timeout=150)
        await si.wait_quiet(1.0, 60)

        game = await svc.game(1)
        made = [t for t in si.threads(h.channel) if t.name.endswith(f"#{game.id}")]
        assert [t.id for t in made] == [game.thread_id], "one thread per game, the one stored"
        announced = [m.content for m in si.channel_messages(h.channel) if ANNOUNCEMENT in m.content]
        assert len(announced) == 1 and f"<#{game.thread_id}>" in announced[0], announced
        posts = collections.Counter(m.content for m in si.channel_messages(game.thread_id or 0))
        assert posts and all(n == 1 for n in posts.values()), posts
        lobbies = [m for m in si.channel_messages(game.thread_id or 0) if "Seats:" in m.content]
        assert len(lobbies) == 1, [m.content for m in lobbies]
        for user in (h.alice, h.bob):
            assert all(n == 1 for n in collections.Counter(m.content for m in h.dm_messages(user)).values())
