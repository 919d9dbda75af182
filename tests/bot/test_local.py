"""The terminal table, driven in-process with scripted keyboard input; its pictures are real
PNGs (and a GIF) drawn by render/ from real games, decoded here."""

from __future__ import annotations

import io
import json
import random
import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import engine
from bot.local import LocalError, Table, play, program_name
from bot.service import GameService, ServiceError
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
    assert screen.lines[-1] == f"game 1 saved; continue with: {program_name()} local toy --resume 1"
    _, state = await service.state(1)
    assert state["pending"] == 1, "the one valid order (1 = add 1) was applied, nothing else"


async def test_undo_and_its_refusal(service: GameService) -> None:
    # 2 = add 2, then u takes it back, then u again has nothing to take back.
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("2", "u", "u", "q"))
    assert "Red takes back a step." in screen.lines
    assert "There is nothing to take back: no step has been made." in screen.lines
    moves = await service.moves(1)
    assert [(m["kind"], m["undoes_seq"]) for m in moves] == [("step", None), ("undo", 1)]


async def test_hot_seat_player_may_take_back_the_step_that_ended_his_turn(service: GameService) -> None:
    # red: 1 (add 1), 5 (bank: blue's turn); u takes red's bank back.
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("1", "5", "u", "q"))
    assert "Red takes back a step." in screen.lines
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


# ------------------------------------------------------------------ issue 12: each line once, options,
# the whole log, the final reveal, auto-pass, --resume --autoplay


async def test_an_undo_does_not_print_the_log_again(service: GameService) -> None:
    # red banks (blue's turn), then takes it back in hot-seat: the opening lines stay printed once.
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("5", "u", "q"))
    assert "Red takes back a step." in screen.lines
    assert screen.lines.count("  The race begins.") == 1
    assert screen.lines.count("  red banks 0 and has 0.") == 1, "the undone step's line was printed once"


async def test_a_step_made_again_after_an_undo_is_printed_again(service: GameService) -> None:
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("5", "u", "5", "q"))
    assert screen.lines.count("  red banks 0 and has 0.") == 2, "made twice, printed twice"


async def test_hot_seat_players_do_not_see_the_public_lines_twice(service: GameService) -> None:
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("5", "5", "q"))
    assert screen.lines.count("  The race begins.") == 1
    assert screen.lines.count("  red banks 0 and has 0.") == 1
    private = [line for line in screen.lines if line.startswith("  (private) You draw a ")]
    assert len(private) == 2, "each seat's own card line, once each"


def log_lines(screen: Screen) -> set[str]:
    """The log lines a screen printed (indented, but not the numbered menu entries)."""
    return {line for line in screen.lines if line.startswith("  ") and not re.match(r"\s+\d+\. ", line)}


async def test_a_resumed_game_prints_each_line_once(service: GameService) -> None:
    # A race to 5: red adds 2, 2 and banks 4, blue banks 0, quit; resumed: red adds 1, banks it, wins.
    first = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, options={"target": 5}, out=first,
               ask=Keyboard("2", "2", "5", "5", "q"))
    _, state = await service.state(1)
    assert state["score"] == {"red": 4, "blue": 0}, state["log"]
    assert "  blue banks 0 and has 0." in first.lines
    screen = Screen()
    await play(service, "toy", resume=1, out=screen, ask=Keyboard("1", "5"))
    assert screen.lines[-1].startswith("game 1 finished: ")
    assert screen.lines.count("  red wins.") == 1
    assert screen.lines.count("  red banks 1 and has 5.") == 1
    assert [line for line in screen.lines if line in log_lines(first)] == [], "printed before the resume: not again"
    assert "(the 3 log lines printed before are not repeated; type 'log' to read the whole log)" in screen.lines


