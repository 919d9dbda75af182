"""Dirk Henn's Granada for the search: a canonical information set, an evaluation, the options
worth searching and their order.

Hidden in this game (engine/granada_city/redeal.py) is only the order of the money deck, with
the scoring cards A and B each somewhere in the pile it was shuffled into, and the generator
(the bag's next draws: the bag itself is public). The canonical form puts the money cards of
the deck in the catalogue's order, each scoring card at the end of its pile, and resets the
generator, so two states a player cannot tell apart have one canonical form. The game has no
canonical form of its own, so this one follows its ``redeal``: tests/engine/ai checks
``canonical(s) == canonical(redeal(s, role, k))`` over played games, and a change of what
``redeal`` deals again fails there.

The evaluation is each competitor's final score as the board promises it: the points already
scored, plus every scoring still to come held on today's cities (majorities and longest
moats), grown by how many more buildings the board will hold by then (the share of the bag
drawn so far against the share drawn at that scoring), plus the money in hand and the tiles in
supply. A softmax of those promises, with a temperature that narrows as the bag empties,
gives each player's chance of winning.
"""

from __future__ import annotations

import math

from engine import players
from engine.ai.adapters import Adapter, Budget, default_candidates
from engine.ai.search import chosen_first, outcome, policy_step
from engine.api import Action, GameModule, State, clone, strip_label
from engine.granada_city import player
from engine.granada_city.city import longest_moat
from engine.granada_city.core import sort_cards, value_of
from engine.granada_city.data import CATALOG
from engine.granada_city.scoring import REGULAR, SIMPLIFIED, built, held
from engine.rng import seed_state

CANONICAL_SEED = 0
"""The generator of every canonical form: what the bag draws next is nobody's knowledge."""


def canonical(state: State, role: str) -> State:
    """One representative of everything ``role`` cannot tell from ``state``: the deck's money
    cards in the catalogue's order, spread over the piles as they lie (their sizes are public),
    each scoring card last in the pile it was shuffled into, and a fixed generator."""
    s = clone(state)
    deck, piles = s["deck"], s["piles"]
    scoring_in: list[tuple[str, int]] = []
    start = 0
    for i, size in enumerate(piles):
        scoring_in += [(c, i) for c in deck[start:start + size] if c in CATALOG.scoring_cards]
        start += size
    money = sort_cards([c for c in deck if c not in CATALOG.scoring_cards])
    rebuilt: list[str] = []
    for i, size in enumerate(piles):
        extra = sorted(c for c, p in scoring_in if p == i)
        rebuilt += money[:size - len(extra)] + extra
        money = money[size - len(extra):]
    s["deck"] = rebuilt + money
    s["rng"] = seed_state(CANONICAL_SEED)
    return s


AT_SCORING = {"A": 0.3, "B": 0.65, "C": 1.0}
"""The share of the bag drawn when each scoring comes (A in the second of five piles, B in the
fourth, C at the end): how much bigger the cities will be by then than today."""
MONEY = 0.35   # points per unit of money in hand, while there is something left to buy
SUPPLY = 1.5   # points per tile in supply (a rebuilding may still build it)


def _drawn(state: State) -> float:
    """The share of the tiles drawn from the bag so far (the game ends when it runs dry)."""
    total = len(CATALOG.tile_order)
    return max(0.05, 1.0 - len(state["bag"]) / total)


def _parts(state: State) -> tuple[dict[str, float], dict[str, float]]:
    """Each competitor's points already scored, and the majorities and moats the scorings still
    to come promise on today's cities (grown by how many more buildings the board will hold
    by then); Dirk's too in the 2-player game, since he takes majorities from the players."""
    done = {s["card"] for s in state["scorings"]} | set(state["due"])
    to_come = [c for c in ("A", "B", "C") if c not in done]
    simplified = state["options"]["simplified"]
    buildings = {r: built(state["cities"][r]) for r in state["roles"]}
    if state["dirk"] is not None:
        buildings["dirk"] = held(state["dirk"])
    turn = state["turn"]
    if turn is not None and turn["bought"] and state["stage"] != "over":
        # bought but not yet placed: a playout cut off in the middle of a turn still counts them
        buildings[turn["role"]] = buildings[turn["role"]] + held([[t[0], t[1]] for t in turn["bought"]])
    drawn = _drawn(state)
    scored = {who: float(state["scores"].get(who, 0)) for who in buildings}
    out = {who: 0.0 for who in buildings}
    moats = {r: longest_moat(state["cities"][r]) for r in state["roles"]}
    for card in to_come:
        grow = min(3.0, max(1.0, AT_SCORING[card] / drawn))
        table = (SIMPLIFIED if simplified else REGULAR)[card]
        for kind in CATALOG.types:
            counts = {w: [p for (k, p) in have if k == kind] for w, have in buildings.items()}
            total = sum(len(v) for v in counts.values())
            ranked = sorted((w for w in counts if counts[w]), key=lambda w: (-len(counts[w]), -max(counts[w])))
            for place, who in enumerate(ranked[:len(table)]):
                out[who] += table[place] if simplified else table[place] * total * grow
        for r in state["roles"]:
            out[r] += moats[r] * (1.0 + 0.3 * (grow - 1.0))
    return scored, out


