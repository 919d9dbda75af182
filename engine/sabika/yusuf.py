"""Solo mode: Yusuf, the automaton. His setup, his turns (a Worker tile, then a card of
that Worker's deck), his actions, his Ships and Cities (the player decides between
equidistant Cities), his tribute and his final scoring.
"""

from __future__ import annotations

from typing import Any

from engine import rng
from engine.api import Action, State
from engine.sabika import names as N
from engine.sabika.data import (
    CITIES,
    CITY_TILES,
    DATA,
    MAJOR_POEMS,
    MAJORS,
    MINORS,
    STOREHOUSES,
    TRADE,
    WISHES,
    WORKER_RONDEL,
)
from engine.sabika.middle import distances, presence
from engine.sabika.names import ACTION_NAME, RAW_NAME
from engine.sabika.scoring import trade_points, wish_count
from engine.sabika.state import WORKERS, YUSUF, Decision, era, gain_parias, gain_pp, log, opt, push, ring
from engine.sabika.turn import square_action, square_secondary
from engine.text import plural

YUSUF_DATA = DATA["yusuf"]
DATA_YUSUF_CARDS = {c["id"]: c for c in YUSUF_DATA["cards"]}


def setup_yusuf(s: State, pp: int) -> None:
    """Yusuf's Action Board: his tokens on the board, Workers beside it, tile pile and three decks."""
    pile = list(YUSUF_DATA["tiles"])
    rng.shuffle(s, pile)
    decks = {}
    for worker in ("builder", "merchant", "poet"):
        deck = [c["id"] for c in YUSUF_DATA["cards"] if c["worker"] == worker]
        rng.shuffle(s, deck)
        decks[worker] = deck
    s[YUSUF] = {"pp": pp, "parias": 0, "stamp": 0, "favour": 0, "seals": 0, "ships": DATA["map"]["ships"],
                "workers": {w: {"at": None, "up": True} for w in WORKERS}, "majors": [], "minors": [],
                "poems": [], "grey": [], "storehouses": [], "pile": pile, "revealed": [], "decks": decks,
                "discards": {"builder": [], "merchant": [], "poet": []}, "card": None}


def _trade_match(s: State, city: str) -> bool:
    card = TRADE[s["trade"]]
    if "region" in card:
        return bool(CITIES[city]["region"] == card["region"])
    return bool(CITY_TILES[s["cities"][city]["tile"]]["colour"] == card["colour"])


def _yusuf_cities(s: State, purpose: str) -> list[str]:
    """The nearest Cities Yusuf may take: for the initial Ship, nearest to Granada meeting the Trade card;
    for an export, also with a Seal, nearest to Granada or a City where he has a presence."""
    if purpose == "initial":
        dist = distances(s, ["granada"])
        cands = [c for c in CITIES if _trade_match(s, c)]
    else:
        dist = distances(s, ["granada", *presence(s, YUSUF)])
        cands = [c for c in CITIES if _trade_match(s, c) and s["cities"][c]["seal"] and c not in presence(s, YUSUF)]
    if not cands:
        return []
    best = min(dist[c] for c in cands)
    return [c for c in cands if dist[c] == best]


def _yusuf_place(s: State, city: str, purpose: str) -> None:
    y = s[YUSUF]
    info = s["cities"][city]
    y["ships"] -= 1
    (info["right"] if purpose == "initial" else info["left"]).append(YUSUF)
    took = info["seal"]
    if took:
        info["seal"] = False
        y["seals"] += 1
    where = "consolidated" if purpose == "initial" else "exporting (no City Bonus)"
    log(s, f"Yusuf places a Ship in {CITIES[city]['name']}, {where}{', and takes its Seal' if took else ''}.")


def _o_yusuf_city(s: State, dec: dict[str, Any]) -> list[Action]:
    return [opt("yusuf_city", f"Yusuf goes to {CITIES[c]['name']}", city=c) for c in dec["cities"]]


def _r_yusuf_city(s: State, dec: dict[str, Any], a: Action) -> None:
    _yusuf_place(s, a["city"], dec["purpose"])


def _yusuf_choose_city(s: State, purpose: str) -> None:
    cities = _yusuf_cities(s, purpose)
    if not cities:
        log(s, "No City meets the Trade card for Yusuf: his Merchant exports nothing.")
    elif len(cities) == 1:
        _yusuf_place(s, cities[0], purpose)
    else:  # equidistant Cities: the player decides
        push(s, {"kind": "yusuf_city", "role": s["roles"][0], "cities": cities, "purpose": purpose})


def yusuf_turn(s: State) -> None:
    y = s[YUSUF]
    tile = y["pile"].pop()
    y["revealed"].append(tile)
    s["reveals"] += 1
    log(s, f"Yusuf reveals a Worker tile: {'Master Builder' if tile == 'builder' else tile.capitalize()}.")
    push(s, {"kind": "yusuf", "role": s["roles"][0], "step": "card", "worker": tile})


