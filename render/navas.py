"""Pictures of *1212 Las Navas de Tolosa*, drawn from views only (see the view keys in
``engine/navas/__init__.py``).

* :func:`board` — the 18 zones (columns A-C, rows 1-6; rows 1-3 the Muslim area, al-Nasir's
  camp in B1), every unit on its current power face (exhausted units tilted and tagged),
  the initiative area, the active card, deck and discard pile, the viewer's hand and
  special cards, the zones held and the combat under way.
* :func:`hand` — the viewer's combat cards and special cards, large.
* :func:`closeup` — one zone and its neighbours, enlarged for a phone.

:func:`image_inputs` says which of these apply to a view and what each is drawn from (for
``render.pictures``).

Same visual language as Granada (:mod:`render.common`): Christians light pieces, Muslims
dark ones; kingdoms told apart by emblem shape (Aragón pales, Castile tower, Navarre
saltire) as well as colour; the green (Muslim) and red (Christian) card numbers also differ
by position and by a crescent / cross beside them.
"""

from __future__ import annotations

import functools
from typing import Any

from PIL import Image, ImageDraw

from engine.text import plural
from render import common as C

WIDTH, HEIGHT = 1500, 1000
HEADER = 56
GRID_X, GRID_Y = 44, HEADER + 20
ZONE_W, ZONE_H = 284, 136
COLUMNS = ("A", "B", "C")
ROWS = (1, 2, 3, 4, 5, 6)
PANEL_X = GRID_X + 3 * ZONE_W + 24
UNIT = 80

SIDE_NAME = {"christian": "Christian", "muslim": "Muslim", None: "Spectator"}
CARD_GREEN: C.RGB = C.OI.GREEN
CARD_RED: C.RGB = C.OI.VERMILLION
MUSLIM_AREA: C.RGB = C.mix((236, 228, 204), C.OI.GREEN, 0.16)
CHRISTIAN_AREA: C.RGB = C.mix((236, 228, 204), C.OI.VERMILLION, 0.11)
KINGDOM_OF_COLUMN = {"A": "aragon", "B": "castile", "C": "navarre"}
SHORT_NAMES = {
    "Jund Infantry": "Jund Infantry", "Kurdish Cavalry": "Kurdish Cav.", "Jihad Volunteers": "Jihad Vol.",
    "Aragonese Knights": "Aragon. Knights", "Castilian Knights": "Castil. Knights",
    "Navarrese Knights": "Navar. Knights", "Council Militia": "Council Militia", "Military Orders": "Mil. Orders",
    "Jiménez de Rada": "Jiménez de Rada", "López de Haro": "López de Haro",
}


def zone_box(zone: str, s: float = 1.0) -> tuple[float, float, float, float]:
    col = COLUMNS.index(zone[0])
    row = ROWS.index(int(zone[1:]))
    x0 = (GRID_X + col * ZONE_W) * s
    y0 = (GRID_Y + row * ZONE_H) * s
    return (x0, y0, x0 + ZONE_W * s, y0 + ZONE_H * s)


# ---------------------------------------------------------------------------------------
# Sprites


