"""The Movement Phase (7.1-7.3): buying movement, activations, land movement step by step
(7.3.1 restrictions, 7.3.2 enemies, 7.3.3 distance, 7.3.4 leadership, 7.3.5 force sizes),
force marches, and the hand-off to mustering (muster.py), naval moves (naval.py), overruns
(overrun.py) and the Nasrid Palace Guard (special.py).

One frame ``{"module": "movement", "kind": "movement", "side": s, ...}`` per Movement Phase:

* ``level``: None until the player buys movement (7.1), then "none" | "minimal" |
  "limited" | "total"; ``pay``/``pay_for``: cards still to discard and why ("level",
  "force", "palace");
* ``acts``: location activations left (None: any, total movement), ``sea``: sea-zone
  activations left, ``muster``: mustering actions left (7.2), ``redraw``: cards discarded
  under No movement, replenished at the end;
* ``activated``: locations and "sea:<zone>" activated this phase; ``origin``: the land
  location whose moves are being made; ``segments``: initial location -> road segments
  ("a|b") used by finished stacks' blocks that began their move there (7.3.1: no block may
  use a segment other blocks of the same initial location used earlier this turn);
* ``mstack``: the moving stack: ``{"blocks": {id: {"dist", "maxg", "main", "lead", "start"}},
  "at": loc, "steps": n, "picked": loc | None, "picked_step": n, "dropped": loc | None,
  "dropped_step": n, "force": bool, "grey": bool, "declared": bool, "segs": {start: [seg]}}``
  — per-block distance, largest group (7.3.5), whether all its roads were main roads
  (7.3.3), whether it began its move with leadership (7.3.4), and where it began ("start").
"""

from __future__ import annotations

import functools
from typing import Any

from engine.api import Action, RuleError, State
from engine.granada import muster, naval, overrun, special
from engine.granada import state as st
from engine.text import plural

RULE = "7.1"
EDITS_BY_REPLACING = True
"""This module never edits a list or dict inside its frame in place: it replaces it (the
activated places, the segments used) or copies it first (the moving stack, :func:`_own_stack`),
so that apply may copy the frame one level deep only (engine.granada._StepState, issue 33).
A new in-place edit of the frame's containers here would change apply's input."""
LEVELS = {"none": 0, "minimal": 0, "limited": 1, "total": 2}     # cards to discard (7.1)
MAX_MOVE = 4                                                     # 7.3.3
CAPITALS = {"christian": "cordoba", "muslim": "granada"}          # 4.6


def start(state: State, side: str) -> None:
    st.push_frame(state, {
        "module": "movement", "kind": "movement", "side": side, "level": None,
        "pay": 0, "pay_for": None, "acts": 0, "sea": 0, "muster": 0, "redraw": 0,
        "activated": [], "origin": None, "mstack": None, "segments": {}, "palace_block": None,
    })
    # where each side's blocks came from is only kept for locations still contested
    idx = st.by_location(state)
    for loc in list(state["entries"]):
        if not (st.units_at(state, loc, "christian", idx) and st.units_at(state, loc, "muslim", idx)):
            del state["entries"][loc]
    st.log(state, f"{side.capitalize()} Movement Phase.")


# ---------------------------------------------------------------- helpers

def size_penalty(n: int) -> int:
    """7.3.5: -1 at the 6th, 9th and 12th block."""
    if n >= 12:
        return 3
    if n >= 9:
        return 2
    if n >= 6:
        return 1
    return 0


_PENALTY = tuple(size_penalty(n) for n in range(13))
"""size_penalty(n) for n up to 12 (``_PENALTY[min(n, 12)]``): a look, not a call, in the loops
over a moving stack's blocks (issue 33)."""


def is_main(kind: str, side: str, grey: bool) -> bool:
    """4.7, 7.3.3: red roads; red-black (hybrid) ones only for Muslims and the grey army."""
    return kind == "main" or (kind == "hybrid" and (side == "muslim" or grey))


def allowance(info: dict[str, Any], force: bool) -> int:
    """How many locations a moving block may cover (7.3.3-7.3.5)."""
    n = 1 + (1 if info["main"] else 0) + (1 if info["lead"] else 0) + (1 if force else 0)
    return min(MAX_MOVE, n - size_penalty(info["maxg"]))


