"""The terminal table, driven in-process with scripted keyboard input."""

from __future__ import annotations

import io
import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.local import LocalError, play
from bot.service import GameService


class Keyboard:
    """Answers prompts from a script; EOF (like Ctrl-D) once it runs out."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


class Screen:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


async def test_autoplay_plays_to_the_end(service: GameService) -> None:
    screen = Screen()
    status = await play(service, "toy", autoplay=True, seed=1, out=screen, ask=Keyboard())
    assert status == 0
    last = screen.lines[-1]
    assert last.startswith("game 1 finished: ")
    result = json.loads(last.removeprefix("game 1 finished: "))
    assert result == (await service.game(1)).result and result["winner"] in ("red", "blue")
    assert "(private)" not in screen.text, "autoplay shows the spectator's log only"


async def test_bad_input_is_explained_and_asked_again(service: GameService) -> None:
    keyboard = Keyboard("", "abc", "99", "0", "1", "q")
    screen = Screen()
    await play(service, "toy", seats=["red"], seed=3, out=screen, ask=keyboard)
    text = screen.text
    assert "Please type a number from 1 to 5." in text  # red: add 1, add 2, draw, show, bank
    assert "'abc' is not a number." in text
    assert "There is no order 99: choose from 1 to 5." in text
    assert "There is no order 0: choose from 1 to 5." in text
    assert screen.lines[-1] == "game 1 saved; continue with: alcazaba local toy --resume 1"
    _, state = await service.state(1)
    assert state["pending"] == 1, "the one valid order (1 = add 1) was applied, nothing else"


async def test_undo_and_its_refusal(service: GameService) -> None:
    # 2 = add 2, then u takes it back, then u again has nothing to take back.
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("2", "u", "u", "q"))
    assert "red takes back a step." in screen.lines
    assert "There is nothing to take back: no step has been made." in screen.lines
    moves = await service.moves(1)
    assert [(m["kind"], m["undoes_seq"]) for m in moves] == [("step", None), ("undo", 1)]


async def test_hot_seat_player_may_take_back_the_step_that_ended_his_turn(service: GameService) -> None:
    # red: 1 (add 1), 5 (bank: blue's turn); u takes red's bank back.
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("1", "5", "u", "q"))
    assert "red takes back a step." in screen.lines
    _, state = await service.state(1)
    assert state["turn"] == "red" and state["pending"] == 1


async def test_against_the_built_in_player_and_resume(service: GameService) -> None:
    screen = Screen()
    await play(service, "toy", seats=["red"], seed=5, out=screen, ask=Keyboard("5", "q"))  # bank 0
    info = await service.game(1)
    assert info.seat("blue") is not None and info.seat("blue").is_bot  # type: ignore[union-attr]
    assert info.version > 1, "the built-in player moved for blue after red banked"
    assert info.active == ["red"]
    screen = Screen()
    keyboard = Keyboard(*(["5"] * 200))  # keep banking (sometimes 0) until the game ends
    await play(service, "", resume=1, out=screen, ask=keyboard)
    assert screen.lines[0] == f"game 1: Toy race, resumed at move {info.version}"
    assert screen.lines[-1].startswith("game 1 finished: ")
    assert (await service.replay_check(1)).ok


async def test_refusals_before_play(service: GameService) -> None:
    with pytest.raises(LocalError, match="unknown game 'chess'"):
        await play(service, "chess", out=Screen(), ask=Keyboard())
    with pytest.raises(LocalError, match="no role green"):
        await play(service, "toy", seats=["green"], out=Screen(), ask=Keyboard())
    with pytest.raises(LocalError, match="do not combine it with --seat"):
        await play(service, "toy", seats=["red"], autoplay=True, out=Screen(), ask=Keyboard())
    info = await service.create_game("toy", {}, seed=1)
    await service.join(info.id, 555, "Discord user")
    with pytest.raises(LocalError, match="played on Discord"):
        await play(service, "toy", resume=info.id, out=Screen(), ask=Keyboard())
    with pytest.raises(LocalError, match="not navas"):
        await play(service, "navas", resume=info.id, out=Screen(), ask=Keyboard())


async def test_missing_renderer_is_noticed_once(service: GameService, tmp_path: Path) -> None:
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, images_dir=tmp_path / "images", out=screen,
               ask=Keyboard("1", "5", "1", "q"))
    notices = [line for line in screen.lines if line.startswith("(no board images")]
    assert len(notices) == 1 and "render.toy is not available" in notices[0]
    assert not (tmp_path / "images").exists()


@pytest.fixture
def toy_renderer() -> Iterator[list[dict[str, Any]]]:
    """A stand-in for render.toy (render/ is another package): draws the view's hand as
    a real PNG, and records the views it was given."""
    seen: list[dict[str, Any]] = []

    def board(view: dict[str, Any]) -> bytes:
        seen.append(view)
        image = Image.new("RGB", (40 + 10 * len(view["hand"] or []), 20), "white")
        buffer = io.BytesIO()
        image.save(buffer, format="PNG")
        return buffer.getvalue()

    module = types.ModuleType("render.toy")
    module.board = board  # type: ignore[attr-defined]
    sys.modules["render.toy"] = module
    yield seen
    del sys.modules["render.toy"]


async def test_boards_are_written_for_each_seat_at_the_table(service: GameService, tmp_path: Path,
                                                              toy_renderer: list[dict[str, Any]]) -> None:
    screen = Screen()
    images = tmp_path / "images"
    await play(service, "toy", seats=["red"], seed=3, images_dir=images, out=screen, ask=Keyboard("3", "q"))
    path = images / "toy-1-red.png"
    assert f"  board of red: {path}" in screen.lines
    with Image.open(path) as image:
        assert image.format == "PNG" and image.size == (40 + 10 * 2, 20), "red holds 2 cards after drawing"
    assert not (images / "toy-1-blue.png").exists(), "the built-in player's board is not drawn"
    assert all(view["hand"] is not None for view in toy_renderer), "each board drawn from a role's view"
