"""Victory conditions, checked whenever a move or a battle's damage has settled.

The game ends immediately (mid-round, mid-turn) when one holds; when several hold at once the
rulebook's order decides: al-Nasir's death first, then the Muslim's holding action, then the
shared "twice as many zones" condition.
"""

from __future__ import annotations

from typing import Any

from engine.navas.core import CATALOG, S_VICTORY, State, log, occupancy, unit
from engine.navas.data import in_muslim_area
from engine.text import plural

NASIR = next(u.id for u in CATALOG.units.values() if u.kind == "al-nasir")


def evaluate(state: State) -> dict[str, Any] | None:
    """The result the board gives now, or None while the battle goes on."""
    occ = occupancy(state)
    zones = {"christian": 0, "muslim": 0}
    christian_in_muslim_area = False
    for zone, ids in occ.items():
        side = unit(ids[0]).side
        zones[side] += 1
        if side == "christian" and in_muslim_area(zone):
            christian_in_muslim_area = True
    units_left = {"christian": 0, "muslim": 0}
    for ids in occ.values():
        for uid in ids:
            units_left[unit(uid).side] += 1
    score = {"christian_zones": zones["christian"], "muslim_zones": zones["muslim"],
             "christian_units": units_left["christian"], "muslim_units": units_left["muslim"],
             "round": state["round"]}
    if state["units"][NASIR]["zone"] is None:
        return {"winner": "christian", "reason": "Caliph al-Nasir has been eliminated", "score": score}
    if not christian_in_muslim_area and zones["christian"] <= 4:
        return {"winner": "muslim",
                "reason": (f"the Christians hold no zone of the Muslim area and only "
                           f"{plural(zones['christian'], 'zone')} of the battlefield"),
                "score": score}
    for side, other in (("christian", "muslim"), ("muslim", "christian")):
        if zones[side] >= 2 * zones[other]:
            return {"winner": side,
                    "reason": (f"the {side.capitalize()}s occupy {zones[side]} zones, at least twice the "
                               f"{zones[other]} of their opponent"),
                    "score": score}
    return None


def check(state: State) -> bool:
    """End the game if a victory condition holds; True when it did."""
    if state["phase"] == "over":
        return True
    outcome = evaluate(state)
    if outcome is None:
        return False
    state["result"] = outcome
    state["phase"] = "over"
    state["pending"] = None
    state["combat"] = None
    log(state, f"{outcome['winner'].capitalize()} victory: {outcome['reason']} ({S_VICTORY}).")
    return True