def promised(state: State) -> dict[str, float]:
    """Each competitor's final score as the board promises it (see the module notes)."""
    scored, to_come = _parts(state)
    left = 1.0 - _drawn(state)
    out = {who: scored[who] + to_come[who] for who in scored}
    for r in state["roles"]:
        out[r] += MONEY * left * sum(value_of(c) for c in state["hands"][r]) + SUPPLY * left * len(state["supplies"][r])
    return out


# Fitted on 130 games of three easy players (seeds 100-229, a position every 25 steps, each
# player's final score regressed by least squares on the parts of its position; 28 Nov 2026):
# at each share of the bag drawn, what a point of promise, a point already scored, a unit of
# money in hand and a tile in supply were worth in final points, and how far the final
# scores still strayed from the fit (the residual's standard deviation). The fit's rows are
# smoothed by hand where few positions held a tile in supply or a point already scored (the
# raw coefficients jumped between neighbouring shares); at the end the score is the result.
# (drawn, promise, scored, money, supply, residual)
FITTED: tuple[tuple[float, float, float, float, float, float], ...] = (
    (0.1, 0.28, 0.5, 0.22, 2.0, 17.6),
    (0.3, 0.25, 0.5, 0.20, 3.0, 17.5),
    (0.5, 0.43, 0.6, 0.29, 3.0, 15.7),
    (0.7, 0.70, 0.65, 0.32, 2.5, 11.5),
    (0.9, 0.86, 0.83, 0.22, 0.6, 8.5),
    (1.0, 1.0, 1.0, 0.0, 0.0, 5.0),
)


def _fit(drawn: float) -> tuple[float, float, float, float, float]:
    """The fitted weights at ``drawn``, interpolated between the fitted shares."""
    rows = FITTED
    if drawn <= rows[0][0]:
        return rows[0][1:]
    for lo, hi in zip(rows, rows[1:]):
        if drawn <= hi[0]:
            t = (drawn - lo[0]) / (hi[0] - lo[0])
            a, b = lo[1:], hi[1:]
            return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]), a[2] + t * (b[2] - a[2]),
                    a[3] + t * (b[3] - a[3]), a[4] + t * (b[4] - a[4]))
    return rows[-1][1:]


def expected(state: State) -> dict[str, float]:
    """Each player's expected final score as fitted on played games (:data:`FITTED`): the
    promise alone overstates early leads (cities catch up) and understates money and tiles in
    supply (they become buildings)."""
    scored, to_come = _parts(state)
    w_promise, w_scored, w_money, w_supply, _spread = _fit(_drawn(state))
    return {r: w_promise * to_come[r] + w_scored * scored[r]
            + w_money * sum(value_of(c) for c in state["hands"][r]) + w_supply * len(state["supplies"][r])
            for r in state["roles"]}


TURN_END = 16
"""At most how many steps :func:`evaluate` plays to finish the turn a playout was cut off in."""


def _turn_end(state: State) -> State:
    """``state`` with the turn in progress played to its end by the playout policy.

    A playout cut off in the middle of a turn would be judged with money taken but not yet
    the building it pays for, or with a purchase not yet paid; judged only at the boundary
    between two turns, every player's position is complete (the policy's seeds come from the
    position itself, so the evaluation stays a function of the state)."""
    from engine import granada_city as game  # the rules' module (engine.ai must not import it at load)

    turn = state["turn"]
    if turn is None or state["stage"] == "over" or (not turn["actions"] and not turn["bought"]
                                                    and state["pending"] is None and state["stage"] == "play"):
        return state
    from engine.granada_city import rules

    number = turn["number"]
    # one copy played on in place: every step is one the rules just listed, so ``apply``'s
    # checking and copying of each (most of a step's cost) would change nothing
    state = clone(state)
    for step in range(TURN_END):
        if game.result(state) is not None or state["turn"] is None or state["turn"]["number"] != number:
            break
        active = list(game.active(state))
        if not active:
            break
        mover = active[0]
        rules._dispatch(state, mover, strip_label(playout(game, state, mover, number * 31 + step)))  # type: ignore[arg-type]
    return state


