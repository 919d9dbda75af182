"""The built-in player: a greedy planner that values tiles by majorities and moats.

Every step is rated, the best taken (the seed only breaks near-ties). A tile is worth the
points its building would add at the scorings still to come (its type's place among all
competitors, with the price tie-break, times the scorings' multipliers) plus what it adds to
the city's longest moat; money is worth a little less than its face value; an exact payment
is worth an extra action. Payments are planned so that they overshoot as little as possible,
exactly when possible. A flip is valued at what the hand would really pay for it (the least
overshooting payment of 3 or more in one currency), not at 3. A leftover tile given out at
the end is built when that scores (never kept in the supply, where it scores nothing); in
the 2-player game a donation to Dirk is worth what it takes from the opponent; rebuilding
(removing or exchanging a tile) is worth what it changes in the city's standing. It reads
only what its view shows: the public board and its own hand.
"""

from __future__ import annotations

from itertools import combinations

from engine.granada_city import city as C
from engine.granada_city import rules
from engine.granada_city.core import (
    FLIP_PRICE,
    TAKE_LIMIT,
    Action,
    State,
    currency_of,
    totals,
    value_of,
)
from engine.granada_city.data import CATALOG, face, other
from engine.granada_city.scoring import REGULAR, SIMPLIFIED, built, held
from engine.rng import Generator

MONEY = 0.55  # points per unit of money in hand
EXACT = 3.0  # an extra action
SUPPLY = 0.3  # a tile in the supply, relative to the same tile built


def _remaining_cards(state: State) -> list[str]:
    done = {s["card"] for s in state["scorings"]} | set(state["due"])
    return [c for c in ("A", "B", "C") if c not in done]


def _buildings(state: State) -> dict[str, list[tuple[str, int]]]:
    out = {r: built(state["cities"][r]) for r in state["roles"]}
    if state["dirk"] is not None:
        out["dirk"] = held(state["dirk"])
    return out


def _standing(state: State, role: str, kind: str, buildings: dict[str, list[tuple[str, int]]]) -> float:
    """The points ``role`` would take for ``kind`` over the scorings still to come."""
    counts = {w: [p for (k, p) in b if k == kind] for w, b in buildings.items()}
    if not counts[role]:
        return 0.0
    total = sum(len(v) for v in counts.values())
    ranked = sorted((w for w in counts if counts[w]), key=lambda w: (-len(counts[w]), -max(counts[w])))
    place = ranked.index(role)
    simplified = state["options"]["simplified"]
    points = 0.0
    for card in _remaining_cards(state):
        table = (SIMPLIFIED if simplified else REGULAR)[card]
        if place < len(table):
            # later scorings see more buildings: weigh them by a growth guess
            grow = {"A": 1.0, "B": 1.5, "C": 2.0}[card]
            points += table[place] if simplified else table[place] * total * grow
    return points


def tile_gain(state: State, role: str, tid: str, side: str) -> float:
    """What building the tile adds to the role's standing; in the 2-player game, less what it
    adds to the opponent's (a building raises the type's total, which pays his majority too)."""
    f = face(tid, side)
    assert f is not None
    buildings = _buildings(state)
    before = _standing(state, role, f.type, buildings)
    rivals = _rivals_standing(state, role, buildings, f.type) if state["dirk"] is not None else 0.0
    buildings[role] = buildings[role] + [(f.type, f.price)]
    gain = _standing(state, role, f.type, buildings) - before
    if state["dirk"] is not None:
        gain -= _rivals_standing(state, role, buildings, f.type) - rivals
    return gain


def _moat_factor(state: State) -> int:
    return len(_remaining_cards(state))


def position_score(state: State, role: str, tid: str, cell: C.Cell) -> float:
    cityd = state["cities"][role]
    grown = dict(cityd)
    grown[C.key(cell)] = [tid, "even"]
    moat = (C.longest_moat(grown) - C.longest_moat(cityd)) * _moat_factor(state)
    touching = sum(1 for e in C.STEP if C.key(C.neighbour(cell, e)) in cityd)
    spread = abs(cell[0]) + abs(cell[1])
    return moat + 0.2 * touching - 0.02 * spread


