"""Sabika's rules: setup, the three rondels and their actions, bonuses, the end of round and
the final scoring.

Every decision is a small step. ``state["stack"]`` holds the decisions under way (the top is
the last item); each has a ``kind`` and the ``role`` that takes it. :func:`options` lists the
legal answers to the top decision and :func:`resolve` applies one; a resolver may push more
decisions (a bonus pushes one decision per effect, in order). When the stack is empty the
game flow (:func:`_advance`) starts the next turn or the next end-of-round step.

Rule references (``RuleError.rule``) are the rulebook's headings, as slugs listed in
``data/headings.json``.
"""

from __future__ import annotations

import heapq
from typing import Any

from engine import rng
from engine.api import Action, RuleError, State, clone, require_legal
from engine.sabika import names as N
from engine.sabika.data import (
    BALANCES,
    CITIES,
    CITY_TILES,
    DATA,
    EVENTS,
    GOODS,
    MAJOR_POEMS,
    MAJORS,
    MATERIALS,
    MINORS,
    POEMS,
    PP_VALUE,
    STARTING,
    STOREHOUSES,
    TRADE,
    WISHES,
    WORKER_RONDEL,
)
from engine.sabika.names import ACTION_NAME, ITEM_NAME, RAW_NAME, describe_bonus, describe_effect
from engine.text import plural, sentence

COLOURS: list[str] = DATA["players"]["colours"]
YUSUF = "yusuf"
WORKERS = ("builder1", "builder2", "merchant", "poet")

# rule slugs (see data/headings.json)
R_SETUP = "game-setup"
R_PLAYER_SETUP = "player-setup"
R_ACTIONS = "phase-i-actions"
R_RESOURCES = "resources"
R_STOREHOUSES = "storehouses"
R_STOREHOUSE_ACTION = "storehouse-action"
R_MARKET = "market-action"
R_CONSTRUCTION = "construction-action"
R_MAJOR = "major-construction-action"
R_MINOR = "minor-construction-action"
R_EXPORT = "export-action"
R_CONSOLIDATE = "consolidate-action"
R_PRODUCE = "produce-action"
R_POEMS = "inner-rondel-carving-poems"
R_REACTIVATE = "reactivate-action"
R_ARTISANAL = "artisanal-labour-action"
R_SECONDARY = "secondary-actions"
R_PARIAS = "parias"
R_NARRATOR = "narrator"
R_START = "starting-player"


# ---------------------------------------------------------------------------- setup


def ring(n: int, rondel: str) -> list[int]:
    """The squares of a rondel in play, clockwise: the 4-player square is covered otherwise."""
    return [i for i, sq in enumerate(DATA["rondels"][rondel]) if n == 4 or not sq.get("four")]


def secondaries(n: int, kind: str) -> list[int]:
    return [i for i, s in enumerate(DATA["secondary"][kind]) if n == 4 or not s.get("four")]


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
    s["raw_squares"] = {str(i): _draw_raw(s) for i in secondaries(n, "raw")}
    s["marble_squares"] = {str(i): True for i in secondaries(n, "marble")}
    wishes = {}
    for letter, space in zip("ABC", DATA["rounds"]["wish_spaces"], strict=True):
        wishes[str(space)] = rng.choice(s, [w for w in WISHES if w[0] == letter])
    spaces = [str(x) for x in DATA["rounds"]["wish_spaces"]]
    rng.shuffle(s, spaces)  # the three tiles are placed randomly on the dotted spaces
    s["wishes"] = {sp: wishes[str(x)] for sp, x in zip(spaces, DATA["rounds"]["wish_spaces"], strict=True)}
    s["tower"] = []
    s["majors"] = {"1": [t for t, d in MAJORS.items() if d["era"] == 1],
                   "2": [t for t, d in MAJORS.items() if d["era"] == 2 and (n >= 3 or not d.get("large"))]}
    tiles = list(STOREHOUSES)
    rng.shuffle(s, tiles)
    s["store_piles"] = {"left": tiles[:12], "right": tiles[12:]}
    s["store_display"] = {side: [s["store_piles"][side].pop(), s["store_piles"][side].pop()] for side in ("left", "right")}
    deck = list(MINORS)
    rng.shuffle(s, deck)
    s["minor_deck"] = deck
    s["minor_display"] = [deck.pop() for _ in range(4)]
    s["minor_discard"] = []
    poems = list(POEMS)
    rng.shuffle(s, poems)
    s["poem_deck"] = poems
    s["poem_display"] = [poems.pop() for _ in range({1: 3, 2: 3, 3: 4, 4: 5}[n])]
    majors = [c for c in MAJOR_POEMS if n > 1 or c != DATA["yusuf"]["removed_major_poem"]]
    rng.shuffle(s, majors)
    chosen: list[str] = []
    for card in majors:
        if len(chosen) == 2 * max(n, 2):
            break
        if card[0] not in {c[0] for c in chosen}:
            chosen.append(card)  # a repeated letter is discarded and another drawn
    s["major_poems"] = chosen
    city_tiles = list(CITY_TILES)
    rng.shuffle(s, city_tiles)
    s["cities"] = {c: {"tile": city_tiles[i], "seal": True, "left": [], "right": []} for i, c in enumerate(CITIES)}
    s["trade"] = rng.choice(s, sorted(TRADE))
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
        _setup_yusuf(s, DATA["yusuf"]["start_pp"] if yusuf_pp is None else yusuf_pp)
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


def event_is(s: State, role: str, effect: str) -> bool:
    """Whether the active Event has ``effect`` for ``role`` (Yusuf ignores Events)."""
    return role != YUSUF and s.get("event") is not None and EVENTS[s["event"]]["effect"] == effect


def _draw_raw(s: State) -> str | None:
    if sum(s["bag"].values()) == 0:
        for g in GOODS:  # an empty bag is refilled with the discarded tokens
            s["bag"][g] += s["discard_goods"][g]
            s["discard_goods"][g] = 0
    pool = [g for g in GOODS for _ in range(s["bag"][g])]
    if not pool:
        return None
    g = rng.choice(s, pool)
    s["bag"][g] -= 1
    return g


def log(s: State, text: str) -> None:
    # a line that begins with a role begins with its name capitalised: "Blue takes clay"
    s["log"].append({"text": sentence(text)})


def order(s: State) -> list[str]:
    """The seats in turn order from the Starting Player (Yusuf has a seat in solo, never a role)."""
    seats: list[str] = s["seats"]
    i = seats.index(s["start"])
    return seats[i:] + seats[:i]


def seat(s: State, r: str) -> dict[str, Any]:
    """A player's or Yusuf's tokens (PP, Parias, Seals, Favour, Workers)."""
    found: dict[str, Any] = s[YUSUF] if r == YUSUF else s["players"][r]
    return found


def era(s: State) -> int:
    return int(DATA["rounds"]["era"][min(s["round"], 5) - 1])


# ---------------------------------------------------------------------------- resources


def capacity(p: dict[str, Any], i: int) -> int:
    boxes = DATA["storehouses"]["starting_boxes"] + sum(STOREHOUSES[t]["boxes"] for t in p["stores"][i]["tiles"])
    if i == 0 and "storage" in blue_effects(p):
        boxes += 1
    return int(boxes)


def blue_effects(p: dict[str, Any]) -> list[str]:
    return [POEMS[c]["blue"] for c in p["blue"]]


def holdings(p: dict[str, Any]) -> dict[str, int]:
    count: dict[str, int] = {}
    for st in p["stores"]:
        for item in st["items"]:
            count[item] = count.get(item, 0) + 1
    return count


def has(p: dict[str, Any], item: str) -> bool:
    return any(item in st["items"] for st in p["stores"])


def take_item(s: State, p: dict[str, Any], item: str) -> None:
    """Remove one item from the first storehouse holding it (which storehouse gives it up is not a rule)."""
    for st in p["stores"]:
        if item in st["items"]:
            st["items"].remove(item)
            if item in GOODS:
                s["discard_goods"][item] += 1
            return
    raise RuleError(f"you have no {ITEM_NAME[item]}", R_STOREHOUSES)


def funds(p: dict[str, Any]) -> int:
    return int(p["dinars"] + p["seals"])


def gain_pp(s: State, role: str, n: int, why: str) -> None:
    p = seat(s, role)
    p["pp"] = max(0, p["pp"] + n)
    if n:
        log(s, f"{role} {'earns' if n > 0 else 'loses'} {abs(n)} PP ({why}).")


def gain_parias(s: State, role: str, n: int) -> None:
    p = seat(s, role)
    p["parias"] += n
    s["stamp"] = s.get("stamp", 0) + 1
    p["stamp"] = s["stamp"]  # a token landing on others goes on top of the pile


def push(s: State, decision: dict[str, Any]) -> None:
    s["stack"].append(decision)


def push_bonus(s: State, role: str, bonus: list[dict[str, Any]], why: str) -> None:
    """The effects of a bonus, resolved in the order printed (left to right)."""
    for effect in reversed(bonus):
        push(s, {"kind": "effect", "role": role, "effect": effect, "why": why})


def push_pay(s: State, role: str, amount: int, why: str) -> None:
    """A payment of Dinars; a player holding Seals decides how many of them pay (1 Dinar each)."""
    if amount <= 0:
        return
    push(s, {"kind": "pay", "role": role, "amount": amount, "why": why})


def push_store(s: State, role: str, item: str) -> None:
    push(s, {"kind": "store", "role": role, "item": item})


# ---------------------------------------------------------------------------- the rondels


def sultan_at(s: State, rondel: str, sq: int) -> int:
    return sum(1 for x in s["sultan"][rondel] if x == sq)


