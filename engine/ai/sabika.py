"""Sabika for the search: a canonical information set, an evaluation, a cheaper playout policy,
the options worth searching and their order.

Hidden in Sabika (engine/sabika/redeal.py): the order of the Minor Construction and Minor Poem
decks and of the two Storehouse piles (their sizes are public), the other players' Starting
tiles while hidden, which unseen Events lie face down (only their polarities are known), in
solo Yusuf's Worker tile pile and his three decks of Worker cards, and the generator (the
bag's draws). The canonical form puts each of those in one fixed arrangement: the decks and
piles sorted, the hidden Starting tiles dealt in sorted order to the slots ``redeal`` deals
them to, the face-down Events replaced by the first unseen Events of their polarities, and the
generator reset. The game's built-in player has a canonical form for its own look-ahead
(:func:`engine.sabika.player.canonical`), but it keeps the Events' ids and the Starting tiles
as they are: the search needs one form per information set, so this one follows ``redeal``
all the way, and tests/engine/ai checks ``canonical(s) == canonical(redeal(s, role, k))``
over played games.

The evaluation is the built-in player's own valuation of each seat (:func:`engine.sabika.
player.value`: PP, then what turns into PP later: the Sultan's Wishes still to be scored for
what the player shows, his Major Poems and the Trade card, Materials, Goods, Parias against the
tributes to come, Dinars, Seals, storage), as a softmax over the seats with a temperature
that narrows as the rounds run out; in the solo game against Yusuf's PP and the pace he keeps.
"""

from __future__ import annotations

import math

import engine.sabika as sabika
from engine import players
from engine.ai.adapters import Adapter, default_candidates, level_budgets
from engine.ai.search import chosen_first, policy_step
from engine.api import Action, GameModule, State, clone
from engine.rng import seed_state
from engine.sabika import player, rules
from engine.sabika.names import EVENTS
from engine.sabika.redeal import deal_starting, hidden_starting

YUSUF = "yusuf"
ROUNDS = 5
CANONICAL_SEED = 0


def _sorted(items: list[str]) -> list[str]:
    return sorted(items, key=str)


def canonical(state: State, role: str) -> State:
    """One representative of everything ``role`` cannot tell from ``state`` (module notes)."""
    s = clone(state)
    s["minor_deck"] = _sorted(s["minor_deck"])
    s["poem_deck"] = _sorted(s["poem_deck"])
    piles = _sorted(s["store_piles"]["left"] + s["store_piles"]["right"])
    n_left = len(s["store_piles"]["left"])
    s["store_piles"] = {"left": piles[:n_left], "right": piles[n_left:]}
    pool, slots = hidden_starting(s, role)
    pool = _sorted(pool)
    deal_starting(s, sorted(slots), lambda: pool.pop(0))
    s["unused_starting"] = pool
    if s["event_stack"]:
        polarities = sorted(EVENTS[e]["polarity"] for e in s["event_stack"])
        unseen = {pol: sorted(e for e, d in EVENTS.items() if d["polarity"] == pol and e not in s["events_seen"])
                  for pol in set(polarities)}
        s["event_stack"] = [unseen[pol].pop(0) for pol in polarities]
    if YUSUF in s:
        s[YUSUF]["pile"] = _sorted(s[YUSUF]["pile"])
        for worker in s[YUSUF]["decks"]:
            s[YUSUF]["decks"][worker] = _sorted(s[YUSUF]["decks"][worker])
    s["rng"] = seed_state(CANONICAL_SEED)
    return s


def _rounds_left(state: State) -> float:
    """Rounds still to play, the current one counting by half (0 once the game is over)."""
    if state["phase"] == "over":
        return 0.0
    if state["phase"] == "setup":
        return float(ROUNDS)
    return max(0.0, ROUNDS - int(state["round"]) + 0.5)


YUSUF_PACE = 9.0
"""PP Yusuf gains a round, before his own record says otherwise (he ended solo games of the
built-in player with 47 to 60 PP from 5)."""


def _yusuf_promise(state: State) -> float:
    yusuf = state[YUSUF]
    played = ROUNDS - _rounds_left(state)
    start = state.get("options", {}).get("yusuf_pp", 5)
    pace = YUSUF_PACE
    if played >= 1:
        pace = 0.5 * YUSUF_PACE + 0.5 * max(0.0, (yusuf["pp"] - start) / played)
    return float(yusuf["pp"]) + pace * _rounds_left(state)


def evaluate(state: State) -> dict[str, float]:
    """Each player's chance of winning (module notes)."""
    roles = list(state["players"])
    worth = {r: player.value(state, r) for r in roles}
    spread = 3.0 + 2.0 * _rounds_left(state)
    if YUSUF in state:
        (only,) = roles
        x = (worth[only] - _yusuf_promise(state)) / spread
        return {only: 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, x))))}
    top = max(worth.values())
    weights = {r: math.exp((v - top) / spread) for r, v in worth.items()}
    total = sum(weights.values())
    return {r: w / total for r, w in weights.items()}


def _one_step(state: State, role: str, legal: list[Action]) -> list[float]:
    """The built-in player's one-step judgement of each step: the position it leads to, valued
    for the player, plus the step's prior (what a square or a choice leads to later). The
    steps are the rules' own listing of this state, so they are not checked again."""
    base = player.value(state, role)
    return [player.value(rules.apply_listed(state, role, a), role) - base + player.prior(state, role, a)
            for a in legal]


