"""What a player (or a spectator) may know of a Sabika game.

Everything on the table is public; hidden are the order of the decks and piles, what the bag
will give, and during setup the Starting tiles of the other players (both offered tiles, and
afterwards the one each discarded face down).
"""

from __future__ import annotations

from typing import Any

from engine.api import Action, State, View, clone, visible_log
from engine.sabika import rules
from engine.sabika.data import CITY_TILES, DATA, EVENTS, RONDELS, STARTING
from engine.sabika.middle import presence
from engine.sabika.names import ITEM_NAME, WORKER_NAME
from engine.sabika.parias import paria_leader
from engine.sabika.state import YUSUF, capacity, era, ring
from engine.sabika.turn import crowd_price, destinations, free_steps, rest_allowed
from engine.sabika.yusuf import desired_types
from engine.text import plural, role_name

TITLE = "Sabika"

PROMPTS = {
    "start_tile": "Choose the Starting tile you keep (the other is discarded face down).",
    "turn": "Your turn: choose a standing Worker to activate.",
    "pay": "Choose how many Seals pay part of this payment (1 Dinar each).",
    "make_room": "Choose the item you return to make room.",
    "pickmat": "Choose a Material.",
    "raw": "Choose the Raw Material you take from the Rondel.",
    "process": "Choose a Raw Material of your workshop to process into a Good.",
    "or": "Choose one of the bonuses.",
    "favour": "Choose the Sultan's Favour bonus: this space or any previous one.",
    "expand_where": "Choose the Storehouse you expand.",
    "market_buy": "Choose what you buy.",
    "market_sell": "Choose what you sell.",
    "market_trade": "Choose the trade.",
    "major_tile": "Choose the Major Construction tile of the current Era.",
    "place_minor": "Place the Minor Construction card at one end of your row.",
    "export": "Choose the City you export to.",
    "consolidate": "Choose the City where you consolidate your Trade Relationship.",
    "city_bonus": "Choose the City whose bonus you earn.",
    "carve": "Choose the Poem you carve (and its colour).",
    "reactivate": "Choose the red Poem whose effect you apply again.",
    "yusuf_city": "These Cities are equally near for Yusuf: you decide where his Ship goes.",
    "start_player": "You lead on the Paria track: choose the next Starting Player.",
}


def _menu_heading(dec: dict[str, Any], kinds: set[str]) -> str | None:
    """The heading of the decisions whose menu changes along the turn (the square's two Actions,
    the Storehouse, Construction, the Scaffold, Produce), built from the menu under it: it names
    only what is on offer, and says so when nothing but finishing is left (issue 38: "Carry out
    the Main and/or Secondary Action" stood above a lone "End this turn")."""
    kind = dec["kind"]
    if kind == "square":
        actions = [name for name, t in (("Main", "main"), ("Secondary", "secondary")) if t in kinds]
        if not actions:
            return "Nothing more to do on this square: end the turn."
        return f"Carry out the {' and/or '.join(actions)} Action of the square, or end the turn."
    if kind == "storehouse":
        offers = []
        if "expand" in kinds:
            offers.append("Expand a Storehouse with a displayed tile")
        if "activate" in kinds:
            offers.append("activate one of your visible Storehouses" if offers
                          else "Activate one of your visible Storehouses")
        return ", or ".join(offers) + "." if offers else "No Storehouse to expand or activate."
    if kind == "construct":
        builds = [f"a {size}" for size, t in (("Major", "major"), ("Minor", "minor")) if t in kinds]
        renew = "renew the Minor Construction cards" if "refresh" in kinds else ""
        if builds:
            first = f" (you may first {renew})" if renew else ""
            return f"Construction: build {' or '.join(builds)} Construction{first}."
        if renew:
            return f"Construction: you can build none of the cards shown: {renew}, or build nothing."
        return "Construction: you lack the Materials for any Construction: build nothing."
    if kind == "scaffold":
        if "use" not in kinds:
            return "Nothing more to place on the Scaffold: finish."
        if "done" not in kinds:
            return "Place Materials on the Scaffold (all of different types): first the base Material."
        return "Place Materials on the Scaffold (all of different types), then finish."
    if kind == "produce":
        offers = [text for text, t in (("earn a City Bonus", "city_bonus"),
                                       ("process up to 2 Raw Materials", "process_two")) if t in kinds]
        if not offers:
            return "Nothing more to produce: finish producing."
        return f"Produce: {' and/or '.join(offers)}, or finish producing."
    return None


