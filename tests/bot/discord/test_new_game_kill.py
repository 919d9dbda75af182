"""The bot process (``alcazaba run`` against the Discord stand-in) killed with SIGKILL in the
middle of ``/game new`` (a crash at any moment sends no message twice and loses none).

The command answers the interaction first (a "thinking" defer: Discord wants an answer
within 3 seconds, and making a thread is a call that may wait on a rate limit), commits the
game with its seats, then opens it: its thread, the post in the channel that points to it,
the thread stored, the lobby message. The moment is picked through Discord, with no hook in
the bot (the stand-in holds one request and the process is killed while it waits):

* ``thread``: Discord made the thread, its answer never came back;
* ``announced``: Discord posted the pointer in the channel, its answer never came back;
* ``lobby``: Discord posted the lobby message, its answer never came back.

Started again, the bot finishes the opening once: the game has one thread, the one stored
for it, and the pointer and the lobby message were each posted once (the lobby stored, its
Join button working). (The bot's process and its short waits: tests/bot/discord/killing.py.)
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.bot.discord.conftest import components
from tests.bot.discord.killing import bot_process
from tests.bot.discord.test_tournaments import until
from tests.standin import StandIn

pytestmark = pytest.mark.slow

POINTER = "opened **1212 Las Navas de Tolosa #1**"


@pytest.mark.parametrize("kill_at", ["thread", "announced", "lobby"])
async def test_the_bot_killed_while_opening_a_new_game_opens_it_once(standin: StandIn, tmp_path: Path,
                                                                    kill_at: str) -> None:
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        if kill_at == "thread":
            stall = si.stall("POST", rf"^/channels/{h.channel}/threads$", contains="#1", mode="after")
        elif kill_at == "announced":
            stall = si.stall("POST", rf"^/channels/{h.channel}/messages$", contains="opened", mode="after")
        else:
            stall = si.stall("POST", r"^/channels/\d+/messages$", contains="Seats:", mode="after")
        inter = await si.slash(h.alice, h.channel, "game new", game="navas", side="christian", opponent=h.bob,
                               pace="24h")
        await run.kill_when_held(stall, 120)
        assert inter.done.is_set(), "the interaction was answered before the game's thread was asked for"
        db = h.data_dir / "alcazaba.db"

        def stored() -> tuple[int | None, int | None]:
            with sqlite3.connect(db) as conn:
                (thread,) = conn.execute("SELECT thread_id FROM game WHERE id = 1").fetchone()
                row = conn.execute("SELECT lobby_message_id FROM discord_game WHERE game_pk = 1").fetchone()
            return thread, None if row is None else row[0]

        await run.restart()
        svc = run.service()

        async def opened() -> bool:
            return None not in stored()

        await until(opened, "the game's thread and lobby message stored", timeout=150)
        await si.wait_quiet(1.0, 60)

        thread, lobby = stored()
        made = [t for t in si.threads(h.channel) if t.name.endswith("#1")]
        assert [t.id for t in made] == [thread], "one thread for the game, the one stored"
        pointers = [m.content for m in si.channel_messages(h.channel) if POINTER in m.content]
        assert len(pointers) == 1 and f"<#{thread}>" in pointers[0] and f"<@{h.bob}>" in pointers[0], pointers
        lobbies = [m for m in si.channel_messages(thread or 0) if "Seats:" in m.content]
        assert [m.id for m in lobbies] == [lobby], [m.content for m in lobbies]

        # bob takes his seat from the lobby: the game starts.
        join = components(lobbies[0])[0]["custom_id"]
        await h.settle(await si.click(h.bob, lobbies[0].id, join))
        await until(lambda: _running(svc), "the game started once bob joined")
        assert si.violations == []


async def _running(svc) -> bool:  # type: ignore[no-untyped-def]
    return (await svc.game(1)).status == "running"


async def test_a_rematch_opened_after_a_kill_says_which_game_it_rematches(standin: StandIn, tmp_path: Path) -> None:
    """Killed while ``/game rematch`` makes the rematch's thread (Discord made it, its answer
    never came back): started again, the bot finishes the opening, and the post that points to
    the thread says, as the command's own would, that it is a rematch of game #1."""
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        first = await h.open_game("navas", side="christian", pace="24h")
        await h.cmd(h.alice, "game resign", channel=first)
        svc = run.service()
        assert (await svc.game(1)).status == "finished"
        stall = si.stall("POST", rf"^/channels/{h.channel}/threads$", contains="#2", mode="after")
        inter = await si.slash(h.alice, first, "game rematch")
        await run.kill_when_held(stall, 120)
        assert inter.done.is_set()
        assert (await svc.game(2)).thread_id is None, "killed before the rematch's thread was stored"
        await run.restart()

        async def opened() -> bool:
            return (await svc.game(2)).thread_id is not None

        await until(opened, "the rematch's thread stored", timeout=150)
        await si.wait_quiet(1.0, 60)
        thread = (await svc.game(2)).thread_id
        pointers = [m.content for m in si.channel_messages(h.channel) if f"<#{thread}>" in m.content]
        assert len(pointers) == 1, pointers
        assert "asks for a rematch of game #1:" in pointers[0] and f"<@{h.bob}>" in pointers[0], pointers
        assert si.violations == []
