"""Game setup and Player setup: the board, the displays and decks, each player's
components, and the choice of a Starting tile (the solo game's Yusuf is set up by
:mod:`.yusuf`).
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, State
from engine.sabika import data as D
from engine.sabika import names as N
from engine.sabika.data import (
    BALANCES,
    DATA,
    EVENTS,
    GOODS,
    MAJORS,
    STARTING,
)
from engine.sabika.state import (
    COLOURS,
    R_PLAYER_SETUP,
    WORKERS,
    YUSUF,
    Decision,
    draw_raw,
    log,
    opt,
    order,
    push,
    push_bonus,
    ring,
    seat,
    secondaries,
)
from engine.sabika.yusuf import setup_yusuf


def new_state(seed: int, n: int, yusuf_pp: int | None = None, events: str = "none") -> State:
    """The state after setup; ``n`` 1 is the solo game against Yusuf (set up as for 2 players)."""
    s: State = {"game": "sabika", "rng": rng.seed_state(seed), "reveals": 0, "log": [], "n": n,
                "roles": COLOURS[:n], "phase": "setup", "round": 1, "narrator": 1, "stack": [], "steps": [],
                "turn": None, "result": None, "seats": COLOURS[:n] + ([YUSUF] if n == 1 else []), "stamp": 0}
    roles: list[str] = s["roles"]
    s["board"] = "small" if n <= 2 else "large"
    sultan = DATA["sultan_workers"][s["board"]] if n < 4 else {"outer": [], "middle": [], "inner": []}
    s["sultan"] = {r: [p for p in sultan[r] if p in ring(n, r)] for r in ("outer", "middle", "inner")}
    per = DATA["goods"]["tokens_per_kind"]
    s["bag"] = {g: per for g in GOODS}
    s["discard_goods"] = {g: 0 for g in GOODS}
    s["raw_squares"] = {str(i): draw_raw(s) for i in secondaries(n, "raw")}
    s["marble_squares"] = {str(i): True for i in secondaries(n, "marble")}
    wishes = {}
    for letter, space in zip("ABC", DATA["rounds"]["wish_spaces"], strict=True):
        wishes[str(space)] = rng.choice(s, [w for w in D.WISHES if w[0] == letter])
    spaces = [str(x) for x in DATA["rounds"]["wish_spaces"]]
    rng.shuffle(s, spaces)  # the three tiles are placed randomly on the dotted spaces
    s["wishes"] = {sp: wishes[str(x)] for sp, x in zip(spaces, DATA["rounds"]["wish_spaces"], strict=True)}
    s["tower"] = []
    s["majors"] = {"1": [t for t, d in MAJORS.items() if d["era"] == 1],
                   "2": [t for t, d in MAJORS.items() if d["era"] == 2 and (n >= 3 or not d.get("large"))]}
    tiles = list(D.STOREHOUSES)
    rng.shuffle(s, tiles)
    s["store_piles"] = {"left": tiles[:12], "right": tiles[12:]}
    s["store_display"] = {side: [s["store_piles"][side].pop(), s["store_piles"][side].pop()] for side in ("left", "right")}
    deck = list(D.MINORS)
    rng.shuffle(s, deck)
    s["minor_deck"] = deck
    s["minor_display"] = [deck.pop() for _ in range(4)]
    s["minor_discard"] = []
    poems = list(D.POEMS)
    rng.shuffle(s, poems)
    s["poem_deck"] = poems
    s["poem_display"] = [poems.pop() for _ in range({1: 3, 2: 3, 3: 4, 4: 5}[n])]
    majors = [c for c in D.MAJOR_POEMS if n > 1 or c != DATA["yusuf"]["removed_major_poem"]]
    rng.shuffle(s, majors)
    chosen: list[str] = []
    for card in majors:
        if len(chosen) == 2 * max(n, 2):
            break
        if card[0] not in {c[0] for c in chosen}:
            chosen.append(card)  # a repeated letter is discarded and another drawn
    s["major_poems"] = chosen
    city_tiles = list(D.CITY_TILES)
    rng.shuffle(s, city_tiles)
    s["cities"] = {c: {"tile": city_tiles[i], "seal": True, "left": [], "right": []} for i, c in enumerate(D.CITIES)}
    s["trade"] = rng.choice(s, sorted(D.TRADE))
    balances = list(BALANCES)
    rng.shuffle(s, balances)
    starting = list(STARTING)
    rng.shuffle(s, starting)
    s["players"] = {}
    for i, role in enumerate(roles):
        s["players"][role] = {
            "pp": DATA["players"]["start_pp"], "dinars": 0, "parias": 0, "stamp": 0, "favour": 0, "seals": 0,
            "stores": [{"tiles": [], "items": []} for _ in range(4)], "processing": [], "row": [balances[i]],
            "balances": [], "majors": [], "minors": [], "blue": [], "red": [], "grey": [], "ships": DATA["map"]["ships"],
            "offer": [starting.pop(), starting.pop()], "start_tile": None,
            "workers": {w: {"at": None, "up": True} for w in WORKERS},
        }
    s["unused_starting"] = starting
    s["events"] = events
    s["event"] = None
    s["event_stack"] = _deal_events(s, events)
    s["events_seen"] = []
    if n == 1:
        setup_yusuf(s, DATA["yusuf"]["start_pp"] if yusuf_pp is None else yusuf_pp)
        log(s, f"Sabika solo: {roles[0]} against Yusuf ({s['yusuf']['pp']} PP). Choose one of two Starting tiles.")
        return s
    log(s, f"Sabika for {n} players: {', '.join(roles)}. Each player chooses one of two Starting tiles in secret.")
    return s


def _deal_events(s: State, mode: str) -> list[str]:
    """The 3 Events of the advanced mode, face down: 1 positive and 2 negative, or 3 negative."""
    if mode == "none":
        return []
    positive = [e for e, d in EVENTS.items() if d["polarity"] == "positive"]
    negative = [e for e, d in EVENTS.items() if d["polarity"] == "negative"]
    rng.shuffle(s, positive)
    rng.shuffle(s, negative)
    chosen = (positive[:1] + negative[:2]) if mode == "mixed" else negative[:3]
    rng.shuffle(s, chosen)
    return chosen


def _o_start_tile(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    return [opt("start_tile", f"Keep {N.tagged(t, N.starting)}", tile=t)
            for t in p["offer"]]


def _r_start_tile(s: State, dec: dict[str, Any], a: Action) -> None:
    p = s["players"][dec["role"]]
    p["start_tile"] = a["tile"]
    if all(q["start_tile"] for q in s["players"].values()):
        _reveal_start_tiles(s)


def _reveal_start_tiles(s: State) -> None:
    s["reveals"] += 1
    chosen = {r: s["players"][r]["start_tile"] for r in s["roles"]}
    log(s, "Starting tiles revealed: " + ", ".join(f"{r} {N.starting(t)}" for r, t in chosen.items()) + ".")
    if s["n"] == 1:
        s["start"] = YUSUF
        log(s, "Yusuf is the Starting Player of the first round.")
    else:
        s["start"] = max(s["roles"], key=lambda r: STARTING[chosen[r]]["num"])
        log(s, f"{s['start']} chose the highest Starting tile and takes the Starting Player token.")
    roles = order(s)
    for pos, r in enumerate(roles):
        seat(s, r)["stamp"] = len(roles) - pos  # the starting player's Paria token on top of the pile
    s["stamp"] = len(roles)
    s["phase"] = "actions"
    dinars = DATA["starting_tiles"]["dinars_by_position"]
    for pos in range(len(roles) - 1, -1, -1):
        r = roles[pos]
        if r == YUSUF:
            continue
        s["players"][r]["dinars"] += dinars[pos]
        push_bonus(s, r, STARTING[chosen[r]]["bonus"], f"Starting tile {STARTING[chosen[r]]['num']}")
    if s["n"] == 1:  # Yusuf's first Ship is placed with his components, before the Starting tiles pay
        push(s, {"kind": "yusuf", "role": s["roles"][0], "step": "initial_ship"})
    log(s, "Starting Dinars by turn order: " + ", ".join(f"{r} {dinars[i]}" for i, r in enumerate(roles)
                                                       if r != YUSUF) + ".")
    s["turn"] = None


DECISIONS: dict[str, Decision] = {
    "start_tile": Decision(_o_start_tile, _r_start_tile, R_PLAYER_SETUP),
}
