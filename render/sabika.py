"""Pictures of *Sabika*, drawn from views only (see the view keys in ``engine/sabika/view.py``).

:func:`board` draws the three rondels (squares by action, Workers as discs lettered B/M/P in
the player's colour, the Sultan's Workers as gold discs lettered S, Yusuf's as black discs
lettered Y), the Secondary Actions between the rings (Raw Material letter or Marble), the
displays on offer, a schematic map of the Cities (Europe above, the Maghreb below, the Near
East at the right; routes with their Dinar cost from the component data; each City's colour,
demand, Seal and Ships), and a workshop per player (tokens, the four Storehouses with their
boxes and contents, Raw Materials, constructions, poems). The viewer's workshop is large with
his cards face up, each opponent's small; a spectator sees them all small; in solo, Yusuf's
board (his decks and tile pile as counts, revealed tiles, Workers, PP). :func:`layout` returns
where each part goes so tests can check it. Players are told apart by a letter as well as by
colour. Face-down things (decks, piles, bag, other players' Starting tiles) appear only as
counts, as in the view; everything is ordered by seats or component ids, never by dict order.
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from render import common as C

WIDTH, HEIGHT = 1600, 1500
SHOP_TOP = 900
OFFER_HEIGHT = 400
HEADER = 56
CENTRE = (400.0, HEADER + 400.0)
RINGS = {"outer": (250.0, 370.0), "middle": (150.0, 250.0), "inner": (50.0, 150.0)}
PLAYER_COLOURS: dict[str, C.RGB] = {"blue": C.OI.BLUE, "yellow": C.OI.YELLOW, "pink": C.OI.PURPLE,
                                    "green": C.OI.GREEN, "yusuf": (30, 30, 30)}
ACTION_SHORT = {"minor_quarry": "Minor\nQuarry", "major_quarry": "Major\nQuarry", "storehouse": "Store-\nhouse",
                "market": "Market", "construction": "Construc-\ntion", "export": "Export",
                "consolidate": "Consoli-\ndate", "produce": "Produce", "carve": "Carve\nPoem",
                "reactivate": "Reacti-\nvate", "artisanal": "Artisanal\nLabour"}
"""The rondels' squares by the menus' words (engine/sabika/names.py ACTION_NAME), broken over
two lines to fit a square: the picture and the text name an action alike."""
RING_FILL = {"outer": (226, 214, 186), "middle": (206, 222, 214), "inner": (222, 210, 226)}
WORKER_LETTER = {"builder1": "B", "builder2": "B", "merchant": "M", "poet": "P"}
RAW_LETTER = {"sugar": "Cn", "clothes": "Sk", "pottery": "Cy"}
"""Raw Materials (Sugar cane, Silk, Clay), keyed by the Good they become: never the Goods' symbols."""
CERAMIC: dict[str, C.RGB] = {"yellow": C.OI.YELLOW, "green": C.OI.GREEN, "blue": C.OI.SKY, "white": (245, 245, 245)}


def _angle(i: int, n: int) -> float:
    return -math.pi / 2 + (i + 0.5) * 2 * math.pi / n


def _polar(r: float, a: float) -> tuple[float, float]:
    return CENTRE[0] + r * math.cos(a), CENTRE[1] + r * math.sin(a)


def _rondel_actions(view: dict[str, Any]) -> dict[str, list[str]]:
    from engine.sabika.data import DATA  # component names only; no state is read

    return {r: [DATA["rondels"][r][sq]["a"] for sq in view["board"]["rondels"][r]] for r in RINGS}


def _secondaries(view: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    from engine.sabika.data import DATA

    out = []
    for kind in ("raw", "marble"):
        squares = view["board"]["raw_squares" if kind == "raw" else "marble_squares"]
        for key in sorted(squares, key=int):  # component order, not the dict's
            out.append((kind, key, DATA["secondary"][kind][int(key)]))
    return out


def _disc(draw: ImageDraw.ImageDraw, xy: tuple[float, float], r: float, colour: C.Colour, letter: str,
          lying: bool = False) -> None:
    x, y = xy
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=C.INK, width=2)
    if lying:
        draw.line((x - r, y + r, x + r, y - r), fill=C.contrast_ink(colour), width=2)
    C.fit_text(draw, (x - r, y - r, x + r, y + r), letter, int(r * 1.1), bold=True, fill=C.contrast_ink(colour),
               align="c", min_size=8)


