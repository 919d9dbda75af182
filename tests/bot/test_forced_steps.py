"""Forced steps (issue 38): the only action of a menu, which decides nothing, is taken by the
service itself, recorded as a move marked ``auto`` in the same transaction as the step that led
to it, logged as automatic, and the player is told of his next real decision only; undo takes
it back with the step before it; the seat preference ``confirm_forced`` asks for it instead.
Through the service on a real SQLite file, with the forced race (tests/bot/forcedgame.py)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.local import play
from bot.service import CONFIRM_FORCED, GameService, UndoRefused
from bot.service.forced import FORCED_SAMPLES
from tests.bot import forcedgame
from tests.bot.test_local import Keyboard

ALICE, BOB, CHANNEL = 101, 202, 909


@pytest.fixture(autouse=True)
def forced_registered() -> Iterator[None]:
    engine.GAMES[forcedgame.id] = forcedgame
    yield
    engine.GAMES.pop(forcedgame.id, None)


def rows(db_path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as con:
        return con.execute(sql, args).fetchall()


async def race(service: GameService, *, confirm: tuple[str, ...] = (), **options: Any) -> int:
    """A running forced race, alice red and bob blue, its public lines going to a channel;
    the seats in ``confirm`` ask to confirm forced steps."""
    info = await service.create_game("forced", options, seed=5)
    await service.join(info.id, ALICE, "alice", "red")
    await service.join(info.id, BOB, "bob", "blue")
    for role in confirm:
        await service.set_prefs(info.id, role, {CONFIRM_FORCED: True}, ALICE if role == "red" else BOB)
    await service.set_place(info.id, channel_id=CHANNEL)
    await service.start(info.id)
    return info.id


def turn_rows(db_path: Path, pk: int) -> list[tuple[str, int]]:
    """The 'your_turn' notifications written: (role, version)."""
    found = []
    for (payload,) in rows(db_path, "SELECT payload FROM outbox WHERE game_pk = ? AND kind = 'dm' ORDER BY id", pk):
        data = json.loads(payload)
        if data["type"] == "your_turn":
            found.append((data["role"], data["version"]))
    return found


def channel_lines(db_path: Path, pk: int) -> list[str]:
    lines: list[str] = []
    for (payload,) in rows(db_path, "SELECT payload FROM outbox WHERE game_pk = ? AND kind = 'channel' ORDER BY id",
                           pk):
        lines.extend(json.loads(payload).get("lines", []))
    return lines


def labels(view: dict[str, Any]) -> list[str]:
    return [a["label"] for a in view["actions"]]


async def test_forced_steps_are_taken_and_the_player_is_asked_his_next_decision(
        service: GameService, db_path: Path) -> None:
    pk = await race(service)
    # The race opens with red's forced "Start your turn": the start took it.
    assert await service.take_forced(pk) == []
    red = await service.view(pk, "red", ALICE)
    assert red.version == 1
    assert labels(red.view) == ["Add 1", "Add 2", "Draw a bonus point", "Bank 0 points"]
    assert not any(a.get("forced") for a in red.view["actions"])

    await service.apply(pk, "red", {"type": "add", "n": 2}, red.version, ALICE)
    step = await service.apply(pk, "red", {"type": "add", "n": 2}, red.version + 1, ALICE)
    # Red's four pending points leave him only "Bank": taken; blue's turn opens with "Start": taken.
    assert [(f.role, f.action and f.action["label"], f.automatic) for f in step.forced] == [
        ("red", "Bank 4 points", True), ("blue", "Start your turn", True)]
    assert step.version == 5 and step.active == ["blue"] and (await service.game(pk)).version == 5
    assert [e["text"] for e in step.log] == ["red adds 2.", "red banks 4.", "blue starts a turn."]
    blue = await service.view(pk, "blue", BOB)
    assert labels(blue.view) == ["Add 1", "Add 2", "Draw a bonus point", "Bank 0 points"]

    moves = await service.moves(pk)
    assert [(m["seq"], m["role"], m["action"]["type"], m["action"].get("automatic", False)) for m in moves] == [
        (1, "red", "start", True), (2, "red", "add", False), (3, "red", "add", False),
        (4, "red", "bank", True), (5, "blue", "start", True)]
    assert all("label" not in m["action"] and "forced" not in m["action"] for m in moves)
    # Each person is told of a real decision: never of the forced steps taken for him (red's
    # bank at version 3, blue's start at 4). The start's own prompt (version 0) comes before
    # the start takes the opening forced step (a front end skips it: red acted since).
    assert turn_rows(db_path, pk) == [("red", 0), ("red", 1), ("red", 2), ("blue", 5)]
    assert channel_lines(db_path, pk).count("Red had one choice, taken automatically.") == 2
    assert "Blue had one choice, taken automatically." in channel_lines(db_path, pk)
    assert (await service.replay_check(pk)).ok


async def test_undo_takes_the_forced_steps_back_with_the_step_before_them(
        service: GameService, db_path: Path) -> None:
    pk = await race(service)
    await service.take_forced(pk)
    await service.apply(pk, "red", {"type": "add", "n": 2}, 1, ALICE)
    step = await service.apply(pk, "red", {"type": "add", "n": 2}, 2, ALICE)
    assert step.version == 5
    with pytest.raises(UndoRefused, match="red has acted since your last step"):
        await service.undo(pk, "blue", 5, BOB)  # blue chose nothing yet: his start was forced
    assert (await service.view(pk, "red", ALICE)).can_undo

    undone = await service.undo(pk, "red", 5, ALICE)
    # Three undo rows: blue's start, red's bank, red's second "add 2"; red stands before his choice.
    assert undone.version == 8 and undone.active == ["red"]
    assert rows(db_path, "SELECT seq, undoes_seq FROM move WHERE game_pk = ? AND kind = 'undo' ORDER BY seq", pk) == [
        (6, 5), (7, 4), (8, 3)]
    red = await service.view(pk, "red", ALICE)
    assert red.view["pending"] == 2 and labels(red.view) == ["Add 1", "Add 2", "Draw a bonus point", "Bank 2 points"]
    assert not any(a.get("forced") for a in red.view["actions"]), "no forced step waits: nothing is re-taken"
    assert red.can_undo  # his first "add 2" may go too
    assert len([line for line in channel_lines(db_path, pk) if "takes back a step" in line]) <= 1
    again = await service.undo(pk, "red", 8, ALICE)
    assert again.version == 9 and (await service.view(pk, "red", ALICE)).view["pending"] == 0
    with pytest.raises(UndoRefused, match="nothing to take back"):
        await service.undo(pk, "red", 9, ALICE)  # the opening "Start" was forced: no choice of his
    assert (await service.replay_check(pk)).ok


async def test_a_seat_that_asks_to_confirm_is_asked_for_forced_steps(service: GameService, db_path: Path) -> None:
    pk = await race(service, confirm=("red",))
    assert await service.take_forced(pk) == []
    red = await service.view(pk, "red", ALICE)
    assert labels(red.view) == ["Start your turn"] and red.view["actions"][0]["forced"] is True
    await service.apply(pk, "red", red.view["actions"][0], red.version, ALICE)
    await service.apply(pk, "red", {"type": "add", "n": 2}, 1, ALICE)
    step = await service.apply(pk, "red", {"type": "add", "n": 2}, 2, ALICE)
    assert step.forced == () and step.version == 3 and step.active == ["red"]
    assert labels((await service.view(pk, "red", ALICE)).view) == ["Bank 4 points"]
    assert ("red", 3) in turn_rows(db_path, pk), "red is asked to bank"
    step = await service.apply(pk, "red", {"type": "bank"}, 3, ALICE)
    # Bob did not ask: his forced start is taken after red's bank.
    assert [(f.role, f.automatic) for f in step.forced] == [("blue", True)] and step.version == 5
    moves = await service.moves(pk)
    assert [m["action"].get("automatic", False) for m in moves] == [False, False, False, False, True]


async def test_a_game_opts_an_action_out_of_being_forced(service: GameService) -> None:
    pk = await race(service, ask=True)
    red = await service.view(pk, "red", ALICE)
    assert red.view["actions"] == [{"type": "start", "label": "Start your turn", "ask": True}]
    assert await service.take_forced(pk) == []


async def test_a_step_that_cannot_be_taken_back_says_so_and_is_never_forced(service: GameService) -> None:
    pk = await race(service)
    await service.take_forced(pk)
    red = await service.view(pk, "red", ALICE)
    finals = [a["label"] for a in red.view["actions"] if a.get("final")]
    assert finals == ["Draw a bonus point"]
    step = await service.apply(pk, "red", {"type": "draw", "label": "Draw a bonus point", "final": True}, 1, ALICE)
    assert step.barrier
    assert not (await service.view(pk, "red", ALICE)).can_undo



async def test_a_step_left_to_its_player_is_marked_once_by_the_check_that_left_it(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check for a forced step applies a role's one action to mark it (as a view marks
    it): a step left to its player (here forced, but a hidden hand would tell) is marked and
    reached by that check, and the player's view and step that follow take its marks and the
    state it reached instead of applying the action again (bot/service/marks.py)."""
    pk = await race(service, joker="nobody")
    await service.apply(pk, "red", {"type": "add", "n": 2}, 1, ALICE)
    game = engine.get(forcedgame.id)
    applied: list[tuple[str, str]] = []
    real = game.apply

    def counted(state: dict[str, Any], role: str, action: dict[str, Any]) -> dict[str, Any]:
        applied.append((role, action["type"]))
        return real(state, role, action)

    monkeypatch.setattr(game, "apply", counted)
    await service.apply(pk, "red", {"type": "add", "n": 2}, 2, ALICE)
    assert applied == [("red", "add"), ("red", "bank")], "the step, then the check's marking of Bank"
    red = await service.view(pk, "red", ALICE)
    state = (await service.state(pk))[1]
    assert red.view == game.own_view(state, "red") | {"actions": red.view["actions"]}
    assert red.view["actions"] == [{"type": "bank", "label": "Bank 4 points", "forced": True}]
    assert len(applied) == 2, "the view took the check's marks"
    step = await service.apply(pk, "red", red.view["actions"][0], 3, ALICE)
    # the bank took the state the check reached; blue's forced start was marked, then checked
    # in the worlds red cannot tell apart
    assert applied[2:] == [("blue", "start")] * (1 + FORCED_SAMPLES)
    assert [(f.role, f.automatic) for f in step.forced] == [("blue", True)]
    assert (await service.replay_check(pk)).ok