async def test_a_resume_prints_no_line_the_player_already_saw(service: GameService) -> None:
    """Issue 38: a resume repeated the last lines of the log the player had read before
    ``q``; and a step made while no table was printing (the table was killed after the
    step was committed) is printed on resume, once."""
    first = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=first, ask=Keyboard("2", "5", "1", "q"))
    printed = log_lines(first)
    assert "  red banks 2 and has 2." in printed
    info = await service.game(1)
    step = await service.apply(1, "blue", {"type": "bank"}, info.version)  # the table died before printing it
    assert [e["text"] for e in step.log] == ["blue banks 1 and has 1."]
    screen = Screen()
    await play(service, "toy", resume=1, out=screen, ask=Keyboard("q"))
    again = [line for line in screen.lines if line in printed]
    assert again == [], again
    assert screen.lines.count("  blue banks 1 and has 1.") == 1, "the line not printed before, once"
    private = [line for line in screen.lines if "(private)" in line]
    assert private == [], "the seats' cards were shown in the first session"


async def test_the_move_counter_does_not_count_undo_records(service: GameService) -> None:
    """Issue 38: the counter went 7, then ``u``, then 8; a step taken back is one move fewer."""
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("1", "1", "u", "1", "q"))
    counters = [int(line.rsplit(" move ", 1)[1].removesuffix(" ---")) for line in screen.lines
                if line.startswith("--- Toy race #1 - ")]
    assert counters == [0, 1, 2, 1, 2], screen.text


async def test_options_reach_the_game_and_unknown_ones_are_refused(service: GameService) -> None:
    await play(service, "toy", seats=["red"], seed=3, options={"target": 20}, out=Screen(), ask=Keyboard("q"))
    assert (await service.game(1)).options == {"target": 20}
    with pytest.raises(ServiceError, match="has no option colour; its options are: target"):
        await play(service, "toy", options={"colour": "red"}, out=Screen(), ask=Keyboard())


async def test_log_shows_the_whole_log_of_the_seat(service: GameService) -> None:
    screen = Screen()
    await play(service, "toy", seats=["red", "blue"], seed=3, out=screen, ask=Keyboard("5", "log", "q"))
    start = screen.lines.index("--- the whole log, as Blue reads it (3 lines) ---")
    shown = screen.lines[start + 1:screen.lines.index("--- end of the log ---")]
    view = await service.view(1, "blue")
    assert len(shown) == 3 and [line.strip().removeprefix("(private) ") for line in shown] == [
        e["text"] for e in view.view["log"]]
    assert not any("red" in line and "draw a" in line for line in shown), "red's private line stays hidden"


async def test_finished_1212_game_reveals_what_each_side_held(service: GameService) -> None:
    screen = Screen()
    await play(service, "navas", autoplay=True, seed=1, options={"advanced": True}, out=screen, ask=Keyboard())
    start = screen.lines.index("Final reveal (what each side held at the end):")
    assert screen.lines[-1].startswith("game 1 finished: ")
    for role, line in zip(("christian", "muslim"), screen.lines[start + 1:start + 3], strict=True):
        own = (await service.view(1, role)).view
        assert line.startswith(f"  {role}: hand: ")
        for card in own["hand"]:
            assert card in line
        for card in own["specials"]["hand"]:
            assert own["specials"]["catalog"][card]["name"] in line


async def test_resume_with_autoplay_lets_the_built_in_player_finish(service: GameService) -> None:
    await play(service, "toy", seats=["red", "blue"], seed=3, out=Screen(), ask=Keyboard("1", "q"))
    screen = Screen()
    status = await play(service, "toy", resume=1, autoplay=True, out=screen, ask=Keyboard())
    assert status == 0 and screen.lines[-1].startswith("game 1 finished: ")
    assert "(the built-in player finishes it)" in screen.lines[0]
    assert (await service.game(1)).status == "finished"
    assert (await service.replay_check(1)).ok


