"""Posts Discord refuses for good (issue 13, item 2): a post to a thread the bot lost access to
(403, code 50001) or that was deleted (404, code 10003) is tried a few times, then given up
and recorded on its row; it no longer holds back the thread's later posts, and the game's
players are told once, by DM, where the game still reaches them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.discord.cogs.delivery import PERMANENT_TRIES
from bot.service import GameService, OutboxItem
from tests.bot.discord.conftest import FAST, Harness
from tests.standin import StandIn

TOLD = "I can no longer post in the thread"


@pytest.fixture
async def table(standin: StandIn, tmp_path: Path) -> AsyncIterator[Harness]:
    """conftest's table, retrying failed deliveries after 0.2 s, 0.4 s... instead of 5 s."""
    async with Harness(standin, tmp_path / "data", replace(FAST, retry_seconds=0.2)) as h:
        yield h


async def bank(h: Harness, svc: GameService, n: int) -> None:
    """The seat to move adds ``n`` and banks (a public line: "red banks n and has ...")."""
    info = await svc.game(1)
    role = info.active[0]
    seat = info.seat(role)
    assert seat is not None
    step = await svc.apply(1, role, {"type": "add", "n": n}, info.version, seat.user_id)
    await svc.apply(1, role, {"type": "bank"}, step.version, seat.user_id)
    assert h.bot is not None
    h.bot.poke()


async def settled(svc: GameService, rows: list[int]) -> list[OutboxItem]:
    """The rows once each is sent or given up."""
    for _ in range(300):
        items = [o for o in await svc.outbox(1) if o.id in rows]
        if all(o.sent_at is not None or o.failed_at is not None for o in items):
            return items
        await asyncio.sleep(0.1)
    raise AssertionError(f"rows {rows} were neither sent nor given up: {await svc.outbox(1, pending_only=True)}")


def told(h: Harness, user: int) -> int:
    return len([m for m in h.dm_messages(user) if TOLD in m.content])


async def test_lost_access_is_given_up_told_once_and_holds_nothing_back(table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    thread = await h.open_game("toy", side="red", options="target=20")
    await si.wait_message(lambda m: m.channel_id == thread and "begins" in m.content, timeout=20)
    before = {o.id for o in await svc.outbox(1)}
    si.revoke_access(thread)
    await bank(h, svc, 1)
    lost = [o.id for o in await svc.outbox(1) if o.id not in before and o.kind == "channel"]
    assert lost
    for row in await settled(svc, lost):
        assert row.sent_at is None and row.failed_at is not None
        assert row.attempts == PERMANENT_TRIES and "50001" in (row.last_error or "")
    for user in (h.alice, h.bob):
        await si.wait_message(lambda m, u=user: TOLD in m.content and si.visible_to(m, u), timeout=20)
    note = next(m for m in h.dm_messages(h.alice) if TOLD in m.content)
    assert "/status game:1" in note.content
    # The thread comes back: the next post goes at once, not held back by the given-up one.
    si.no_access.discard(thread)
    await bank(h, svc, 2)
    await si.wait_message(lambda m: m.channel_id == thread and "blue banks 2" in m.content, timeout=20)
    # Lost again: the rows are given up again, but the players were told already.
    si.revoke_access(thread)
    before = {o.id for o in await svc.outbox(1)}
    await bank(h, svc, 1)
    again = [o.id for o in await svc.outbox(1) if o.id not in before and o.kind == "channel"]
    assert all(o.failed_at is not None for o in await settled(svc, again))
    await si.wait_quiet(0.5)
    assert told(h, h.alice) == 1 and told(h, h.bob) == 1
    assert await svc.outbox(1, pending_only=True) == []
    assert si.violations == []


async def test_a_deleted_thread_is_given_up_and_the_prompts_go_on_by_dm(table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    thread = await h.open_game("toy", side="red", options="target=20")
    await si.wait_message(lambda m: m.channel_id == thread and "begins" in m.content, timeout=20)
    si.delete_channel(thread)
    before = {o.id for o in await svc.outbox(1)}
    await bank(h, svc, 2)
    rows = [o.id for o in await svc.outbox(1) if o.id not in before]
    items = await settled(svc, rows)
    channel_rows = [o for o in items if o.kind == "channel"]
    assert channel_rows and all(o.failed_at is not None and "10003" in (o.last_error or "") for o in channel_rows)
    assert all(o.sent_at is not None for o in items if o.kind == "dm")  # bob's prompt came
    await si.wait_message(lambda m: si.visible_to(m, h.bob) and "It is your turn" in m.content
                          and m.ephemeral_to is None, timeout=20)
    for user in (h.alice, h.bob):
        await si.wait_message(lambda m, u=user: TOLD in m.content and si.visible_to(m, u), timeout=20)
    await si.wait_quiet(0.5)
    assert told(h, h.alice) == 1 and told(h, h.bob) == 1
    assert si.violations == []