def _draw_rondels(img: Image.Image, view: dict[str, Any]) -> None:
    draw = ImageDraw.Draw(img)
    actions = _rondel_actions(view)
    positions = {r: view["board"]["rondels"][r] for r in RINGS}
    for rondel, (r0, r1) in RINGS.items():
        n = len(positions[rondel])
        for i in range(n):
            a0 = math.degrees(-math.pi / 2 + i * 2 * math.pi / n)
            a1 = math.degrees(-math.pi / 2 + (i + 1) * 2 * math.pi / n)
            box = (CENTRE[0] - r1, CENTRE[1] - r1, CENTRE[0] + r1, CENTRE[1] + r1)
            draw.pieslice(box, a0, a1, fill=RING_FILL[rondel], outline=C.PANEL_EDGE, width=2)
        inner = (CENTRE[0] - r0, CENTRE[1] - r0, CENTRE[0] + r0, CENTRE[1] + r0)
        if rondel != "inner":
            draw.ellipse(inner, fill=C.PAPER, outline=C.PANEL_EDGE, width=2)
    for rondel, (r0, r1) in RINGS.items():
        n = len(positions[rondel])
        for i, action in enumerate(actions[rondel]):
            x, y = _polar((r0 + r1) / 2 + 18, _angle(i, n))
            label = f"{positions[rondel][i]}\n{ACTION_SHORT[action]}"
            C.fit_text(draw, (x - 44, y - 23, x + 44, y + 23), label, 13, bold=True, align="c", spacing=1.1)
    draw.ellipse((CENTRE[0] - 50, CENTRE[1] - 50, CENTRE[0] + 50, CENTRE[1] + 50), fill=C.PAPER, outline=C.PANEL_EDGE)
    C.fit_text(draw, (CENTRE[0] - 46, CENTRE[1] - 12, CENTRE[0] + 46, CENTRE[1] + 12), "Alhambra", 14, bold=True,
               align="c")
    # Secondary Actions between the rings, at the angle of the outer of their two squares
    for kind, key, sec in _secondaries(view):
        rondel = "outer" if "outer" in sec else "middle"
        sq = sec[rondel]
        n = len(positions[rondel])
        if sq not in positions[rondel]:
            continue
        a = _angle(positions[rondel].index(sq), n) + 0.22
        r = RINGS[rondel][0]
        x, y = _polar(r, a)
        if kind == "raw":
            token = view["board"]["raw_squares"][key]
            fill: C.Colour = (250, 236, 200) if token else C.PAPER
            draw.rectangle((x - 15, y - 11, x + 15, y + 11), fill=fill, outline=C.INK, width=1)
            C.fit_text(draw, (x - 14, y - 10, x + 14, y + 10), RAW_LETTER.get(token, "-") if token else "-", 12,
                       bold=True, align="c")
        else:
            has = view["board"]["marble_squares"][key]
            draw.rectangle((x - 15, y - 11, x + 15, y + 11), fill=(235, 235, 240) if has else C.PAPER,
                           outline=C.INK, width=1)
            C.fit_text(draw, (x - 14, y - 10, x + 14, y + 10), "Ma" if has else "-", 12, bold=True, align="c")
    # Workers: the Sultan's, then each seat's in seat order, each seat's in the order of
    # WORKER_LETTER: the order of the discs on a square never follows a dict's key order (a
    # view read back from the database has its keys sorted; it must draw the same picture)
    occupants: dict[tuple[str, int], list[tuple[C.Colour, str, bool]]] = {}
    sultan = view["board"]["sultan"]
    for rondel in RINGS:
        for sq in sultan.get(rondel, []):
            occupants.setdefault((rondel, sq), []).append(((212, 175, 55), "S", False))
    seats = {who: view["players"][who] for who in view["seats"] if who in view["players"]}
    if view.get("yusuf"):
        seats["yusuf"] = view["yusuf"]
    for who, p in seats.items():
        for w in sorted(p["workers"], key=list(WORKER_LETTER).index):
            info = p["workers"][w]
            if info["at"] is None:
                continue
            rondel = {"B": "outer", "M": "middle", "P": "inner"}[WORKER_LETTER[w]]
            letter = "Y" if who == "yusuf" else WORKER_LETTER[w]
            occupants.setdefault((rondel, info["at"]), []).append((PLAYER_COLOURS[who], letter, not info["up"]))
    for (rondel, sq), pieces in occupants.items():
        if sq not in positions[rondel]:
            continue
        n = len(positions[rondel])
        r0, r1 = RINGS[rondel]
        base = _angle(positions[rondel].index(sq), n)
        for k, (colour, letter, lying) in enumerate(pieces):
            a = base - 0.25 + 0.5 * (k + 0.5) / max(1, len(pieces)) * (1 if rondel != "inner" else 1.6)
            _disc(draw, _polar(r0 + 24, a), 13, colour, letter, lying)