@functools.lru_cache(maxsize=512)
def unit_sprite(name: str, side: str, kingdom: str | None, power: int, icons: tuple[str, ...], star: bool,
                size: int, exhausted: bool = False) -> Image.Image:
    """A unit marker on its current face: power (2 or 1), coat of arms, attack icons, name.

    The 1-power face is drawn with a hatched lower half so that a damaged unit reads as
    such without relying on colour. Exhausted units come back tilted and tagged."""
    style = C.SIDES[side]
    fill = style.fill if power >= 2 else C.mix(style.fill, (128, 128, 128), 0.35)

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        S = size * k
        draw.rounded_rectangle((k, k, S - k, S - k), radius=S * 0.14, fill=fill, outline=style.edge,
                               width=max(1, round(2 * k)))
        if power < 2:
            step = S * 0.1
            x = -S
            while x < S:
                draw.line((x, S * 0.98, x + S * 0.4, S * 0.58), fill=C.mix(fill, style.ink, 0.25), width=max(1, round(k)))
                x += step
        # power
        r = S * 0.17
        draw.ellipse((S * 0.06, S * 0.06, S * 0.06 + 2 * r, S * 0.06 + 2 * r), fill=style.ink)
        C.fit_text(draw, (S * 0.06, S * 0.06, S * 0.06 + 2 * r, S * 0.06 + 2 * r), str(power), round(S * 0.27),
                   bold=True, fill=fill, align="c", min_size=round(8 * k))
        # coat of arms
        arms = kingdom if side == "christian" else "almohad"
        C.shield(draw, (S * 0.62, S * 0.07, S * 0.92, S * 0.42), arms, edge=C.INK if side == "christian" else (160, 160, 160),
                 width=max(1, round(k)))
        if star:
            C.icon(draw, "star", (S * 0.44, S * 0.08, S * 0.58, S * 0.22), C.OI.ORANGE)
        for i, ic in enumerate(icons):
            box = (S * (0.08 + 0.26 * i), S * 0.45, S * (0.30 + 0.26 * i), S * 0.66)
            C.icon(draw, "bow" if ic == "archer" else "horse", box, style.ink, fill)
        label = SHORT_NAMES.get(name, name)
        C.fit_text(draw, (S * 0.05, S * 0.70, S * 0.95, S * 0.97), label, round(S * 0.15), bold=True, family="condensed",
                   fill=style.ink, align="c", min_size=max(6, round(S * 0.09)))

    sprite = C.supersampled(size, size, paint, factor=2)
    if exhausted:
        # tilted, as on the table, and tagged so that the state does not rest on an angle alone
        pad = round(size * 0.22)
        canvas = C.new_rgba(size + 2 * pad, size + 2 * pad)
        canvas.paste(sprite, (pad, pad), sprite)
        sprite = canvas.rotate(-10, resample=Image.Resampling.BICUBIC)
        d = ImageDraw.Draw(sprite)
        f = C.font(max(8, round(size * 0.15)), True, "condensed")
        w = min(f.getlength("EXHAUSTED") + size * 0.1, sprite.width - 2)
        x0 = (sprite.width - w) / 2
        y0 = pad + size * 0.97
        d.rounded_rectangle((x0, y0, x0 + w, y0 + size * 0.19), radius=size * 0.05, fill=C.OI.ORANGE, outline=C.INK)
        C.fit_text(d, (x0 + 1, y0, x0 + w - 1, y0 + size * 0.19), "EXHAUSTED", max(8, round(size * 0.15)), bold=True,
                   family="condensed", align="c", min_size=8)
    return sprite


@functools.lru_cache(maxsize=64)
def combat_card_sprite(muslim: int, christian: int, arms: str, w: int, h: int, label: str = "") -> Image.Image:
    """A combat card: the green Muslim number at the top (with a crescent), the red
    Christian number at the bottom (with a cross), the kingdom's arms in its column's slot."""

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        W, H = w * k, h * k
        C.card_frame(draw, (k, k, W - k, H - k), fill=C.PAPER, edge=C.INK, radius=W * 0.08)
        # Muslim half
        r = W * 0.2
        draw.ellipse((W * 0.1, H * 0.05, W * 0.1 + 2 * r, H * 0.05 + 2 * r), fill=CARD_GREEN, outline=C.INK)
        C.fit_text(draw, (W * 0.1, H * 0.05, W * 0.1 + 2 * r, H * 0.05 + 2 * r), str(muslim), round(r * 1.3), bold=True,
                   fill=C.WHITE, align="c", min_size=round(8 * k))
        C.emblem(draw, "crescent", (W * 0.64, H * 0.07, W * 0.88, H * 0.07 + W * 0.24), CARD_GREEN, C.PAPER)
        # arms slot: left / centre / right as the columns
        pos = {"aragon": 0, "castile": 1, "navarre": 2}.get(arms, 1)
        sw = W * 0.8 / 3
        for i in range(3):
            x0 = W * 0.1 + i * sw
            draw.rounded_rectangle((x0 + 2 * k, H * 0.40, x0 + sw - 2 * k, H * 0.60), radius=3 * k,
                                   outline=C.MUTED, width=max(1, round(k)))
        x0 = W * 0.1 + pos * sw
        C.shield(draw, (x0 + sw * 0.14, H * 0.41, x0 + sw * 0.86, H * 0.59), arms, width=max(1, round(k)))
        # Christian half
        yb = H * 0.95 - 2 * r
        draw.ellipse((W * 0.9 - 2 * r, yb, W * 0.9, yb + 2 * r), fill=CARD_RED, outline=C.INK)
        C.fit_text(draw, (W * 0.9 - 2 * r, yb, W * 0.9, yb + 2 * r), str(christian), round(r * 1.3), bold=True,
                   fill=C.WHITE, align="c", min_size=round(8 * k))
        C.emblem(draw, "cross", (W * 0.12, yb + r * 0.2, W * 0.36, yb + r * 0.2 + W * 0.24), CARD_RED, C.PAPER)
        if label:
            C.fit_text(draw, (W * 0.05, H * 0.62, W * 0.95, H * 0.74), label, round(H * 0.065), family="condensed",
                       fill=C.MUTED, align="c", min_size=round(8 * k))

    return C.supersampled(w, h, paint, factor=2)