_BEST: dict[tuple[object, ...], tuple[float, C.Cell | None]] = {}


def best_position(state: State, role: str, tid: str) -> tuple[float, C.Cell | None]:
    """The best cell to build ``tid`` on and its score, remembered per city, tile and scorings
    left (all the score reads): a city changes only when it is built on, and the search asks
    again for every tile on offer at every step of its playouts."""
    cityd = state["cities"][role]
    memo = (tuple((k, t, side) for k, (t, side) in cityd.items()), tid, _moat_factor(state))
    found = _BEST.get(memo)
    if found is not None:
        return found
    best: tuple[float, C.Cell | None] = (-1e9, None)
    for cell in C.positions(cityd, tid):
        s = position_score(state, role, tid, cell)
        if s > best[0]:
            best = (s, cell)
    if len(_BEST) > 20000:
        _BEST.clear()
    _BEST[memo] = best
    return best


def build_value(state: State, role: str, tid: str, side: str) -> float:
    """What building this tile now is worth, -inf when it cannot be built."""
    pos, cell = best_position(state, role, tid)
    if cell is None:
        return float("-inf")
    return tile_gain(state, role, tid, side) + pos


def flip_cost(hand: list[str]) -> int | None:
    """What flipping a tile would really cost from ``hand``: the least overshooting payment of
    at least 3 in one currency (None when no currency holds 3)."""
    best: int | None = None
    for cur, amount in totals(hand).items():
        if amount < FLIP_PRICE:
            continue
        plan = plan_payment([c for c in hand if currency_of(c) == cur], FLIP_PRICE)
        assert plan is not None
        paid = sum(value_of(c) for c in plan)
        if best is None or paid < best:
            best = paid
    return best


def flip_value(state: State, role: str, tid: str, side: str, hand: list[str]) -> float:
    """Building the tile's other side, paid at its real flip price from ``hand``; -inf if unaffordable."""
    cost = flip_cost(hand)
    if cost is None:
        return float("-inf")
    return build_value(state, role, tid, other(side)) - cost * MONEY - 1.0


def city_worth(state: State, role: str, cityd: C.City) -> float:
    """What a city (the role's, as it is or as it would be) is worth at the scorings to come:
    its majorities against the other competitors plus its longest moat."""
    buildings = _buildings(state)
    buildings[role] = built(cityd)
    kinds = {k for k, _p in buildings[role]} | {k for k, _p in built(state["cities"][role])}
    return sum(_standing(state, role, k, buildings) for k in kinds) \
        + C.longest_moat(cityd) * _moat_factor(state)


def _removal_gain(state: State, role: str, cell: C.Cell) -> float:
    cityd = dict(state["cities"][role])
    now = city_worth(state, role, cityd)
    del cityd[C.key(cell)]
    return city_worth(state, role, cityd) - now


def _exchange_gain(state: State, role: str, cell: C.Cell, index: int) -> float:
    cityd = dict(state["cities"][role])
    now = city_worth(state, role, cityd)
    cityd[C.key(cell)] = list(state["supplies"][role][index])
    return city_worth(state, role, cityd) - now


def _best_exchange(state: State, role: str, cell: C.Cell | None = None) -> float:
    """The best gain of an exchange (at ``cell``, or anywhere), -inf when none is possible."""
    best = float("-inf")
    cells = [cell] if cell is not None else rules._cells(state, role)
    for c in cells:
        for i in rules._exchangeable(state, role, c):
            best = max(best, _exchange_gain(state, role, c, i))
    return best


def _rivals_standing(state: State, role: str, buildings: dict[str, list[tuple[str, int]]], kind: str) -> float:
    return sum(_standing(state, r, kind, buildings) for r in state["roles"] if r != role)


def donate_value(state: State, role: str, tid: str, side: str) -> float:
    """A donation to Dirk (2 players): what it changes in the role's standing minus what it
    changes in the opponent's (a tile that takes a majority from him is worth as much)."""
    f = face(tid, side)
    assert f is not None
    buildings = _buildings(state)
    mine = _standing(state, role, f.type, buildings)
    theirs = _rivals_standing(state, role, buildings, f.type)
    buildings["dirk"] = buildings["dirk"] + [(f.type, f.price)]
    return (_standing(state, role, f.type, buildings) - mine) - (_rivals_standing(state, role, buildings, f.type)
                                                                 - theirs) - 0.5


