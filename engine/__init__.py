"""Rules engines of Alcazaba's games, behind one contract (:mod:`engine.api`).

``GAMES`` maps a game id to its module (the registry; a test may register a module of its
own). A game joins it by being listed in ``_GAME_PACKAGES`` once it passes the contract
check. Callers reach a game through :func:`get`, which hands out its :class:`engine.api.Game`:
every capability of the contract, the optional ones filled with their defaults.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.api import Game, GameModule, RuleError, adapt
from engine.replays import replay, replay_last

__all__ = ["GAMES", "Game", "GameModule", "RuleError", "get", "replay", "replay_last"]

_GAME_PACKAGES = ["navas", "granada", "granada_city", "sabika"]

GAMES: dict[str, Any] = {}
for _name in _GAME_PACKAGES:
    _module = importlib.import_module(f"engine.{_name}")
    GAMES[_module.id] = _module


def get(game_id: str) -> Game:
    """The game ``game_id`` behind the whole contract; a KeyError names the games that exist."""
    try:
        return adapt(GAMES[game_id])
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known games: {', '.join(sorted(GAMES))}") from None
