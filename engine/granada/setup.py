"""Initial setup (5.1, 5.2): control pieces, decks and hands, fixed and random blocks, the
first wave of reinforcements, then the Turn Order Step of 1482 (which starts in turn II)."""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import State
from engine.granada import state as st

FIRST_WAVE = {"christian": 4, "muslim": 3}     # 5.2.3
START_HAND = 6                                 # 5.1
# Blocks whose setup position the rulebook itself states, so that the opponent knows them
# from the start (crowns 5.2.1, 10.8-10.11): they are never re-dealt (views.redeal).
PUBLIC_SETUP = ("ferdinand", "isabella", "boabdil", "el_zagal", "military_order", "mujahideen",
                "palace_guard")


def setup(seed: int, options: dict[str, Any]) -> State:
    from engine.granada import options as opt

    opt.check(options)
    d = st.data()
    state: State = {
        "game": "granada", "version": 1, "options": dict(options),
        "rng": rng.seed_state(seed), "log": [], "reveals": 0,
        "year": 0, "turn": 2, "first": None, "active_side": None,
        "blocks": {}, "disks": {}, "control": {}, "castle": {},
        "hands": {"christian": [], "muslim": []},
        "decks": {"christian": [], "muslim": [], "naval": []},
        "discards": {"christian": [], "muslim": [], "naval": []},
        "battle_discard": {"christian": [], "muslim": []},
        "surrender": {"christian": [], "muslim": []},
        "hand_known": {"christian": [], "muslim": []},
        "known": {"christian": [], "muslim": []},
        "bids": {"christian": None, "muslim": None},
        "entries": {}, "stack": [],
        "boabdil": {"captures": 0, "allied_until": None, "pending": None, "grey": []},
        "removed_cards": [],            # cards played as events and removed from play (11.2, 11.3)
        # 11.2: the Papal Bull card face up beside the board while it may be played
        "papal_bull": next((c for c in sorted(d.optional_cards) if d.cards[c].kind == "papal_bull"), None)
        if opt.on({"options": options}, "papal_bull") else None,
        "result": None,
    }
    # 5.1 control pieces: cubes, castles and round towers of their initial colour. Locations
    # without a piece start with their natural alignment (RULINGS.md).
    for loc, L in d.locations.items():
        state["control"][loc] = L.control if L.control is not None else st.natural(loc)
        if L.castle:
            state["castle"][loc] = L.control if L.control is not None else st.natural(loc)
    # Castle Surrender cards face up beside the board; the three decks shuffled (5.1, 3.3).
    for cid in sorted(d.cards):
        c = d.cards[cid]
        if cid in d.optional_cards:
            # 11.3, 11.5: an optional card joins its side's deck only with its option
            if any(opt.on(state, name) and c.kind in kinds for name, kinds in opt.CARD_KINDS.items()):
                state["decks"][c.deck].append(cid)
            continue
        if c.deck == "surrender":
            side = "christian" if cid.startswith("C") else "muslim"
            state["surrender"][side].append(cid)
        elif c.deck in ("christian", "muslim", "naval"):
            state["decks"][c.deck].append(cid)
    for key in ("christian", "muslim", "naval"):
        rng.shuffle(state, state["decks"][key])
    # Blocks: every block starts in its side's bag, then the setup map takes some out.
    for bid in sorted(d.blocks):
        b = d.blocks[bid]
        loc = f"bag:{b.side}"
        if b.optional:
            # 11.1: Mercenaries face up in their own box, hired at the Reinforcement Step;
            # 11.2: the Crusaders beside the board (aside) until the Papal Bull
            hired = b.special == "mercenaries" and b.side in opt.mercenary_sides(state)
            loc = f"mercenaries:{b.side}" if hired else "aside"
        state["blocks"][bid] = {"loc": loc, "revealed": False, "inside": False,
                                "carried_by": None, "moved": False, "fresh": False}
    for loc, ids in d.setup.fixed.items():
        where = f"sea:{loc}" if loc in d.sea_zones else loc
        for bid in ids:
            state["blocks"][bid]["loc"] = where
    for bid in d.setup.palace_guard:
        state["blocks"][bid].update(loc="palace", revealed=True)
    for bid in d.setup.boabdil_box:
        state["blocks"][bid].update(loc="boabdil_box", revealed=True)
    for bid, b in d.blocks.items():
        if b.fleet or state["blocks"][bid]["loc"].startswith("mercenaries:"):
            state["blocks"][bid]["revealed"] = True     # fleets are always face up (5.1), 11.1
        if b.special in PUBLIC_SETUP and state["blocks"][bid]["loc"] != f"bag:{b.side}":
            state["known"][st.other(b.side)].append(bid)
    for side in st.SIDES:
        state["known"][side].sort()
    state["disks"] = {name: loc for name, loc in d.setup.disks.items()}
    # 5.2.2 random blocks: drawn fleets are put aside and go back afterwards, which is the
    # same as drawing among the bag's land blocks.
    # Each side's bag is looked at once: a draw takes its block out of the list, as a new
    # look at the records would (nothing else moves a block in or out of the bag here).
    for side in st.SIDES:
        land = [b for b in _bag(state, side) if not d.blocks[b].fleet]
        for loc in sorted(d.setup.random.get(side, {})):
            for _ in range(d.setup.random[side][loc]):
                if not land:
                    raise ValueError(f"granada setup: {side} bag has no land block for {loc}")
                bid = rng.choice(state, land)
                land.remove(bid)
                state["blocks"][bid]["loc"] = loc
    # 5.2.3 first wave of reinforcements (fleets included).
    for side in st.SIDES:
        bag = _bag(state, side)
        for _ in range(FIRST_WAVE[side]):
            if bag:
                bid = rng.choice(state, bag)
                bag.remove(bid)
                state["blocks"][bid]["loc"] = f"recruit:{side}"
    st.settle(state)
    from engine.granada import pioneers

    pioneers.setup(state)                           # 11.7, on top of their stacks
    for side in st.SIDES:
        st.draw_cards(state, side, START_HAND)
    st.log(state, "Granada 1482: the war begins. Turn marker on 1482, turn II.")
    from engine.granada import sequence

    st.push_frame(state, sequence.root_frame())
    from engine.granada import run

    run(state)
    return state


def _bag(state: State, side: str) -> list[str]:
    key = f"bag:{side}"
    return [bid for bid, rec in state["blocks"].items() if rec["loc"] == key]
