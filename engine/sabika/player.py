"""The built-in Sabika player: a greedy heuristic, not a random one.

Each legal step is tried and the resulting position valued for the player (PP first, then
what turns into PP later: the Sultan's Wishes still to be scored for what the player shows,
his Major Poems and the Trade card as they would score now, Materials by their value, Goods,
Parias against the coming tribute, Dinars, Seals, storage). Steps whose worth only shows later (moving a Worker, choosing a main
action) get a prior: the value of what the square or the choice leads to. The PP a Scaffold
will earn count as soon as a Material is on it, so an extra Material is added when its PP
beat what the Material is still worth (Gypsum and Wood are worth nothing at the end, Marble
and Glazed Ceramic 1 PP). A tribute is paid with Parias first: a Paria is good for nothing
else, and Parias left at the end score nothing. Where a Worker goes is judged by the whole
turn it leads to, played out by the one-step choice (the square's actions, their bonuses,
the Materials put on a Scaffold), not by a guess of the square's worth.

It judges every step in a world re-dealt (``redeal``) from a canonical form of the state, so
what it cannot see (the decks' order, the bag, Yusuf's cards) never decides for it, and two
states it cannot tell apart get the same decision. Ties are broken by the seed, so the player
is deterministic per seed.
"""

from __future__ import annotations

from engine.api import Action, State, clone
from engine.rng import Generator
from engine.sabika import rules
from engine.sabika.data import DATA, EVENTS, GOODS, MATERIALS, PP_VALUE, WORKER_RONDEL
from engine.sabika.inner import carve_cost
from engine.sabika.middle import route_cost
from engine.sabika.redeal import redeal
from engine.sabika.scoring import major_poem_points, trade_points, wish_points
from engine.sabika.state import YUSUF, active_effect, capacity, holdings
from engine.sabika.turn import main_possible, move_cost, reachable, secondary_possible, square_action

ACTION_WORTH = {"construction": 5.0, "export": 5.0, "carve": 4.5, "consolidate": 4.0, "reactivate": 3.0,
                "storehouse": 3.0, "minor_quarry": 3.0, "major_quarry": 3.5, "market": 2.5, "produce": 2.5,
                "artisanal": 2.5}


MATERIAL_WORTH = {"gypsum": 1.8, "wood": 1.5, "marble": 2.2, "ceramic": 2.8}
END_WORTH = {"gypsum": 0.0, "wood": 0.0, "marble": 1.0, "ceramic": 1.0}  # leftovers at the final scoring


def material_worth(s: State, m: str) -> float:
    """A Material in store: its use in later constructions, fading towards what it scores as a
    leftover as the game runs out of rounds (round 5: half way, after the last round: nothing more)."""
    if s["phase"] == "over" or (s["round"] == 5 and s["phase"] == "end"):
        return END_WORTH[m]
    fade = {4: 0.75, 5: 0.5}.get(s["round"], 1.0)
    return END_WORTH[m] + (MATERIAL_WORTH[m] - END_WORTH[m]) * fade


def scaffold_pp(s: State, role: str) -> float:
    """The PP of the Materials already on a Scaffold under way: earned when it is finished."""
    return float(sum(PP_VALUE[m] for d in s["stack"] if d["kind"] == "scaffold" and d["role"] == role
                     for m in d["used"]))


def future_wishes(s: State, role: str) -> float:
    """The Sultan's Wishes' PP still to come for what the player shows now: each Wish tile is
    scored at every Tower scoring from the one it joins on (all three tiles lie face up)."""
    spaces = [int(x) for x in s["wishes"]]
    later = [x for x in spaces if x > s["narrator"]]
    total = 0.0
    for space, tile in s["wishes"].items():
        times = sum(1 for x in later if x >= int(space))
        if times:
            total += times * wish_points(s, role, tile)
    return total


def end_points(s: State, role: str) -> float:
    """The final scoring's PP for what the player holds now: his Major Poems and the Trade card."""
    p = s["players"][role]
    return float(sum(major_poem_points(s, role, c) for c in p["grey"]) + trade_points(s, role))


