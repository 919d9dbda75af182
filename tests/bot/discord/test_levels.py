"""The built-in player's levels through Discord: chosen at ``/game new``, shown in the lobby and
``/status``, played in the bot's process pool while the bot keeps answering, at a deadline
that hands the late seat over, and over a whole game of Granada between two levels."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest

import engine
from bot.service import GameService, _bot_seed
from bot.service.levels import level_of
from bot.settings import Settings
from bot.thinking import iterations_for
from engine.ai import choose
from engine.api import strip_label
from engine.players import choose as easy_choose
from tests.bot.discord.conftest import FAST, Clock, Harness, delivered
from tests.standin import Interaction, Message, StandIn
from tests.standin.server import LOADING


class LevelHarness(Harness):
    """conftest's table with the built-in player's settings of a test: its search capped at
    ``cap`` iterations (None: each level's own budget) in two processes."""

    cap: int | None = None

    @property
    def settings(self) -> Settings:
        return super().settings.model_copy(update={"ai_iteration_cap": self.cap, "ai_concurrency": 2})


async def _table(si: StandIn, tmp_path: Path, clock: Clock, cap: int | None) -> LevelHarness:
    h = LevelHarness(si, tmp_path / "data", replace(FAST, now=clock, deadline_poll_seconds=0.2))
    h.cap = cap
    await h.start()
    return h


@pytest.fixture
async def capped(standin: StandIn, tmp_path: Path, clock: Clock) -> AsyncIterator[LevelHarness]:
    """The table with the search capped at 3 iterations: whole games in CI time."""
    h = await _table(standin, tmp_path, clock, 3)
    yield h
    await h.stop()


@pytest.fixture
async def full(standin: StandIn, tmp_path: Path, clock: Clock) -> AsyncIterator[LevelHarness]:
    """The table with each level's own budget (a hard decision takes seconds)."""
    h = await _table(standin, tmp_path, clock, None)
    yield h
    await h.stop()


async def _open_svc(h: Harness) -> GameService:
    return GameService.open(h.settings.db_url)


async def _until(check: Callable[[], Awaitable[bool]], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.05)


# ----------------------------------------------------------------------------- (c) answering while thinking


async def test_the_bot_answers_others_while_the_built_in_player_thinks(full: LevelHarness) -> None:
    """alice opens a game of Las Navas against the built-in player at ``hard`` (its own budget:
    seconds per decision). While it thinks, carol's ``/status`` is answered in full, and so is
    alice's own. (That its decisions land, and are the level's, tests (a) and (b) below show.)"""
    h = full
    assert h.bot is not None and h.bot.user is not None
    await h.cmd(h.alice, "game new", game="navas", side="muslim", opponent=h.bot.user.id, level="hard", seed=3)
    thread = h.si.threads(h.channel)[-1].id
    thinker = h.bot.thinker
    svc = await _open_svc(h)
    try:
        info = await svc.game(1)
        assert info.status == "running" and level_of(info, "christian") == "hard"
        async def thinking() -> bool:
            return thinker.thinking.get(1, 0) > 0

        await _until(thinking)
        version = (await svc.game(1)).version
        answered = []
        for user in (h.carol, h.alice):
            inter = await h.si.slash(user, thread, "status", game=1)
            await h.si.answered(inter)

            def filled(m: Message, i: Interaction = inter) -> bool:
                return m.id == i.original_id and not m.flags & LOADING

            msg = await h.si.wait_message(filled, timeout=10)
            whole = time.monotonic() - inter.created
            # The answer is there, and the decision it was asked during is still being made.
            assert thinker.thinking.get(1, 0) > 0, "the decision ended before the answer: no proof"
            assert (await svc.game(1)).version == version
            answered.append((whole, msg.content))
        assert "**christian**: built-in player (hard)" in answered[0][1]
        assert thinker.served == [1]
        with pytest.raises(LookupError, match="not one of the choices"):
            await h.si.slash(h.alice, h.channel, "game new", game="navas", level="expert")
        print(f"answered in full while the built-in player thought: {[round(a[0], 3) for a in answered]} s")
    finally:
        await svc.close()


async def _moved(svc: GameService, version: int) -> bool:
    return (await svc.game(1)).version > version


# ----------------------------------------------------------------------------- a restart


async def test_a_restart_keeps_the_level_and_resumes_the_search(full: LevelHarness) -> None:
    """The bot stops while the built-in player (hard, at its own budget: seconds a decision)
    plays its setup steps; the next process (its search capped, to finish quickly) reads the
    level from the database and finishes them at hard, decision for decision. Each move is
    checked against the decision of the process that made it: the first process's moves at the
    level's own budget, the next one's at the cap."""
    h = full
    assert h.bot is not None and h.bot.user is not None
    await h.cmd(h.alice, "game new", game="navas", side="muslim", opponent=h.bot.user.id, level="hard", seed=4)
    await h.stop()
    svc = await _open_svc(h)
    try:
        at_stop = await svc.game(1)
        assert "christian" in at_stop.active, "the stop came while the built-in player still had to move"
        h.cap = 3
        await h.start()
        assert h.bot is not None

        async def christian_done() -> bool:
            return "christian" not in (await svc.game(1)).active

        await _until(christian_done, timeout=120)
        assert 1 in h.bot.thinker.served, "the new process thought for the game"
        exported = await svc.export(1)
        module = engine.get("navas")
        state = module.setup(exported["seed"], dict(exported["options"]))
        christian = 0
        for version, move in enumerate(exported["moves"]):
            assert move["role"] == "christian"  # alice (muslim) has not moved
            seed = _bot_seed(exported["seed"], version, "christian")
            cap = iterations_for("navas", "hard", None if version < at_stop.version else 3)
            assert move["action"] == strip_label(choose(module, state, "christian", seed, "hard", cap))
            state = module.apply(state, "christian", move["action"])
            christian += 1
        assert christian > at_stop.version, "the next process made moves"
    finally:
        await svc.close()


# ----------------------------------------------------------------------------- (b) a deadline hands over


async def test_a_late_seat_goes_to_the_built_in_player_at_the_games_level(capped: LevelHarness, clock: Clock) -> None:
    h = capped
    assert h.bot is not None
    thread = await h.open_game("navas", side="christian", pace="24h", at_deadline="bot", level="normal", seed=5)
    svc = await _open_svc(h)
    try:
        lobby = h.si.channel_messages(thread)[0]
        await h.si.wait_message(lambda m: m.id == lobby.id and "the built-in player takes the late seat" in m.content
                                and "built-in player: normal" in m.content)
        # bob (muslim) plays his setup steps; alice (christian) does not.
        info = await svc.game(1)
        await _until(lambda: _deadline_set(svc))
        bob_moves = 0
        while "muslim" in (info := await svc.game(1)).active:
            gv = await svc.view(1, "muslim", h.bob)
            action = easy_choose(engine.get("navas"), (await svc.state(1))[1], "muslim", 1)
            await svc.apply(1, "muslim", action, gv.version, h.bob)
            bob_moves += 1
        assert info.active == ["christian"] and info.seat("christian").user_id == h.alice  # type: ignore[union-attr]
        before = info.version
        clock.offset = timedelta(hours=25)
        await h.si.wait_message(lambda m: m.channel_id == thread and "christian let the deadline pass" in m.content
                                and "the built-in player (normal) takes the christian seat" in m.content, timeout=20)
        await h.si.wait_message(lambda m: h.si.visible_to(m, h.alice) and "plays the christian seat from now on"
                                in m.content, timeout=20)
        await _until(lambda: _moved(svc, before))
        # The lobby message says who holds the seat now.
        await h.si.wait_message(lambda m: m.id == lobby.id and "**christian**: built-in player (normal)" in m.content,
                                timeout=20)
        info = await svc.game(1)
        seat = info.seat("christian")
        assert seat is not None and seat.is_bot and seat.user_id is None and level_of(info, "christian") == "normal"
        moves = await svc.moves(1)
        handed = [m for m in moves if m["seq"] > before]
        assert handed and all(m["role"] == "christian" and m["user_id"] is None for m in handed[:1])
        # The built-in player's first move for her is the normal level's, thought in the pool.
        exported = await svc.export(1)
        state = engine.get("navas").setup(exported["seed"], dict(exported["options"]))
        for move in exported["moves"][:before]:
            state = engine.get("navas").apply(state, move["role"], move["action"])
        seed = _bot_seed(info.seed, before, "christian")
        assert handed[0]["action"] == strip_label(choose("navas", state, "christian", seed, "normal",
                                                         iterations_for("navas", "normal", 3)))
        assert 1 in h.bot.thinker.served
        assert h.si.violations == []
    finally:
        await svc.close()


async def _deadline_set(svc: GameService) -> bool:
    return (await svc.game(1)).deadline_at is not None


# ----------------------------------------------------------------------------- (a) a whole game


@pytest.mark.slow
async def test_a_whole_game_of_granada_hard_against_easy(capped: LevelHarness) -> None:
    """The built-in player at ``hard`` (the search, capped at 3 iterations a decision) against
    ``easy`` on both sides of a Granada game, to its end, posted in the game's channel. Every
    move is the one its seat's level chooses."""
    h = capped
    assert h.bot is not None
    svc = await _open_svc(h)
    try:
        await _whole_granada(h, svc)
    finally:
        await svc.close()


async def _whole_granada(h: LevelHarness, svc: GameService) -> None:
    assert h.bot is not None
    info = await svc.create_game("granada", {}, seed=1, created_by=h.alice, guild_id=h.guild, channel_id=h.channel)
    await svc.join(info.id, None, "built-in player", "christian", is_bot=True)
    await svc.join(info.id, None, "built-in player", "muslim", is_bot=True)
    await svc.set_levels(info.id, {"christian": "hard", "muslim": "easy"})
    await svc.start(info.id)
    started = time.monotonic()
    h.bot.run_bots(info.id)
    await _until(lambda: _over(svc, info.id), timeout=900)
    took = time.monotonic() - started
    await delivered(h, svc, info.id)
    final = await svc.game(info.id)
    assert final.status == "finished" and final.result is not None
    posts = h.si.channel_messages(h.channel)
    assert any("🏁" in m.content for m in posts), "the end is posted"
    assert any("**christian**: built-in player (hard)" in m.content and "**muslim**: built-in player (easy)"
               in m.content for m in posts), "the start line names the levels"
    exported = await svc.export(info.id)
    module = engine.get("granada")
    state = module.setup(exported["seed"], dict(exported["options"]))
    cap = iterations_for("granada", "hard", 3)
    searched = 0
    for version, move in enumerate(exported["moves"]):
        role, seed = move["role"], _bot_seed(exported["seed"], version, move["role"])
        if role == "muslim":
            assert move["action"] == strip_label(easy_choose(module, state, role, seed)), f"move {version + 1}"
        elif version % 7 == 0:  # a sample of the hard moves (each costs a search to check)
            assert move["action"] == strip_label(choose(module, state, role, seed, "hard", cap)), f"move {version + 1}"
            searched += 1
        state = module.apply(state, role, move["action"])
    assert module.result(state) == final.result and searched > 10
    hard_moves = sum(1 for m in exported["moves"] if m["role"] == "christian")
    print(f"granada hard vs easy: {len(exported['moves'])} moves ({hard_moves} hard) in {took:.1f} s, "
          f"result {final.result}")
    assert h.si.violations == []


async def _over(svc: GameService, game_pk: int) -> bool:
    return (await svc.game(game_pk)).status != "running"