def _panel_displays(draw: ImageDraw.ImageDraw, view: dict[str, Any], box: Rect) -> None:
    """What can be taken, each thing by its name and what it does (issue 35): the Minor
    Construction cards (type, base Material, ceramic halves), the Minor Poems (their blue and
    red sides), the Major Poems (what they score), the Major Constructions (their bonus), the
    Storehouses (boxes and bonus), the Sultan's Wishes in the Tower and the active Event."""
    from engine.sabika import names as N
    from engine.sabika.data import MINORS

    b = view["board"]
    x, y0, x1, y1 = box
    w = x1 - x
    y = C.panel(draw, box, "On offer")
    for i, c in enumerate(b["minor_display"]):
        bx = x + 12 + i * 106
        if c is None:
            draw.rectangle((bx, y, bx + 98, y + 56), outline=C.MUTED)
            continue
        card = MINORS[c]
        draw.rectangle((bx, y, bx + 98, y + 56), fill=C.PAPER, outline=C.INK)
        draw.rectangle((bx, y + 40, bx + 49, y + 56), fill=CERAMIC[card["left"]], outline=C.INK)
        draw.rectangle((bx + 49, y + 40, bx + 98, y + 56), fill=CERAMIC[card["right"]], outline=C.INK)
        C.fit_text(draw, (bx + 3, y + 1, bx + 96, y + 19), card["type"].capitalize(), 13, bold=True)
        C.fit_text(draw, (bx + 3, y + 19, bx + 96, y + 39), f"on {N.item_name(card['base'])}", 12)
    last = len(b["minor_display"])
    C.fit_text(draw, (x + 12 + last * 106, y, x + w - 12, y + 22), f"deck {b['minor_deck']}", 14, fill=C.MUTED)
    y += 62
    poems = [f"- blue: {N.poem_blue(p)} | red: {N.describe_bonus(_poem_red(p))}" for p in b["poem_display"] if p]
    majors = "; ".join(f"{N.major_poem(p).removeprefix('Major Poem (').removesuffix(')')}"
                       for p in b["major_poems"] if p) or "none"
    era = str(view["era"])
    built = "; ".join(N.major(t) for t in b["majors"][era]) or "none"
    lines = [f"Minor Poems (deck {b['poem_deck']}): {'' if poems else 'none'}", *poems,
             f"Major Poems: {majors}", f"Major Constructions (Era {'I' * int(era)}): {built}"]
    for side in ("left", "right"):
        tiles = "; ".join(N.storehouse(t).removeprefix("Storehouse of ") for t in b["store_display"][side] if t)
        lines.append(f"Storehouses {side} (pile {b['store_piles'][side]}): {tiles or 'none'}")
    if b["tower"]:
        lines.append("Sultan's Wishes in the Tower: " + "; ".join(N.wish(t).removeprefix("Wish: ") for t in b["tower"]))
    if view["events"]["text"]:
        lines.append(f"Event: {view['events']['text']}")
    C.paragraph(draw, (x + 12, y, x + w - 12, y1 - 8), "\n".join(lines), 14, spacing=17 / 14, min_size=9)


def _poem_red(p: str) -> list[dict[str, Any]]:
    from engine.sabika.data import POEMS

    return list(POEMS[p]["red"])


MAP_POS: dict[str, tuple[float, float]] = {
    # Reconstructed schematic (the rulebook shows the map only as a picture): west to east and
    # north (Europe) to south (Maghreb), the Near East at the right, as engine/sabika's
    # regions and routes imply; only the relative places matter, routes are drawn from the data.
    "granada": (0.09, 0.50), "barcelona": (0.24, 0.24), "genoa": (0.42, 0.12), "florence": (0.56, 0.27),
    "ragusa": (0.72, 0.16), "constantinople": (0.91, 0.22), "fez": (0.08, 0.86), "tlemcen": (0.27, 0.76),
    "tunis": (0.50, 0.62), "cairo": (0.90, 0.82)}