def structural_leadership(state: State, loc: str, side: str) -> bool:
    """A castle aligned to and controlled by the side, or its own capital under its control
    (7.3.4): leadership that needs no declaration."""
    L = st.data().locations[loc]
    if L.castle and st.natural(loc) == side and state["castle"].get(loc) == side:
        return True
    return bool(L.capital and CAPITALS[side] == loc and state["control"].get(loc) == side)


def leaders_at(state: State, loc: str, side: str, grey: bool,
               index: dict[str, list[str]] | None = None) -> list[str]:
    comps = st.data().blocks
    return [b for b in st.blocks_at(state, loc, side, index)
            if comps[b].leader and (comps[b].colour == "grey") == grey]


def has_leadership(state: State, loc: str, side: str, grey: bool,
                   index: dict[str, list[str]] | None = None) -> bool:
    return structural_leadership(state, loc, side) or bool(leaders_at(state, loc, side, grey, index))


def movable(state: State, bid: str, side: str) -> bool:
    """A block that may still start or join a land move this turn (7.2, 7.3.1, 7.5.2, 10.10)."""
    rec = state["blocks"][bid]
    return not rec["moved"] and not rec["fresh"] and not rec["inside"] and rec["carried_by"] is None


@functools.cache
def segment(a: str, b: str) -> str:
    """A road segment's name, the same from either end (static: asked for every road a
    moving stack might take)."""
    return f"{a}|{b}" if a < b else f"{b}|{a}"


def palace_zone() -> set[str]:
    """Granada and its neighbours: where Nasrid Palace Guard blocks must stay (10.10)."""
    return set(_palace_zone())


@functools.cache
def _palace_zone() -> frozenset[str]:
    d = st.data()
    return frozenset({"granada"} | {n for n, _ in d.adjacency.get("granada", ())})


@functools.cache
def _name(loc: str) -> str:
    """A location's printed name (static data, in most labels and log lines)."""
    return st.data().locations[loc].name


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    return [frame["side"]]


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    side = frame["side"]
    ms = frame["mstack"]
    if frame["level"] is not None and frame["pay"] <= 0:
        # a moving stack's or an activated place's menu (most of them) needs no hand
        if ms is not None:
            return _stack_actions(state, frame, ms)
        if frame["origin"] is not None:
            return _origin_actions(state, frame)
    hand = sorted(set(state["hands"][side]))
    if frame["level"] is None:
        acts: list[Action] = [
            {"type": "buy", "level": "none", "label": "No movement (may exchange cards)"},
            {"type": "buy", "level": "minimal",
             "label": "Minimal movement: 1 activation or mustering (0 cards)"},
        ]
        if len(hand) >= 1:
            acts.append({"type": "buy", "level": "limited",
                         "label": "Limited movement: 3 activations, one may be mustering (1 card)"})
        if len(state["hands"][side]) >= 2:
            acts.append({"type": "buy", "level": "total",
                         "label": "Total movement: every location and sea zone + mustering (2 cards)"})
        for c in sorted(c for c in hand if st.data().cards[c].kind == "general_mobilization"):
            acts.append({"type": "mobilize", "card": c,
                         "label": f"Play {st.card_choice(c)}: Total movement without discarding (11.3)"})
        return acts
    if frame["pay"] > 0:
        why = {"level": "to buy movement", "force": "to force march",
               "palace": "for the Nasrid Palace Guard"}[frame["pay_for"]]
        return [{"type": "pay", "card": c, "label": f"Discard {st.card_choice(c)} {why}"} for c in hand]
    return _top_actions(state, frame, hand)


@functools.cache
def _activations() -> tuple[tuple[str, str], ...]:
    """The map's land locations in id order, each with its activation's label (static data,
    asked at every movement decision)."""
    return tuple((loc, f"Activate {_name(loc)}") for loc in sorted(st.data().locations))