def _yusuf_draw(s: State, worker: str) -> str:
    y = s[YUSUF]
    if not y["decks"][worker]:
        y["decks"][worker] = y["discards"][worker]  # an exhausted deck: the discards shuffled
        y["discards"][worker] = []
        rng.shuffle(s, y["decks"][worker])
    card: str = y["decks"][worker].pop()
    s["reveals"] += 1
    return card


def _yusuf_builder(s: State, target: int) -> str | None:
    """The Master Builder that moves: the standing one closest clockwise to the square, or None when it
    would join the other Master Builder there (the card is then discarded unresolved)."""
    y = s[YUSUF]
    squares = ring(s["n"], "outer")
    standing = [w for w in ("builder1", "builder2") if y["workers"][w]["up"]]

    def steps(w: str) -> int:
        at = y["workers"][w]["at"]
        return 0 if at is None else (squares.index(target) - squares.index(at)) % len(squares)

    w = min(standing, key=lambda x: (steps(x), x))
    other = "builder2" if w == "builder1" else "builder1"
    if y["workers"][w]["at"] != target and y["workers"][other]["at"] == target:
        return None
    return w


def yusuf_step(s: State, dec: dict[str, Any]) -> None:
    y = s[YUSUF]
    step = dec["step"]
    if step == "initial_ship":
        _yusuf_choose_city(s, "initial")
    elif step == "card":
        worker = dec["worker"]
        name = {"builder": "Master Builder", "merchant": "Merchant", "poet": "Poet"}[worker]
        card_id, w = _yusuf_reveal(s, worker, name)
        card = DATA_YUSUF_CARDS[card_id]
        y["card"] = card_id
        info = y["workers"][w]
        rondel = WORKER_RONDEL[worker]
        info["at"], info["up"] = card["square"], False
        log(s, f"Yusuf's {name} goes to square {card['square']} ({ACTION_NAME[square_action(rondel, card['square'])]}).")
        if card["discard"]:
            found = square_secondary(s, rondel, card["square"])
            if found is not None:
                kind, i = found
                if kind == "raw" and s["raw_squares"][str(i)] is not None:
                    token = s["raw_squares"][str(i)]
                    s["discard_goods"][token] += 1
                    s["raw_squares"][str(i)] = None
                    log(s, f"Yusuf discards the {RAW_NAME[token]} of the Secondary Action.")
                elif kind == "marble" and s["marble_squares"][str(i)]:
                    s["marble_squares"][str(i)] = False
                    log(s, "Yusuf discards the Marble of the Secondary Action.")
        push(s, {"kind": "yusuf", "role": dec["role"], "step": "reward", "card": card_id})
        for act in reversed(card["actions"]):
            push(s, {"kind": "yusuf", "role": dec["role"], "step": act, "card": card_id})
    elif step == "reward":
        card = DATA_YUSUF_CARDS[dec["card"]]
        if card["pp"]:
            gain_pp(s, YUSUF, card["pp"], N.yusuf_card(dec["card"]))
        if card["parias"]:
            gain_parias(s, YUSUF, card["parias"])
            log(s, f"Yusuf earns {plural(card['parias'], 'Paria')} ({N.yusuf_card(dec['card'])}).")
        y["discards"][card["worker"]].append(dec["card"])
        y["card"] = None
    elif step == "major":
        tiles = s["majors"][str(era(s))]
        if not tiles:
            log(s, "No Major Construction is left for Yusuf in this Era.")
            return
        wanted = desired_types(s)
        match = [t for t in tiles if MAJORS[t]["type"] in wanted] or tiles
        t = max(match, key=lambda x: MAJORS[x]["num"])
        tiles.remove(t)
        y["majors"].append(t)
        y["favour"] = min(y["favour"] + 1, len(DATA["favour_track"]["spaces"]))
        log(s, f"Yusuf takes a {N.major(t)} and advances on the Favour track "
               f"(no bonus).")
    elif step == "minor":
        wanted = desired_types(s)
        slots = [i for i in range(len(s["minor_display"]) - 1, -1, -1) if s["minor_display"][i] is not None]
        if not slots:
            return
        match = [i for i in slots if MINORS[s["minor_display"][i]]["type"] in wanted]
        # the lowest numbered matching card; with none, the card of the rightmost column
        i = min(match, key=lambda k: MINORS[s["minor_display"][k]]["num"]) if match else slots[0]
        card_id = s["minor_display"][i]
        s["minor_display"][i] = None
        y["minors"].append(card_id)
        log(s, f"Yusuf takes a {N.minor(card_id)}.")
    elif step == "storehouse":
        side = DATA["rondels"]["outer"][DATA_YUSUF_CARDS[dec["card"]]["square"]]["side"]
        for sd in (side, "right" if side == "left" else "left"):
            slots = [i for i, t in enumerate(s["store_display"][sd]) if t is not None]
            if slots:
                i = max(slots, key=lambda k: (STOREHOUSES[s["store_display"][sd][k]]["boxes"], -k))
                tile = s["store_display"][sd][i]
                s["store_display"][sd][i] = None
                y["storehouses"].append(tile)
                log(s, f"Yusuf takes a {N.storehouse(tile)}, without its bonus.")
                return
    elif step == "export":
        if y["ships"] > 0:
            _yusuf_choose_city(s, "export")
    elif step == "minor_poem":
        slots = [i for i, c in enumerate(s["poem_display"]) if c is not None]
        if slots:
            card_id = s["poem_display"][slots[0]]
            s["poem_display"][slots[0]] = None
            y["poems"].append(card_id)
            log(s, f"Yusuf takes a Minor {N.poem(card_id)}.")
    elif step == "major_poem":
        slots = [i for i, c in enumerate(s["major_poems"]) if c is not None]
        if slots and len(y["grey"]) < 2:
            card_id = s["major_poems"][slots[0]]
            s["major_poems"][slots[0]] = None
            y["grey"].append(card_id)
            log(s, f"Yusuf takes a {N.major_poem(card_id)}.")
    elif step == "tribute":
        owed = dec["owed"]
        track = min(owed, y["parias"])
        y["parias"] -= track
        if track:
            s["stamp"] += 1
            y["stamp"] = s["stamp"]
        seals = min(owed - track, y["seals"])
        y["seals"] -= seals
        short = min(owed - track - seals, y["pp"])
        y["pp"] -= short
        unpaid = owed - track - seals - short
        parts = [f"{n} by {what}" for n, what in ((track, "Paria track"), (seals, "Seals"), (short, "PP")) if n]
        if unpaid:
            parts.append(f"{unpaid} unpaid (nothing left to pay with)")
        log(s, f"Yusuf pays the tribute of {plural(owed, 'Paria')}: " + (", ".join(parts) or "nothing") + ".")


