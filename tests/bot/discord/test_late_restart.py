"""The bot process killed after Discord posted a message but before its id was stored, and
started again only after Discord forgot the message's nonce (issue 29: a crash or restart at
any moment sends no message twice). Discord hands back the first message for a nonce it saw
"in the past few minutes" only (the stand-in: ``NONCE_WINDOW_S``); past that, the same nonce
posts a second message. The restarted bot finds the first in the channel instead
(bot/discord/posting.py).

A matched game is opened (tests/bot/discord/test_matchmaking_kill.py) and the process is
killed while the stand-in holds Discord's answer to one post it made:

* ``announced``: the game's announcement in the channel the tickets came from;
* ``begins``: the first lines of the game's thread (the outbox's grouped thread post);
* ``prompt``: a player's first prompt, by DM;
* ``lobby``: the game's lobby message, in its thread.

Discord's clock and the restarted bot's then run past the nonce's window, and each message
exists exactly once. (The bot's process and its short waits: tests/bot/discord/killing.py.)
"""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from tests.bot.discord.killing import bot_process
from tests.bot.discord.test_tournaments import until
from tests.standin import StandIn
from tests.standin.server import NONCE_WINDOW_S

pytestmark = pytest.mark.slow

ANNOUNCEMENT = "🎯 Matchmaking"
LATE = NONCE_WINDOW_S + 1


@pytest.mark.parametrize("kill_at", ["announced", "begins", "prompt", "lobby"])
async def test_a_post_the_bot_was_killed_in_is_not_posted_again_after_discord_forgot_its_nonce(
        standin: StandIn, tmp_path: Path, kill_at: str) -> None:
    async with bot_process(standin, tmp_path) as run:
        h, si = run.h, run.h.si
        # Words of the message only (the stall looks for them in the request's JSON, where
        # an emoji is escaped).
        contains = {"announced": "Matchmaking: ", "begins": "begins", "prompt": "It is your turn.",
                    "lobby": "Seats:"}[kill_at]
        stall = si.stall("POST", r"^/channels/\d+/messages$", contains=contains, mode="after")
        for user in (h.alice, h.bob):
            await h.cmd(user, "game seek", game="navas", pace="24h")
        await run.kill_when_held(stall, 120)
        held = [m for m in si.messages.values() if contains in m.content]
        assert len(held) == 1, "Discord made the message the killed process waited for"

        si.advance(LATE)
        await run.restart(ahead=LATE)
        svc = run.service()

        async def opened() -> bool:
            game = await svc.game(1)
            return (game.status == "running" and game.thread_id is not None
                    and not await svc.outbox(1, pending_only=True)
                    and any(ANNOUNCEMENT in m.content for m in si.channel_messages(h.channel))
                    and all(h.dm_messages(u) for u in (h.alice, h.bob)))

        await until(opened, "the matched game open, announced, its players told", timeout=150)
        await si.wait_quiet(1.0, 60)

        game = await svc.game(1)
        again = [m.id for m in si.channel_messages(held[0].channel_id) if m.content == held[0].content]
        assert again == [held[0].id], "the message Discord made for the killed process, and no second"
        announced = [m for m in si.channel_messages(h.channel) if ANNOUNCEMENT in m.content]
        assert len(announced) == 1, [m.content for m in announced]
        posts = collections.Counter(m.content for m in si.channel_messages(game.thread_id or 0))
        assert posts and all(n == 1 for n in posts.values()), posts
        for user in (h.alice, h.bob):
            dms = collections.Counter(m.content for m in h.dm_messages(user))
            assert all(n == 1 for n in dms.values()), dms
