"""A whole game of *1212 Las Navas de Tolosa* played through Discord only: two players
clicking the buttons of their DMs, a spectator looking on, and the checks that nothing
private reached the game's thread, in words or in pictures."""

from __future__ import annotations

from typing import Any

import pytest

import engine
import render.navas
from bot.service import GameService
from engine.api import visible_log
from tests.bot.discord.conftest import Harness, drive, is_dm, move_number, png_ok, replay_states
from tests.standin import Interaction
from tests.standin.server import DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, MESSAGE_COMPONENT

pytestmark = pytest.mark.slow


async def test_a_whole_game_of_1212_through_discord(table: Harness, rng) -> None:
    h = table
    si = h.si
    thread = await h.open_game("navas", side="christian", pace="live", seed=16)

    spectator_maps: list[Interaction] = []
    seen = [0]

    async def spectator_looks(info: Any, role: str, inter: Interaction) -> None:
        seen[0] += 1
        if seen[0] % 50 == 0:
            look = await si.slash(h.carol, thread, "map")
            await h.settle(look)
            spectator_maps.append(look)

    clicks = await drive(h, 1, rng, on_step=spectator_looks)
    await si.wait_message(lambda m: m.channel_id == thread and "🏁" in m.content, timeout=30)
    await si.wait_quiet(0.5)

    svc = GameService.open(h.settings.db_url)
    try:
        info = await svc.game(1)
        assert info.status == "finished" and info.result is not None
        assert (await svc.replay_check(1)).ok
        exported = await svc.export(1)
        assert all(m["seq"] == n for n, m in enumerate(exported["moves"], start=1))  # no undo: version = move
        assert clicks >= len(exported["moves"])
        assert await svc.outbox(1, pending_only=True) == []
        line_rows = [r for r in await svc.outbox(1) if r.kind == "channel" and r.payload.get("lines")]
    finally:
        await svc.close()
    states = replay_states(exported)
    final = states[-1]

    # Discord's rules: every interaction answered once, in time, the right way.
    assert si.violations == []
    for inter in si.interactions.values():
        assert inter.latency is not None and inter.latency < 3.0
        if inter.type == MESSAGE_COMPONENT:
            prompt = inter.payload["data"]["custom_id"].startswith(("az:a:", "az:s:"))
            assert inter.response_type == (DEFERRED_UPDATE if prompt else DEFERRED_CHANNEL_MESSAGE)
        else:
            assert inter.response_type == DEFERRED_CHANNEL_MESSAGE and inter.ephemeral

    # The thread: grouped public log, maps, the result.
    posts = si.channel_messages(thread)
    public_lines = [e["text"] for e in visible_log(final["log"], None)]
    log_posts = [m for m in posts if m.content.startswith("• ")]
    posted_lines = [line[2:] for m in log_posts for line in m.content.split("\n")]
    assert [t for t in posted_lines if t in public_lines] == [t for t in public_lines if t in posted_lines]
    assert set(public_lines) <= set(posted_lines)
    # Grouped: a step's lines share one post, and a burst of steps shares one (how many steps
    # a burst holds depends on the machine's pace, so only the bound is certain).
    assert len(log_posts) <= len(line_rows) < len(public_lines)
    maps = [m for m in posts if m.files]
    assert len(maps) >= final["round"]  # at least one map per round (each phase's end has one)
    assert any("🏁" in m.content and ("wins" in m.content or "No winner" in m.content) for m in posts)

    # Nothing private in public: no private log line, and every public picture is the
    # spectator's board at the move it names.
    private = {e["text"] for e in final["log"] if "to" in e} - set(public_lines)
    assert private, "the game had private lines to hide"
    for msg in si.public_messages():
        for text in msg.texts():
            assert not any(p in text for p in private), text
        for f in msg.files:
            png_ok(f.data)
            version = move_number(msg.content)
            spectator = engine.get("navas").view(states[version], None)
            assert f.data == render.navas.board(spectator), f"map of move {version} is not the spectator's"
    assert len(spectator_maps) >= 3
    for look in spectator_maps:
        (answer,) = h.answers(look)
        assert answer.ephemeral and answer.files
        version = move_number(answer.content)
        assert answer.files[0].data == render.navas.board(engine.get("navas").view(states[version], None))

    # The players' DMs: their own boards and hands, never the other's private lines.
    for user, role, other in ((h.alice, "christian", "muslim"), (h.bob, "muslim", "christian")):
        dms = h.dm_messages(user)
        assert all(is_dm(si, m) for m in dms)
        pictures = [(m, f) for m in dms for f in m.files]
        assert any(f.filename == "hand.png" for _, f in pictures)
        m, f = next((m, f) for m, f in pictures if f.filename == "board.png")
        png_ok(f.data)
        version = move_number(m.content)
        assert f.data == render.navas.board(engine.get("navas").view(states[version], role))
        theirs = {e["text"] for e in final["log"] if e.get("to") == [other]}
        mine = {e["text"] for e in final["log"] if role in e.get("to", [role])}
        for msg in dms:
            assert not any(t in msg.content for t in theirs - mine)
        assert any("is over" in msg.content for msg in dms)  # the end, by DM too
