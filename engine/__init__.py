"""Rules engines of Alcazaba's games, behind one contract (:mod:`engine.api`).

``GAMES`` maps a game id to its module (the registry). A game joins it through
:func:`register`, the one way in: the games of this package (``_GAME_PACKAGES``, each
listed once it passes the contract check) are registered so at import, and a game kept
elsewhere (a test's own game) is registered the same way by whoever imports it.
Callers reach a game through :func:`get`, which hands out its :class:`engine.api.Game`:
every capability of the contract, the optional ones filled with their defaults.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.api import Game, GameModule, RuleError, adapt
from engine.replays import replay, replay_last

__all__ = ["GAMES", "Game", "GameModule", "RuleError", "get", "register", "replay", "replay_last", "unregister"]

_GAME_PACKAGES = ["navas", "granada", "granada_city", "sabika"]

GAMES: dict[str, Any] = {}


def register(module: Any) -> Game:
    """Add the game ``module`` (anything with the required part of the contract,
    :class:`engine.api.RulesModule`) to the registry under its ``id``, so that the service,
    the Discord front end and the terminal table offer it; its :class:`Game`. TypeError when
    the module lacks a required name; ValueError when another module holds the id (the
    same module again is fine)."""
    game = adapt(module)
    held = GAMES.get(game.id)
    if held is not None and held is not module:
        raise ValueError(f"the game id {game.id!r} is taken by {held!r}")
    GAMES[game.id] = module
    return game


def unregister(game_id: str) -> None:
    """Take ``game_id`` out of the registry (a test's game, when the test is over)."""
    GAMES.pop(game_id, None)


for _name in _GAME_PACKAGES:
    register(importlib.import_module(f"engine.{_name}"))


def get(game_id: str) -> Game:
    """The game ``game_id`` behind the whole contract; a KeyError names the games that exist."""
    try:
        return adapt(GAMES[game_id])
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known games: {', '.join(sorted(GAMES))}") from None
