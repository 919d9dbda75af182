"""Shared vocabulary of the 1212 rules modules: roles, rulebook section names, board queries.

Section names are the rulebook's own headings (and its bold paragraph lead-ins), so that a
``RuleError.rule`` and a test's ``@pytest.mark.rule`` point at the same place in the book.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Any

from engine.navas.data import CATALOG, ZONE_CAPACITY, card_text, unit, unit_text

State = dict[str, Any]

ROLES = ["christian", "muslim"]
OTHER = {"christian": "muslim", "muslim": "christian"}
SIDE_NAME = {"christian": "Christian", "muslim": "Muslim"}

# Rulebook headings and paragraph lead-ins, used as RuleError.rule and test tags.
S_COMPONENTS = "Components"
S_BOARD = "Game board"
S_UNITS = "Units"
S_CARDS = "Combat cards"
S_OBJECTIVE = "Objective"
S_DEPLOYMENT = "Deployment"
S_HOW = "How to play?"
S_INITIATIVE = "Initiative phase"
S_ACTION = "Action phase"
S_MAINTENANCE = "Maintenance phase"
S_END = "End of the game"
S_AVAILABLE = "Available actions"
S_MOVING = "How to move the troops"
S_MOVEMENT = "Movement"
S_MUSLIM_MOVE = "Muslim movement"
S_CHRISTIAN_MOVE = "Christian movement"
S_COMBAT = "Combat actions"
S_DAMAGE = "Damage"
S_EXHAUSTION = "Exhaustion"
S_LIMITS = "Attack limitations"
S_ARCHERS = "Archer attack"
S_MELEE = "Standard attacks, Cavalry charges and karr wa-l-farr"
S_STANDARD = "Standard attack"
S_MUSLIM_CHARGE = "Muslim cavalry charge"
S_CHRISTIAN_CHARGE = "Christian cavalry charge"
S_KARR = "Karr wa-l-farr"
S_OTHER = "Other actions"
S_RALLY = "Rally"
S_SWITCH = "Switch cards"
S_MODIFIERS = "Modifiers"
S_SPECIAL_UNITS = "Special Muslim units"
S_KING = "For the King"
S_ADVANCED = "Advanced variant"
S_VICTORY = "Victory conditions"


def special_section(card_id: str) -> str:
    """The rulebook paragraph of a special card, e.g. ``Advanced variant / Black Guard``: as the
    English rulebook heads it, without the accents the game writes (``López de Haro`` is the
    paragraph ``Lopez de Haro``)."""
    name = unicodedata.normalize("NFD", CATALOG.specials[card_id].name)
    return f"{S_ADVANCED} / {''.join(c for c in name if not unicodedata.combining(c))}"


# ---------------------------------------------------------------- log


def log(state: State, text: str, to: list[str] | None = None) -> None:
    entry: dict[str, Any] = {"text": text}
    if to is not None:
        entry["to"] = list(to)
    state["log"].append(entry)


# ---------------------------------------------------------------- board


def occupancy(state: State) -> dict[str, list[str]]:
    """Units on the board by zone, in the catalog's order (stable labels and menus)."""
    zones: dict[str, list[str]] = {}
    units = state["units"]
    for uid in CATALOG.unit_order:  # every menu asks, several times a step: no setdefault's spare list
        zone = units[uid]["zone"]
        if zone is not None:
            if zone in zones:
                zones[zone].append(uid)
            else:
                zones[zone] = [uid]
    return zones


def units_in(state: State, zone: str) -> list[str]:
    units = state["units"]
    return [uid for uid in CATALOG.unit_order if units[uid]["zone"] == zone]


def side_of(state: State, zone: str) -> str | None:
    """Which side occupies a zone: a zone with at least one unit of a side is that side's."""
    units = state["units"]
    for uid in CATALOG.unit_order:
        if units[uid]["zone"] == zone:
            return unit(uid).side
    return None


def zone_sides(state: State) -> dict[str, str]:
    return {z: unit(ids[0]).side for z, ids in occupancy(state).items()}


def occupied_count(state: State) -> dict[str, int]:
    counts = {"christian": 0, "muslim": 0}
    for side in zone_sides(state).values():
        counts[side] += 1
    return counts


