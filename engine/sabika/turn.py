"""Phase I, Actions: a player's turn. He activates a Worker, moves it clockwise on its
rondel (paying for the steps and the crowd) or Rests it, then on the square carries out the
main action and the Secondary Action in either order. The main actions themselves are in
the chapters of their rondels (:mod:`.outer`, :mod:`.construction`, :mod:`.middle`,
:mod:`.inner`); the quarries and Artisanal Labour are a single gain, made here.
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State
from engine.sabika import names as N
from engine.sabika.construction import construct_options
from engine.sabika.data import DATA, MATERIALS, WORKER_RONDEL
from engine.sabika.inner import carve_options
from engine.sabika.middle import export_cities, presence
from engine.sabika.names import ACTION_NAME, RAW_NAME
from engine.sabika.outer import activatable, display_tiles
from engine.sabika.resources import gain_raw_from
from engine.sabika.state import (
    R_ACTIONS,
    WORKERS,
    Decision,
    blue_effects,
    event_is,
    funds,
    gain_pp,
    holdings,
    log,
    opt,
    push,
    push_bonus,
    push_pay,
    push_store,
    ring,
    seat,
    secondaries,
)
from engine.text import plural


def sultan_at(s: State, rondel: str, sq: int) -> int:
    return sum(1 for x in s["sultan"][rondel] if x == sq)


def others_at(s: State, role: str, worker: str, rondel: str, sq: int) -> int:
    count = sultan_at(s, rondel, sq)
    for r in s["seats"]:
        for w, info in seat(s, r)["workers"].items():
            if (r, w) != (role, worker) and WORKER_RONDEL[w.rstrip("12")] == rondel and info["at"] == sq:
                count += 1
    return count


def free_steps(s: State, role: str) -> int:
    """The steps a move takes for free: 2, 3 with the blue Poem, 1 fewer under an Event."""
    p = s["players"][role]
    return (3 if "steps" in blue_effects(p) else 2) - (1 if event_is(s, role, "long_roads") else 0)


def crowd_price(s: State, role: str) -> int:
    """The Dinars a move pays per other Worker on its destination: 1, none with the blue Poem,
    2 under an Event."""
    if "crowd" in blue_effects(s["players"][role]):
        return 0
    return 2 if event_is(s, role, "crowds") else 1


def move_cost(s: State, role: str, worker: str, target: int) -> int:
    p = s["players"][role]
    rondel = WORKER_RONDEL[worker.rstrip("12")]
    squares = ring(s["n"], rondel)
    at = p["workers"][worker]["at"]
    steps = 0 if at is None else (squares.index(target) - squares.index(at)) % len(squares)
    crowd = crowd_price(s, role) * others_at(s, role, worker, rondel, target)
    return max(0, steps - free_steps(s, role)) + crowd


def move_costs(s: State, role: str, worker: str) -> dict[int, int]:
    """:func:`move_cost` of every square of the Worker's rondel but its own, in the ring's
    order, the Workers on the rondel counted once for all of them (the menu of a move, its
    labels and the built-in player's guess of a Worker's worth read them all)."""
    p = s["players"][role]
    rondel = WORKER_RONDEL[worker.rstrip("12")]
    squares = ring(s["n"], rondel)
    at = p["workers"][worker]["at"]
    start = 0 if at is None else squares.index(at)
    free = free_steps(s, role)
    price = crowd_price(s, role)
    crowd: dict[Any, int] = {}
    for x in s["sultan"][rondel]:
        crowd[x] = crowd.get(x, 0) + 1
    for r in s["seats"]:
        for w, info in seat(s, r)["workers"].items():
            if (r, w) != (role, worker) and WORKER_RONDEL[w.rstrip("12")] == rondel:
                crowd[info["at"]] = crowd.get(info["at"], 0) + 1
    costs = {}
    for k, sq in enumerate(squares):
        if sq != at:
            steps = 0 if at is None else (k - start) % len(squares)
            costs[sq] = max(0, steps - free) + price * crowd.get(sq, 0)
    return costs


def destinations(s: State, role: str, worker: str) -> list[int]:
    """Squares a worker may end on: clockwise, at least one step (anywhere when coming from the workshop)."""
    return list(reachable(s, role, worker))


def reachable(s: State, role: str, worker: str) -> dict[int, int]:
    """:func:`destinations` with the cost of the move to each."""
    money = funds(s["players"][role])
    return {sq: c for sq, c in move_costs(s, role, worker).items() if c <= money}


def square_action(rondel: str, sq: int) -> str:
    return str(DATA["rondels"][rondel][sq]["a"])


def square_secondary(s: State, rondel: str, sq: int) -> tuple[str, int] | None:
    for kind in ("raw", "marble"):
        for i in secondaries(s["n"], kind):
            if DATA["secondary"][kind][i].get(rondel) == sq:
                return kind, i
    return None


def secondary_cost(s: State, role: str, kind: str, rondel: str) -> int:
    toll = 1 if event_is(s, role, "toll") else 0
    if "secondary" in blue_effects(s["players"][role]):
        return toll
    return int(DATA["secondary"]["cost"][kind][rondel]) + toll


def secondary_possible(s: State, role: str, rondel: str, sq: int) -> bool:
    found = square_secondary(s, rondel, sq)
    if found is None:
        return False
    kind, i = found
    p = s["players"][role]
    if funds(p) < secondary_cost(s, role, kind, rondel):
        return False
    if kind == "raw":
        return s["raw_squares"][str(i)] is not None or bool(p["processing"])
    return True


def main_possible(s: State, role: str, action: str, side: str | None = None) -> bool:
    """Whether the main action can do anything now; the square's menu offers only what can."""
    p = s["players"][role]
    h = holdings(p)
    if action in ("minor_quarry", "major_quarry", "market", "artisanal"):
        return True
    if action == "storehouse":
        tiles = display_tiles(s, side)
        return bool(tiles and any(len(st["tiles"]) < 2 for st in p["stores"])) or bool(activatable(p))
    if action == "construction":
        # something to build now, or new cards worth drawing: a base Material a card could ask for
        opts = construct_options(s, role, refreshed=False)
        if any(o["type"] in ("major", "minor") for o in opts):
            return True
        return any(o["type"] == "refresh" for o in opts) and any(h.get(m) for m in MATERIALS[:3])
    if action == "export":
        return bool(export_cities(s, role))
    if action == "consolidate":
        return any(role in c["left"] for c in s["cities"].values())
    if action == "produce":
        return bool(presence(s, role)) or bool(p["processing"])
    if action == "carve":
        return bool(carve_options(s, role)) and any(h.get(m) for m in MATERIALS[:3])
    if action == "reactivate":
        return bool(p["red"])
    raise ValueError(action)