def plan_payment(cards: list[str], target: int) -> list[str] | None:
    """The cards to pay at least ``target`` with the least overpayment (then the fewest cards)."""
    cards = sorted(cards, key=value_of, reverse=True)
    if sum(value_of(c) for c in cards) < target:
        return None
    best: tuple[int, int] | None = None
    plan: list[str] = []
    for n in range(1, min(len(cards), 6) + 1):
        for combo in combinations(cards, n):
            total = sum(value_of(c) for c in combo)
            if total >= target:
                key = (total - target, n)
                if best is None or key < best:
                    best, plan = key, list(combo)
        if best is not None and best[0] == 0:
            break
    if best is None:
        return sorted(cards, key=value_of, reverse=True)
    return plan


def _buy_value(state: State, role: str, space: int) -> float:
    entry = state["yard"][space - 1]
    tid, side = entry
    target = rules.price(entry)
    cur = CATALOG.yard_currency[space - 1]
    plan = plan_payment([c for c in state["hands"][role] if currency_of(c) == cur], target)
    assert plan is not None
    paid = sum(value_of(c) for c in plan)
    rest = [c for c in state["hands"][role] if c not in plan]
    options = [build_value(state, role, tid, side), flip_value(state, role, tid, side, rest),
               SUPPLY * max(tile_gain(state, role, tid, s) for s in ("even", "odd"))]
    if state["dirk"] is not None:
        options.append(donate_value(state, role, tid, side))
    worth = max(options)
    return worth - paid * MONEY + (EXACT if paid == target else 0.0)


_EXACT: dict[tuple[object, ...], int] = {}


def _exact_chances(state: State, hand: list[str]) -> int:
    """How many yard tiles this hand could pay exactly (remembered per hand and yard: every
    money card on display is rated with it at every step of the search's playouts)."""
    memo = (tuple(hand), tuple(None if e is None else (e[0], e[1]) for e in state["yard"]))
    found = _EXACT.get(memo)
    if found is None:
        if len(_EXACT) > 20000:
            _EXACT.clear()
        found = _EXACT[memo] = _count_exact(state, hand)
    return found


def _count_exact(state: State, hand: list[str]) -> int:
    n = 0
    for i, entry in enumerate(state["yard"]):
        if entry is None:
            continue
        cur = CATALOG.yard_currency[i]
        plan = plan_payment([c for c in hand if currency_of(c) == cur], rules.price(entry))
        if plan is not None and sum(value_of(c) for c in plan) == rules.price(entry):
            n += 1
    return n


def _take_value(state: State, role: str, taken: list[str], card: str) -> float:
    hand = state["hands"][role] + [card]
    room = sum(value_of(c) for c in taken) + value_of(card)
    best_more = 0.0
    if room <= TAKE_LIMIT:
        rest = [c for c in state["display"] if c != card]
        for n in range(1, len(rest) + 1):
            for combo in combinations(rest, n):
                if room + sum(value_of(c) for c in combo) <= TAKE_LIMIT:
                    best_more = max(best_more, sum(value_of(c) for c in combo) * MONEY)
    exact = _exact_chances(state, hand) - _exact_chances(state, state["hands"][role])
    return value_of(card) * MONEY + best_more + 1.2 * exact


