"""Deadlines, reminders, vacations and what a deadline does, on a clock the test moves
(the bot reads time through ``Tuning.now``; everything else is real)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.service import GameService
from tests.bot.discord.conftest import Clock, Harness, choices_of, components

pytestmark = pytest.mark.usefixtures("relay_registered")


@pytest.fixture
def table(clocked_table: Harness) -> Harness:
    """conftest's table on the test's clock (``clock`` moves it)."""
    return clocked_table


async def open_relay(h: Harness, svc: GameService, at_deadline: str, pace: str = "24h") -> int:
    """A relay race, alice north (to run), bob south; once its first deadline is set, its thread."""
    thread = await h.open_game("relay", side="north", pace=pace, at_deadline=at_deadline, options="laps=2", seed=1)
    for _ in range(100):
        info = await svc.game(1)
        if info.deadline_at is not None:
            break
        await h.si.wait_quiet(0.1)
    return thread


def count(h: Harness, words: str, user: int) -> int:
    return len([m for m in h.si.messages.values() if words in m.content and h.si.visible_to(m, user)
                and m.ephemeral_to is None])


async def test_reminder_then_deadline_then_another_period(table: Harness, clock: Clock, svc: GameService) -> None:
    h = table
    thread = await open_relay(h, svc, "remind")
    info = await svc.game(1)
    assert info.deadline_at is not None
    assert timedelta(hours=23, minutes=59) < info.deadline_at - info.updated_at <= timedelta(hours=24)
    clock.offset = timedelta(hours=17)
    await h.si.wait_quiet(0.8)
    assert count(h, "Reminder", h.alice) == 0  # 7 hours left: not yet
    clock.offset = timedelta(hours=19)  # less than a quarter of the time left
    await h.si.wait_message(lambda m: "Reminder" in m.content and h.si.visible_to(m, h.alice), timeout=10)
    await h.si.wait_quiet(0.8)
    assert count(h, "Reminder", h.alice) == 1 and count(h, "Reminder", h.bob) == 0
    clock.offset = timedelta(hours=25)
    await h.si.wait_message(lambda m: "ran out" in m.content and h.si.visible_to(m, h.alice), timeout=10)
    await h.si.wait_message(lambda m: m.channel_id == thread and "let the deadline pass" in m.content)
    await h.si.wait_quiet(0.8)
    assert count(h, "ran out", h.alice) == 1 and count(h, "Reminder", h.alice) == 1
    info = await svc.game(1)
    assert info.deadline_at is not None and info.deadline_at > clock() + timedelta(hours=23)
    assert info.version == 0  # remind only: nothing was played for her
    assert h.si.violations == []


async def test_autopass_at_the_deadline_and_on_reaction_prompts(table: Harness, clock: Clock, svc: GameService) -> None:
    h = table
    thread = await open_relay(h, svc, "autopass")
    # bob asks to pass reaction prompts automatically.
    await h.cmd(h.bob, "prefs", channel=thread, autopass=True)
    # alice runs a lap: bob's reaction window opens and is passed for him.
    prompt = await h.si.wait_message(lambda m: h.si.visible_to(m, h.alice) and bool(choices_of(m)))
    run = next(c["custom_id"] for c in components(prompt) if c.get("label") == "run a lap")
    await h.settle(await h.si.click(h.alice, prompt.id, run))
    for _ in range(50):
        if (await svc.game(1)).version >= 2:
            break
        await h.si.wait_quiet(0.1)
    moves = await svc.moves(1)
    assert [(m["role"], m["action"]["type"]) for m in moves] == [("north", "run"), ("south", "pass")]
    # Now it is bob's turn; his time runs out and the engine's pass is taken for him.
    info = await svc.game(1)
    assert info.active == ["south"]
    clock.offset = timedelta(hours=49)
    await h.si.wait_message(lambda m: m.channel_id == thread and "south let the deadline pass and passes" in m.content,
                            timeout=10)
    info = await svc.game(1)
    # the pass is the action marked "pass": true, whatever its type (one definition, engine.api.is_pass)
    assert info.active == ["north"] and (await svc.moves(1))[-1]["action"] == {"type": "rest", "pass": True}


async def test_claim_after_the_deadline(table: Harness, clock: Clock, svc: GameService) -> None:
    h = table
    thread = await open_relay(h, svc, "claim")
    early = await h.cmd(h.bob, "game claim", channel=thread)
    assert "Nobody in game #1 is past a deadline" in h.answers(early)[-1].content
    clock.offset = timedelta(hours=25)
    await h.si.wait_message(lambda m: m.channel_id == thread and "/game claim" in m.content, timeout=10)
    own = await h.cmd(h.alice, "game claim", channel=thread)
    assert "Only an opponent of the late player" in h.answers(own)[-1].content
    claim = await h.cmd(h.bob, "game claim", channel=thread)
    assert "You claimed game #1" in h.answers(claim)[-1].content
    info = await svc.game(1)
    assert info.status == "finished" and info.result is not None and info.result["winner"] == "south"
    assert info.result["reason"] == "north ran out of time"


async def test_vacation_pushes_the_deadline_within_the_allowance(table: Harness, clock: Clock, svc: GameService) -> None:
    h = table
    thread = await open_relay(h, svc, "remind")
    before = (await svc.game(1)).deadline_at
    assert before is not None
    away = await h.cmd(h.alice, "vacation", channel=thread, days=3)
    assert "on vacation until" in h.answers(away)[-1].content
    after = (await svc.game(1)).deadline_at
    assert after == before + timedelta(days=3)
    clock.offset = timedelta(hours=30)  # past the old deadline, well before the new one
    await h.si.wait_quiet(0.8)
    assert count(h, "ran out", h.alice) == 0 and count(h, "Reminder", h.alice) == 0
    greedy = await h.cmd(h.alice, "vacation", channel=thread, days=12)
    assert "more than your vacation allowance" in h.answers(greedy)[-1].content
    back = await h.cmd(h.alice, "vacation", channel=thread, days=0)
    assert "welcome back" in h.answers(back)[-1].content
    assert (await svc.game(1)).deadline_at < after  # type: ignore[operator]
