"""Delivery of notifications: exactly once despite lost answers (nonce + enforce_nonce),
pictures under the attachment limit Discord reports, and command sync only where asked."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa
from sqlmodel import col

from bot.discord import nonces, present
from bot.discord.client import sync_global
from bot.models import Outbox, utcnow
from bot.service import GameService
from tests.bot.discord.conftest import FAST, Harness, components, png_ok
from tests.standin import StandIn


async def test_a_thread_post_whose_answer_was_lost_is_not_posted_twice(table: Harness) -> None:
    h = table
    si = h.si
    await h.cmd(h.alice, "game new", game="toy", side="red", opponent=h.bob, seed=3)
    thread = si.threads(h.channel)[0].id
    lobby = si.channel_messages(thread)[0]
    # The next post to the thread reaches Discord, but its answer is lost (HTTP 500): the
    # client sends it again with the same nonce, and Discord hands back the first message.
    si.fault("POST", rf"^/channels/{thread}/messages$", mode="after", times=1, contains="begins")
    await h.settle(await si.click(h.bob, lobby.id, components(lobby)[0]["custom_id"]))
    await si.wait_message(lambda m: m.channel_id == thread and "begins" in m.content, timeout=20)
    await si.wait_quiet(1.5)
    tries = [r for r in si.requests if r.route == f"/channels/{thread}/messages" and r.json
             and "begins" in str(r.json.get("content"))]
    assert len(tries) == 2 and tries[0].status == 500 and tries[1].status == 200
    assert tries[0].json["nonce"] == tries[1].json["nonce"] and tries[0].json["enforce_nonce"] is True
    assert len([m for m in si.channel_messages(thread) if "begins" in m.content]) == 1
    svc = GameService.open(h.settings.db_url)
    try:
        assert await svc.outbox(1, pending_only=True) == []
    finally:
        await svc.close()


async def test_a_retried_group_with_more_lines_posts_only_the_new_ones(table: Harness) -> None:
    """A worker died after posting lines 1-3 but before marking them sent; the retry groups
    lines 1-5 under the same first row. Discord returns the old message for the old nonce;
    the worker posts lines 4-5 only."""
    h = table
    assert h.bot is not None
    channel = h.bot.get_partial_messageable(h.channel)
    first = ["• one", "• two", "• three"]
    await h.bot.delivery.send_lines(channel, first, nonces.outbox(7))
    await h.bot.delivery.send_lines(channel, [*first, "• four", "• five"], nonces.outbox(7))
    posted = [m.content for m in h.si.channel_messages(h.channel)]
    assert posted == ["• one\n• two\n• three", "• four\n• five"]


async def test_a_dead_workers_half_posted_group_is_taken_over_whole_and_in_order(
        standin: StandIn, tmp_path: Path) -> None:
    """A worker posted the lines of two steps to the thread and died before marking them
    sent; it had claimed the two rows in two passes, so their claims run out at different
    times, and a third step came after. The next worker posts nothing of the thread until it
    holds all three rows, then forms the dead worker's group again with the new row: the
    nonce gives back the old message and only the third step's line is posted."""
    h = Harness(standin, tmp_path / "data", replace(FAST, outbox_lease_seconds=2.0))
    await h.start()
    svc = GameService.open(h.settings.db_url)
    try:
        thread = await h.open_game("toy", side="red", options="target=20")
        await h.si.wait_message(lambda m: m.channel_id == thread and "begins" in m.content, timeout=20)
        while await svc.outbox(1, pending_only=True):
            await asyncio.sleep(0.1)
        await h.stop()  # the bot that will die: it holds nothing yet

        async def bank(n: int) -> None:  # distinct lines: "red banks 1 and has 1." ...
            info = await svc.game(1)
            role = info.active[0]
            seat = info.seat(role)
            assert seat is not None
            step = await svc.apply(1, role, {"type": "add", "n": n}, info.version, seat.user_id)
            await svc.apply(1, role, {"type": "bank"}, step.version, seat.user_id)

        await bank(1)
        await bank(2)
        dead = await svc.claim_outbox("dead", limit=100, kinds=("channel",), together=("channel",))
        assert [len(o.payload["lines"]) for o in dead] == [1, 1]
        async with svc.writing() as session:  # claimed in two passes, 1.5 s apart
            await session.execute(sa.update(Outbox).where(col(Outbox.id) == dead[0].id)
                                  .values(claimed_at=utcnow() - timedelta(seconds=1.5)))
        lines = [str(o.payload["lines"][0]) for o in dead]
        await h.start()
        assert h.bot is not None
        channel = h.bot.get_partial_messageable(thread)
        await h.bot.delivery.send_lines(channel, present.bullet(lines), nonces.outbox(dead[0].id))  # the dead's post
        await bank(1)
        h.bot.poke()
        third = [str(o.payload["lines"][0]) for o in await svc.outbox(1) if o.kind == "channel"
                 and o.payload.get("type") == "log"][-1]
        await h.si.wait_message(lambda m: m.channel_id == thread and third in m.content, timeout=20)
        while await svc.outbox(1, pending_only=True):
            await asyncio.sleep(0.1)
        await h.si.wait_quiet(0.5)
        posted = [line.removeprefix("• ") for m in h.si.channel_messages(thread) if m.nonce and m.nonce[0] == "o"
                  for line in m.content.split("\n")]
        assert [line for line in posted if not line.startswith("▶️") and "seat." not in line] == [
            "The race begins.", *lines, third], posted
    finally:
        await svc.close()
        await h.stop()


