"""Sabika's result names everyone who won when no seat won alone (issue 34): Yusuf, who holds
no seat, by name; the seats sharing a victory by colour. Derived from the stored scores, so
the states of games already played (and their hashes) stay as they were."""

from __future__ import annotations

import pytest

from engine import sabika
from engine.api import clone


def finished(scores: dict[str, int], winner: str | None) -> dict[str, object]:
    return {"result": {"winner": winner, "reason": "as scored", "score": dict(scores)}}


@pytest.mark.rule("sabika:solo-end-of-game")
def test_yusuf_is_named_when_he_wins() -> None:
    result = sabika.result(finished({"yusuf": 64, "blue": 50}, None))
    assert result is not None and result["winner"] is None and result["winners"] == ["Yusuf"]


def test_a_shared_victory_lists_the_seats_that_share_it() -> None:
    result = sabika.result(finished({"blue": 40, "pink": 40, "green": 12}, None))
    assert result is not None and result["winners"] == ["blue", "pink"]
    tie_with_yusuf = sabika.result(finished({"yusuf": 40, "blue": 40}, None))
    assert tie_with_yusuf is not None and tie_with_yusuf["winners"] == ["Yusuf", "blue"]


def test_a_seat_that_won_alone_is_the_winner_and_the_state_is_untouched() -> None:
    state = finished({"blue": 41, "pink": 40}, "blue")
    before = clone(state)
    result = sabika.result(state)
    assert result is not None and result["winner"] == "blue" and "winners" not in result
    assert state == before
    won_by_yusuf = finished({"yusuf": 64, "blue": 50}, None)
    before = clone(won_by_yusuf)
    sabika.result(won_by_yusuf)
    assert won_by_yusuf == before  # "winners" is in the result only, never written to the state
    assert sabika.result({"result": None}) is None