def value(s: State, role: str) -> float:
    p = s["players"][role]
    h = holdings(p)
    rounds_left = 6 - s["round"]
    tribute_left = sum(int(v) for k, v in DATA["rounds"]["tribute"].items() if int(k) > s["narrator"])
    v = float(p["pp"]) + 0.7 * p["dinars"] + 1.0 * p["seals"] + scaffold_pp(s, role)
    if s["phase"] != "over":
        v += future_wishes(s, role) + end_points(s, role)
    v += sum(material_worth(s, m) * h.get(m, 0) for m in MATERIALS)
    v += sum(2.2 * h.get(g, 0) for g in GOODS) + 1.0 * len(p["processing"])
    v += 1.1 * min(p["parias"], tribute_left)
    v += 0.25 * sum(capacity(p, i) for i in range(4)) * min(rounds_left, 3)
    v += 0.5 * p["favour"]
    return v


def _after_paying(s: State, role: str, cost: int) -> State:
    """The state as the square will see it: the move's cost paid (a shallow copy, read only)."""
    if cost <= 0:
        return s
    p = dict(s["players"][role])
    p["dinars"] -= cost  # Seals may pay part of it: the total funds are what matter
    return {**s, "players": {**s["players"], role: p}}


def square_worth(s: State, role: str, rondel: str, sq: int, cost: int = 0) -> float:
    """What a square offers once the Worker stands on it, its move paid: a main action that
    the remaining funds can no longer carry out is worth nothing."""
    s = _after_paying(s, role, cost)
    action = square_action(rondel, sq)
    side = DATA["rondels"][rondel][sq].get("side")
    worth = ACTION_WORTH[action] if main_possible(s, role, action, side) else 0.0
    if action in ("minor_quarry", "major_quarry") and not any(
            len(st["items"]) < capacity(s["players"][role], i) for i, st in enumerate(s["players"][role]["stores"])):
        worth = 1.0
    if secondary_possible(s, role, rondel, sq):
        worth += 1.0
    return worth


def prior(s: State, role: str, a: Action) -> float:
    top = s["stack"][-1] if s["stack"] else None
    t = a["type"]
    if t == "back":
        return -50.0
    if top is None:
        return 0.0
    kind = top["kind"]
    p = s["players"][role]
    if kind == "turn":
        w = a["worker"]
        rondel = WORKER_RONDEL[w.rstrip("12")]
        costs = reachable(s, role, w)
        best = max([square_worth(s, role, rondel, sq, c) - 0.7 * c for sq, c in costs.items()] or [0.0])
        return best
    if kind == "work":
        if t == "rest":
            return -1.5
        rondel = WORKER_RONDEL[top["worker"].rstrip("12")]
        cost = move_cost(s, role, top["worker"], a["square"])
        return square_worth(s, role, rondel, a["square"], cost) - 0.7 * cost
    if kind == "square":
        return {"main": 3.0, "secondary": 1.0}.get(t, 0.0)
    if kind == "tribute":
        return 3.0 if a.get("means") == "track" else 0.0
    if kind == "construct":
        return {"major": 3.0, "minor": 2.5, "refresh": -1.5, "skip": 0.0}[t]
    if kind == "carve":
        cost = carve_cost(p, a["colour"], active_effect(s))
        return 4.0 - 0.7 * cost + (1.5 if a["colour"] == "grey" else 0.0)
    if kind == "export":
        return 3.0 - 0.7 * route_cost(s, role, a["city"]) + (1.0 if s["cities"][a["city"]]["seal"] else 0.0)
    if kind == "market" and t == "stop":
        return 0.0
    if kind in ("market", "storehouse", "produce") and t not in ("stop", "done"):
        return 0.2
    if kind == "export_goods" and t == "good":
        return 1.0
    return 0.0


