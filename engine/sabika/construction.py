"""Outer rondel, the Construction action: Major and Minor Constructions built on a scaffold
of Materials (a Poem is carved on one too), the Sultan's Favour a Major Construction
earns, and the Architectural Balances of the row of Minor Constructions.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, State
from engine.sabika import names as N
from engine.sabika.data import BALANCES, DATA, MAJORS, MATERIALS, MINORS, PP_VALUE
from engine.sabika.names import ITEM_NAME, describe_bonus
from engine.sabika.state import (
    R_CONSTRUCTION,
    R_MAJOR,
    R_MINOR,
    Decision,
    blue_effects,
    era,
    event_is,
    funds,
    gain_pp,
    has,
    log,
    opt,
    push,
    push_bonus,
    push_pay,
    take_item,
)


def _o_favour(s: State, dec: dict[str, Any]) -> list[Action]:
    spaces = DATA["favour_track"]["spaces"]
    top = dec["upto"]
    return [opt("favour_bonus", f"Favour space {i + 1}: {describe_bonus(spaces[i])}", space=i) for i in range(top)]


def construct_options(s: State, role: str, refreshed: bool) -> list[Action]:
    p = s["players"][role]
    out = []
    deck_left = len(s["minor_deck"]) + len(s["minor_discard"])
    if not refreshed and funds(p) >= 1 and deck_left >= 4:
        out.append(opt("refresh", "Pay 1 Dinar to replace the 4 Minor Construction cards (earn 1 PP)"))
    if has(p, "gypsum") and s["majors"][str(era(s))]:
        out.append(opt("major", f"Major Construction of Era {'I' * era(s)}"))
    for i, c in enumerate(s["minor_display"]):
        if c is not None and has(p, MINORS[c]["base"]):
            out.append(opt("minor", f"Minor Construction: {N.tagged(c, N.minor)}", slot=i))
    return out


def _o_construct(s: State, dec: dict[str, Any]) -> list[Action]:
    out = construct_options(s, dec["role"], dec["refreshed"])
    if not any(a["type"] in ("major", "minor") for a in out):
        out.append(opt("skip", "Build nothing"))
    return out


def _o_scaffold(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    used = dec["used"]
    if not used:
        return [opt("use", f"Use {ITEM_NAME[m]} as the base Material", material=m)
                for m in dec["base_of"] if has(p, m)]
    out = []
    if len(used) - 1 < dec["extras"]:
        out = [opt("use", f"Add 1 {ITEM_NAME[m]} ({PP_VALUE[m]} PP)", material=m)
               for m in dec["extra_of"] if m not in used and has(p, m)]
    return out + [opt("done", f"Finish with {', '.join(ITEM_NAME[m] for m in used)}")]


def _o_major_tile(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("tile", f"Major Construction: {N.tagged(t, N.major)}", tile=t)
            for t in s["majors"][str(era(s))]]


def _o_place_minor(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("place", place_label(s["players"][dec["role"]]["row"], dec["card"], side), side=side)
            for side in ("left", "right")]


def half(card: str, side: str) -> str | None:
    """The colour of a card's half artwork on ``side``; None is the balance card's wild half."""
    if card in BALANCES:
        return BALANCES[card]["left"] if side == "left" else None
    return str(MINORS[card][side])


def balance_colour(row: list[str], card: str, side: str) -> str | None:
    """The colour of the artwork completed by placing ``card`` at ``side``, if it is of a single colour."""
    if side == "left":
        a, b = half(card, "right"), half(row[0], "left")
    else:
        a, b = half(row[-1], "right"), half(card, "left")
    if a is None:
        return b
    if b is None or a == b:
        return a
    return None


def place_label(row: list[str], card: str, side: str) -> str:
    """Where a Minor Construction card goes and what that end holds: the card at that end of the
    row, the colour of its half the new card meets, and the Architectural Balance it completes."""
    end = row[0] if side == "left" else row[-1]
    colour = half(end, side)
    meets = "the wild half" if colour is None else f"the {colour} half"
    balance = balance_colour(row, card, side)
    done = f"completes a {balance} Architectural Balance" if balance else "no Architectural Balance"
    return f"Place it at the {side} end of your row, against {meets} of {N.name(end)}: {done}"


def advance_favour(s: State, role: str) -> None:
    p = s["players"][role]
    last = len(DATA["favour_track"]["spaces"])
    if p["favour"] >= last:
        gain_pp(s, role, 1, "Sultan's Favour, last space")
        push(s, {"kind": "favour", "role": role, "upto": last - 1})
        return
    p["favour"] += 1
    log(s, f"{role} advances to space {p['favour']} of the Sultan's Favour track.")
    if p["favour"] == last:
        gain_pp(s, role, 1, "Sultan's Favour, last space")
        push(s, {"kind": "favour", "role": role, "upto": last - 1})
    else:
        push(s, {"kind": "favour", "role": role, "upto": p["favour"]})


def _r_favour(s: State, dec: dict[str, Any], a: Action) -> None:
    bonus = DATA["favour_track"]["spaces"][a["space"]]
    push_bonus(s, dec["role"], bonus, f"Sultan's Favour space {a['space'] + 1}")


def _r_construct(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "skip":
        log(s, f"{role} builds nothing.")
        return
    if a["type"] == "refresh":
        s["minor_discard"].extend(c for c in s["minor_display"] if c is not None)
        s["minor_display"] = [draw_minor(s) for _ in range(4)]
        s["reveals"] += 1
        log(s, f"{role} pays 1 Dinar to replace the Minor Construction cards: {'; '.join(N.minor(c) for c in s['minor_display'] if c)}.")
        gain_pp(s, role, 1, "new Minor Construction cards")
        push(s, {"kind": "construct", "role": role, "refreshed": True})
        push_pay(s, role, 1, "new Minor Construction cards")
        return
    if a["type"] == "major":
        take_item(s, p, "gypsum")
        push(s, {"kind": "major_tile", "role": role})
        push(s, {"kind": "scaffold", "role": role, "mode": "major", "used": ["gypsum"], "base_of": ["gypsum"],
                 "extra_of": ["wood", "marble", "ceramic"], "extras": 2})
        return
    card = s["minor_display"][a["slot"]]
    s["minor_display"][a["slot"]] = None
    base = MINORS[card]["base"]
    take_item(s, p, base)
    push(s, {"kind": "place_minor", "role": role, "card": card})
    push(s, {"kind": "scaffold", "role": role, "mode": "minor", "used": [base], "base_of": [base],
             "extra_of": list(MATERIALS), "extras": 2, "card": card})


def draw_minor(s: State) -> str | None:
    if not s["minor_deck"]:
        s["minor_deck"] = s["minor_discard"]  # discards are shuffled into a new draw deck
        s["minor_discard"] = []
        rng.shuffle(s, s["minor_deck"])
    return s["minor_deck"].pop() if s["minor_deck"] else None


def _r_scaffold(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "use":
        take_item(s, p, a["material"])
        nxt = dict(dec)
        nxt["used"] = [*dec["used"], a["material"]]
        push(s, nxt)
        return
    pp = sum(PP_VALUE[m] for m in dec["used"])
    what = {"major": "Major Construction", "minor": "Minor Construction", "poem": "Poem"}[dec["mode"]]
    gain_pp(s, role, pp, f"{what} with {', '.join(ITEM_NAME[m] for m in dec['used'])}")
    if dec["mode"] == "major" and "major_pp" in blue_effects(p):
        gain_pp(s, role, 2, "blue Poem")
    if dec["mode"] == "major" and event_is(s, role, "sultan_grace"):
        gain_pp(s, role, 2, "Event")


def _r_major_tile(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    t = a["tile"]
    s["majors"][str(era(s))].remove(t)
    s["players"][role]["majors"].append(t)
    log(s, f"{role} builds a {N.tagged(t, N.major)}.")
    push_bonus(s, role, MAJORS[t]["bonus"], f"the {MAJORS[t]['type'].capitalize()}")
    advance_favour(s, role)  # the favour is earned first, then the construction bonus (left to right)


def _r_place_minor(s: State, dec: dict[str, Any], a: Action) -> None:
    role, card = dec["role"], dec["card"]
    p = s["players"][role]
    p["minors"].append(card)
    colour = balance_colour(p["row"], card, a["side"])
    if a["side"] == "left":
        p["row"].insert(0, card)
    else:
        p["row"].append(card)
    log(s, f"{role} places a {N.minor(card)} at the {a['side']} of the row.")
    if colour is not None:
        p["balances"].append(colour)
        log(s, f"{role} achieves an Architectural Balance in {colour}.")
        push_bonus(s, role, DATA["balances"]["bonus"][colour], f"{colour} Architectural Balance")


DECISIONS: dict[str, Decision] = {
    "favour": Decision(_o_favour, _r_favour, R_MAJOR),
    "construct": Decision(_o_construct, _r_construct, R_CONSTRUCTION),
    "scaffold": Decision(_o_scaffold, _r_scaffold, R_CONSTRUCTION),
    "major_tile": Decision(_o_major_tile, _r_major_tile, R_MAJOR),
    "place_minor": Decision(_o_place_minor, _r_place_minor, R_MINOR),
}