def start_main(s: State, role: str, action: str, side: str | None, bonus: bool) -> None:
    """Push the decisions of a main action (also used when a bonus grants the action)."""
    p = s["players"][role]
    log(s, f"{role} carries out {'a bonus ' if bonus else 'the '}{ACTION_NAME[action]} Action.")
    if action in ("minor_quarry", "major_quarry"):
        of = ["gypsum", "wood"] if action == "minor_quarry" else ["wood", "marble"]
        n = 4 if event_is(s, role, "quarry_plus") else 3
        push_bonus(s, role, [{"k": "matchoice", "of": of, "n": n}], ACTION_NAME[action])
    elif action == "storehouse":
        push(s, {"kind": "storehouse", "role": role, "side": side})
    elif action == "market":
        extra = (1 if "market" in blue_effects(p) else 0) + (1 if event_is(s, role, "market_plus") else 0) \
            - (1 if event_is(s, role, "lean_market") else 0)
        push(s, {"kind": "market", "role": role, "left": 2 + extra})
        p["dinars"] += 2
        log(s, f"{role} earns 2 Dinars at the Market.")
    elif action == "construction":
        push(s, {"kind": "construct", "role": role, "refreshed": False})
    elif action == "export":
        push(s, {"kind": "export", "role": role})
    elif action == "consolidate":
        push(s, {"kind": "consolidate", "role": role})
    elif action == "produce":
        push(s, {"kind": "produce", "role": role, "city": False, "process": False})
    elif action == "carve":
        push(s, {"kind": "carve", "role": role})
    elif action == "reactivate":
        push(s, {"kind": "reactivate", "role": role})
    elif action == "artisanal":
        poems = len(p["blue"]) + len(p["red"]) + len(p["grey"])
        gain = 3 + poems // 2 + (2 if "artisan" in blue_effects(p) else 0)
        p["dinars"] += gain
        log(s, f"{role} earns {plural(gain, 'Dinar')} from Artisanal Labour ({plural(poems, 'Poem card')}).")


