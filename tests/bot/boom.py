"""A game that crashes in the middle of a command: the toy engine (tests/bot/toygame.py),
except that ``result()`` fails once 3 points are pending, after the move row and the state
update were already issued. The crash tests of the service (SQLite and PostgreSQL) register it
as ``boom``."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any

import engine
from tests.bot import toygame


def registered_boom() -> Iterator[None]:
    """``boom`` registered among the games while the generator is open (a fixture's body)."""

    def result(state: dict[str, Any]) -> dict[str, Any] | None:
        if state["pending"] == 3:
            raise RuntimeError("engine crashed")
        return toygame.result(state)

    boom = types.SimpleNamespace(**{k: getattr(toygame, k) for k in (
        "title", "OPTIONS", "roles", "setup", "active", "actions", "apply", "view", "redeal")})
    boom.id = "boom"
    boom.result = result
    engine.GAMES["boom"] = boom  # type: ignore[assignment]
    try:
        yield
    finally:
        engine.GAMES.pop("boom", None)
