"""Builders for the core Granada tests: real states from setup, cleared and arranged the way
a rulebook situation needs, then driven through the public contract (actions/apply)."""

from __future__ import annotations

from typing import Any

import engine.granada as g
from engine.api import clone, find_action
from engine.granada import components, movement
from engine.granada import state as st
from engine.rng import Generator

D = components.load()


def new_game(seed: int = 1) -> dict[str, Any]:
    return g.setup(seed, {})


def clear_board(state: dict[str, Any]) -> dict[str, Any]:
    """Every block of the map, the sea and the recruitment boxes back into the bags; disks
    stay; control pieces stay as set up."""
    for bid, rec in state["blocks"].items():
        b = D.blocks[bid]
        if b.optional or rec["loc"] in ("palace", "boabdil_box"):
            continue
        rec.update(loc=f"bag:{b.side}" if b.colour != "grey" else "boabdil_box",
                   inside=False, carried_by=None, moved=False, fresh=False, revealed=b.fleet)
    return state


def put(state: dict[str, Any], loc: str, *ids: str, inside: bool = False) -> None:
    for bid in ids:
        state["blocks"][bid].update(loc=loc, inside=inside, carried_by=None)


def land_blocks(side: str, n: int, exclude: tuple[str, ...] = (), faction: str | None = None,
                leaders: bool = False) -> list[str]:
    """n ordinary land blocks of a side (no leader, no special unless asked)."""
    out = []
    for bid in sorted(D.blocks):
        b = D.blocks[bid]
        if b.side != side or b.fleet or b.optional or b.colour == "grey" or bid in exclude:
            continue
        if b.special is not None or (b.leader and not leaders) or (leaders and not b.leader):
            continue
        if faction is not None and b.faction != faction:
            continue
        out.append(bid)
        if len(out) == n:
            return out
    raise AssertionError(f"not enough {side} blocks")


def fleets(side: str, n: int) -> list[str]:
    return [b for b in sorted(D.blocks) if D.blocks[b].fleet and D.blocks[b].side == side][:n]


def special_block(kind: str) -> str:
    return next(b for b in sorted(D.blocks) if D.blocks[b].special == kind)


def at_movement(state: dict[str, Any], side: str) -> dict[str, Any]:
    """The state at the start of ``side``'s Movement Phase (first player, turn I of 1485)."""
    root = state["stack"][0]
    state["stack"] = [root]
    state["year"], state["turn"] = 2, 1
    state["first"] = side
    state["bids"] = {"christian": None, "muslim": None}
    root.update(phase="turn", step=1, winner=None)
    state["active_side"] = side
    movement.start(state, side)
    return state


def act(state: dict[str, Any], role: str, **action: Any) -> dict[str, Any]:
    """The state after ``role``'s order, as a copy the test may go on editing in place to
    arrange a position: a state apply returned is a value, never edited (it shares records
    with the states before it, and its location index was worked out by the step:
    engine/granada/placement.py)."""
    return clone(g.apply(state, role, action))


def has(state: dict[str, Any], role: str, **action: Any) -> bool:
    return find_action(g.actions(state, role), action) is not None


def choices(state: dict[str, Any], role: str) -> list[dict[str, Any]]:
    """The choices offered to ``role`` (``g.actions``)."""
    return g.actions(state, role)


def legal_choices(state: dict[str, Any], role: str) -> list[dict[str, Any]]:
    """Every legal action of ``role`` (``g.legal_actions``)."""
    return g.legal_actions(state, role)


def types(state: dict[str, Any], role: str) -> set[str]:
    return {a["type"] for a in choices(state, role)}


def top(state: dict[str, Any]) -> dict[str, Any]:
    f = st.top(state)
    assert f is not None
    return f


def buy(state: dict[str, Any], side: str, level: str) -> dict[str, Any]:
    state = act(state, side, type="buy", level=level)
    while top(state).get("pay"):
        state = act(state, side, type="pay", card=sorted(state["hands"][side])[0])
    return state


def locs_of(state: dict[str, Any], *ids: str) -> list[str]:
    return [state["blocks"][b]["loc"] for b in ids]


def random_states(seed: int, options: dict[str, Any], steps: int) -> list[dict[str, Any]]:
    """The states of a random game, each the engine's own (sharing what apply shares)."""
    pick = Generator(seed)
    state = g.setup(seed, options)
    seen = [state]
    for _ in range(steps):
        if g.result(state) is not None:
            break
        role = next(r for r in g.active(state) if g.legal_actions(state, r))
        legal = g.legal_actions(state, role)
        state = g.apply(state, role, legal[pick.randbelow(len(legal))])
        seen.append(state)
    return seen
