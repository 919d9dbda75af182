"""Re-dealing what a player cannot see (engine contract ``redeal``).

Hidden in Sabika: the order of the Minor Construction and Minor Poem decks and of the two
Storehouse piles, the future draws from the bag (the generator), and the other players'
Starting tiles while hidden (both offered tiles during setup, the discarded one after), and in
solo the order of Yusuf's Worker tile pile and of his three decks of Worker cards, and in the
advanced mode the face-down Events (which of the unseen Events they are, by polarity).
"""

from __future__ import annotations

from collections.abc import Callable

from engine import rng
from engine.api import State, clone
from engine.sabika.data import EVENTS


def hidden_starting(s: State, role: str) -> tuple[list[str], list[tuple[str, int]]]:
    """The Starting tiles ``role`` cannot see, and the slots (player, place in his offer) of
    those another player holds: the unused tiles, and each other player's offered tiles but
    the one he kept once revealed. Shared by :func:`redeal` and the search's canonical form
    (engine/ai/sabika.py), which must hide exactly the same tiles."""
    revealed = s["phase"] != "setup"
    pool = list(s["unused_starting"])
    slots: list[tuple[str, int]] = []
    for r, p in s["players"].items():
        if r == role:
            continue
        for i, t in enumerate(p["offer"]):
            if revealed and t == p["start_tile"]:
                continue  # the kept tile is public once revealed
            pool.append(t)
            slots.append((r, i))
    return pool, slots


def deal_starting(s: State, slots: list[tuple[str, int]], take: Callable[[], str]) -> None:
    """Put a tile from ``take`` in each of ``slots``, in their order (:func:`hidden_starting`);
    before the tiles are revealed a player's hidden choice follows its slot."""
    revealed = s["phase"] != "setup"
    for r, i in slots:
        p = s["players"][r]
        old = p["offer"][i]
        p["offer"][i] = take()
        if not revealed and p["start_tile"] == old:
            p["start_tile"] = p["offer"][i]  # the hidden choice follows its slot


def redeal(state: State, role: str, seed: int) -> State:
    s = clone(state)
    holder = {"rng": rng.seed_state(seed)}
    rng.shuffle(holder, s["minor_deck"])
    rng.shuffle(holder, s["poem_deck"])
    piles = s["store_piles"]["left"] + s["store_piles"]["right"]
    rng.shuffle(holder, piles)
    n_left = len(s["store_piles"]["left"])
    s["store_piles"] = {"left": piles[:n_left], "right": piles[n_left:]}
    pool, slots = hidden_starting(s, role)
    rng.shuffle(holder, pool)
    deal_starting(s, slots, pool.pop)
    s["unused_starting"] = sorted(pool)
    if s["event_stack"]:  # face-down Events: any unseen Events of the same polarities, in any order
        polarities = [EVENTS[e]["polarity"] for e in s["event_stack"]]
        unseen = {pol: [e for e, d in EVENTS.items() if d["polarity"] == pol and e not in s["events_seen"]]
                for pol in ("positive", "negative")}
        for pol in unseen:
            rng.shuffle(holder, unseen[pol])
        fresh = [unseen[pol].pop() for pol in polarities]
        rng.shuffle(holder, fresh)
        s["event_stack"] = fresh
    if "yusuf" in s:  # Yusuf's Worker tile pile and his three decks are face down
        rng.shuffle(holder, s["yusuf"]["pile"])
        for deck in s["yusuf"]["decks"].values():
            rng.shuffle(holder, deck)
    s["rng"] = holder["rng"]
    return s
