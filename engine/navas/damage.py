"""Damage: the side controlling the damaged zone chooses how the points fall on its units.

A 2-Power unit hit once flips to its 1-Power face; a unit hit at 1 Power is eliminated for good.
Damage at least equal to the zone's total Power empties it and the excess is lost, so there
is nothing to choose then.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from engine.navas.core import State, describe_group, log, unit, unit_text, units_in


def distributions(state: State, zone: str, amount: int) -> list[dict[str, Any]]:
    """Every way to take ``amount`` damage in ``zone``: units flipped and units eliminated."""
    uids = units_in(state, zone)
    powers = [state["units"][u]["power"] for u in uids]
    if amount <= 0 or not uids:
        return []
    if amount >= sum(powers):
        return [{"flip": [], "eliminate": list(uids)}]
    found: list[dict[str, Any]] = []
    for hits in product(*[range(p + 1) for p in powers]):
        if sum(hits) != amount:
            continue
        flip = [u for u, h, p in zip(uids, hits, powers) if 0 < h < p]
        gone = [u for u, h, p in zip(uids, hits, powers) if h and h == p]
        found.append({"flip": flip, "eliminate": gone})
    # Least destructive first: a player usually prefers flipping to losing units.
    found.sort(key=lambda d: (len(d["eliminate"]), d["eliminate"], d["flip"]))
    return _distinct(state, found)


def _alike(state: State, uid: str) -> tuple[Any, ...]:
    """What tells a unit's fate apart from another's: which unit it is (name, kind, icons), its
    face, whether it is exhausted, and whether it joined the combat being resolved (a special
    card's damage before the battle decides whether the attack still goes ahead)."""
    u, rec = unit(uid), state["units"][uid]
    combat = state.get("combat")
    joined = combat is not None and uid in combat["units"]
    return (u.name, u.kind, u.icons, u.star, u.immobile, rec["power"], rec["exhausted"], joined)


def _distinct(state: State, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One distribution per outcome: choices that differ only in which of two alike units is hit
    are the same choice, listed once (with the first units in the catalog's order)."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for choice in found:
        key = (tuple(sorted(_alike(state, u) for u in choice["flip"])),
               tuple(sorted(_alike(state, u) for u in choice["eliminate"])))
        if key not in seen:
            seen.add(key)
            kept.append(choice)
    return kept


def label(choice: dict[str, Any], menu: bool = False, state: State | None = None, zone: str | None = None) -> str:
    """The choice in words: a menu entry (capitalised) or the end of a log sentence. A menu
    entry given the ``state`` and ``zone`` names each unit with what sets it apart from the
    others of its name in the zone (``Flip Castilian Knights (Power 2, c11)``)."""
    if state is not None and zone is not None:
        among = units_in(state, zone)

        def said(uids: list[str]) -> str:
            return describe_group(state, uids, among)
    else:
        def said(uids: list[str]) -> str:
            return ", ".join(unit_text(u) for u in uids)
    parts = []
    if choice["flip"]:
        parts.append("flip " + said(choice["flip"]))
    if choice["eliminate"]:
        parts.append("eliminate " + said(choice["eliminate"]))
    text = "; ".join(parts) if parts else "no effect"
    return text[0].upper() + text[1:] if menu else text


def apply(state: State, zone: str, choice: dict[str, Any]) -> None:
    units = state["units"]
    for uid in choice["flip"]:
        units[uid]["power"] = 1
    for uid in choice["eliminate"]:
        units[uid].update({"zone": None, "power": 0, "exhausted": False})
    if choice["flip"] or choice["eliminate"]:
        log(state, f"Damage in {zone}: {label(choice)}.")
