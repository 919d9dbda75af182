"""Mustering (7.2): blocks from the recruitment box onto the map, at most once per turn.

Frame ``{"module": "muster", "kind": "muster", "side": s, "mode": None | "faction" |
"single", "faction": f, "loc": loc, "chosen": [ids], "land_done": bool, "fleet_done": bool}``.

Two ways to muster land blocks (7.2): any number of blocks of ONE faction, shown to the
opponent, to a Recruitment Location bearing that faction's shield; or a single block of any
faction, unseen, to any friendly Recruitment Location. Either way one fleet may also come
out, to a sea zone whose port is friendly controlled (enemy fleets there or not).

A Recruitment Location is friendly when the side has units there, or controls it with no
enemy unit there: that covers the book's situations A (besieged friendly unit), B
(unoccupied location it controls) and C (besieging friendly units), and excludes D
(enemy-controlled location occupied by the enemy only) and any location held by enemy
units alone: mustered blocks may support a combat, never begin one (7.2). Blocks mustered where friendly units are inside a besieged
castle join them inside; more than two inside ends the siege (all fight outside).
"""

from __future__ import annotations

import functools
from typing import Any

from engine.api import Action, RuleError, State
from engine.granada import overrun
from engine.granada import state as st
from engine.text import plural

RULE = "7.2"
EDITS_BY_REPLACING = True
"""This module never edits a list or dict inside its frame in place: it replaces it (the
blocks chosen), so that apply may copy the frame one level deep only (engine.granada._step,
issue 33). A new in-place edit of the frame's containers here would change apply's input."""


def recruitment_locations(side: str, faction: str | None = None) -> list[str]:
    """Locations with a shield of a faction of ``side`` (4.8), or of ``faction``."""
    return list(_recruitment_locations(side, faction))


@functools.cache
def _recruitment_locations(side: str, faction: str | None) -> tuple[str, ...]:
    """Static map data, asked at every movement decision (whether mustering is possible)."""
    from engine.granada.components import FACTIONS

    d = st.data()
    mine = set(FACTIONS[side])
    out = []
    for loc in sorted(d.locations):
        shields = set(d.locations[loc].recruit)
        if faction is not None:
            if faction in shields:
                out.append(loc)
        elif shields & mine:
            out.append(loc)
    return tuple(out)


def friendly_location(state: State, loc: str, side: str,
                      index: dict[str, list[str]] | None = None) -> bool:
    """Friendly units there, or friendly control and no enemy unit: mustered blocks may
    support a combat begun by blocks on the map, never begin one themselves (7.2)."""
    if st.units_at(state, loc, side, index) > 0:
        return True
    return state["control"].get(loc) == side and not st.enemy_units_at(state, loc, side, index)


def eligible(state: State, side: str, faction: str | None = None,
             index: dict[str, list[str]] | None = None) -> list[str]:
    idx = index if index is not None else st.by_location(state)
    return [loc for loc in _recruitment_locations(side, faction) if friendly_location(state, loc, side, idx)]


def fleet_zones(state: State, side: str) -> list[str]:
    """Sea zones whose port the side controls (7.2)."""
    control = st.peek(state, "control")
    return [z for z, port in _ports() if control.get(port) == side]


@functools.cache
def _ports() -> tuple[tuple[str, str], ...]:
    """Each sea zone in id order with its port (static data)."""
    d = st.data()
    return tuple((z, d.sea_zones[z].port) for z in sorted(d.sea_zones))


@functools.cache
def _fleets() -> frozenset[str]:
    """The fleet blocks' ids (static data)."""
    return frozenset(b for b, blk in st.data().blocks.items() if blk.fleet)


def recruits(state: State, side: str) -> list[str]:
    # the location index, not a scan of the records: during apply a scan would copy them all
    return sorted(st.by_location(state).get(f"recruit:{side}", ()))


def can_muster(state: State, side: str) -> bool:
    # asked at every movement decision: the box as the index holds it (its order does not
    # matter here), its fleets found at C speed
    box = st.by_location(state).get(f"recruit:{side}")
    if not box:
        return False
    fleets = _fleets()
    if not fleets.isdisjoint(box) and fleet_zones(state, side):
        return True
    if fleets.issuperset(box):
        return False
    idx = st.by_location(state)   # asked at every movement decision: stop at the first place
    return _any_friendly(state, side, idx)


