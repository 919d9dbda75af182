"""Sabika (Ludonova, 2022): the rules engine, under the contract of :mod:`engine.api`.

Roles are the players' colours (``blue``, ``yellow``, ``pink``, ``green``), as many as option
``players`` (1 to 4). With 1 player the engine also runs Yusuf, the solo opponent: he is a
seat of the turn order (``state["seats"]``) but never a role; his turns are steps ``apply``
takes on its own, each logged, and the player is prompted where the rulebook says "you
decide". Option ``events`` ("none", "mixed": 1 positive and 2 negative, "negative": 3
negative) is the advanced mode; ``yusuf_pp`` (5 or 10) the harder solo setting.

Components come from ``data/sabika.json``, a reconstruction checked at import (see its
``note`` and each section's ``fixed_by``); ``data/headings.json`` lists the rulebook's rule
headings that the tests cover; ``RULINGS.md`` says how the gaps of the text were resolved.
The rules are split the way the rulebook is, one module per chapter (:mod:`.setup`,
:mod:`.turn`, :mod:`.resources`, :mod:`.outer`, :mod:`.construction`, :mod:`.middle`,
:mod:`.inner`, :mod:`.bonuses`, :mod:`.parias`, :mod:`.round_end`, :mod:`.scoring`,
:mod:`.yusuf`, sharing :mod:`.state`); :mod:`.rules` gathers their decisions and runs the game
flow. :mod:`.view` makes the views, :mod:`.redeal` re-deals hidden cards and :mod:`.player` is
the built-in player.

Decisions are small steps, each an action with a ``type``: a turn is ``worker`` (which
Worker), then ``move`` (``square``) or ``rest``, then on the square ``main``, ``secondary``
or ``done``; the action's own choices follow (``material``, ``store``, ``expand``/``onto``,
``buy``/``sell``/``trade`` then the item, ``major``/``minor``/``refresh``, ``use``/``done`` on
a Scaffold, ``tile``, ``place``, ``city``, ``good``, ``poem``, ``paria`` for the tribute,
``start`` for the next Starting Player, ``yusuf_city`` for Yusuf's ties). No menu has more
than 25 choices.

View keys: ``prompt``, ``actions``, ``log``, ``phase``, ``reaction`` (always False: Sabika has
no reactions), ``focus`` (None), ``active``, ``round``, ``era``, ``narrator``, ``start``,
``turn``, ``pending`` (the decision under way), ``board`` (rondels, Sultan's Workers,
Secondary Actions, displays, deck and pile sizes, bag, Cities, Trade card, Wishes, Tower),
``players`` (each player's public tokens; the viewer's own Starting tiles), ``yusuf`` (solo),
``events`` (mode, active Event, face-down count), ``result``.
"""

from __future__ import annotations

from typing import Any

from engine.api import State
from engine.sabika.player import choose
from engine.sabika.redeal import redeal
from engine.sabika.rules import actions, active, apply
from engine.sabika.setup import new_state
from engine.sabika.state import COLOURS, YUSUF
from engine.sabika.view import TITLE, view
from engine.text import noun

id = "sabika"
RULES_VERSION = 3  # bump when a change alters what a log replays to (data files included)
CHANGELOG: dict[int, str] = {
    1: "The rules as first released.",
    2: "At 0 PP a player can no longer pay the tribute or Rest with PP he does not have (the tribute falls "
       "on the other means; Rest only when no Worker can move); a two-branch bonus offers only a branch that "
       "can be carried out; Yusuf takes the lowest numbered desired Minor Construction, pays the tribute "
       "with his Seals before PP, and his Minor Poems count as blue or red only for Major Poem A3. Log lines "
       "name cards and tiles by what they are and do, not by their ids (issue 35), and begin with the "
       "player's colour capitalised; 1 Dinar, 1 Paria, 1 Seal (issue 38).",
    3: "Menus say what each entry does (issue 38): the two Master Builders standing on the same place are one "
       "entry (the first of them goes), a Worker names its square; a Rest says whether the Worker goes back to "
       "or stays in the workshop and what it earns and costs; an Export names the City Bonus and the Seal apart "
       "from what the City wants; placing a Minor Construction names the card at that end of the row and the "
       "Architectural Balance it completes; the Workers have the rulebook's names (Master Builder, Merchant, "
       "Poet) in menus and log lines; every price and payment, in menus and log lines, says Dinars (and Seals); the movement, tribute, Storehouse, Market and export "
       "headings say what their entries offer. The rules are unchanged.",
}
title = TITLE
SOLO_OPPONENT = "yusuf"
"""The solo game's automaton, by his score key (engine/api.py)."""
YUSUF_NAME = "Yusuf"
"""How a result names the solo opponent when he wins (he holds no seat: never a role)."""

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
        raise ValueError(f"unknown {noun(len(unknown), 'option')} for sabika: {', '.join(unknown)}; known: {', '.join(sorted(OPTIONS))}")
    n = _players(options)
    yusuf_pp = (options or {}).get("yusuf_pp", OPTIONS["yusuf_pp"]["default"])
    if yusuf_pp not in OPTIONS["yusuf_pp"]["choices"]:
        raise ValueError(f"sabika: yusuf_pp must be one of {OPTIONS['yusuf_pp']['choices']}, not {yusuf_pp!r}")
    events = (options or {}).get("events", OPTIONS["events"]["default"])
    if events not in OPTIONS["events"]["choices"]:
        raise ValueError(f"sabika: events must be one of {OPTIONS['events']['choices']}, not {events!r}")
    return new_state(seed, n, yusuf_pp, events)


def result(state: State) -> dict[str, Any] | None:
    """The final scoring's result; when no seat won alone (Yusuf won the solo game, or a
    victory is shared) its ``winners`` name everyone who won: the seats by colour, Yusuf by
    name. Derived here from the stored scores rather than stored in the state, so that the
    states (and move hashes) of games already played stay as they were."""
    outcome = state.get("result")
    if outcome is None:
        return None
    out = dict(outcome)
    score = out.get("score")
    if "winners" not in out and out.get("winner") is None and isinstance(score, dict) and score:
        best = max(score.values())
        out["winners"] = [YUSUF_NAME if r == YUSUF else str(r) for r, v in score.items() if v == best]
    return out


__all__ = ["OPTIONS", "actions", "active", "apply", "choose", "id", "redeal", "result", "roles", "setup", "title",
           "view"]