ROLLOUT_STEPS = 24
"""At most this many of its own steps are played ahead to judge where a Worker goes."""
PLAYED_OUT = 4
"""How many of a Worker's squares (the best by the guess of their worth) are played out."""


def _greedy(state: State, role: str, seed: int, legal: list[Action]) -> tuple[Action, State]:
    """The one-step choice: each legal step valued by the position it leads to and its prior."""
    gen = Generator(seed)
    base = value(state, role)
    best: tuple[float, float] | None = None
    pick: tuple[Action, State] | None = None
    for a in legal:
        after = rules.apply_listed(state, role, a)  # the legal steps, listed for this state (or its re-deal)
        score = value(after, role) - base + prior(state, role, a)
        key = (score, gen.randbelow(1000) / 1000.0)
        if best is None or key > best:
            best, pick = key, (a, after)
    assert pick is not None
    return pick


def _turn_played_out(state: State, role: str, seed: int) -> State:
    """The position after the rest of the turn played by the one-step choice: the Worker's
    square, its main and Secondary Action and their bonuses, until the player's next turn
    (or another player's decision, or the end of the game)."""
    for k in range(ROLLOUT_STEPS):
        if state["phase"] == "over" or rules.active(state) != [role]:
            break
        if state["stack"] and state["stack"][-1]["kind"] == "turn":
            break
        legal = rules.actions(state, role)
        if not legal:
            break
        state = _greedy(state, role, seed + k, legal)[1] if len(legal) > 1 else rules.apply(state, role, legal[0])
    return state


def canonical(state: State) -> State:
    """One representative of the states a player cannot tell apart: the face-down piles in a
    fixed order (the Minor Construction and Minor Poem decks, the Storehouse piles, Yusuf's
    Worker tiles and cards, the face-down Events by polarity). Re-dealt from it, the world the
    player judges its steps in depends only on what it may know."""
    s = clone(state)
    s["minor_deck"] = sorted(s["minor_deck"], key=str)
    s["poem_deck"] = sorted(s["poem_deck"], key=str)
    piles = sorted(s["store_piles"]["left"] + s["store_piles"]["right"], key=str)
    n_left = len(s["store_piles"]["left"])
    s["store_piles"] = {"left": piles[:n_left], "right": piles[n_left:]}
    s["event_stack"] = sorted(s["event_stack"], key=lambda e: (EVENTS[e]["polarity"], e))
    if YUSUF in s:
        s[YUSUF]["pile"] = sorted(s[YUSUF]["pile"])
        for worker, deck in s[YUSUF]["decks"].items():
            s[YUSUF]["decks"][worker] = sorted(deck)
    return s


def choose(state: State, role: str, seed: int) -> Action:
    legal = rules.actions(state, role)
    if not legal:
        raise ValueError(f"{role} has no legal action")
    if len(legal) == 1:
        return legal[0]
    # Every step is judged in a world re-dealt from what the player may know (the decks'
    # order, the bag, Yusuf's cards): neither the one-step look nor the play-out of a turn
    # reads what is hidden. The legal steps are the same in both.
    world = redeal(canonical(state), role, seed)
    top = state["stack"][-1] if state["stack"] else None
    if top is not None and top["kind"] == "work":
        # where a Worker goes is judged by the whole turn it leads to, played out greedily
        gen = Generator(seed)
        best: tuple[float, float] | None = None
        pick = legal[0]
        moves = [a for a in legal if a["type"] != "back"]
        # only the squares the guess of their worth ranks highest are played out (the cost of
        # a decision stays a few play-outs: the search levels play this player in their playouts)
        moves = sorted(moves, key=lambda a: -prior(world, role, a))[:PLAYED_OUT]
        for a in moves:
            end = _turn_played_out(rules.apply(world, role, a), role, seed)
            key = (value(end, role) + prior(world, role, a) * 0.3, gen.randbelow(1000) / 1000.0)
            if best is None or key > best:
                best, pick = key, a
        return pick
    return _greedy(world, role, seed, legal)[0]


