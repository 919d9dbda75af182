"""Forced steps on Discord (issue 38), through the real discord.py client against the stand-in:
a player is never sent a prompt whose only button decides nothing; the clicked DM says which
step was taken for him; ``/prefs confirm_forced:True`` asks for them instead; an entry that
cannot be taken back says so on its button. The forced race (tests/bot/forcedgame.py) stands
in for a rules engine."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import engine
from bot.service import CONFIRM_FORCED, GameService
from tests.bot import forcedgame
from tests.bot.discord.conftest import Harness, components
from tests.bot.discord.test_play import button, prompt_of
from tests.standin import Message


@pytest.fixture(autouse=True)
def forced_registered() -> Iterator[None]:
    engine.GAMES[forcedgame.id] = forcedgame
    yield
    engine.GAMES.pop(forcedgame.id, None)


def labels(msg: Message) -> list[str]:
    return [str(c.get("label")) for c in components(msg)]


async def test_forced_steps_are_taken_and_the_next_real_decision_arrives(table: Harness, svc: GameService) -> None:
    h = table
    await h.open_game("forced", side="red", options="target=8")
    dm = await prompt_of(h, h.alice)
    # The race opened with red's "Start your turn": taken as it started; alice sees her choice.
    assert labels(dm)[:4] == ["Add 1", "Add 2", "Draw a bonus point (final: cannot be taken back)", "Bank 0 points"]
    await h.settle(await h.si.click(h.alice, dm.id, button(dm, "Add 2")))
    dm2 = await prompt_of(h, h.alice, after=dm.id)
    await h.settle(await h.si.click(h.alice, dm2.id, button(dm2, "Add 2")))
    answered = h.si.messages[dm2.id]
    assert "✅ Add 2" in answered.content
    assert "⏩ Bank 4 points (your only choice, taken automatically)" in answered.content
    # Bob's turn opened with his forced start, taken too: his first prompt is his real choice.
    bob = await prompt_of(h, h.bob)
    assert labels(bob)[:2] == ["Add 1", "Add 2"]
    assert not any("Start your turn" in label or label == "Bank 4 points"
                   for m in h.si.messages.values() for label in labels(m)), "no prompt for a forced step"
    assert (await svc.game(1)).version == 5
    assert [m["action"].get("automatic", False) for m in await svc.moves(1)] == [True, False, False, True, True]
    assert h.si.violations == []


async def test_prefs_confirm_forced_asks_for_them(table: Harness, svc: GameService) -> None:
    h = table
    thread = await h.open_game("forced", side="red", options="target=8")
    dm = await prompt_of(h, h.alice)
    prefs = await h.cmd(h.alice, "prefs", channel=thread, confirm_forced=True)
    assert "you are asked for them too" in h.answers(prefs)[-1].content
    assert (await svc.game(1)).seat("red").prefs == {CONFIRM_FORCED: True}
    await h.settle(await h.si.click(h.alice, dm.id, button(dm, "Add 2")))
    dm2 = await prompt_of(h, h.alice, after=dm.id)
    await h.settle(await h.si.click(h.alice, dm2.id, button(dm2, "Add 2")))
    asked = await prompt_of(h, h.alice, after=dm2.id)
    assert labels(asked)[:1] == ["Bank 4 points"], "asked, as she wished"
    assert (await svc.game(1)).version == 3
    # Turning it off takes the forced step waiting at once.
    off = await h.cmd(h.alice, "prefs", channel=thread, confirm_forced=False)
    assert "they are taken for you" in h.answers(off)[-1].content
    assert (await svc.game(1)).version == 5 and (await svc.game(1)).active == ["blue"]
    assert h.si.violations == []
