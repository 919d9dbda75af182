"""1212 Las Navas de Tolosa for the search: canonical information sets and an evaluation.

The canonical form mirrors :func:`engine.navas.redeal.redeal` with every shuffle replaced by
a sort: the same hidden collections (the opponent's hand and face-down initiative card less
the cards the role knows are there, the draw pile when it came from a shuffle, the
opponent's special cards, his order being composed, the generator) take one fixed
arrangement, so two states the role cannot tell apart have the same canonical form. The test
``canonical(s) == canonical(redeal(s, role, k))`` (tests/engine/ai) keeps the two in step.

The evaluation reads the victory conditions (engine/navas/victory.py): the game is won by
holding twice the opponent's zones, by the Christians killing al-Nasir, or by the Muslims
keeping the Christians out of the Muslim area with at most four zones. It scores the zone
balance against the "twice as many" line, the strength left on the board, a Christian
foothold in the Muslim area and the Christian units standing next to al-Nasir.
"""

from __future__ import annotations

import json
import math
from typing import Any

from engine.ai.adapters import Adapter, Budget
from engine.api import State, clone
from engine.navas.core import CATALOG, OTHER, occupancy
from engine.navas.data import ahead, in_muslim_area, unit
from engine.rng import seed_state


def _order(items: list[Any]) -> list[Any]:
    return sorted(items, key=lambda c: json.dumps(c, sort_keys=True))


def canonical(state: State, role: str) -> State:
    s: State = clone(state)
    opp = OTHER[role]
    ini = s["initiative"]
    face_down = ini[opp] is not None and not ini["revealed"]
    hidden = list(s["hands"][opp]) + ([ini[opp]] if face_down else [])
    known = [c for c in s["known"][role] if c in hidden]
    unknown = [c for c in hidden if c not in known]
    pool = _order(unknown + ([] if s["deck_known"] else list(s["deck"])))
    holding = _order(known + pool[: len(unknown)])
    rest = pool[len(unknown):]
    if face_down:
        ini[opp] = holding.pop()
    s["hands"][opp] = holding
    if not s["deck_known"]:
        s["deck"] = rest
    theirs = s["specials"][opp]
    cards = _order(theirs["hand"] + theirs["discarded"] + theirs["reserve"])
    n_hand, n_disc = len(theirs["hand"]), len(theirs["discarded"])
    theirs["hand"], theirs["discarded"], theirs["reserve"] = (
        cards[:n_hand], cards[n_hand:n_hand + n_disc], cards[n_hand + n_disc:])
    pending = s["pending"]
    if pending is not None and pending["role"] == opp and pending["kind"] in ("zone", "units"):
        s["pending"] = None
    s["rng"] = seed_state(0)
    return s


NASIR = next(u.id for u in CATALOG.units.values() if u.kind == "al-nasir")


def evaluate(state: State) -> dict[str, float]:
    """The Christian's and the Muslim's chances, from the board alone."""
    occ = occupancy(state)
    units = state["units"]
    zones = {"christian": 0, "muslim": 0}
    power = {"christian": 0, "muslim": 0}
    foothold = False
    side_of: dict[str, str] = {}
    for zone, ids in occ.items():
        side = unit(ids[0]).side
        side_of[zone] = side
        zones[side] += 1
        power[side] += sum(units[u]["power"] for u in ids)
        if side == "christian" and in_muslim_area(zone):
            foothold = True
    zc, zm = zones["christian"], zones["muslim"]
    x = 6.0 * (zc - zm) / max(1, zc + zm)
    x += 3.0 * (power["christian"] - power["muslim"]) / max(1, power["christian"] + power["muslim"])
    x += 0.5 if foothold else -0.5
    camp = units[NASIR]["zone"]
    if camp is not None:
        threat = sum(1 for z, side in side_of.items() if side == "christian" and ahead(z) == camp)
        x += 0.6 * threat
    chance = 1.0 / (1.0 + math.exp(-x))
    return {"christian": chance, "muslim": 1.0 - chance}


# Calibrated on the 2-core reference machine: one iteration takes a median 5.6 ms of CPU
# (time.process_time over the searched decisions of two easy-player games, 26 Nov 2026), so
# hard is about 2 s a decision and normal about 0.5 s; ``alcazaba bench --ai`` reports the
# real figure (ai.think_s.navas.<level>).
ADAPTER = Adapter(
    canonical=canonical,
    evaluate=evaluate,
    budgets={"normal": Budget(iterations=90, depth=24), "hard": Budget(iterations=360, depth=24)},
)
