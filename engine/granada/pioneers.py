"""Pioneers tiles for devastation in castle sieges (11.7, an option, options.py).

Three tiles start "on top of the stacks" at Córdoba, Úbeda and Cartagena. RULING: a tile
rides on one white Christian block of its stack (``state["pioneers"][tile]`` = that block's
id, or "eliminated"), so it goes wherever that block goes (moves, force marches, sea
transport, retreats) and never counts towards a stack's size (11.7: "do not count toward the
stacking movement limits"). When its block is eliminated the tile passes to another white
Christian block at the same place; with none left it is eliminated ("only eliminated when it
is the last piece remaining"; it "does not replace a block when it comes to applying
losses"). Views show where each tile is, never the block it rides on; redeal keeps each tile
with the record of its block (views.redeal).

In a castle siege the attacking Christian may deploy one tile of the besieging stack, without
a card, while he may still deploy leaders free (8.2.3): +1 impact; only one per siege.
"""

from __future__ import annotations

from typing import Any

from engine.api import State
from engine.granada import options as opt
from engine.granada import state as st

TILES = ("P1", "P2", "P3")
START = {"P1": "cordoba", "P2": "ubeda", "P3": "cartagena"}        # 11.7
IMPACT = 1
ELIMINATED = "eliminated"            # state.pass_tiles writes it when a tile's stack is gone


def _carriers(state: State, loc: str) -> list[str]:
    blocks = st.data().blocks
    return sorted(b for b, rec in state["blocks"].items()
                  if rec["loc"] == loc and st.owner(b) == "christian" and blocks[b].colour == "white")


def setup(state: State) -> None:
    if not opt.on(state, "pioneers"):
        state["pioneers"] = {}
        return
    state["pioneers"] = {}
    for tile in TILES:
        riders = _carriers(state, START[tile])
        state["pioneers"][tile] = riders[0] if riders else ELIMINATED


def where(state: State) -> dict[str, str]:
    """tile -> location (or sea zone "sea:<zone>", or "eliminated"): what views show."""
    out = {}
    for tile, carrier in sorted((state.get("pioneers") or {}).items()):
        out[tile] = ELIMINATED if carrier == ELIMINATED else state["blocks"][carrier]["loc"]
    return out


def at(state: State, loc: str) -> list[str]:
    return [t for t, x in where(state).items() if x == loc]


def siege_tiles(state: State, frame: dict[str, Any], side: str) -> list[str]:
    """Tiles the attacking Christian may deploy now in this castle siege (11.7)."""
    if (side != "christian" or frame.get("mode") != "siege" or side != frame["attacker"]
            or frame.get("pioneer") or frame["first_card"][side]):
        return []
    force = set(st.blocks_at(state, frame["loc"], side))
    return [t for t, c in sorted((state.get("pioneers") or {}).items()) if c in force]
