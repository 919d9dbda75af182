"""Section 10 special rules outside battles: the Nasrid Palace Guard entering Granada (10.10)
and the Boabdil Mixed Army (10.12): capture of Boabdil, the grey army placed in a "B" town,
its alliance with the Christians for four (then two) full turns, its automatic return at the
beginning of 1491-1492, the second capture (four grey blocks) and the third defeat.

``state["boabdil"]``: ``captures`` (how many times Boabdil was captured), ``allied_until``
(index in state.TURNS of the turn at whose END the grey army returns), ``pending`` (None, or
"place": the Christian places the grey army now; "wait": every "B" town is enemy-occupied,
placement waits for the beginning of a Christian Movement Phase; "return": the Muslim places
the black Boabdil), ``grey`` (the grey blocks in play).

Frames: ``{"module": "special", "kind": "grey_place"}`` (Christian chooses a B town) and
``{"module": "special", "kind": "boabdil_return"}`` (Muslim chooses a location he controls).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, RuleError, State
from engine.granada import state as st
from engine.text import plural

RULE = "10.12"
BOABDIL = "boabdil"              # special of the black Boabdil block
GREY_TURNS = {1: 4, 2: 2}        # full turns of alliance after the 1st / 2nd capture


def _boabdil_black() -> str:
    return next(b for b, blk in st.data().blocks.items() if blk.special == BOABDIL)


def grey_blocks() -> list[str]:
    return sorted(b for b, blk in st.data().blocks.items() if blk.colour == "grey")


def b_towns() -> list[str]:
    return sorted(loc for loc, L in st.data().locations.items() if L.b_town)


# ---------------------------------------------------------------- 10.10 Nasrid Palace Guard

def palace_box(state: State) -> list[str]:
    # the location index, not a scan of the records: during apply a scan would copy them all
    return sorted(st.by_location(state).get("palace", ()))


def palace_guard_enter(state: State, bid: str) -> None:
    """One card sacrificed during the Movement Phase: one guard block enters Granada; it may
    not move this turn (10.10). Entering where Christians stand joins the fight there: the
    caller (movement.py) then lets the arriving guard overrun them if it may (7.4)."""
    rec = state["blocks"][bid]
    rec.update(loc="granada", fresh=True, moved=True, inside=False, revealed=False)
    st.log(state, f"{st.block_name(bid)} enters Granada from the Nasrid Palace Guard box (10.10).")


def palace_guard_join(state: State, loc: str, attacker: str) -> None:
    """Christians attack Granada: at the declaration every block still in the box appears in
    Granada and joins the battle, with no card discarded (10.10). This happens also when no
    Muslim block stood there: Christians reaching Granada while the box holds blocks must
    stop and declare this battle (state.guard_defends, RULINGS.md 30)."""
    if loc != "granada" or attacker != "christian":
        return
    box = palace_box(state)
    for bid in box:
        state["blocks"][bid].update(loc="granada", fresh=True, moved=True, inside=False, revealed=False)
    if box:
        st.log(state, f"The Nasrid Palace Guard ({plural(len(box), 'block')}) appears in Granada (10.10).")


# ---------------------------------------------------------------- 10.12 Boabdil Mixed Army

def grey_in_play(state: State) -> bool:
    """The Boabdil Mixed Army is allied to the Christians (on the map or waiting aside)."""
    return bool(st.peek(state, "boabdil")["grey"])     # (a read: apply copies nothing for it)


def capture_boabdil(state: State) -> None:
    """The Muslims lost a land battle in which every block accompanying Boabdil was
    eliminated (10.12.1). First capture: the six grey blocks come to the Christians for four
    full turns; second: Boabdil and the three Banu Sarray grey blocks for two full turns;
    third: Boabdil is removed from play."""
    bo = state["boabdil"]
    k = _boabdil_black()
    rec = state["blocks"][k]
    bo["captures"] += 1
    st.reveal(state, k)
    rec.update(inside=False, carried_by=None)
    if bo["captures"] >= 3:
        rec["loc"] = "removed"
        st.log(state, "Boabdil is defeated a third time and removed from play (10.12.1).")
        return
    rec["loc"] = "captured"
    comps = st.data().blocks
    if bo["captures"] == 1:
        grey = grey_blocks()
    else:
        grey = [b for b in grey_blocks() if comps[b].leader or comps[b].faction == "banu_sarray"]
    bo["grey"] = grey
    for b in grey:
        state["blocks"][b].update(loc="aside", revealed=True, inside=False, carried_by=None,
                                  moved=True, fresh=True)
    bo["allied_until"] = st.turn_index(state) + GREY_TURNS[bo["captures"]]
    st.void_capture_card(state)
    bo["pending"] = "place"
    st.log(state, f"Boabdil is captured (capture {bo['captures']})! The Boabdil Mixed Army "
                  f"({len(grey)} grey blocks) joins the Christians until the end of "
                  f"{st.index_label(bo['allied_until'])} (10.12.1).")


def free_b_towns(state: State) -> list[str]:
    idx = st.by_location(state)
    return [t for t in b_towns() if st.units_at(state, t, "muslim", idx) == 0]


def needs_frame(state: State) -> bool:
    """Is a 10.12 placement due now (checked by the core frames between decisions)?"""
    # a look, not copied for it (st.peek, inline: "boabdil" is never empty)
    pending = (dict.get(state, "boabdil") or (state if state.__class__ is dict else state._src)["boabdil"])["pending"]  # type: ignore[attr-defined]
    if pending == "place":
        if free_b_towns(state):
            return True
        state["boabdil"]["pending"] = "wait"
        st.log(state, "Every B town is occupied by Muslims: the grey army waits aside (10.12.1).")
        return False
    if pending == "wait":
        f = st.top(state)
        return bool(f is not None and f.get("kind") == "movement" and f["side"] == "christian"
                    and f["level"] is None and free_b_towns(state))
    return pending == "return"


def push_pending(state: State) -> None:
    pending = state["boabdil"]["pending"]
    kind = "boabdil_return" if pending == "return" else "grey_place"
    st.push_frame(state, {"module": "special", "kind": kind})


def grey_defeated(state: State) -> None:
    """Grey Boabdil lost a combat against the Muslims: the alliance ends now (10.12.1)."""
    if grey_in_play(state):
        return_to_muslims(state, "Boabdil lost a combat against the Muslims")


def return_to_muslims(state: State, why: str) -> None:
    """All grey blocks (eliminated ones too) back to their box; the black Boabdil comes back
    to a location the Muslim player controls; control pieces removed by the grey army are
    restored by the troops present or natural alignment (10.12.1-10.12.2)."""
    bo = state["boabdil"]
    left = set()
    for b in grey_blocks():
        rec = state["blocks"][b]
        if rec["loc"] in st.data().locations:
            left.add(rec["loc"])
        rec.update(loc="boabdil_box", revealed=True, inside=False, carried_by=None)
    bo["grey"] = []
    bo["allied_until"] = None
    for loc, L in st.data().locations.items():
        if loc in left:
            st.settle_location(state, loc)
        if state["control"].get(loc) is None or (L.castle and state["castle"].get(loc) is None):
            idx = st.by_location(state)
            chris = st.units_at(state, loc, "christian", idx)
            mus = st.units_at(state, loc, "muslim", idx)
            side = "christian" if chris and not mus else "muslim" if mus and not chris else st.natural(loc)
            if state["control"].get(loc) is None:
                state["control"][loc] = side
            if L.castle and state["castle"].get(loc) is None:
                state["castle"][loc] = side
    bo["pending"] = "return"
    st.log(state, f"{why}: the Boabdil Mixed Army returns to its box and Boabdil fights for the "
                  "Muslims again (10.12.1).")


def end_of_turn(state: State) -> None:
    """10.12.1: the grey army leaves at the END of the marked turn."""
    bo = st.peek(state, "boabdil")      # (a read: apply copies nothing for it)
    if grey_in_play(state) and bo["allied_until"] is not None and st.turn_index(state) >= bo["allied_until"]:
        return_to_muslims(state, "The alliance is over")


def start_of_year(state: State) -> None:
    """10.12.1: at the beginning of 1491-1492 Boabdil switches back automatically."""
    if state["year"] == len(st.YEARS) - 1 and grey_in_play(state):
        return_to_muslims(state, "1491-1492 begins")


def muslim_locations(state: State) -> list[str]:
    return sorted(loc for loc in st.data().locations if state["control"].get(loc) == "muslim")


# ---------------------------------------------------------------- frame protocol

def active(state: State, frame: dict[str, Any]) -> list[str]:
    return ["muslim"] if frame["kind"] == "boabdil_return" else ["christian"]


def actions(state: State, role: str, frame: dict[str, Any]) -> list[Action]:
    d = st.data()
    if frame["kind"] == "grey_place":
        return [{"type": "place_grey", "loc": t, "label": f"Place the Boabdil Mixed Army at "
                 f"{d.locations[t].name}"} for t in free_b_towns(state)]
    return [{"type": "place_boabdil", "loc": loc, "label": f"Place Boabdil at {d.locations[loc].name}"}
            for loc in muslim_locations(state)]


def apply(state: State, role: str, action: Action, frame: dict[str, Any]) -> None:
    d = st.data()
    loc = action["loc"]
    bo = state["boabdil"]
    if action["type"] == "place_grey":
        for b in bo["grey"]:
            state["blocks"][b].update(loc=loc, fresh=True, moved=True, inside=False)
        st.pass_through(state, loc, "christian", True)
        st.settle_location(state, loc)
        bo["pending"] = None
        st.log(state, f"The Christian player places the Boabdil Mixed Army at {d.locations[loc].name} "
                      "(10.12.1).")
    elif action["type"] == "place_boabdil":
        k = _boabdil_black()
        state["blocks"][k].update(loc=loc, fresh=True, moved=True, inside=False, revealed=False)
        if k not in state["known"]["christian"]:
            state["known"]["christian"].append(k)
            state["known"]["christian"].sort()
        bo["pending"] = None
        st.log(state, f"The Muslim player places Boabdil at {d.locations[loc].name} (10.12.1).")
        st.settle_location(state, loc)
    else:  # pragma: no cover
        raise RuleError("unknown order", RULE)
    st.pop_frame(state)


def advance(state: State, frame: dict[str, Any]) -> bool:
    if frame["kind"] == "grey_place" and not free_b_towns(state):
        state["boabdil"]["pending"] = "wait"
        st.pop_frame(state)
        return True
    if frame["kind"] == "boabdil_return" and not muslim_locations(state):
        state["boabdil"]["pending"] = None
        state["blocks"][_boabdil_black()]["loc"] = "removed"
        st.log(state, "The Muslims control no location: Boabdil cannot come back (10.12.1).")
        st.pop_frame(state)
        return True
    return False


def prompt(state: State, role: str, frame: dict[str, Any]) -> str:
    if frame["kind"] == "grey_place":
        return "Place the Boabdil Mixed Army in a B town without Muslim units (10.12.1)."
    return "Place the black Boabdil block in a location you control (10.12.1)."
