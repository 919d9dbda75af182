"""The stand-in refuses what Discord refuses, so that the bot's tests can trust a pass.

Driven by a bare discord.py client (not our bot): each test makes the client break one rule
and checks the stand-in says no, the way Discord does.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import yarl
from discord import app_commands

from tests.standin import StandIn
from tests.standin.server import ApiError


class Bare:
    def __init__(self, si: StandIn) -> None:
        self.si = si
        self.owner = si.add_user("owner")
        self.guild = si.add_guild("g", self.owner)
        self.channel = si.add_text_channel(self.guild, "general")
        self.user = si.add_user("user")
        si.add_member(self.guild, self.user)
        self.client = discord.Client(intents=discord.Intents(guilds=True))
        self.tree = app_commands.CommandTree(self.client)
        self.behaviour: dict[str, Any] = {}

        @self.tree.command(name="twice", description="answers twice")
        async def twice(inter: discord.Interaction) -> None:
            await inter.response.send_message("one", ephemeral=True)
            try:
                await inter.response.send_message("two")
            except discord.InteractionResponded:
                # discord.py guards its own object; go around it like a careless bot would.
                route = discord.http.Route("POST", "/interactions/{i}/{t}/callback", i=inter.id, t=inter.token)
                try:
                    await self.client.http.request(route, json={"type": 4, "data": {"content": "two"}})
                except discord.HTTPException as exc:
                    self.behaviour["second"] = exc.code

        @self.tree.command(name="slow", description="answers late")
        async def slow(inter: discord.Interaction) -> None:
            await asyncio.sleep(3.3)
            try:
                await inter.response.send_message("late")
            except discord.NotFound as exc:
                self.behaviour["late"] = exc.code

        @self.tree.command(name="defer", description="defers ephemerally, then follows up publicly")
        async def defer(inter: discord.Interaction) -> None:
            await inter.response.defer(ephemeral=True, thinking=True)
            await inter.followup.send("secret?", ephemeral=False)

        async def setup_hook() -> None:
            self.tree.copy_global_to(guild=discord.Object(self.guild))
            await self.tree.sync(guild=discord.Object(self.guild))

        self.client.setup_hook = setup_hook  # type: ignore[method-assign]


@pytest.fixture
async def bare() -> AsyncIterator[Bare]:
    si = StandIn()
    await si.start()
    b = Bare(si)
    old_base, old_gw = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = si.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(si.gateway_url)
    task = asyncio.create_task(b.client.start(si.token))
    await si.wait_connected()
    await si.wait_for(lambda r: r.method == "PUT" and "commands" in r.route)
    yield b
    await b.client.close()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_base, old_gw
    await si.stop()


async def test_a_second_answer_is_refused_and_recorded(bare: Bare) -> None:
    inter = await bare.si.slash(bare.user, bare.channel, "twice")
    await bare.si.answered(inter)
    await bare.si.wait_quiet(0.3)
    assert bare.behaviour["second"] == 40060
    assert bare.si.violations == [f"interaction {inter.id} answered twice"]
    assert inter.ephemeral and bare.si.messages[inter.original_id or 0].content == "one"


async def test_an_answer_after_three_seconds_is_refused(bare: Bare) -> None:
    inter = await bare.si.slash(bare.user, bare.channel, "slow")
    await asyncio.sleep(3.6)
    await bare.si.wait_quiet(0.3)
    assert bare.behaviour["late"] == 10062
    assert inter.response_type is None
    assert bare.si.violations and "answered after" in bare.si.violations[0]


async def test_the_followup_of_an_ephemeral_defer_stays_ephemeral(bare: Bare) -> None:
    inter = await bare.si.slash(bare.user, bare.channel, "defer")
    await bare.si.answered(inter)
    await bare.si.wait_quiet(0.3)
    msg = bare.si.messages[inter.original_id or 0]
    assert msg.content == "secret?" and msg.ephemeral and msg.ephemeral_to == bare.user
    assert msg not in bare.si.public_messages()
    assert not bare.si.visible_to(msg, bare.owner)


async def test_unknown_options_and_commands_cannot_be_typed(bare: Bare) -> None:
    with pytest.raises(LookupError):
        await bare.si.slash(bare.user, bare.channel, "nosuch")
    with pytest.raises(LookupError):
        await bare.si.slash(bare.user, bare.channel, "twice", extra="x")


async def test_closed_dms_nonce_and_limits(bare: Bare) -> None:
    si = bare.si
    si.close_dms(bare.user)
    user = await bare.client.fetch_user(bare.user)
    with pytest.raises(discord.Forbidden) as refused:
        await user.send("hello")
    assert refused.value.code == 50007
    channel = bare.client.get_partial_messageable(bare.channel)
    first = await channel.send("once", nonce="n1")
    again = await channel.send("once more", nonce="n1")  # same nonce: Discord returns the first
    assert first.id == again.id and again.content == "once"
    with pytest.raises(discord.HTTPException) as too_long:
        await channel.send("x" * 2001)
    assert too_long.value.code == 50035
    si.attachment_limit = 1000
    with pytest.raises(discord.HTTPException) as too_big:
        await channel.send(file=discord.File(__import__("io").BytesIO(b"\0" * 2000), "big.bin"))
    assert too_big.value.status == 413
    assert isinstance(ApiError(400, 1, "x").body(), dict)


async def test_a_repeated_nonce_returns_the_old_message_whatever_the_channel(bare: Bare) -> None:
    """As strict as Discord: a nonce the same author sent with enforce_nonce in the last
    minutes gives back that OLD message (its channel, its content), in any channel, and
    posts nothing."""
    si = bare.si
    other = si.add_text_channel(bare.guild, "other")
    first = await bare.client.get_partial_messageable(bare.channel).send("first", nonce="n2")
    again = await bare.client.get_partial_messageable(other).send("second, elsewhere", nonce="n2")
    assert again.id == first.id and again.content == "first"
    assert si.channel_messages(other) == []
    sent = [r for r in si.requests if r.route.endswith("/messages") and r.method == "POST"]
    assert all(r.json["enforce_nonce"] is True for r in sent)
    assert sent[-1].response["channel_id"] == str(bare.channel)  # the old message, where it is


async def test_a_deleted_thread_and_a_lost_access_are_refused_as_discord_does(bare: Bare) -> None:
    si = bare.si
    channel = bare.client.get_partial_messageable(bare.channel)
    si.revoke_access(bare.channel)
    with pytest.raises(discord.Forbidden) as refused:
        await channel.send("hello")
    assert refused.value.code == 50001
    gone = si.add_text_channel(bare.guild, "gone")
    si.delete_channel(gone)
    with pytest.raises(discord.NotFound) as missing:
        await bare.client.get_partial_messageable(gone).send("hello")
    assert missing.value.code == 10003


async def test_a_nonce_is_forgotten_once_its_window_has_passed(bare: Bare) -> None:
    """Discord remembers a nonce for minutes only: past the window the same nonce posts a
    second message (what a bot restarted late meets), and the new one is stamped later."""
    from tests.standin.server import NONCE_WINDOW_S

    si = bare.si
    channel = bare.client.get_partial_messageable(bare.channel)
    first = await channel.send("once", nonce="n3")
    si.advance(NONCE_WINDOW_S - 5)
    assert (await channel.send("once", nonce="n3")).id == first.id
    si.advance(10)
    late = await channel.send("once", nonce="n3")
    assert late.id != first.id and [m.content for m in si.channel_messages(bare.channel)] == ["once", "once"]
    assert (late.created_at - first.created_at).total_seconds() >= NONCE_WINDOW_S


async def test_the_history_of_a_channel_is_read_as_discord_gives_it(bare: Bare) -> None:
    """GET /channels/{id}/messages: newest first whatever the anchor, ``after`` gives the
    oldest messages after the id, deleted messages are gone, and a limit out of 1..100 or two
    anchors at once are refused."""
    si = bare.si
    channel = bare.client.get_partial_messageable(bare.channel)
    sent = []
    for i in range(6):
        # a millisecond apart at least, as messages in a channel are: a timestamp (and the
        # time in a snowflake, which ``after=<datetime>`` compares) counts milliseconds, so two
        # messages sent within one would be equal in time and the order asserted below unknown
        if sent:
            await asyncio.sleep(0.002)
        sent.append(await channel.send(f"m{i}"))
    await sent[2].delete()
    assert [m.content async for m in channel.history(limit=3)] == ["m5", "m4", "m3"]
    assert [m.content async for m in channel.history(after=sent[0], limit=2)] == ["m1", "m3"]
    assert [m.content async for m in channel.history(before=sent[4], limit=10)] == ["m3", "m1", "m0"]
    assert [m.content async for m in channel.history(after=sent[1].created_at, limit=10)] == ["m3", "m4", "m5"]
    raw = await bare.client.http.logs_from(bare.channel, 2, after=sent[0].id)
    assert [m["content"] for m in raw] == ["m3", "m1"]  # the oldest two after it, newest first
    assert raw[0]["timestamp"] > raw[1]["timestamp"]
    for bad in (0, 101):
        with pytest.raises(discord.HTTPException) as refused:
            await bare.client.http.logs_from(bare.channel, bad)
        assert refused.value.code == 50035
    with pytest.raises(discord.HTTPException) as both:
        await bare.client.http.logs_from(bare.channel, 10, before=sent[4].id, after=sent[0].id)
    assert both.value.code == 50035
    si.revoke_access(bare.channel)
    with pytest.raises(discord.Forbidden):
        await bare.client.http.logs_from(bare.channel, 10)