# ------------------------------------------------------------------ the terminal table


async def confirming_red(service: GameService) -> int:
    """A started game of the forced-steps game (seed 5) whose red seat asked to confirm forced
    steps: its id."""
    info = await service.create_game("forced", {}, seed=5)
    for role in info.roles:
        await service.join(info.id, None, f"terminal ({role})", role)
    await service.set_prefs(info.id, "red", {CONFIRM_FORCED: True})
    await service.start(info.id)
    return info.id


async def test_the_terminal_table_takes_forced_steps_and_says_so(service: GameService) -> None:
    lines: list[str] = []
    keyboard = Keyboard("2", "2", "q")  # red: add 2, add 2 (then only "Bank": taken); blue's start: taken
    await play(service, "forced", seats=["red", "blue"], seed=5, out=lines.append, ask=keyboard)
    text = "\n".join(lines)
    assert "  red starts a turn." in lines  # the opening forced step, taken as the game started
    assert "  (automatic) red: Bank 4 points - the only choice, taken for you ('confirm on' to be asked)" in lines
    assert "  (automatic) blue: Start your turn - the only choice, taken for you ('confirm on' to be asked)" in lines
    assert "Start your turn\n" not in text.replace("(automatic)", ""), "never offered as a menu entry"
    assert "    3. Draw a bonus point (final: cannot be taken back)" in lines
    # Three prompts: red twice, then blue's first real decision.
    assert [p.split(">")[0] for p in keyboard.prompts] == ["red", "red", "blue"]
    assert (await service.game(1)).version == 5


