"""Pictures of the games, drawn from views only (a view in, PNG bytes out).

Render never receives a state, so it cannot draw what a role may not see. Each game has
its own module ``render.<game_id>`` exposing ``board(view) -> bytes``; other image kinds
are functions of those modules:

* ``render.granada``: ``hand(view)``, ``battle(view)``, ``reveal(view, *other_views)``,
  ``replay(views) -> GIF bytes``, ``closeup(view, location_id)``;
* ``render.navas``: ``hand(view)``, ``closeup(view, zone)``.

The shared visual language (fonts, palette, blocks, cards, encoding) is
:mod:`render.common`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

BenchCase = tuple[str, Callable[[], bytes], Callable[[], bytes]]


def board(game_id: str, view: dict[str, Any]) -> bytes:
    """PNG of the main board as ``view`` sees it."""
    module = importlib.import_module(f"render.{game_id}")
    png: bytes = module.board(view)
    return png


def bench_cases(seed: int = 1) -> list[BenchCase]:
    """(name, render, baseline) triples for the benchmark: each ``render`` draws a picture
    from a view of a real game (played by the built-in player from ``seed``), and its
    ``baseline`` encodes a blank image of the same size (Pillow's floor for that picture).

    Only the benchmark calls this: it plays games, which pictures never need to do.
    """
    from engine import GAMES
    from engine.players import choose
    from render import common as C

    def played(module: Any, steps: int, options: dict[str, Any]) -> Any:
        state = module.setup(seed, options)
        for n in range(steps):
            active = module.active(state)
            if not active:
                break
            state = module.apply(state, active[0], choose(module, state, active[0], seed * 7919 + n))
        return state

    cases: list[BenchCase] = []
    granada_module: Any = GAMES.get("granada") or importlib.import_module("engine.granada")
    from render import granada, granada_map, navas

    g_state = played(granada_module, 150, {})
    g_view = granada_module.view(g_state, "christian")
    g_spec = granada_module.view(g_state, None)
    g_size = (granada_map.WIDTH, granada_map.HEIGHT)
    cases.append(("granada_board_player", lambda: granada.board(g_view), lambda: C.blank_png(g_size)))
    cases.append(("granada_board_spectator", lambda: granada.board(g_spec), lambda: C.blank_png(g_size)))
    cases.append(("granada_hand", lambda: granada.hand(g_view), lambda: C.blank_png((1004, 700))))
    cases.append(("granada_closeup", lambda: granada.closeup(g_view, "granada"), lambda: C.blank_png((920, 736))))
    n_module: Any = GAMES.get("navas") or importlib.import_module("engine.navas")
    n_view = n_module.view(played(n_module, 60, {"advanced": True}), "christian")
    cases.append(("navas_board_player", lambda: navas.board(n_view), lambda: C.blank_png((navas.WIDTH, navas.HEIGHT))))
    return cases
