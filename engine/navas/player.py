"""The built-in player: a plain heuristic that attacks when the odds look good.

It rates each order by its expected gain (cards average 10/3 per side), keeps its best
cards for action points, distributes damage by flipping before eliminating and never gives
up al-Nasir while another choice exists. A little randomness (from the seed) keeps two
built-in players from repeating the same stalemate. It reads only what ``view`` would show
its role, so it never cheats with hidden cards.
"""

from __future__ import annotations

from typing import Any

from engine.navas import combat, rules
from engine.navas.core import CATALOG, OTHER, State, card_value, occupancy, unit, zone_power
from engine.navas.data import ahead, in_muslim_area
from engine.rng import Generator

Action = dict[str, Any]
MEAN_CARD = 10 / 3
SPECIAL_KEEP = ["alfonso", "al-nasir", "lopez", "black-guard", "militia", "jihad", "kurdish", "sancho", "jund",
                "peter", "al-husayni", "jimenez"]


def _expected(state: State, role: str, zone: str, order: Action, occ: dict[str, list[str]]) -> float:
    kind = order["type"]
    units = state["units"]
    target = str(order.get("target") or order.get("to") or "")
    if kind == "archers":
        return 1.6 * CATALOG.reference[role]["archers"]["damage"]
    if kind == "rally":
        return 1.1
    if kind in ("attack", "charge"):
        fresh = [u for u in occ.get(zone, []) if not units[u]["exhausted"]]
        mine = sum(units[u]["power"] for u in fresh) + MEAN_CARD
        theirs = zone_power(state, target) + MEAN_CARD
        ckind = combat.ORDER_KIND[kind]
        mine += CATALOG.reference[role][ckind]["modifier"]
        if order.get("card"):
            mine += 2
        if role == "christian":
            if CATALOG.column_kingdoms[zone[0]] == CATALOG.cards[state["turn"]["card"]].arms:
                mine += 1
            if target == CATALOG.camp:
                theirs += 2
                mine += 3  # the camp is the objective
        diff = mine - theirs
        bonus = 1.0 if kind == "charge" and diff >= zone_power(state, target) else 0.0
        return diff + bonus - (0.5 if kind == "charge" else 0.0)
    if kind == "move":
        dest = target
        there = occ.get(dest, [])
        if role == "christian":
            forward = ahead(zone) == dest
            value = 0.6 if forward else -0.5
            if not there and in_muslim_area(dest):
                value -= 0.3
            return value
        front = int(dest[1:]) > int(zone[1:])
        return 0.3 if front and there else -0.2
    return 0.0


def _best_orders(state: State, role: str) -> list[tuple[float, str, Action]]:
    from engine.navas import turn

    occ = occupancy(state)
    found = []
    for zone, ids in occ.items():
        if unit(ids[0]).side != role:
            continue
        for order in turn.zone_orders(state, role, zone, occ):
            found.append((_expected(state, role, zone, order, occ), zone, order))
    found.sort(key=lambda t: -t[0])
    return found


def _pick_damage(legal: list[Action]) -> Action:
    def badness(a: Action) -> tuple[int, int, int]:
        nasir = any(unit(u).kind == "al-nasir" for u in a["eliminate"])
        special = sum(1 for u in a["eliminate"] if unit(u).star)
        return (1 if nasir else 0, len(a["eliminate"]), special)
    return min(legal, key=badness)


def choose(state: State, role: str, seed: int) -> Action:
    legal = rules.actions(state, role)
    if not legal:
        raise ValueError(f"{role} has no legal action")
    gen = Generator(seed)
    if gen.randbelow(100) < 4:
        return gen.choice(legal)
    pending = state["pending"]
    kinds = {a["type"] for a in legal}
    if pending is not None:
        kind = pending["kind"]
        if kind == "damage":
            return _pick_damage(legal)
        if kind == "karr":
            return next(a for a in legal if a["declare"])
        if kind == "window":
            return next((a for a in legal if a["type"] == "special"), legal[0])
        if kind == "advance":
            go = gen.randbelow(10) < 7
            return next(a for a in legal if a["go"] == go)
        if kind == "husayni":
            return max(legal, key=lambda a: card_value(a["card"], "muslim"))
        if kind == "units":
            groups = [a for a in legal if a["type"] == "units"]
            return max(groups, key=lambda a: sum(state["units"][u]["power"] for u in a["units"]))
        if kind == "zone":
            occ = occupancy(state)
            orders = [a for a in legal if a["type"] != "back"]
            scored = sorted(((_expected(state, role, pending["zone"], a, occ), a) for a in orders),
                            key=lambda t: -t[0])
            if scored and scored[0][0] > -0.6:
                return scored[0][1]
            return next(a for a in legal if a["type"] == "back")
    if "discard_special" in kinds:
        return max(legal, key=lambda a: SPECIAL_KEEP.index(a["card"]))
    if "initiative" in kinds:
        return min(legal, key=lambda a: (card_value(a["card"], role), gen.randbelow(4)))
    if "play" in kinds:
        return max(legal, key=lambda a: card_value(a["card"], role))
    specials = [a for a in legal if a["type"] == "special" and a["card"] in ("alfonso", "al-nasir", "militia")]
    if specials:
        return specials[0]
    best = _best_orders(state, role)
    threshold = 0.0 if gen.randbelow(5) else -0.6
    if best and best[0][0] + gen.randbelow(3) * 0.1 > threshold:
        zone = best[0][1]
        for a in legal:
            if a["type"] == "zone" and a["zone"] == zone:
                return a
    switches = [a for a in legal if a["type"] == "switch" and not a["shield"]]
    ini = state["initiative"]
    if switches and card_value(ini[OTHER[role]], role) > card_value(ini[role], role) + 1:
        return switches[0]
    others = [a for a in legal if a["type"] == "special" and a["card"] in ("jimenez", "peter")]
    if others:
        return others[0]
    return next(a for a in legal if a["type"] == "end_turn")
