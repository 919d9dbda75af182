"""Naval movement (7.5.1), carrying troops (7.5.2), Naval deck draws when fleets meet (7.5.3),
disembarking into combat (7.5.4) and naval blockades (7.5.5). Naval battles themselves are
seabattle.py's (9.x).

Frame ``{"module": "naval", "kind": "sea_move", "side": s, "zone": start zone, "at": zone,
"fleets": [ids], "phase": "select" | "embark" | "sail" | "land", "moves_left": n,
"embarked": [ids embarked this move]}``:

* select: designate 1 or 2 fleets of the activated zone (7.5.1); if enemy fleets share the
  zone, one Naval card per designated fleet is drawn at once (7.5.3);
* embark: land blocks at the zone's port board the fleets, 2 per fleet (7.5.2);
* sail: up to 3 zones as one stack; entering a zone with enemy fleets draws one Naval card
  per moving fleet, a Naval Battle card stops the draws and starts a naval battle;
* land: the move is over: carried blocks disembark together at the zone's port or stay at sea.
"""

from __future__ import annotations

import functools
from typing import Any

from engine.api import Action, RuleError, State
from engine.granada import overrun
from engine.granada import state as st
from engine.text import plural

RULE = "7.5"
MAX_FLEETS = 2       # 7.5.1
MAX_ZONES = 3        # 7.5.1
CAPACITY = 2         # 7.5.2
EDITS_BY_REPLACING = True
"""This module never edits a list or dict inside its frame in place: it replaces it (the
fleets, the blocks embarked), so that apply may copy the frame one level deep only
(engine.granada._step, issue 33). A new in-place edit of the frame's containers here would
change apply's input."""



def _fleet_name(fleet: str) -> str:
    """A fleet as a menu names it: the fleets of a side share one name ("Muslim fleet"), so its
    id goes beside the name to tell two of them apart."""
    name = st.block_name(fleet)
    return name if fleet in name else f"{name} ({fleet})"

def fleets_in(state: State, zone: str, side: str | None = None) -> list[str]:
    # the blocks there from the location index (st.by_location), not a look at all 137
    # records (issue 33)
    comps = st.data().blocks
    return sorted(b for b in st.by_location(state).get(f"sea:{zone}", ())
                  if comps[b].fleet and (side is None or comps[b].side == side))


def carried_by(state: State, fleet: str) -> list[str]:
    # read only (dict.items: no copy-on-access); "is not None" first: most records carry
    # nothing, and None == str is a slow comparison, a third of this look (issue 33)
    return sorted(b for b, rec in dict.items(state["blocks"])
                  if rec["carried_by"] is not None and rec["carried_by"] == fleet)


def blockaded(state: State, loc: str, besieged: str) -> bool:
    """7.5.5: enemy fleets (of the besieged side) in the port's sea zone: the port gives no
    protection in a castle siege. Friendly fleets do not lift it."""
    port = st.data().locations[loc].port
    return port is not None and bool(fleets_in(state, port, st.other(besieged)))


@functools.cache
def _sea_places() -> frozenset[str]:
    """The sea zones as block locations ("sea:<zone>"; static data, asked at every movement
    decision)."""
    return frozenset(f"sea:{z}" for z in st.data().sea_zones)


def activatable_zones(state: State, side: str, activated: list[str]) -> list[str]:
    comps = st.data().blocks
    blocks = state["blocks"]
    out = set()
    idx = st.by_location(state)
    for loc in idx.keys() & _sea_places():
        if loc not in activated:
            for bid in idx[loc]:
                rec = blocks[bid]
                if not rec["moved"] and not rec["fresh"] and comps[bid].fleet and comps[bid].side == side:
                    out.add(loc[4:])
                    break
    return sorted(out)


def start(state: State, side: str, zone: str) -> None:
    st.push_frame(state, {"module": "naval", "kind": "sea_move", "side": side, "zone": zone,
                          "at": zone, "fleets": [], "phase": "select", "moves_left": MAX_ZONES,
                          "embarked": []})
    st.log(state, f"{side.capitalize()} activates the sea zone {st.data().sea_zones[zone].name}.")