@functools.lru_cache(maxsize=16)
def card_back(w: int, h: int, text: str = "") -> Image.Image:
    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        C.card_back(draw, (k, k, w * k - k, h * k - k), (92, 64, 48), "chequy")
        if text:
            C.fit_text(draw, (w * k * 0.06, h * k * 0.70, w * k * 0.94, h * k * 0.94), text, round(h * k * 0.16),
                       bold=True, fill=C.WHITE, outline=C.INK, align="c", min_size=round(8 * k))

    return C.supersampled(w, h, paint, factor=2)


def special_card(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], name: str, text: str | None,
                 side: str | None, status: str = "") -> None:
    """A special card of the advanced variant: its unit's name and its effect."""
    band = C.OI.GREEN if side == "muslim" else C.OI.VERMILLION if side == "christian" else C.MUTED
    C.card_frame(draw, box, fill=C.PAPER, edge=C.INK, band=band, radius=8)
    x0, y0, x1, y1 = box
    C.fit_text(draw, (x0 + 7, y0 + 2, x1 - 7, y0 + (y1 - y0) * 0.16), name, 15, bold=True, family="condensed",
               fill=C.WHITE, align="c", min_size=9)
    if text:
        C.paragraph(draw, (x0 + 8, y0 + (y1 - y0) * 0.2, x1 - 8, y1 - (26 if status else 6)), text, 11,
                    family="condensed", min_size=9)
    if status:
        C.fit_text(draw, (x0 + 6, y1 - 24, x1 - 6, y1 - 4), status, 13, bold=True, fill=C.ALERT, align="c")


# ---------------------------------------------------------------------------------------
# Static layer


@C.cached_layer
def static_board(s: float = 1.0) -> Image.Image:
    img = Image.new("RGB", (round(WIDTH * s), round(HEIGHT * s)), C.PARCHMENT)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, WIDTH * s, HEADER * s), fill=(58, 44, 36))
    C.fit_text(draw, (14 * s, 10 * s, WIDTH * 0.5 * s, HEADER * s - 4 * s), "1212 · LAS NAVAS DE TOLOSA", round(20 * s),
               bold=True, family="serif", fill=(244, 226, 170), valign="t")
    for zone_col in COLUMNS:
        for row in ROWS:
            zone = f"{zone_col}{row}"
            box = zone_box(zone, s)
            fill = MUSLIM_AREA if row <= 3 else CHRISTIAN_AREA
            draw.rectangle(box, fill=fill, outline=(120, 104, 84), width=max(1, round(2 * s)))
            C.fit_text(draw, (box[0] + 6 * s, box[1] + 3 * s, box[0] + 40 * s, box[1] + 24 * s), zone, round(14 * s),
                       bold=True, fill=C.MUTED, valign="t")
    # camp of al-Nasir
    cb = zone_box("B1", s)
    draw.rectangle((cb[0] + 3 * s, cb[1] + 3 * s, cb[2] - 3 * s, cb[3] - 3 * s), outline=C.OI.ORANGE,
                   width=max(2, round(3 * s)))
    C.fit_text(draw, (cb[0] + 44 * s, cb[1] + 4 * s, cb[2] - 8 * s, cb[1] + 22 * s), "al-Nasir's camp", round(12 * s),
               bold=True, family="condensed", align="r", valign="t")
    # the line between the two areas
    y_mid = (GRID_Y + 3 * ZONE_H) * s
    draw.line((GRID_X * s - 8 * s, y_mid, (GRID_X + 3 * ZONE_W) * s + 8 * s, y_mid), fill=C.INK, width=max(3, round(5 * s)))
    for label, yc in (("MUSLIM AREA", GRID_Y + 1.5 * ZONE_H), ("CHRISTIAN AREA", GRID_Y + 4.5 * ZONE_H)):
        txt = Image.new("RGBA", (round(220 * s), round(22 * s)), (0, 0, 0, 0))
        C.fit_text(ImageDraw.Draw(txt), (2 * s, 0, 218 * s, 22 * s), label, round(13 * s), bold=True, align="c")
        rot = txt.rotate(90, expand=True)
        img.paste(rot, (round(8 * s), round(yc * s - rot.height / 2)), rot)
    # column coats of arms under the Christian area
    for i, col in enumerate(COLUMNS):
        x0 = (GRID_X + i * ZONE_W) * s
        y0 = (GRID_Y + 6 * ZONE_H + 6) * s
        kingdom = KINGDOM_OF_COLUMN[col]
        C.shield(draw, (x0 + 10 * s, y0, x0 + 34 * s, y0 + 28 * s), kingdom)
        name = C.faction_style(kingdom).name
        C.fit_text(draw, (x0 + 42 * s, y0, x0 + (ZONE_W - 4) * s, y0 + 28 * s), [f"Column {col}: {name}", f"{col}: {name}"],
                   round(14 * s), bold=True)
    return img