async def test_pictures_fit_the_limit_the_interaction_reports(table: Harness) -> None:
    h = table
    si = h.si
    thread = await h.open_game("navas", side="christian", pace="live", seed=4)
    await si.wait_quiet(0.5)
    full = await h.cmd(h.carol, "map", channel=thread)
    size = len(h.answers(full)[-1].files[0].data)
    si.attachment_limit = size // 2  # a smaller limit, reported in the interaction payload
    small = await h.cmd(h.carol, "map", channel=thread)
    (answer,) = h.answers(small)
    (picture,) = answer.files
    assert len(picture.data) <= si.attachment_limit and answer.ephemeral
    width, height = png_ok(picture.data)
    assert width < png_ok(h.answers(full)[-1].files[0].data)[0]
    close = await h.cmd(h.alice, "map", channel=thread, location="B4")
    assert h.answers(close)[-1].files[0].filename == "closeup.png"
    png_ok(h.answers(close)[-1].files[0].data)
    nowhere = await h.cmd(h.alice, "map", channel=thread, location="Z9")
    assert "There is no place 'Z9'" in h.answers(nowhere)[-1].content
    assert si.violations == []


async def test_commands_sync_to_the_dev_server_at_start_and_globally_only_by_alcazaba_sync(
        standin: StandIn, tmp_path: Path) -> None:
    h = Harness(standin, tmp_path / "data", None)  # type: ignore[arg-type]
    await h.start()  # DISCORD_DEV_GUILD_ID is set: guild sync only
    await h.stop()
    puts = [r.route for r in standin.requests if r.method == "PUT"]
    assert puts == [f"/applications/{standin.application_id}/guilds/{h.guild}/commands"]
    names = {c["name"] for c in standin.guild_commands[h.guild]}
    assert names == {"game", "play", "undo", "status", "map", "hand", "log", "prefs", "vacation",
                     "rating", "leaderboard", "stats", "history", "server", "tournament"}  # campaigns (issue 29)
    game = next(c for c in standin.guild_commands[h.guild] if c["name"] == "game")
    assert {o["name"] for o in game["options"]} == {"new", "join", "start", "list", "resign", "abort",
                                                    "substitute", "rematch", "claim", "seek", "web"}
    identifies = len(standin.identifies)
    settings = h.settings.model_copy(update={"discord_dev_guild_id": None})
    await sync_global(settings)
    assert standin.requests[-1].method == "PUT"
    assert standin.requests[-1].route == f"/applications/{standin.application_id}/commands"
    assert {c["name"] for c in standin.global_commands} == names
    assert len(standin.identifies) == identifies  # sync logs in over HTTP only, no gateway session
    # A start without a development server syncs nothing.
    mark = len(standin.requests)
    task = asyncio.create_task(__import__("bot.discord.client", fromlist=["serve"]).serve(settings))
    await standin.wait_connected()
    await asyncio.sleep(0.3)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert [r for r in standin.requests[mark:] if r.method == "PUT"] == []


async def test_a_refused_token_stops_the_bot_with_a_sentence_and_no_secret_in_the_log(
        standin: StandIn, tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    from bot.discord.client import serve

    h = Harness(standin, tmp_path / "data", None)  # type: ignore[arg-type]
    secret = "not-the-token-" + "x" * 40
    settings = h.settings.model_copy(update={"discord_token": __import__("pydantic").SecretStr(secret)})
    with caplog.at_level("DEBUG"):
        assert await serve(settings) == 2
    assert "Discord refused the bot token" in caplog.text
    assert secret not in caplog.text
    assert standin.requests[0].route == "/users/@me" and standin.requests[0].status == 401
