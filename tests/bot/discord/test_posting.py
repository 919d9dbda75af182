"""A post tried again after Discord forgot its nonce is still posted once (bot/discord/posting.py).

Discord hands back the first message for a nonce it saw in the last minutes; a bot that comes
back later than that, between a post Discord made and the message's id being stored, would
post it again. Here the send is cut off the way a killed process is (the stand-in posts the
message and holds the answer; the sending task is cancelled, so nothing after the send runs),
Discord's clock and the bot's are moved past the nonce's window, and the post is tried again.
The same moments in a real process killed with SIGKILL: test_late_restart.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from typing import Any

from bot.discord import nonces, posting
from bot.discord.cogs.delivery import send_once
from bot.discord.table import Outgoing
from bot.models import utcnow
from tests.bot.discord.conftest import Harness
from tests.standin.server import NONCE_WINDOW_S, Recorded

LATE = NONCE_WINDOW_S + 1


def history_reads(h: Harness) -> list[Recorded]:
    return [r for r in h.si.requests if r.method == "GET" and r.route.endswith("/messages")]


def later(h: Harness, seconds: float) -> None:
    """Discord's clock and the bot's ``seconds`` on (a restart that long after)."""
    assert h.bot is not None
    h.si.advance(seconds)
    ahead = h.bot.tuning.now() - utcnow() + timedelta(seconds=seconds)
    h.bot.tuning = replace(h.bot.tuning, now=lambda: utcnow() + ahead)


async def cut_off(h: Harness, channel_id: int, send: Callable[[], Awaitable[Any]], *, mode: str = "after",
                  contains: str | None = None) -> None:
    """Start ``send`` and stop it while it waits for Discord's answer to its post (``after``:
    Discord made the message; ``before``: it did not), as a process killed then."""
    stall = h.si.stall("POST", rf"^/channels/{channel_id}/messages$", contains=contains, mode=mode)
    task = asyncio.create_task(send())
    await asyncio.wait_for(stall.caught.wait(), 20)
    task.cancel()
    stall.release()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_message_tried_again_after_the_nonce_window_is_found_not_posted_again(table: Harness) -> None:
    h = table
    assert h.bot is not None
    channel = h.bot.get_partial_messageable(h.channel)
    ids = nonces.outbox(41)

    async def send() -> Any:
        return await send_once(channel, Outgoing("the prompt"), ids, nonces.PRIVATE)

    await cut_off(h, h.channel, send)
    assert [m.content for m in h.si.channel_messages(h.channel)] == ["the prompt"]
    first = h.si.channel_messages(h.channel)[0]
    later(h, LATE)
    again = await send()
    assert again.id == first.id
    assert [m.content for m in h.si.channel_messages(h.channel)] == ["the prompt"], "posted once"
    assert len(history_reads(h)) == 1
    # Discord itself has forgotten the nonce: a plain send under it posts a second message.
    await channel.send("the prompt", nonce=ids(nonces.PRIVATE))
    assert len(h.si.channel_messages(h.channel)) == 2


async def test_a_normal_post_and_a_quick_retry_read_no_history(table: Harness) -> None:
    """The usual path costs no request to Discord: a first try is sent at once, and a try
    again within the nonce's trusted time relies on the nonce."""
    h = table
    assert h.bot is not None
    channel = h.bot.get_partial_messageable(h.channel)
    ids = nonces.outbox(42)
    sent = await send_once(channel, Outgoing("one"), ids, nonces.PRIVATE)
    later(h, posting.TRUSTED.total_seconds() / 2)
    again = await send_once(channel, Outgoing("one"), ids, nonces.PRIVATE)
    assert again.id == sent.id and history_reads(h) == []
    later(h, LATE)
    await send_once(channel, Outgoing("two"), nonces.outbox(43), nonces.PRIVATE)  # a first try, late or not
    assert history_reads(h) == []
    assert [m.content for m in h.si.channel_messages(h.channel)] == ["one", "two"]


async def test_a_post_that_never_reached_discord_is_posted_once_when_tried_late(table: Harness) -> None:
    """The first try failed without effect: the late try finds nothing of it, posts, and from
    then on its nonce covers it again (a quick retry reads no history)."""
    h = table
    assert h.bot is not None
    channel = h.bot.get_partial_messageable(h.channel)
    ids = nonces.outbox(44)

    async def send() -> Any:
        return await send_once(channel, Outgoing("the notice"), ids, nonces.PRIVATE)

    await channel.send("the notice")  # the same words, before the first try: not this post
    later(h, 2 * posting.SLACK.total_seconds())
    await cut_off(h, h.channel, send, mode="before")
    later(h, LATE + 3600)
    sent = await send()
    assert [m.content for m in h.si.channel_messages(h.channel)] == ["the notice", "the notice"]
    assert h.si.messages[sent.id].nonce == ids(nonces.PRIVATE)
    assert len(history_reads(h)) == 1
    assert (await send()).id == sent.id
    assert len(history_reads(h)) == 1


async def test_thread_lines_tried_late_with_more_lines_post_only_the_new_ones(table: Harness) -> None:
    """A group of lines was posted, its worker killed before marking it sent; tried again
    after the nonce's window with a later row's lines too, only those are posted."""
    h = table
    assert h.bot is not None
    channel = h.bot.get_partial_messageable(h.channel)
    first = ["• one", "• two", "• three"]
    await cut_off(h, h.channel, lambda: h.bot.delivery.send_lines(channel, first, nonces.outbox(7)))  # type: ignore[union-attr]
    later(h, LATE)
    await h.bot.delivery.send_lines(channel, [*first, "• four", "• five"], nonces.outbox(7))
    assert [m.content for m in h.si.channel_messages(h.channel)] == ["• one\n• two\n• three", "• four\n• five"]


async def test_the_expiry_notices_of_two_deadlines_are_two_messages(table: Harness) -> None:
    """A game that waits on keeps its version while one deadline follows another: each
    deadline's notices have nonces of their own, so the second is not taken for a try again
    of the first (and found in the channel instead of posted)."""
    h = table
    assert h.bot is not None
    channel = h.bot.get_partial_messageable(h.channel)
    due = utcnow().replace(second=0, microsecond=0)
    for period in range(2):
        ids = nonces.deadline(1, nonces.minute(due + timedelta(hours=period)), nonces.WAITS)
        await send_once(channel, Outgoing("⌛ red let the deadline pass; the game waits."), ids, nonces.LINES)
        later(h, 3600)
    assert len(h.si.channel_messages(h.channel)) == 2


async def test_the_record_of_a_post_goes_once_it_is_older_than_kept(table: Harness) -> None:
    h = table
    assert h.bot is not None
    store = h.bot.store
    now = utcnow()
    assert await store.tried("o.old", now - posting.KEPT - timedelta(hours=2), posting.KEPT) is None
    assert await store.tried("o.recent", now - posting.KEPT + timedelta(hours=2), posting.KEPT) is None
    assert await store.tried("o.new", now, posting.KEPT) is None  # an hour after the last pruning: prunes
    assert await store.tried("o.old", now, posting.KEPT) is None, "gone, so recorded anew"
    assert await store.tried("o.recent", now, posting.KEPT) == now - posting.KEPT + timedelta(hours=2)
