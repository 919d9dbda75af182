"""Who won a finished game, read from its result dict, and the one sentence every front end
words it with (the Discord thread, prompts, lobby message and last DM; the terminal table).

A game's result (``module.result(state)``, stored on the game row) says who won in two keys:

* ``winner``: the seat that won alone, or None;
* ``winners``: everyone who won, when that is not one seat alone: the seats sharing a win
  (Dirk Henn's Granada, Sabika), or a player who holds no seat, by the name the game gives
  him (Sabika's Yusuf in a solo game); ``[]`` when nobody won (a solo game given up).

A result stored before ``winners`` existed (or a game that never writes it) and whose
``winner`` is None does not say whether somebody else won: it is worded from its reason
alone, never as "No winner".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def winners(result: dict[str, Any] | None) -> list[str] | None:
    """Everyone the result says won (seats by role, others by name); ``[]`` when it says
    nobody won; None when it does not say (no result, or an older one with no winner)."""
    if not result:
        return None
    listed = result.get("winners")
    if isinstance(listed, list):
        return [str(w) for w in listed]
    winner = result.get("winner")
    return [str(winner)] if winner else None


def _plain(name: str) -> str:
    return name


def result_sentence(result: dict[str, Any] | None, mark: Callable[[str], str] = _plain) -> str:
    """The result in one sentence: who won (``mark`` dresses each name, e.g. bold on
    Discord), the game's reason, the scores. "No winner" only when the result says so."""
    if not result:
        return "The game is over."
    who = winners(result)
    reason = str(result.get("reason") or "")
    if who is None:
        head = ""
    elif not who:
        head = "No winner"
    elif len(who) == 1:
        head = f"{mark(who[0])} wins"
    else:
        head = f"{', '.join(mark(w) for w in who[:-1])} and {mark(who[-1])} share the win"
    if head and reason:
        text = f"{head}: {reason}"
    else:
        text = head or (reason[:1].upper() + reason[1:]) or "The game is over"
    score = result.get("score") or {}
    tail = " · " + ", ".join(f"{k} {v}" for k, v in score.items()) if score else ""
    return f"{text}{tail}."


__all__ = ["result_sentence", "winners"]
