"""Small builders for Granada (Dirk Henn) tests: tiles by face or moats, money cards, states."""

from __future__ import annotations

from typing import Any

from engine.api import find_action
from engine.granada_city import actions, apply, setup
from engine.granada_city.data import CATALOG, moats_of

State = dict[str, Any]


def tile(kind: str, price: int) -> list[str]:
    """[tile id, side] of the building ``kind`` valued ``price``."""
    for tid, t in CATALOG.tiles.items():
        for side in ("even", "odd"):
            f = t.face(side)
            if f.type == kind and f.price == price:
                return [tid, side]
    raise KeyError((kind, price))


def with_moats(moats: str, avoid: set[str] | None = None) -> str:
    """A tile id whose moats are exactly the edges in ``moats`` (e.g. "ne")."""
    for tid in CATALOG.tile_order:
        if moats_of(tid) == frozenset(moats) and tid not in (avoid or set()):
            return tid
    raise KeyError(moats)


def card(currency: str, value: int, copy: int = 1) -> str:
    return f"{currency}-{value}-{copy}"


def game(players: int = 3, seed: int = 1, **options: Any) -> State:
    return setup(seed, {"players": players, **options})


def take_from_everywhere(state: State, cid: str) -> None:
    """Remove a money card from wherever it lies (so a test can hand it to someone)."""
    for where in [state["deck"], state["display"], state["discard"], state["aside"], *state["hands"].values()]:
        if cid in where:
            if where is state["deck"]:
                for i, n in enumerate(state["piles"]):
                    start = sum(state["piles"][:i])
                    if start <= state["deck"].index(cid) < start + n:
                        state["piles"][i] -= 1
                        break
            where.remove(cid)
            return


def give(state: State, role: str, *cards: str) -> None:
    for cid in cards:
        take_from_everywhere(state, cid)
        state["hands"][role].append(cid)


def set_hand(state: State, role: str, *cards: str) -> None:
    """``role`` holds exactly ``cards``; his old cards go to the discard pile."""
    state["discard"].extend(state["hands"][role])
    state["hands"][role] = []
    give(state, role, *cards)


def put_in_yard(state: State, space: int, entry: list[str]) -> None:
    """Put a tile (taken from wherever it is) on a yard space, the old tile back in the bag."""
    tid = entry[0]
    for i, t in enumerate(state["yard"]):
        if t is not None and t[0] == tid:
            state["yard"][i] = None
    if tid in state["bag"]:
        state["bag"].remove(tid)
    old = state["yard"][space - 1]
    if old is not None:
        state["bag"].append(old[0])
        state["bag"].sort()
    state["yard"][space - 1] = list(entry)


def remove_tile(state: State, tid: str) -> None:
    if tid in state["bag"]:
        state["bag"].remove(tid)
    for i, t in enumerate(state["yard"]):
        if t is not None and t[0] == tid:
            state["yard"][i] = None
    if state["dirk"] is not None:
        state["dirk"] = [t for t in state["dirk"] if t[0] != tid]


def build(state: State, role: str, cells: dict[tuple[int, int], list[str]]) -> None:
    """Lay tiles in a city directly (taken from the bag or yard): for scoring and rule tests."""
    for (x, y), entry in cells.items():
        remove_tile(state, entry[0])
        state["cities"][role][f"{x},{y}"] = list(entry)


def turn_of(state: State, role: str) -> None:
    """Make it ``role``'s turn, at its start."""
    state["turn"] = {"role": role, "number": state["turn_number"], "free": True, "actions": 0, "bought": []}
    state["stage"] = "play"
    state["pending"] = None


def step(state: State, role: str, **action: Any) -> State:
    """Apply the listed action matching ``action`` (its label ignored); fail if none is listed."""
    legal = actions(state, role)
    found = find_action(legal, action)
    assert found is not None, f"{action} not among {[a.get('label') for a in legal]}"
    return apply(state, role, found)


def labels(state: State, role: str) -> list[str]:
    return [a["label"] for a in actions(state, role)]
