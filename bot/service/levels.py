"""The built-in player's level, kept in the seats' preferences (``Seat.prefs["level"]``).

A seat's ``level`` is the level the built-in player plays it at, now (a built-in seat) or when
it takes the seat over (a deadline handed to it, a resignation in a game of three or more).
The game's level is the one chosen when the game was opened: it is written on the seats that
exist then and read from them later, so a seat taken afterwards (a person joining, a seat filled
by the built-in player at the start) plays or is handed over at the game's level. Nothing else
stores it: a restart, an export or a rematch reads the same rows. A game from before levels
existed has none anywhere and is played at ``easy``, the player it always had.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bot.service.types import GameInfo, ServiceError
from engine.ai import LEVELS

DEFAULT_LEVEL = "easy"
PREF = "level"

__all__ = ["DEFAULT_LEVEL", "LEVELS", "PREF", "check_level", "game_level", "level_of", "seat_level"]


def check_level(level: str) -> str:
    """``level`` if it is one; ServiceError naming the levels otherwise."""
    if level not in LEVELS:
        raise ServiceError(f"There is no level {level!r}; the built-in player's levels are {', '.join(LEVELS)}.")
    return level


def _recorded(prefs: Mapping[str, Any] | None) -> str | None:
    value = (prefs or {}).get(PREF)
    return value if isinstance(value, str) and value in LEVELS else None


def game_level(prefs_in_role_order: Iterable[Mapping[str, Any] | None]) -> str:
    """The game's level: the first one recorded on its seats (in the game's role order)."""
    for prefs in prefs_in_role_order:
        found = _recorded(prefs)
        if found is not None:
            return found
    return DEFAULT_LEVEL


def seat_level(prefs: Mapping[str, Any] | None, game: str) -> str:
    """The level the built-in player plays a seat at: its own, or the game's."""
    return _recorded(prefs) or game


def level_of(info: GameInfo, role: str | None = None) -> str:
    """The game's level (``role`` None) or the level of one of its seats, from a GameInfo."""
    level = game_level(s.prefs for s in info.seats)
    if role is None:
        return level
    seat = info.seat(role)
    return seat_level(seat.prefs if seat is not None else None, level)