REGION_LABEL = {"europe": (0.30, 0.02, "EUROPE"), "maghreb": (0.20, 0.94, "MAGHREB"),
                "near_east": (0.78, 0.52, "NEAR EAST")}
ITEM_COLOUR: dict[str, C.RGB] = {"gypsum": (245, 245, 240), "wood": (150, 100, 55), "marble": (185, 195, 210),
                                 "ceramic": (40, 150, 150), "sugar": (255, 255, 255), "clothes": (180, 60, 150),
                                 "pottery": (200, 110, 60)}
ITEM_LETTER = {"gypsum": "Gy", "wood": "Wd", "marble": "Ma", "ceramic": "Ce", "sugar": "Sg", "clothes": "Ct",
               "pottery": "Pt"}
LEGEND = ["Materials: Gy Gypsum, Wd Wood, Ma Marble, Ce Glazed Ceramic.  Goods: Sg Sugar, Ct Clothes, "
          "Pt Pottery.  Raw: Cn Sugar cane, Sk Silk, Cy Clay",
          "Gy Gypsum, Wd Wood, Ma Marble, Ce Glazed Ceramic; Sg Sugar, Ct Clothes, Pt Pottery; "
          "raw Cn Sugar cane, Sk Silk, Cy Clay"]
"""The symbols of the Materials, Goods and Raw Materials, drawn once on the map panel."""
Rect = tuple[float, float, float, float]


def _who_order(view: dict[str, Any]) -> list[str]:
    """Seats in seat order, Yusuf last: never the order of a dict's keys."""
    return [w for w in view["seats"] if w in view["players"] or (w == "yusuf" and view.get("yusuf"))]


def _map_area(box: Rect) -> Rect:
    x0, y0, x1, y1 = box
    return x0 + 60, y0 + 8 + 18 * 1.45 + 14, x1 - 70, y1 - 56


def map_points(box: Rect) -> dict[str, tuple[float, float]]:
    """Where Granada and each City are drawn in the map panel ``box`` (tests read them)."""
    mx0, my0, mx1, my1 = _map_area(box)
    return {c: (mx0 + u * (mx1 - mx0), my0 + v * (my1 - my0)) for c, (u, v) in MAP_POS.items()}


def _panel_map(draw: ImageDraw.ImageDraw, view: dict[str, Any], box: Rect) -> None:
    """The Cities as a schematic map: routes with their Dinar cost, each City's colour, demand,
    Seal (gold star while it lies there) and the Ships on its two sides."""
    from engine.sabika import names as N
    from engine.sabika.data import CITIES, DATA

    b = view["board"]
    x0, y0, x1, y1 = box
    trade = N.trade(b["trade"])
    C.panel(draw, box, [f"Map of the Cities - {trade}", f"Map - {trade}"])
    mx0, my0, mx1, my1 = _map_area(box)
    points = map_points(box)

    def at(place: str) -> tuple[float, float]:
        return points[place]

    for u, v, label in REGION_LABEL.values():
        lx, ly = mx0 + u * (mx1 - mx0), my0 + v * (my1 - my0)
        C.fit_text(draw, (lx - 60, ly - 10, lx + 60, ly + 10), label, 14, bold=True, fill=C.MUTED, align="c")
    for a, c, cost in DATA["map"]["routes"]:
        pa, pc = at(a), at(c)
        draw.line((*pa, *pc), fill=C.PANEL_EDGE, width=3)
        mid = ((pa[0] + pc[0]) / 2, (pa[1] + pc[1]) / 2)
        draw.ellipse((mid[0] - 10, mid[1] - 10, mid[0] + 10, mid[1] + 10), fill=C.PAPER, outline=C.PANEL_EDGE)
        C.fit_text(draw, (mid[0] - 9, mid[1] - 9, mid[0] + 9, mid[1] + 9), str(cost), 13, bold=True, align="c")
    gx, gy = at("granada")
    draw.rectangle((gx - 14, gy - 14, gx + 14, gy + 14), fill=(120, 40, 40), outline=C.INK, width=2)
    C.fit_text(draw, (gx - 50, gy + 16, gx + 50, gy + 36), "Granada", 15, bold=True, align="c")
    for c in [c for c in CITIES if c in b["cities"]]:  # the map's order, not the dict's
        info = b["cities"][c]
        cx, cy = at(c)
        swatch: C.Colour = C.OI.SKY if info["colour"] == "blue" else C.OI.VERMILLION
        draw.ellipse((cx - 16, cy - 16, cx + 16, cy + 16), fill=swatch, outline=C.INK, width=2)
        C.fit_text(draw, (cx - 15, cy - 15, cx + 15, cy + 15), ITEM_LETTER.get(info["demand"], info["demand"][:2]), 13,
                   bold=True, fill=C.contrast_ink(swatch), align="c")
        C.fit_text(draw, (cx - 70, cy + 17, cx + 70, cy + 37), CITIES[c]["name"], 15, bold=True, align="c")
        if info["seal"]:
            draw.polygon(C.star_points(cx + 22, cy - 16, 10, 4, 5), fill=(212, 175, 55), outline=C.INK)
        for side, sign in (("left", -1), ("right", 1)):
            for k, who in enumerate(info[side]):
                sx = cx + sign * (30 + 20 * k)
                _disc(draw, (sx, cy), 9, PLAYER_COLOURS.get(who, C.MUTED), who[0].upper())
    C.fit_text(draw, (x0 + 12, y1 - 46, x1 - 12, y1 - 26), LEGEND, 13, fill=C.MUTED)
    C.fit_text(draw, (x0 + 12, y1 - 24, x1 - 12, y1 - 4),
               ["city: demand inside, star = Seal still there, discs = Ships (left | right)",
                "demand inside, star = Seal, discs = Ships (left | right)"], 13, fill=C.MUTED)