# ---------------------------------------------------------------------------------------
# Drawing


def _kingdom_of(view: dict[str, Any], u: dict[str, Any]) -> str | None:
    if u["side"] != "christian":
        return None
    kingdoms = view.get("board", {}).get("column_kingdoms", KINGDOM_OF_COLUMN)
    return str(kingdoms.get(str(u.get("deploy", "B"))[0], "castile"))


def _unit_img(view: dict[str, Any], uid: str, size: int) -> Image.Image:
    u = view["units"][uid]
    return unit_sprite(u["name"], u["side"], _kingdom_of(view, u), max(1, int(u.get("power") or 1)),
                       tuple(u.get("icons", ())), bool(u.get("star")) and bool(view.get("options", {}).get("advanced")),
                       size, bool(u.get("exhausted")))


def _zone_centre(zone: str, s: float) -> tuple[float, float]:
    b = zone_box(zone, s)
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2 + 8 * s)


UNIT_TOP = 28        # units sit this far below a zone's top edge
UNIT_GAP = 12


def _zone_rc(zone: str) -> tuple[int, int]:
    return COLUMNS.index(zone[0]), ROWS.index(int(zone[1:]))


def arrow_ends(a_zone: str, b_zone: str, s: float = 1.0) -> tuple[tuple[float, float], tuple[float, float]]:
    """An attack arrow from ``a_zone`` to ``b_zone``, routed through the free bands of the
    grid so that it reads where no unit stands: between two rows (a unit row leaves 28 px
    free above and below it), along the bottom of a row (sideways attacks) or across a
    corner (diagonal ones). An archer shot two zones away crosses the zone between, under
    its units (the arrow is drawn before them, so it never hides a unit's name)."""
    (ca, ra), (cb, rb) = _zone_rc(a_zone), _zone_rc(b_zone)
    ax0, ay0, ax1, ay1 = zone_box(a_zone, s)
    bx0, by0, bx1, by1 = zone_box(b_zone, s)
    free = (ZONE_H - UNIT_TOP - UNIT) * s        # free below a row of units (and as much above the next)
    band = free / 2
    if ca == cb:
        x = (ax0 + ax1) / 2
        if rb > ra:
            return (x, ay1 - free + 8 * s), (x, by0 + free - 8 * s)
        return (x, ay0 + free - 8 * s), (x, by1 - free + 8 * s)
    if ra == rb:
        y = ay1 - band
        if cb > ca:
            return (ax1 - 34 * s, y), (bx0 + 34 * s, y)
        return (ax0 + 34 * s, y), (bx1 - 34 * s, y)
    # diagonal: from the source's free band near the shared corner to the target's
    sx = ax1 - 40 * s if cb > ca else ax0 + 40 * s
    ex = bx0 + 40 * s if cb > ca else bx1 - 40 * s
    sy = ay1 - band if rb > ra else ay0 + band
    ey = by0 + band if rb > ra else by1 - band
    return (sx, sy), (ex, ey)


def unit_sprites(view: dict[str, Any], s: float = 1.0) -> list[tuple[str, Image.Image, tuple[int, int]]]:
    """Each unit's sprite and where it is pasted (an exhausted unit's tilted sprite is
    larger than its square, centred on it)."""
    size = round(UNIT * s)
    out = []
    for uid, (x, y) in unit_positions(view, s).items():
        sprite = _unit_img(view, uid, size)
        dx = (sprite.width - size) / 2
        dy = (sprite.height - size) / 2
        out.append((uid, sprite, (round(x - dx), round(y - dy))))
    return out


def unit_positions(view: dict[str, Any], s: float = 1.0) -> dict[str, tuple[float, float]]:
    """The top-left corner of each unit on the grid (its upright square, before any tilt)."""
    out: dict[str, tuple[float, float]] = {}
    size = round(UNIT * s)
    for zone, info in view["zones"].items():
        units = list(info.get("units", []))
        if not units:
            continue
        box = zone_box(zone, s)
        step = size + UNIT_GAP * s
        x = (box[0] + box[2]) / 2 - (len(units) * step - UNIT_GAP * s) / 2
        for uid in units:
            out[uid] = (x, box[1] + UNIT_TOP * s)
            x += step
    return out


def _arrow(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], colour: C.Colour, width: int) -> None:
    import math

    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    tip = b
    hl = width * 3.2
    neck = (tip[0] - hl * 0.8 * math.cos(ang), tip[1] - hl * 0.8 * math.sin(ang))
    draw.line((a, neck), fill=colour, width=width)
    left = (tip[0] - hl * math.cos(ang - 0.45), tip[1] - hl * math.sin(ang - 0.45))
    right = (tip[0] - hl * math.cos(ang + 0.45), tip[1] - hl * math.sin(ang + 0.45))
    draw.polygon([tip, left, right], fill=colour)