# A toy game with a reaction window: after each bank the next player may first react or pass.
def _reactive_toy() -> types.ModuleType:
    from engine.api import RuleError, clone, require_legal
    from tests.bot import toygame

    module = types.ModuleType("toyreact")
    window_actions = [{"type": "pass", "label": "pass", "pass": True}, {"type": "react", "label": "react"}]

    def setup(seed: int, options: dict[str, Any]) -> dict[str, Any]:
        return {**toygame.setup(seed, options), "window": None}

    def active(state: dict[str, Any]) -> list[str]:
        return [state["window"]] if state["window"] else toygame.active(state)

    def actions(state: dict[str, Any], role: str) -> list[dict[str, Any]]:
        if state["window"]:
            return list(window_actions) if role == state["window"] else []
        return toygame.actions(state, role)

    def apply(state: dict[str, Any], role: str, action: dict[str, Any]) -> dict[str, Any]:
        if state["window"]:
            if role != state["window"]:
                raise RuleError(f"{state['window']} may react first", "r")
            chosen = require_legal(window_actions, action, "r", role)
            new = clone(state)
            new["window"] = None
            new["log"].append({"text": f"{role} {'passes' if chosen['type'] == 'pass' else 'reacts'}."})
            return new
        new = toygame.apply(state, role, action)
        if action.get("type") == "bank" and new["result"] is None:
            new["window"] = new["turn"]
        return new

    def view(state: dict[str, Any], role: str | None) -> dict[str, Any]:
        shown = toygame.view(state, role)
        if state["window"]:
            shown["actions"] = actions(state, role) if role else []
            shown["reaction"] = role == state["window"]
            shown["prompt"] = f"{state['window']} may react."
        return shown

    for name in ("roles", "result", "redeal", "OPTIONS"):
        setattr(module, name, getattr(toygame, name))
    module.__dict__.update(id="toyreact", title="Toy race with reactions", setup=setup, active=active,
                           actions=actions, apply=apply, view=view)
    return module


