"""A full year of *Granada: Last Stand of the Moors* played through Discord only (1482 II,
then 1483 I and II): two players clicking their DMs, a spectator, and the checks that no
concealed block and no card in hand reached the game's thread, in words or pictures.

THE COURSE OF THE GAME. Clicking at random among everything offered (the auto-pass switch
and page turns included) ends most games in their first year: with seed 1, the Muslim player
plays a Castle Surrender card for the Alhambra, which ends the game (2.1). So the players here
follow :func:`moves_first`: a random move among those offered, a page of a long list only
when nothing else is offered, never the auto-pass switch (a preference, not a move). The
seed is not fixed by hand: :func:`first_seed` plays the engine alone (no Discord)
under the same policy and generator and takes the first seed whose game reaches 1483 with
both players asked something during a battle. The Discord game then takes exactly that
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
import render
import render.granada
from bot.service import GameService
from engine.api import strip_label, visible_log
from tests.bot.discord.conftest import Harness, drive, is_dm, move_number, png_ok, replay_states
from tests.standin.server import DEFERRED_UPDATE, MESSAGE_COMPONENT

pytestmark = pytest.mark.slow

CLICKS_SEED = 1212
"""The seed of the players' generator."""
MAX_CLICKS = 400
NOT_MOVES = frozenset({"menu"})


def moves_first(actions: list[dict[str, Any]], rng: random.Random) -> int:
    """The players' click policy (see the module's docstring)."""
    moves = [i for i, a in enumerate(actions) if a["type"] not in NOT_MOVES]
    pages = [i for i, a in enumerate(actions) if a["type"] == "menu"]
    return rng.choice(moves or pages)


def course(seed: int, options: dict[str, Any]) -> list[tuple[str, dict[str, Any]]] | None:
    """The moves of a game played by the engine alone under :func:`moves_first` until 1483,
    if it gets there within ``MAX_CLICKS`` with both players asked something during a battle."""
    module = engine.get("granada")
    state = module.setup(seed, options)
    rng = random.Random(CLICKS_SEED)
    moves: list[tuple[str, dict[str, Any]]] = []
    in_battle: set[str] = set()
    while len(moves) < MAX_CLICKS and module.result(state) is None:
        if state["year"] >= 2:
            return moves if in_battle == {"christian", "muslim"} else None
        role = module.active(state)[0]
        view = module.view(state, role)
        if view.get("battle"):
            in_battle.add(role)
        action = view["actions"][moves_first(view["actions"], rng)]
        state = module.apply(state, role, action)
        moves.append((role, strip_label(action)))
    return None


@cache
def first_seed(options: str = "{}") -> tuple[int, tuple[tuple[str, str], ...]]:
    """The first seed whose game qualifies (see :func:`course`), and that game's moves, under
    ``options`` (JSON)."""
    for seed in range(1, 41):
        moves = course(seed, json.loads(options))
        if moves is not None:
            return seed, tuple((role, json.dumps(action, sort_keys=True)) for role, action in moves)
    raise AssertionError("no seed from 1 to 40 reaches 1483 under the click policy")


def picture_digests(view: dict[str, Any]) -> dict[str, str]:
    return {p.kind: p.digest for p in render.pictures("granada", view)}


# Without options, and with every optional rule of section 11 (``/game new options:all``).
@pytest.mark.parametrize(("typed", "options"), [(None, {}), ("all", {"all": True})], ids=["basic", "all-options"])
async def test_a_year_of_granada_through_discord(table: Harness, typed: str | None, options: dict[str, Any]) -> None:
    h = table
    si = h.si
    seed, expected = first_seed(json.dumps(options))
    extra = {"options": typed} if typed else {}
    thread = await h.open_game("granada", side="christian", pace="72h", seed=seed, **extra)
    clicks = await drive(h, 1, random.Random(CLICKS_SEED), pick=moves_first, max_steps=2 * MAX_CLICKS,
                         until=lambda state: state["year"] >= 2)
    await si.wait_quiet(1.0)
    look = await h.cmd(h.carol, "map", channel=thread)

    svc = GameService.open(h.settings.db_url)
    try:
        assert (await svc.replay_check(1)).ok
        exported = await svc.export(1)
    finally:
        await svc.close()
    assert exported["options"].get("all", False) == options.get("all", False)
    # Exactly the engine's course: every click through Discord became the move it stood for.
    assert [(m["role"], json.dumps(m["action"], sort_keys=True)) for m in exported["moves"]] == list(expected)
    states = replay_states(exported)
    assert states[-1]["year"] == 2 and states[0]["year"] == 0 and clicks >= len(exported["moves"])
    final = states[-1]
    module = engine.get("granada")

    assert si.violations == []
    for inter in si.interactions.values():
        assert inter.latency is not None and inter.latency < 3.0
        if inter.type == MESSAGE_COMPONENT and inter.payload["data"]["custom_id"].startswith(("az:a:", "az:s:")):
            assert inter.response_type == DEFERRED_UPDATE

    # Thread: the public log, grouped; maps through the year.
    public_lines = [e["text"] for e in visible_log(final["log"], None)]
    if options:
        # Every optional rule of section 11 is in play, and the thread saw one at work.
        assert set(module.view(final, None)["optional"]["rules"]) == set(module.OPTIONS) - {"all"}
        assert any("enters the map" in line and "(Mercenaries, 11.1)" in line for line in public_lines)
    posts = si.channel_messages(thread)
    posted = [line[2:] for m in posts if m.content.startswith("• ") for line in m.content.split("\n")]
    assert set(public_lines) <= set(posted)
    maps = [m for m in posts if m.files]
    assert len(maps) >= 3

    # Nothing private in public, in words or pictures.
    private = {e["text"] for e in final["log"] if "to" in e} - set(public_lines)
    assert private
    for msg in si.public_messages():
        for text in msg.texts():
            assert not any(p in text for p in private), text
        for f in msg.files:
            png_ok(f.data)
            spectator = module.view(states[move_number(msg.content)], None)
            drawn = {"board.png": render.granada.board, "battle.png": render.granada.battle}[f.filename](spectator)
            assert f.data == drawn, f"{f.filename} of {msg.content!r} is not the spectator's"
    (answer,) = h.answers(look)
    assert answer.ephemeral
    assert answer.files[0].data == render.granada.board(module.view(states[move_number(answer.content)], role=None))

    # Each player's DMs: his own board, hand and battle board, each sent again only when it
    # changed; never the other's private lines.
    for user, role, other in ((h.alice, "christian", "muslim"), (h.bob, "muslim", "christian")):
        dms = h.dm_messages(user)
        assert dms and all(is_dm(si, m) for m in dms)
        last: dict[str, str] = {}
        sent: dict[str, int] = {}
        for m in (m for m in dms if m.files):
            view = module.view(states[move_number(m.content)], role)
            digests = picture_digests(view)
            for f in m.files:
                kind = f.filename.removesuffix(".png")
                assert last.get(kind) != digests[kind], f"{f.filename} of {m.content[:60]!r} was sent unchanged"
                last[kind] = digests[kind]
                sent[kind] = sent.get(kind, 0) + 1
                if kind == "battle" or sent[kind] % 4 == 1:  # every battle board; a sample of the rest
                    png_ok(f.data)
                    assert f.data == getattr(render.granada, kind)(view), f"{f.filename} is not {role}'s"
        assert sent.get("board", 0) >= 2 and sent.get("hand", 0) >= 1 and sent.get("battle", 0) >= 1, sent
        theirs = {e["text"] for e in final["log"] if e.get("to") == [other]}
        for msg in dms:
            assert not any(t in msg.content for t in theirs)


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
