"""Setting up a game: the yard, Dirk's tiles, the starting capital, the money deck's five piles.

Everything random is drawn from ``state["rng"]``. The bag is kept as a sorted list: which
tiles it holds is public (every other tile lies open somewhere), and each draw from it is a
fresh random pick, so the bag has no hidden order to leak.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.granada_city.core import State, log, name, sort_cards, totals, value_of
from engine.granada_city.data import CATALOG, card_text, tile_text

STARTING_CAPITAL = 20
DISPLAY = 4
PILES = 5
DIRK_START = 6


def roles_for(options: dict[str, Any]) -> list[str]:
    n = int(options.get("players", 3))
    if not 2 <= n <= 6:
        raise ValueError(f"Granada is for 2 to 6 players, not {n}")
    return list(CATALOG.colours[:n])


def draw_tile(state: State, side: str) -> list[str]:
    """A random tile from the bag, with ``side`` up."""
    bag = state["bag"]
    tid = bag.pop(rng.randbelow(state, len(bag)))
    return [tid, side]


def draw_money(state: State) -> str | None:
    """The top card of the money deck (the discard pile shuffled in when the deck runs out)."""
    if not state["deck"]:
        if not state["discard"]:
            return None
        state["deck"] = sort_cards(state["discard"])
        state["discard"] = []
        rng.shuffle(state, state["deck"])
        state["piles"] = [len(state["deck"])]
        log(state, "The money deck is exhausted: the discard pile is shuffled into a new deck.")
    card: str = state["deck"].pop(0)
    for i, n in enumerate(state["piles"]):
        if n:
            state["piles"][i] = n - 1
            break
    state["reveals"] += 1
    return card


def build_piles(cards: list[str], state: State) -> tuple[list[str], list[int]]:
    """The deck of five piles of similar size, A shuffled into the second, B into the fourth."""
    size, extra = divmod(len(cards), PILES)
    piles: list[list[str]] = []
    at = 0
    for i in range(PILES):
        n = size + (1 if i < extra else 0)
        piles.append(cards[at:at + n])
        at += n
    for pile, card in ((piles[1], "A"), (piles[3], "B")):
        pile.insert(rng.randbelow(state, len(pile) + 1), card)
    return [c for p in piles for c in p], [len(p) for p in piles]


def new_state(seed: int, options: dict[str, Any]) -> State:
    roles = roles_for(options)
    two = len(roles) == 2
    state: State = {
        "game": "granada_city",
        "rng": rng.seed_state(seed),
        "log": [],
        "reveals": 0,
        "options": {"players": len(roles), "simplified": bool(options.get("simplified", False))},
        "roles": roles,
        "bag": list(CATALOG.tile_order),
        "yard": [None] * 4,
        "marker": "even",
        "deck": [],
        "piles": [],
        "display": [],
        "discard": [],
        "aside": [],
        "hands": {r: [] for r in roles},
        "cities": {r: {"0,0": [f"start-{r}", "start"]} for r in roles},
        "supplies": {r: [] for r in roles},
        "dirk": [] if two else None,
        "scores": {r: 0 for r in roles} | ({"dirk": 0} if two else {}),
        "turn_number": 0,
        "turn": None,
        "stage": "play",
        "pending": None,
        "page": 0,
        "due": [],
        "scorings": [],
        "awards": [],
        "result": None,
    }
    log(state, f"Granada for {len(roles)} players: {', '.join(name(r) for r in roles)}"
               + (" (simplified scoring)." if state["options"]["simplified"] else "."))
    for space in range(4):
        state["yard"][space] = draw_tile(state, "even")
    state["marker"] = "odd"
    log(state, "Construction yard: " + ", ".join(
        f"{i + 1}: {tile_text(*t)}" for i, t in enumerate(state["yard"]) if t) + ". The black marker shows odd.")
    if two:
        state["dirk"] = [draw_tile(state, "even") for _ in range(DIRK_START)]
        log(state, "Dirk, the imaginary third player, receives " + ", ".join(tile_text(*t) for t in state["dirk"]) + ".")
    money = list(CATALOG.money)
    if two:
        state["aside"] = [c for c in money if c.endswith("-3")]
        money = [c for c in money if not c.endswith("-3")]
        log(state, f"2 players: one copy of each money card is set aside; {len(money)} money cards remain.")
    rng.shuffle(state, money)
    for role in roles:
        dealt: list[str] = []
        while sum(value_of(c) for c in dealt) < STARTING_CAPITAL:
            dealt.append(money.pop(0))
        state["hands"][role] = dealt
        log(state, f"{name(role)}'s starting capital, dealt face up: {', '.join(card_text(c) for c in dealt)} "
                   f"({len(dealt)} cards, total {sum(value_of(c) for c in dealt)}).")
    fewest = min(len(state["hands"][r]) for r in roles)
    tied = [r for r in roles if len(state["hands"][r]) == fewest]
    lowest = min(sum(totals(state["hands"][r]).values()) for r in tied)
    tied = [r for r in tied if sum(totals(state["hands"][r]).values()) == lowest]
    if len(tied) > 1:
        first = tied[rng.randbelow(state, len(tied))]
        log(state, f"{', '.join(name(r) for r in tied)} tie with {fewest} cards totalling {lowest}: "
                   f"lots are drawn (instead of the youngest player) and {name(first)} starts.")
    else:
        first = tied[0]
        log(state, f"{name(first)} starts, with the fewest cards ({fewest}) and then the lowest total ({lowest}).")
    state["display"] = [money.pop(0) for _ in range(DISPLAY)]
    log(state, "Money on display: " + ", ".join(card_text(c) for c in state["display"]) + ".")
    state["deck"], state["piles"] = build_piles(money, state)
    state["first"] = first
    return state