async def test_autopass_passes_reaction_prompts_of_that_seat_only(service: GameService,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import engine

    monkeypatch.setitem(engine.GAMES, "toyreact", _reactive_toy())
    # red banks: blue's window is asked; blue turns auto-pass on, which passes it; blue banks:
    # red's window is asked (red did not ask for auto-pass) and red passes by hand.
    keyboard = Keyboard("5", "autopass on", "5", "1", "q")
    screen = Screen()
    await play(service, "toyreact", seats=["red", "blue"], seed=3, out=screen, ask=keyboard)
    assert "Auto-pass is on for blue: reaction prompts that offer a pass are passed for you." in screen.lines
    assert screen.lines.count("  (auto-pass) blue: pass") == 1
    assert screen.lines.count("blue may react.") == 1, "asked once, before auto-pass was on"
    assert screen.lines.count("red may react.") == 1, "red's window is still asked"
    hint = "Auto-pass such questions: type 'autopass on'."
    asked = [i for i, line in enumerate(screen.lines) if line.endswith(" may react.")]
    assert [screen.lines[i + 1] for i in asked] == [hint, hint], "each reaction prompt says how to auto-pass"
    assert screen.lines.count(hint) == 2, "and no other prompt does"
    info = await service.game(1)
    assert info.seat("blue").prefs.get("autopass") is True  # type: ignore[union-attr]
    assert "autopass" not in info.seat("red").prefs  # type: ignore[union-attr]
    moves = [(m["role"], m["action"]["type"]) for m in await service.moves(1)]
    assert moves == [("red", "bank"), ("blue", "pass"), ("blue", "bank"), ("red", "pass")]


async def test_autopass_is_the_seat_preference_discord_sets(service: GameService,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A preference stored by /prefs autopass (GameService.set_prefs) is honoured here too."""
    import engine

    monkeypatch.setitem(engine.GAMES, "toyreact", _reactive_toy())
    info = await service.create_game("toyreact", {}, seed=3)
    await service.join(info.id, None, "terminal (red)", "red")
    await service.join(info.id, None, "terminal (blue)", "blue")
    await service.start(info.id)
    await service.set_prefs(info.id, "blue", {"autopass": True})
    screen = Screen()
    await play(service, "toyreact", resume=info.id, out=screen, ask=Keyboard("5", "q"))
    assert "  (auto-pass) blue: pass" in screen.lines
    assert "blue may react." not in screen.lines


# ------------------------------------------------------------------ issues 9 and 10: more seats, one seat


class RandomKeyboard(Keyboard):
    """Answers each order prompt with a random number among the orders the screen listed
    since the prompt's heading: a player at the keyboard who knows no strategy."""

    def __init__(self, screen: Screen, seed: int) -> None:
        super().__init__()
        self.screen = screen
        self.rng = random.Random(seed)

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        heading = max(i for i, line in enumerate(self.screen.lines) if line.startswith("--- "))
        listed = [line for line in self.screen.lines[heading:] if re.match(r"^\s+\d+\. ", line)]
        assert listed, f"asked {prompt!r} with no order listed"
        return str(self.rng.randint(1, len(listed)))


@pytest.mark.slow
async def test_a_two_player_game_of_granada_city_with_dirk_finishes_at_the_table(service: GameService,
                                                                                 tmp_path: Path) -> None:
    """``alcazaba local granada_city --players 2 --seat red``: red at the keyboard, blue the
    built-in player, Dirk the rulebook's imaginary third player (2 players)."""
    screen = Screen()
    images = tmp_path / "images"
    status = await play(service, "granada_city", seats=["red"], seed=4, options={"players": 2},
                        images_dir=images, out=screen, ask=RandomKeyboard(screen, 4))
    assert status == 0 and screen.lines[-1].startswith("game 1 finished: ")
    info = await service.game(1)
    assert info.roles == ["red", "blue"] and info.status == "finished"
    exported = await service.export(1)
    assert exported["options"]["players"] == 2
    assert {m["role"] for m in exported["moves"]} == {"red", "blue"}
    _, state = await service.state(1)
    view = engine.get("granada_city").view(state, None)
    assert view["dirk"] is not None and "Dirk" in screen.text, "Dirk took part"
    assert (await service.replay_check(1)).ok
    assert _decoded(images / "granada_city-1-red.png").format == "PNG"
    assert not (images / "granada_city-1-blue.png").exists(), "only the seat at the keyboard gets its board"


def test_a_three_player_game_of_sabika_by_built_in_players(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``alcazaba local sabika --players 3 --autoplay``, to the end."""
    from bot.cli import main

    db = tmp_path / "s.db"
    status = main(["local", "sabika", "--players", "3", "--autoplay", "--seed", "2", "--db", str(db)])
    out = capsys.readouterr().out.splitlines()
    assert status == 0 and out[-1].startswith("game 1 finished: ")
    assert "blue: built-in player (easy), yellow: built-in player (easy), pink: built-in player (easy)" in out[0]
    result = json.loads(out[-1].removeprefix("game 1 finished: "))
    assert set(result["score"]) == {"blue", "yellow", "pink"}


async def test_a_solo_game_of_sabika_at_the_table_shows_yusufs_turns(service: GameService) -> None:
    """One seat: Yusuf's turns are the engine's own steps, printed as they happen; the table
    never waits for anyone but the player."""
    screen = Screen()
    status = await play(service, "sabika", seed=3, options={"players": 1}, out=screen,
                        ask=RandomKeyboard(screen, 3))
    assert status == 0 and screen.lines[-1].startswith("game 1 finished: ")
    info = await service.game(1)
    assert info.roles == ["blue"] and not info.seats[0].is_bot
    yusuf = [line for line in screen.lines if "Yusuf" in line]
    assert len(yusuf) >= 5
    assert {m["role"] for m in (await service.export(1))["moves"]} == {"blue"}