def evaluate(state: State) -> dict[str, float]:
    """Each player's chance of winning: a softmax of the expected final scores, whose
    temperature is what the fit leaves unexplained at this point of the game (a Gumbel of
    that standard deviation: scale sd * sqrt(6) / pi), so it sharpens as the bag empties.
    A position in the middle of a turn is first played to the turn's end (:func:`_turn_end`)."""
    from engine import granada_city as game

    state = _turn_end(state)
    if game.result(state) is not None:
        return outcome(game, state, list(state["roles"]), ADAPTER)  # type: ignore[arg-type]
    expect = expected(state)
    spread = max(1.0, _fit(_drawn(state))[4] * math.sqrt(6.0) / math.pi)
    top = max(expect.values())
    # Dirk never wins (the book ranks only the players at the end): his majorities are already
    # the points they keep from the players
    weights = {r: math.exp((expect[r] - top) / spread) for r in state["roles"]}
    total = sum(weights.values())
    return {r: weights[r] / total for r in state["roles"]}


NARROW = 4
"""How many of a long list of equivalent steps (where to build, which cell to rebuild) the tree
considers: the heuristic's best ones."""
FOLLOW = ("pay", "tile")
"""Steps the search leaves to the heuristic: which card pays next (its payment plan already
paid exactly when it can, else overshooting least) and which bought tile is placed first."""


def _ratings(state: State, role: str, actions: list[Action]) -> list[float]:
    return [player._rate(state, role, a) for a in actions]


def candidates(module: GameModule, state: State, role: str) -> list[Action]:
    """The legal steps worth searching: for a payment or the order of placing, the heuristic's
    step alone; for a long list of positions or cells, the heuristic's best few (and the
    other kinds of step of the same menu: supplying, donating are kept); never going back."""
    every = default_candidates(module, state, role)
    # going back undoes a choice of the same turn: the tree would only reach the same steps twice
    legal = [a for a in every if a["type"] != "back"] or every
    if len(legal) <= 1:
        return legal
    kinds = {a["type"] for a in legal}
    if kinds & set(FOLLOW):
        return [players.choose(module, state, role, 0)]
    many = [a for a in legal if a["type"] in ("position", "cell")]
    if len(many) <= NARROW:
        return legal
    scores = _ratings(state, role, many)
    best = sorted(range(len(many)), key=lambda i: (-scores[i], i))[:NARROW]
    kept = {action_id(many[i]) for i in best}
    return [a for a in legal if a["type"] not in ("position", "cell") or action_id(a) in kept]


def action_id(action: Action) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, repr(v)) for k, v in strip_label(action).items()))


SKIPPED = ("rebuild", "back")
"""Steps the playout policy never takes: rebuilding is rare and rating it (every removable
tile's removal judged on the whole city) is most of the built-in player's time."""


def _key(action: Action) -> tuple[tuple[str, object], ...]:
    """An action's identity within one listing (its label aside): how :func:`rank` finds the
    ratings the playout policy already gave the same state's steps."""
    return tuple((k, v) for k, v in action.items() if k != "label")


def _moves(state: State, role: str) -> list[Action]:
    """The steps the playout policy chooses among, in the menu's order: the legal steps
    without rebuilding and going back, or all of them when nothing else is legal.

    The action menu is listed without its rebuilding checks (the rules' ``want``: which
    tiles could be removed or exchanged, judged on the whole city, was a fifth of a
    decision's time), since the policy would drop those steps anyway; only an empty menu
    needs the full listing (then rebuilding, ending or passing is all there is)."""
    from engine.granada_city import rules  # the rules' module (engine.ai must not import it at load)

    choices, fixed = rules._choices(state, role, want="take")
    moves = [a for a in choices + fixed if a["type"] not in SKIPPED]
    if moves:
        return moves
    return list(choices + fixed) or [a for a in rules.actions(state, role)]