def alive(state: State, uid: str) -> bool:
    return state["units"][uid]["zone"] is not None


def kind_alive(state: State, side: str, kind: str) -> bool:
    units = state["units"]
    return any(u.side == side and u.kind == kind and units[u.id]["zone"] is not None
               for u in CATALOG.units.values())


def zone_has_kind(state: State, zone: str, kind: str) -> bool:
    return any(unit(uid).kind == kind for uid in units_in(state, zone))


def zone_has_icon(state: State, zone: str, icon: str) -> bool:
    return any(icon in unit(uid).icons for uid in units_in(state, zone))


def zone_power(state: State, zone: str) -> int:
    units = state["units"]
    return sum(units[uid]["power"] for uid in units_in(state, zone))


def capacity_left(state: State, zone: str) -> int:
    return ZONE_CAPACITY - len(units_in(state, zone))


def alike_key(state: State, uid: str) -> tuple[Any, ...]:
    """What tells a unit's part in an order apart from another's (the id does not): name, kind,
    icons, star, whether it may move, its face and whether it is exhausted."""
    u, rec = unit(uid), state["units"][uid]
    return (u.name, u.kind, u.icons, u.star, u.immobile, rec["power"], rec["exhausted"])


def distinct_groups(state: State, groups: list[list[str]]) -> list[list[str]]:
    """One group per distinct choice: groups that differ only in which of two alike units
    (same name, icons and face, both fresh or both exhausted) goes are one entry, the first
    in the order given (three identical knights made seven ``Attack with`` entries, issue 38)."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for group in groups:
        key = tuple(sorted(alike_key(state, u) for u in group))
        if key not in seen:
            seen.add(key)
            kept.append(group)
    return kept


def describe_units(uids: list[str]) -> str:
    return ", ".join(unit_text(u) for u in uids) if uids else "no units"


def _state_traits(state: State, uid: str) -> tuple[tuple[str, str], ...]:
    """What a unit's state adds to its catalogue entry, as (aspect, words): its face, whether it
    is exhausted, whether it joined the combat being resolved."""
    rec = state["units"][uid]
    combat = state.get("combat")
    joined = combat is not None and uid in combat["units"]
    return (("power", f"Power {rec['power']}"), ("exhausted", "exhausted" if rec["exhausted"] else "fresh"),
            ("joined", "in this combat" if joined else "not in this combat"))


def menu_unit_text(state: State, uid: str, among: list[str]) -> str:
    """A unit in a menu entry: :func:`unit_text` with, in front of its id, what sets it apart
    from the units of its name in ``among`` (the units the menu's entries name): ``Aragonese
    Knights (Power 1, c02)`` against ``Aragonese Knights (Power 2, c03)``. The picture shows
    no ids, so two entries that differ only in the id could not be told apart (issue 38)."""
    u = unit(uid)
    mine = _state_traits(state, uid)
    others = [_state_traits(state, o) for o in among if o != uid and unit(o).name == u.name]
    words = [w for i, (_aspect, w) in enumerate(mine) if any(t[i][1] != w for t in others)]
    if not words:
        return unit_text(uid)
    text = unit_text(uid)
    return f"{text[:text.rindex(uid)]}{', '.join(words)}, {text[text.rindex(uid):]}"


def describe_group(state: State, uids: list[str], among: list[str]) -> str:
    """:func:`describe_units` for a menu entry (:func:`menu_unit_text`)."""
    return ", ".join(menu_unit_text(state, u, among) for u in uids) if uids else "no units"


@cache
def cost(role: str, action: str, key: str = "cost") -> int:
    """A figure of the reference card (cached: the catalog is loaded once and never changes,
    and every menu asks for these)."""
    return int(CATALOG.reference[role][action][key])


def card_value(cid: str, role: str) -> int:
    return CATALOG.cards[cid].value(role)


__all__ = [
    "CATALOG", "OTHER", "ROLES", "SIDE_NAME", "State", "ZONE_CAPACITY", "alive", "capacity_left", "card_text",
    "card_value", "cost", "describe_units", "kind_alive", "log", "occupancy", "occupied_count", "side_of",
    "special_section", "unit", "unit_text", "units_in", "zone_has_icon", "zone_has_kind", "zone_power",
    "zone_sides",
]
