"""Overruns (7.4): a force of at least four times as many blocks as the enemy's eliminates it
at once, with no card played and no loss, during land movement, mustering, disembarking or
a retreat. The side whose blocks arrive is the one that may overrun (RULINGS.md).

Protected from overruns: units that control the castle of their location (4.3, 7.4),
blocks that control a watchtower location (4.4), units inside a castle and disks (8.7.4).
A lone enemy control piece is no obstacle (4.1: it simply changes hands).
"""

from __future__ import annotations

from engine.api import State
from engine.granada import special
from engine.granada import state as st
from engine.text import plural

RATIO = 4


def can_overrun(state: State, loc: str, side: str,
                index: dict[str, list[str]] | None = None) -> bool:
    """Would ``side`` overrun the enemy at ``loc`` now?"""
    idx = index if index is not None else st.by_location(state)
    enemy = st.other(side)
    foes = st.blocks_at(state, loc, enemy, idx)
    if not foes:
        return False
    if st.disks_at(state, loc) and enemy == "muslim":
        return False                 # a disk is a unit inside the castle (8.7.4)
    if any(state["blocks"][b]["inside"] for b in foes):
        return False                 # inside a castle (4.3)
    L = st.data().locations[loc]
    if L.castle and state["castle"].get(loc) == enemy:
        return False                 # enemy units who control a castle (7.4)
    if L.watchtower and state["control"].get(loc) == enemy:
        return False                 # blocks controlling a watchtower (4.4, 7.4)
    # units inside a castle count too (7.4), disks among them: "all other rules apply to
    # disks as if they were regular infantry blocks inside castles" (8.7.4)
    friends = st.units_at(state, loc, side, idx)
    return friends >= RATIO * len(foes)


def resolve(state: State, loc: str, side: str) -> bool:
    """Overrun the enemy blocks at ``loc`` if ``side`` may; True when it happened.

    Overrun blocks are eliminated (revealed). Boabdil (black) cannot be eliminated: being
    the last of his force, he is captured (10.12.1). The overrun side then draws one card
    for each 2 blocks lost, grey blocks excepted (8.8, 10.12.2)."""
    idx = st.by_location(state)
    if not can_overrun(state, loc, side, idx):
        return False
    enemy = st.other(side)
    comps = st.data().blocks
    foes = st.blocks_at(state, loc, enemy, idx)
    lost = 0
    boabdil = None
    for b in foes:
        if comps[b].special == "boabdil":
            boabdil = b
            continue
        st.eliminate(state, b)
        if comps[b].colour != "grey":
            lost += 1
    names = ", ".join(st.block_name(b) for b in foes if b != boabdil)
    st.log(state, f"Overrun at {st.data().locations[loc].name}: {side.capitalize()} eliminates "
                  f"{plural(len(foes) - (1 if boabdil else 0), enemy.capitalize() + ' block')}{': ' + names if names else ''} (7.4).")
    if boabdil is not None:
        special.capture_boabdil(state)
    elif any(comps[b].special == "boabdil_army" and comps[b].leader for b in foes):
        special.grey_defeated(state)
    if lost // 2:
        st.draw_cards(state, enemy, lost // 2)
    st.settle_location(state, loc)
    return True