def _rate(state: State, role: str, action: Action) -> float:
    kind = action["type"]
    pending = state["pending"]
    if kind == "take":
        taken = pending["taken"] if pending else []
        return _take_value(state, role, taken, action["card"])
    if kind == "done":
        return 0.0
    if kind == "buy":
        return _buy_value(state, role, action["space"])
    if kind == "end":
        return 0.0
    if kind == "pass":
        return 0.0
    if kind == "rebuild":
        if action["how"] == "extend":
            return max(SUPPLY + build_value(state, role, t, s) for t, s in state["supplies"][role]) - 0.5
        if action["how"] == "remove":
            return max(_removal_gain(state, role, c) for c in rules._removable(state, role)) - 1.0
        return _best_exchange(state, role) - 0.5
    if kind == "back":
        return -10.0
    if kind == "tile":
        t = state["turn"]["bought"][action["index"]]
        return -len(C.positions(state["cities"][role], t[0]))  # the most constrained tile first
    if kind == "supply_tile":
        if pending["how"] == "exchange":
            return _exchange_gain(state, role, (pending["x"], pending["y"]), action["index"])
        t = state["supplies"][role][action["index"]]
        return build_value(state, role, t[0], t[1])
    if kind == "build":
        idx = pending["index"]
        tid, side, _space = state["turn"]["bought"][idx]
        if action["flip"]:
            return flip_value(state, role, tid, side, state["hands"][role])
        return build_value(state, role, tid, side)
    if kind == "supply":
        if state["stage"] == "award":
            return 0.0  # the last scoring is next: a tile in the supply scores nothing
        tid = state["turn"]["bought"][pending["index"]][0]
        return SUPPLY * tile_gain(state, role, tid, action["side"]) - 0.5
    if kind == "dirk":
        tid, side, _space = state["turn"]["bought"][pending["index"]]
        if action["flip"]:
            cost = flip_cost(state["hands"][role])
            if cost is None:
                return float("-inf")
            return donate_value(state, role, tid, other(side)) - cost * MONEY - 1.0
        return donate_value(state, role, tid, side)
    if kind == "pay":
        return _pay_rating(state, role, action["card"])
    if kind in ("position",):
        tid = rules._tile_to_place(state, role)
        assert tid is not None
        where = position_score(state, role, tid, (action["x"], action["y"]))
        if state["stage"] == "award":  # build or supply: the building's majorities count too
            return where + tile_gain(state, role, tid, state["pending"]["tile"][1])
        return where
    if kind == "cell":
        cell = (action["x"], action["y"])
        if pending["how"] == "remove":
            return _removal_gain(state, role, cell)
        return _best_exchange(state, role, cell)
    return 0.0


def _pay_rating(state: State, role: str, card: str) -> float:
    pending = state["pending"]
    hand = state["hands"][role]
    if pending["kind"] == "buy":
        cur = CATALOG.yard_currency[pending["space"] - 1]
        target = rules.price(state["yard"][pending["space"] - 1]) - sum(value_of(c) for c in pending["paid"])
        pool = [c for c in hand if currency_of(c) == cur and c not in pending["paid"]]
    else:
        paid = pending["paid"]
        target = FLIP_PRICE - sum(value_of(c) for c in paid)
        if paid:
            pool = [c for c in hand if c not in paid and currency_of(c) == currency_of(paid[0])]
        else:
            # the currency whose cheapest sufficient payment overshoots least, then the most plentiful
            best = None
            for cur, amount in totals(hand).items():
                if amount < FLIP_PRICE:
                    continue
                plan = plan_payment([c for c in hand if currency_of(c) == cur], FLIP_PRICE)
                assert plan is not None
                key = (sum(value_of(c) for c in plan) - FLIP_PRICE, -amount)
                if best is None or key < best[0]:
                    best = (key, plan)
            return 1.0 + value_of(card) * 0.01 if best is not None and _among(card, best[1]) else 0.0
    plan = plan_payment(pool, target) or []
    return 1.0 + value_of(card) * 0.01 if _among(card, plan) else 0.0


def _among(card: str, plan: list[str]) -> bool:
    """Whether ``plan`` pays with a card like ``card``: the menu lists one copy of each
    currency and value (rules.one_per_value), the plan may name another copy."""
    return any(CATALOG.card(c) == CATALOG.card(card) for c in plan)


def choose(state: State, role: str, seed: int) -> Action:
    if not rules.actions(state, role):
        raise ValueError(f"{role} has no legal action")
    choices, fixed = rules._choices(state, role)
    gen = Generator(seed)
    best: tuple[float, Action] | None = None
    for action in choices + fixed:
        rating = _rate(state, role, action) + gen.randbelow(1000) * 1e-6
        if best is None or rating > best[0]:
            best = (rating, action)
    assert best is not None
    return best[1]
