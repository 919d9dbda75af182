"""``alcazaba bench --ai --level easy_vs_random`` (issues 9 and 10): the built-in player against
uniformly random players, one figure per registered game, in the format of the search levels."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from benchmarks import ai_sets
from bot import cli


def test_every_game_gets_its_figure_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["bench", "--ai", "--level", "easy_vs_random", "--games", "3", "--workers", "1"])
    assert status == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    rates = {line["name"]: line for line in lines if line["name"].startswith("ai.winrate.")}
    assert set(rates) == {f"ai.winrate.{g}.easy_vs_random" for g in engine.GAMES}
    seats = {"sabika": 2, "granada_city": 3, "navas": 2, "granada": 2}
    for game_id, n in seats.items():
        rate = rates[f"ai.winrate.{game_id}.easy_vs_random"]
        # --games counts games in all here, and the seat rotates: with 3 games each of n seats
        # has 3 // n or 3 // n + 1 of them
        assert rate["games"] == 3 and rate["seats"] == n and rate["unfinished"] == 0, rate
        assert sorted(side["games"] for side in rate["by_side"].values()) == sorted(
            [1] * n if n == 3 else [1, 2]), rate
        assert rate["player"] == "easy" and rate["opponent"] == "random"
        low, high = rate["ci95"]
        assert 0.0 <= low <= rate["rate"] <= high <= 1.0
        assert rate["target"] == ">= 0.8" and rate["meets_target"] == (rate["rate"] >= 0.8)
        assert rate["wins"] == sum(side["wins"] for side in rate["by_side"].values())


def test_a_game_is_the_same_for_the_same_seed_and_seat() -> None:
    first = ai_sets.ai_game(("sabika", ai_sets.EASY_VS_RANDOM, 5, "yellow", None))
    assert first["finished"] and first["ai_role"] == "yellow" and first["think"]
    again = ai_sets.ai_game(("sabika", ai_sets.EASY_VS_RANDOM, 5, "yellow", None))
    assert (again["winners"], again["steps"]) == (first["winners"], first["steps"])


@pytest.mark.parametrize(("result", "roles", "winners"), [
    ({"winner": "red", "winners": ["red"]}, ["red", "blue", "green"], ["red"]),
    ({"winner": None, "winners": ["red", "blue"]}, ["red", "blue", "green"], ["red", "blue"]),
    ({"winner": "muslim", "reason": "x", "score": {"muslim": 3, "christian": 9}}, ["christian", "muslim"], ["muslim"]),
    # Granada that nobody wins, and Sabika's two-player shared victory: a draw, whatever the scores
    ({"winner": None, "reason": "x", "score": {"christian": 9, "muslim": 3}}, ["christian", "muslim"],
     ["christian", "muslim"]),
])
def test_the_winners_of_a_result(result: dict[str, Any], roles: list[str], winners: list[str]) -> None:
    assert ai_sets.winners_of(result, roles) == winners


def test_a_shared_win_counts_its_share() -> None:
    game = {"ai_role": "red", "winners": ["red", "blue"]}
    assert ai_sets.credit(game) == 0.5
    assert ai_sets.credit({"ai_role": "green", "winners": ["red", "blue"]}) == 0.0
    assert ai_sets.credit({"ai_role": "red", "winners": ["red"]}) == 1.0
    assert ai_sets.credit({"ai_role": "red", "winners": []}) == 0.0  # unfinished