def _o_turn(s: State, dec: dict[str, Any]) -> list[Action]:
    """One entry per standing Worker, named by where it stands. The two Master Builders standing
    on the same place are one choice, not two entries alike: the first of them goes."""
    p = s["players"][dec["role"]]
    out = []
    offered: set[tuple[str, int | None]] = set()
    for w in WORKERS:
        info = p["workers"][w]
        kind = w.rstrip("12")
        if not info["up"] or (kind, info["at"]) in offered:
            continue
        offered.add((kind, info["at"]))
        at = info["at"]
        where = "in the workshop" if at is None else f"square {at}, {ACTION_NAME[square_action(WORKER_RONDEL[kind], at)]}"
        out.append(opt("worker", f"Activate your {N.WORKER_NAME[kind]} ({where})", worker=w))
    return out


def _o_work(s: State, dec: dict[str, Any]) -> list[Action]:
    role, w = dec["role"], dec["worker"]
    rondel = WORKER_RONDEL[w.rstrip("12")]
    out = []
    for sq, cost in reachable(s, role, w).items():
        out.append(opt("move", f"Move to square {sq} ({ACTION_NAME[square_action(rondel, sq)]}), "
                               f"{N.cost(cost)}", square=sq))
    if rest_allowed(s, role):
        out.append(opt("rest", rest_label(s, role, w)))
    out.append(opt("back", "Choose another worker"))
    return out


def rest_label(s: State, role: str, worker: str) -> str:
    """What a Rest does for this Worker: back to the workshop (or staying there), the Dinars
    (fewer under an Event) and the PP it costs (none with the blue Poem, none left to lose)."""
    p = s["players"][role]
    where = "stay in the workshop" if p["workers"][worker]["at"] is None else "back to the workshop"
    dinars = 2 if event_is(s, role, "weary") else 3
    if "rest" in blue_effects(p):
        cost = "lose no PP (blue Poem)"
    elif p["pp"] > 0:
        cost = "lose 1 PP"
    else:
        cost = "no PP left to lose"
    return f"Rest: {where}, earn {plural(dinars, 'Dinar')}, {cost}"


def rest_allowed(s: State, role: str) -> bool:
    """Rest costs 1 PP ("earn 3 Dinars and lose 1 PP"): a player with no PP cannot pay it (see
    RULINGS.md), unless a blue Poem waives the cost or none of his standing Workers can move
    (a turn must be taken; the Rest then costs nothing, the PP track has no space below 0)."""
    p = s["players"][role]
    if p["pp"] > 0 or "rest" in blue_effects(p):
        return True
    return not any(info["up"] and destinations(s, role, w) for w, info in p["workers"].items())