def _any_friendly(state: State, side: str, idx: dict[str, list[str]]) -> bool:
    """:func:`friendly_location` of any recruitment location of the side, in one pass with
    what it looks at fetched once (asked at every movement decision, issue 33)."""
    own = st.owners()
    enemy = st.other(side)
    control = st.peek(state, "control")
    disks = st.peek(state, "disks")
    on = [disks.get(d) for d in st.DISKS]
    for loc in _recruitment_locations(side, None):
        ids = idx.get(loc, ())
        there = [own[b] for b in ids]
        disks_here = loc in on
        if side in there or (side == "muslim" and disks_here):
            return True                      # friendly units there
        if control.get(loc) == side and not (enemy in there or (enemy == "muslim" and disks_here)):
            return True                      # friendly control and no enemy unit
    return False


def start(state: State, side: str) -> None:
    st.push_frame(state, {"module": "muster", "kind": "muster", "side": side, "mode": None,
                          "faction": None, "loc": None, "chosen": [], "land_done": False,
                          "fleet_done": False})
    st.log(state, f"{side.capitalize()} musters (7.2).")


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    return [frame["side"]]


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    side = frame["side"]
    d = st.data()
    box = recruits(state, side)
    land = [b for b in box if not d.blocks[b].fleet]
    fleets = [b for b in box if d.blocks[b].fleet]
    acts: list[Action] = []
    mode = frame["mode"]
    idx = st.by_location(state)
    if mode is None and not frame["land_done"]:
        factions = sorted({fac for b in land if (fac := d.blocks[b].faction)})
        # whether each place is friendly, worked out once for every faction's question (the
        # factions' recruitment places overlap; issue 33): only whether one is, is asked
        friendly: dict[str, bool] = {}

        def any_friendly(faction: str | None) -> bool:
            for loc in _recruitment_locations(side, faction):
                ok = friendly.get(loc)
                if ok is None:
                    ok = friendly[loc] = friendly_location(state, loc, side, idx)
                if ok:
                    return True
            return False

        for f in factions:
            if any_friendly(f):
                acts.append({"type": "muster_faction", "faction": f,
                             "label": f"Muster {f.replace('_', ' ').title()} blocks, shown (7.2)"})
        if any_friendly(None):
            for b in land:
                acts.append({"type": "muster_single", "block": b,
                             "label": f"Muster {st.block_name(b)} alone, unseen (7.2)"})
    elif mode is not None and frame["loc"] is None:
        for loc in eligible(state, side, frame["faction"] if mode == "faction" else None, idx):
            acts.append({"type": "muster_at", "loc": loc,
                         "label": f"Muster at {d.locations[loc].name}"})
    elif mode == "faction":
        for b in land:
            if d.blocks[b].faction == frame["faction"] and b not in frame["chosen"]:
                acts.append({"type": "bring", "block": b, "label": f"Bring {st.block_name(b)}"})
        if frame["chosen"]:
            acts.append({"type": "done_land", "label": "These blocks are enough"})
    if mode is None and fleets and not frame["fleet_done"]:
        for z in fleet_zones(state, side):
            acts.append({"type": "muster_fleet", "zone": z,
                         "label": f"Collect a fleet into the sea zone {d.sea_zones[z].name}"})
    if mode is None:
        acts.append({"type": "done", "label": "Finish mustering"})
    return acts


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    side = frame["side"]
    kind = action["type"]
    d = st.data()
    if kind == "muster_faction":
        frame["mode"] = "faction"
        frame["faction"] = action["faction"]
    elif kind == "muster_single":
        frame["mode"] = "single"
        frame["chosen"] = [action["block"]]
    elif kind == "muster_at":
        frame["loc"] = action["loc"]
        if frame["mode"] == "single":
            place(state, side, frame["chosen"], frame["loc"], shown=False)
            _land_finished(frame)
    elif kind == "bring":
        frame["chosen"] = [*frame["chosen"], action["block"]]   # replaced (EDITS_BY_REPLACING)
        if not any(d.blocks[b].faction == frame["faction"] and b not in frame["chosen"]
                   for b in recruits(state, side)):
            place(state, side, frame["chosen"], frame["loc"], shown=True)
            _land_finished(frame)
    elif kind == "done_land":
        place(state, side, frame["chosen"], frame["loc"], shown=True)
        _land_finished(frame)
    elif kind == "muster_fleet":
        fleet = next(b for b in recruits(state, side) if d.blocks[b].fleet)
        rec = state["blocks"][fleet]
        rec.update(loc=f"sea:{action['zone']}", fresh=True, moved=True, revealed=True)
        frame["fleet_done"] = True
        st.log(state, f"{side.capitalize()} musters a fleet into {d.sea_zones[action['zone']].name}.")
    elif kind == "done":
        st.finish_frame(state, {"kind": "muster", "side": side})
    else:  # pragma: no cover
        raise RuleError(f"unknown muster order {kind}", RULE)


