"""1212 Las Navas de Tolosa for the search: canonical information sets and an evaluation.

The canonical form is the game's own (:func:`engine.navas.redeal.canonical`: its re-deal with
every shuffle replaced by a fixed order, one source of truth with ``redeal``): the hidden
collections (the opponent's hand and face-down initiative card less the cards the role knows
are there, the draw pile when it came from a shuffle, the opponent's special cards, his order
being composed, the generator) take one fixed arrangement, so two states the role cannot tell
apart have the same canonical form. tests/engine/ai checks
``canonical(s) == canonical(redeal(s, role, k))`` over played games.

The evaluation reads the victory conditions (engine/navas/victory.py): the game is won by
holding twice the opponent's zones, by the Christians killing al-Nasir, or by the Muslims
keeping the Christians out of the Muslim area with at most four zones. It scores the zone
balance against the "twice as many" line, the strength left on the board, a Christian
foothold in the Muslim area and the Christian units standing next to al-Nasir.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.ai.adapters import Adapter, Budget, default_candidates
from engine.api import Action, GameModule, State, strip_label
from engine.navas import player, rules
from engine.navas.core import CATALOG, occupancy
from engine.navas.data import ahead, in_muslim_area, unit
from engine.navas.redeal import canonical
from engine.rng import Generator


class _Unchecked(player.Worlds):
    """No look at the hidden cards' possible deals: every step counts as safe."""

    def risk(self, steps: list[Action]) -> float:
        return 0.0


def playout(module: GameModule, state: State, role: str, seed: int) -> Action:
    """The built-in player's heuristic without its safety check (it tries each candidate step
    in every deal of the next battle cards, three quarters of its time): a playout is one
    sample among many, so a cheaper one buys more of them. The tree itself still tries the
    built-in player's full choice first at every decision."""
    legal, by_zone = rules.actions_and_orders(state, role)
    gen = Generator(seed)
    if gen.randbelow(100) < 4:
        return gen.choice(legal)
    return player._decide(state, role, gen, legal, _Unchecked(state, role, seed), by_zone)


def rank(module: GameModule, state: State, role: str, seed: int, actions: list[Action], checked: bool) -> list[int]:
    """The heuristic's choice first (the built-in player's own at the root, ``checked``; below
    it the playout policy's, without the safety check), then the rest by the heuristic's own
    scores (:func:`engine.navas.player.ratings`), so that a search of a few dozen iterations
    spends them on the moves the heuristic nearly chose rather than on the menu's first ones."""
    legal, by_zone = rules.actions_and_orders(state, role)
    if checked:
        chosen = player.choose(state, role, seed)
    else:
        chosen = player._decide(state, role, Generator(seed), legal, _Unchecked(state, role, seed), by_zone)
    pick = strip_label(chosen)
    scores = player.ratings(state, role, actions, by_zone)
    return sorted(range(len(actions)), key=lambda i: (strip_label(actions[i]) != pick, -scores[i], i))


def candidates(module: GameModule, state: State, role: str) -> list[Action]:
    """Every legal action but ``back`` from the choice of units: the built-in player never
    takes it there (the safety check of the order before it already covered the units it
    opens), and in a search of a few dozen iterations the way back and round again to the
    same order only spreads the samples over menu steps that change nothing on the board."""
    legal = default_candidates(module, state, role)
    pending = state["pending"]
    if pending is not None and pending["kind"] == "units" and pending["role"] == role:
        moves = [a for a in legal if a["type"] != "back"]
        if moves:
            return moves
    return legal


def risk(state: State, role: str, seed: int) -> Callable[[Action], float]:
    """The built-in player's own safety check (:class:`engine.navas.player.Worlds`): each
    option is tried in every deal of the next battle cards ``role`` cannot rule out."""
    worlds = player.Worlds(state, role, seed)
    return lambda action: worlds.risk([action])


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


# Calibrated on the 2-core reference machine (busy with other work, 26 Nov 2026): with the
# playout policy above one iteration took a median 7.85 ms of CPU (p95 11.8 ms; process_time
# of 10-iteration searches at every sixth searched decision of two easy-player games), against
# 31.6 ms with the built-in player in the playouts (the same ten decisions); 64 iterations were
# about 0.5 s a decision (normal) and 256 about 2 s (hard): engine.ai SECONDS. Later that day
# the turn menu stopped asking every candidate order every question (engine/navas: each
# zone's orders worked out once for the menu and the player, target-free checks once per
# kind of order, apply looking up only the zone named), with the same actions in the same
# order and the same decisions: the same measure (two games, every sixth decision) went from
# 8.87 ms to 4.32 ms an iteration (p95 14.4 to 6.8 ms), and ``alcazaba bench --ai --games 1
# --workers 1`` from a CPU median 0.57 s (p95 0.78 s) to 0.33 s (0.45 s) at normal and
# 1.32 s (p95 2.54 s) at hard, against 2.59 s (4.80 s) before: within the budgets with room
# for the machine's load, so the iteration counts stayed as they were. Then the tree stopped
# asking the built-in player's full choice (its safety check included) at every node it adds
# below the root (``rank``: the heuristic without the check there, the full choice at the
# root only): on 40 decisions of two easy-player games (every sixth, process_time) a search
# of 64 iterations went from a median 0.27 s (p95 0.48 s) to 0.25 s (0.29 s); 100
# iterations cost 0.44 s (0.52 s) and 400 1.67 s (2.09 s), on the machine busy with other
# work: the counts below (normal, hard).
# ``alcazaba bench --ai`` reports the real figure (ai.think_s.navas.<level>).
ADAPTER = Adapter(
    canonical=canonical,
    evaluate=evaluate,
    playout=playout,
    candidates=candidates,
    risk=risk,
    rank=rank,
    budgets={"normal": Budget(iterations=100, depth=24, deep=1.0, margin=0.05),
             "hard": Budget(iterations=400, depth=24, deep=1.0, margin=0.05)},
)