def draw_grid(img: Image.Image, view: dict[str, Any], s: float = 1.0, off: tuple[float, float] = (0.0, 0.0)) -> None:
    draw = ImageDraw.Draw(img)
    # the combat under way, else the last battle: an arrow from the attacking zone, drawn
    # first so that no unit's name is ever under it
    combat = view.get("combat") or None
    last = view.get("last_battle") or None
    for info, colour, width in ((last, C.mix(C.ALERT, C.PARCHMENT, 0.5), 5), (combat, C.ALERT, 8)):
        if info and info.get("from") and info.get("to") and info["from"] != info["to"]:
            a, b = arrow_ends(info["from"], info["to"], s)
            a = (a[0] - off[0], a[1] - off[1])
            b = (b[0] - off[0], b[1] - off[1])
            _arrow(draw, a, b, colour, max(2, round(width * s)))
    for _uid, sprite, (x, y) in unit_sprites(view, s):
        img.paste(sprite, (round(x - off[0]), round(y - off[1])), sprite)
    pending = view.get("pending") or {}
    if pending.get("kind") == "damage" and pending.get("zone"):
        bx = zone_box(pending["zone"], s)
        draw.rectangle((bx[0] + 4 * s - off[0], bx[1] + 4 * s - off[1], bx[2] - 4 * s - off[0], bx[3] - 4 * s - off[1]),
                       outline=C.ALERT, width=max(2, round(4 * s)))
        C.fit_text(draw, (bx[0] + 44 * s - off[0], bx[1] + 5 * s - off[1], bx[2] - 8 * s - off[0],
                          bx[1] + 26 * s - off[1]),
                   [f"{pending.get('amount', '?')} damage to take", f"{pending.get('amount', '?')} damage"],
                   round(14 * s), bold=True, fill=C.ALERT, outline=C.WHITE, align="r", valign="t")


def _card_img(view: dict[str, Any], cid: str | None, w: int, h: int) -> Image.Image:
    if cid is None or cid == "face-down" or cid not in view.get("cards", {}):
        return card_back(w, h)
    c = view["cards"][cid]
    return combat_card_sprite(int(c["muslim"]), int(c["christian"]), str(c["arms"]), w, h)


PHASE_TITLES = {"special": "Special cards", "initiative": "Initiative phase", "action": "Action phase",
                "maintenance": "Maintenance phase"}


def _winner_text(res: dict[str, Any]) -> str:
    return f"{SIDE_NAME.get(res.get('winner'), str(res.get('winner') or 'Nobody'))} victory"


def status_lines(view: dict[str, Any]) -> list[str]:
    """The status panel's title and lines, true to the moment: "Game over" and the result
    once the battle is over; while a side is choosing the card of its turn, that it is
    choosing (its action points come with the card); then its action points and attacks."""
    res = view.get("result")
    stage = str(view.get("stage", view.get("phase")) or "")
    if res or stage == "over":
        if not res:
            return ["Game over", "The battle is over."]
        reason = str(res.get("reason") or "")
        return ["Game over", _winner_text(res)] + ([reason[:1].upper() + reason[1:] + "."] if reason else [])
    lines = [f"Round {view.get('round', '?')} · {PHASE_TITLES.get(stage, stage.title())}"]
    turn = view.get("turn")
    if turn:
        who = SIDE_NAME.get(turn.get("role"), "?")
        lines.append(f"Turn {turn.get('number', '?')} of 4: {who}")
        if turn.get("card"):
            lines.append(f"{plural(turn.get('ap', 0), 'action point')} left · combats {turn.get('combats', 0)}/2 · "
                         f"archers {turn.get('archers', 0)}/1")
        else:
            lines.append("choosing the combat card of the turn (it gives the action points)")
    return lines