async def test_the_terminal_table_undoes_a_step_with_the_forced_steps_after_it(service: GameService) -> None:
    lines: list[str] = []
    keyboard = Keyboard("2", "2", "u", "q")  # blue cannot take back red's step; red can, hot-seat
    await play(service, "forced", seats=["red", "blue"], seed=5, out=lines.append, ask=keyboard)
    assert "Red takes back a step." in lines
    assert [p.split(">")[0] for p in keyboard.prompts] == ["red", "red", "blue", "red"]
    red = await service.view(1, "red")
    assert red.view["pending"] == 2 and len(red.view["actions"]) == 4, "red stands before his own choice again"


async def test_confirm_on_at_the_terminal_table_asks_for_forced_steps(service: GameService) -> None:
    lines: list[str] = []
    game = await confirming_red(service)
    keyboard = Keyboard("1", "confirm off", "q")
    await play(service, "forced", resume=game, out=lines.append, ask=keyboard)
    assert "    1. Start your turn" in lines, "asked, as the seat wished"
    assert (await service.moves(game))[0]["action"] == {"type": "start"}
    assert any(line.startswith("Forced steps are taken for red") for line in lines)


async def test_confirm_off_takes_the_forced_step_waiting(service: GameService) -> None:
    lines: list[str] = []
    game = await confirming_red(service)
    keyboard = Keyboard("confirm off", "q")
    await play(service, "forced", resume=game, out=lines.append, ask=keyboard)
    assert "  (automatic) red: Start your turn - the only choice, taken for you ('confirm on' to be asked)" in lines
    assert (await service.moves(game))[0]["action"] == {"type": "start", "automatic": True}


async def test_a_step_forced_by_a_hidden_hand_is_left_to_the_player(service: GameService, db_path: Path) -> None:
    """Red has nothing but "Bank" because he holds no joker, which blue cannot see: taken at
    once, with its public line, it would tell blue that red's hand is empty. Red is asked."""
    pk = await race(service, joker="nobody")
    await service.apply(pk, "red", {"type": "add", "n": 2}, 1, ALICE)
    step = await service.apply(pk, "red", {"type": "add", "n": 2}, 2, ALICE)
    assert step.forced == () and step.version == 3
    red = await service.view(pk, "red", ALICE)
    assert labels(red.view) == ["Bank 4 points"] and red.view["actions"][0].get("forced") is True
    assert ("red", 3) in turn_rows(db_path, pk)
    # Banking passes the turn to blue, whose opening step depends on nothing hidden: taken.
    step = await service.apply(pk, "red", red.view["actions"][0], 3, ALICE)
    assert [(f.role, f.automatic) for f in step.forced] == [("blue", True)]