def encounter_draws(state: State, zone: str, side: str, fleets: list[str]) -> str | None:
    """7.5.3 (and 9.2): one Naval card per moving fleet; a Naval Battle card stops the draws
    and is returned; None when every card drawn was a Quiet Crossing."""
    d = st.data()
    for _ in fleets:
        card = st.draw_naval(state)
        if card is None:
            return None
        st.log(state, f"{side.capitalize()} draws {d.cards[card].name} from the Naval deck in "
                      f"{d.sea_zones[zone].name} (7.5.3).")
        if d.cards[card].kind == "naval_battle":
            return card
    return None


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    return [frame["side"]]


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    side = frame["side"]
    d = st.data()
    acts: list[Action] = []
    phase = frame["phase"]
    if phase == "select":
        if len(frame["fleets"]) < MAX_FLEETS:
            for f in fleets_in(state, frame["zone"], side):
                rec = state["blocks"][f]
                if f not in frame["fleets"] and not rec["moved"] and not rec["fresh"]:
                    acts.append({"type": "take_fleet", "fleet": f, "label": f"Designate {_fleet_name(f)}"
                                 f"{' carrying ' + str(len(carried_by(state, f))) if carried_by(state, f) else ''}"})
        if frame["fleets"]:
            acts.append({"type": "confirm", "label": "These fleets move (7.5.1)"})
        else:
            acts.append({"type": "cancel", "label": "Move no fleet after all"})
    elif phase == "embark":
        port = d.sea_zones[frame["at"]].port
        aboard = [b for b in _carried(state, frame) if b not in frame["embarked"]]
        # all transported units embark together at one port (7.5.2): a stack already
        # carrying troops from an earlier turn takes no more on board
        if _room(state, frame) > 0 and not aboard:
            for b in st.blocks_at(state, port, side):
                rec = state["blocks"][b]
                blk = d.blocks[b]
                if rec["moved"] or rec["fresh"] or rec["inside"] or blk.colour == "grey" \
                        or blk.special in ("boabdil", "palace_guard"):
                    continue        # Boabdil never embarks (7.5.2); the guard stays (10.10)
                acts.append({"type": "embark", "block": b,
                             "label": f"Embark {st.block_name(b)} at {d.locations[port].name}"})
        acts.append({"type": "sail", "label": "Cast off"})
    elif phase == "sail":
        if frame["moves_left"] > 0:
            for z in d.sea_zones[frame["at"]].adjacent:
                acts.append({"type": "sail_to", "zone": z, "label": f"Sail to {d.sea_zones[z].name}"})
        acts.append({"type": "stop", "label": f"Stop in {d.sea_zones[frame['at']].name}"})
    elif phase == "land":
        if _carried(state, frame) and _may_land(frame):
            port = d.sea_zones[frame["at"]].port
            acts.append({"type": "disembark", "label": f"Disembark at {d.locations[port].name} (7.5.2)"})
        acts.append({"type": "stay_at_sea", "label": "End the move (carried blocks stay at sea)"})
    return acts


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    side = frame["side"]
    kind = action["type"]
    d = st.data()
    if kind == "take_fleet":
        frame["fleets"] = [*frame["fleets"], action["fleet"]]   # replaced (EDITS_BY_REPLACING)
    elif kind == "cancel":
        st.finish_frame(state, {"kind": "sea_move", "side": side})
    elif kind == "confirm":
        frame["phase"] = "embark"
        for f in frame["fleets"]:
            state["blocks"][f]["moved"] = True
        if fleets_in(state, frame["at"], st.other(side)):
            _meet(state, frame)
    elif kind == "embark":
        b = action["block"]
        fleet = min((f for f in frame["fleets"] if len(carried_by(state, f)) < CAPACITY),
                    key=lambda f: len(carried_by(state, f)))
        state["blocks"][b].update(loc=f"sea:{frame['at']}", carried_by=fleet, moved=True)
        frame["embarked"] = [*frame["embarked"], b]   # replaced (EDITS_BY_REPLACING)
        port = d.sea_zones[frame["at"]].port
        st.log(state, f"{side.capitalize()} embarks a block at {d.locations[port].name} (7.5.2).")
        st.settle_location(state, port)       # a castle left empty reverts (4.3)
    elif kind == "sail":
        frame["phase"] = "sail"
    elif kind == "sail_to":
        _sail(state, frame, action["zone"])
    elif kind == "stop":
        frame["phase"] = "land"
    elif kind == "disembark":
        _disembark(state, frame)
        _finish(state, frame)
    elif kind == "stay_at_sea":
        _finish(state, frame)
    else:  # pragma: no cover
        raise RuleError(f"unknown naval order {kind}", RULE)


