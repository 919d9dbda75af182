"""The built-in player: a plain heuristic that attacks when the odds look good.

It rates each order by its expected gain (cards average 10/3 per side), keeps its best
cards for action points, distributes damage by flipping before eliminating and never gives
up al-Nasir while another choice exists. A little randomness (from the seed) keeps two
built-in players from repeating the same stalemate. Whatever it picks, heuristic or random,
it never takes a step that may lose the game at once while a step that cannot exists: it
tries each candidate in every deal of the hidden cards it cannot rule out (:class:`Worlds`).
It reads only what ``view`` would show its role, so it never cheats with hidden cards.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

from engine.api import clone, strip_label
from engine.navas import combat, rules, turn
from engine.navas.core import CATALOG, OTHER, State, card_value, occupancy, unit, zone_power
from engine.navas.data import ahead, in_muslim_area
from engine.navas.redeal import redeal
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


def _best_orders(state: State, role: str, by_zone: dict[str, list[Action]] | None = None) -> list[tuple[float, str, Action]]:
    """Every order of every zone of ``role``, best expected gain first (``by_zone``: the orders
    of each zone, :func:`engine.navas.turn.orders_by_zone`, when the caller has them)."""
    occ = occupancy(state)
    if by_zone is None:
        by_zone = turn.orders_by_zone(state, role, occ)
    found = []
    for zone, orders in by_zone.items():
        for order in orders:
            found.append((_expected(state, role, zone, order, occ), zone, order))
    found.sort(key=lambda t: -t[0])
    return found


def _pick_damage(legal: list[Action]) -> Action:
    def badness(a: Action) -> tuple[int, int, int]:
        nasir = any(unit(u).kind == "al-nasir" for u in a["eliminate"])
        special = sum(1 for u in a["eliminate"] if unit(u).star)
        return (1 if nasir else 0, len(a["eliminate"]), special)
    return min(legal, key=badness)


def _pick_units(state: State, legal: list[Action]) -> Action:
    """The strongest group (a move or an attack takes as much Power as it can)."""
    groups = [a for a in legal if a["type"] == "units"]
    if not groups:
        return legal[0]
    return max(groups, key=lambda a: sum(state["units"][u]["power"] for u in a["units"]))


class Worlds:
    """The deals ``role`` cannot tell from the real one, as far as the next two battle cards go.

    A step can end the game at once only through what it sets off before the next decision:
    at most two battles (a charge and its karr wa-l-farr), each drawing the top card of the
    game deck. So every world is one re-deal of what ``role`` cannot see (:func:`redeal`) with
    each possible pair of cards on top of the deck: the cards whose place ``role`` does not
    know (the deck, the opponent's unknown hand cards, his face-down initiative card). The real
    deal's top two cards are always among them, so a step that loses in none of these worlds
    cannot lose the real game at once. The player never looks at the real hidden cards.
    """

    def __init__(self, state: State, role: str, seed: int) -> None:
        self.state = state
        self.role = role
        self.seed = seed
        self._base: State | None = None
        self._all: list[State] | None = None
        self._risk: dict[str, float] = {}

    def base(self) -> State:
        if self._base is None:
            world = redeal({**self.state, "log": []}, self.role, self.seed)
            self._base = world
        return self._base

    def all(self) -> list[State]:
        """Every world: the base re-deal with each ordered pair of unplaced cards on top."""
        if self._all is not None:
            return self._all
        base = self.base()
        if base["deck_known"] or not base["deck"]:
            self._all = [base]
            return self._all
        opp = OTHER[self.role]
        known = set(self.state["known"][self.role])
        slots: list[tuple[str, int]] = [("deck", i) for i in range(len(base["deck"]))]
        slots += [("hand", i) for i, c in enumerate(base["hands"][opp]) if c not in known]
        ini = base["initiative"]
        if ini[opp] is not None and not ini["revealed"]:
            slots.append(("ini", 0))
        depth = min(2, len(base["deck"]))
        worlds = []
        for top in permutations(range(len(slots)), depth):
            world = clone(base)
            cells = {"deck": world["deck"], "hand": world["hands"][opp]}

            def get(slot: tuple[str, int], w: State = world, c: dict[str, list[str]] = cells) -> str:
                return str(w["initiative"][opp]) if slot[0] == "ini" else c[slot[0]][slot[1]]

            def put(slot: tuple[str, int], card: str, w: State = world, c: dict[str, list[str]] = cells) -> None:
                if slot[0] == "ini":
                    w["initiative"][opp] = card
                else:
                    c[slot[0]][slot[1]] = card

            wanted = [get(slots[i]) for i in top]
            for position, card in enumerate(wanted):
                here = ("deck", position)
                there = next(sl for sl in slots if get(sl) == card)
                if there != here:
                    moved = get(here)
                    put(here, card)
                    put(there, moved)
            worlds.append(world)
        self._all = worlds
        return worlds

    def _run(self, world: State, steps: list[Action]) -> State:
        """Play ``steps`` in ``world``, then the player's own unit choice if one is asked."""
        for step in steps:
            world = rules.apply(world, self.role, step)
        pending = world["pending"]
        if pending is not None and pending["kind"] == "units" and pending["role"] == self.role:
            world = rules.apply(world, self.role, _pick_units(world, rules.actions(world, self.role)))
        return world

    def _lost(self, world: State) -> bool:
        outcome = world.get("result")
        return outcome is not None and outcome["winner"] != self.role

    def risk(self, steps: list[Action]) -> float:
        """The share of worlds in which ``steps`` (and the unit choice they open) lose the game
        at once; 0.0 means they cannot."""
        key = repr([strip_label(a) for a in steps])
        if key in self._risk:
            return self._risk[key]
        base = self.base()
        after = self._run(base, steps)
        if after["deck"] == base["deck"] and after["deck_known"] == base["deck_known"]:
            value = 1.0 if self._lost(after) else 0.0  # no card drawn: the hidden cards play no part
        else:
            worlds = self.all()
            value = sum(1 for w in worlds if self._lost(self._run(w, steps))) / len(worlds)
        self._risk[key] = value
        return value


def choose(state: State, role: str, seed: int) -> Action:
    """A heuristic move (now and then an exploratory one), never one that may lose the game at
    once while a move that cannot exists; if every move may, the least likely to."""
    legal, by_zone = rules.actions_and_orders(state, role)
    if not legal:
        raise ValueError(f"{role} has no legal action")
    gen = Generator(seed)
    worlds = Worlds(state, role, seed)
    if gen.randbelow(100) < 4:
        pick = gen.choice(legal)
    else:
        pick = _decide(state, role, gen, legal, worlds, by_zone)
    if len(legal) == 1 or worlds.risk([pick]) == 0:
        return pick
    safe = [a for a in legal if worlds.risk([a]) == 0]
    if safe:
        return _decide(state, role, gen, safe, worlds, by_zone)
    return min(legal, key=lambda a: worlds.risk([a]))


def _decide(state: State, role: str, gen: Generator, legal: list[Action], worlds: Worlds,
            by_zone: dict[str, list[Action]] | None = None) -> Action:
    """The heuristic's choice among ``legal`` (always one of them); ``by_zone`` as
    :func:`engine.navas.rules.actions_and_orders` gives it with the turn menu."""
    pending = state["pending"]
    kinds = {a["type"] for a in legal}

    def first(kind: str) -> Action:
        return next((a for a in legal if a["type"] == kind), legal[0])

    if pending is not None:
        kind = pending["kind"]
        if kind == "damage":
            return _pick_damage(legal)
        if kind == "karr":
            return next((a for a in legal if a.get("declare")), legal[0])
        if kind == "window":
            return first("special")
        if kind == "advance":
            go = gen.randbelow(10) < 7
            return next((a for a in legal if a.get("go") == go), legal[0])
        if kind == "husayni":
            return max(legal, key=lambda a: card_value(a["card"], "muslim"))
        if kind == "units":
            return _pick_units(state, legal)
        if kind == "zone":
            occ = occupancy(state)
            orders = [a for a in legal if a["type"] != "back"]
            scored = sorted(((_expected(state, role, pending["zone"], a, occ), a) for a in orders),
                            key=lambda t: -t[0])
            for score, order in scored:
                if score <= -0.8:  # the turn menu's lowest threshold with its largest nudge
                    break
                if worlds.risk([order]) == 0:
                    return order
            return first("back")
    if "discard_special" in kinds:
        return max(legal, key=lambda a: SPECIAL_KEEP.index(a["card"]))
    if "initiative" in kinds:
        return min(legal, key=lambda a: (card_value(a["card"], role), gen.randbelow(4)))
    if "play" in kinds:
        return max(legal, key=lambda a: card_value(a["card"], role))
    specials = [a for a in legal if a["type"] == "special" and a["card"] in ("alfonso", "al-nasir", "militia")]
    if specials:
        return specials[0]
    threshold = 0.0 if gen.randbelow(5) else -0.6
    nudge = gen.randbelow(3) * 0.1
    offered = {a["zone"]: a for a in legal if a["type"] == "zone"}
    for score, zone, order in _best_orders(state, role, by_zone):
        if score + nudge <= threshold:
            break
        if zone in offered and worlds.risk([offered[zone], order]) == 0:
            return offered[zone]
    switches = [a for a in legal if a["type"] == "switch" and not a["shield"]]
    ini = state["initiative"]
    if switches and card_value(ini[OTHER[role]], role) > card_value(ini[role], role) + 1:
        return switches[0]
    others = [a for a in legal if a["type"] == "special" and a["card"] in ("jimenez", "peter")]
    if others:
        return others[0]
    return first("end_turn")


def ratings(state: State, role: str, legal: list[Action],
            by_zone: dict[str, list[Action]] | None = None) -> list[float]:
    """How much the heuristic likes each of ``legal`` (higher first), the scores :func:`_decide`
    picks by, for a search that tries options in the heuristic's order rather than the menu's.
    Read only: :func:`choose` does not use it, so the player's decisions do not depend on it."""
    pending = state["pending"]
    if pending is not None:
        kind = pending["kind"]
        if kind == "damage":
            def badness(a: Action) -> float:
                nasir = any(unit(u).kind == "al-nasir" for u in a["eliminate"])
                return 100.0 * nasir + 10.0 * len(a["eliminate"]) + sum(1 for u in a["eliminate"] if unit(u).star)
            return [-badness(a) for a in legal]
        if kind == "units":
            return [float(sum(state["units"][u]["power"] for u in a["units"])) if a["type"] == "units" else -1.0
                    for a in legal]
        if kind == "zone":
            occ = occupancy(state)
            return [-0.8 if a["type"] == "back" else _expected(state, role, pending["zone"], a, occ) for a in legal]
        if kind == "karr":
            return [1.0 if a.get("declare") else 0.0 for a in legal]
        if kind == "advance":
            return [0.7 if a.get("go") else 0.3 for a in legal]
        if kind == "husayni":
            return [float(card_value(a["card"], "muslim")) for a in legal]
        return [1.0 if a["type"] == "special" else 0.0 for a in legal]
    kinds = {a["type"] for a in legal}
    if "discard_special" in kinds:
        return [float(SPECIAL_KEEP.index(a["card"])) if a["type"] == "discard_special" else -1.0 for a in legal]
    if "initiative" in kinds:
        return [-float(card_value(a["card"], role)) if a["type"] == "initiative" else -99.0 for a in legal]
    if "play" in kinds:
        return [float(card_value(a["card"], role)) if a["type"] == "play" else -99.0 for a in legal]
    best: dict[str, float] = {}
    for score, zone, _order in _best_orders(state, role, by_zone):
        best.setdefault(zone, score)
    ini = state["initiative"]
    worth_switching = card_value(ini[OTHER[role]], role) > card_value(ini[role], role) + 1

    def rate(a: Action) -> float:
        kind = a["type"]
        if kind == "zone":
            return best.get(a["zone"], -1.0)
        if kind == "special":
            return 10.0 if a["card"] in ("alfonso", "al-nasir", "militia") else 0.01
        if kind == "switch":
            return 0.02 if worth_switching and not a["shield"] else -1.0
        return 0.0
    return [rate(a) for a in legal]
