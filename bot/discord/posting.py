"""Posting under a nonce, exactly once however late a post is tried again.

Every message the bot may send again after a crash goes out under a nonce with
``enforce_nonce`` (bot/discord/nonces.py): when a process dies after Discord posted the
message but before the message's id was stored, its successor sends it again under the same
nonce and Discord hands back the first message. But Discord remembers a nonce for a few
minutes only; a process started again later than that would post the message a second time.

So each post under a nonce is recorded before it is sent (``discord_post``: the nonce and
when it was first tried). A post with no record is a first try: recorded, sent, nothing more
(one row written, no extra call to Discord). A post with a record is a try again; while its
first try is younger than ``TRUSTED`` the nonce alone covers it, and past that the channel's
history after the first try is read (one request, ``LOOKED_AT`` messages) for the bot's own
message that the caller recognises as this post (``ours``; Discord's history does not give
nonces back): found, it is handed back as Discord would have; not found, no earlier try got
through, and the post is sent with the record's time set to now.

Every front end's post under a nonce goes through :func:`post`: ``send_once`` of
bot/discord/cogs/delivery.py (the outbox's DMs, the deadlines', tournaments' and matchmaking's
posts), the outbox's thread lines, and the lobby message, so each gains this without code of
its own. A new post under a nonce must go through it too, never ``channel.send(nonce=...)``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import discord

if TYPE_CHECKING:
    from bot.discord.client import AlcazabaBot

log = logging.getLogger("bot.discord.posting")

TRUSTED = timedelta(seconds=60)
"""How long after a post's first try its nonce alone is trusted to stop a second post. Discord
says it remembers a nonce for "the past few minutes" without a figure; one minute leaves a
wide margin, and only a post tried again after that reads the channel."""
SLACK = timedelta(seconds=10)
"""The history is read from this long before the first try: room for a clock that runs ahead
of Discord's (a message from before the first try is taken only when none after it is the
post: the same words said a moment earlier are another message)."""
LOOKED_AT = 100
"""Messages of the channel read after the first try (one request): an earlier try's message
came seconds after it, so it is among them unless the channel got this many others between."""
KEPT = timedelta(days=30)
"""How long the record of a post is kept: longer than any post is tried again (a row of the
outbox is given up after half a day of tries)."""

Ours = Callable[[discord.Message], bool]
"""Whether a message of the bot's in the channel is this post (as an earlier try sent it)."""


def same_heading(content: str) -> Ours:
    """Whether a message begins with the first line of ``content``: a message that is kept up
    to date (a lobby), which may say more or other things by now under the same heading."""
    heading = content.split("\n", 1)[0]
    return lambda message: bool(heading) and (message.content or "").split("\n", 1)[0] == heading


def _bot_of(channel: discord.abc.Messageable) -> AlcazabaBot | None:
    """The bot a channel object belongs to (None: another client, which posts as before)."""
    from bot.discord.client import AlcazabaBot

    client = channel._state._get_client()
    return client if isinstance(client, AlcazabaBot) else None


async def post(channel: discord.abc.Messageable, nonce: str, ours: Ours, **kwargs: Any) -> discord.Message:
    """Send ``kwargs`` to ``channel`` under ``nonce``, once: what Discord answers (the message
    made now, or the one an earlier try made, as Discord hands it back for a nonce it
    remembers), or the earlier try's message found in the channel when Discord may have
    forgotten the nonce."""
    bot = _bot_of(channel)
    if bot is None:
        return await channel.send(nonce=nonce, **kwargs)
    now = bot.now()
    tried = await bot.store.tried(nonce, now, KEPT)
    if tried is not None and now - tried >= TRUSTED:
        found = await earlier(channel, bot, tried, ours)
        if found is not None:
            log.info("post %s was tried at %s and found in channel %s (message %s): not posted again", nonce,
                     tried, found.channel.id, found.id)
            return found
        await bot.store.tried_again(nonce, now)
    return await channel.send(nonce=nonce, **kwargs)


async def earlier(channel: discord.abc.Messageable, bot: AlcazabaBot, tried: datetime,
                  ours: Ours) -> discord.Message | None:
    """The first message of the bot's in ``channel`` from ``tried`` on that ``ours``
    recognises, else the last in the ``SLACK`` before it (not an interaction's answer: those
    are not posts under a nonce). ``tried``: naive UTC, as the bot's clock gives it."""
    me = bot.user.id if bot.user is not None else None
    tried = tried.replace(tzinfo=UTC)
    before: discord.Message | None = None
    async for message in channel.history(after=tried - SLACK, limit=LOOKED_AT, oldest_first=True):
        if message.author.id == me and message.webhook_id is None and ours(message):
            if message.created_at >= tried:
                return message
            before = message
    return before