def _is_move(state: State) -> bool:
    """Whether the decision is where a Worker goes (the built-in player plays out a whole turn
    for each of its best squares there)."""
    return bool(state["stack"]) and state["stack"][-1]["kind"] == "work"


def _key(action: Action) -> tuple[tuple[str, object], ...]:
    """An action's identity within one listing (its label aside): how :func:`rank` finds the
    scores the playout policy already gave the same state's steps."""
    return tuple((k, repr(v)) for k, v in action.items() if k != "label")


def _scores(state: State, role: str, moves: list[Action]) -> list[float]:
    """The policy's score of each of ``moves``: the squares' prior where a Worker goes, else
    the one-step judgement."""
    if _is_move(state):
        return [player.prior(state, role, a) for a in moves]
    return _one_step(state, role, moves)


def _policy(state: State, role: str, seed: int) -> tuple[Action, dict[tuple[tuple[str, object], ...], float]]:
    """The playout policy's step and the scores it gave (by :func:`_key`)."""
    legal = sabika.actions(state, role)
    if len(legal) == 1:
        return legal[0], {}
    moves = [a for a in legal if a["type"] != "back"] or legal
    scores = _scores(state, role, moves)
    return policy_step(moves, scores, seed), {_key(a): v for a, v in zip(moves, scores, strict=True)}


def playout(module: GameModule, state: State, role: str, seed: int) -> Action:
    """The built-in player's one-step choice, without its redeal and without playing a turn out
    for each square a Worker may go to (there the squares' prior decides): a playout is one
    sample among many, so a cheaper one buys more of them. The tree itself still tries the
    built-in player's full choice first at the root."""
    return _policy(state, role, seed)[0]


def candidates(module: GameModule, state: State, role: str) -> list[Action]:
    """Every legal step but ``back``: the built-in player never takes it, and in a search of a
    few dozen iterations the way back and round again only spreads the samples over menu
    steps that change nothing on the board."""
    legal = default_candidates(module, state, role)
    kept = [a for a in legal if a["type"] != "back"]
    return kept or legal


def rank(module: GameModule, state: State, role: str, seed: int, actions: list[Action], checked: bool) -> list[int]:
    """The built-in player's full choice first at the root (``checked``), the playout policy's
    below it, then the rest by the one-step judgement, not the menu's order."""
    known: dict[tuple[tuple[str, object], ...], float] = {}
    if checked:
        chosen = players.choose(module, state, role, seed)
    else:
        chosen, known = _policy(state, role, seed)
    missing = [a for a in actions if _key(a) not in known]
    fresh = dict(zip(map(_key, missing), _scores(state, role, missing), strict=True)) if missing else {}
    scores = [known[k] if k in known else fresh[k] for k in map(_key, actions)]
    return chosen_first(chosen, actions, scores)


# Calibrated on the 2-core reference machine, busy with other work (load 9 to 12 on its 2
# cores, 27 Nov 2026): CPU time (time.process_time) of the searched decisions of blue's seat
# against the easy player (seed 7) and in the solo game against Yusuf. 40 iterations took a
# median 0.50 s (p95 0.68 s; solo 0.54 s, p95 0.81 s), some 13 ms an iteration, most of it the
# rules' own apply (checking each step against the legal ones). 32 iterations (normal) then
# took a median 0.38 s (p95 0.54 s; solo 0.55 s, p95 0.67 s, 30 decisions each: Yusuf's turns
# are played inside apply) and 128 (hard) 1.64 s (p95 2.22 s; solo 1.63 s, p95 1.93 s, 15
# decisions each). Over whole games of ``alcazaba bench --ai`` (8 games each, three runs at
# once) normal took a median 0.46 s of CPU (p95 0.66 s) against the easy player and 0.48 s
# (p95 0.67 s) solo: the later decisions cost some 20% more than the first ones, so hard has
# 112 iterations (about 1.7 s): engine.ai SECONDS. ``alcazaba bench --ai`` reports the real
# figure (ai.think_s.sabika.<level>). The complete solo set at 32 iterations (100 games, 15,898
# decisions, 28-29 Nov) took CPU 0.487 / 0.779 s, the p95 over normal's 0.75 s: the late
# solo decisions, whose playouts play Yusuf's turns too, are the dearest. Normal has 28
# iterations since (the first 6 solo games again, the machine quiet: CPU 0.369 / 0.603 s,
# against 0.460 / 0.718 s for the same seeds at 32 under load). The cheaper search of 29 Nov
# (same decisions: tests/engine/ai/test_sabika_shortcuts.py) took some 30% less CPU over 580
# decisions of played games, old and new code alternated: solo normal 0.405 / 0.660 s before,
# 0.274 / 0.447 s after; 2 players normal 0.345 / 0.592 s, 0.246 / 0.378 s; solo hard 1.220 /
# 1.883 s, 0.859 / 1.336 s. The iteration counts stay as they were.
ADAPTER = Adapter(canonical=canonical, evaluate=evaluate, candidates=candidates, playout=playout, rank=rank,
                  budgets=level_budgets(normal=28, hard=112, depth=16, deep=1.0, margin=0.03))
