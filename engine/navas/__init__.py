"""1212 Las Navas de Tolosa (Draco Ideas, 2022): the rules engine, under the contract of
:mod:`engine.api`.

Roles are ``"christian"`` and ``"muslim"``. Option ``advanced`` (bool) adds the 12 special
cards of the advanced variant. Components come from ``data/navas.json`` (a reconstruction:
see its ``note``); ``RULINGS.md`` lists how the rulebook's ambiguities were resolved.

Modules follow the rulebook: :mod:`.data` (components), :mod:`.flow` (deployment, initiative
phase, round and maintenance), :mod:`.turn` (action phase, rally, switch cards),
:mod:`.movement`, :mod:`.combat` (archers, standard attack, charges, karr wa-l-farr, the game
deck), :mod:`.damage`, :mod:`.special` (advanced variant), :mod:`.victory`, :mod:`.view`,
:mod:`.redeal`, :mod:`.player` (built-in player).

Decisions are small steps. In a turn: ``{"type": "zone", "zone": "B4"}`` opens that zone's
orders (``move`` to, ``archers``/``attack``/``charge`` at a target, ``rally`` a unit, ``back``),
then ``{"type": "units", "units": [...]}`` picks the units when there is a choice. Card-wide
orders: ``play`` (the active card), ``switch`` (``shield`` true/false), ``special``,
``end_turn``. Other decisions: ``initiative``, ``discard_special``, ``damage`` (``flip`` and
``eliminate`` lists), ``karr`` (``declare``), ``advance`` (``go``), ``pass`` (``pass`` true on the plain pass, ``auto``
true on the pass that also skips every later window), ``take``.

View keys (``view(state, role)``; ``role`` None is a spectator and sees only public facts):

- ``game``, ``title``, ``role``, ``options`` ({"advanced": bool}), ``round``, ``stage``
  (the rulebook phase: "special" = advanced-variant discard, "initiative", "action",
  "maintenance", "over"), ``active`` (roles that must decide now).
- ``phase`` (docs/architecture.md): a short public string, the same in every view, that changes exactly
  when a new spectator picture is worth posting: a new round, phase or turn, or a combat
  action fully resolved ("Round 2 · action · turn 3 (Christian) · combat 1"); never on a
  move, an opened menu or a decision inside a battle under way. ``focus``: the zone of the
  battle under way or of the last one fought this turn, else None. ``reaction``: true only
  for the role asked whether to play a special card in a reaction window (advanced variant);
  its plain pass carries ``"pass": true`` so that an auto-pass preference can answer it.
- ``board``: ``columns`` ["A","B","C"], ``rows`` [1..6], ``muslim_rows`` [1,2,3] (row 1 is
  the back of the Muslim area), ``christian_rows``, ``camp`` ("B1", al-Nasir's camp),
  ``column_kingdoms`` {"A": "aragon", ...}, ``kingdoms`` {id: {name, king, position}},
  ``reconstructed``.
- ``places``: the 18 zone names, what a close-up can show; ``held`` (a side's own view): what
  it holds in words, its combat cards with their numbers and its special cards by name.
- ``zones``: {"A1": {"side": "christian"|"muslim"|None, "units": [unit ids],
  "area": "muslim"|"christian", "column_kingdom": ...}, ...} for all 18 zones.
- ``units``: {id: {"name", "kind", "side", "icons" (["archer"], ["cavalry"]), "star",
  "immobile", "deploy", "zone" (None once eliminated), "power" (2, 1, or 0 when eliminated),
  "exhausted", "eliminated"}} for all 54 markers.
- ``cards``: the 9 combat cards {id: {"muslim": green number, "christian": red number,
  "arms": kingdom, "name": how players read it, "[5 green / 2 red, Castile]"}}.
- ``hand``: the role's own combat cards (ids, named in ``cards``); ``hand_counts`` {role: int};
  ``known_opponent_cards``: cards the role knows the opponent holds (hand or face-down
  initiative); ``opponent_knows``: the role's cards the opponent knows of.
- ``initiative``: {"christian": id | "face-down" | None, "muslim": ..., "revealed",
  "shield" (role that shielded a switch, or None), "first" (who won the initiative)}.
- ``turn``: None or {"role", "number" (1-4), "card" (active card), "ap" (points left),
  "combats", "archers" (used this turn)}.
- ``deck``: {"size", "order_known" (true after the discard pile was turned over unshuffled),
  "cards" (top first, only when order_known)}; ``discard``: the pile, oldest first.
- ``specials`` (advanced variant): for a player {"hand", "discarded", "used",
  "opponent_hand" (count), "opponent_discarded" (count), "opponent_used", "catalog"
  {id: {name, text}}}; for a spectator {role: {"hand": count, "used": [...]}}; {} otherwise.
- ``autopass``: {role: bool}, a side that chose to skip special-card windows.
- ``pending``: the decision under way: {"kind": "zone"|"units"|"damage"|"karr"|"window"|
  "advance"|"husayni", "role", ...} (None for others while a side composes an order).
- ``combat``: the combat being resolved {"kind", "attacker", "from", "to", "units", "cards",
  "karr"} or None; ``last_battle``: the latest battle's totals and their parts.
- ``occupied``: {role: zones held}; ``result``: as :func:`result`.
- ``prompt`` (a sentence), ``actions`` (the role's legal actions, each with a ``label``),
  ``log`` (the entries the role may read).
"""

from __future__ import annotations

from typing import Any

from engine.navas.core import ROLES, State
from engine.navas.flow import new_state
from engine.navas.player import choose
from engine.navas.redeal import canonical, redeal
from engine.navas.rules import actions, active, apply
from engine.navas.view import TITLE, view
from engine.text import noun

id = "navas"
RULES_VERSION = 3  # bump when a change alters what a log replays to (data files included)
CHANGELOG: dict[int, str] = {
    1: "The rules as first released.",
    2: ("Damage menus offer distinct outcomes only (alike units are one choice, a single outcome is "
        "applied without asking); combat and move menus list only zones within reach; the Lopez de "
        "Haro charge is refused for the card, not the direction."),
    3: ("Menus and wording (issue 38): alike units are one choice in the attack and move menus "
        "(three identical knights make three entries, not seven); a unit whose name comes with and "
        "without the archer icon says which it is (Council Militia (archer, c05)); 1 action point, "
        "1 card; López de Haro, Jiménez de Rada and Aragón written with their accents."),
}
title = TITLE

OPTIONS: dict[str, dict[str, Any]] = {
    "advanced": {
        "type": "bool",
        "default": False,
        "help": ("Advanced variant: each side draws 3 of its 6 special cards, discards 1 face down and "
                 "keeps 2, each playable once while its unit is on the board."),
    },
}


def roles(options: dict[str, Any]) -> list[str]:
    return list(ROLES)


def setup(seed: int, options: dict[str, Any]) -> State:
    known = set(OPTIONS)
    unknown = sorted(set(options or {}) - known)
    if unknown:
        raise ValueError(f"unknown {noun(len(unknown), 'option')} for navas: {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return new_state(seed, options or {})


def result(state: State) -> dict[str, Any] | None:
    outcome = state.get("result")
    return dict(outcome) if outcome is not None else None


__all__ = ["OPTIONS", "actions", "active", "apply", "canonical", "choose", "id", "redeal", "result", "roles", "setup", "title",
           "view"]