def _top_actions(state: State, frame: dict[str, Any], hand: list[str]) -> list[Action]:
    side = frame["side"]
    acts: list[Action] = []
    if frame["level"] == "none":
        acts.extend({"type": "exchange", "card": c,
                     "label": f"Discard {st.card_choice(c)} (replenished at the end)"} for c in hand)
    else:
        can_act = frame["acts"] is None or frame["acts"] > 0
        if can_act:
            idx = st.by_location(state)
            blocks = state["blocks"]
            own = st.owners()
            # a set: under total movement a dozen places are activated, and a list's
            # membership test for each of the map's places was a fifth of this menu (issue 33)
            activated = set(frame["activated"])
            # the places where blocks stand, in the map's id order
            for loc, label in _activations():
                there = idx.get(loc)
                if there is None or loc in activated:
                    continue
                for b in there:
                    if own[b] != side:
                        continue      # (the record is looked up for the side's blocks only)
                    rec = blocks[b]
                    if not rec["moved"] and not rec["fresh"] and (rec["carried_by"] is None or rec["inside"]):
                        # movable (not inside), or inside a castle and free to leave it
                        acts.append({"type": "activate", "loc": loc, "label": label})
                        break
            if frame["sea"] is None or frame["sea"] > 0:
                for zone in naval.activatable_zones(state, side, frame["activated"]):
                    acts.append({"type": "activate_sea", "zone": zone,
                                 "label": f"Activate the sea zone {st.data().sea_zones[zone].name}"})
        if frame["muster"] > 0 and can_act and muster.can_muster(state, side):
            acts.append({"type": "muster", "label": "Muster from the recruitment box (7.2)"})
    if side == "muslim" and hand:
        for bid in special.palace_box(state):
            acts.append({"type": "palace_guard", "block": bid,
                         "label": f"Sacrifice a card: {st.block_name(bid)} enters Granada (10.10)"})
    acts.append({"type": "end_movement", "label": "End the Movement Phase"})
    return acts


def _origin_actions(state: State, frame: dict[str, Any]) -> list[Action]:
    side = frame["side"]
    origin = frame["origin"]
    acts: list[Action] = []
    idx = st.by_location(state)
    blocks = state["blocks"]
    comps = st.data().blocks
    inside = False
    whites: list[str] = []
    greys: list[str] = []
    # one pass over the side's blocks there: inside the castle (free to leave it), or
    # movable (not moved, not fresh, not inside, not carried) white or grey
    for b in st.blocks_at(state, origin, side, idx):
        rec = blocks[b]
        if rec["moved"] or rec["fresh"]:
            continue
        if rec["inside"]:
            inside = True
        elif rec["carried_by"] is None:
            (greys if comps[b].colour == "grey" else whites).append(b)
    if inside:
        acts.append({"type": "leave_castle", "label": f"Leave the castle of {_name(origin)} and "
                                                      "fight outside (7.1, 7.3.2)"})
    for b in whites:
        acts.append({"type": "take", "block": b, "label": f"Take {st.block_name(b)}"})
    if len(whites) > 1:
        acts.append({"type": "take_all", "label": f"Take all {len(whites)} movable blocks"})
    if greys:
        acts.append({"type": "take_grey", "label": "Take the Boabdil Mixed Army (moves together, 10.12.2)"})
    if frame["muster"] > 0 and (frame["acts"] is None or frame["acts"] > 0) \
            and muster.can_muster(state, side):
        # mustering may come before or after the movement of any stack (7.2); under minimal
        # or limited movement it still costs one of the activations left
        acts.append({"type": "muster", "label": "Muster from the recruitment box (7.2)"})
    acts.append({"type": "done_location", "label": f"Finish the moves from {_name(origin)}"})
    return acts


def _stack_actions(state: State, frame: dict[str, Any], ms: dict[str, Any]) -> list[Action]:
    side = frame["side"]
    acts: list[Action] = []
    at = ms["at"]
    if ms["steps"] == 0:
        if not ms["grey"]:
            for b in _joiners(state, at, side, ms["blocks"]):
                acts.append({"type": "take", "block": b, "label": f"Take {st.block_name(b)}"})
        if not ms["force"] and state["hands"][side]:
            acts.append({"type": "force_march", "label": "Force march: discard a card for +1 location (7.3.3)"})
    for to in _steps(frame, ms):
        acts.append({"type": "step", "to": to, "label": f"Step to {_name(to)}"})
    if ms["steps"] > 0 and not ms["force"] and not ms["grey"]:
        # one pick-up and one drop-off per stack (7.3.1): once made, only more blocks at
        # that same place and moment
        if ms["picked"] is None or (ms["picked"] == at and ms.get("picked_step") == ms["steps"]):
            for b in _joiners(state, at, side, ms["blocks"]):
                acts.append({"type": "pick_up", "block": b,
                             "label": f"Pick up {st.block_name(b)} at {_name(at)}"})
        if (ms["dropped"] is None or (ms["dropped"] == at and ms.get("dropped_step") == ms["steps"])) \
                and len(ms["blocks"]) > 1:
            for b in sorted(ms["blocks"]):
                if ms["blocks"][b]["start"] != at:
                    acts.append({"type": "drop_off", "block": b,
                                 "label": f"Drop off {st.block_name(b)} at {_name(at)}"})
    if ms["steps"] == 0:
        acts.append({"type": "end_move", "label": "Put these blocks back: they do not move"})
    else:
        acts.append({"type": "end_move", "label": f"End this stack's move at {_name(at)}"})
    return acts


