"""Inner rondel, carving Poems: the Carve action (Minor Poems in blue or red, Major Poems
in grey) and the Reactivate action (Artisanal Labour is in :mod:`.turn`).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.sabika import names as N
from engine.sabika.data import DATA, MAJOR_POEMS, MATERIALS, POEMS
from engine.sabika.names import describe_bonus
from engine.sabika.state import (
    R_POEMS,
    R_REACTIVATE,
    Decision,
    active_effect,
    funds,
    log,
    opt,
    push,
    push_bonus,
    push_pay,
)
from engine.text import plural


def carve_cost(p: dict[str, Any], colour: str, event: str | None = None) -> int:
    """What carving a Poem of ``colour`` costs; ``event`` is the active Event's effect, if any."""
    if colour == "blue":
        cost = 1 + len(p["blue"])
    elif colour == "red":
        cost = 2 + len(p["red"])
    else:
        cost = 4 + len(p["grey"])
    if event == "costly_carving":
        cost += 1
    elif event == "patron":
        cost -= 1
    return max(0, cost)


def carve_options(s: State, role: str) -> list[Action]:
    p = s["players"][role]
    out = []
    for i, c in enumerate(s["poem_display"]):
        if c is None:
            continue
        card = POEMS[c]
        for colour in ("blue", "red"):
            if funds(p) >= carve_cost(p, colour, active_effect(s)):
                what = DATA["minor_poems"]["blue_effects"][card["blue"]] if colour == "blue" else describe_bonus(card["red"])
                out.append(opt("poem", f"Minor Poem in {colour} ({N.cost(carve_cost(p, colour, active_effect(s)))}): {what} [{c}]",
                                slot=i, colour=colour))
    if len(p["grey"]) < 2 and funds(p) >= carve_cost(p, "grey", active_effect(s)):
        for i, c in enumerate(s["major_poems"]):
            if c is not None:
                crit = DATA["major_poems"]["criteria"][MAJOR_POEMS[c]["crit"]]
                out.append(opt("poem", f"Major Poem in grey ({N.cost(carve_cost(p, 'grey', active_effect(s)))}): {MAJOR_POEMS[c]['pp']} PP {crit} [{c}]",
                                slot=i, colour="grey"))
    return out


def _o_carve(s: State, dec: dict[str, Any]) -> list[Action]:
    return carve_options(s, dec["role"])


def _o_reactivate(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    return [opt("poem", f"Reapply red Poem: {describe_bonus(POEMS[c]['red'])} [{c}]", card=c) for c in p["red"]]


def _r_carve(s: State, dec: dict[str, Any], a: Action) -> None:
    role, colour = dec["role"], a["colour"]
    p = s["players"][role]
    cost = carve_cost(p, colour, active_effect(s))
    if colour == "grey":
        card = s["major_poems"][a["slot"]]
        s["major_poems"][a["slot"]] = None
    else:
        card = s["poem_display"][a["slot"]]
        s["poem_display"][a["slot"]] = None
    log(s, f"{role} carves {'Major' if colour == 'grey' else 'Minor'} Poem in {colour}, paying {plural(cost, 'Dinar')}: {N.name(card) if colour != 'grey' else N.major_poem(card)}.")
    push(s, {"kind": "effect", "role": role, "effect": {"k": "poem_done"}, "card": card, "colour": colour})
    push(s, {"kind": "scaffold", "role": role, "mode": "poem", "used": [], "base_of": ["gypsum", "wood", "marble"],
             "extra_of": list(MATERIALS), "extras": 1})
    push_pay(s, role, cost, "carving")


def poem_done(s: State, dec: dict[str, Any]) -> None:
    role, card, colour = dec["role"], dec["card"], dec["colour"]
    p = s["players"][role]
    p[colour].append(card)
    if colour == "red":
        push_bonus(s, role, POEMS[card]["red"], "the red Poem")


def _r_reactivate(s: State, dec: dict[str, Any], a: Action) -> None:
    push_bonus(s, dec["role"], POEMS[a["card"]]["red"], "the red Poem reactivated")


DECISIONS: dict[str, Decision] = {
    "carve": Decision(_o_carve, _r_carve, R_POEMS),
    "reactivate": Decision(_o_reactivate, _r_reactivate, R_REACTIVATE),
}
