"""Sabika (Ludonova, 2022): the rules engine, under the contract of :mod:`engine.api`.

Roles are the players' colours (``blue``, ``yellow``, ``pink``, ``green``), as many as option
``players``. Components come from ``data/sabika.json``, a reconstruction (see its ``note``);
``RULINGS.md`` lists how the rulebook's gaps were resolved. :mod:`.rules` holds the rules
(decision stack, rondels, actions, end of round, final scoring), :mod:`.view` the views,
:mod:`.redeal` the re-dealing of hidden cards and :mod:`.player` the built-in player.
"""

from __future__ import annotations

from typing import Any

from engine.api import State
from engine.sabika.player import choose
from engine.sabika.redeal import redeal
from engine.sabika.rules import COLOURS, actions, active, apply, new_state
from engine.sabika.view import TITLE, view

id = "sabika"
title = TITLE

OPTIONS: dict[str, dict[str, Any]] = {
    "players": {
        "type": "int",
        "default": 2,
        "choices": [1, 2, 3, 4],
        "help": "Number of players (1 to 4); 1 is the solo game against Yusuf.",
    },
    "events": {
        "type": "str",
        "default": "none",
        "choices": ["none", "mixed", "negative"],
        "help": "Advanced mode: 3 Events, 1 positive and 2 negative ('mixed') or 3 negative ('negative').",
    },
    "yusuf_pp": {
        "type": "int",
        "default": 5,
        "choices": [5, 10],
        "help": "Solo only: Yusuf's starting Prestige Points (10 for a harder game).",
    },
}


def _players(options: dict[str, Any]) -> int:
    n = (options or {}).get("players", OPTIONS["players"]["default"])
    if n not in OPTIONS["players"]["choices"]:
        raise ValueError(f"sabika: players must be one of {OPTIONS['players']['choices']}, not {n!r}")
    return int(n)


def roles(options: dict[str, Any]) -> list[str]:
    return list(COLOURS[: _players(options)])


def setup(seed: int, options: dict[str, Any]) -> State:
    unknown = sorted(set(options or {}) - set(OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) for sabika: {', '.join(unknown)}; known: {', '.join(sorted(OPTIONS))}")
    n = _players(options)
    yusuf_pp = (options or {}).get("yusuf_pp", OPTIONS["yusuf_pp"]["default"])
    if yusuf_pp not in OPTIONS["yusuf_pp"]["choices"]:
        raise ValueError(f"sabika: yusuf_pp must be one of {OPTIONS['yusuf_pp']['choices']}, not {yusuf_pp!r}")
    events = (options or {}).get("events", OPTIONS["events"]["default"])
    if events not in OPTIONS["events"]["choices"]:
        raise ValueError(f"sabika: events must be one of {OPTIONS['events']['choices']}, not {events!r}")
    return new_state(seed, n, yusuf_pp, events)


def result(state: State) -> dict[str, Any] | None:
    outcome = state.get("result")
    return dict(outcome) if outcome is not None else None


__all__ = ["OPTIONS", "actions", "active", "apply", "choose", "id", "redeal", "result", "roles", "setup", "title",
           "view"]