def _joiners(state: State, at: str, side: str, in_stack: dict[str, Any]) -> list[str]:
    """The side's white blocks at ``at`` that may join the moving stack: not in it already and
    :func:`movable` (one pass over the location index, without a call per block). The index
    is asked only here: a stack that can pick up no block lists its steps without it."""
    blocks = state["blocks"]
    comps = st.data().blocks
    own = st.owners()
    out = []
    for b in st.by_location(state).get(at, ()):
        if own[b] != side or b in in_stack:
            continue
        rec = blocks[b]
        if not rec["moved"] and not rec["fresh"] and not rec["inside"] and rec["carried_by"] is None \
                and comps[b].colour != "grey":
            out.append(b)
    return out


def can_step(state: State, frame: dict[str, Any], ms: dict[str, Any]) -> bool:
    """The stack has a road to take now, or after a force march (7.3.3) it may still buy.

    A stack without one can only be put back: the search (engine.ai.granada) does not take
    such blocks, since taking and putting back is a circle with no end."""
    if _steps(frame, ms):
        return True
    if ms["force"] or ms["steps"] > 0 or not state["hands"][frame["side"]]:
        return False
    return bool(_steps(frame, dict(ms, force=True)))


def _steps(frame: dict[str, Any], ms: dict[str, Any]) -> list[str]:
    """Where the moving stack may step next, in the map's order of the roads from where it is.

    7.3.1: no segment other blocks of the same initial location used earlier this turn;
    7.3.3-7.3.5: every block of the stack still has distance left for a road of that kind;
    10.10: the Nasrid Palace Guard stays in or next to Granada. What depends on the stack
    alone (whether a main road, and whether another road, still fits every block) is worked
    out once, then each road (static: :func:`_roads`) is checked against it."""
    blocks = ms["blocks"]
    infos = blocks.values()
    size = len(blocks)
    force = 1 if ms["force"] else 0
    # allowance() of each block after one more road, main or not, without building its info
    fit_main = fit_other = True
    for info in infos:
        n = 1 + (1 if info["lead"] else 0) + force - _PENALTY[min(max(info["maxg"], size), 12)]
        dist = info["dist"] + 1
        if dist > min(MAX_MOVE, n):
            fit_other = False
            if not info["main"] or dist > min(MAX_MOVE, n + 1):
                return []        # no road of either kind fits this block
    used = frame["segments"]
    barred: set[str] = set()
    if used:
        for info in infos:
            barred.update(used.get(info["start"], ()))
    hybrid_main = frame["side"] == "muslim" or ms["grey"]   # is_main, for "hybrid" roads
    guard = not _guards().isdisjoint(blocks)
    zone = _palace_zone()
    out = []
    for to, seg, kind in _roads(ms["at"]):
        if (fit_main if kind == "main" or (kind == "hybrid" and hybrid_main) else fit_other) \
                and seg not in barred and (not guard or to in zone):
            out.append(to)
    return out


@functools.cache
def _roads(at: str) -> tuple[tuple[str, str, str], ...]:
    """The roads from ``at`` in the map's order: (neighbour, segment, kind) (static data)."""
    return tuple((to, segment(at, to), kind) for to, kind in st.data().adjacency.get(at, ()))


@functools.cache
def _road_kind(at: str, to: str) -> str:
    """The kind of the road from ``at`` to ``to`` (static data, cached: a generator left
    before its end at each step of a move is closed by an exception, some four thousand
    instructions, issue 33)."""
    for n, _seg, kind in _roads(at):
        if n == to:
            return kind
    raise KeyError(f"no road from {at} to {to}")


