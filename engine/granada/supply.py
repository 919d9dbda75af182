"""Out of Supply markers (11.8, an option, options.py).

A stack is out of supply when no line of communication joins it to a friendly location in
its own territory (the Christians': outside the Kingdom of Granada; the Muslims': inside it).
RULINGS (11.8 gives no more): a line of communication runs by road through locations the
enemy does not control, like the Muslim line of 2.2 (RULINGS.md 32); the stack's own
location is its start whoever controls it; another friendly stack supplies nothing by itself
(11.8), but a port where friendly units stand with a friendly fleet in its sea zone is a
source of supply for them and for every stack joined to it. The markers are a function of
the public map (control, blocks, fleets), computed whenever asked, and shown in views
(``optional["out_of_supply"]``).

Effect: an OOS side loses 1 block per 5 impacts in a field combat (instead of 7, 8.5.1); an
OOS besieged side 1 unit per 5 impacts under an artillery special attack, 7 otherwise
(instead of the 8.7.5 table).
"""

from __future__ import annotations

import functools
from typing import Any

from engine.api import State
from engine.granada import options as opt
from engine.granada import state as st

FIELD_EVERY = 5
SIEGE_EVERY = {True: 5, False: 7}      # with / without the attacker's artillery special attack


@functools.cache
def _map_tables() -> tuple[dict[str, frozenset[str]], tuple[tuple[str, str], ...],
                           dict[str, tuple[str, ...]]]:
    """Each side's own territory, the (port, its sea zone) pairs and each location's
    neighbours by road: static map data, tabled once (supply is asked at every view of a game
    with the option on, issue 13)."""
    d = st.data()
    own = {side: frozenset(loc for loc, L in d.locations.items() if L.kingdom == (side == "muslim"))
           for side in st.SIDES}
    neighbours = {loc: tuple(n for n, _ in roads) for loc, roads in d.adjacency.items()}
    return own, tuple((port, f"sea:{zone}") for port, zone in d.port_zone.items()), neighbours


def _own_territory(loc: str, side: str) -> bool:
    return loc in _map_tables()[0][side]


def _sources(state: State, side: str, idx: dict[str, list[str]]) -> set[str]:
    d = st.data()
    control = state["control"]
    own, ports, _ = _map_tables()
    out = {loc for loc in own[side] if control.get(loc) == side}
    for port, sea in ports:
        fleets = [b for b in idx.get(sea, ()) if d.blocks[b].fleet and st.owner(b) == side]
        if fleets and st.units_at(state, port, side, idx):
            out.add(port)
    return out


# The last answer and what it was computed from: the location index (st.by_location gives
# the same object back while no block moves), the control pieces and the disks. Every view
# of a game with the option on asks (issue 13), the three views of one state alike.
_LAST: tuple[Any, ...] = (None, None, None, None)


def out_of_supply(state: State) -> dict[str, list[str]]:
    """The locations of each side's stacks that carry an OOS marker now (empty when the
    option is off)."""
    if not opt.on(state, "out_of_supply"):
        return {s: [] for s in st.SIDES}
    idx = st.by_location(state)
    control = tuple(state["control"].items())
    disks = tuple(state["disks"].items())
    global _LAST
    last = _LAST
    if last[0] is idx and last[1] == control and last[2] == disks:
        out = last[3]
    else:
        out = _out_of_supply(state, idx)
        _LAST = (idx, control, disks, out)
    return {s: list(locs) for s, locs in out.items()}


def _out_of_supply(state: State, idx: dict[str, list[str]]) -> dict[str, list[str]]:
    neighbours = _map_tables()[2]
    control = state["control"]
    # the map locations where each side's blocks stand, in map order
    stacks: dict[str, list[str]] = {s: [] for s in st.SIDES}
    for loc in st.data().locations:
        ids = idx.get(loc)
        if ids:
            for side in {st.owner(b) for b in ids}:
                stacks[side].append(loc)
    out: dict[str, list[str]] = {}
    for side in st.SIDES:
        if not stacks[side]:
            out[side] = []
            continue
        enemy = st.other(side)
        # flood from the sources at once, avoiding enemy control (a source itself counts
        # whoever controls it: a port with a friendly fleet)
        supplied = _sources(state, side, idx)
        closed = {loc for loc, owner in control.items() if owner == enemy}
        closed |= supplied
        todo = list(supplied)
        while todo:
            for n in neighbours.get(todo.pop(), ()):
                if n not in closed:
                    closed.add(n)
                    supplied.add(n)
                    todo.append(n)
        # a stack standing on enemy-controlled ground still draws supply from a neighbour
        out[side] = [loc for loc in sorted(stacks[side]) if loc not in supplied
                     and supplied.isdisjoint(neighbours.get(loc, ()))]
    return out


def is_out(state: State, loc: str, side: str) -> bool:
    return loc in out_of_supply(state)[side]