def advance(state: State, frame: dict[str, Any]) -> bool:
    returns = frame.pop("returns", None)
    if not returns:
        return False
    for out in returns:
        if out.get("kind") != "naval_battle":
            continue
        side = frame["side"]
        zone = out.get("zone") or frame["at"]
        for f in fleets_in(state, zone, side):
            if f not in frame["fleets"]:
                # 9.1: friendly fleets already present in the battle's zone may neither move
                # nor land their troops this turn
                state["blocks"][f]["moved"] = True
        alive = [f for f in frame["fleets"] if state["blocks"][f]["loc"].startswith("sea:")]
        evaded = [f for f in alive if state["blocks"][f]["loc"] != f"sea:{frame['at']}"]
        frame["fleets"] = alive
        if not alive:
            _finish(state, frame)
            return True
        if evaded:
            # 9.2: evading fleets stop in the adjacent zone; the active player's may land troops
            frame["at"] = state["blocks"][alive[0]]["loc"][4:]
            frame["moves_left"] = 0
            frame["phase"] = "land"
            st.log(state, f"{side.capitalize()}'s fleets evade to {st.data().sea_zones[frame['at']].name}.")
    return True


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    phase = frame["phase"]
    zone = st.data().sea_zones[frame["at"]].name
    return {"select": f"Designate up to 2 fleets in {zone} (7.5.1).",
            "embark": f"Embark land blocks (2 per fleet) then cast off from {zone} (7.5.2).",
            "sail": f"Your fleets are in {zone}: sail on ({plural(frame['moves_left'], 'zone')} left) or stop.",
            "land": f"Your fleets end their move in {zone}: disembark or stay at sea."}[phase]


def choose_weight(action: Action) -> float:
    return {"cancel": 0.2, "stop": 0.5, "stay_at_sea": 0.5}.get(action["type"], 1.0)


# ---------------------------------------------------------------- helpers

def _room(state: State, frame: dict[str, Any]) -> int:
    return sum(CAPACITY - len(carried_by(state, f)) for f in frame["fleets"])


def _carried(state: State, frame: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for f in frame["fleets"]:
        out.extend(carried_by(state, f))
    return out


def _may_land(frame: dict[str, Any]) -> bool:
    """Blocks embarked this move land in ANOTHER port (7.5.2)."""
    return not (frame["embarked"] and frame["at"] == frame["zone"])


def _meet(state: State, frame: dict[str, Any]) -> None:
    card = encounter_draws(state, frame["at"], frame["side"], frame["fleets"])
    if card is not None:
        seabattle = st.handler({"module": "seabattle"})
        seabattle.start_naval_battle(state, frame["at"], frame["side"], list(frame["fleets"]), card)


def _sail(state: State, frame: dict[str, Any], zone: str) -> None:
    side = frame["side"]
    frame["at"] = zone
    frame["moves_left"] -= 1
    for f in frame["fleets"]:
        state["blocks"][f]["loc"] = f"sea:{zone}"
        for b in carried_by(state, f):
            state["blocks"][b]["loc"] = f"sea:{zone}"
    st.log(state, f"{side.capitalize()} sails {plural(len(frame['fleets']), 'fleet')} to "
                  f"{st.data().sea_zones[zone].name}.")
    if fleets_in(state, zone, st.other(side)):
        _meet(state, frame)


def _disembark(state: State, frame: dict[str, Any]) -> None:
    side = frame["side"]
    d = st.data()
    port = d.sea_zones[frame["at"]].port
    blocks = _carried(state, frame)
    idx = st.by_location(state)
    besieged = [b for b in st.blocks_at(state, port, side, idx) if state["blocks"][b]["inside"]]
    enemy = st.enemy_units_at(state, port, side, idx)
    into_castle = bool(besieged) or (side == "muslim" and bool(st.disks_at(state, port)) and bool(enemy)
                                     and state["castle"].get(port) == side)
    for b in blocks:
        state["blocks"][b].update(loc=port, carried_by=None, moved=True, fresh=True, inside=into_castle)
    if into_castle and len(besieged) + len(blocks) > 2:
        for b in st.blocks_at(state, port, side):
            state["blocks"][b]["inside"] = False
        st.log(state, f"More than two blocks in the castle of {d.locations[port].name}: the siege "
                      "becomes a field combat (7.5.4).")
    st.add_entry(state, port, side, f"sea:{frame['at']}")
    st.log(state, f"{side.capitalize()} disembarks {plural(len(blocks), 'block')} at {d.locations[port].name}.")
    if enemy:
        overrun.resolve(state, port, side)
        st.settle_location(state, port)
    else:
        st.pass_through(state, port, side, False)
        st.settle_location(state, port)


def _finish(state: State, frame: dict[str, Any]) -> None:
    for f in frame["fleets"]:
        state["blocks"][f]["moved"] = True
    st.finish_frame(state, {"kind": "sea_move", "side": frame["side"]})
