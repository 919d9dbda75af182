"""What the Discord games of *Granada: Last Stand of the Moors* share (a year in
test_granada_year.py, a whole game with every option in test_granada_options_game.py): the
players' click policy, the course the engine alone takes under it, the read-back of the game
the bot kept, and the checks that the thread and each player's DMs carry only what their
readers may know, in words and in pictures decoded as PNGs.

The course is planned by the engine alone (no Discord) with the same policy and generator
the Discord players use (``drive(..., pick=...)``), so the test can ask the moves on Discord
to be exactly the engine's: every click became the move it stood for."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine
import render
import render.granada
from bot.service import GameService
from engine.api import strip_label, visible_log
from engine.granada import menus
from tests.bot.discord.conftest import Harness, Pick, is_dm, move_number, png_ok, replay_states
from tests.standin import Message
from tests.standin.server import DEFERRED_UPDATE, MESSAGE_COMPONENT

CLICKS_SEED = 1212
"""The seed of the players' generator."""
Move = tuple[str, dict[str, Any]]


def moves_first(actions: list[dict[str, Any]], rng: random.Random) -> int:
    """A random move among those a player sees first: a long list's first screen, as Granada
    once cut it (engine/granada/menus.py: the kinds of move with many entries folded away),
    so that the courses these tests were tuned on stay the same; every move when that screen
    holds none (the game offers every choice at once, and no page turn)."""
    first = [a for a in menus.paged(actions, None) if a["type"] != menus.MENU]
    if not first:
        return rng.randrange(len(actions))
    return actions.index(rng.choice(first))


@dataclass
class Course:
    """A game played by the engine alone: its moves (labels stripped, as the service keeps
    them), whether each was asked during a battle, and the last state."""

    moves: list[Move]
    in_battle: list[bool]
    final: dict[str, Any]


def engine_course(seed: int, options: dict[str, Any], pick: Pick, max_clicks: int,
                  until: Callable[[dict[str, Any]], bool] | None = None) -> Course | None:
    """The game ``seed`` played by the engine alone under ``pick`` and ``CLICKS_SEED``, to
    its result (or until ``until(state)``); None when it takes more than ``max_clicks``."""
    module = engine.get("granada")
    state = module.setup(seed, options)
    rng = random.Random(CLICKS_SEED)
    moves: list[Move] = []
    in_battle: list[bool] = []
    while module.result(state) is None and not (until is not None and until(state)):
        if len(moves) >= max_clicks:
            return None
        role = module.active(state)[0]
        view = module.view(state, role)
        action = view["actions"][pick(view["actions"], rng)]
        in_battle.append(bool(view.get("battle")))
        state = module.apply(state, role, action)
        moves.append((role, strip_label(action)))
    return Course(moves, in_battle, state)


async def read_back(h: Harness) -> dict[str, Any]:
    """Game 1 as the bot kept it (its replay checked)."""
    svc = GameService.open(h.settings.db_url)
    try:
        assert (await svc.replay_check(1)).ok
        return await svc.export(1)
    finally:
        await svc.close()


def check_interactions(h: Harness) -> None:
    """Discord's rules: every interaction answered once and in time, a prompt's click by a
    deferred update."""
    si = h.si
    assert si.violations == []
    for inter in si.interactions.values():
        assert inter.latency is not None and inter.latency < 3.0
        if inter.type == MESSAGE_COMPONENT and inter.payload["data"]["custom_id"].startswith(("az:a:", "az:s:")):
            assert inter.response_type == DEFERRED_UPDATE


def public_lines(final: dict[str, Any]) -> list[str]:
    return [e["text"] for e in visible_log(final["log"], None)]


def posted_lines(posts: list[Message]) -> list[str]:
    """The log lines the thread's grouped posts carry ("• " a line)."""
    return [line[2:] for m in posts if m.content.startswith("• ") for line in m.content.split("\n")]


