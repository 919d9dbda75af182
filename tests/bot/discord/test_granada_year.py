"""A full year of *Granada: Last Stand of the Moors* played through Discord only (1482 II,
then 1483 I and II): two players clicking their DMs, a spectator, and the checks that no
concealed block and no card in hand reached the game's thread, in words or pictures.

THE COURSE OF THE GAME. Clicking at random among everything offered (the auto-pass switch
and page turns included) ends most games in their first year: with seed 1, the Muslim player
plays a Castle Surrender card for the Alhambra, which ends the game (2.1). So the players here
follow :func:`moves_first`: a random move among those offered (a game offers every choice
at once and no page turn; auto-pass is a preference, never offered). The
seed is not fixed by hand: :func:`first_seed` plays the engine alone (no Discord) under the
same policy and generator (granada_play.py) and takes the first seed whose game reaches 1483
with both players asked something during a battle. The Discord game then takes exactly that
course, which the test checks move by move; a change of the rules that changes the course
changes the seed, not the test.
"""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import pytest

import engine
import render.granada
from bot.service import GameService
from tests.bot.discord.conftest import Harness, drive, move_number, png_ok
from tests.bot.discord.granada_play import (
    CLICKS_SEED,
    Course,
    check_dms,
    check_interactions,
    check_public,
    confirm_forced_steps,
    engine_course,
    exported_states,
    moves_first,
    posted_lines,
    public_lines,
    read_back,
)

pytestmark = pytest.mark.slow

MAX_CLICKS = 400


def in_1483(state: dict[str, Any]) -> bool:
    return bool(state["year"] >= 2)


@cache
def first_seed(options: str = "{}") -> tuple[int, Course]:
    """The first seed whose game, played by the engine alone under :func:`moves_first`,
    reaches 1483 within ``MAX_CLICKS`` with both players asked something during a battle, and
    that game's course, under ``options`` (JSON)."""
    for seed in range(1, 41):
        course = engine_course(seed, json.loads(options), moves_first, MAX_CLICKS, until=in_1483)
        if course is not None and in_1483(course.final) and {
                role for (role, _), battle in zip(course.moves, course.in_battle) if battle} == {"christian", "muslim"}:
            return seed, course
    raise AssertionError("no seed from 1 to 40 reaches 1483 under the click policy")


# Without options, and with every optional rule of section 11 (``/game new options:all``).
@pytest.mark.parametrize(("typed", "options"), [(None, {}), ("all", {"all": True})], ids=["basic", "all-options"])
async def test_a_year_of_granada_through_discord(table: Harness, typed: str | None, options: dict[str, Any]) -> None:
    h = table
    si = h.si
    seed, course = first_seed(json.dumps(options))
    extra = {"options": typed} if typed else {}
    thread = await h.open_game("granada", side="christian", pace="72h", seed=seed, **extra)
    await confirm_forced_steps(h, thread)
    clicks = await drive(h, 1, random.Random(CLICKS_SEED), pick=moves_first, max_steps=2 * MAX_CLICKS,
                         until=in_1483)
    await si.wait_quiet(1.0)
    look = await h.cmd(h.carol, "map", channel=thread)

    exported = await read_back(h)
    assert exported["options"].get("all", False) == options.get("all", False)
    # Exactly the engine's course: every click through Discord became the move it stood for.
    states = exported_states(exported, course)
    assert states[-1]["year"] == 2 and states[0]["year"] == 0 and clicks >= len(exported["moves"])
    final = states[-1]
    module = engine.get("granada")
    check_interactions(h)

    # Thread: the public log, grouped; maps through the year.
    public = public_lines(final)
    if options:
        # Every optional rule of section 11 is in play, and the thread saw one at work.
        assert set(module.view(final, None)["optional"]["rules"]) == set(module.OPTIONS) - {"all"}
        assert any("enters the map" in line and "(Mercenaries, 11.1)" in line for line in public)
    posts = si.channel_messages(thread)
    assert set(public) <= set(posted_lines(posts))
    maps = [m for m in posts if m.files]
    assert len(maps) >= 3

    # Nothing private in public, in words or pictures.
    check_public(h, states)
    (answer,) = h.answers(look)
    assert answer.ephemeral
    assert answer.files[0].data == render.granada.board(module.view(states[move_number(answer.content)], role=None))

    # Each player's DMs: his own board, hand and battle board, each sent again only when it
    # changed; never the other's private lines.
    for sent in check_dms(h, states).values():
        assert sent.get("board", 0) >= 2 and sent.get("hand", 0) >= 1 and sent.get("battle", 0) >= 1, sent