def others_at(s: State, role: str, worker: str, rondel: str, sq: int) -> int:
    count = sultan_at(s, rondel, sq)
    for r in s["seats"]:
        for w, info in seat(s, r)["workers"].items():
            if (r, w) != (role, worker) and WORKER_RONDEL[w.rstrip("12")] == rondel and info["at"] == sq:
                count += 1
    return count


def move_cost(s: State, role: str, worker: str, target: int) -> int:
    p = s["players"][role]
    rondel = WORKER_RONDEL[worker.rstrip("12")]
    squares = ring(s["n"], rondel)
    at = p["workers"][worker]["at"]
    free = (3 if "steps" in blue_effects(p) else 2) - (1 if event_is(s, role, "long_roads") else 0)
    steps = 0 if at is None else (squares.index(target) - squares.index(at)) % len(squares)
    crowd = 0 if "crowd" in blue_effects(p) else others_at(s, role, worker, rondel, target)
    if event_is(s, role, "crowds"):
        crowd *= 2
    return max(0, steps - free) + crowd


def destinations(s: State, role: str, worker: str) -> list[int]:
    """Squares a worker may end on: clockwise, at least one step (anywhere when coming from the workshop)."""
    p = s["players"][role]
    rondel = WORKER_RONDEL[worker.rstrip("12")]
    at = p["workers"][worker]["at"]
    return [sq for sq in ring(s["n"], rondel) if sq != at and move_cost(s, role, worker, sq) <= funds(p)]


def square_action(rondel: str, sq: int) -> str:
    return str(DATA["rondels"][rondel][sq]["a"])


def square_secondary(s: State, rondel: str, sq: int) -> tuple[str, int] | None:
    for kind in ("raw", "marble"):
        for i in secondaries(s["n"], kind):
            if DATA["secondary"][kind][i].get(rondel) == sq:
                return kind, i
    return None


def secondary_cost(s: State, role: str, kind: str, rondel: str) -> int:
    toll = 1 if event_is(s, role, "toll") else 0
    if "secondary" in blue_effects(s["players"][role]):
        return toll
    return int(DATA["secondary"]["cost"][kind][rondel]) + toll


def secondary_possible(s: State, role: str, rondel: str, sq: int) -> bool:
    found = square_secondary(s, rondel, sq)
    if found is None:
        return False
    kind, i = found
    p = s["players"][role]
    if funds(p) < secondary_cost(s, role, kind, rondel):
        return False
    if kind == "raw":
        return s["raw_squares"][str(i)] is not None or bool(p["processing"])
    return True


def main_possible(s: State, role: str, action: str, side: str | None = None) -> bool:
    """Whether the main action can do anything now; the square's menu offers only what can."""
    p = s["players"][role]
    h = holdings(p)
    if action in ("minor_quarry", "major_quarry", "market", "artisanal"):
        return True
    if action == "storehouse":
        tiles = _display_tiles(s, side)
        return bool(tiles and any(len(st["tiles"]) < 2 for st in p["stores"])) or bool(_activatable(p))
    if action == "construction":
        # something to build now, or new cards worth drawing: a base Material a card could ask for
        opts = _construct_options(s, role, refreshed=False)
        if any(o["type"] in ("major", "minor") for o in opts):
            return True
        return any(o["type"] == "refresh" for o in opts) and any(h.get(m) for m in MATERIALS[:3])
    if action == "export":
        return bool(_export_cities(s, role))
    if action == "consolidate":
        return any(role in c["left"] for c in s["cities"].values())
    if action == "produce":
        return bool(_presence(s, role)) or bool(p["processing"])
    if action == "carve":
        return bool(_carve_options(s, role)) and any(h.get(m) for m in MATERIALS[:3])
    if action == "reactivate":
        return bool(p["red"])
    raise ValueError(action)


def start_main(s: State, role: str, action: str, side: str | None, bonus: bool) -> None:
    """Push the decisions of a main action (also used when a bonus grants the action)."""
    p = s["players"][role]
    log(s, f"{role} carries out {'a bonus ' if bonus else 'the '}{ACTION_NAME[action]} Action.")
    if action in ("minor_quarry", "major_quarry"):
        of = ["gypsum", "wood"] if action == "minor_quarry" else ["wood", "marble"]
        n = 4 if event_is(s, role, "quarry_plus") else 3
        push_bonus(s, role, [{"k": "matchoice", "of": of, "n": n}], ACTION_NAME[action])
    elif action == "storehouse":
        push(s, {"kind": "storehouse", "role": role, "side": side})
    elif action == "market":
        extra = (1 if "market" in blue_effects(p) else 0) + (1 if event_is(s, role, "market_plus") else 0) \
            - (1 if event_is(s, role, "lean_market") else 0)
        push(s, {"kind": "market", "role": role, "left": 2 + extra})
        p["dinars"] += 2
        log(s, f"{role} earns 2 Dinars at the Market.")
    elif action == "construction":
        push(s, {"kind": "construct", "role": role, "refreshed": False})
    elif action == "export":
        push(s, {"kind": "export", "role": role})
    elif action == "consolidate":
        push(s, {"kind": "consolidate", "role": role})
    elif action == "produce":
        push(s, {"kind": "produce", "role": role, "city": False, "process": False})
    elif action == "carve":
        push(s, {"kind": "carve", "role": role})
    elif action == "reactivate":
        push(s, {"kind": "reactivate", "role": role})
    elif action == "artisanal":
        poems = len(p["blue"]) + len(p["red"]) + len(p["grey"])
        gain = 3 + poems // 2 + (2 if "artisan" in blue_effects(p) else 0)
        p["dinars"] += gain
        log(s, f"{role} earns {plural(gain, 'Dinar')} from Artisanal Labour ({plural(poems, 'Poem card')}).")


# ---------------------------------------------------------------------------- options per decision


def _opt(type_: str, label: str, **kw: Any) -> Action:
    a: Action = {"type": type_, **kw}
    a["label"] = label
    return a


def options(s: State, dec: dict[str, Any]) -> list[Action]:
    return list(_OPTIONS[dec["kind"]](s, dec))


