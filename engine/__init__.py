"""Rules engines of Alcazaba's games, behind one contract (:mod:`engine.api`).

``GAMES`` maps a game id to its module. A game joins the registry by being listed in
``_GAME_PACKAGES`` once it passes the contract check.
"""

from __future__ import annotations

import importlib
from typing import cast

from engine.api import GameModule, RuleError
from engine.replays import replay, replay_last

__all__ = ["GAMES", "GameModule", "RuleError", "get", "replay", "replay_last"]

_GAME_PACKAGES = ["navas", "granada", "granada_city", "sabika"]

GAMES: dict[str, GameModule] = {}
for _name in _GAME_PACKAGES:
    _module = cast(GameModule, importlib.import_module(f"engine.{_name}"))
    GAMES[_module.id] = _module


def get(game_id: str) -> GameModule:
    """The game module for ``game_id``; a KeyError names the games that exist."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known games: {', '.join(sorted(GAMES))}") from None