@functools.cache
def _guards() -> frozenset[str]:
    """The Nasrid Palace Guard's block ids (static data)."""
    return frozenset(b for b, blk in st.data().blocks.items() if blk.special == "palace_guard")


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    side = frame["side"]
    kind = action["type"]
    if kind == "buy":
        _buy(state, frame, action["level"])
    elif kind == "mobilize":
        # 11.3: the event gives Total movement as if two cards were discarded; the card is
        # removed from the game
        state["hands"][side].remove(action["card"])
        if action["card"] in state["hand_known"][side]:
            state["hand_known"][side].remove(action["card"])
        state["removed_cards"].append(action["card"])
        state["reveals"] += 1
        st.log(state, f"{side.capitalize()} plays {st.card_name(action['card'])} as an event and "
                      "removes it from the game (11.3).")
        _buy(state, frame, "total", free=True)
    elif kind == "pay":
        _pay(state, frame, action["card"])
    elif kind == "exchange":
        st.discard_cards(state, side, [action["card"]], "(No movement: exchanged, 7.1)")
        frame["redraw"] += 1
    elif kind == "activate":
        _activate(state, frame, action["loc"])
    elif kind == "activate_sea":
        frame["activated"] = [*frame["activated"], f"sea:{action['zone']}"]
        _use_activation(frame, sea=True)
        naval.start(state, side, action["zone"])
    elif kind == "muster":
        frame["muster"] -= 1
        if frame["level"] in ("minimal", "limited"):
            _use_activation(frame, sea=False)     # in lieu of an activation (7.2)
        muster.start(state, side)
    elif kind == "palace_guard":
        frame["palace_block"] = action["block"]
        frame["pay"] = 1
        frame["pay_for"] = "palace"
    elif kind == "end_movement":
        _end_phase(state, frame)
    elif kind == "leave_castle":
        _leave_castle(state, frame)
    elif kind == "take":
        _take(state, frame, [action["block"]])
    elif kind == "take_all":
        idx = st.by_location(state)
        comps = st.data().blocks
        _take(state, frame, [b for b in st.blocks_at(state, frame["origin"], side, idx)
                             if movable(state, b, side) and comps[b].colour != "grey"])
    elif kind == "take_grey":
        idx = st.by_location(state)
        comps = st.data().blocks
        _take(state, frame, [b for b in st.blocks_at(state, frame["origin"], side, idx)
                             if movable(state, b, side) and comps[b].colour == "grey"], grey=True)
    elif kind == "done_location":
        _done_location(state, frame)
    elif kind == "force_march":
        frame["pay"] = 1
        frame["pay_for"] = "force"
    elif kind == "step":
        _step(state, frame, action["to"])
    elif kind == "pick_up":
        _pick_up(state, frame, action["block"])
    elif kind == "drop_off":
        _drop_off(state, frame, action["block"])
    elif kind == "end_move":
        _end_move(state, frame)
    else:  # pragma: no cover
        raise RuleError(f"unknown movement order {kind}", RULE)


def advance(state: State, frame: dict[str, Any]) -> bool:
    returns = frame.pop("returns", None)
    # special.needs_frame asked only when a 10.12 placement is pending at all (st.peek of
    # "boabdil", inline: this runs after every movement step, and a call is a thousand
    # instructions)
    boabdil = dict.get(state, "boabdil") or (state if state.__class__ is dict else state._src)["boabdil"]  # type: ignore[attr-defined]
    if boabdil["pending"] is not None and special.needs_frame(state):
        special.push_pending(state)
        return True
    if returns:
        return True
    if frame["mstack"] is None and frame["origin"] is not None and frame["pay"] == 0 \
            and not _origin_actions_left(state, frame):
        _done_location(state, frame)      # nothing left to move from this origin
        return True
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    if frame["level"] is None:
        return "Movement Phase: buy movement with 0, 1 or 2 cards (7.1)."
    if frame["pay"]:
        return "Choose the card to discard."
    ms = frame["mstack"]
    if ms is not None:
        return (f"Move the stack of {plural(len(ms['blocks']), 'block')} now at {_name(ms['at'])} "
                f"({plural(ms['steps'], 'location')} so far).")
    if frame["origin"]:
        return f"Moves from {_name(frame['origin'])}: take blocks to form a stack (7.3.1)."
    return _top_prompt(state, frame)


