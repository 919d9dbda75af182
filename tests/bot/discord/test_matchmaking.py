"""``/game seek`` through the real bot and the Discord stand-in (issue 29): six tickets of
mixed ratings for 1212 make three games pairing the nearest ratings, each opened in its own
thread with its players told by DM; a ticket survives a restart; an expired ticket is gone;
refusals are ephemeral and say why."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from bot.service import GameService
from tests.bot.discord.conftest import FAST, Clock, Harness, delivered
from tests.standin import StandIn


@pytest.fixture
async def seeking(standin: StandIn, tmp_path: Path, clock: Clock) -> AsyncIterator[Harness]:
    """The table on the test's clock; a pool is matched once its oldest ticket waited a minute."""
    async with Harness(standin, tmp_path / "data", replace(FAST, now=clock, seek_gather_seconds=60)) as h:
        yield h


def rate(h: Harness, user: int, mu: float, sigma: float) -> None:
    """A rating of 1212 on the test server, as earlier games would have left it."""
    with sqlite3.connect(h.data_dir / "alcazaba.db") as conn:
        conn.execute("INSERT INTO rating (guild_id, game_id, entry, user_id, mu, sigma, games, wins, last_name, "
                     "updated_at) VALUES (?, 'navas', ?, ?, ?, ?, 12, 6, '', '2026-11-01 00:00:00')",
                     (h.guild, f"u:{user}", user, mu, sigma))


async def matcher_pass(h: Harness, clock: Clock, minutes: float) -> None:
    clock.offset += timedelta(minutes=minutes)
    assert h.bot is not None
    cog = h.bot.get_cog("Matchmaker")
    cog.wake.set()  # type: ignore[union-attr]
    await h.si.wait_quiet(1.0, 30)


async def test_six_tickets_make_three_games_of_the_nearest_ratings(seeking: Harness, clock: Clock) -> None:
    h = seeking
    users = [h.alice, h.bob, h.carol, h.mod]
    for name in ("dave", "erin"):
        user = h.si.add_user(name)
        h.si.add_member(h.guild, user)
        users.append(user)
    # Conservative ratings (mu - 3 sigma): 34, 32, newcomer 0, 4, 6, 21.
    for user, known in zip(users, [(40, 2), (38, 2), None, (10, 2), (12, 2), (30, 3)], strict=True):
        if known is not None:
            rate(h, user, *known)
    for user in users:
        answer = h.answers(await h.cmd(user, "game seek", game="navas", pace="24h"))[-1]
        assert answer.ephemeral and answer.content.startswith("Ticket #")
    listed = h.answers(await h.cmd(h.alice, "game seek"))[-1].content
    assert listed.startswith("Your tickets:\n• #1 1212") and "24h per move" in listed

    await matcher_pass(h, clock, 2)
    svc = GameService.open(h.settings.db_url)
    try:
        games = await svc.games(status="running")
        pairs = {frozenset(s.user_id for s in g.seats) for g in games}
        assert pairs == {frozenset({users[0], users[1]}), frozenset({users[3], users[4]}),
                         frozenset({users[2], users[5]})}
        assert all(g.thread_id is not None and g.pace == "24h" for g in games)
        await delivered(h, svc)
    finally:
        await svc.close()
    for g in games:
        thread = h.si.channels[g.thread_id or 0]
        assert thread.parent_id == h.channel
        # The thread opens with the lobby (before the "begins" line), which names the game as
        # matched (it has no creator) and says it is under way.
        first, *rest = h.si.channel_messages(thread.id)
        assert first.content.startswith(f"**1212 Las Navas de Tolosa #{g.id}** — matched by /game seek\n"), \
            first.content
        assert "Seats:" in first.content and "under way" in first.content and first.components == []
        assert any("begins." in m.content for m in rest)
        for seat in g.seats:
            dms = " ".join(m.content for m in h.dm_messages(seat.user_id or 0))
            assert f"Matchmaking found your game: #{g.id}" in dms and f"You play **{seat.role}**" in dms
    announced = [m.content for m in h.si.channel_messages(h.channel) if m.content.startswith("🎯 Matchmaking")]
    assert len(announced) == 3
    assert h.answers(await h.cmd(h.alice, "game seek"))[-1].content.startswith("You hold no ticket.")


async def test_a_ticket_survives_a_restart_and_an_expired_one_is_gone(seeking: Harness, clock: Clock) -> None:
    h = seeking
    await h.cmd(h.alice, "game seek", game="navas", pace="live")
    await h.cmd(h.carol, "game seek", game="granada_city", pace="48h", players=3)
    await h.stop()
    await h.start()
    listed = h.answers(await h.cmd(h.alice, "game seek"))[-1].content
    assert "#1 1212" in listed and "no clock" in listed

    # Bob's ticket meets Alice's: one game, whichever process made the ticket.
    await h.cmd(h.bob, "game seek", game="navas", pace="live")
    await matcher_pass(h, clock, 2)
    svc = GameService.open(h.settings.db_url)
    try:
        (game,) = await svc.games(status="running")
        assert {s.user_id for s in game.seats} == {h.alice, h.bob}
        # Carol's game of three finds nobody; after two days her ticket is gone.
        assert [t.status for t in await svc.tickets(h.guild, h.carol, status=None)] == ["open"]
        await matcher_pass(h, clock, 60 * 24 * 3 + 1)
        for _ in range(100):
            if [t.status for t in await svc.tickets(h.guild, h.carol, status=None)] == ["expired"]:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the ticket did not expire")
    finally:
        await svc.close()
    assert h.answers(await h.cmd(h.carol, "game seek"))[-1].content.startswith("You hold no ticket.")


async def test_seek_refusals(seeking: Harness) -> None:
    h = seeking
    await h.cmd(h.alice, "game seek", game="navas", pace="72h")
    cases = [
        (h.alice, {"game": "navas", "pace": "72h"}, "You are waiting for that game already (ticket #1)."),
        (h.alice, {"game": "chess"}, "There is no game 'chess'"),
        (h.alice, {"game": "navas", "players": 4}, "1212 Las Navas de Tolosa is played by 2, not 4."),
        (h.bob, {"cancel": 1}, "You hold no ticket #1 on this server."),
    ]
    for user, options, expected in cases:
        answer = h.answers(await h.cmd(user, "game seek", **options))[-1]
        assert answer.ephemeral and answer.content.startswith(expected), answer.content
    done = h.answers(await h.cmd(h.alice, "game seek", cancel=1))[-1]
    assert done.ephemeral and done.content == "Ticket #1 withdrawn."
