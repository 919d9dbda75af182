"""``alcazaba local GAME --autoplay --level [ROLE=]LEVEL``: the terminal table's levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from bot.cli import parse_levels
from bot.service import _bot_seed
from engine.ai import choose
from engine.api import strip_label
from tests.bot.test_cli import in_process, run


def test_level_arguments_become_a_level_per_role() -> None:
    assert parse_levels([]) == {}
    assert parse_levels(["hard"]) == {None: "hard"}
    assert parse_levels(["christian=hard", "Normal", "muslim=easy"]) == {"christian": "hard", None: "normal",
                                                                        "muslim": "easy"}


def test_bad_levels_are_refused_in_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    db = str(tmp_path / "x.db")
    status, _, err = in_process(["local", "navas", "--autoplay", "--level", "expert", "--db", db], capsys)
    assert status == 2 and "there is no level 'expert'; the levels are easy, normal, hard" in err
    status, _, err = in_process(["local", "navas", "--autoplay", "--level", "=hard", "--db", db], capsys)
    assert status == 2 and "name a role before '='" in err
    status, _, err = in_process(["local", "navas", "--autoplay", "--level", "hard", "--level", "easy", "--db", db],
                                capsys)
    assert status == 2 and "gives every seat two levels (hard and easy)" in err
    status, _, err = in_process(["local", "navas", "--autoplay", "--level", "moors=hard", "--db", db], capsys)
    assert status == 2 and "--level names no role of this game (moors)" in err


@pytest.mark.slow
def test_autoplay_with_a_level_per_seat_plays_each_seat_at_its_level(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Sabika's blue at hard, every other seat (yellow) at normal, the search capped at one
    iteration (AI_ITERATION_CAP) so that a whole game takes seconds; every move of the exported
    game is the move its seat's level chooses at its seed."""
    db = tmp_path / "t.db"
    monkeypatch.setenv("AI_ITERATION_CAP", "1")  # the subprocess's environment is a copy of this one
    done = run("sabika", tmp_path, "local", "sabika", "--autoplay", "--level", "blue=hard", "--level", "normal",
               "--seed", "3", "--db", str(db), timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "blue: built-in player (hard), yellow: built-in player (normal)" in lines[0]
    assert lines[-1].startswith("game 1 finished: ")
    result = json.loads(lines[-1].removeprefix("game 1 finished: "))
    exported = run("sabika", tmp_path, "export", "1", "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    game = json.loads(exported.stdout)
    module = engine.get("sabika")
    state = module.setup(game["seed"], dict(game["options"]))
    levels = {"blue": "hard", "yellow": "normal"}
    for version, move in enumerate(game["moves"]):
        role = move["role"]
        seed = _bot_seed(game["seed"], version, role)
        assert move["action"] == strip_label(choose(module, state, role, seed, levels[role], 1)), f"move {version + 1}"
        state = module.apply(state, role, move["action"])
    assert module.result(state) == result