async def test_move_a_stack_along_a_path_with_one_typed_order(table: Harness, rng) -> None:
    """``/play order:"move A > B"`` becomes the engine's steps: activate, take the stack,
    step, end the move (rulebook 7.3), checked whole before any is taken."""
    h = table
    si = h.si
    module = engine.get("granada")
    thread = await h.open_game("granada", side="christian", pace="72h", seed=1)

    def christian_may_activate(state: dict[str, Any]) -> bool:
        return "christian" in module.active(state) and any(
            a["type"] == "activate" for a in module.actions(state, "christian"))

    await drive(h, 1, rng, until=christian_may_activate)
    svc = GameService.open(h.settings.db_url)
    try:
        version, state = await svc.state(1)
        # A stack that can step somewhere, found with the engine alone.
        path = None
        for act in [a for a in module.actions(state, "christian") if a["type"] == "activate"]:
            s1 = module.apply(state, "christian", act)
            take = [a for a in module.actions(s1, "christian") if a["type"] == "take_all"]
            if not take:
                continue
            s2 = module.apply(s1, "christian", take[0])
            steps = [a for a in module.actions(s2, "christian") if a["type"] == "step"]
            if steps:
                path = (act["label"].removeprefix("Activate "), steps[0]["label"].removeprefix("Step to "))
                break
        assert path is not None
        order = await h.cmd(h.alice, "play", channel=thread, order=f"move {path[0]} > {path[1]}")
        answer = h.answers(order)[-1]
        assert answer.ephemeral and "✅" in answer.content, answer.content
        done = [m for m in await svc.moves(1) if m["seq"] > version]
        kinds = [m["action"]["type"] for m in done]
        assert kinds[:3] == ["activate", "take_all", "step"] and set(kinds) <= {"activate", "take_all", "step",
                                                                               "end_move"}
        # An order that does not fit changes nothing.
        before = (await svc.game(1)).version
        bad = await h.cmd(h.alice, "play", channel=thread, order="move Nowhere > Atlantis")
        assert "not a legal order" in h.answers(bad)[-1].content
        assert (await svc.game(1)).version == before
    finally:
        await svc.close()
    assert si.violations == []


async def test_the_end_brings_the_final_reveal_and_the_replay(table: Harness) -> None:
    h = table
    si = h.si
    module = engine.get("granada")
    thread = await h.open_game("granada", side="christian", pace="72h", seed=3)
    await si.wait_quiet(0.5)
    before = [m for m in si.channel_messages(thread) if m.files]
    assert all(f.filename in ("board.png", "battle.png") for m in before for f in m.files)  # no reveal mid-game
    await h.cmd(h.alice, "game resign", channel=thread)
    end = await si.wait_message(lambda m: m.channel_id == thread and "final reveal" in m.content, timeout=30)
    result = next(m for m in si.channel_messages(thread) if "🏁" in m.content)
    assert result.id < end.id and "**muslim** wins" in result.content
    names = [f.filename for f in end.files]
    assert names == ["reveal.png", "replay.gif"]
    png_ok(end.files[0].data)
    png_ok(end.files[1].data)
    svc = GameService.open(h.settings.db_url)
    try:
        version, state = await svc.state(1)
    finally:
        await svc.close()
    views = [module.view(state, None), module.view(state, "christian"), module.view(state, "muslim")]
    assert end.files[0].data == render.granada.reveal(*views)
    assert si.violations == []
