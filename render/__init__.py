"""Pictures of the games, drawn from views only (a view in, PNG bytes out).

Render never receives a state, so it cannot draw what a role may not see. Each game has
its own module ``render.<game_id>`` exposing ``board(view) -> bytes``; other image kinds
(hand, battle board, reveal, replay, close-up) are functions of those modules.
"""

from __future__ import annotations

import importlib
from typing import Any


def board(game_id: str, view: dict[str, Any]) -> bytes:
    """PNG of the main board as ``view`` sees it."""
    module = importlib.import_module(f"render.{game_id}")
    png: bytes = module.board(view)
    return png