def _item(draw: ImageDraw.ImageDraw, box: Rect, item: str | None, size: int, raw: bool = False) -> None:
    """A Material or Good in its colour with its symbol (see ``LEGEND``); ``raw``: the Raw
    Material of that Good (Sugar cane, Silk, Clay), its own symbol on the same colour."""
    if item is None:
        draw.rectangle(box, fill=C.PAPER, outline=C.MUTED)
        return
    colour = ITEM_COLOUR.get(item, C.MUTED)
    draw.rectangle(box, fill=colour, outline=C.INK, width=1)
    C.fit_text(draw, (box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1), (RAW_LETTER if raw else ITEM_LETTER).get(item, item[:2]),
               size, bold=True, fill=C.contrast_ink(colour), align="c", min_size=8)


def _workshop(draw: ImageDraw.ImageDraw, view: dict[str, Any], who: str, box: Rect, large: bool) -> None:
    """A player's workshop: tokens, the four Storehouses with their boxes filled, raw materials
    waiting to be processed, constructions and poems. ``large`` for the viewer's own."""
    from engine.sabika import names as N
    from engine.sabika.data import MAJORS

    p = view["players"][who]
    x0, y0, x1, y1 = box
    fs = 17 if large else 13
    mark = " (start)" if view.get("start") == who else ""
    you = " - you" if view.get("role") == who else ""
    name = (view.get("names") or {}).get(who)
    seat = f"{who.capitalize()} ({name})" if name else who.capitalize()
    top = C.panel(draw, box, [f"{seat}'s workshop{you}{mark}", f"{who.capitalize()}'s workshop{you}{mark}"],
                  title_size=20 if large else 15, title_right=x1 - 42)
    _disc(draw, (x1 - 24, y0 + 20), 13 if large else 10, PLAYER_COLOURS[who], who[0].upper())
    tokens = (f"{p['pp']} PP   {p['dinars']} Dinars   {p['parias']} Parias   favour {p['favour']}   "
              f"{p['seals']} Seals   {p['ships']} Ships")
    C.fit_text(draw, (x0 + 12, top - 2, x1 - 12, top + fs + 6), tokens, fs + 1, bold=True, valign="t")
    y = top + fs + 10
    cell = 34 if large else 22
    sx = x0 + 12
    for i, (st, cap) in enumerate(zip(p["stores"], p["capacity"], strict=True)):
        items = list(st["items"])
        w = max(cap, len(items), 1) * (cell + 3) + 10
        draw.rectangle((sx, y, sx + w, y + cell + (22 if large else 16)), fill=(228, 214, 186), outline=C.INK)
        C.fit_text(draw, (sx + 3, y, sx + w - 2, y + (18 if large else 13)), f"S{i + 1}" + (f" +{len(st['tiles'])}" if st["tiles"] else ""),
                   fs - 4, bold=True, min_size=9)
        for k in range(max(cap, len(items))):
            bx = sx + 5 + k * (cell + 3)
            by = y + (18 if large else 13)
            _item(draw, (bx, by, bx + cell, by + cell - 2), items[k] if k < len(items) else None, fs - 4)
        sx += w + 8
    y += cell + (30 if large else 22)
    if p["processing"]:
        C.fit_text(draw, (x0 + 12, y, x0 + (58 if large else 46), y + cell - 4), "Raw:", fs - 2, bold=True)
        for k, item in enumerate(p["processing"]):
            bx = x0 + 60 + k * (cell + 3) if large else x0 + 48 + k * (cell + 3)
            _item(draw, (bx, y, bx + cell, y + cell - 4), item, fs - 4, raw=True)
        y += cell + 4
    if large:
        y = _cards(draw, p, x0 + 12, y + 4, x1 - 12)
        lines = [f"Architectural Balances achieved: {', '.join(p['balances']) or '-'}"]
    else:
        lines = [f"Row: {', '.join(_row_name(c) for c in p['row']) or '-'}",
                 f"Majors: {', '.join(MAJORS[t]['type'].capitalize() for t in p['majors']) or '-'}   "
                 f"Balances achieved: {', '.join(p['balances']) or '-'}",
                 f"Poems: {len(p['blue'])} blue, {len(p['red'])} red" + "".join(
                     f"; grey {_grey(c)}" for c in p["grey"])]
    if p.get("start_tile"):
        lines.append(N.starting(p["start_tile"]))
    elif p.get("offer"):
        lines.append(f"Starting tiles offered: {' / '.join(N.starting(t) for t in p['offer'])}")
    elif p.get("start_tile_chosen"):
        lines.append("Starting tile chosen (face down)")
    C.paragraph(draw, (x0 + 12, y, x1 - 12, y1 - 4), "\n".join(lines), fs - 1, spacing=(fs + 4) / (fs - 1))