def _panel(img: Image.Image, view: dict[str, Any]) -> None:
    draw = ImageDraw.Draw(img)
    x0, x1 = PANEL_X, WIDTH - 12
    role = view.get("role")
    # status: what the moment is (the action-point line only once a card is in play)
    y: float = HEADER + 14
    over = status_lines(view)
    y = C.panel(draw, (x0, y, x1, y + 118), over[0])
    turn = view.get("turn")
    below = y + 46
    for i, line in enumerate(over[1:3]):
        if i == 0:
            C.fit_text(draw, (x0 + 12, y - 2, x1 - 130, y + 20), line, 15, bold=True, valign="t")
        else:   # the action points, or why the battle ended (wrapped: a reason can be long)
            below = max(below, C.paragraph(draw, (x0 + 12, y + 22, x1 - 64, y + 22 + 2 * 13 * 1.2), line, 13) + 4)
    if turn and turn.get("card") and not view.get("result"):
        sp = _card_img(view, turn["card"], 46, 66)
        img.paste(sp, (round(x1 - 58), round(y - 26)), sp)
        C.fit_text(draw, (x1 - 128, y, x1 - 64, y + 20), "active card", 12, family="condensed", fill=C.MUTED,
                   align="r", valign="t")
    occ = view.get("occupied") or {}
    if occ:
        C.fit_text(draw, (x0 + 12, below - 2, x1 - 64, below + 18),
                   f"Zones held: Christian {occ.get('christian', 0)} · Muslim {occ.get('muslim', 0)}", 13, valign="t")
    # initiative area
    y = HEADER + 142
    top = C.panel(draw, (x0, y, x1, y + 176), "Initiative area")
    ini = view.get("initiative") or {}
    cw, ch = 82, 118
    for i, side in enumerate(("christian", "muslim")):
        cx = x0 + 14 + i * (cw + 30)
        cid = ini.get(side)
        if cid is None:
            draw.rounded_rectangle((cx, top, cx + cw, top + ch), radius=8, outline=C.MUTED, width=1)
        else:
            sp = _card_img(view, cid, cw, ch)
            img.paste(sp, (round(cx), round(top)), sp)
        C.fit_text(draw, (cx - 12, top + ch, cx + cw + 12, top + ch + 20), SIDE_NAME[side], 12, family="condensed",
                   align="c")
    first = ini.get("first")
    info_x = x0 + 14 + 2 * (cw + 30)
    lines = []
    if first:
        lines.append(f"Initiative: {SIDE_NAME[first]}")
    if ini.get("shield"):
        lines.append(f"Shielded by {SIDE_NAME[ini['shield']]}")
    if ini and not ini.get("revealed") and any(ini.get(sd) for sd in ("christian", "muslim")):
        lines.append("not yet revealed")
    for i, line in enumerate(lines):
        C.fit_text(draw, (info_x, top + 4 + i * 20, x1 - 12, top + 24 + i * 20), line, 13, valign="t")
    # deck and discard
    y = HEADER + 330
    top = C.panel(draw, (x0, y, x1, y + 132), "Game deck and discard pile")
    deck = view.get("deck") or {}
    sp = card_back(62, 88, str(deck.get("size", "?")))
    img.paste(sp, (round(x0 + 14), round(top)), sp)
    discard = list(view.get("discard") or [])
    dx = x0 + 96
    for cid in discard[-7:]:
        spc = _card_img(view, cid, 52, 74)
        img.paste(spc, (round(dx), round(top + 6)), spc)
        dx += 56
    if deck.get("order_known") and deck.get("cards"):
        order = ", ".join(f"{view['cards'][c]['muslim']}/{view['cards'][c]['christian']}" for c in deck["cards"]
                          if c in view.get("cards", {}))
        C.fit_text(draw, (x0 + 14, top + 90, x1 - 12, top + 108), [f"Deck order (top first): {order}", order], 12,
                   family="condensed", valign="t")
    elif not discard:
        C.fit_text(draw, (x0 + 100, top + 28, x1 - 12, top + 48), "discard pile empty", 12, family="condensed",
                   fill=C.MUTED, valign="t")
    # hands
    y = HEADER + 474
    title = "Your hand" if role else "Hands"
    top = C.panel(draw, (x0, y, x1, y + 150), title)
    counts = view.get("hand_counts") or {}
    if role:
        hx = x0 + 14
        for cid in view.get("hand") or []:
            spc = _card_img(view, cid, 72, 104)
            img.paste(spc, (round(hx), round(top)), spc)
            hx += 80
        opp = "muslim" if role == "christian" else "christian"
        n = int(counts.get(opp, 0))
        ox = x1 - 14 - 44
        for i in range(n):
            spb = card_back(40, 58)
            img.paste(spb, (round(ox - i * 16), round(top + 30)), spb)
        C.fit_text(draw, (x1 - 200, top + 94, x1 - 14, top + 112), f"{SIDE_NAME[opp]}: {n} card{'s' if n != 1 else ''}", 12,
                   family="condensed", align="r", valign="t")
    else:
        for i, side in enumerate(("christian", "muslim")):
            n = int(counts.get(side, 0))
            C.fit_text(draw, (x0 + 14, top + 6 + i * 24, x1 - 14, top + 28 + i * 24),
                       f"{SIDE_NAME[side]}: {n} card{'s' if n != 1 else ''}", 13, valign="t")
    # specials
    specials = view.get("specials") or {}
    y = HEADER + 636
    top = C.panel(draw, (x0, y, x1, y + 120), "Special cards (advanced variant)")
    if not specials:
        C.fit_text(draw, (x0 + 14, top + 2, x1 - 14, top + 22), "not in play (basic game)", 13, fill=C.MUTED, valign="t")
    elif role:
        catalog = specials.get("catalog", {})

        def names(ids: list[str]) -> str:
            return ", ".join(catalog.get(i, {}).get("name", i) for i in ids) or "none"

        C.fit_text(draw, (x0 + 14, top - 2, x1 - 14, top + 20), f"In hand: {names(specials.get('hand', []))}", 15,
                   bold=True, valign="t")
        C.fit_text(draw, (x0 + 14, top + 20, x1 - 14, top + 40), f"Used: {names(specials.get('used', []))} · discarded: "
                   f"{names(specials.get('discarded', []))}", 12, family="condensed", valign="t")
        C.fit_text(draw, (x0 + 14, top + 42, x1 - 14, top + 62), f"Opponent: {specials.get('opponent_hand', 0)} in hand, "
                   f"{specials.get('opponent_discarded', 0)} discarded, used: {names(specials.get('opponent_used', []))}",
                   12, family="condensed", valign="t")
    else:
        for i, side in enumerate(("christian", "muslim")):
            info = specials.get(side, {})
            used = ", ".join(str(u).replace("-", " ").title() for u in info.get("used", [])) or "none"
            C.fit_text(draw, (x0 + 14, top - 2 + i * 22, x1 - 14, top + 18 + i * 22),
                       f"{SIDE_NAME[side]}: {info.get('hand', 0)} in hand · used: {used}", 12, family="condensed",
                       valign="t")
    # eliminated units (every one of the game: the view's units out of play) and, below them,
    # the last battle; the title said "Eliminated units · last battle", read as the units the
    # last battle eliminated (issue 38)
    y = HEADER + 768
    top = C.panel(draw, (x0, y, x1, HEIGHT - 12), "Eliminated units (whole game)")
    dead = [uid for uid, u in view["units"].items() if u.get("eliminated")]
    ex = x0 + 14
    for uid in dead[:14]:
        u = view["units"][uid]
        sp = unit_sprite(u["name"], u["side"], _kingdom_of(view, u), 2, tuple(u.get("icons", ())), False, 34)
        img.paste(sp, (round(ex), round(top)), sp)
        ex += 36
    if not dead:
        C.fit_text(draw, (x0 + 14, top + 6, x1 - 14, top + 26), "none", 13, fill=C.MUTED, valign="t")
    elif len(dead) > 14:
        C.fit_text(draw, (ex + 4, top + 6, x1 - 12, top + 30), f"+{len(dead) - 14}", 15, bold=True, valign="t")
    last = view.get("last_battle")
    if last:
        att = SIDE_NAME.get(last.get("attacker"), "?")
        kind = {"charge": "Cavalry charge", "standard": "Standard attack", "karr": "Karr wa-l-farr"}.get(
            str(last.get("kind")), str(last.get("kind", "")).title())
        head = f"Last battle: {kind} {last.get('from')}→{last.get('to')} by {att}"
        if last.get("damage") is not None:
            text = f"{head}: {last['damage']} damage."
        else:
            def parts(key: str) -> str:
                return " + ".join(f"{p[0]} {p[1]}" for p in last.get(key) or [])

            text = (f"{head}: {last.get('attacker_total')} ({parts('attacker_parts')}) against "
                    f"{last.get('defender_total')} ({parts('defender_parts')}).")
        tx = x0 + 14
        if last.get("card") in view.get("cards", {}):
            spc = _card_img(view, last["card"], 30, 43)
            img.paste(spc, (round(tx), round(top + 42)), spc)
            tx += 38
        C.paragraph(draw, (tx, top + 42, x1 - 14, top + 42 + 3 * 12 * 1.2), text, 12, family="condensed")
    prompt = str(view.get("prompt", ""))
    if prompt:
        C.paragraph(draw, (x0 + 14, HEIGHT - 54, x1 - 14, HEIGHT - 14), prompt, 12, bold=True, family="condensed")