def advance(state: State, frame: dict[str, Any]) -> bool:
    frame.pop("returns", None)
    if frame["mode"] is None:
        side = frame["side"]
        box = recruits(state, side)
        # which of the box are fleets, by the static set (any() over a generator left before
        # its end closes it with an exception, some four thousand instructions, issue 33)
        fleets = _fleets()
        land_left = not frame["land_done"] and not fleets.issuperset(box) \
            and bool(eligible(state, side))
        fleet_left = not frame["fleet_done"] and not fleets.isdisjoint(box) \
            and bool(fleet_zones(state, side))
        if not land_left and not fleet_left:
            st.finish_frame(state, {"kind": "muster", "side": side})
            return True
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    if frame["mode"] is None:
        return "Mustering: choose what comes out of the recruitment box (7.2)."
    if frame["loc"] is None:
        return "Mustering: choose the Recruitment Location."
    return "Mustering: choose the blocks of that faction to bring."


def choose_weight(action: Action) -> float:
    return {"done": 0.3, "done_land": 0.5}.get(action["type"], 1.0)


def _land_finished(frame: dict[str, Any]) -> None:
    frame.update(mode=None, faction=None, loc=None, chosen=[], land_done=True)


def place(state: State, side: str, blocks: list[str], loc: str, shown: bool) -> None:
    """Put mustered blocks on the map (7.2): they may not move this turn; shown ones are
    revealed to the opponent; they join friends inside a besieged castle (a third block
    ends the siege); they may overrun enemies (7.4)."""
    d = st.data()
    idx = st.by_location(state)
    besieged = [b for b in st.blocks_at(state, loc, side, idx) if state["blocks"][b]["inside"]]
    if side == "muslim" and st.disks_at(state, loc) and st.enemy_units_at(state, loc, side, idx) \
            and state["castle"].get(loc) == side:
        besieged_castle = True
    else:
        besieged_castle = bool(besieged)
    for b in blocks:
        rec = state["blocks"][b]
        rec.update(loc=loc, fresh=True, moved=True, inside=besieged_castle)
        if shown:
            st.reveal(state, b)
            rec["revealed"] = False      # shown, then stood up again
    if besieged_castle and len(besieged) + len(blocks) > 2:
        for b in st.blocks_at(state, loc, side):
            state["blocks"][b]["inside"] = False
        st.log(state, f"More than two blocks in the castle of {d.locations[loc].name}: the siege "
                      "becomes a field combat (7.2).")
    if shown:
        names = ", ".join(st.block_name(b) for b in blocks)
        st.log(state, f"{side.capitalize()} musters {plural(len(blocks), 'block')} at "
                      f"{d.locations[loc].name}, shown: {names}.")
    else:
        st.log(state, f"{side.capitalize()} musters 1 unseen block at {d.locations[loc].name}.")
        st.log_private(state, side, f"You muster {st.block_name(blocks[0])}.")
    if st.enemy_units_at(state, loc, side):
        overrun.resolve(state, loc, side)
    st.settle_location(state, loc)
