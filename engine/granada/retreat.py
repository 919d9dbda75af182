"""Retreats (8.6): where a defeated force may go, retreats before combat (8.6.7, 10.1, 10.5),
and what happens where it arrives (8.6.6: a new battle, an overrun, joining friends).

Where the blocks of each side came from this turn is kept by the movement code in
``state["entries"][loc][side]`` (adjacent locations, "sea:<zone>", "muster").
"""

from __future__ import annotations

from engine.api import State
from engine.granada import components as comp
from engine.granada import overrun, special
from engine.granada import state as st

#: A stack of at most this many blocks may retreat up to 2 locations before combat (8.6.7).
FAR_RETREAT_MAX = 5


def neighbours(loc: str) -> list[str]:
    return [n for n, _ in st.data().adjacency.get(loc, ())]


def _entries(state: State, loc: str, side: str) -> set[str]:
    return set(state.get("entries", {}).get(loc, {}).get(side, []))


def _palace_zone() -> set[str]:
    return {"granada", *neighbours("granada")}


def _has_palace_guard(group: list[str]) -> bool:
    blocks = comp.load().blocks
    return any(blocks[b].special == "palace_guard" for b in group)


def _palace_filter(group: list[str], dests: list[str]) -> list[str]:
    """10.10: the Nasrid Palace Guard stays in or next to Granada; a group carrying it keeps
    to those places when it can (otherwise the guard is lost on arrival, see arrive)."""
    if not _has_palace_guard(group):
        return dests
    zone = _palace_zone()
    kept = [d for d in dests if d in zone]
    return kept or dests


def retreat_destinations(state: State, loc: str, side: str, group: list[str], attacker: bool) -> list[str]:
    """Where a defeated force may retreat after a field combat (8.6.1-8.6.3).

    The attacker goes back where some of its blocks came from (a land location: never a
    box nor a fleet, 8.6.1), or else anywhere adjacent. The defender goes where there is no
    enemy and from where no enemy came, or else anywhere adjacent (8.6.6)."""
    adj = neighbours(loc)
    if attacker:
        came = [n for n in adj if n in _entries(state, loc, side)]
        dests = came or adj
    else:
        enemy_from = _entries(state, loc, st.other(side))
        idx = st.by_location(state)
        # (Granada with the Palace Guard in its box counts as held, 10.10, RULINGS.md 30)
        good = [n for n in adj if n not in enemy_from and not st.enemy_units_at(state, n, side, idx)
                and not st.guard_defends(state, n, side, idx)]
        dests = good or adj
    return _palace_filter(group, dests)


def avoiding_blocks(state: State, loc: str, side: str) -> list[str]:
    """The friendly stack that leaves before combat (10.1, 10.5): all of side's blocks at the
    location, inside and outside the castle (disks cannot move, 8.7.4)."""
    return st.blocks_at(state, loc, side)


def avoid_destinations(state: State, loc: str, side: str, group: list[str]) -> list[str]:
    """Retreat before combat (8.6.7): up to 2 locations for 5 blocks or fewer, else 1, along
    the defender's path (8.6.3) and, per the French edition of 10.1/10.5, never onto a
    location with enemies nor along a road an enemy attacker used this turn."""
    idx = st.by_location(state)
    enemy = st.other(side)

    def free(n: str) -> bool:
        # Granada with the Nasrid Palace Guard in its box is defended (10.10, RULINGS.md 30)
        return not st.enemy_units_at(state, n, side, idx) and not st.guard_defends(state, n, side, idx)

    first = [n for n in neighbours(loc) if free(n) and n not in _entries(state, loc, enemy)]
    out = list(first)
    if len(group) <= FAR_RETREAT_MAX:
        for n in first:
            for m in neighbours(n):
                if m != loc and m not in out and free(m) and m not in _entries(state, n, enemy):
                    out.append(m)
    return _palace_filter(group, out)


def arrive(state: State, frm: str, side: str, group: list[str], dest: str) -> str | None:
    """Move a retreating group to ``dest`` and resolve what that causes (8.6.6).

    Returns ``dest`` when a new battle must be fought there at once with the retreating
    blocks as the attacker, else None (no enemy, an overrun either way, or the blocks joined
    friendly blocks already in conflict there). Christians retreating alone into Granada
    attack it: the Nasrid Palace Guard appears from its box as at any declaration (10.10).
    The retreating side overruns first (7.4 "Retreats"); else the enemy there may overrun
    the retreating force (8.6.6 note: "an overrun can occur after the retreat")."""
    blocks = comp.load().blocks
    zone = _palace_zone()
    for b in group:
        rec = state["blocks"][b]
        if blocks[b].special == "palace_guard" and dest not in zone:
            st.log(state, f"{st.block_name(b)} may not leave the surroundings of Granada and is "
                          "lost (10.10).")
            st.eliminate(state, b)
            continue
        rec.update(loc=dest, inside=False, carried_by=None)
    moved = [b for b in group if state["blocks"][b]["loc"] == dest]
    st.add_entry(state, dest, side, frm)
    st.log(state, f"{side.capitalize()} retreats {len(moved)} block{'s' if len(moved) != 1 else ''} "
                  f"from {st.data().locations[frm].name} to {st.data().locations[dest].name} (8.6).")
    friends = [b for b in st.blocks_at(state, dest, side) if b not in moved]
    if moved and not friends and st.guard_defends(state, dest, side):
        # a retreat into Granada attacks it: the Nasrid Palace Guard appears (10.10, 8.6.6)
        special.palace_guard_join(state, dest, side)
    if not moved or not st.enemy_units_at(state, dest, side):
        st.settle_location(state, dest)
        return None
    if overrun.resolve(state, dest, side):
        return None
    if overrun.resolve(state, dest, st.other(side)):
        return None           # overrun after the retreat (8.6.6 note, RULINGS.md 20)
    if friends and all(state["blocks"][b]["inside"] for b in friends):
        if len(friends) + len(moved) <= 2:
            for b in moved:
                state["blocks"][b]["inside"] = True
            st.log(state, "The retreating blocks join the besieged blocks inside the castle (8.6.6).")
            return None
        for b in friends:
            state["blocks"][b]["inside"] = False
        return dest           # more than 2 blocks: a field combat (8.6.6)
    if friends:
        return None           # added to the friendly force in conflict there (8.6.6)
    return dest