def _top_prompt(state: State, frame: dict[str, Any]) -> str:
    """The heading of the top menu, built from the entries it heads: a player told to
    "activate a location" above a list of discards (no movement bought, or no activation
    left) is misled (issue 38)."""
    kinds = {a["type"] for a in _top_actions(state, frame, sorted(set(state["hands"][frame["side"]])))}
    if frame["level"] == "none":
        head = "Movement Phase, no movement"
    elif frame["acts"] is None:
        head = "Movement Phase"
    elif frame["acts"] == 0:
        head = "Movement Phase: no activations left"
    else:
        head = f"Movement Phase: {plural(frame['acts'], 'activation')} left"
    choices = []
    if "activate" in kinds or "activate_sea" in kinds:
        choices.append("activate a location or sea zone")
    if "muster" in kinds:
        choices.append("muster")
    if "exchange" in kinds:
        choices.append("discard cards to exchange them")
    if "palace_guard" in kinds:
        choices.append("sacrifice a card for the Nasrid Palace Guard")
    choices.append("end the phase")
    listed = choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]
    return f"{head}; {listed}."


def choose_weight(action: Action) -> float:
    """Built-in player: prefer moving on over ending, but end often enough to finish."""
    return {"buy": 1.0, "exchange": 0.1, "palace_guard": 0.05, "end_movement": 0.3,
            "done_location": 0.3, "end_move": 0.6, "step": 2.0, "take": 1.0, "take_all": 1.0,
            "force_march": 0.1, "pick_up": 0.2, "drop_off": 0.2}.get(action["type"], 1.0)


# ---------------------------------------------------------------- buying movement (7.1)

def _buy(state: State, frame: dict[str, Any], level: str, free: bool = False) -> None:
    side = frame["side"]
    frame["level"] = level
    if level == "none":
        frame.update(acts=0, sea=0, muster=0)
    elif level == "minimal":
        frame.update(acts=1, sea=1, muster=1)
    elif level == "limited":
        frame.update(acts=3, sea=1, muster=1)
    else:
        frame.update(acts=None, sea=None, muster=1)
    frame["pay"] = 0 if free else LEVELS[level]
    frame["pay_for"] = "level" if frame["pay"] else None
    names = {"none": "No movement", "minimal": "Minimal movement", "limited": "Limited movement",
             "total": "Total movement"}
    if free:
        st.log(state, f"{side.capitalize()} has {names[level]} (11.3).")
        return
    n = LEVELS[level]
    st.log(state, f"{side.capitalize()} buys {names[level]} ({n} card{'s' if n != 1 else ''}, 7.1).")


def _pay(state: State, frame: dict[str, Any], card: str) -> None:
    side = frame["side"]
    why = frame["pay_for"]
    text = {"level": "(movement, 7.1)", "force": "(force march, 7.3.3)",
            "palace": "(Nasrid Palace Guard, 10.10)"}[why]
    st.discard_cards(state, side, [card], text)
    frame["pay"] -= 1
    if frame["pay"] > 0:
        return
    frame["pay_for"] = None
    if why == "force":
        ms = _own_stack(frame)
        ms["force"] = True
        st.log(state, f"{side.capitalize()} force marches the stack at {_name(ms['at'])}.")
    elif why == "palace":
        special.palace_guard_enter(state, frame["palace_block"])
        if st.enemy_units_at(state, "granada", "muslim"):
            overrun.resolve(state, "granada", "muslim")
        st.settle_location(state, "granada")
        frame["palace_block"] = None


def _own_stack(frame: dict[str, Any]) -> dict[str, Any]:
    """The moving stack, copied before a change: apply copies a movement frame one level deep
    only (:data:`EDITS_BY_REPLACING`), so its stack may still be the input state's."""
    # a deep copy of its known shape (module docstring): the per-block records and the
    # segments used are its only containers; the generic deep copy, a call per container,
    # was the largest part of applying a step of a move (issue 33)
    old = frame["mstack"]
    ms: dict[str, Any] = old.copy()
    ms["blocks"] = {bid: info.copy() for bid, info in old["blocks"].items()}
    segs = old.get("segs")
    if segs is not None:
        ms["segs"] = {start: used[:] for start, used in segs.items()}
    frame["mstack"] = ms
    return ms