def _header(draw: ImageDraw.ImageDraw, view: dict[str, Any]) -> None:
    role = view.get("role")
    res = view.get("result")
    status = status_lines(view)[0]
    if res:
        status = f"Game over: {_winner_text(res)}"
    seen = SIDE_NAME.get(role, "Spectator")
    name = (view.get("names") or {}).get(role) if role else None
    # the player's name under the side, a little smaller where it must be, before it is left out
    C.fit_text(draw, (WIDTH - 414, 16, WIDTH - 14, HEADER - 1), [f"View: {seen}\n{name}", f"View: {seen}"] if name
               else f"View: {seen}", 16, bold=True, fill=(255, 250, 235), align="r", valign="t", spacing=1.1,
               keep_wording_to=11)
    C.fit_text(draw, (400, 14, WIDTH - 424, HEADER - 4), status, 18, bold=True, fill=(255, 250, 235), valign="t",
               wrap_lines=True, spacing=1.1)


def draw_board(view: dict[str, Any]) -> Image.Image:
    img = static_board(1.0).copy()
    draw_grid(img, view)
    _panel(img, view)
    _header(ImageDraw.Draw(img), view)
    return img


# ---------------------------------------------------------------------------------------
# Public image kinds


def board(view: dict[str, Any]) -> bytes:
    """PNG of the battlefield as ``view``'s role (or a spectator) sees it."""
    return C.encode_png(draw_board(view))


