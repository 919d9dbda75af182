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

from engine.api import State
from engine.granada import options as opt
from engine.granada import state as st

FIELD_EVERY = 5
SIEGE_EVERY = {True: 5, False: 7}      # with / without the attacker's artillery special attack


def _own_territory(loc: str, side: str) -> bool:
    return st.data().locations[loc].kingdom == (side == "muslim")


def _sources(state: State, side: str, idx: dict[str, list[str]]) -> set[str]:
    d = st.data()
    out = {loc for loc in d.locations if state["control"].get(loc) == side and _own_territory(loc, side)}
    for port, zone in d.port_zone.items():
        fleets = [b for b in idx.get(f"sea:{zone}", []) if d.blocks[b].fleet and st.owner(b) == side]
        if fleets and st.units_at(state, port, side, idx):
            out.add(port)
    return out


def out_of_supply(state: State) -> dict[str, list[str]]:
    """The locations of each side's stacks that carry an OOS marker now (empty when the
    option is off)."""
    if not opt.on(state, "out_of_supply"):
        return {s: [] for s in st.SIDES}
    d = st.data()
    idx = st.by_location(state)
    out: dict[str, list[str]] = {}
    for side in st.SIDES:
        enemy = st.other(side)
        sources = _sources(state, side, idx)
        supplied: set[str] = set()
        for src in sources:                       # flood from the sources, avoiding enemy control
            if src in supplied:
                continue
            supplied.add(src)
            todo = [src]
            while todo:
                loc = todo.pop()
                for n, _ in d.adjacency.get(loc, ()):
                    if n not in supplied and state["control"].get(n) != enemy:
                        supplied.add(n)
                        todo.append(n)
        stacks = sorted(loc for loc in d.locations if st.blocks_at(state, loc, side, idx))
        # a stack standing on enemy-controlled ground still draws supply from a neighbour
        out[side] = [loc for loc in stacks if loc not in supplied
                     and not any(n in supplied for n, _ in d.adjacency.get(loc, ()))]
    return out


def is_out(state: State, loc: str, side: str) -> bool:
    return loc in out_of_supply(state)[side]
