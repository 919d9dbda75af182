"""The terminal table, driven in-process with scripted keyboard input; its pictures are real
PNGs (and a GIF) drawn by render/ from real games, decoded here."""

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

from bot.local import LocalError, Table, play
from bot.service import GameService
from engine.players import choose


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
    notices = [line for line in screen.lines if line.startswith("(no pictures")]
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


# --------------------------------------------------------------------------- Granada pictures

GRANADA_SIZE = (1800, 1347)


def _decoded(path: Path) -> Image.Image:
    image = Image.open(path)
    image.load()
    return image


def _lines(screen: Screen, what: str) -> list[str]:
    return [line for line in screen.lines if line.startswith(f"  {what}: ")]


async def test_granada_seat_gets_its_board_and_hand(service: GameService, tmp_path: Path) -> None:
    screen = Screen()
    images = tmp_path / "images"
    await play(service, "granada", seats=["christian"], seed=1, images_dir=images, out=screen,
               ask=Keyboard(*(["1"] * 6), "q"))
    board, hand = images / "granada-1-christian.png", images / "granada-1-christian-hand.png"
    assert _lines(screen, "board of christian")[0] == f"  board of christian: {board}"
    assert _lines(screen, "hand of christian")[0] == f"  hand of christian: {hand}"
    assert _decoded(board).format == "PNG" and _decoded(board).size == GRANADA_SIZE
    assert _decoded(hand).format == "PNG" and _decoded(hand).width >= 800
    assert {p.name for p in images.iterdir()} <= {board.name, hand.name, "granada-1-christian-battle.png"}
    assert not _lines(screen, "board of muslim"), "the built-in player's pictures are not drawn"
    assert len(_lines(screen, "hand of christian")) <= len(_lines(screen, "board of christian"))


def _stored_view(case: str) -> dict[str, Any]:
    from tests.render.cases import BY_NAME, load_views

    return load_views(BY_NAME[case])[0]


async def test_pictures_are_redrawn_only_when_what_they_show_changed(service: GameService, tmp_path: Path) -> None:
    """Real views of two moments of a Granada game (the stored views of the render tests):
    an unchanged part is not redrawn, a battle board comes and goes with its battle."""
    screen = Screen()
    images = tmp_path / "images"
    table = Table(service, 7, "granada", images, out=screen)
    calm, battle = _stored_view("granada_board_christian"), _stored_view("granada_battle_field")
    assert battle["battle"] and not calm["battle"] and calm["role"] == battle["role"] == "christian"
    board, hand = images / "granada-7-christian.png", images / "granada-7-christian-hand.png"
    fight = images / "granada-7-christian-battle.png"

    table.write_pictures("christian", calm)
    assert screen.lines == [f"  board of christian: {board}", f"  hand of christian: {hand}"]
    first_board = board.read_bytes()
    screen.lines.clear()
    table.write_pictures("christian", {**calm, "log": [*calm["log"], {"text": "Muslim passes."}],
                                       "prompt": "Waiting for Muslim.", "actions": []})
    assert screen.lines == [], "nothing drawn changed: nothing is redrawn"
    table.write_pictures("christian", {**calm, "hand": calm["hand"][1:]})
    assert screen.lines == [f"  hand of christian: {hand}"], "only the hand changed"
    screen.lines.clear()
    table.write_pictures("christian", battle)
    assert screen.lines == [f"  board of christian: {board}", f"  hand of christian: {hand}",
                            f"  battle board of christian: {fight}"]
    assert _decoded(fight).format == "PNG" and _decoded(fight).width >= 1200
    assert board.read_bytes() != first_board
    screen.lines.clear()
    table.write_pictures("christian", calm)
    assert screen.lines == [f"  board of christian: {board}", f"  hand of christian: {hand}"]
    assert not fight.exists(), "the battle is over: its board is gone"
    assert board.read_bytes() == first_board


def _seeded_granada_game(seed: int) -> tuple[list[dict[str, Any]], int]:
    """The moves of a whole Granada game played by the built-in player, and the number of
    replay frames it makes: one per Turn track space reached, and the end."""
    import engine

    module = engine.get("granada")
    state = module.setup(seed, {})
    moves: list[dict[str, Any]] = []
    turns = [(state["year"], state["turn"])]
    n = 0
    while module.active(state):
        role = module.active(state)[0]
        action = choose(module, state, role, seed * 100_003 + n)
        state = module.apply(state, role, action)
        moves.append({"seq": n + 1, "role": role, "action": action})
        n += 1
        if (state["year"], state["turn"]) != turns[-1]:
            turns.append((state["year"], state["turn"]))
    assert module.result(state) is not None
    return moves, len(turns) + 1   # the last frame: the final position


async def test_finished_granada_game_gets_its_final_reveal_and_replay(service: GameService, tmp_path: Path) -> None:
    moves, frames = _seeded_granada_game(1)
    players = [{"role": role, "name": "at the keyboard", "bot": False} for role in ("christian", "muslim")]
    pk = await service.import_game({"format": 1, "game": "granada", "seed": 1, "options": {}, "players": players,
                                    "moves": moves})
    screen = Screen()
    images = tmp_path / "images"
    await play(service, "granada", resume=pk, images_dir=images, out=screen, ask=Keyboard())
    reveal, replay = images / f"granada-{pk}-reveal.png", images / f"granada-{pk}-replay.gif"
    assert f"  final reveal: {reveal}" in screen.lines and f"  replay: {replay}" in screen.lines
    assert screen.lines[-1].startswith(f"game {pk} finished: ")
    assert screen.lines.index(f"  replay: {replay}") < len(screen.lines) - 1
    image = _decoded(reveal)
    assert image.format == "PNG" and image.size == GRANADA_SIZE
    animation = Image.open(replay)
    assert animation.format == "GIF" and getattr(animation, "n_frames", 1) == frames
    for role in ("christian", "muslim"):
        assert _decoded(images / f"granada-{pk}-{role}.png").size == GRANADA_SIZE
    # the final reveal: the game's end shows every block, in the spectator's view too
    from render import granada
    from render.granada_scene import scene

    final = [(await service.view(pk, role)).view for role in (None, "christian", "muslim")]
    assert reveal.read_bytes() == granada.reveal(*final) == granada.reveal(final[0])
    sc = scene(final[0])
    assert all(p.face is not None for ps in sc.stacks.values() for p in ps)
