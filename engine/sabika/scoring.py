"""Prestige Points that count what a player shows: the Sultan's Wishes, the Major Poems
and the Trade card (Yusuf's own Major Poems are scored in :mod:`.yusuf`).
"""

from __future__ import annotations

from engine.api import State
from engine.sabika.data import CITIES, CITY_TILES, GOODS, MAJOR_POEMS, MAJORS, MINORS, TRADE, WISHES
from engine.sabika.middle import presence
from engine.sabika.state import YUSUF, capacity, holdings


def wish_count(s: State, role: str, element: str) -> int:
    """How many of ``element`` a player (or Yusuf, who keeps the same kinds of holdings but
    poems of his own kind) shows for a Sultan's Wish or a Major Poem."""
    holder = s[YUSUF] if role == YUSUF else s["players"][role]
    if element in ("palace", "fountain", "door"):
        return sum(1 for t in holder["majors"] if MAJORS[t]["type"] == element)
    if element in ("garden", "tower", "window"):
        return sum(1 for c in holder["minors"] if MINORS[c]["type"] == element)
    if element == "presence":
        return len(presence(s, role))
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


def major_poem_points(s: State, role: str, card: str) -> int:
    p = s["players"][role]
    crit, pts = MAJOR_POEMS[card]["crit"], MAJOR_POEMS[card]["pp"]
    types = [MINORS[c]["type"] for c in p["minors"]]
    regions = [CITIES[c]["region"] for c in presence(s, role)]
    count = {
        "blue_poem": len(p["blue"]), "red_poem": len(p["red"]),
        "poem_trio": min(len(p["blue"]), len(p["red"]), len(p["grey"])),
        "palace": wish_count(s, role, "palace"), "fountain": wish_count(s, role, "fountain"),
        "door": wish_count(s, role, "door"), "minor": len(p["minors"]),
        "minor_set": min(types.count("garden"), types.count("tower"), types.count("window")),
        "balance": len(p["balances"]), "presence": len(presence(s, role)),
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
