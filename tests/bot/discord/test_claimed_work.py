"""A game's deadline and built-in player's turn are claimed (bot/service/claims.py) by the bot
process that does them, so that of several processes on one database one does the work, and
another takes it over when the first dies (issue 13 item 3). Here one real bot against the
Discord stand-in, on a real SQLite file, and "another process" that holds a claim and dies
is the test's own connection to the database (the two-process version, with real processes
and a kill, is tests/reliability/test_shard_processes.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

from bot.models import utcnow
from bot.service import GameService
from tests.bot.discord.conftest import FAST, Clock, Harness
from tests.standin import StandIn

pytestmark = pytest.mark.usefixtures("relay_registered")

DEAD = "discord-dead-process"


async def let_the_lease_run_out(svc: GameService, kind: str, game: int) -> None:
    """The dead holder's claim as it is once its lease is over: its expiry an hour ago (the
    claim of the same worker renews it, here into the past)."""
    assert await svc.claim_game(kind, DEAD, game, 60, now=utcnow() - timedelta(hours=1))


@pytest.fixture
async def quick_lease(standin: StandIn, tmp_path: Path) -> AsyncIterator[Harness]:
    """The table with a lease of 0.6 s: the bot renews a claim every 0.2 s while it works."""
    async with Harness(standin, tmp_path / "data", replace(FAST, claim_lease_seconds=0.6)) as h:
        yield h


async def test_a_due_deadline_claimed_by_a_dead_process_is_handled_once_its_lease_ran_out(
        clocked_table: Harness, clock: Clock, svc: GameService) -> None:
    h = clocked_table
    thread = await h.open_game("relay", side="north", pace="24h", at_deadline="remind", options="laps=2", seed=1)
    # The deadline is committed before the claim under which it was set is released: wait for
    # both (under load the release can come a moment after the deadline is seen).
    for _ in range(100):
        if (await svc.game(1)).deadline_at is not None and \
                [(c.kind, c.claimed_by) for c in await svc.claims(1)] == [("deadline", None)]:
            break
        await h.si.wait_quiet(0.1)
    assert (await svc.game(1)).deadline_at is not None, "the game's clock is set"
    assert [(c.kind, c.claimed_by) for c in await svc.claims(1)] == [("deadline", None)], \
        "the bot claims the game's clock to set it, and releases it"
    # Another process claims the game's clock for an hour, and dies.
    assert await svc.claim_game("deadline", DEAD, 1, 3600)
    clock.offset = timedelta(hours=25)
    await h.si.wait_quiet(1.0)  # five deadline passes at least
    assert not [m for m in h.si.messages.values() if "ran out" in m.content], "taken before the lease ran out"
    await let_the_lease_run_out(svc, "deadline", 1)
    await h.si.wait_message(lambda m: "ran out" in m.content and h.si.visible_to(m, h.alice), timeout=10)
    await h.si.wait_message(lambda m: m.channel_id == thread and "let the deadline pass" in m.content, timeout=10)
    await h.si.wait_quiet(0.8)
    assert len([m for m in h.si.messages.values() if "ran out" in m.content]) == 1
    assert [(c.kind, c.claimed_by) for c in await svc.claims(1)] == [("deadline", None)]


async def test_a_built_in_turn_claimed_by_a_dead_process_is_played_once_its_lease_ran_out(
        table: Harness, svc: GameService) -> None:
    h = table
    assert h.bot is not None
    info = await svc.create_game("relay", {"laps": 1}, seed=3, created_by=h.alice, guild_id=h.guild,
                                 channel_id=h.channel)
    await svc.join(info.id, None, "built-in player", "north", is_bot=True)
    await svc.join(info.id, h.alice, "alice", "south")
    # Another process claimed the built-in player's turn and died before it moved.
    assert await svc.claim_game("bots", DEAD, info.id, 3600)
    await svc.start(info.id)
    h.bot.run_bots(info.id)  # what a command that left the turn to the built-in player does
    await h.si.wait_quiet(1.5)  # the deadline pass, which looks for turns left behind, ran
    assert (await svc.game(info.id)).version == 0, "the turn was played under another process's claim"
    await let_the_lease_run_out(svc, "bots", info.id)
    for _ in range(200):
        if (await svc.game(info.id)).version >= 1:
            break
        await asyncio.sleep(0.05)
    moves = await svc.moves(info.id)
    assert moves and moves[0]["role"] == "north"
    for _ in range(100):
        if [c.claimed_by for c in await svc.claims(info.id)] == [None]:
            break
        await asyncio.sleep(0.05)
    assert [(c.kind, c.claimed_by) for c in await svc.claims(info.id)] == [("bots", None)]


async def test_work_longer_than_the_lease_keeps_its_claim_and_stops_when_it_loses_it(
        quick_lease: Harness, svc: GameService) -> None:
    h = quick_lease
    bot = h.bot
    assert bot is not None
    info = await svc.create_game("relay", {}, seed=4, created_by=h.alice, guild_id=h.guild, channel_id=h.channel)
    assert await svc.claim_game("bots", bot.worker_id, info.id, 0.6)
    seen: list[str | None] = []

    async def think_long() -> str:
        # Four leases long: a search at a high level on a slow machine.
        for _ in range(12):
            await asyncio.sleep(0.2)
            seen.extend(c.claimed_by for c in await svc.claims(info.id))
        return "decided"

    assert await bot.holding("bots", info.id, think_long()) == "decided"
    assert set(seen) == {bot.worker_id}
    [claim] = await svc.claims(info.id)
    assert claim.expires_at is not None and claim.expires_at > utcnow()
    # Renewed all along: nobody else could take it meanwhile, and a claim at its end fails.
    assert not await svc.claim_game("bots", "other", info.id, 0.6)

    # The claim is lost (this process stalled past its lease and another took it): the work
    # is stopped rather than finished.
    stopped = asyncio.Event()

    async def think_forever() -> str:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return "decided"

    async def steal() -> None:
        await asyncio.sleep(0.3)
        assert await svc.claim_game("bots", "other", info.id, 3600, now=utcnow() + timedelta(minutes=1))

    outcome, _ = await asyncio.wait_for(asyncio.gather(bot.holding("bots", info.id, think_forever()), steal()),
                                        timeout=20)
    assert outcome is None and stopped.is_set()
    assert [c.claimed_by for c in await svc.claims(info.id)] == ["other"]


async def test_a_process_without_the_games_shard_steps_in_a_lease_after_its_deadline(
        clocked_table: Harness, clock: Clock, svc: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shard's own process handles a deadline when it is due; any other process only once
    it has been due a lease (30 s), so it never races a living owner, yet takes over a dead one's."""
    h = clocked_table
    assert h.bot is not None
    await h.open_game("relay", side="north", pace="24h", at_deadline="remind", options="laps=2", seed=1)
    for _ in range(300):
        # the clock is set and no pass still holds a claim taken before the jump below (a
        # claim that outlives its lease on the bot's clock is lost, and its work stopped)
        if (await svc.game(1)).deadline_at is not None and all(c.claimed_by is None for c in await svc.claims(1)):
            break
        await h.si.wait_quiet(0.1)
    clock.offset = timedelta(hours=19)  # the owner reminds her
    await h.si.wait_message(lambda m: "Reminder" in m.content and h.si.visible_to(m, h.alice), timeout=30)
    for _ in range(300):
        if (await svc.game(1)).reminded_at is not None:
            break
        await h.si.wait_quiet(0.1)
    info = await svc.game(1)
    assert info.deadline_at is not None and info.reminded_at is not None
    # From now on this bot is another process than the one running the server's shard.
    monkeypatch.setattr(h.bot, "owns", lambda guild_id: False)
    clock.offset = info.deadline_at + timedelta(seconds=10) - utcnow()
    await h.si.wait_quiet(1.0)  # several deadline passes, 10 s (bot's clock) past the deadline
    assert not [m for m in h.si.messages.values() if "ran out" in m.content], "a non-owner raced the owner"
    clock.offset = info.deadline_at + timedelta(seconds=31) - utcnow()
    await h.si.wait_message(lambda m: "ran out" in m.content and h.si.visible_to(m, h.alice), timeout=10)