def _o_square(s: State, dec: dict[str, Any]) -> list[Action]:
    role, rondel, sq = dec["role"], dec["rondel"], dec["square"]
    out = []
    action = square_action(rondel, sq)
    side = DATA["rondels"][rondel][sq].get("side")
    if not dec["main"] and main_possible(s, role, action, side):
        out.append(opt("main", f"{ACTION_NAME[action]} Action"))
    if not dec["secondary"] and secondary_possible(s, role, rondel, sq):
        found = square_secondary(s, rondel, sq)
        assert found is not None
        kind, i = found
        if kind == "raw":
            token = s["raw_squares"][str(i)]
            what = f"take the {RAW_NAME[token]}" if token else "process 1 Raw Material"
        else:
            what = "take the Marble" if s["marble_squares"][str(i)] else "take 1 Gypsum or Wood"
        out.append(opt("secondary", f"Secondary Action: {what} ({N.cost(secondary_cost(s, role, kind, rondel))})"))
    out.append(opt("done", "End this turn"))
    return out


def _r_turn(s: State, dec: dict[str, Any], a: Action) -> None:
    push(s, {"kind": "work", "role": dec["role"], "worker": a["worker"]})


def _r_work(s: State, dec: dict[str, Any], a: Action) -> None:
    role, w = dec["role"], dec["worker"]
    p = s["players"][role]
    if a["type"] == "back":
        push(s, {"kind": "turn", "role": role})
        return
    info = p["workers"][w]
    info["up"] = False
    if a["type"] == "rest":
        info["at"] = None
        rest = 2 if event_is(s, role, "weary") else 3
        p["dinars"] += rest
        log(s, f"{role} rests the {N.WORKER_NAME[w.rstrip('12')]}: back to the workshop, {plural(rest, 'Dinar')}.")
        if "rest" not in blue_effects(p):
            if p["pp"] > 0:
                gain_pp(s, role, -1, "rest")
            else:
                log(s, f"{role} has no PP to lose (none of his Workers could move).")
        return
    rondel = WORKER_RONDEL[w.rstrip("12")]
    cost = move_cost(s, role, w, a["square"])
    info["at"] = a["square"]
    paying = f", paying {plural(cost, 'Dinar')}" if cost else ""
    log(s, f"{role} moves the {N.WORKER_NAME[w.rstrip('12')]} to square {a['square']} "
           f"({ACTION_NAME[square_action(rondel, a['square'])]}){paying}.")
    push(s, {"kind": "square", "role": role, "rondel": rondel, "square": a["square"], "main": False, "secondary": False})
    push_pay(s, role, cost, "movement")


def _r_square(s: State, dec: dict[str, Any], a: Action) -> None:
    role, rondel, sq = dec["role"], dec["rondel"], dec["square"]
    if a["type"] == "done":
        return
    nxt = dict(dec)
    if a["type"] == "main":
        nxt["main"] = True
        push(s, nxt)
        start_main(s, role, square_action(rondel, sq), DATA["rondels"][rondel][sq].get("side"), bonus=False)
        return
    nxt["secondary"] = True
    push(s, nxt)
    found = square_secondary(s, rondel, sq)
    assert found is not None
    kind, i = found
    if kind == "raw":
        token = s["raw_squares"][str(i)]
        if token is not None:
            gain_raw_from(s, role, str(i))
        else:
            push(s, {"kind": "process", "role": role, "left": 1, "optional": False})
    else:
        if s["marble_squares"][str(i)]:
            s["marble_squares"][str(i)] = False
            push_store(s, role, "marble")
            log(s, f"{role} takes the Marble of a Secondary Action.")
        else:
            push(s, {"kind": "pickmat", "role": role, "of": ["gypsum", "wood"]})
    cost = secondary_cost(s, role, kind, rondel)
    push_pay(s, role, cost, "secondary action")


DECISIONS: dict[str, Decision] = {
    "turn": Decision(_o_turn, _r_turn, R_ACTIONS),
    "work": Decision(_o_work, _r_work, R_ACTIONS),
    "square": Decision(_o_square, _r_square, R_ACTIONS),
}
