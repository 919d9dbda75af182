"""Re-deal everything a side cannot see, consistently with what it has seen.

Hidden from a side: the opponent's hand and face-down initiative card (minus the cards it
knows are among them: taken-back initiative cards, a card seen with Jimenez de Rada or taken by
Al-Husayni from the discard pile), the deck's order when it came from a shuffle (a deck made
by turning the discard pile over is public), the opponent's special cards, the opponent's
order still being composed, and the future draws of the generator.

``canonical`` is the same re-deal with every shuffle replaced by a fixed order: one
representative of all the states a side cannot tell apart, from which a search samples
(engine/ai), so that ``canonical(s, r) == canonical(redeal(s, r, k), r)``. Both come from one
function, so a change of what is hidden changes them together.
"""

from __future__ import annotations

import json
from typing import Any

from engine import rng
from engine.api import clone
from engine.navas.core import OTHER, State


def redeal(state: State, role: str, seed: int) -> State:
    return _deal(state, role, rng.Generator(seed))


def canonical(state: State, role: str) -> State:
    """One representative of every state ``role`` cannot tell from ``state`` (module notes)."""
    return _deal(state, role, None)


def _fixed_order(items: list[Any]) -> None:
    """The canonical form's "shuffle": by content, so the same cards give the same order."""
    items.sort(key=lambda c: json.dumps(c, sort_keys=True))


def _deal(state: State, role: str, gen: rng.Generator | None) -> State:
    """The one re-deal: ``gen`` shuffles; without it every hidden collection is sorted and the
    generator restarts from a fixed seed."""
    s = clone(state)
    order = gen.shuffle if gen is not None else _fixed_order
    opp = OTHER[role]
    ini = s["initiative"]
    face_down = ini[opp] is not None and not ini["revealed"]
    hidden = list(s["hands"][opp]) + ([ini[opp]] if face_down else [])
    known = [c for c in s["known"][role] if c in hidden]
    unknown = [c for c in hidden if c not in known]
    pool = unknown + ([] if s["deck_known"] else list(s["deck"]))
    order(pool)
    holding = known + pool[: len(unknown)]
    rest = pool[len(unknown):]
    order(holding)
    if face_down:
        ini[opp] = holding.pop()
    s["hands"][opp] = holding
    if not s["deck_known"]:
        s["deck"] = rest

    theirs = s["specials"][opp]
    cards = theirs["hand"] + theirs["discarded"] + theirs["reserve"]
    order(cards)
    n_hand, n_disc = len(theirs["hand"]), len(theirs["discarded"])
    theirs["hand"], theirs["discarded"], theirs["reserve"] = (
        cards[:n_hand], cards[n_hand:n_hand + n_disc], cards[n_hand + n_disc:])

    pending = s["pending"]
    if pending is not None and pending["role"] == opp and pending["kind"] in ("zone", "units"):
        s["pending"] = None
    s["rng"] = rng.seed_state(gen.randbelow(1 << 62) if gen is not None else 0)
    return s