CARD_FILL: dict[str, C.RGB] = {"row": C.PAPER, "majors": (200, 170, 130), "blue": C.OI.SKY,
                              "red": C.OI.VERMILLION, "grey": (170, 170, 170)}


def _row_name(c: str) -> str:
    """A card of the construction row in short words: ``Garden (yellow|green)``, ``Balance (blue|any)``."""
    from engine.sabika.data import BALANCES, MINORS

    if c in MINORS:
        return f"{MINORS[c]['type'].capitalize()} ({MINORS[c]['left']}|{MINORS[c]['right']})"
    return f"Balance ({BALANCES[c]['left']}|any)"


def _row_halves(c: str) -> tuple[str, str | None]:
    """The ceramic colours on a row card's two sides (None: the Balance card's wild half)."""
    from engine.sabika.data import BALANCES, MINORS

    if c in MINORS:
        return MINORS[c]["left"], MINORS[c]["right"]
    return BALANCES[c]["left"], None


def _grey(c: str) -> str:
    """What a grey (Major) Poem scores: ``2 PP per Palace``."""
    from engine.sabika import names as N

    return N.major_poem(c).removeprefix("Major Poem (").removesuffix(")")


def _cards(draw: ImageDraw.ImageDraw, p: dict[str, Any], x: float, y: float, right: float) -> float:
    """The viewer's cards face up, one row per kind: the construction row (in its order, each
    card its type and ceramic halves), the Major Constructions (type and bonus), then what the
    blue, red and grey Poems do."""
    from engine.sabika import names as N

    C.fit_text(draw, (x, y, x + 108, y + 34), "Row", 15, bold=True)
    cx = x + 112
    for c in p["row"]:
        if cx + 86 > right:
            break
        left, rside = _row_halves(c)
        draw.rounded_rectangle((cx, y, cx + 86, y + 34), 4, fill=C.PAPER, outline=C.INK, width=1)
        draw.rectangle((cx + 1, y + 20, cx + 43, y + 33), fill=CERAMIC[left], outline=C.INK)
        draw.rectangle((cx + 43, y + 20, cx + 85, y + 33), fill=CERAMIC[rside] if rside else C.PAPER, outline=C.INK)
        label = _row_name(c).split(" (")[0]
        C.fit_text(draw, (cx + 2, y + 1, cx + 84, y + 19), label, 13, bold=True, align="c")
        if rside is None:
            C.fit_text(draw, (cx + 44, y + 21, cx + 84, y + 32), "any", 10, align="c", min_size=8)
        cx += 92
    if not p["row"]:
        C.fit_text(draw, (cx, y, right, y + 28), "-", 15, fill=C.MUTED)
    y += 42
    texts = [("Majors", "; ".join(N.major(t) for t in p["majors"]) if p["majors"] else "-"),
             ("Blue poems", "; ".join(N.poem_blue(c) for c in p["blue"]) or "-"),
             ("Red poems", "; ".join(N.describe_bonus(_poem_red(c)) for c in p["red"]) or "-"),
             ("Grey poems", "; ".join(_grey(c) for c in p["grey"]) or "-")]
    for label, text in texts:
        C.fit_text(draw, (x, y, x + 108, y + 36), label, 15, bold=True, valign="t")
        fill = C.MUTED if text == "-" else C.INK
        C.fit_text(draw, (x + 112, y, right, y + 38), text, 14, fill=fill, valign="t", wrap_lines=True, min_size=9)
        y += 42
    return y + 4