def _o_start_tile(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    return [_opt("start_tile", f"Keep {N.tagged(t, N.starting)}", tile=t)
            for t in p["offer"]]


def _o_turn(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    for w in WORKERS:
        if p["workers"][w]["up"]:
            at = p["workers"][w]["at"]
            where = "workshop" if at is None else ACTION_NAME[square_action(WORKER_RONDEL[w.rstrip("12")], at)]
            out.append(_opt("worker", f"Activate your {w.rstrip('12')} ({where})", worker=w))
    return out


def _o_work(s: State, dec: dict[str, Any]) -> list[Action]:
    role, w = dec["role"], dec["worker"]
    rondel = WORKER_RONDEL[w.rstrip("12")]
    out = []
    for sq in destinations(s, role, w):
        cost = move_cost(s, role, w, sq)
        out.append(_opt("move", f"Move to square {sq} ({ACTION_NAME[square_action(rondel, sq)]}), cost {cost}",
                        square=sq))
    if rest_allowed(s, role):
        out.append(_opt("rest", "Rest: back to the workshop, earn 3 Dinars, lose 1 PP"))
    out.append(_opt("back", "Choose another worker"))
    return out


def rest_allowed(s: State, role: str) -> bool:
    """Rest costs 1 PP ("earn 3 Dinars and lose 1 PP"): a player with no PP cannot pay it (see
    RULINGS.md), unless a blue Poem waives the cost or none of his standing Workers can move
    (a turn must be taken; the Rest then costs nothing, the PP track has no space below 0)."""
    p = s["players"][role]
    if p["pp"] > 0 or "rest" in blue_effects(p):
        return True
    return not any(info["up"] and destinations(s, role, w) for w, info in p["workers"].items())


def _o_square(s: State, dec: dict[str, Any]) -> list[Action]:
    role, rondel, sq = dec["role"], dec["rondel"], dec["square"]
    out = []
    action = square_action(rondel, sq)
    side = DATA["rondels"][rondel][sq].get("side")
    if not dec["main"] and main_possible(s, role, action, side):
        out.append(_opt("main", f"{ACTION_NAME[action]} Action"))
    if not dec["secondary"] and secondary_possible(s, role, rondel, sq):
        found = square_secondary(s, rondel, sq)
        assert found is not None
        kind, i = found
        cost = secondary_cost(s, role, kind, rondel)
        if kind == "raw":
            token = s["raw_squares"][str(i)]
            what = f"take the {RAW_NAME[token]}" if token else "process 1 Raw Material"
        else:
            what = "take the Marble" if s["marble_squares"][str(i)] else "take 1 Gypsum or Wood"
        out.append(_opt("secondary", f"Secondary Action: {what} (cost {cost})"))
    out.append(_opt("done", "End this turn"))
    return out


def _o_effect(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("ok", "Continue")]


def _o_pay(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    amount = dec["amount"]
    low = max(0, amount - p["dinars"])
    return [_opt("seals", f"Pay {plural(amount - k, 'Dinar')} and {plural(k, 'Seal')}", n=k) for k in range(low, min(p["seals"], amount) + 1)]


def _o_store(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    item = ITEM_NAME[dec["item"]]
    room = [i for i in range(4) if len(p["stores"][i]["items"]) < capacity(p, i)]
    if room:
        return [_opt("store", f"Put the {item} in Storehouse {i + 1}", store=i) for i in room]
    out = [_opt("make_room", f"Storehouse {i + 1} is full: empty a space for the {item}", store=i)
           for i in range(4) if p["stores"][i]["items"]]
    out.append(_opt("forfeit", f"Do not keep the {item}"))
    return out


def _o_make_room(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    items = sorted(set(p["stores"][dec["store"]]["items"]))
    return [_opt("discard", f"Return the {ITEM_NAME[x]} to make room", item=x) for x in items]


def _o_pickmat(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("material", f"Take 1 {ITEM_NAME[m]}", material=m) for m in dec["of"]]


def _o_raw(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    for sq, token in sorted(s["raw_squares"].items(), key=lambda kv: int(kv[0])):
        if token is None:
            continue
        if dec.get("good"):
            out.append(_opt("token", f"Take the {RAW_NAME[token]} of square {sq} as {ITEM_NAME[token]}", square=int(sq)))
        elif token in p["processing"]:
            out.append(_opt("token", f"Earn {RAW_NAME[token]} (square {sq}): process yours into {ITEM_NAME[token]}",
                            square=int(sq)))
        else:
            out.append(_opt("token", f"Take the {RAW_NAME[token]} of square {sq}", square=int(sq)))
    return out


def _o_process(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = [_opt("process", f"Process your {RAW_NAME[g]} into {ITEM_NAME[g]}", good=g) for g in sorted(p["processing"])]
    if dec.get("optional"):
        out.append(_opt("stop", "Process no more"))
    return out


def _o_or(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("choose", describe_bonus(part), index=i) for i, part in enumerate(dec["effect"]["of"])
            if branch_possible(s, dec["role"], part)]


def effect_possible(s: State, role: str, e: dict[str, Any]) -> bool:
    """Whether a bonus effect can do anything now (an Export with no Goods, a Raw Material
    with none left on the rondel cannot)."""
    k = e["k"]
    if k == "action":
        return main_possible(s, role, e["a"], None)
    if k in ("raw", "good"):
        return _raw_available(s)
    if k == "process":
        return bool(s["players"][role]["processing"])
    if k == "or":
        return any(branch_possible(s, role, part) for part in e["of"])
    return True


def branch_possible(s: State, role: str, part: list[dict[str, Any]]) -> bool:
    """A branch of a bonus "A OR B" is offered only when it can be carried out (part of it at least)."""
    return any(effect_possible(s, role, e) for e in part)


def _o_dp(s: State, dec: dict[str, Any]) -> list[Action]:
    n = dec["effect"]["n"]
    return [_opt("split", f"{plural(n - k, 'Dinar')} and {plural(k, 'Paria')}", parias=k) for k in range(n + 1)]


def _o_favour(s: State, dec: dict[str, Any]) -> list[Action]:
    spaces = DATA["favour_track"]["spaces"]
    top = dec["upto"]
    return [_opt("favour_bonus", f"Favour space {i + 1}: {describe_bonus(spaces[i])}", space=i) for i in range(top)]


def _display_tiles(s: State, side: str | None) -> list[tuple[str, int, str]]:
    sides = [side] if side else ["left", "right"]
    return [(sd, i, t) for sd in sides for i, t in enumerate(s["store_display"][sd]) if t is not None]


def _activatable(p: dict[str, Any]) -> list[int]:
    return [i for i, st in enumerate(p["stores"]) if st["tiles"]]


def _o_storehouse(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    if any(len(st["tiles"]) < 2 for st in p["stores"]):
        for sd, i, t in _display_tiles(s, dec["side"]):
            out.append(_opt("expand", f"Expand with a {N.tagged(t, N.storehouse)}",
                            side=sd, slot=i))
    for i in _activatable(p):
        top = p["stores"][i]["tiles"][-1]
        out.append(_opt("activate", f"Activate Storehouse {i + 1} ({describe_bonus(STOREHOUSES[top]['bonus'])})", store=i))
    return out


def _o_expand_where(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    return [_opt("onto", f"Place it on Storehouse {i + 1} (expanded {len(st['tiles'])} times)", store=i)
            for i, st in enumerate(p["stores"]) if len(st["tiles"]) < 2]


MARKET = DATA["market"]


def _o_market(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = holdings(p)
    out = []
    if any(funds(p) >= buy_price(s, dec["role"], m) for m in MATERIALS) or \
            (funds(p) >= buy_price(s, dec["role"], "raw") and _raw_available(s)):
        out.append(_opt("buy", f"Buy ({dec['left']} transactions left)"))
    if h:
        out.append(_opt("sell", "Sell"))
    if any(h.get(m) for m in MATERIALS):
        out.append(_opt("trade", "Trade a Material for the next one up or down the Market Table"))
    out.append(_opt("stop", "No more transactions"))
    return out


def _raw_available(s: State) -> bool:
    return any(t is not None for t in s["raw_squares"].values())


def buy_price(s: State, role: str, item: str) -> int:
    return int(MARKET["buy"][item]) + (1 if event_is(s, role, "dear_materials") else 0)


def _o_market_buy(s: State, dec: dict[str, Any]) -> list[Action]:
    role = dec["role"]
    p = s["players"][role]
    out = [_opt("buy_item", f"Buy 1 {ITEM_NAME[m]} for {buy_price(s, role, m)}", item=m)
           for m in MATERIALS if funds(p) >= buy_price(s, role, m)]
    if funds(p) >= buy_price(s, role, "raw") and _raw_available(s):
        out.append(_opt("buy_item", f"Buy 1 Raw Material for {buy_price(s, role, 'raw')}", item="raw"))
    return out + [_opt("back", "Back")]


def _o_market_sell(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = holdings(p)
    out = [_opt("sell_item", f"Sell 1 {ITEM_NAME[x]} for {MARKET['sell'][x] if x in MATERIALS else MARKET['sell']['good']}",
                item=x) for x in (*MATERIALS, *GOODS) if h.get(x)]
    return out + [_opt("back", "Back")]


def _o_market_trade(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = holdings(p)
    out = []
    for i, m in enumerate(MATERIALS):
        if not h.get(m):
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < 4:
                extra = " and 1 Dinar" if j < i else ""
                out.append(_opt("trade_item", f"Trade 1 {ITEM_NAME[m]} for 1 {ITEM_NAME[MATERIALS[j]]}{extra}",
                                give=m, get=MATERIALS[j]))
    return out + [_opt("back", "Back")]


def _construct_options(s: State, role: str, refreshed: bool) -> list[Action]:
    p = s["players"][role]
    out = []
    deck_left = len(s["minor_deck"]) + len(s["minor_discard"])
    if not refreshed and funds(p) >= 1 and deck_left >= 4:
        out.append(_opt("refresh", "Pay 1 Dinar to replace the 4 Minor Construction cards (earn 1 PP)"))
    if has(p, "gypsum") and s["majors"][str(era(s))]:
        out.append(_opt("major", f"Major Construction of Era {'I' * era(s)}"))
    for i, c in enumerate(s["minor_display"]):
        if c is not None and has(p, MINORS[c]["base"]):
            out.append(_opt("minor", f"Minor Construction: {N.tagged(c, N.minor)}", slot=i))
    return out


def _o_construct(s: State, dec: dict[str, Any]) -> list[Action]:
    out = _construct_options(s, dec["role"], dec["refreshed"])
    if not any(a["type"] in ("major", "minor") for a in out):
        out.append(_opt("skip", "Build nothing"))
    return out


def _o_scaffold(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    used = dec["used"]
    if not used:
        return [_opt("use", f"Use {ITEM_NAME[m]} as the base Material", material=m)
                for m in dec["base_of"] if has(p, m)]
    out = []
    if len(used) - 1 < dec["extras"]:
        out = [_opt("use", f"Add 1 {ITEM_NAME[m]} ({PP_VALUE[m]} PP)", material=m)
               for m in dec["extra_of"] if m not in used and has(p, m)]
    return out + [_opt("done", f"Finish with {', '.join(ITEM_NAME[m] for m in used)}")]


def _o_major_tile(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("tile", f"Major Construction: {N.tagged(t, N.major)}", tile=t)
            for t in s["majors"][str(era(s))]]


def _o_place_minor(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("place", f"Place it at the {side} end of your row", side=side) for side in ("left", "right")]


def _presence(s: State, role: str) -> list[str]:
    """In the order of the map's data, not of the state's keys: a state read back from
    storage has its keys sorted, and the view lists these cities."""
    return [c for c in CITIES if role in s["cities"][c]["left"] or role in s["cities"][c]["right"]]


def route_cost(s: State, role: str, city: str) -> int:
    """The cheapest chain of routes from the Kingdom of Granada or a City where ``role`` has a presence."""
    cost = _distances(s, ["granada", *_presence(s, role)])[city]
    if "routes" in blue_effects(s["players"][role]):
        cost = max(0, cost - 2)
    if event_is(s, role, "closed_ports"):
        cost += 1
    if event_is(s, role, "export_discount"):
        cost = max(0, cost - 1)
    return cost


def _export_cities(s: State, role: str) -> list[str]:
    p = s["players"][role]
    if p["ships"] == 0 or not any(holdings(p).get(g) for g in GOODS):
        return []
    return [c for c in CITIES if c not in _presence(s, role) and route_cost(s, role, c) <= funds(p)]


def _o_export(s: State, dec: dict[str, Any]) -> list[Action]:
    out = []
    for c in _export_cities(s, dec["role"]):
        tile = CITY_TILES[s["cities"][c]["tile"]]
        out.append(_opt("city", f"Export to {CITIES[c]['name']} (cost {route_cost(s, dec['role'], c)}, wants "
                                f"{ITEM_NAME[tile['demand']]}{', Seal' if s['cities'][c]['seal'] else ''})", city=c))
    return out


def _o_export_goods(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    h = holdings(p)
    demand = CITY_TILES[s["cities"][dec["city"]]["tile"]]["demand"]
    out = []
    if dec["count"] < 2:
        out = [_opt("good", f"Export 1 {ITEM_NAME[g]}{' (in demand)' if g == demand else ''}", good=g)
               for g in GOODS if h.get(g)]
    if dec["count"] >= 1:
        out.append(_opt("done", "Export no more"))
    return out


def _o_consolidate(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("city", f"Consolidate in {CITIES[c]['name']} ({CITY_TILES[info['tile']]['colour']})", city=c)
            for c in CITIES if dec["role"] in (info := s["cities"][c])["left"]]


def _o_produce(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    if not dec["city"] and _presence(s, dec["role"]):
        out.append(_opt("city_bonus", "Earn the City Bonus of a City where you have a presence"))
    if not dec["process"] and p["processing"]:
        out.append(_opt("process_two", "Process up to 2 Raw Materials"))
    out.append(_opt("done", "Finish producing"))
    return out


def _o_city_bonus(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("city", f"{CITIES[c]['name']}: {describe_bonus(CITY_TILES[s['cities'][c]['tile']]['bonus'])}", city=c)
            for c in _presence(s, dec["role"])]


def carve_cost(p: dict[str, Any], colour: str, event: str | None = None) -> int:
    """What carving a Poem of ``colour`` costs; ``event`` is the active Event's effect, if any."""
    if colour == "blue":
        cost = 1 + len(p["blue"])
    elif colour == "red":
        cost = 2 + len(p["red"])
    else:
        cost = 4 + len(p["grey"])
    if event == "costly_carving":
        cost += 1
    elif event == "patron":
        cost -= 1
    return max(0, cost)


def active_effect(s: State) -> str | None:
    return str(EVENTS[s["event"]]["effect"]) if s.get("event") else None


def _carve_options(s: State, role: str) -> list[Action]:
    p = s["players"][role]
    out = []
    for i, c in enumerate(s["poem_display"]):
        if c is None:
            continue
        card = POEMS[c]
        for colour in ("blue", "red"):
            if funds(p) >= carve_cost(p, colour, active_effect(s)):
                what = DATA["minor_poems"]["blue_effects"][card["blue"]] if colour == "blue" else describe_bonus(card["red"])
                out.append(_opt("poem", f"Minor Poem in {colour} (cost {carve_cost(p, colour, active_effect(s))}): {what} [{c}]",
                                slot=i, colour=colour))
    if len(p["grey"]) < 2 and funds(p) >= carve_cost(p, "grey", active_effect(s)):
        for i, c in enumerate(s["major_poems"]):
            if c is not None:
                crit = DATA["major_poems"]["criteria"][MAJOR_POEMS[c]["crit"]]
                out.append(_opt("poem", f"Major Poem in grey (cost {carve_cost(p, 'grey', active_effect(s))}): {MAJOR_POEMS[c]['pp']} PP {crit} [{c}]",
                                slot=i, colour="grey"))
    return out


def _o_carve(s: State, dec: dict[str, Any]) -> list[Action]:
    return _carve_options(s, dec["role"])


def _o_reactivate(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    return [_opt("poem", f"Reapply red Poem: {describe_bonus(POEMS[c]['red'])} [{c}]", card=c) for c in p["red"]]


def tribute_means(p: dict[str, Any]) -> bool:
    """Whether a player can still pay a Paria of the tribute: at 0 PP "lose 1 PP" pays nothing
    (see RULINGS.md), so the tribute falls on the other means while there are any."""
    return p["parias"] > 0 or p["dinars"] >= 2 or p["seals"] > 0 or p["pp"] > 0


def _o_tribute(s: State, dec: dict[str, Any]) -> list[Action]:
    p = s["players"][dec["role"]]
    out = []
    if p["parias"] > 0:
        out.append(_opt("paria", f"Move your Paria token back 1 ({dec['left']} to pay)", means="track"))
    if p["dinars"] >= 2:
        out.append(_opt("paria", "Pay 2 Dinars for 1 Paria", means="dinars"))
    if p["seals"] > 0:
        out.append(_opt("paria", "Discard 1 Seal for 1 Paria", means="seal"))
    if p["pp"] > 0:
        out.append(_opt("paria", "Lose 1 PP for 1 Paria", means="pp"))
    return out


def _o_start_player(s: State, dec: dict[str, Any]) -> list[Action]:
    return [_opt("start", f"{'Yusuf' if r == YUSUF else r} starts the next round", player=r) for r in s["seats"]]


_OPTIONS: dict[str, Any] = {
    "start_tile": _o_start_tile, "turn": _o_turn, "work": _o_work, "square": _o_square, "effect": _o_effect,
    "pay": _o_pay, "store": _o_store, "make_room": _o_make_room, "pickmat": _o_pickmat, "raw": _o_raw,
    "process": _o_process, "or": _o_or, "dp": _o_dp, "favour": _o_favour, "storehouse": _o_storehouse,
    "expand_where": _o_expand_where, "market": _o_market, "market_buy": _o_market_buy, "market_sell": _o_market_sell,
    "market_trade": _o_market_trade, "construct": _o_construct, "scaffold": _o_scaffold, "major_tile": _o_major_tile,
    "place_minor": _o_place_minor, "export": _o_export, "export_goods": _o_export_goods,
    "consolidate": _o_consolidate, "produce": _o_produce, "city_bonus": _o_city_bonus, "carve": _o_carve,
    "reactivate": _o_reactivate, "tribute": _o_tribute, "start_player": _o_start_player,
}

RULE_OF: dict[str, str] = {
    "start_tile": R_PLAYER_SETUP, "turn": R_ACTIONS, "work": R_ACTIONS, "square": R_ACTIONS, "effect": R_ACTIONS,
    "pay": "ships", "store": R_STOREHOUSES, "make_room": R_STOREHOUSES, "pickmat": R_RESOURCES, "raw": R_RESOURCES,
    "process": R_RESOURCES, "or": R_ACTIONS, "dp": "minor-construction-action", "favour": R_MAJOR,
    "storehouse": R_STOREHOUSE_ACTION, "expand_where": R_STOREHOUSE_ACTION, "market": R_MARKET, "market_buy": R_MARKET,
    "market_sell": R_MARKET, "market_trade": R_MARKET, "construct": R_CONSTRUCTION, "scaffold": R_CONSTRUCTION,
    "major_tile": R_MAJOR, "place_minor": R_MINOR, "export": R_EXPORT, "export_goods": R_EXPORT,
    "consolidate": R_CONSOLIDATE, "produce": R_PRODUCE, "city_bonus": R_PRODUCE, "carve": R_POEMS,
    "reactivate": R_REACTIVATE, "tribute": R_NARRATOR, "start_player": R_START,
}


# ---------------------------------------------------------------------------- resolvers


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


def _r_turn(s: State, dec: dict[str, Any], a: Action) -> None:
    push(s, {"kind": "work", "role": dec["role"], "worker": a["worker"]})


def _r_work(s: State, dec: dict[str, Any], a: Action) -> None:
    role, w = dec["role"], dec["worker"]
    p = s["players"][role]
    if a["type"] == "back":
        push(s, {"kind": "turn", "role": role})
        return
    info = p["workers"][w]
    info["up"] = False
    if a["type"] == "rest":
        info["at"] = None
        rest = 2 if event_is(s, role, "weary") else 3
        p["dinars"] += rest
        log(s, f"{role} rests the {w.rstrip('12')}: back to the workshop, {plural(rest, 'Dinar')}.")
        if "rest" not in blue_effects(p):
            if p["pp"] > 0:
                gain_pp(s, role, -1, "rest")
            else:
                log(s, f"{role} has no PP to lose (none of his Workers could move).")
        return
    rondel = WORKER_RONDEL[w.rstrip("12")]
    cost = move_cost(s, role, w, a["square"])
    info["at"] = a["square"]
    log(s, f"{role} moves the {w.rstrip('12')} to square {a['square']} ({ACTION_NAME[square_action(rondel, a['square'])]})"
           f"{f', paying {cost}' if cost else ''}.")
    push(s, {"kind": "square", "role": role, "rondel": rondel, "square": a["square"], "main": False, "secondary": False})
    push_pay(s, role, cost, "movement")


def _r_square(s: State, dec: dict[str, Any], a: Action) -> None:
    role, rondel, sq = dec["role"], dec["rondel"], dec["square"]
    if a["type"] == "done":
        return
    nxt = dict(dec)
    if a["type"] == "main":
        nxt["main"] = True
        push(s, nxt)
        start_main(s, role, square_action(rondel, sq), DATA["rondels"][rondel][sq].get("side"), bonus=False)
        return
    nxt["secondary"] = True
    push(s, nxt)
    found = square_secondary(s, rondel, sq)
    assert found is not None
    kind, i = found
    if kind == "raw":
        token = s["raw_squares"][str(i)]
        if token is not None:
            _gain_raw_from(s, role, str(i))
        else:
            push(s, {"kind": "process", "role": role, "left": 1, "optional": False})
    else:
        if s["marble_squares"][str(i)]:
            s["marble_squares"][str(i)] = False
            push_store(s, role, "marble")
            log(s, f"{role} takes the Marble of a Secondary Action.")
        else:
            push(s, {"kind": "pickmat", "role": role, "of": ["gypsum", "wood"]})
    cost = secondary_cost(s, role, kind, rondel)
    push_pay(s, role, cost, "secondary action")


def _gain_raw_from(s: State, role: str, sq: str) -> None:
    p = s["players"][role]
    token = s["raw_squares"][sq]
    assert token is not None
    if token in p["processing"]:
        p["processing"].remove(token)  # the token stays on the rondel; yours becomes a Good
        log(s, f"{role} earns {RAW_NAME[token]} and processes the one in the workshop into {ITEM_NAME[token]}.")
        push_store(s, role, token)
    else:
        s["raw_squares"][sq] = None
        p["processing"].append(token)
        log(s, f"{role} takes {RAW_NAME[token]} to the workshop.")


def _r_effect(s: State, dec: dict[str, Any], a: Action) -> None:
    role, e = dec["role"], dec["effect"]
    p = s["players"][role]
    k = e["k"]
    why = dec.get("why", "")
    if k == "dinars":
        p["dinars"] += e["n"]
        log(s, f"{role} earns {plural(e['n'], 'Dinar')} ({why}).")
    elif k == "parias":
        gain_parias(s, role, e["n"])
        log(s, f"{role} earns {plural(e['n'], 'Paria')} ({why}).")
    elif k == "pp":
        gain_pp(s, role, e["n"], why)
    elif k == "mat":
        log(s, f"{role} earns {e['n']} {ITEM_NAME[e['m']]} ({why}).")
        for _ in range(e["n"]):
            push_store(s, role, e["m"])
    elif k == "matchoice":
        for _ in range(e["n"]):
            push(s, {"kind": "pickmat", "role": role, "of": list(e["of"])})
    elif k in ("raw", "good"):
        for _ in range(e["n"]):
            if _raw_available(s):
                push(s, {"kind": "raw", "role": role, "good": k == "good"})
        if not _raw_available(s):
            log(s, f"No Raw Material is left on the rondel for {role} ({why}).")
    elif k == "process":
        if p["processing"]:
            push(s, {"kind": "process", "role": role, "left": e["n"], "optional": False})
    elif k == "market":
        push(s, {"kind": "market", "role": role, "left": e["n"]})
    elif k == "action":
        act = e["a"]
        if main_possible(s, role, act, None):
            start_main(s, role, act, None, bonus=True)
        else:
            log(s, f"{role} cannot carry out the bonus {ACTION_NAME[act]} Action now.")
    elif k == "or":
        if effect_possible(s, role, e):
            push(s, {"kind": "or", "role": role, "effect": e, "why": why})
        else:
            log(s, f"{role} can carry out no part of the bonus {describe_effect(e)} now ({why}): it is lost.")
    elif k == "dp":
        push(s, {"kind": "dp", "role": role, "effect": e})
    elif k == "favour":
        _advance_favour(s, role)


def _advance_favour(s: State, role: str) -> None:
    p = s["players"][role]
    last = len(DATA["favour_track"]["spaces"])
    if p["favour"] >= last:
        gain_pp(s, role, 1, "Sultan's Favour, last space")
        push(s, {"kind": "favour", "role": role, "upto": last - 1})
        return
    p["favour"] += 1
    log(s, f"{role} advances to space {p['favour']} of the Sultan's Favour track.")
    if p["favour"] == last:
        gain_pp(s, role, 1, "Sultan's Favour, last space")
        push(s, {"kind": "favour", "role": role, "upto": last - 1})
    else:
        push(s, {"kind": "favour", "role": role, "upto": p["favour"]})


def _r_pay(s: State, dec: dict[str, Any], a: Action) -> None:
    p = s["players"][dec["role"]]
    k = a["n"]
    p["seals"] -= k
    p["dinars"] -= dec["amount"] - k
    if k:
        log(s, f"{dec['role']} pays {dec['amount']} ({dec['why']}) with {k} Seal{'s' * (k > 1)}.")


def _r_store(s: State, dec: dict[str, Any], a: Action) -> None:
    role, item = dec["role"], dec["item"]
    p = s["players"][role]
    if a["type"] == "store":
        p["stores"][a["store"]]["items"].append(item)
    elif a["type"] == "make_room":
        push(s, {"kind": "make_room", "role": role, "store": a["store"], "item": item})
    else:
        if item in GOODS:
            s["discard_goods"][item] += 1
        log(s, f"{role} has no room and does not keep the {ITEM_NAME[item]}.")


def _r_make_room(s: State, dec: dict[str, Any], a: Action) -> None:
    p = s["players"][dec["role"]]
    st = p["stores"][dec["store"]]
    st["items"].remove(a["item"])
    if a["item"] in GOODS:
        s["discard_goods"][a["item"]] += 1
    st["items"].append(dec["item"])
    log(s, f"{dec['role']} returns a {ITEM_NAME[a['item']]} to make room for a {ITEM_NAME[dec['item']]}.")


def _r_pickmat(s: State, dec: dict[str, Any], a: Action) -> None:
    log(s, f"{dec['role']} takes 1 {ITEM_NAME[a['material']]}.")
    push_store(s, dec["role"], a["material"])


def _r_raw(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    sq = str(a["square"])
    if dec.get("good"):
        token = s["raw_squares"][sq]
        s["raw_squares"][sq] = None
        log(s, f"{role} takes {RAW_NAME[token]} from the rondel directly as {ITEM_NAME[token]}.")
        push_store(s, role, token)
    else:
        _gain_raw_from(s, role, sq)


def _r_process(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "stop":
        return
    g = a["good"]
    p["processing"].remove(g)
    log(s, f"{role} processes {RAW_NAME[g]} into {ITEM_NAME[g]}.")
    if dec["left"] > 1 and len(p["processing"]) > 0:
        push(s, {"kind": "process", "role": role, "left": dec["left"] - 1, "optional": dec["optional"]})
    push_store(s, role, g)


def _r_or(s: State, dec: dict[str, Any], a: Action) -> None:
    push_bonus(s, dec["role"], dec["effect"]["of"][a["index"]], dec.get("why", ""))


def _r_dp(s: State, dec: dict[str, Any], a: Action) -> None:
    n, k = dec["effect"]["n"], a["parias"]
    p = s["players"][dec["role"]]
    p["dinars"] += n - k
    if k:
        gain_parias(s, dec["role"], k)
    log(s, f"{dec['role']} earns {plural(n - k, 'Dinar')} and {plural(k, 'Paria')}.")


def _r_favour(s: State, dec: dict[str, Any], a: Action) -> None:
    bonus = DATA["favour_track"]["spaces"][a["space"]]
    push_bonus(s, dec["role"], bonus, f"Sultan's Favour space {a['space'] + 1}")


def _r_storehouse(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "activate":
        top = p["stores"][a["store"]]["tiles"][-1]
        push_bonus(s, role, STOREHOUSES[top]["bonus"], f"Storehouse {a['store'] + 1} activated")
        return
    push(s, {"kind": "expand_where", "role": role, "side": a["side"], "slot": a["slot"]})


def _r_expand_where(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    tile = s["store_display"][dec["side"]][dec["slot"]]
    s["store_display"][dec["side"]][dec["slot"]] = None
    st = p["stores"][a["store"]]
    st["tiles"].append(tile)
    gain_pp(s, role, len(st["tiles"]), f"Storehouse {a['store'] + 1} expanded")
    push_bonus(s, role, STOREHOUSES[tile]["bonus"], "the new Storehouse")


def _r_market(s: State, dec: dict[str, Any], a: Action) -> None:
    if a["type"] == "stop":
        return
    push(s, {"kind": f"market_{a['type']}", "role": dec["role"], "left": dec["left"]})


def _market_next(s: State, dec: dict[str, Any]) -> None:
    if dec["left"] > 1:
        push(s, {"kind": "market", "role": dec["role"], "left": dec["left"] - 1})


def _r_market_buy(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "back":
        push(s, {"kind": "market", "role": role, "left": dec["left"]})
        return
    _market_next(s, dec)
    item = a["item"]
    log(s, f"{role} buys 1 {'Raw Material' if item == 'raw' else ITEM_NAME[item]}.")
    if item == "raw":
        push(s, {"kind": "raw", "role": role, "good": False})
    else:
        push_store(s, role, item)
    push_pay(s, role, buy_price(s, role, item), "purchase")


def _r_market_sell(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "back":
        push(s, {"kind": "market", "role": role, "left": dec["left"]})
        return
    _market_next(s, dec)
    item = a["item"]
    p = s["players"][role]
    take_item(s, p, item)
    price = MARKET["sell"][item] if item in MATERIALS else MARKET["sell"]["good"]
    p["dinars"] += price
    log(s, f"{role} sells 1 {ITEM_NAME[item]} for {plural(price, 'Dinar')}.")


def _r_market_trade(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "back":
        push(s, {"kind": "market", "role": role, "left": dec["left"]})
        return
    _market_next(s, dec)
    p = s["players"][role]
    take_item(s, p, a["give"])
    down = MATERIALS.index(a["get"]) < MATERIALS.index(a["give"])
    if down:
        p["dinars"] += 1
    log(s, f"{role} trades 1 {ITEM_NAME[a['give']]} for 1 {ITEM_NAME[a['get']]}{' and 1 Dinar' if down else ''}.")
    push_store(s, role, a["get"])


def _r_construct(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "skip":
        log(s, f"{role} builds nothing.")
        return
    if a["type"] == "refresh":
        s["minor_discard"].extend(c for c in s["minor_display"] if c is not None)
        s["minor_display"] = [_draw_minor(s) for _ in range(4)]
        s["reveals"] += 1
        log(s, f"{role} pays 1 Dinar to replace the Minor Construction cards: {'; '.join(N.minor(c) for c in s['minor_display'] if c)}.")
        gain_pp(s, role, 1, "new Minor Construction cards")
        push(s, {"kind": "construct", "role": role, "refreshed": True})
        push_pay(s, role, 1, "new Minor Construction cards")
        return
    if a["type"] == "major":
        take_item(s, p, "gypsum")
        push(s, {"kind": "major_tile", "role": role})
        push(s, {"kind": "scaffold", "role": role, "mode": "major", "used": ["gypsum"], "base_of": ["gypsum"],
                 "extra_of": ["wood", "marble", "ceramic"], "extras": 2})
        return
    card = s["minor_display"][a["slot"]]
    s["minor_display"][a["slot"]] = None
    base = MINORS[card]["base"]
    take_item(s, p, base)
    push(s, {"kind": "place_minor", "role": role, "card": card})
    push(s, {"kind": "scaffold", "role": role, "mode": "minor", "used": [base], "base_of": [base],
             "extra_of": list(MATERIALS), "extras": 2, "card": card})


def _draw_minor(s: State) -> str | None:
    if not s["minor_deck"]:
        s["minor_deck"] = s["minor_discard"]  # discards are shuffled into a new draw deck
        s["minor_discard"] = []
        rng.shuffle(s, s["minor_deck"])
    return s["minor_deck"].pop() if s["minor_deck"] else None


def _r_scaffold(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    if a["type"] == "use":
        take_item(s, p, a["material"])
        nxt = dict(dec)
        nxt["used"] = [*dec["used"], a["material"]]
        push(s, nxt)
        return
    pp = sum(PP_VALUE[m] for m in dec["used"])
    what = {"major": "Major Construction", "minor": "Minor Construction", "poem": "Poem"}[dec["mode"]]
    gain_pp(s, role, pp, f"{what} with {', '.join(ITEM_NAME[m] for m in dec['used'])}")
    if dec["mode"] == "major" and "major_pp" in blue_effects(p):
        gain_pp(s, role, 2, "blue Poem")
    if dec["mode"] == "major" and event_is(s, role, "sultan_grace"):
        gain_pp(s, role, 2, "Event")


def _r_major_tile(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    t = a["tile"]
    s["majors"][str(era(s))].remove(t)
    s["players"][role]["majors"].append(t)
    log(s, f"{role} builds a {N.tagged(t, N.major)}.")
    push_bonus(s, role, MAJORS[t]["bonus"], f"the {MAJORS[t]['type'].capitalize()}")
    _advance_favour(s, role)  # the favour is earned first, then the construction bonus (left to right)


def _r_place_minor(s: State, dec: dict[str, Any], a: Action) -> None:
    role, card = dec["role"], dec["card"]
    p = s["players"][role]
    p["minors"].append(card)
    colour = balance_colour(p["row"], card, a["side"])
    if a["side"] == "left":
        p["row"].insert(0, card)
    else:
        p["row"].append(card)
    log(s, f"{role} places a {N.minor(card)} at the {a['side']} of the row.")
    if colour is not None:
        p["balances"].append(colour)
        log(s, f"{role} achieves an Architectural Balance in {colour}.")
        push_bonus(s, role, DATA["balances"]["bonus"][colour], f"{colour} Architectural Balance")


def half(card: str, side: str) -> str | None:
    """The colour of a card's half artwork on ``side``; None is the balance card's wild half."""
    if card in BALANCES:
        return BALANCES[card]["left"] if side == "left" else None
    return str(MINORS[card][side])


def balance_colour(row: list[str], card: str, side: str) -> str | None:
    """The colour of the artwork completed by placing ``card`` at ``side``, if it is of a single colour."""
    if side == "left":
        a, b = half(card, "right"), half(row[0], "left")
    else:
        a, b = half(row[-1], "right"), half(card, "left")
    if a is None:
        return b
    if b is None or a == b:
        return a
    return None


def _r_export(s: State, dec: dict[str, Any], a: Action) -> None:
    """Pay the routes (2), then place the Ship and take the Seal (3), export (4), the City Bonus (5)."""
    role, city = dec["role"], a["city"]
    cost = route_cost(s, role, city)
    log(s, f"{role} exports to {CITIES[city]['name']}, paying {cost} for the routes.")
    push_bonus(s, role, CITY_TILES[s["cities"][city]["tile"]]["bonus"], f"City Bonus of {CITIES[city]['name']}")
    push(s, {"kind": "export_goods", "role": role, "city": city, "count": 0})
    push(s, {"kind": "effect", "role": role, "effect": {"k": "arrive"}, "city": city})
    push_pay(s, role, cost, "routes")


def _arrive(s: State, dec: dict[str, Any]) -> None:
    role, city = dec["role"], dec["city"]
    p = s["players"][role]
    info = s["cities"][city]
    p["ships"] -= 1
    info["left"].append(role)
    if info["seal"]:
        info["seal"] = False
        p["seals"] += 1
        log(s, f"{role} is first in {CITIES[city]['name']} and takes its Seal.")


def _r_export_goods(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "done":
        return
    p = s["players"][role]
    g = a["good"]
    take_item(s, p, g)
    demand = CITY_TILES[s["cities"][dec["city"]]["tile"]]["demand"]
    n = 2 if g == demand else 1
    gain_parias(s, role, n)
    log(s, f"{role} exports 1 {ITEM_NAME[g]}: {n} PP and {n} Paria{'s' * (n > 1)}.")
    gain_pp(s, role, n, "export")
    if dec["count"] + 1 < 2 and any(holdings(p).get(x) for x in GOODS):
        push(s, {**dec, "count": dec["count"] + 1})


def _r_consolidate(s: State, dec: dict[str, Any], a: Action) -> None:
    role, city = dec["role"], a["city"]
    info = s["cities"][city]
    info["left"].remove(role)
    for other in info["right"]:
        if other != YUSUF:  # Yusuf manages no Dinars
            s["players"][other]["dinars"] += 1
        gain_pp(s, other, 1, f"consolidated earlier in {CITIES[city]['name']}")
    info["right"].append(role)
    tile = CITY_TILES[info["tile"]]
    log(s, f"{role} consolidates the Trade Relationship with {CITIES[city]['name']} ({tile['colour']}).")
    if tile["colour"] == "red":
        push_bonus(s, role, tile["consolidate"], f"red City {CITIES[city]['name']}")


def _r_produce(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    if a["type"] == "done":
        return
    nxt = dict(dec)
    if a["type"] == "city_bonus":
        nxt["city"] = True
        push(s, nxt)
        push(s, {"kind": "city_bonus", "role": role})
    else:
        nxt["process"] = True
        push(s, nxt)
        push(s, {"kind": "process", "role": role, "left": 2, "optional": True})


def _r_city_bonus(s: State, dec: dict[str, Any], a: Action) -> None:
    tile = CITY_TILES[s["cities"][a["city"]]["tile"]]
    push_bonus(s, dec["role"], tile["bonus"], f"City Bonus of {CITIES[a['city']]['name']}")


def _r_carve(s: State, dec: dict[str, Any], a: Action) -> None:
    role, colour = dec["role"], a["colour"]
    p = s["players"][role]
    cost = carve_cost(p, colour, active_effect(s))
    if colour == "grey":
        card = s["major_poems"][a["slot"]]
        s["major_poems"][a["slot"]] = None
    else:
        card = s["poem_display"][a["slot"]]
        s["poem_display"][a["slot"]] = None
    log(s, f"{role} carves {'Major' if colour == 'grey' else 'Minor'} Poem in {colour}, paying {cost}: {N.name(card) if colour != 'grey' else N.major_poem(card)}.")
    push(s, {"kind": "effect", "role": role, "effect": {"k": "poem_done"}, "card": card, "colour": colour})
    push(s, {"kind": "scaffold", "role": role, "mode": "poem", "used": [], "base_of": ["gypsum", "wood", "marble"],
             "extra_of": list(MATERIALS), "extras": 1})
    push_pay(s, role, cost, "carving")


def _poem_done(s: State, dec: dict[str, Any]) -> None:
    role, card, colour = dec["role"], dec["card"], dec["colour"]
    p = s["players"][role]
    p[colour].append(card)
    if colour == "red":
        push_bonus(s, role, POEMS[card]["red"], "the red Poem")


def _r_reactivate(s: State, dec: dict[str, Any], a: Action) -> None:
    push_bonus(s, dec["role"], POEMS[a["card"]]["red"], "the red Poem reactivated")


def _r_tribute(s: State, dec: dict[str, Any], a: Action) -> None:
    role = dec["role"]
    p = s["players"][role]
    means = a["means"]
    if means == "track":
        p["parias"] -= 1
        s["stamp"] += 1
        p["stamp"] = s["stamp"]
    elif means == "dinars":
        p["dinars"] -= 2
    elif means == "seal":
        p["seals"] -= 1
    else:
        p["pp"] = max(0, p["pp"] - 1)
    paid = dict(dec.get("paid", {}))
    paid[means] = paid.get(means, 0) + 1
    if dec["left"] > 1 and tribute_means(p):
        push(s, {**dec, "left": dec["left"] - 1, "paid": paid})
    else:
        _log_tribute(s, role, dec["total"], paid, dec["left"] - 1)


def _log_tribute(s: State, role: str, total: int, paid: dict[str, int], unpaid: int) -> None:
    names = {"track": "Paria track", "dinars": "Dinars", "seal": "Seals", "pp": "PP"}
    # In the fixed order of the means, not the dict's: a state read back from JSON with sorted
    # keys must log the same.
    parts = [f"{paid[m]} by {names[m]}" for m in names if m in paid]
    if unpaid:
        parts.append(f"{unpaid} unpaid (no Paria, Dinars, Seal or PP left to pay with)")
    log(s, f"{role} pays the tribute of {plural(total, 'Paria')}: " + ", ".join(parts) + ".")


def _r_start_player(s: State, dec: dict[str, Any], a: Action) -> None:
    s["start"] = a["player"]
    log(s, f"{dec['role']}, leading on the Paria track, makes {a['player']} the Starting Player.")


_RESOLVE: dict[str, Any] = {
    "start_tile": _r_start_tile, "turn": _r_turn, "work": _r_work, "square": _r_square, "effect": _r_effect,
    "pay": _r_pay, "store": _r_store, "make_room": _r_make_room, "pickmat": _r_pickmat, "raw": _r_raw,
    "process": _r_process, "or": _r_or, "dp": _r_dp, "favour": _r_favour, "storehouse": _r_storehouse,
    "expand_where": _r_expand_where, "market": _r_market, "market_buy": _r_market_buy, "market_sell": _r_market_sell,
    "market_trade": _r_market_trade, "construct": _r_construct, "scaffold": _r_scaffold, "major_tile": _r_major_tile,
    "place_minor": _r_place_minor, "export": _r_export, "export_goods": _r_export_goods,
    "consolidate": _r_consolidate, "produce": _r_produce, "city_bonus": _r_city_bonus, "carve": _r_carve,
    "reactivate": _r_reactivate, "tribute": _r_tribute, "start_player": _r_start_player,
}

# decisions that are never a choice: resolved as soon as they reach the top of the stack
_AUTOMATIC = {"effect", "yusuf"}


# ---------------------------------------------------------------------------- flow


def active(s: State) -> list[str]:
    if s["phase"] == "over":
        return []
    if s["phase"] == "setup":
        return [r for r in s["roles"] if s["players"][r]["start_tile"] is None]
    return [s["stack"][-1]["role"]] if s["stack"] else []


def actions(s: State, role: str) -> list[Action]:
    if role not in s["roles"]:
        return []
    if s["phase"] == "setup":
        if s["players"][role]["start_tile"] is None:
            return _o_start_tile(s, {"role": role})
        return []
    if not s["stack"] or s["stack"][-1]["role"] != role:
        return []
    return options(s, s["stack"][-1])


def apply(state: State, role: str, action: Action) -> State:
    if role not in state["roles"]:
        raise RuleError(f"unknown player {role!r}; the players are {', '.join(state['roles'])}", R_SETUP)
    if state["phase"] == "over":
        raise RuleError("the game is over", "end-of-game")
    s = clone(state)
    if s["phase"] == "setup":
        if s["players"][role]["start_tile"] is not None:
            raise RuleError(f"{role} has already chosen a Starting tile", R_PLAYER_SETUP)
        found = require_legal(_o_start_tile(s, {"role": role}), action, R_PLAYER_SETUP, "Starting tile")
        _r_start_tile(s, {"role": role}, found)
        _advance(s)
        return s
    if not s["stack"] or s["stack"][-1]["role"] != role:
        who = s["stack"][-1]["role"] if s["stack"] else "nobody"
        raise RuleError(f"it is not {role}'s decision now ({who} decides)", R_ACTIONS)
    dec = s["stack"][-1]
    found = require_legal(options(s, dec), action, RULE_OF[dec["kind"]], _prompt_of(dec))
    s["stack"].pop()
    _RESOLVE[dec["kind"]](s, dec, found)
    _advance(s)
    return s


def _prompt_of(dec: dict[str, Any]) -> str:
    return str(dec["kind"]).replace("_", " ")


def _advance(s: State) -> None:
    """Resolve automatic decisions and run the game flow until a player must decide."""
    while s["phase"] != "over":
        if s["stack"]:
            dec = s["stack"][-1]
            if dec["kind"] in _AUTOMATIC:
                s["stack"].pop()
                if dec["kind"] == "yusuf":
                    _yusuf_step(s, dec)
                elif dec["effect"]["k"] == "poem_done":
                    _poem_done(s, dec)
                elif dec["effect"]["k"] == "arrive":
                    _arrive(s, dec)
                else:
                    _r_effect(s, dec, {"type": "ok"})
                continue
            opts = options(s, dec)
            if not opts:
                s["stack"].pop()  # nothing can be done (e.g. no Raw Material left): the effect is lost
                continue
            if len(opts) == 1 and dec["kind"] in ("store", "pickmat", "pay", "raw", "favour", "expand_where"):
                s["stack"].pop()
                _RESOLVE[dec["kind"]](s, dec, opts[0])
                continue
            return
        if s["phase"] == "setup":
            return
        if s["phase"] == "actions":
            nxt = _next_player(s)
            if nxt is not None:
                s["turn"] = nxt
                if nxt == YUSUF:
                    _yusuf_turn(s)
                else:
                    push(s, {"kind": "turn", "role": nxt})
                continue
            s["phase"] = "end"
            s["steps"] = ["final_income", "narrator", "tribute", "final"] if s["round"] == 5 else \
                ["income", "narrator", "tribute", "event", "reactivate", "maintenance", "start_player", "era",
                 "new_round"]
            log(s, f"End of round {s['round']}.")
            continue
        if s["phase"] == "end":
            if not s["steps"]:
                return  # only a state built by hand runs out of steps: the real list ends the round
            step = s["steps"].pop(0)
            _STEPS[step](s)
            continue


def _next_player(s: State) -> str | None:
    roles = order(s)
    if s["turn"] is None:
        candidates = roles
    else:
        i = roles.index(s["turn"])
        candidates = roles[i + 1:] + roles[:i + 1]
    for r in candidates:
        if r == YUSUF:
            if s[YUSUF]["pile"]:
                return r
        elif any(w["up"] for w in s["players"][r]["workers"].values()):
            return r
    return None


def _step_income(s: State) -> None:
    for r in reversed(order(s)):
        if r == YUSUF:
            continue  # Yusuf receives no income
        p = s["players"][r]
        bonus: list[dict[str, Any]] = []
        for info in s["cities"].values():
            tile = CITY_TILES[info["tile"]]
            if r in info["right"] and tile["colour"] == "blue":
                bonus += tile["consolidate"]
        effects = blue_effects(p)
        bonus += [{"k": "dinars", "n": 2}] * effects.count("income")
        bonus += [{"k": "parias", "n": 1}] * effects.count("tribute")
        if bonus:
            push_bonus(s, r, bonus, "income")


def _step_narrator(s: State) -> None:
    s["narrator"] += 1
    log(s, f"The Narrator advances to space {s['narrator']}.")
    tile = s["wishes"].get(str(s["narrator"]))
    if tile is not None:
        s["tower"].append(tile)
        log(s, f"Sultan's Wish {N.wish(tile)} joins the Tower; the Tower is scored: {'; '.join(N.wish(w) for w in s['tower'])}.")
        for r in order(s):
            total = sum(wish_points(s, r, w) for w in s["tower"])
            gain_pp(s, r, total, "Sultan's Wishes")


def wish_count(s: State, role: str, element: str) -> int:
    """How many of ``element`` a player (or Yusuf, who keeps the same kinds of holdings but
    poems of his own kind) shows for a Sultan's Wish or a Major Poem."""
    holder = s[YUSUF] if role == YUSUF else s["players"][role]
    if element in ("palace", "fountain", "door"):
        return sum(1 for t in holder["majors"] if MAJORS[t]["type"] == element)
    if element in ("garden", "tower", "window"):
        return sum(1 for c in holder["minors"] if MINORS[c]["type"] == element)
    if element == "presence":
        return len(_presence(s, role))
    if element == "consolidated":
        return sum(1 for c in s["cities"].values() if role in c["right"])
    if element == "seal":
        return int(holder["seals"])
    if role == YUSUF and element in ("blue_poem", "red_poem"):
        return 0  # Yusuf's Minor Poems have no colour; only Major Poem A3 counts them as blue or red
    if role == YUSUF and element == "poem":
        return len(holder["poems"]) + len(holder["grey"])
    if element == "blue_poem":
        return len(holder["blue"])
    if element == "red_poem":
        return len(holder["red"])
    if element == "poem":
        return len(holder["blue"]) + len(holder["red"]) + len(holder["grey"])
    raise ValueError(element)


def wish_points(s: State, role: str, tile: str) -> int:
    return sum(wish_count(s, role, el) * pts for el, pts in WISHES[tile]["items"])


def _step_tribute(s: State) -> None:
    owed = int(DATA["rounds"]["tribute"][str(s["narrator"])])
    log(s, f"Tribute: every player pays {plural(owed, 'Paria')}.")
    for r in reversed(order(s)):
        if r == YUSUF:
            push(s, {"kind": "yusuf", "role": s["roles"][0], "step": "tribute", "owed": owed})
        else:
            mine = owed + (1 if event_is(s, r, "heavy_tribute") else 0)
            if tribute_means(s["players"][r]):
                push(s, {"kind": "tribute", "role": r, "left": mine, "total": mine})
            else:
                _log_tribute(s, r, mine, {}, mine)


def _step_event(s: State) -> None:
    """Advanced mode: on the Event spaces the next face-down Event replaces the active one."""
    if s["narrator"] not in DATA["events"]["spaces"] or not s["event_stack"]:
        return
    s["event"] = s["event_stack"].pop()
    s["events_seen"].append(s["event"])
    s["reveals"] += 1
    e = EVENTS[s["event"]]
    log(s, f"An Event ({e['polarity']}) is now active: {e['text']}")


def _step_reactivate(s: State) -> None:
    for r in s["seats"]:
        for w in seat(s, r)["workers"].values():
            w["up"] = True
    if s["n"] == 1:
        y = s[YUSUF]
        y["pile"] = list(DATA["yusuf"]["tiles"])
        y["revealed"] = []
        rng.shuffle(s, y["pile"])  # the Worker tiles' draw pile is formed again
    for rondel, positions in s["sultan"].items():
        squares = ring(s["n"], rondel)
        s["sultan"][rondel] = [squares[(squares.index(x) + 1) % len(squares)] for x in positions]
    log(s, "Workers stand up again; the Sultan's Workers move 1 step clockwise.")


def _step_maintenance(s: State) -> None:
    for sq, token in s["raw_squares"].items():
        if token is None:
            s["raw_squares"][sq] = _draw_raw(s)
    for sq in s["marble_squares"]:
        s["marble_squares"][sq] = True
    for i, c in enumerate(s["poem_display"]):
        if c is None and s["poem_deck"]:
            s["poem_display"][i] = s["poem_deck"].pop()
    for i, c in enumerate(s["minor_display"]):
        if c is None:
            s["minor_display"][i] = _draw_minor(s)
    for side in ("left", "right"):
        for i, t in enumerate(s["store_display"][side]):
            if t is None and s["store_piles"][side]:
                s["store_display"][side][i] = s["store_piles"][side].pop()
    s["reveals"] += 1
    log(s, "Maintenance: the board is refilled.")


def paria_leader(s: State) -> str:
    return str(max(s["seats"], key=lambda r: (seat(s, r)["parias"], seat(s, r)["stamp"])))


def _step_start_player(s: State) -> None:
    leader = paria_leader(s)
    if leader == YUSUF:
        s["start"] = YUSUF  # ruling: Yusuf, leading on the Paria track, keeps the initiative
        log(s, "Yusuf leads on the Paria track and takes the Starting Player token.")
        return
    push(s, {"kind": "start_player", "role": leader})


def _step_era(s: State) -> None:
    if s["narrator"] == 3 and s["majors"]["1"]:
        log(s, f"Era change: the Era I Major Constructions left ({'; '.join(N.major(t) for t in s['majors']['1'])}) leave the game.")
        s["majors"]["1"] = []


def _step_new_round(s: State) -> None:
    s["round"] += 1
    s["phase"] = "actions"
    s["turn"] = None
    log(s, f"Round {s['round']} (Era {'I' * era(s)}) begins; {s['start']} starts.")


def _step_final(s: State) -> None:
    scores: dict[str, int] = {}
    for r in order(s):
        if r == YUSUF:
            _yusuf_final(s)
            scores[r] = s[YUSUF]["pp"]
            continue
        p = s["players"][r]
        for card in p["grey"]:
            gain_pp(s, r, major_poem_points(s, r, card), N.major_poem(card))
        gain_pp(s, r, trade_points(s, r), N.trade(s["trade"]))
        h = holdings(p)
        left = p["seals"] + sum(h.get(g, 0) for g in GOODS) + h.get("marble", 0) + h.get("ceramic", 0) + p["dinars"] // 2
        gain_pp(s, r, left, "leftover Seals, Goods, Marble, Glazed Ceramic and Dinars")
        scores[r] = p["pp"]
    best = max(scores.values())
    winners = [r for r, v in scores.items() if v == best]
    if winners == [YUSUF]:
        s["result"] = {"winner": None, "reason": f"Yusuf has the most Prestige Points ({best}) and wins",
                       "score": scores}
    elif len(winners) == 1:
        s["result"] = {"winner": winners[0], "reason": f"{winners[0]} has the most Prestige Points ({best})",
                       "score": scores}
    else:
        s["result"] = {"winner": None, "reason": f"{' and '.join(winners)} share the victory with {best} PP",
                       "score": scores}
    log(s, "Final scores: " + ", ".join(f"{r} {v}" for r, v in scores.items()) + f". {s['result']['reason']}.")
    s["phase"] = "over"


def major_poem_points(s: State, role: str, card: str) -> int:
    p = s["players"][role]
    crit, pts = MAJOR_POEMS[card]["crit"], MAJOR_POEMS[card]["pp"]
    types = [MINORS[c]["type"] for c in p["minors"]]
    regions = [CITIES[c]["region"] for c in _presence(s, role)]
    count = {
        "blue_poem": len(p["blue"]), "red_poem": len(p["red"]),
        "poem_trio": min(len(p["blue"]), len(p["red"]), len(p["grey"])),
        "palace": wish_count(s, role, "palace"), "fountain": wish_count(s, role, "fountain"),
        "door": wish_count(s, role, "door"), "minor": len(p["minors"]),
        "minor_set": min(types.count("garden"), types.count("tower"), types.count("window")),
        "balance": len(p["balances"]), "presence": len(_presence(s, role)),
        "consolidated": wish_count(s, role, "consolidated"), "seal": p["seals"],
        "expansion": sum(len(st["tiles"]) for st in p["stores"]),
        "boxes": sum(capacity(p, i) for i in range(4)),
        "goods": sum(holdings(p).get(g, 0) for g in GOODS), "favour": p["favour"], "major": len(p["majors"]),
        "region_set": min(regions.count("europe"), regions.count("maghreb"), regions.count("near_east")),
        "garden_tower_window": max((types.count(t) for t in ("garden", "tower", "window")), default=0),
        "blue_city": sum(1 for c in s["cities"].values() if role in c["right"]
                         and CITY_TILES[c["tile"]]["colour"] == "blue"),
    }[crit]
    return int(count * pts)


def trade_points(s: State, role: str) -> int:
    card = TRADE[s["trade"]]
    n = 0
    for c, info in s["cities"].items():
        if "region" in card and CITIES[c]["region"] != card["region"]:
            continue
        if "colour" in card and CITY_TILES[info["tile"]]["colour"] != card["colour"]:
            continue
        if role in info["right"] or (card["what"] == "presence" and role in info["left"]):
            n += 1
    return int(n * card["pp"])


_STEPS: dict[str, Any] = {
    "income": _step_income, "final_income": _step_income, "narrator": _step_narrator, "tribute": _step_tribute,
    "event": _step_event, "reactivate": _step_reactivate, "maintenance": _step_maintenance, "start_player": _step_start_player,
    "era": _step_era, "new_round": _step_new_round, "final": _step_final,
}



# ---------------------------------------------------------------------------- solo mode: Yusuf

YUSUF_DATA = DATA["yusuf"]


def _setup_yusuf(s: State, pp: int) -> None:
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


def _distances(s: State, starts: list[str]) -> dict[str, int]:
    """The cheapest chain of routes from any of ``starts`` to every place (Dijkstra): what a
    player's export costs and which City Yusuf takes both come from it."""
    graph: dict[str, list[tuple[str, int]]] = {}
    for a, b, cost in DATA["map"]["routes"]:
        graph.setdefault(a, []).append((b, cost))
        graph.setdefault(b, []).append((a, cost))
    best = {x: 0 for x in starts}
    heap = [(0, x) for x in starts]
    while heap:
        d, x = heapq.heappop(heap)
        if d > best.get(x, 1 << 30):
            continue
        for y, c in graph.get(x, []):
            if d + c < best.get(y, 1 << 30):
                best[y] = d + c
                heapq.heappush(heap, (d + c, y))
    return best


def _yusuf_cities(s: State, purpose: str) -> list[str]:
    """The nearest Cities Yusuf may take: for the initial Ship, nearest to Granada meeting the Trade card;
    for an export, also with a Seal, nearest to Granada or a City where he has a presence."""
    if purpose == "initial":
        dist = _distances(s, ["granada"])
        cands = [c for c in CITIES if _trade_match(s, c)]
    else:
        dist = _distances(s, ["granada", *_presence(s, YUSUF)])
        cands = [c for c in CITIES if _trade_match(s, c) and s["cities"][c]["seal"] and c not in _presence(s, YUSUF)]
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
    return [_opt("yusuf_city", f"Yusuf goes to {CITIES[c]['name']}", city=c) for c in dec["cities"]]


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


def _yusuf_turn(s: State) -> None:
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


def _yusuf_step(s: State, dec: dict[str, Any]) -> None:
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
    regions = [CITIES[c]["region"] for c in _presence(s, YUSUF)]
    count = {
        "blue_poem": 0, "red_poem": 0,  # his Minor Poems have no colour (the book's clarification is A3's)
        "poem_trio": min(len(y["grey"]), len(y["poems"]) // 2),  # A3: two Minor Poems and one Major Poem
        "palace": wish_count(s, YUSUF, "palace"), "fountain": wish_count(s, YUSUF, "fountain"), "door": wish_count(s, YUSUF, "door"),
        "minor": len(y["minors"]), "minor_set": min(types.count("garden"), types.count("tower"), types.count("window")),
        "balance": len(y["minors"]),  # C3: each Minor Construction counts as an Architectural Balance
        "presence": len(_presence(s, YUSUF)), "consolidated": wish_count(s, YUSUF, "consolidated"), "seal": y["seals"],
        "expansion": len(y["storehouses"]), "boxes": 4 + sum(STOREHOUSES[t]["boxes"] for t in y["storehouses"]),
        "goods": 0, "favour": y["favour"], "major": len(y["majors"]),
        "region_set": min(regions.count("europe"), regions.count("maghreb"), regions.count("near_east")),
        "garden_tower_window": max((types.count(t) for t in ("garden", "tower", "window")), default=0),
        "blue_city": sum(1 for c in s["cities"].values() if YUSUF in c["right"]
                         and CITY_TILES[c["tile"]]["colour"] == "blue"),
    }[crit]
    return int(count * pts)


def _yusuf_final(s: State) -> None:
    y = s[YUSUF]
    for card in y["grey"]:
        gain_pp(s, YUSUF, yusuf_major_poem_points(s, card), N.major_poem(card))
    gain_pp(s, YUSUF, trade_points(s, YUSUF), N.trade(s["trade"]))
    gain_pp(s, YUSUF, y["seals"], "leftover Seals (Yusuf manages no Resources)")


DATA_YUSUF_CARDS = {c["id"]: c for c in YUSUF_DATA["cards"]}
_OPTIONS["yusuf_city"] = _o_yusuf_city
_RESOLVE["yusuf_city"] = _r_yusuf_city
RULE_OF["yusuf_city"] = "solo-export-action"