def _use_activation(frame: dict[str, Any], sea: bool) -> None:
    if frame["acts"] is not None:
        frame["acts"] -= 1
    if sea and frame["sea"] is not None:
        frame["sea"] -= 1


def _end_phase(state: State, frame: dict[str, Any]) -> None:
    side = frame["side"]
    if frame["redraw"]:
        st.draw_cards(state, side, frame["redraw"])
    st.log(state, f"{side.capitalize()} ends the Movement Phase.")
    st.finish_frame(state, {"kind": "movement", "side": side})


# ---------------------------------------------------------------- land movement (7.3)

def _activate(state: State, frame: dict[str, Any], loc: str) -> None:
    frame["activated"] = [*frame["activated"], loc]
    _use_activation(frame, sea=False)
    frame["origin"] = loc
    state["log"].append({"text": f"{frame['side'].capitalize()} activates {_name(loc)}."})   # st.log, inline


def _origin_actions_left(state: State, frame: dict[str, Any]) -> bool:
    """A block of the side at the activated location may still move (movable) or leave its
    castle. Asked after every movement step: a read-only look at the blocks there (the
    location index; dict.__getitem__: apply's copy-on-access records are not copied for it)."""
    side = frame["side"]
    own = st.owners()
    # st.peek, inline (the records are never empty)
    blocks = dict.get(state, "blocks") or (state if state.__class__ is dict else state._src)["blocks"]  # type: ignore[attr-defined]
    for b in st.by_location(state).get(frame["origin"], ()):
        rec = dict.__getitem__(blocks, b)
        if not rec["moved"] and not rec["fresh"] \
                and (rec["inside"] or rec["carried_by"] is None) and own[b] == side:
            return True
    return False


def _done_location(state: State, frame: dict[str, Any]) -> None:
    frame["origin"] = None


def _leave_castle(state: State, frame: dict[str, Any]) -> None:
    side = frame["side"]
    loc = frame["origin"]
    for b in st.blocks_at(state, loc, side):
        rec = state["blocks"][b]
        if rec["inside"]:
            rec["inside"] = False
            rec["moved"] = True
    st.log(state, f"{side.capitalize()} leaves the castle of {_name(loc)} to fight outside (7.3.2).")
    st.settle_location(state, loc)


def _new_info(state: State, loc: str, side: str, grey: bool) -> dict[str, Any]:
    return {"dist": 0, "maxg": 0, "main": True, "start": loc,
            "lead": has_leadership(state, loc, side, grey)}


def _take(state: State, frame: dict[str, Any], blocks: list[str], grey: bool = False) -> None:
    side = frame["side"]
    origin = frame["origin"]
    if frame["mstack"] is None:
        ms = frame["mstack"] = {"blocks": {}, "at": origin, "steps": 0, "picked": None,
                                "dropped": None, "force": False, "grey": grey, "declared": False}
    else:
        ms = _own_stack(frame)
    for b in blocks:
        ms["blocks"][b] = _new_info(state, origin, side, ms["grey"])


def _declare_leader(state: State, frame: dict[str, Any], ms: dict[str, Any], loc: str) -> None:
    """7.3.4: a leader used to travel further is declared (revealed) to the opponent."""
    side = frame["side"]
    if structural_leadership(state, loc, side):
        return
    leaders = leaders_at(state, loc, side, ms["grey"])
    if not leaders:
        return
    in_stack = [b for b in leaders if b in ms["blocks"]]
    chosen = (in_stack or leaders)[0]
    if not state["blocks"][chosen]["revealed"] or chosen not in state["known"][st.other(side)]:
        st.reveal(state, chosen, "leader declared for movement, 7.3.4")
    # the declaration is momentary: the block stands up again
    if st.data().blocks[chosen].colour != "grey":
        state["blocks"][chosen]["revealed"] = False


