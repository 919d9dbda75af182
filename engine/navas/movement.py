"""How to move the troops: Muslim moves in any direction, Christian columns forward and back.

A Movement action takes any number of units of one zone into one adjacent zone that the
opponent does not hold, never past 3 units in a zone; into an empty zone every unit that can
move must go, so that a side cannot spread out by splitting a zone. al-Nasir and the Black
Guard never move. A Christian move into an empty zone of the Muslim area costs 1 extra point.
Movement does not exhaust.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine.navas.core import (
    CATALOG,
    S_CHRISTIAN_MOVE,
    S_MOVEMENT,
    S_MUSLIM_MOVE,
    State,
    cost,
    describe_units,
    log,
    unit,
)
from engine.navas.data import COLUMN_NEIGHBOURS, NEIGHBOURS, ZONE_CAPACITY, behind, in_muslim_area
from engine.text import plural


def mobile(uids: list[str]) -> list[str]:
    return [u for u in uids if not unit(u).immobile]


def reachable(role: str, zone: str) -> tuple[str, ...]:
    return NEIGHBOURS[zone] if role == "muslim" else COLUMN_NEIGHBOURS[zone]


def move_cost(role: str, dest: str, dest_empty: bool) -> int:
    points = cost(role, "move")
    if role == "christian" and dest_empty and in_muslim_area(dest):
        points += cost(role, "move", "empty_muslim_area_extra")
    return points


_DESTINATIONS = {role: {z: tuple(d for d in NEIGHBOURS[z] if d in reachable(role, z)) for z in NEIGHBOURS}
                 for role in ("christian", "muslim")}
"""The zones a side's move from a zone could reach, in the board's order: where :func:`orders`
looks (:func:`refusal` still decides)."""


def unit_choices(movers: list[str], room: int) -> list[list[str]]:
    """Groups of units that may go together into a zone with ``room`` places left."""
    groups: list[list[str]] = []
    for size in range(min(len(movers), room), 0, -1):
        groups.extend(list(c) for c in combinations(movers, size))
    return groups


def refusal(state: State, role: str, zone: str, order: dict[str, Any], occ: dict[str, list[str]],
            ap: int) -> tuple[str, str] | None:
    """Why a Movement order from ``zone`` is illegal now (a sentence and its rule), or None when
    it is legal: the one place that decides, for the menu and for a refused order alike."""
    extra = set(order) - {"type", "to", "label"}
    if extra:
        return f"a Movement order names only the zone to move to, not {', '.join(sorted(extra))}", S_MOVEMENT
    dest = order.get("to")
    if not isinstance(dest, str) or dest not in CATALOG.zones:
        return f"{dest!r} is not a zone of the board (A1 to C6)", S_MOVEMENT
    return _board_refusal(role, zone, dest, occ, ap, mobile(occ.get(zone, [])))


def _board_refusal(role: str, zone: str, dest: str, occ: dict[str, list[str]], ap: int,
                   movers: list[str]) -> tuple[str, str] | None:
    """:func:`refusal` for a well-formed order, given the units of ``zone`` that can move (the
    menu works them out once for every destination)."""
    section = S_MUSLIM_MOVE if role == "muslim" else S_CHRISTIAN_MOVE
    if not movers:
        return "al-Nasir and the Black Guard cannot move", S_MUSLIM_MOVE
    if dest not in reachable(role, zone):
        if role == "christian":
            return ("Christian units move only forward or backward in their king's column, "
                    f"and {dest} is not next to {zone} in that column"), S_CHRISTIAN_MOVE
        return f"{dest} is not adjacent to {zone}", section
    there = occ.get(dest, [])
    if there and unit(there[0]).side != role:
        return f"{dest} is occupied by the opponent; units of both sides cannot share a zone", S_MOVEMENT
    if len(there) >= ZONE_CAPACITY:
        return f"{dest} already holds {ZONE_CAPACITY} units, the limit per zone", S_MOVEMENT
    points = move_cost(role, dest, not there)
    if points > ap:
        return f"moving {zone}→{dest} costs {plural(points, 'action point')} and {ap} remain", section
    return None


def _label(role: str, zone: str, dest: str, occ: dict[str, list[str]], movers: list[str]) -> str:
    there = occ.get(dest, [])
    points = move_cost(role, dest, not there)
    if not there:
        return f"Move {describe_count(movers)} {zone}→{dest} ({points} AP)"
    return f"Move units {zone}→{dest} ({points} AP, up to {min(len(movers), ZONE_CAPACITY - len(there))})"


def orders(state: State, role: str, zone: str, occ: dict[str, list[str]], ap: int) -> list[dict[str, Any]]:
    """The Movement orders from ``zone`` that :func:`refusal` lets through, labelled (asked
    about every zone the side's moves reach from ``zone``: no move goes elsewhere)."""
    movers = mobile(occ.get(zone, []))
    return [{"type": "move", "to": dest, "label": _label(role, zone, dest, occ, movers)}
            for dest in _DESTINATIONS[role][zone] if _board_refusal(role, zone, dest, occ, ap, movers) is None]


def describe_count(uids: list[str]) -> str:
    return "1 unit" if len(uids) == 1 else f"{len(uids)} units"


def why_not(state: State, role: str, zone: str, order: dict[str, Any], occ: dict[str, list[str]],
            ap: int) -> tuple[str, str] | None:
    """A teaching sentence for a refused Movement order and the rule behind it (None if legal)."""
    return refusal(state, role, zone, order, occ, ap)


def execute(state: State, role: str, origin: str, dest: str, uids: list[str], points: int, why: str = "") -> None:
    units = state["units"]
    for uid in uids:
        units[uid]["zone"] = dest
    if state.get("turn") is not None and points:
        state["turn"]["ap"] -= points
    paid = f" ({points} AP)" if points else (f" ({why})" if why else "")
    log(state, f"{role.capitalize()} moves {describe_units(uids)} {origin}→{dest}{paid}.")


def move_all(state: State, origin: str, dest: str, occ: dict[str, list[str]] | None = None) -> list[str]:
    units = state["units"]
    movers = mobile([u for u in CATALOG.unit_order if units[u]["zone"] == origin])
    for uid in movers:
        units[uid]["zone"] = dest
    return movers


def advance_column(state: State, origin: str, target: str) -> None:
    """A victorious Christian charge: the charging zone takes the target, the column follows."""
    moved = move_all(state, origin, target)
    steps = [f"{origin}→{target} ({len(moved)})"]
    front, back = origin, behind(origin)
    units = state["units"]
    while back is not None:
        there = [u for u in CATALOG.unit_order if units[u]["zone"] == back]
        if not there or unit(there[0]).side != "christian":
            break
        move_all(state, back, front)
        steps.append(f"{back}→{front} ({len(there)})")
        front, back = back, behind(back)
    log(state, "The column advances: " + ", ".join(steps) + ".")