def _policy(state: State, role: str, seed: int) -> tuple[Action, dict[tuple[tuple[str, object], ...], float]]:
    """The playout policy's step and the ratings it gave (by :func:`_key`)."""
    moves = _moves(state, role)
    if len(moves) == 1:
        return moves[0], {}
    scores = _ratings(state, role, moves)
    return policy_step(moves, scores, seed), {_key(a): r for a, r in zip(moves, scores, strict=True)}


def playout(module: GameModule, state: State, role: str, seed: int) -> Action:
    """The built-in player's ratings without its rebuilding options: a playout is one sample
    among many, so a cheaper one buys more of them. The tree itself still tries the built-in
    player's full choice first at the root, rebuilding included."""
    return _policy(state, role, seed)[0]


def rank(module: GameModule, state: State, role: str, seed: int, actions: list[Action], checked: bool) -> list[int]:
    """The built-in player's full choice first at the root (``checked``), the playout policy's
    below it, then the others by the heuristic's own ratings (not the menu's order), so that
    a few dozen iterations go to the steps it nearly chose. Below the root the ratings the
    policy just gave are not computed again."""
    known: dict[tuple[tuple[str, object], ...], float] = {}
    if checked:
        chosen = players.choose(module, state, role, seed)
    else:
        chosen, known = _policy(state, role, seed)
    scores = []
    for a in actions:
        if a["type"] in SKIPPED and not checked:
            scores.append(-1e9)
        else:
            rated = known.get(_key(a))
            scores.append(player._rate(state, role, a) if rated is None else rated)
    return chosen_first(chosen, actions, scores)


# Calibrated on the 2-core reference machine, busy with other work (load 9 to 12 on its 2
# cores, 27 Nov 2026): CPU time (time.process_time) of the searched decisions of red's seat in
# a 3-player game against two easy players (seed 7, each ai.choose_with_stats timed). With
# the built-in player in the playouts 40 iterations took a median 0.41 s (p95 0.86 s); with
# the playout policy above (no rebuilding) 0.28 s (p95 0.40 s), some 7 ms an iteration.
# Since the evaluation plays a cut-off turn to its end (:func:`_turn_end`, 28 Nov 2026), with
# playouts of 8 steps: 12 games of ``alcazaba bench --ai`` (one worker, the machine shared
# with other work) at 44 iterations took a median 0.39 s of CPU a decision (p95 0.83 s, 1,020
# decisions), some 19 ms an iteration at the p95, so the counts are 38 (normal) and 150
# (hard). Measured at 38 in the same way, 18 games took a median 0.40 s (p95 0.84 s, 1,550
# decisions): the p95 did not follow the iterations down (the machine's load, and the turn's
# end played in every evaluation, weigh as much), so normal is still over its 0.75 s p95 there
# (engine.ai SECONDS). ``alcazaba bench --ai`` reports the real figure
# (ai.think_s.granada_city.<level>).
# On the cheaper search (ca5b20e) the complete normal set (102 games, code 273d61e6f1b0647c)
# won 60 (0.588) at a median 0.29 s, p95 0.63 s of CPU. Shorter playouts buying more
# iterations did not play better on the same seeds (29 Nov 2026, scratch ledgers, the
# machine shared): depth 4 at 46 iterations won 8.5 of 18 games where depth 8 had won 11
# (CPU median 0.30 s, p95 0.64 s), depth 2 at 54 iterations 3 of 7 where depth 8 had won 4.
# Longer ones did: playouts of 12 steps at 32 iterations won 24 of the first 30 games (seeds
# 1-10 in each seat; 8 in each) where depth 8 at 38 had won 16 (11 games won only by the
# new, 3 only by the old), CPU a decision median 0.30 s, p95 0.53 s (2,531 decisions); likely
# the players' replies within a longer playout judge a purchase better than more samples of a
# shorter one. Hard at depth 12 and 125 iterations took the CPU of the old 150 at depth 8 on the
# same 24 positions (26.9 s against 26.2 s, p95 1.75 s against 1.92 s).
# The root widens half as fast as the default (widen 1.0: some 6 options at normal's 32
# iterations instead of 12), so each option tried gets enough samples to be judged; the search
# leaves the built-in player's choice only for a gain of more than ``margin`` in the chance
# of winning.
ADAPTER = Adapter(canonical=canonical, evaluate=evaluate, candidates=candidates, playout=playout, rank=rank,
                  budgets={"normal": Budget(iterations=32, depth=12, widen=1.0, deep=1.0, margin=0.04),
                           "hard": Budget(iterations=125, depth=12, widen=1.0, deep=1.0, margin=0.03)})
