"""A game added from the tests alone plays on Discord: Three Columns (tests/newgame), registered
through ``engine.register`` and ``render.register``, is opened with ``/game new``, joined from
the lobby and played to its end by two players clicking the prompts the real bot DMs them,
with the pictures its own renderer draws, through the stand-in. Nothing in ``bot/`` names it."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

import engine
from bot.service import GameService
from tests.bot.discord.conftest import Harness, delivered, drive, is_dm, newest_prompt, png_ok, replay_states
from tests.newgame import columns, registered, render_columns

pytestmark = pytest.mark.usefixtures("columns_registered")


@pytest.fixture
def columns_registered() -> Iterator[str]:
    with registered() as game_id:
        yield game_id


async def test_three_columns_is_played_to_its_end_on_discord(table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    thread = await h.open_game("columns", side="north", pace="live", seed=5)
    info = await svc.game(1)
    assert (info.game_id, info.status, info.seat("north").user_id, info.seat("south").user_id) == (  # type: ignore[union-attr]
        "columns", "running", h.alice, h.bob)

    # North's first prompt: a DM with his board and his hand, drawn by the game's own renderer.
    first = await newest_prompt(h, h.alice)
    assert is_dm(si, first)
    files = {f.filename: f.data for f in first.files}
    assert sorted(files) == ["board.png", "hand.png"]
    assert png_ok(files["board.png"]) == (render_columns.WIDTH, render_columns.HEIGHT)
    assert png_ok(files["hand.png"])[0] == 3 * (render_columns.CARD_W + 16) + 16
    _, state = await svc.state(1)
    dealt = "You draw " + ", ".join(str(columns.value(c)) for c in sorted(state["hands"]["north"], key=columns.value))
    assert dealt in first.content, "north's private log line reaches north"
    await delivered(h, svc, 1)
    assert not any(dealt in t for m in h.dm_messages(h.bob) for t in m.texts()), "and nobody else"

    clicks = await drive(h, 1, random.Random(5))
    moves = await svc.moves(1)
    taken = [m for m in moves if m["action"].get("automatic")]
    assert len(moves) == len(columns.CARDS), "every card of the game is played"
    assert clicks == len(moves) - len(taken), "one click a card, but for the last cards a seat had no choice in"
    info = await svc.game(1)
    assert info.status == "finished"
    exported = await svc.export(1)
    assert columns.result(replay_states(exported)[-1]) == info.result, "the stored result is the rules' result"
    assert info.result is not None and set(info.result) >= {"winner", "reason", "score"}

    # Each player is told how it ended; the thread shows only public pictures, never a hand.
    await delivered(h, svc, 1)
    assert info.result["reason"] in "\n".join(m.content for m in si.channel_messages(thread))
    for user in (h.alice, h.bob):
        last = h.dm_messages(user)[-1].content
        assert "Three Columns #1** is over." in last and info.result["reason"] in last and not h.dm_messages(user)[-1].components
    posted = [f for m in si.channel_messages(thread) for f in m.files]
    assert posted and all(f.filename != "hand.png" for f in posted)
    for f in posted:
        png_ok(f.data)
    public_text = "\n".join(t for m in si.channel_messages(thread) for t in m.texts())
    assert "You draw" not in public_text, "no private log line in the thread"
    assert si.violations == []
    assert "columns" in engine.GAMES