def _yusuf_board(draw: ImageDraw.ImageDraw, view: dict[str, Any], box: Rect) -> None:
    """Yusuf's board (solo): his tokens, his Worker tiles (revealed, the pile and the three
    decks as counts only), where his Workers stand, what he has built and carved."""
    from engine.sabika import names as N
    from engine.sabika.data import CITIES, MAJORS, MINORS

    y_ = view["yusuf"]
    x0, y0, x1, y1 = box
    top = C.panel(draw, box, "Yusuf's board", title_size=20)
    _disc(draw, (x1 - 24, y0 + 20), 13, PLAYER_COLOURS["yusuf"], "Y")
    fs = 16
    tokens = f"{y_['pp']} PP   {y_['parias']} Parias   favour {y_['favour']}   {y_['seals']} Seals   {y_['ships']} Ships"
    C.fit_text(draw, (x0 + 12, top - 2, x1 - 12, top + 24), tokens, fs + 1, bold=True, valign="t")
    y = top + 28
    # the decks and the pile: face down, counts only
    dx = x0 + 12
    for name in ("builder", "merchant", "poet"):
        draw.rectangle((dx, y, dx + 96, y + 56), fill=(60, 60, 60), outline=C.INK, width=2)
        C.fit_text(draw, (dx + 3, y + 4, dx + 93, y + 28), name.capitalize(), 14, bold=True, fill=(250, 250, 250),
                   align="c")
        C.fit_text(draw, (dx + 3, y + 28, dx + 93, y + 50), f"{y_['decks'][name]} cards", 14, fill=(250, 250, 250),
                   align="c")
        dx += 106
    draw.rectangle((dx, y, dx + 96, y + 56), fill=(90, 80, 70), outline=C.INK, width=2)
    C.fit_text(draw, (dx + 3, y + 4, dx + 93, y + 28), "Tile pile", 14, bold=True, fill=(250, 250, 250), align="c")
    C.fit_text(draw, (dx + 3, y + 28, dx + 93, y + 50), f"{y_['pile']} tiles", 14, fill=(250, 250, 250), align="c")
    y += 66
    workers = "  ".join(f"{w}: {'-' if y_['workers'][w]['at'] is None else y_['workers'][w]['at']}"
                        for w in sorted(y_["workers"], key=list(WORKER_LETTER).index))
    discards = ", ".join(f"{w} {len(y_['discards'].get(w, []))}" for w in ("builder", "merchant", "poet"))
    lines = [f"Workers on squares: {workers}",
             f"Worker tiles revealed: {', '.join(y_['revealed']) or '-'}",
             f"Card in play: {N.yusuf_card(y_['card']) if y_['card'] else '-'}   discards: {discards}",
             f"Majors: {', '.join(MAJORS[t]['type'].capitalize() for t in y_['majors']) or '-'};  "
             f"Minors: {', '.join(MINORS[c]['type'].capitalize() for c in y_['minors']) or '-'}",
             f"Poems: {len(y_['poems'])} Minor" + "".join(f"; grey {_grey(c)}" for c in y_["grey"]),
             f"Storehouses: {', '.join(N.storehouse(t).split(' (')[0] for t in y_['storehouses']) or '-'}",
             f"Trades with: {', '.join(CITIES[c]['name'] for c in y_['presence']) or '-'}   desires: {', '.join(y_['desired_types']) or '-'}"]
    C.paragraph(draw, (x0 + 12, y, x1 - 12, y1 - 4), "\n".join(lines), fs - 1, spacing=(fs + 5) / (fs - 1))


