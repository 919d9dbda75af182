"""Pictures of Dirk Henn's *Granada*, drawn from views only (view keys in
``engine/granada_city/view.py``).

* :func:`board` — for a player: his own city large (the positions he may build on lettered
  A, B, C... when he must place a tile, as the menu names them), his supply and money, the
  construction yard with prices and currencies, the black marker, the displayed money, the
  score track and every opponent's city small. For a spectator: every city at the same size
  and the public board.
* :func:`scoring` — the latest scoring: each building type's places and points, each city's
  longest moat, the points gained.

:func:`image_inputs` says which pictures apply to a view and what each is drawn from.

Same visual language as the other games (:mod:`render.common`): players are told apart by the
shape of their marker as well as its colour (red circle, blue square, green triangle, yellow
diamond, white hexagon, purple star); currencies by a shape beside the value (blue disc,
green square, orange triangle, yellow diamond); building types by colour *and* name; moats
are thick wavy blue bands on the tile's edge.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from PIL import Image, ImageDraw

from render import common as C

View = dict[str, Any]

WIDTH = 1400
HEADER = 56
BG: C.RGB = (233, 222, 196)
WATER: C.RGB = (38, 110, 190)
GROUND: C.RGB = (214, 196, 160)

PLAYER_COLOUR: dict[str, C.RGB] = {
    "red": C.OI.VERMILLION, "blue": C.OI.BLUE, "green": C.OI.GREEN, "yellow": C.OI.YELLOW,
    "white": (240, 240, 236), "purple": C.OI.PURPLE, "dirk": (120, 120, 120),
}
PLAYER_SHAPE = {"red": "circle", "blue": "square", "green": "triangle", "yellow": "diamond", "white": "hexagon",
                "purple": "star", "dirk": "cross"}
CURRENCY_COLOUR: dict[str, C.RGB] = {"blue": C.OI.SKY, "green": C.OI.GREEN, "orange": C.OI.ORANGE,
                                     "yellow": C.OI.YELLOW}
CURRENCY_SHAPE = {"blue": "circle", "green": "square", "orange": "triangle", "yellow": "diamond"}
TYPE_COLOUR: dict[str, C.RGB] = {
    "arena": (196, 82, 60), "bath_house": (96, 170, 214), "library": (150, 104, 60), "hostel": (232, 206, 120),
    "hospital": (238, 238, 232), "market": (230, 150, 40), "park": (96, 160, 80), "school": (160, 120, 190),
    "district": (140, 140, 150),
}
TYPE_SHORT = {"arena": "Arena", "bath_house": "Bath", "library": "Library", "hostel": "Hostel",
              "hospital": "Hospital", "market": "Market", "park": "Park", "school": "School", "district": "District"}
#: the shorter wording of a type's name on a small tile; the legend under the board explains them
TYPE_ABBR = {"arena": "Are", "bath_house": "Bat", "library": "Lib", "hostel": "Hst", "hospital": "Hsp",
             "market": "Mkt", "park": "Prk", "school": "Sch", "district": "Dis"}
TYPES = list(TYPE_COLOUR)
LEGEND_H = 34


def player_label(view: View, role: str, short: bool = False) -> str:
    """How a picture names a seat: its colour, and the player's name where the view carries
    one (``names``: role -> display name, as the table knows them); ``short`` the colour alone."""
    colour = "Dirk" if role == "dirk" else role.capitalize()
    name = (view.get("names") or {}).get(role)
    return f"{colour} ({name})" if name and not short else colour


# ---------------------------------------------------------------------------------------
# Sprites


def shape(draw: ImageDraw.ImageDraw, kind: str, box: C.Box, fill: C.Colour, edge: C.Colour = C.INK,
          width: int = 2) -> None:
    """A marker shape: what tells players (and currencies) apart besides colour."""
    x0, y0, x1, y1 = box
    cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, min(x1 - x0, y1 - y0) / 2
    if kind == "circle":
        draw.ellipse(box, fill=fill, outline=edge, width=width)
    elif kind == "square":
        draw.rectangle((cx - r * 0.85, cy - r * 0.85, cx + r * 0.85, cy + r * 0.85), fill=fill, outline=edge,
                       width=width)
    elif kind == "triangle":
        draw.polygon(C.regular_polygon(cx, cy + r * 0.15, r * 1.05, 3), fill=fill, outline=edge, width=width)
    elif kind == "diamond":
        draw.polygon(C.regular_polygon(cx, cy, r, 4), fill=fill, outline=edge, width=width)
    elif kind == "hexagon":
        draw.polygon(C.regular_polygon(cx, cy, r, 6), fill=fill, outline=edge, width=width)
    elif kind == "star":
        draw.polygon(C.star_points(cx, cy, r, r * 0.45, 5), fill=fill, outline=edge, width=width)
    else:
        draw.line((x0, y0, x1, y1), fill=edge, width=width + 2)
        draw.line((x0, y1, x1, y0), fill=edge, width=width + 2)


@functools.cache
def marker_sprite(role: str, size: int) -> Image.Image:
    def paint(d: ImageDraw.ImageDraw, f: float) -> None:
        shape(d, PLAYER_SHAPE.get(role, "circle"), (2 * f, 2 * f, (size - 2) * f, (size - 2) * f),
              PLAYER_COLOUR.get(role, C.MUTED), C.INK, max(1, round(2 * f)))
    return C.supersampled(size, size, paint)


def _moat(draw: ImageDraw.ImageDraw, box: C.Box, edge: str, band: float) -> None:
    x0, y0, x1, y1 = box
    rect = {"n": (x0, y0, x1, y0 + band), "s": (x0, y1 - band, x1, y1), "w": (x0, y0, x0 + band, y1),
            "e": (x1 - band, y0, x1, y1)}[edge]
    draw.rectangle(rect, fill=WATER)
    # a light wave line along the band, so a moat reads without colour
    rx0, ry0, rx1, ry1 = rect
    pts = []
    n = 8
    for i in range(n + 1):
        t = i / n
        if edge in ("n", "s"):
            pts.append((rx0 + (rx1 - rx0) * t, (ry0 + ry1) / 2 + math.sin(t * math.pi * 4) * band * 0.22))
        else:
            pts.append(((rx0 + rx1) / 2 + math.sin(t * math.pi * 4) * band * 0.22, ry0 + (ry1 - ry0) * t))
    draw.line(pts, fill=(220, 236, 250), width=max(1, round(band / 5)))


@functools.cache
def tile_sprite(kind: str, price: int, moats: tuple[str, ...], reverse: str, size: int,
                colour: str = "") -> Image.Image:
    """A building tile: type colour and name, price large, moats on its edges, and a small mark
    of the reverse side's type in a corner (as on the printed tile). ``kind`` "start" draws an
    Alhambra in ``colour``."""
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    box = (1.0, 1.0, size - 2.0, size - 2.0)
    if kind == "start":
        fill = C.mix(PLAYER_COLOUR.get(colour, C.MUTED), C.WHITE, 0.35)
        d.rectangle(box, fill=fill, outline=C.INK, width=2)
        C.icon(d, "castle", (size * 0.2, size * 0.14, size * 0.8, size * 0.62), C.INK)
        C.fit_text(d, (size * 0.05, size * 0.66, size * 0.95, size * 0.94), ["Alhambra", "Alh"], max(9, size // 6),
                   bold=True, align="c", min_size=8)
        m = marker_sprite(colour, max(10, size // 4))
        img.alpha_composite(m, (size - m.width - 3, 3))
        return img
    fill = TYPE_COLOUR[kind]
    ink = C.contrast_ink(fill)
    d.rectangle(box, fill=fill, outline=C.INK, width=2)
    band = max(4.0, size * 0.11)
    for e in moats:
        _moat(d, box, e, band)
    C.fit_text(d, (band + 2, size * 0.18, size - band - 2, size * 0.48), [TYPE_SHORT[kind], TYPE_ABBR[kind]],
               max(9, size // 6), bold=True, fill=ink, align="c", min_size=8, keep_wording_to=max(9, size // 8))
    C.fit_text(d, (band + 2, size * 0.46, size - band - 2, size * 0.86), str(price), max(12, size // 3), bold=True,
               fill=ink, outline=fill, stroke=1, align="c", min_size=8)
    if reverse:
        r = max(4, size // 10)
        cx, cy = size - band - r - 2, size - band - r - 2
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=TYPE_COLOUR[reverse], outline=C.INK)
    return img


def tile_image(t: dict[str, Any], size: int) -> Image.Image:
    if t.get("start"):
        return tile_sprite("start", 0, (), "", size, str(t.get("colour", "")))
    return tile_sprite(str(t["type"]), int(t["price"]), tuple(t.get("moats", [])), str(t.get("reverse_type", "")),
                       size)


@functools.cache
def money_sprite(currency: str, value: int, w: int, h: int) -> Image.Image:
    def paint(d: ImageDraw.ImageDraw, f: float) -> None:
        box = (f, f, (w - 1) * f, (h - 1) * f)
        fill = C.mix(CURRENCY_COLOUR[currency], C.WHITE, 0.25)
        d.rounded_rectangle(box, radius=6 * f, fill=fill, outline=C.INK, width=max(1, round(2 * f)))
        s = min(w, h) * 0.34 * f
        shape(d, CURRENCY_SHAPE[currency], (w * f * 0.5 - s / 2, h * f * 0.68 - s / 2, w * f * 0.5 + s / 2,
                                            h * f * 0.68 + s / 2), CURRENCY_COLOUR[currency], C.INK,
              max(1, round(f)))
        C.fit_text(d, (4 * f, 4 * f, (w - 4) * f, h * f * 0.5), str(value), round(h * 0.36 * f), bold=True,
                   align="c", min_size=round(C.MIN_TEXT * f))
    return C.supersampled(w, h, paint)


# ---------------------------------------------------------------------------------------
# Parts


def draw_city(img: Image.Image, cells: list[dict[str, Any]], box: C.Box, positions: list[dict[str, Any]],
              max_tile: int = 110) -> None:
    """A city fitted in ``box``, north up; free positions to build on as lettered dashed cells."""
    draw = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    xs = [c["x"] for c in cells] + [p["x"] for p in positions]
    ys = [c["y"] for c in cells] + [p["y"] for p in positions]
    if not xs:
        return
    minx, maxx, miny, maxy = min(xs), max(xs), min(ys), max(ys)
    cols, rows = maxx - minx + 1, maxy - miny + 1
    size = int(max(14, min(max_tile, (x1 - x0) / cols, (y1 - y0) / rows)))
    ox = x0 + ((x1 - x0) - cols * size) / 2
    oy = y0 + ((y1 - y0) - rows * size) / 2
    for c in cells:
        sprite = tile_image(c, size)
        C.paste(img, sprite, (ox + (c["x"] - minx) * size, oy + (c["y"] - miny) * size))
    for p in positions:
        px, py = ox + (p["x"] - minx) * size, oy + (p["y"] - miny) * size
        inset = size * 0.08
        draw.rectangle((px + inset, py + inset, px + size - inset, py + size - inset), fill=(255, 246, 214),
                       outline=C.HIGHLIGHT, width=max(2, size // 24))
        C.fit_text(draw, (px + inset, py + inset, px + size - inset, py + size - inset), p["label"],
                   max(10, int(size * 0.45)), bold=True, align="c")


def _player_line(img: Image.Image, draw: ImageDraw.ImageDraw, xy: tuple[float, float], role: str,
                 text: str | list[str], right: float, size: int = 24, bold: bool = True, below: float = 0) -> None:
    """A player's marker and a text after it, fitted between the marker and ``right`` (over the
    marker's height and ``below`` pixels more, where a shorter wording takes two lines)."""
    x, y = xy
    C.paste(img, marker_sprite(role, size), (x, y))
    C.fit_text(draw, (x + size + 8, y - 2, right, y + size + 2 + below), text, max(12, size * 2 // 3), bold=bold)


def draw_yard(img: Image.Image, view: View, box: C.Box) -> None:
    draw = ImageDraw.Draw(img)
    x0, _y0, x1, y1 = box
    top = C.panel(draw, box, "Construction yard", title_right=x0 + (x1 - x0) * 0.45)
    marker = view.get("marker", "even")
    C.fit_text(draw, (x0 + (x1 - x0) * 0.45, box[1] + 6, x1 - 14, box[1] + 30),
               [f"next refill: {marker} side", f"refill: {marker}"], 15, bold=True, align="r")
    slot = (x1 - x0 - 24) / 4
    size = int(min(slot - 14, y1 - top - 52))
    for i, space in enumerate(view.get("yard", [])):
        sx = x0 + 12 + i * slot
        cx = sx + slot / 2
        cur = space["currency"]
        C.fit_text(draw, (cx - 12, top, cx + 12, top + 24), f"{space['space']}", 18, bold=True, align="c", valign="t")
        s = 18
        shape(draw, CURRENCY_SHAPE[cur], (cx + 16, top + 2, cx + 16 + s, top + 2 + s), CURRENCY_COLOUR[cur])
        C.fit_text(draw, (sx + 2, top, cx - 14, top + 22), cur, 14, align="r")
        ty = top + 28
        if space.get("tile"):
            C.paste(img, tile_image(space["tile"], size), (cx - size / 2, ty))
        else:
            draw.rectangle((cx - size / 2, ty, cx + size / 2, ty + size), outline=C.MUTED, width=2)
            C.fit_text(draw, (cx - size / 2 + 2, ty, cx + size / 2 - 2, ty + size), "empty", 14, fill=C.MUTED, align="c")


def draw_money_row(img: Image.Image, cards: list[dict[str, Any]], xy: tuple[float, float], w: int, h: int,
                   max_width: float) -> float:
    """Money cards in a row (overlapping when many); returns the y below the row."""
    x, y = xy
    if not cards:
        return y
    step = min(w + 8, (max_width - w) / max(1, len(cards) - 1)) if len(cards) > 1 else w
    for i, card in enumerate(cards):
        C.paste(img, money_sprite(card["currency"], int(card["value"]), w, h), (x + i * step, y))
    return y + h


def draw_scores(img: Image.Image, view: View, box: C.Box) -> None:
    draw = ImageDraw.Draw(img)
    top = C.panel(draw, box, "Victory points")
    x0, _y0, x1, _y1 = box
    scores = view.get("scores", {})
    best = max(list(scores.values()) + [1])
    y = top
    # ties in seat order (Dirk last), never the dict's order: a view read back from the
    # database has its keys sorted, and the same view must draw the same picture
    seats = [r for r in view.get("roles", []) if r in scores] + (["dirk"] if "dirk" in scores else [])
    seats += sorted(set(scores) - set(seats))
    for who in sorted(seats, key=lambda r: -scores[r]):
        pts = scores[who]
        moat = view.get("moats", {}).get(who)
        extra = f" · moat {moat}" if moat is not None else ""
        hand = view.get("hand_counts", {}).get(who)
        extra += f" · {hand} cards" if hand is not None else ""
        label = player_label(view, who)
        short = player_label(view, who, short=True)
        _player_line(img, draw, (x0 + 12, y), who, [f"{label} {pts}{extra}", f"{short} {pts}{extra}"], x1 - 12, 22)
        bx0 = x0 + 12
        bar = (x1 - 24 - bx0) * pts / best
        draw.rectangle((bx0, y + 25, bx0 + bar, y + 29), fill=PLAYER_COLOUR.get(who, C.MUTED), outline=C.INK)
        y += 36


def _header(draw: ImageDraw.ImageDraw, view: View, width: int) -> None:
    draw.rectangle((0, 0, width, HEADER), fill=(58, 44, 36))
    C.fit_text(draw, (14, 4, 160, HEADER - 4), "Granada", 24, bold=True, family="serif", fill=(255, 250, 235))
    res = view.get("result")
    turn = view.get("turn") or {}
    if res:
        status = f"Game over: {res.get('reason', '')}"
    elif view.get("stage") == "award":
        status = "End of the game: leftover tiles are given out"
    else:
        who = player_label(view, str(turn.get("role", "?")))
        status = f"Turn {turn.get('number', '?')}: {who}"
    role = view.get("role")
    seen = player_label(view, role, short=True) if role else "Spectator"
    C.fit_text(draw, (width * 0.7, 4, width - 14, HEADER - 4), [f"View: {seen}", seen], 16, bold=True,
               fill=(255, 250, 235), align="r")
    C.fit_text(draw, (170, 4, width * 0.7 - 12, HEADER - 4), status, 19, bold=True, fill=(255, 250, 235),
               wrap_lines=True, spacing=1.1)


def _type_legend(draw: ImageDraw.ImageDraw, y: float) -> float:
    """A row naming each building type beside its colour and the short name a small tile
    bears ("Library (Lib)"). Returns the y below it."""
    x, step = 16.0, (WIDTH - 32) / len(TYPES)
    for kind in TYPES:
        draw.rectangle((x, y + 8, x + 18, y + 26), fill=TYPE_COLOUR[kind], outline=C.INK)
        C.fit_text(draw, (x + 24, y + 4, x + step - 6, y + 30), [f"{TYPE_SHORT[kind]} ({TYPE_ABBR[kind]})",
                                                                  TYPE_SHORT[kind]], 14)
        x += step
    return y + LEGEND_H


def _public_panels(img: Image.Image, view: View, x0: float, y: float, x1: float) -> float:
    """Yard, displayed money and deck, scores: the public board. Returns the y below."""
    draw = ImageDraw.Draw(img)
    draw_yard(img, view, (x0, y, x1, y + 210))
    y += 222
    top = C.panel(draw, (x0, y, x1, y + 150), "Money on display")
    draw_money_row(img, view.get("display", []), (x0 + 14, top), 64, 90, (x1 - x0) * 0.62)
    deck = view.get("deck", {})
    left = deck.get("scoring_cards_left", [])
    info = [f"deck {deck.get('size', 0)} cards", f"bag {view.get('bag', {}).get('size', 0)} tiles",
            "scorings to come: " + (", ".join(left) + ", C" if left else "C at the end")]
    for i, line in enumerate(info):
        C.fit_text(draw, (x0 + (x1 - x0) * 0.64, top + 2 + i * 24, x1 - 10, top + 24 + i * 24), line, 15)
    y += 162
    n = len(view.get("scores", {}))
    h = 52 + 36 * n
    draw_scores(img, view, (x0, y, x1, y + h))
    return y + h + 12


def _city_panel(img: Image.Image, view: View, who: str, box: C.Box, positions: list[dict[str, Any]],
                max_tile: int) -> None:
    draw = ImageDraw.Draw(img)
    x0, y0, x1, y1 = box
    C.rounded(draw, box, 10, C.PANEL, PLAYER_COLOUR.get(who, C.PANEL_EDGE), 4)
    supply = view.get("supplies", {}).get(who, [])
    facts = f"{view.get('scores', {}).get(who, 0)} pts · moat {view.get('moats', {}).get(who, 0)} · supply {len(supply)}"
    label, short = player_label(view, who), player_label(view, who, short=True)
    # one line where it fits; else the player above the facts; the facts are never cut
    _player_line(img, draw, (x0 + 10, y0 + 6), who, [f"{label}: {facts}", f"{label}\n{facts}", f"{short}\n{facts}"],
                 x1 - 10, 24, below=6)
    cells = view.get("cities", {}).get(who, [])
    draw_city(img, cells, (x0 + 10, y0 + 44, x1 - 10, y1 - 10), positions, max_tile)


def _supply_panel(img: Image.Image, tiles: list[dict[str, Any]], box: C.Box, title: str) -> None:
    draw = ImageDraw.Draw(img)
    top = C.panel(draw, box, title)
    x0, _y0, x1, y1 = box
    if not tiles:
        C.fit_text(draw, (x0 + 14, top, x1 - 14, top + 24), "empty", 15, fill=C.MUTED)
        return
    size = 64
    per_row = max(1, int((x1 - x0 - 20) // (size + 6)))
    rows = max(1, int((y1 - top - 6) // (size + 6)))
    if len(tiles) > per_row * rows:
        size = int(max(24, min(size, math.sqrt((x1 - x0 - 20) * (y1 - top - 6) / len(tiles)) - 6)))
        per_row = max(1, int((x1 - x0 - 20) // (size + 6)))
    for i, t in enumerate(tiles):
        r, c = divmod(i, per_row)
        C.paste(img, tile_image(t, size), (x0 + 12 + c * (size + 6), top + r * (size + 6)))


# ---------------------------------------------------------------------------------------
# Public picture kinds


def draw_board(view: View) -> Image.Image:
    view = C.content_order(view)
    role = view.get("role")
    roles = list(view.get("roles", []))
    if role is None:
        return _spectator(view, roles)
    others = [r for r in roles if r != role]
    small_rows = math.ceil(len(others) / 3) if others else 0
    dirk = view.get("dirk")
    height = HEADER + 880 + small_rows * 300 + (170 if dirk is not None else 0) + LEGEND_H + 70
    img = Image.new("RGBA", (WIDTH, height), BG + (255,))
    draw = ImageDraw.Draw(img)
    _header(draw, view, WIDTH)
    top = HEADER + 12
    _city_panel(img, view, role, (12, top, 812, top + 640), view.get("positions", []), 120)
    # own money and supply under the city
    money = view.get("money", {})
    hand_top = C.panel(draw, (12, top + 652, 812, top + 868), "Your money: " + ", ".join(
        f"{money.get(c, 0)} {c}" for c in CURRENCY_COLOUR))
    draw_money_row(img, view.get("hand", []), (26, hand_top), 58, 82, 770)
    bought = (view.get("turn") or {}).get("bought", []) if (view.get("turn") or {}).get("role") == role else []
    if bought:
        bx = 26.0
        by = hand_top + 94
        C.fit_text(draw, (bx, by, bx + 146, by + 22), "Bought, to place:", 15, bold=True)
        for i, t in enumerate(bought):
            C.paste(img, tile_image(t, 56), (bx + 150 + i * 62, by - 18))
    y_right = _public_panels(img, view, 826, top, WIDTH - 12)
    supply = view.get("supplies", {}).get(role, [])
    _supply_panel(img, supply, (826, y_right, WIDTH - 12, top + 868), f"Your supply ({len(supply)})")
    y = top + 880
    w = (WIDTH - 24 - 2 * 12) / 3
    for i, other in enumerate(others):
        r, c = divmod(i, 3)
        bx = 12 + c * (w + 12)
        by = y + r * 300
        _city_panel(img, view, other, (bx, by, bx + w, by + 288), [], 60)
    y += small_rows * 300
    if dirk is not None:
        _supply_panel(img, dirk, (12, y, WIDTH - 12, y + 160), f"Dirk's tiles ({len(dirk)}): majorities only")
        y += 170
    below = _type_legend(draw, y)
    C.paragraph(draw, (16, below + 4, WIDTH - 16, height - 4), str(view.get("prompt", "")), 18, bold=True)
    return img


def _spectator(view: View, roles: list[str]) -> Image.Image:
    n = len(roles)
    per_row = 2 if n <= 4 else 3
    rows = math.ceil(n / per_row)
    city_w = (812 - 12 * (per_row - 1)) / per_row
    city_h = 420 if per_row == 2 else 330
    dirk = view.get("dirk")
    height = HEADER + 12 + max(rows * (city_h + 12), 880) + (170 if dirk is not None else 0) + LEGEND_H + 70
    img = Image.new("RGBA", (WIDTH, height), BG + (255,))
    draw = ImageDraw.Draw(img)
    _header(draw, view, WIDTH)
    top = HEADER + 12
    for i, who in enumerate(roles):
        r, c = divmod(i, per_row)
        bx = 12 + c * (city_w + 12)
        by = top + r * (city_h + 12)
        _city_panel(img, view, who, (bx, by, bx + city_w, by + city_h), [], 80)
    _public_panels(img, view, 826, top, WIDTH - 12)
    y = top + max(rows * (city_h + 12), 880)
    if dirk is not None:
        _supply_panel(img, dirk, (12, y, WIDTH - 12, y + 160), f"Dirk's tiles ({len(dirk)}): majorities only")
        y += 170
    below = _type_legend(draw, y)
    C.paragraph(draw, (16, below + 4, WIDTH - 16, height - 4), str(view.get("prompt", "")), 18, bold=True)
    return img


def board(view: View) -> bytes:
    """PNG of the game as ``view``'s player (or a spectator) sees it."""
    return C.encode_png(draw_board(view).convert("RGB"))


def scoring(view: View) -> bytes:
    """PNG of the latest scoring: for each building type the number built by each competitor
    and the points each place took, then the longest moats and the points gained."""
    view = C.content_order(view)
    report = view.get("last_scoring")
    if not report:
        raise KeyError("no scoring has taken place yet")
    who = [r for r in view.get("roles", [])] + (["dirk"] if "dirk" in report.get("points", {}) else [])
    col0, colw, rowh = 220, 150, 44
    width = col0 + colw * len(who) + 20
    height = HEADER + 60 + rowh * (len(TYPES) + 3) + 20
    img = Image.new("RGBA", (max(width, 700), height), BG + (255,))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, img.width, HEADER), fill=(58, 44, 36))
    title = f"Granada · scoring {report.get('card')}" + (" (simplified)" if report.get("simplified") else "")
    C.fit_text(draw, (14, 4, img.width - 14, HEADER - 4), title, 22, bold=True, fill=(255, 250, 235))
    y = HEADER + 12
    for j, w in enumerate(who):
        x = col0 + j * colw
        _player_line(img, draw, (x + 6, y), w, [player_label(view, w), player_label(view, w, short=True)], x + colw - 4,
                     26)
    y += 48
    for kind in TYPES:
        entry = report["types"].get(kind, {"total": 0, "ranking": []})
        draw.rectangle((12, y + 4, 40, y + rowh - 8), fill=TYPE_COLOUR[kind], outline=C.INK)
        C.fit_text(draw, (50, y, col0 - 4, y + rowh), f"{TYPE_SHORT[kind]} ({entry['total']})", 18, bold=True)
        places = {r["who"]: (i + 1, r) for i, r in enumerate(entry["ranking"])}
        for j, w in enumerate(who):
            x = col0 + j * colw
            if w in places:
                place, r = places[w]
                txt = f"{r['count']} (#{place}) +{r['points']}" if r["points"] else f"{r['count']} (#{place})"
                C.fit_text(draw, (x + 8, y, x + colw - 4, y + rowh), txt, 17, bold=bool(r["points"]))
            else:
                C.fit_text(draw, (x + 8, y, x + colw - 4, y + rowh), "-", 17, fill=C.MUTED)
        draw.line((12, y + rowh - 2, img.width - 12, y + rowh - 2), fill=C.PANEL_EDGE)
        y += rowh
    draw.rectangle((12, y + 6, 40, y + 14), fill=WATER)
    C.fit_text(draw, (50, y, col0 - 4, y + rowh), "Longest moat", 18, bold=True)
    for j, w in enumerate(who):
        moat = report.get("moats", {}).get(w)
        x = col0 + j * colw
        C.fit_text(draw, (x + 8, y, x + colw - 4, y + rowh), "-" if moat is None else f"{moat} +{moat}", 17)
    y += rowh
    C.fit_text(draw, (50, y, col0 - 4, y + rowh), "Points gained", 18, bold=True)
    for j, w in enumerate(who):
        x = col0 + j * colw
        C.fit_text(draw, (x + 8, y, x + colw - 4, y + rowh), f"+{report['points'].get(w, 0)}", 20, bold=True)
    return C.encode_png(img.convert("RGB"))


#: View keys no picture shows.
NOT_ON_BOARD = frozenset({"actions", "log", "scorings", "last_scoring", "pending", "discard"})
SCORING_KEYS = ("game", "roles", "last_scoring")


def image_inputs(view: View) -> dict[str, dict[str, Any]]:
    """The board always (from everything it shows); the scoring table once a scoring happened."""
    out: dict[str, dict[str, Any]] = {"board": {k: v for k, v in view.items() if k not in NOT_ON_BOARD}}
    if view.get("last_scoring"):
        out["scoring"] = {k: view.get(k) for k in SCORING_KEYS}
    return out


def turn_key(view: View) -> Any:
    """What a turn is, for a replay: the turn number (and the end)."""
    return view.get("phase")
