"""Which adapter (adapters.py) each game has; a game without one gets the default."""

from __future__ import annotations

from engine.ai import granada, granada_city, navas, sabika
from engine.ai.adapters import Adapter

ADAPTERS: dict[str, Adapter] = {"navas": navas.ADAPTER, "granada": granada.ADAPTER,
                                 "granada_city": granada_city.ADAPTER, "sabika": sabika.ADAPTER}


def adapter(game_id: str) -> Adapter:
    """The adapter of a game (the default one for a game without its own)."""
    return ADAPTERS.get(game_id) or Adapter()
