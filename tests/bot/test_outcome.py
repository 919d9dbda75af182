"""How a result is worded (issue 34): from the result itself, whoever won. A seat alone, seats
sharing a win, a player who holds no seat (Sabika's Yusuf); "No winner" only when the result
says nobody won, and an older result that names nobody is worded from its reason alone."""

from __future__ import annotations

from typing import Any

from bot.discord import present
from bot.service.outcome import result_sentence, winners


def test_a_seat_that_won_alone() -> None:
    result = {"winner": "red", "reason": "red reached 12", "score": {"red": 12, "blue": 7}}
    assert winners(result) == ["red"]
    assert result_sentence(result) == "red wins: red reached 12 · red 12, blue 7."
    assert present.result_sentence(result) == "**red** wins: red reached 12 · red 12, blue 7."


def test_a_player_without_a_seat_wins() -> None:
    result = {"winner": None, "winners": ["Yusuf"], "reason": "Yusuf has the most Prestige Points (64) and wins",
              "score": {"yusuf": 64, "blue": 50}}
    assert present.result_sentence(result) == ("**Yusuf** wins: Yusuf has the most Prestige Points (64) and wins"
                                               " · yusuf 64, blue 50.")


def test_a_shared_win_names_every_winner() -> None:
    result: dict[str, Any] = {"winner": None, "winners": ["red", "blue", "green"], "reason": "Red, Blue and Green share the win",
              "score": {}}
    assert present.result_sentence(result) == ("**red**, **blue** and **green** share the win: "
                                               "Red, Blue and Green share the win.")


def test_no_winner_only_when_the_result_says_so() -> None:
    assert result_sentence({"winner": None, "winners": [], "reason": "blue resigned", "score": {}}) == (
        "No winner: blue resigned.")
    # A result stored before ``winners`` existed, with no winner: its reason, as it stands.
    old: dict[str, Any] = {"winner": None, "reason": "Yusuf has the most Prestige Points (64) and wins", "score": {}}
    assert winners(old) is None
    assert result_sentence(old) == "Yusuf has the most Prestige Points (64) and wins."
    assert result_sentence(None) == "The game is over."
