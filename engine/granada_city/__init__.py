"""Granada, Dirk Henn's city-building game for 2 to 6 players: the rules engine, under the
contract of :mod:`engine.api` (game id ``granada_city``; ``granada`` is the block wargame).

Roles are player colours, ``roles({"players": n})`` the first n of red, blue, green, yellow,
white, purple. Options: ``players`` (2-6, default 3; with 2 the book's special rules apply:
72 money cards and Dirk, the imaginary third player) and ``simplified`` (the beginners'
scoring 3 / 10-3 / 18-10-3). Components come from ``data/components.json`` (a reconstruction:
see its ``note``); ``RULINGS.md`` lists how the rulebook's gaps were filled.

Modules: :mod:`.data` (components), :mod:`.city` (building rules, moats), :mod:`.scoring`,
:mod:`.setup`, :mod:`.rules` (turn, actions, end of turn, end of game), :mod:`.view`,
:mod:`.redeal`, :mod:`.player` (built-in player).

Steps (each a small dict with a ``label``): ``take`` a display card (then more with ``take``
while the total stays at most 5, or ``done``); ``buy`` a yard ``space`` then ``pay`` one card
at a time; ``rebuild`` (``how``: extend, remove, exchange) then ``supply_tile``/``cell``/
``position``; ``end`` declines the extra action of an exact payment. At the end of the turn:
``tile`` (which bought tile), then ``build`` (``flip``), ``supply`` (``side``) or ``dirk``
(``flip``), ``pay`` for a flip, ``position`` (x, y; labelled A, B, ... as the picture letters
them). ``back`` undoes a step being composed. Every legal step is offered at once (a front end pages
a long list); ``page`` steps, which turned a menu of more than 25 choices in logs stored
before navigation left the games, still replay and are never moves (``NAV_TYPES``).

View keys (``view(state, role)``; ``role`` None is a spectator): ``game``, ``title``, ``role``,
``roles``, ``options``, ``phase`` ("turn N", "end of the game", "over"), ``reaction`` (always
false: nothing in Granada is a reaction), ``focus`` (None), ``stage`` ("play", "place",
"award", "over"), ``active``, ``turn`` ({role, number, actions, free, bought: tiles with their
space}), ``yard`` ([{space, currency, tile}]), ``marker`` (the side the next refill shows),
``display`` and ``discard`` (money cards {id, name ("1 blue"), currency, value}), ``deck`` ({size,
scoring_cards_left}), ``bag`` ({size}), ``cities`` ({role: [tile + x, y]}), ``supplies``,
``dirk`` (tiles, or None), ``moats`` (each city's longest moat now), ``scores``, ``hand`` and
``money`` (the viewer's own cards and totals per currency), ``hand_counts``, ``pending`` (the
viewer's own step being composed; an end-of-game award for all), ``positions`` (the lettered
cells the viewer may build on now), ``scorings`` and ``last_scoring`` (reports: per type the
ranking with counts, best price and points; moats; points), ``result``, ``prompt``,
``actions``, ``log``. A tile is {id, side, start, type, name, price, moats, reverse_type,
reverse_price} (a starting tile: {id, side "start", start, colour, moats []}).
"""

from __future__ import annotations

from typing import Any

from engine.granada_city import rules
from engine.granada_city.core import State
from engine.granada_city.player import choose
from engine.granada_city.redeal import redeal
from engine.granada_city.rules import actions, active, apply
from engine.granada_city.setup import new_state, roles_for
from engine.granada_city.view import TITLE, view
from engine.text import noun

id = "granada_city"
RULES_VERSION = 2  # bump when a change alters what a log replays to (data files included)
CHANGELOG: dict[int, str] = {
    1: "The rules as first released.",
    2: "The extra action of an exact payment must be taken (the book: the player \"must decide between "
       "three possible actions\"); ending the turn is offered only when no action is possible. Wording "
       "(issue 38): Dirk receives 1 more tile, not 1 more tiles.",
}
title = TITLE
NAV_TYPES = frozenset({"page"})
"""Page turns of logs stored before navigation left the games (rules.py ``_page``)."""

OPTIONS: dict[str, dict[str, Any]] = {
    "players": {
        "type": "int",
        "default": 3,
        "choices": [2, 3, 4, 5, 6],
        "help": "Number of players (2 to 6). With 2, Dirk, an imaginary third player, hoards tiles and scores majorities.",
    },
    "simplified": {
        "type": "bool",
        "default": False,
        "help": "Simplified scoring for beginners: 3 / 10-3 / 18-10-3 points per building type, moats unchanged.",
    },
}


def roles(options: dict[str, Any]) -> list[str]:
    return roles_for(options or {})


def setup(seed: int, options: dict[str, Any]) -> State:
    unknown = sorted(set(options or {}) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown {noun(len(unknown), 'option')} for granada_city: {', '.join(unknown)}; known: {', '.join(OPTIONS)}")
    state = new_state(seed, options or {})
    rules.start_turn(state, state["first"])
    return state


def result(state: State) -> dict[str, Any] | None:
    outcome = state.get("result")
    return dict(outcome) if outcome is not None else None


__all__ = ["NAV_TYPES", "OPTIONS", "actions", "active", "apply", "choose", "id", "redeal", "result", "roles", "setup", "title",
           "view"]