def _prompt(s: State, dec: dict[str, Any], legal: list[Action]) -> str:
    """The heading of a decision's menu ``legal``; where the entries depend on the player's
    Poems, the Event or the bonus, the heading says what they do (the free steps, the price of
    a crowd, whether he may Rest, what a split shares, how much tribute is left)."""
    kind, role = dec["kind"], dec["role"]
    heading = _menu_heading(dec, {str(a.get("type")) for a in legal})
    if heading is not None:
        return heading
    if kind == "work":
        crowd = crowd_price(s, role)
        per = "no Dinar for other Workers" if crowd == 0 else f"{plural(crowd, 'Dinar')} per other Worker"
        worker = WORKER_NAME[dec["worker"].rstrip("12")]
        rest = ", or Rest it" if rest_allowed(s, role) else ""
        if not destinations(s, role, dec["worker"]):
            if rest:
                return f"Your {worker} can move to no square you can pay for: Rest it, or choose another Worker."
            return f"Your {worker} can move to no square you can pay for, nor Rest without PP: choose another Worker."
        return (f"Move your {worker} clockwise around its Rondel ({plural(free_steps(s, role), 'step')} free, then "
                f"1 Dinar a step; {per} on the destination){rest}, or choose another Worker.")
    if kind == "store":
        item = ITEM_NAME[dec["item"]]
        p = s["players"][role]
        if all(len(p["stores"][i]["items"]) >= capacity(p, i) for i in range(4)):
            return f"Your Storehouses are full: empty a space for the {item}, or do not keep it."
        return f"Choose the Storehouse that receives the {item}."
    if kind == "market":
        return f"Market ({plural(dec['left'], 'transaction')} left): buy, sell or trade, or stop."
    if kind == "export_goods":
        return "Export 1 or 2 Goods." if dec["count"] == 0 else "Export 1 more Good, or no more."
    if kind == "dp":
        return f"Split {dec['effect']['n']} between Dinars and Parias."
    if kind == "tribute":
        return f"Tribute: choose how you pay the next Paria ({dec['left']} of {plural(dec['total'], 'Paria')} left to pay)."
    return PROMPTS.get(kind, "Decide.")


def _player_view(s: State, r: str, me: str | None) -> dict[str, Any]:
    p = s["players"][r]
    out: dict[str, Any] = {k: clone(v) for k, v in p.items() if k not in ("offer", "start_tile")}
    out["capacity"] = [capacity(p, i) for i in range(4)]
    out["presence"] = presence(s, r)
    revealed = s["phase"] != "setup"
    if r == me:
        out["offer"] = list(p["offer"])
        out["start_tile"] = p["start_tile"]
    else:
        out["start_tile"] = p["start_tile"] if revealed else None
        out["start_tile_chosen"] = p["start_tile"] is not None
    return out


def _yusuf_view(s: State) -> dict[str, Any] | None:
    """Yusuf's board: everything but the order of his Worker tile pile and of his three decks."""
    if YUSUF not in s:
        return None
    y = s[YUSUF]
    out = {k: clone(v) for k, v in y.items() if k not in ("pile", "decks")}
    out["pile"] = len(y["pile"])
    out["decks"] = {w: len(d) for w, d in y["decks"].items()}
    out["presence"] = presence(s, YUSUF)
    out["desired_types"] = sorted(desired_types(s))
    return out


def view(state: State, role: str | None) -> View:
    """The view, a copy that shares nothing with the state or another view (the
    contract: the service hands it out as it is, and a front end may edit it)."""
    return clone(_view(state, role))


def _view(state: State, role: str | None) -> View:
    s = state
    me = role if role in s["roles"] else None
    top = s["stack"][-1] if s["stack"] else None
    legal = rules.actions(s, me) if me else []
    if s["phase"] == "over":
        prompt = str(s["result"]["reason"]) + "."
    elif me and legal:
        prompt = _prompt(s, top, legal) if s["phase"] != "setup" and top else PROMPTS["start_tile"]
    elif s["phase"] == "setup":
        prompt = "Waiting for the other players to choose their Starting tiles."
    else:
        prompt = f"Waiting for {role_name(top['role'])}." if top else "Waiting."
    pending = None
    if top is not None:
        pending = {k: v for k, v in top.items() if k != "effect"}
    return {
        "game": "sabika", "title": TITLE, "role": me, "roles": list(s["roles"]), "players_count": s["n"],
        "round": s["round"], "era": era(s), "narrator": s["narrator"],
        "phase": f"round {s['round']}: {s['phase']}" + (f", {s['turn']}'s turn" if s["phase"] == "actions" else ""),
        "reaction": False, "focus": None, "active": rules.active(s),
        "start": s.get("start"), "turn": s["turn"], "pending": pending,
        "board": {
            "side": s["board"], "rondels": {r: ring(s["n"], r) for r in RONDELS},
            "sultan": s["sultan"], "raw_squares": s["raw_squares"], "marble_squares": s["marble_squares"],
            "minor_display": s["minor_display"], "minor_deck": len(s["minor_deck"]), "minor_discard": s["minor_discard"],
            "poem_display": s["poem_display"], "poem_deck": len(s["poem_deck"]), "major_poems": s["major_poems"],
            "majors": s["majors"], "store_display": s["store_display"],
            "store_piles": {k: len(v) for k, v in s["store_piles"].items()},
            "bag": s["bag"], "discard_goods": s["discard_goods"],
            "cities": {c: {**info, "colour": CITY_TILES[info["tile"]]["colour"],
                           "demand": CITY_TILES[info["tile"]]["demand"]} for c, info in s["cities"].items()},
            "trade": s["trade"], "wishes": s["wishes"], "tower": s["tower"],
            "tribute": DATA["rounds"]["tribute"],
        },
        "players": {r: _player_view(s, r, me) for r in s["roles"]},
        "yusuf": _yusuf_view(s),
        "events": {"mode": s["events"], "active": s["event"], "face_down": len(s["event_stack"]),
                   "text": EVENTS[s["event"]]["text"] if s["event"] else None},
        "seats": list(s["seats"]),
        "paria_leader": paria_leader(s) if s["phase"] != "setup" else None,
        "starting_tiles": {t: STARTING[t]["num"] for t in STARTING},
        "result": s["result"],
        "reconstructed": True,
        "prompt": prompt,
        "actions": legal,
        "log": visible_log(s["log"], me),
    }