def layout(view: dict[str, Any]) -> dict[str, Rect]:
    """Where each part of the board picture goes. The viewing player's workshop is large (left),
    the opponents' small (right column); a spectator sees all workshops small in two columns;
    Yusuf's board, in solo, takes the right column. Keys: ``rondels``, ``offer``, ``map``,
    ``workshop:<seat>``, ``yusuf``; everything is ordered by seats, never by a dict's keys."""
    rects: dict[str, Rect] = {"rondels": (0, HEADER, 810, SHOP_TOP - 50), "offer": (820, HEADER + 10, WIDTH - 10,
                                                                                    HEADER + OFFER_HEIGHT),
                              "map": (820, HEADER + OFFER_HEIGHT + 10, WIDTH - 10, SHOP_TOP - 10)}
    seats = [w for w in _who_order(view) if w != "yusuf"]
    me = view.get("role") if view.get("role") in seats else None
    others = [w for w in seats if w != me]
    right: list[str] = [*others, *(["yusuf"] if view.get("yusuf") else [])]
    bottom = HEIGHT - 10
    if me is not None:
        rects[f"workshop:{me}"] = (10, SHOP_TOP, 800, bottom)
    column = (820.0, WIDTH - 10.0)
    slots = right
    if me is None and view.get("yusuf"):  # spectator of a solo game: the player small, Yusuf at the right
        rects[f"workshop:{others[0]}"] = (10, SHOP_TOP, 800, SHOP_TOP + 200)
        slots = ["yusuf"]
    elif me is None:  # spectator: two columns of small panels
        rows = (len(slots) + 1) // 2
        ph = min((bottom - SHOP_TOP - 10 * (rows - 1)) / rows, 200)
        for k, who in enumerate(slots):
            cx = 10 if k % 2 == 0 else 810
            cy = SHOP_TOP + (k // 2) * (ph + 10)
            rects[f"workshop:{who}"] = (cx, cy, cx + 780, cy + ph)
        return rects
    weights = [2.4 if w == "yusuf" else 1.0 for w in slots]
    total = sum(weights) or 1.0
    room = bottom - SHOP_TOP - 10 * max(0, len(slots) - 1)
    y = float(SHOP_TOP)
    for who, wgt in zip(slots, weights, strict=True):
        h = min(room * wgt / total, 200 if who != "yusuf" else 520)
        rects["yusuf" if who == "yusuf" else f"workshop:{who}"] = (column[0], y, column[0] + min(780, column[1] -
                                                                                                  column[0]), y + h)
        y += h + 10
    return rects


def _header(draw: ImageDraw.ImageDraw, view: dict[str, Any]) -> None:
    draw.rectangle((0, 0, WIDTH, HEADER), fill=(58, 44, 36))
    era = "I" * int(view["era"])
    ev = view["events"]
    event = "  Event active" if ev["active"] else (f"  Events face down: {ev['face_down']}" if ev["face_down"]
                                                    else "")
    title = (f"Sabika  Round {view['round']}/5 (Era {era})  Narrator {view['narrator']}  "
             f"Wishes in the Tower: {len(view['board']['tower'])}{event}")
    C.fit_text(draw, (16, 2, WIDTH - 16, HEADER - 2), title, 24, bold=True, fill=(255, 250, 235))


def draw_board(view: dict[str, Any]) -> Image.Image:
    view = C.content_order(view)
    img = Image.new("RGB", (WIDTH, HEIGHT), C.PARCHMENT)
    _draw_rondels(img, view)
    draw = ImageDraw.Draw(img)
    _header(draw, view)
    rects = layout(view)
    _panel_displays(draw, view, rects["offer"])
    _panel_map(draw, view, rects["map"])
    me = view.get("role")
    for who in _who_order(view):
        if who == "yusuf":
            _yusuf_board(draw, view, rects["yusuf"])
        else:
            _workshop(draw, view, who, rects[f"workshop:{who}"], large=who == me)
    prompt = view.get("prompt", "")
    C.paragraph(draw, (20, SHOP_TOP - 48, 800, SHOP_TOP - 2), prompt, 16, bold=True, spacing=22 / 16)
    return img


def board(view: dict[str, Any]) -> bytes:
    """PNG of the table as ``view``'s role (or a spectator) sees it."""
    return C.encode_png(draw_board(view))


def image_inputs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Only the board: everything a Sabika player holds is on the table."""
    return {"board": {k: v for k, v in view.items() if k not in ("actions", "log")}}
