"""A game added from the tests alone plays at the terminal table: Three Columns
(tests/newgame), registered through ``engine.register`` and ``render.register``, played
hot-seat to its end by typed orders (``bot.local``, what ``alcazaba local`` and ``make run``
run), each seat's pictures drawn by the game's own renderer. Nothing in ``bot/`` names it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from bot.local import play
from bot.service import GameService
from bot.service.outcome import result_sentence
from tests.bot.test_local import Keyboard, Screen
from tests.newgame import columns, registered, render_columns


@pytest.fixture(autouse=True)
def columns_registered() -> Iterator[str]:
    with registered() as game_id:
        yield game_id


async def test_three_columns_is_played_to_its_end_at_the_terminal_table(service: GameService, tmp_path: Path) -> None:
    screen = Screen()
    images = tmp_path / "images"
    keyboard = Keyboard(*(["1"] * len(columns.CARDS)))  # each seat plays its first order
    status = await play(service, "columns", seats=["north", "south"], seed=4, images_dir=images, out=screen,
                        ask=keyboard)
    moves = await service.moves(1)
    taken = [m for m in moves if m["action"].get("automatic")]
    assert status == 0 and len(moves) == len(columns.CARDS), "every card is played, and the game is over"
    assert len(keyboard.answers) == len(taken), "one typed order a card, but for those a seat had no choice in"
    info = await service.game(1)
    assert info.status == "finished" and info.result is not None
    assert json.loads(screen.lines[-1].removeprefix("game 1 finished: ")) == info.result
    assert screen.lines[-2] == f"Result: {result_sentence(info.result)}"
    exported = await service.export(1)
    state = columns.setup(exported["seed"], exported["options"])
    for move in exported["moves"]:
        state = columns.apply(state, move["role"], move["action"])
    assert columns.result(state) == info.result, "the stored result is the rules' result"

    # The orders the table offered are the game's labels (a play draws a card: it cannot be
    # taken back, and says so); each seat's pictures are files the game's renderer drew.
    assert "    9. play your 9 on the right column (final: cannot be taken back)" in screen.lines
    assert "  (private) You draw 2, 7, 9." in screen.lines
    for role in ("north", "south"):
        board = images / f"columns-1-{role}.png"
        assert f"  board of {role}: {board}" in screen.lines
        with Image.open(board) as image:
            assert image.format == "PNG" and image.size == (render_columns.WIDTH, render_columns.HEIGHT)
        hand = images / f"columns-1-{role}-hand.png"
        assert f"  hand of {role}: {hand}" in screen.lines, "the hand was drawn while the seat held cards"
        assert not hand.exists(), "and taken away once the hand is empty"
    assert (await service.replay_check(1)).ok