def _step(state: State, frame: dict[str, Any], to: str) -> None:
    side = frame["side"]
    ms = _own_stack(frame)
    at = ms["at"]
    kind = _road_kind(at, to)
    main = is_main(kind, side, ms["grey"])
    size = len(ms["blocks"])
    declared_at: set[str] = set()
    # allowance() without leadership, inline (a dict and two calls less per block)
    force = 1 if ms["force"] else 0
    records = state["blocks"]
    for bid, info in ms["blocks"].items():
        dist = info["dist"] = info["dist"] + 1
        info["main"] = info["main"] and main
        maxg = info["maxg"] = max(info["maxg"], size)
        if dist > min(MAX_MOVE, 1 + (1 if info["main"] else 0) + force - _PENALTY[min(maxg, 12)]) \
                and info["start"] not in declared_at:
            declared_at.add(info["start"])
            _declare_leader(state, frame, ms, info["start"])
        rec = records[bid]
        rec["loc"] = to
        rec["moved"] = True
    segs = ms.setdefault("segs", {})
    road = segment(at, to)
    for info in ms["blocks"].values():
        mine = segs.setdefault(info["start"], [])
        if road not in mine:
            mine.append(road)
    # the placement is final for this step: one index serves every check below (settling
    # changes control and the "inside" flags, never where a block is)
    idx = st.by_location(state)
    st.settle_location(state, at, idx)   # an emptied castle reverts to its alignment (4.3)
    ms["at"] = to
    ms["steps"] += 1
    st.add_entry(state, to, side, at)
    # 7.3.2 / 7.4: enemies stop the move unless they are overrun
    if st.enemy_units_at(state, to, side, idx):
        if overrun.resolve(state, to, side):
            st.pass_through(state, to, side, ms["grey"])
            return
        st.log(state, f"{side.capitalize()} moves {plural(size, 'block')} from {_name(at)} to {_name(to)} "
                      "and must stop: enemy units (7.3.2).")
        st.settle_location(state, to)
        _finish_stack(state, frame)
        return
    if to == st.ALHAMBRA and st.guard_defends(state, to, side, idx):
        # 10.10: the Nasrid Palace Guard will appear when the battle is declared; Granada is
        # attacked, as if enemy units stood there (RULINGS.md 30)
        st.log(state, f"{side.capitalize()} moves {plural(size, 'block')} from {_name(at)} to {_name(to)} "
                      "and must stop: the Nasrid Palace Guard defends Granada (10.10).")
        _finish_stack(state, frame)
        return
    # st.pass_through: neither enemies (above) nor the Palace Guard (guard_defends) stand there
    st.take_control(state, to, side, ms["grey"])
    # st.log, inline (the last of a step's calls that need not be one)
    state["log"].append({"text": f"{side.capitalize()} moves {plural(size, 'block')} from {_name(at)} to {_name(to)}."})


def _pick_up(state: State, frame: dict[str, Any], bid: str) -> None:
    side = frame["side"]
    ms = _own_stack(frame)
    ms["picked"] = ms["at"]
    ms["picked_step"] = ms["steps"]
    ms["blocks"][bid] = _new_info(state, ms["at"], side, ms["grey"])
    state["blocks"][bid]["moved"] = True
    st.log(state, f"{side.capitalize()} picks up a block at {_name(ms['at'])}.")


def _drop_off(state: State, frame: dict[str, Any], bid: str) -> None:
    side = frame["side"]
    ms = _own_stack(frame)
    ms["dropped"] = ms["at"]
    ms["dropped_step"] = ms["steps"]
    del ms["blocks"][bid]
    state["blocks"][bid]["moved"] = True
    st.log(state, f"{side.capitalize()} drops off a block at {_name(ms['at'])}.")


def _end_move(state: State, frame: dict[str, Any]) -> None:
    ms = frame["mstack"]
    if ms["steps"] == 0:
        # blocks taken but not moved were part of no move (7.3.1): they stay free
        frame["mstack"] = None
        return
    _finish_stack(state, frame)


def _finish_stack(state: State, frame: dict[str, Any]) -> None:
    """The stack's move is over: its blocks have moved, and the road segments they used are
    closed to later blocks of the same initial location (7.3.1)."""
    ms = frame["mstack"]
    for bid in ms["blocks"]:
        state["blocks"][bid]["moved"] = True
    if ms.get("segs"):
        segments = frame["segments"] = {start: used[:] for start, used in frame["segments"].items()}
        for start, segs in ms["segs"].items():
            used = segments.setdefault(start, [])
            used.extend(x for x in segs if x not in used)
    frame["mstack"] = None