def closeup(view: dict[str, Any], zone: str, scale: float = 2.0) -> bytes:
    """PNG of one zone and its neighbours, enlarged (units, faces and tags readable on a phone)."""
    zone = zone.strip().upper()
    if len(zone) != 2 or zone[0] not in COLUMNS or not zone[1:].isdigit() or int(zone[1:]) not in ROWS:
        raise KeyError(f"unknown zone {zone!r}; zones are A1..C6")
    b = zone_box(zone, 1.0)
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    half_w, half_h = ZONE_W * 1.1, ZONE_H * 1.6
    x0 = min(max(cx - half_w, 0), GRID_X + 3 * ZONE_W + 20 - 2 * half_w)
    y0 = min(max(cy - half_h, HEADER), HEIGHT - 2 * half_h)
    crop = (round(x0 * scale), round(y0 * scale), round((x0 + 2 * half_w) * scale), round((y0 + 2 * half_h) * scale))
    img = static_board(scale).crop(crop)
    draw_grid(img, view, scale, (float(crop[0]), float(crop[1])))
    return C.encode_png(C.titled(img, f"1212 · zone {zone} and around · {SIDE_NAME.get(view.get('role'), 'Spectator')} view"))


def hand(view: dict[str, Any]) -> bytes:
    """PNG of the viewer's combat cards (large) and, in the advanced variant, his special cards."""
    role = view.get("role")
    cards = list(view.get("hand") or [])
    specials = view.get("specials") or {}
    own_specials = list(specials.get("hand", [])) if role else []
    used = list(specials.get("used", [])) if role else []
    catalog = specials.get("catalog", {})
    cw, ch = 150, 214
    sw, sh = 200, 214
    n_cards = max(1, len(cards))
    n_spec = len(own_specials) + len(used)
    width = max(560, 30 + n_cards * (cw + 16) + (n_spec * (sw + 16) + 30 if n_spec else 0))
    height = 300
    img = Image.new("RGB", (width, height), C.PARCHMENT)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, width, 44), fill=(58, 44, 36))
    title = f"1212 · {SIDE_NAME.get(role, 'Spectator')} hand" if role else "1212 · a spectator holds no cards"
    C.fit_text(draw, (14, 8, width - 14, 40), title, 20, bold=True, fill=(255, 250, 235), valign="t")
    x = 20
    if not cards:
        C.fit_text(draw, (x, 118, x + cw * 2, 140), "no combat cards in hand", 16, fill=C.MUTED, valign="t")
    for cid in cards:
        sp = _card_img(view, cid, cw, ch)
        img.paste(sp, (x, 64), sp)
        c = view["cards"].get(cid, {})
        C.fit_text(draw, (x - 6, 64 + ch, x + cw + 6, 64 + ch + 20), f"green {c.get('muslim')} · red {c.get('christian')}",
                   12, family="condensed", align="c")
        x += cw + 16
    if n_spec:
        x += 14
        for sid in own_specials + used:
            info = catalog.get(sid, {"name": sid, "text": ""})
            special_card(draw, (x, 64, x + sw, 64 + sh), info.get("name", sid), info.get("text"), role,
                         "USED" if sid in used else "")
            x += sw + 16
    return C.encode_png(img)


#: View keys no picture shows (the board does show the prompt and the hand).
NOT_ON_BOARD = frozenset({"actions", "log"})
HAND_KEYS = ("game", "role", "hand", "cards", "specials")


def image_inputs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """For each picture that applies to ``view``, the part of the view it is drawn from:
    the board always, the hand for a player (a spectator holds no cards)."""
    out: dict[str, dict[str, Any]] = {"board": {k: v for k, v in view.items() if k not in NOT_ON_BOARD}}
    if view.get("role") is not None:
        out["hand"] = {k: view.get(k) for k in HAND_KEYS}
    return out