def check_public(h: Harness, states: list[dict[str, Any]]) -> None:
    """Nothing private in public: no private log line in any public text, every public board
    and battle board the spectator's at the move it names, and the final reveal (once the game
    is over) the one drawn from the final views."""
    module = engine.get("granada")
    final = states[-1]
    private = {e["text"] for e in final["log"] if "to" in e} - set(public_lines(final))
    assert private
    for msg in h.si.public_messages():
        for text in msg.texts():
            assert not any(p in text for p in private), text
        for f in msg.files:
            png_ok(f.data)
            if f.filename == "replay.gif":
                continue
            if f.filename == "reveal.png":
                assert module.result(final) is not None
                views = [module.view(final, None), module.view(final, "christian"), module.view(final, "muslim")]
                assert f.data == render.granada.reveal(*views)
                continue
            spectator = module.view(states[move_number(msg.content)], None)
            drawn = {"board.png": render.granada.board, "battle.png": render.granada.battle}[f.filename](spectator)
            assert f.data == drawn, f"{f.filename} of {msg.content!r} is not the spectator's"


def picture_digests(view: dict[str, Any]) -> dict[str, str]:
    return {p.kind: p.digest for p in render.pictures("granada", view)}


def check_dms(h: Harness, states: list[dict[str, Any]], sample: int = 4) -> dict[str, dict[str, int]]:
    """Each player's DMs: his own board, hand and battle board, each sent again only when it
    changed, every battle board and one in ``sample`` of the others decoded and compared with
    the one drawn from his view at the move the message names (the last for the end's DM);
    never the other's private lines. The count of pictures of
    each kind, by role."""
    si = h.si
    module = engine.get("granada")
    final = states[-1]
    counts: dict[str, dict[str, int]] = {}
    for user, role, other in ((h.alice, "christian", "muslim"), (h.bob, "muslim", "christian")):
        dms = h.dm_messages(user)
        assert dms and all(is_dm(si, m) for m in dms)
        last: dict[str, str] = {}
        sent: dict[str, int] = {}
        for m in (m for m in dms if m.files):
            # The end's DM (its pictures drawn at the end) names no move.
            version = len(states) - 1 if m.content.startswith("🏁") else move_number(m.content)
            view = module.view(states[version], role)
            digests = picture_digests(view)
            for f in m.files:
                kind = f.filename.removesuffix(".png")
                assert last.get(kind) != digests[kind], f"{f.filename} of {m.content[:60]!r} was sent unchanged"
                last[kind] = digests[kind]
                sent[kind] = sent.get(kind, 0) + 1
                if kind == "battle" or sent[kind] % sample == 1:
                    png_ok(f.data)
                    assert f.data == getattr(render.granada, kind)(view), f"{f.filename} is not {role}'s"
        theirs = {e["text"] for e in final["log"] if e.get("to") == [other]}
        for msg in dms:
            assert not any(t in msg.content for t in theirs)
        counts[role] = sent
    return counts


async def confirm_forced_steps(h: Harness, thread: int) -> None:
    """Both players ask to confirm forced steps (``/prefs confirm_forced``): the engine's
    course, played by the engine alone, clicks every step, and so do they."""
    for user in (h.alice, h.bob):
        await h.settle(await h.cmd(user, "prefs", channel=thread, confirm_forced=True))


def exported_states(exported: dict[str, Any], course: Course) -> list[dict[str, Any]]:
    """The states of the game the bot kept, after checking its moves are the engine's course."""
    kept = [(m["role"], m["action"]) for m in exported["moves"]]
    first = next((i for i, (a, b) in enumerate(zip(kept, course.moves, strict=False)) if a != b),
                 min(len(kept), len(course.moves)))
    assert kept == course.moves, (f"move {first + 1} differs: kept {kept[first:first + 3]}, "
                                  f"the course's {course.moves[first:first + 3]}")
    return replay_states(exported)
