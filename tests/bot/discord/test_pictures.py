"""A player's pictures: a prompt carries those of his view (board, hand, the battle board
during a battle: render.pictures) that his DM has not got yet, and the bot remembers what it
sent in the database, so a restart does not send them all again. (The battle board in a DM
during a battle, and that no unchanged picture is sent again over a whole year, are checked
in test_granada_year.py.)"""

from __future__ import annotations

import asyncio

import render
from bot.discord import nonces
from bot.discord.store import Store
from bot.service import GameService
from tests.bot.discord.conftest import Harness, newest_prompt, png_ok


async def test_pictures_sent_are_remembered_across_a_restart(table: Harness) -> None:
    h = table
    si = h.si
    await h.open_game("granada", side="christian", pace="72h", seed=1)
    first = await newest_prompt(h, h.alice)
    assert sorted(f.filename for f in first.files) == ["board.png", "hand.png"]
    for f in first.files:
        png_ok(f.data)
    dm = first.channel_id

    svc = GameService.open(h.settings.db_url)
    try:
        store = Store(svc)
        for _ in range(100):  # the bot records what it sent right after sending it
            if await store.pictures_seen(1, "christian", dm):
                break
            await asyncio.sleep(0.05)
        await si.wait_quiet(0.3)
        await h.stop()
        gv = await svc.view(1, "christian", h.alice)
        drawn = {p.kind: p.digest for p in render.pictures("granada", gv.view)}
        assert await store.pictures_seen(1, "christian", dm) == {"board": drawn["board"], "hand": drawn["hand"]}
        assert await store.pictures_seen(1, "christian", dm + 1) == {}  # another place got nothing
    finally:
        await svc.close()

    await h.start()
    assert h.bot is not None
    await h.bot.delivery.send_turn(1, "christian", h.alice, ids=nonces.outbox(10**9))  # a row of its own
    again = max((m for m in h.dm_messages(h.alice)), key=lambda m: m.id)
    assert again.id != first.id and again.channel_id == dm
    assert again.files == [] and "Your hand:" not in again.content  # both pictures are in the DM already
    assert si.violations == []