def _yusuf_reveal(s: State, worker: str, name: str) -> tuple[str, str]:
    """The card Yusuf resolves and the Worker it moves; a Master Builder card that would join the
    other Master Builder on its square is discarded unresolved and another one revealed."""
    y = s[YUSUF]
    while True:
        card_id = _yusuf_draw(s, worker)
        card = DATA_YUSUF_CARDS[card_id]
        log(s, f"Yusuf reveals a {N.yusuf_card(card_id)}.")
        w = _yusuf_builder(s, card["square"]) if worker == "builder" else worker
        if w is not None:
            return card_id, w
        y["discards"][worker].append(card_id)
        log(s, f"Yusuf's other Master Builder is already there: his {N.yusuf_card(card_id)} is discarded unresolved.")


def desired_types(s: State) -> set[str]:
    """The Sultan's desired building types: those shown on the Sultan's Wish tile of letter A in play."""
    tile = next(w for w in s["wishes"].values() if w.startswith("A"))
    return {el for el, _ in WISHES[tile]["items"]}


def yusuf_major_poem_points(s: State, card: str) -> int:
    y = s[YUSUF]
    crit, pts = MAJOR_POEMS[card]["crit"], MAJOR_POEMS[card]["pp"]
    types = [MINORS[c]["type"] for c in y["minors"]]
    regions = [CITIES[c]["region"] for c in presence(s, YUSUF)]
    count = {
        "blue_poem": 0, "red_poem": 0,  # his Minor Poems have no colour (the book's clarification is A3's)
        "poem_trio": min(len(y["grey"]), len(y["poems"]) // 2),  # A3: two Minor Poems and one Major Poem
        "palace": wish_count(s, YUSUF, "palace"), "fountain": wish_count(s, YUSUF, "fountain"), "door": wish_count(s, YUSUF, "door"),
        "minor": len(y["minors"]), "minor_set": min(types.count("garden"), types.count("tower"), types.count("window")),
        "balance": len(y["minors"]),  # C3: each Minor Construction counts as an Architectural Balance
        "presence": len(presence(s, YUSUF)), "consolidated": wish_count(s, YUSUF, "consolidated"), "seal": y["seals"],
        "expansion": len(y["storehouses"]), "boxes": 4 + sum(STOREHOUSES[t]["boxes"] for t in y["storehouses"]),
        "goods": 0, "favour": y["favour"], "major": len(y["majors"]),
        "region_set": min(regions.count("europe"), regions.count("maghreb"), regions.count("near_east")),
        "garden_tower_window": max((types.count(t) for t in ("garden", "tower", "window")), default=0),
        "blue_city": sum(1 for c in s["cities"].values() if YUSUF in c["right"]
                         and CITY_TILES[c["tile"]]["colour"] == "blue"),
    }[crit]
    return int(count * pts)


def yusuf_final(s: State) -> None:
    y = s[YUSUF]
    for card in y["grey"]:
        gain_pp(s, YUSUF, yusuf_major_poem_points(s, card), N.major_poem(card))
    gain_pp(s, YUSUF, trade_points(s, YUSUF), N.trade(s["trade"]))
    gain_pp(s, YUSUF, y["seals"], "leftover Seals (Yusuf manages no Resources)")


DECISIONS: dict[str, Decision] = {
    "yusuf_city": Decision(_o_yusuf_city, _r_yusuf_city, "solo-export-action"),
}
