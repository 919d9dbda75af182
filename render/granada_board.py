"""The Granada board picture: the static layer (map, track frames, legend) and what a
view adds on it (control, markers, stacks placed by :mod:`render.granada_layout`, fleets,
header, track, victory points and the boxes).

Layout and speed: the map, the track frames and every label are one static layer cached per
scale (:func:`static_board`); a board is a copy of it plus pasted sprites (cached by face)
and a few shapes, encoded at a fast zlib level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PIL import Image, ImageDraw

from render import common as C
from render import granada_layout as L
from render import granada_map as M
from render import granada_pieces as P
from render.granada_scene import YEARS, Battle, Piece, Scene

ROMAN = {1: "I", 2: "II"}
SIDE_NAME = {"christian": "Christians", "muslim": "Muslims", None: "Spectator"}
BOX_NAME = {"christian": "Catholic Monarchs box", "muslim": "Granada Kingdom box"}
Offset = tuple[float, float]

# bottom panel geometry (scale 1, canvas coordinates)
PANEL_Y = M.HEADER + M.MAP_HEIGHT
TRACK_BOX = (10, PANEL_Y + 10, 600, PANEL_Y + 150)
VP_BOX = (10, PANEL_Y + 158, 600, PANEL_Y + 290)
RECRUIT_BOX = (610, PANEL_Y + 10, 1140, PANEL_Y + 290)
SPECIAL_BOX = (1150, PANEL_Y + 10, 1440, PANEL_Y + 290)
ELIM_BOX = (1450, PANEL_Y + 10, 1790, PANEL_Y + 290)

# the optional rules' strip under the panel, only while an optional rule is in play (section 11)
OPT_H = 176
OPT_Y = M.HEIGHT
MERC_BOX = (10, OPT_Y + 6, 600, OPT_Y + OPT_H - 10)
BULL_BOX = (610, OPT_Y + 6, 1140, OPT_Y + OPT_H - 10)
REMOVED_BOX = (1150, OPT_Y + 6, 1440, OPT_Y + OPT_H - 10)
MARKERS_BOX = (1450, OPT_Y + 6, 1790, OPT_Y + OPT_H - 10)
BULL_INK: C.RGB = C.OI.PURPLE
OPT_BLOCK = 30
OPT_CARD_SCALE = 0.56

PLATE: C.RGB = (250, 246, 236)
PLATE_EDGE: C.RGB = (120, 104, 84)
LEADER: C.RGB = (96, 64, 150)     # stack leader lines: purple, unlike any road or river


def _components() -> Any:
    return P._components()


# ---------------------------------------------------------------------------------------
# Static layer


def _track_cells(s: float) -> list[tuple[int, int, tuple[float, float, float, float]]]:
    """(year index, turn, box) for every turn space of the Turn track."""
    x0, y0, x1, _ = TRACK_BOX
    cells = []
    inner_w = (x1 - x0 - 20) / len(YEARS)
    for yi, _year in enumerate(YEARS):
        bx = x0 + 10 + yi * inner_w
        turns = (2,) if yi == 0 else (1,) if yi == len(YEARS) - 1 else (1, 2)
        for t in turns:
            cw = (inner_w - 6) / 2
            cx = bx + (0 if t == 1 else cw) if len(turns) == 2 else bx + cw / 2
            box = (cx * s, (y0 + 62) * s, (cx + cw - 2) * s, (y0 + 100) * s)
            cells.append((yi, t, box))
    return cells


@C.cached_layer
def static_board(s: float = 1.0) -> Image.Image:
    """Header strip, map and panel frames (everything that no view changes) at scale ``s``."""
    w, h = round(M.WIDTH * s), round(M.HEIGHT * s)
    img = Image.new("RGB", (w, h), C.PARCHMENT)
    img.paste(M.map_layer(s), (0, round(M.HEADER * s)))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, w, M.HEADER * s), fill=(58, 44, 36))
    draw.line((0, M.HEADER * s, w, M.HEADER * s), fill=C.INK, width=max(1, round(2 * s)))
    draw.line((0, PANEL_Y * s, w, PANEL_Y * s), fill=C.INK, width=max(1, round(2 * s)))
    C.fit_text(draw, (14 * s, 16 * s, 330 * s, 44 * s), "GRANADA", round(22 * s), bold=True, family="serif",
               fill=(244, 226, 170), valign="t")
    C.fit_text(draw, (14 * s, 42 * s, 330 * s, (M.HEADER - 1) * s), "Last Stand of the Moors 1482–1492", round(12 * s),
               fill=(220, 208, 180), valign="t")

    # Turn track
    C.panel(draw, tuple(v * s for v in TRACK_BOX), "Turn track", title_size=round(16 * s))  # type: ignore[arg-type]
    x0, y0, x1, _ = TRACK_BOX
    inner_w = (x1 - x0 - 20) / len(YEARS)
    for yi, year in enumerate(YEARS):
        bx = x0 + 10 + yi * inner_w
        C.fit_text(draw, (bx * s, (y0 + 40) * s, (bx + inner_w - 6) * s, (y0 + 60) * s), year, round(12 * s), bold=True,
                   family="condensed", align="c", min_size=round(9 * s))
    for _yi, t, box in _track_cells(s):
        draw.rounded_rectangle(box, radius=5 * s, fill=C.PAPER, outline=C.PANEL_EDGE, width=max(1, round(s)))
        C.fit_text(draw, box, ROMAN[t], round(13 * s), bold=True, fill=C.MUTED, align="c")
    C.fit_text(draw, ((x0 + 12) * s, (y0 + 106) * s, (x1 - 12) * s, (y0 + 124) * s),
               ["Game ends after turn I of 1491-1492; reinforcements after each turn II.",
                "Ends after turn I of 1491-1492; reinforcements after each turn II."], round(11 * s), fill=C.MUTED,
               valign="t", min_size=round(9 * s))

    C.panel(draw, tuple(v * s for v in VP_BOX), "Victory points (if the game ended now)",  # type: ignore[arg-type]
            title_size=round(16 * s))
    C.panel(draw, tuple(v * s for v in RECRUIT_BOX), "Recruitment boxes", title_size=round(16 * s))  # type: ignore[arg-type]
    C.panel(draw, tuple(v * s for v in SPECIAL_BOX), "Muslim boxes", title_size=round(16 * s))  # type: ignore[arg-type]
    C.panel(draw, tuple(v * s for v in ELIM_BOX), "Eliminated blocks", title_size=round(16 * s))  # type: ignore[arg-type]
    sx0, sy0, sx1, sy1 = SPECIAL_BOX
    C.fit_text(draw, ((sx0 + 12) * s, (sy0 + 34) * s, (sx1 - 12) * s, (sy0 + 52) * s), "Nasrid Palace Guard",
               round(12 * s), bold=True, valign="t", min_size=round(9 * s))
    C.fit_text(draw, ((sx0 + 12) * s, (sy0 + 148) * s, (sx1 - 12) * s, (sy0 + 166) * s), "Boabdil Mixed Army",
               round(12 * s), bold=True, valign="t", min_size=round(9 * s))
    _legend(draw, s)
    return img


def _legend(draw: ImageDraw.ImageDraw, s: float) -> None:
    """A key of the map symbols, in the open sea south-west (the Atlantic off Morocco)."""
    x, y = 12 * s, (M.HEADER + M.MAP_HEIGHT - L.LEGEND_H - 10) * s
    w, h = 250 * s, L.LEGEND_H * s
    paper = (250, 248, 240)
    draw.rounded_rectangle((x, y, x + w, y + h), radius=8 * s, fill=paper, outline=C.PANEL_EDGE,
                           width=max(1, round(s)))
    fs = round(11 * s)
    rows = [("main", "Main road (+1 move)"), ("hybrid", "Hybrid road (+1 for Muslims)"),
            ("secondary", "Secondary road")]
    yy = y + 12 * s
    for kind, caption in rows:
        M.draw_road(draw, (x + 10 * s, yy), (x + 50 * s, yy), kind, s)
        C.fit_text(draw, (x + 58 * s, yy - 8 * s, x + w - 6 * s, yy + 8 * s), caption, fs, family="condensed",
                   min_size=round(9 * s))
        yy += 17 * s

    def dot(colour: C.RGB) -> Callable[[tuple[float, float, float, float]], None]:
        return lambda b: draw.ellipse((b[0] + 3 * s, b[1] + 3 * s, b[2] - 3 * s, b[3] - 3 * s), fill=colour,
                                      outline=C.INK)

    def ring(b: tuple[float, float, float, float]) -> None:
        draw.ellipse(b, fill=C.ALERT, outline=C.INK)
        C.icon(draw, "sword", (b[0] + 3 * s, b[1] + 3 * s, b[2] - 3 * s, b[3] - 3 * s), (255, 255, 255))

    def known(b: tuple[float, float, float, float]) -> None:
        draw.rounded_rectangle(b, radius=3 * s, fill=C.SIDES["muslim"].fill, outline=C.OI.ORANGE,
                               width=max(2, round(2 * s)))

    items: list[tuple[Callable[[tuple[float, float, float, float]], None], str]] = [
        (lambda b: C.icon(draw, "castle", b, C.INK, paper), "Castle (colour = controller)"),
        (lambda b: C.icon(draw, "watchtower", b, C.INK, paper), "Watchtower"),
        (lambda b: C.icon(draw, "star", b, C.INK), "Resource (cube colour)"),
        (lambda b: C.icon(draw, "anchor", b, M.SEA_TEXT), "Port → its sea zone"),
        (lambda b: C.shield(draw, b, "castile"), "Recruitment shield"),
        (ring, "Battle to fight (hollow: standing)"),
        (known, "Orange edge: identity known to both"),
        (dot(C.OI.SKY), "Moved this turn"),
        (dot(C.OI.PURPLE), "Arrived this turn (cannot move)"),
        (lambda b: C.icon(draw, "castle", b, C.INK, paper), "Badge on a block: inside the castle"),
    ]
    for paint, caption in items:
        paint((x + 22 * s, yy - 7 * s, x + 36 * s, yy + 8 * s))
        C.fit_text(draw, (x + 58 * s, yy - 9 * s, x + w - 6 * s, yy + 9 * s), caption, fs, family="condensed",
                   min_size=round(9 * s))
        yy += 18 * s
    C.fit_text(draw, (x + 10 * s, yy - 6 * s, x + w - 6 * s, min(yy + 12 * s, y + h - 2 * s)),
               "Reddish area: Kingdom of Granada", fs, family="condensed", fill=M.KINGDOM_EDGE, min_size=round(9 * s))


# ---------------------------------------------------------------------------------------
# Dynamic drawing helpers


def _map_xy(pt: tuple[float, float], s: float, off: Offset) -> tuple[float, float]:
    return (pt[0] * s - off[0], (pt[1] + M.HEADER) * s - off[1])


def _piece_sprite(piece: Piece, size: int) -> Image.Image:
    hl = C.OI.ORANGE if piece.revealed else None
    return P.block_sprite(piece.face, piece.colour, size, hl)


def _paste(img: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    img.paste(sprite, (round(x), round(y)), sprite)


GridItem = Piece | tuple[str, int] | str     # a block, a counted group, a marker tile's key


def _rows(pieces: list[Piece], per_row: int, group_from: int = 3,
          tiles: dict[str, list[str]] | None = None) -> list[list[GridItem]]:
    """Rows of a stack: Christians first, then Muslims; each side's marker tiles of the
    optional rules (``tiles``: side -> marker keys) first, then known faces before plain
    blocks.

    Concealed blocks of one colour carry nothing but their number, so three or more of
    them are drawn as one block bearing that number (the map stays readable where many
    stacks crowd, e.g. around Granada)."""
    rows: list[list[GridItem]] = []
    by_side: dict[str, list[Piece]] = {}
    for p in pieces:
        by_side.setdefault("muslim" if p.colour == "black" else "christian", []).append(p)
    for side in ("christian", "muslim"):
        group = by_side.get(side, [])
        marks: list[GridItem] = list((tiles or {}).get(side, []))
        if not group and not marks:
            continue
        shown: list[GridItem] = marks + [p for p in group if p.face is not None]
        concealed = [p for p in group if p.face is None]
        by_colour: dict[str, list[Piece]] = {}
        for p in concealed:
            by_colour.setdefault(p.colour, []).append(p)
        for colour, same in by_colour.items():
            if len(same) >= group_from:
                shown.append((colour, len(same)))
            else:
                shown.extend(same)
        for i in range(0, len(shown), per_row):
            rows.append(shown[i:i + per_row])
    return rows


def _rows_size(rows: list[list[GridItem]], size: float, gap: float) -> tuple[float, float]:
    if not rows:
        return (0.0, 0.0)
    cols = max(len(r) for r in rows)
    return (cols * (size + gap) - gap, len(rows) * (size + gap) - gap)


def _draw_rows(img: Image.Image, draw: ImageDraw.ImageDraw, rows: list[list[GridItem]], box_x: float, box_y: float,
               width: float, size: int, gap: float, show_moves: bool = True) -> None:
    step = size + gap
    for r, row in enumerate(rows):
        row_w = len(row) * step - gap
        x = box_x + (width - row_w) / 2
        y = box_y + r * step
        for item in row:
            if isinstance(item, str):
                pass                   # a marker tile: drawn where the layout put it (_draw_markers)
            elif isinstance(item, tuple):
                colour, count = item
                _paste(img, P.count_sprite(colour, count, size), x, y)
            else:
                _paste(img, _piece_sprite(item, size), x, y)
                if show_moves and item.face is not None and (item.moved or item.fresh):
                    rad = size * 0.13
                    draw.ellipse((x + size - 2 * rad - 1, y + size - 2 * rad - 1, x + size - 1, y + size - 1),
                                 fill=C.OI.SKY if item.moved else C.OI.PURPLE, outline=C.INK)
                if item.inside:
                    b = size * 0.42
                    draw.rectangle((x - 2, y - 2, x + b, y + b), fill=(255, 250, 235), outline=C.INK)
                    C.icon(draw, "castle", (x - 1, y - 1, x + b - 1, y + b - 1), C.INK, (255, 250, 235))
            x += step


def marker_tiles(sc: Scene) -> tuple[dict[str, dict[str, list[str]]], dict[str, list[str]]]:
    """The marker tiles of the optional rules on the map, by key: per location and side
    (an Out of Supply marker ``oos:<side>:<loc>`` first, then Pioneers tiles
    ``pioneer:<tile>``, which ride on Christian stacks), and per sea zone (Pioneers carried
    by a fleet). None in a game without optional rules."""
    land: dict[str, dict[str, list[str]]] = {}
    sea: dict[str, list[str]] = {}
    opt = sc.optional
    if opt is None:
        return land, sea
    for side, locs in sorted(opt.out_of_supply.items()):
        for loc in locs:
            land.setdefault(loc, {}).setdefault(side, []).append(f"oos:{side}:{loc}")
    for tile, where in sorted(opt.pioneers.items()):
        if where.startswith("sea:"):
            sea.setdefault(where[4:], []).append(f"pioneer:{tile}")
        elif where != "eliminated":
            land.setdefault(where, {}).setdefault("christian", []).append(f"pioneer:{tile}")
    return land, sea


def map_layout(sc: Scene) -> L.MapLayout:
    """The layout of a scene's map (render.granada_layout): what it places and where."""
    geo = M.geometry()
    land_tiles, sea_tiles = marker_tiles(sc)
    stacks = []
    for lid in sorted(set(sc.stacks) | set(land_tiles)):
        pieces = sc.stacks.get(lid, [])
        tiles = land_tiles.get(lid, {})
        if not (pieces or tiles) or lid not in geo.loc:
            continue
        per_row = 4 if len(pieces) <= 12 else 5
        rows_c = _rows([p for p in pieces if p.colour != "black"], 10 ** 6, tiles={"christian": tiles.get("christian", [])})
        rows_m = _rows([p for p in pieces if p.colour == "black"], 10 ** 6, tiles={"muslim": tiles.get("muslim", [])})
        keys = tuple((side, key) for side in ("christian", "muslim") for key in tiles.get(side, []))
        stacks.append(L.StackSpec(lid, len(rows_c[0]) if rows_c else 0, len(rows_m[0]) if rows_m else 0, per_row,
                                  keys))
    fleets = []
    for zid, pieces in sorted(sc.seas.items()):
        own = [p for p in pieces if p.carried_by is None]
        cargo = max((sum(1 for c in pieces if c.carried_by == f.key) for f in own), default=0)
        fleets.append((zid, len(own), cargo))
    disks = tuple(sorted((d, w) for d, w in sc.disks.items() if w in geo.loc))
    at_sea = tuple((z, tuple(keys)) for z, keys in sorted(sea_tiles.items()))
    return L.layout(tuple(stacks), tuple(sorted(_battle_locs(sc))), disks, tuple(fleets), at_sea)


def _battle_locs(sc: Scene) -> dict[str, Battle]:
    out = {b.loc: b for b in sc.battles if b.kind != "naval"}
    if sc.battle is not None and sc.battle.kind != "naval":
        out[sc.battle.loc] = sc.battle
    return out


def _scaled(r: L.Rect, s: float, off: Offset) -> L.Rect:
    x0, y0 = _map_xy((r[0], r[1]), s, off)
    x1, y1 = _map_xy((r[2], r[3]), s, off)
    return (x0, y0, x1, y1)


def _draw_locations(img: Image.Image, draw: ImageDraw.ImageDraw, sc: Scene, s: float, off: Offset,
                    lay: L.MapLayout) -> None:
    comps = _components()
    geo = M.geometry()
    battle_locs = _battle_locs(sc)
    for lid, loc in comps.locations.items():
        x, y = _map_xy(geo.loc[lid], s, off)
        if x < -150 * s or y < -150 * s or x > img.width + 150 * s or y > img.height + 150 * s:
            continue
        ctrl = sc.control.get(lid)
        fill, edge = P.control_fill(ctrl)
        if lid in battle_locs:
            rr = L.marker_radius(lid, True) * s
            draw.ellipse((x - rr, y - rr, x + rr, y + rr), outline=C.ALERT, width=max(2, round(4 * s)))
        if loc.capital:
            rr = 14 * s
            draw.ellipse((x - rr, y - rr, x + rr, y + rr), fill=(255, 250, 235), outline=C.INK, width=max(1, round(2 * s)))
        if loc.resource:
            draw.polygon(C.star_points(x, y, 12 * s, 5.5 * s, 5), fill=fill, outline=edge)
        else:
            r = 8 * s
            draw.ellipse((x - r, y - r, x + r, y + r), fill=fill, outline=edge, width=max(1, round(2 * s)))
        if loc.castle:
            cside = sc.castle.get(lid, ctrl)
            cf, ce = P.control_fill(cside)
            box = (x - 33 * s, y - 10 * s, x - 15 * s, y + 10 * s)
            draw.rectangle((box[0] - s, box[1] + 4 * s, box[2] + s, box[3] + s), fill=ce)
            C.icon(draw, "castle", box, ce)
            C.icon(draw, "castle", (box[0] + 1.5 * s, box[1] + 2 * s, box[2] - 1.5 * s, box[3] - 1.5 * s), cf, ce)
        if loc.watchtower:
            box = (x - 30 * s, y - 10 * s, x - 15 * s, y + 10 * s)
            C.icon(draw, "watchtower", (box[0] - 1.5 * s, box[1] - 1.5 * s, box[2] + 1.5 * s, box[3] + 1 * s), edge)
            C.icon(draw, "watchtower", box, fill, edge)
    # disks in their badge beside their location
    for (kind, key), rect in lay.badges.items():
        if kind == "disk":
            x0, y0, _, _ = _scaled(rect, s, off)
            d = P.disk_sprite(comps.disks[key].name if hasattr(comps, "disks") else key, round(L.BADGE * s))
            _paste(img, d, x0, y0)
    # stacks: leaders first, then the plates (a leader never crosses a plate), then blocks
    size = round(L.BLOCK * s)
    pad = L.PAD * s
    width = max(1, round(2 * s))
    for stack in lay.boxes.values():
        if stack.leader is not None:
            start, end = _map_xy(stack.leader[0], s, off), _map_xy(stack.leader[1], s, off)
            draw.line((*start, *end), fill=PLATE, width=width + max(2, round(2 * s)))
            draw.line((*start, *end), fill=LEADER, width=width)
            r = 3 * s
            draw.ellipse((start[0] - r, start[1] - r, start[0] + r, start[1] + r), fill=LEADER)
    show_moves = moves_are_this_turns(sc)
    land_tiles, _ = marker_tiles(sc)
    for lid, stack in lay.boxes.items():
        x0, y0, x1, y1 = _scaled(stack.rect, s, off)
        draw.rounded_rectangle((x0, y0, x1, y1), radius=5 * s, fill=PLATE, outline=PLATE_EDGE,
                               width=max(1, round(s)))
        rows = _rows(sc.stacks.get(lid, []), stack.per_row, tiles=land_tiles.get(lid))
        _draw_rows(img, draw, rows, x0 + pad, y0 + pad, x1 - x0 - 2 * pad, size, L.GAP * s, show_moves)
    _draw_markers(img, lay, s, off)
    # battle markers: filled for a battle to fight now (or under way), hollow for a standing
    # siege or contest that no one must resolve this phase
    for (kind, lid), rect in lay.badges.items():
        if kind != "battle" or lid not in battle_locs:
            continue
        b = battle_locs[lid]
        x0, y0, x1, y1 = _scaled(rect, s, off)
        cx, cy, r = (x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / 2
        now = b.active or (sc.battle is not None and sc.battle.loc == lid)
        bg, ink = (C.ALERT, (255, 255, 255)) if now else ((255, 250, 235), C.ALERT)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=bg, outline=C.ALERT if not now else C.INK,
                     width=max(1, round(2 * s)))
        C.icon(draw, "castle" if b.kind == "siege" else "sword", (cx - 7 * s, cy - 7 * s, cx + 7 * s, cy + 7 * s),
               ink, bg)


def _draw_markers(img: Image.Image, lay: L.MapLayout, s: float, off: Offset) -> None:
    """The Out of Supply markers and Pioneers tiles where the layout put them (11.7, 11.8)."""
    size = round(L.BLOCK * s)
    for key, rect in lay.markers.items():
        x0, y0, _, _ = _scaled(rect, s, off)
        kind, _, rest = key.partition(":")
        _paste(img, P.marker_sprite(kind, rest if kind == "pioneer" else "", size), x0, y0)


def moves_are_this_turns(sc: Scene) -> bool:
    """Whether the view's "moved" and "fresh" marks speak of the turn under way.

    The view marks a block moved or arrived with no turn stamp: the engine clears the marks
    when the next turn's Movement Phase begins, so they outlive their turn through the
    Reinforcement Step, the Turn Order Step (bids) and the end of the game. Those moments are
    the only ones the view shows on its root frame (frame kind "game"); every moment of a
    turn has a phase frame on top (movement, combat, battle...)."""
    return sc.frame_kind != "game" and sc.result is None


def _draw_seas(img: Image.Image, draw: ImageDraw.ImageDraw, sc: Scene, s: float, off: Offset,
               lay: L.MapLayout) -> None:
    geo = M.geometry()
    size = round(L.BLOCK * s)
    small = round(L.CARGO * s)
    naval = {b.loc for b in sc.battles if b.kind == "naval"}
    if sc.battle is not None and sc.battle.kind == "naval":
        naval.add(sc.battle.loc)
    for zid, pieces in sc.seas.items():
        if zid not in geo.sea:
            continue
        x, y = _map_xy(geo.sea[zid], s, off)
        fleets = [p for p in pieces if p.carried_by is None]
        if not fleets:
            continue
        step = L.FLEET_STEP * s
        width = len(fleets) * step
        fx = x - width / 2
        fy = y - size - 8 * s
        for fleet in fleets:
            _paste(img, _piece_sprite(fleet, size), fx, fy)
            cargo = [p for p in pieces if p.carried_by is not None and p.carried_by == fleet.key]
            for i, c in enumerate(cargo):
                _paste(img, _piece_sprite(c, small), fx + i * (small + 2 * s), fy - small - 2 * s)
            fx += step
        if zid in naval:
            draw.rectangle((x - width / 2 - 4 * s, fy - 4 * s, x + width / 2 + 4 * s, fy + size + 4 * s),
                           outline=C.ALERT, width=max(2, round(3 * s)))


def _header(draw: ImageDraw.ImageDraw, sc: Scene, s: float) -> None:
    year = YEARS[sc.year] if 0 <= sc.year < len(YEARS) else str(sc.year)
    first = f" · {SIDE_NAME[sc.first]} move first" if sc.first else ""
    C.fit_text(draw, (330 * s, 12 * s, (M.WIDTH - 430) * s, 38 * s), f"{year}  turn {ROMAN.get(sc.turn, sc.turn)}{first}",
               round(20 * s), bold=True, fill=(255, 250, 235), valign="t")
    phase = sc.phase or ""
    if sc.active_side:
        phase = f"{SIDE_NAME[sc.active_side]}: {phase}" if phase else SIDE_NAME[sc.active_side]
    if sc.result:
        winner = sc.result.get("winner")
        phase = f"Game over: {SIDE_NAME.get(winner, 'draw')} win" + (
            f" ({sc.result.get('reason')})" if sc.result.get("reason") else "")
    if sc.movement and not sc.result:
        phase = f"{phase} — {sc.movement}"
    who = f"View: {SIDE_NAME[sc.viewer]}"
    name = sc.names.get(sc.viewer or "")
    C.fit_text(draw, ((M.WIDTH - 420) * s, 12 * s, M.WIDTH * s - 14 * s, 38 * s), [f"{who} ({name})", who] if name else who,
               round(16 * s), bold=True, fill=(255, 250, 235), align="r", valign="t", keep_wording_to=round(12 * s))
    cards = []
    for side in ("christian", "muslim"):
        if side in sc.hand_counts:
            deck = f", {sc.decks[side]} in deck" if side in sc.decks else ""
            cards.append(f"{SIDE_NAME[side]}: {sc.hand_counts[side]} cards{deck}")
    if "naval" in sc.decks:
        cards.append(f"Naval deck {sc.decks['naval']}")
    # the phase at the left of the second line, the cards at its right: each in its half
    mid = (330 + (M.WIDTH - 344 - 330) * 0.58) * s
    C.fit_text(draw, (330 * s, 40 * s, mid - 8 * s, (M.HEADER - 1) * s), phase, round(13 * s), fill=(230, 220, 200),
               valign="t", min_size=round(10 * s))
    C.fit_text(draw, (mid, 40 * s, M.WIDTH * s - 14 * s, (M.HEADER - 1) * s), [" · ".join(cards), " · ".join(
        c.replace(" cards", "").replace(" in deck", " deck") for c in cards)], round(13 * s), fill=(230, 220, 200),
               align="r", valign="t", min_size=round(10 * s))


def _draw_track(img: Image.Image, draw: ImageDraw.ImageDraw, sc: Scene, s: float) -> None:
    for yi, t, box in _track_cells(s):
        if yi == sc.year and t == sc.turn:
            draw.rounded_rectangle(box, radius=5 * s, fill=C.OI.YELLOW, outline=C.INK, width=max(1, round(2 * s)))
            C.fit_text(draw, box, ROMAN[t], round(14 * s), bold=True, align="c")
            if sc.first:
                st = C.SIDES[sc.first]
                r = 11 * s
                cx, cy = box[2] - 2 * s, box[1] + 2 * s
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=st.fill, outline=C.INK, width=max(1, round(s)))
                C.emblem(draw, st.emblem, (cx - r * 0.6, cy - r * 0.6, cx + r * 0.6, cy + r * 0.6), st.ink, st.fill)


def bull_bracket(sc: Scene, s: float = 1.0) -> tuple[float, float, float, float] | None:
    """Where the Papal Bull's window is drawn over the Turn track (11.2: from 1487-1488 on):
    the box from the first eligible year's label to the end of the track, or None."""
    opt = sc.optional
    if opt is None or opt.bull is None:
        return None
    first = str(opt.bull.get("from_year") or "")
    if first not in YEARS:
        return None
    cells = [box for yi, _t, box in _track_cells(s) if yi >= YEARS.index(first)]
    y0 = TRACK_BOX[1]
    return (cells[0][0], (y0 + 30) * s, cells[-1][2], (y0 + 42) * s)


def _draw_bull_on_track(draw: ImageDraw.ImageDraw, sc: Scene, s: float) -> None:
    """11.2 on the Turn track: a purple bracket over the years the Papal Bull may be played
    in, and its condition (6 castles or fewer) with the Christians' castles now."""
    box = bull_bracket(sc, s)
    opt = sc.optional
    if box is None or opt is None or opt.bull is None:
        return
    bull = opt.bull
    x0, y0, x1, y1 = box
    played = bull.get("card") is None
    ink = C.MUTED if played else BULL_INK
    w = max(2, round(3 * s))
    draw.line((x0, y1, x0, y0 + 3 * s, x1, y0 + 3 * s, x1, y1), fill=ink, width=w)
    C.icon(draw, "seal", (x0 - 16 * s, y0 - 6 * s, x0 - 2 * s, y1), ink)
    if played:
        note = "Papal Bull played (11.2)"
    else:
        note = (f"Papal Bull: ≤{bull.get('max_castles')} castles"
                f" (now {bull.get('christian_castles')})")
        if bull.get("playable_now"):
            note += " · playable now"
    C.fit_text(draw, (TRACK_BOX[0] * s + 110 * s, y0 - 16 * s, x1, y0 - 1 * s), note, round(11 * s), bold=True,
               family="condensed", fill=C.ALERT if bull.get("playable_now") and not played else ink, align="r",
               valign="b", min_size=round(9 * s))


def optional_boxes() -> dict[str, tuple[float, float, float, float]]:
    """The panels of the optional rules' strip (canvas coordinates at scale 1)."""
    return {"mercenaries": MERC_BOX, "papal_bull": BULL_BOX, "removed": REMOVED_BOX, "markers": MARKERS_BOX}


def mercenary_slots(sc: Scene) -> dict[str, tuple[float, float, float, float]]:
    """Where each Mercenaries block waiting in its box is drawn (key: block key)."""
    out: dict[str, tuple[float, float, float, float]] = {}
    opt = sc.optional
    if opt is None:
        return out
    x0, y0, _, _ = MERC_BOX
    for i, side in enumerate(("christian", "muslim")):
        for j, p in enumerate(opt.mercenaries.get(side, [])):
            bx, by = x0 + 130 + j * (OPT_BLOCK + 6), y0 + 44 + i * 52
            out[p.key] = (bx, by, bx + OPT_BLOCK, by + OPT_BLOCK)
    return out


def bull_slots(sc: Scene) -> dict[str, tuple[float, float, float, float]]:
    """Where the Papal Bull card and the Crusaders waiting beside the board are drawn."""
    out: dict[str, tuple[float, float, float, float]] = {}
    opt = sc.optional
    if opt is None or opt.bull is None:
        return out
    x0, y0, _, _ = BULL_BOX
    card = opt.bull.get("card")
    if card:
        w, h = round(P.CARD_W * OPT_CARD_SCALE), round(P.CARD_H * OPT_CARD_SCALE)
        out[str(card)] = (x0 + 12, y0 + 30, x0 + 12 + w, y0 + 30 + h)
    for j, p in enumerate(opt.crusaders):
        bx, by = x0 + 112 + j * (OPT_BLOCK + 6), y0 + 56
        out[p.key] = (bx, by, bx + OPT_BLOCK, by + OPT_BLOCK)
    return out


REMOVED_SCALE = 0.4


def removed_slots(sc: Scene) -> dict[str, tuple[float, float, float, float]]:
    """Where each card removed from play is drawn (as many as the panel holds)."""
    opt = sc.optional
    if opt is None:
        return {}
    x0, y0, x1, _ = REMOVED_BOX
    w, h = round(P.CARD_W * REMOVED_SCALE), round(P.CARD_H * REMOVED_SCALE)
    known = [c for c in opt.removed_cards if c in P._components().cards]
    return {cid: (x0 + 12 + j * (w + 6), y0 + 34, x0 + 12 + j * (w + 6) + w, y0 + 34 + h)
            for j, cid in enumerate(known[: int((x1 - x0 - 20) // (w + 6))])}


def _draw_optional(img: Image.Image, draw: ImageDraw.ImageDraw, sc: Scene) -> None:
    """The strip of the optional rules (scale 1): the Mercenaries boxes (11.1), the Papal
    Bull and the Crusaders beside the board (11.2), the cards removed from play (11.2,
    11.3), and a key of the map markers (11.7, 11.8) with the Pioneers tiles lost."""
    opt = sc.optional
    if opt is None:
        return
    for name, box in optional_boxes().items():
        title = {"mercenaries": "Mercenaries (11.1)", "papal_bull": "Papal Bull and Crusaders (11.2)",
                 "removed": "Cards removed from play", "markers": "Optional markers"}[name]
        C.panel(draw, box, title, title_size=15)
    # Mercenaries, face up in their recruitment boxes
    x0, y0, x1, _ = MERC_BOX
    slots = mercenary_slots(sc)
    for i, side in enumerate(("christian", "muslim")):
        yy = y0 + 44 + i * 52
        C.fit_text(draw, (x0 + 14, yy, x0 + 126, yy + OPT_BLOCK), SIDE_NAME[side], 13, bold=True)
        pieces = opt.mercenaries.get(side)
        if pieces is None:
            note = "none in this game (11.1.1)" if "mercenaries" in opt.rules else "not in play"
        elif not pieces:
            note = "none left in the box (hired or lost)"
        else:
            note = "in the box: hired at the Reinforcement Step for a trumpet card"
        for p in pieces or []:
            r = slots[p.key]
            _paste(img, _piece_sprite(p, OPT_BLOCK), r[0], r[1])
        nx = x0 + 130 + len(pieces or []) * (OPT_BLOCK + 6) + (6 if pieces else 0)
        C.paragraph(draw, (nx, yy + 2, x1 - 12, yy + 2 + 2 * 12 * 1.2), note, 12, fill=C.MUTED)
    # the Papal Bull and the Crusaders beside the board
    x0, y0, x1, y1 = BULL_BOX
    bull = opt.bull
    if bull is None:
        C.fit_text(draw, (x0 + 14, y0 + 42, x1 - 14, y0 + 62), "not in play", 12, fill=C.MUTED, valign="t")
    else:
        placed = bull_slots(sc)
        card = bull.get("card")
        if card and str(card) in placed:
            r = placed[str(card)]
            _paste(img, P.card_sprite(str(card), OPT_CARD_SCALE), r[0], r[1])
        for p in opt.crusaders:
            r = placed[p.key]
            _paste(img, _piece_sprite(p, OPT_BLOCK), r[0], r[1])
        tx = x0 + (112 if card else 14)
        if opt.crusaders:
            C.fit_text(draw, (tx, y0 + 34, x1 - 12, y0 + 54), "Crusaders waiting beside the board", 13, bold=True,
                       valign="t")
        if card:
            cond = (f"Playable at the Reinforcement Step from {bull.get('from_year')} if the Christians control "
                    f"{bull.get('max_castles')} castles or fewer. They control {bull.get('christian_castles')} now.")
            status = "Playable now." if bull.get("playable_now") else "Not playable now."
        else:
            cond = "The Papal Bull has been played and removed from play; the Crusaders came."
            status = ""
        C.paragraph(draw, (tx, y0 + 96, x1 - 12, min(y1 - 2, y0 + 96 + 3 * 12 * 1.2)), cond, 12)
        if status:
            sx, sy = (tx + 80, y0 + 62) if opt.crusaders else (tx, y0 + 40)
            C.fit_text(draw, (sx, sy - 2, x1 - 12, sy + 18), status, 13, bold=True,
                       fill=C.ALERT if bull.get("playable_now") else C.MUTED, valign="t")
    # cards removed from play
    x0, y0, x1, y1 = REMOVED_BOX
    for cid, r in removed_slots(sc).items():
        _paste(img, P.card_sprite(cid, REMOVED_SCALE), r[0], r[1])
    if not opt.removed_cards:
        C.fit_text(draw, (x0 + 14, y0 + 42, x1 - 14, y0 + 62), "none yet", 12, fill=C.MUTED, valign="t")
    # key of the markers, the Pioneers tiles lost
    x0, y0, x1, y1 = MARKERS_BOX
    yy = y0 + 34
    rows = []
    if "out_of_supply" in opt.rules:
        n = sum(len(v) for v in opt.out_of_supply.values())
        rows.append(("oos", "", f"Out of Supply (11.8): {n} stack{'s' if n != 1 else ''} cut off"))
    if "pioneers" in opt.rules:
        lost = sorted(t for t, w in opt.pioneers.items() if w == "eliminated")
        rows.append(("pioneer", "P", "Pioneers (11.7) ride on Christian stacks"
                     + (f"; lost: {', '.join(lost)}" if lost else "")))
    for kind, label, caption in rows:
        _paste(img, P.marker_sprite(kind, label, 26), x0 + 14, yy)
        C.paragraph(draw, (x0 + 48, yy + 1, x1 - 12, yy + 1 + 2 * 12 * 1.2), caption, 12)
        yy += 36
    others = [r for r in opt.rules if r not in ("out_of_supply", "pioneers", "mercenaries", "papal_bull")]
    if others:
        C.paragraph(draw, (x0 + 14, yy + 2, x1 - 14, y1 - 4), "Also in play: " + ", ".join(r.replace("_", " ")
                                                                                          for r in others)
                    + " (cards)", 11, fill=C.MUTED)


def _draw_vp(draw: ImageDraw.ImageDraw, sc: Scene, s: float) -> None:
    x0, y0, x1, y1 = VP_BOX
    if not sc.vp:
        C.fit_text(draw, ((x0 + 12) * s, (y0 + 48) * s, (x1 - 12) * s, (y0 + 68) * s), "not given in this view",
                   round(12 * s), fill=C.MUTED, valign="t")
        return
    top = max(40.0, max(sc.vp.values()) + 2)
    bar_x0, bar_x1 = (x0 + 130) * s, (x1 - 60) * s
    for i, side in enumerate(("christian", "muslim")):
        val = sc.vp.get(side, 0.0)
        yy = (y0 + 40 + i * 40) * s
        st = C.SIDES[side]
        C.fit_text(draw, ((x0 + 12) * s, yy, bar_x0 - 4 * s, yy + 24 * s), SIDE_NAME[side], round(14 * s), bold=True)
        draw.rounded_rectangle((bar_x0, yy, bar_x1, yy + 24 * s), radius=4 * s, fill=C.PAPER, outline=C.PANEL_EDGE)
        wbar = (bar_x1 - bar_x0) * min(1.0, val / top)
        if wbar > 2:
            draw.rounded_rectangle((bar_x0, yy, bar_x0 + wbar, yy + 24 * s), radius=4 * s, fill=st.fill, outline=C.INK)
        C.emblem(draw, st.emblem, (bar_x0 + 4 * s, yy + 4 * s, bar_x0 + 20 * s, yy + 20 * s), st.ink, st.fill)
        shown = f"{val:g}"
        C.fit_text(draw, (bar_x1 + 8 * s, yy, (x1 - 8) * s, yy + 24 * s), shown, round(16 * s), bold=True)
    c, m = sc.vp.get("christian", 0.0), sc.vp.get("muslim", 0.0)
    lead = "Muslims lead (they win ties)" if m >= c else "Christians lead"
    C.fit_text(draw, ((x0 + 12) * s, (y0 + 114) * s, (x1 - 12) * s, (y1 - 2) * s),
               [f"{lead}. Castles 2/3, watchtowers ½/1, resources 1/1½ (2.2).", f"{lead}."], round(11 * s),
               fill=C.MUTED, valign="t", min_size=round(9 * s))


def _draw_boxes(img: Image.Image, draw: ImageDraw.ImageDraw, sc: Scene, s: float) -> None:
    size = round(26 * s)
    gap = 3 * s
    x0, y0, x1, y1 = RECRUIT_BOX
    for i, side in enumerate(("christian", "muslim")):
        by = (y0 + 36 + i * 124) * s
        pieces = sc.recruit.get(side, [])
        C.fit_text(draw, ((x0 + 12) * s, by - 2 * s, (x1 - 90) * s, by + 18 * s), f"{BOX_NAME[side]} ({len(pieces)})",
                   round(13 * s), bold=True, valign="t")
        xx, yy = (x0 + 12) * s, by + 20 * s
        per_row = int(((x1 - x0 - 24) * s + gap) // (size + gap))
        for j, p in enumerate(pieces[: per_row * 3]):
            _paste(img, _piece_sprite(p, size), xx + (j % per_row) * (size + gap), yy + (j // per_row) * (size + gap))
        if not pieces:
            C.fit_text(draw, (xx, yy + 2 * s, (x1 - 12) * s, yy + 20 * s), "empty", round(11 * s), fill=C.MUTED,
                       valign="t")
        if side in sc.bag:
            C.fit_text(draw, ((x1 - 88) * s, by - 2 * s, (x1 - 12) * s, by + 16 * s), f"bag: {sc.bag[side]}",
                       round(11 * s), fill=C.MUTED, align="r", valign="t")
    sx0, sy0, sx1, sy1 = SPECIAL_BOX
    for label_y, pieces in ((sy0 + 56, sc.palace), (sy0 + 170, sc.boabdil_box)):
        xx, yy = (sx0 + 12) * s, label_y * s
        per_row = int(((sx1 - sx0 - 24) * s + gap) // (size + gap))
        for j, p in enumerate(pieces):
            _paste(img, _piece_sprite(p, size), xx + (j % per_row) * (size + gap), yy + (j // per_row) * (size + gap))
        if not pieces:
            C.fit_text(draw, (xx, yy + 2 * s, (sx1 - 12) * s, yy + 20 * s), "empty", round(11 * s), fill=C.MUTED,
                       valign="t")
    if sc.boabdil:
        C.paragraph(draw, ((sx0 + 12) * s, (sy0 + 236) * s, (sx1 - 12) * s, (sy1 - 2) * s), sc.boabdil + " (10.12)",
                    round(11 * s), fill=C.ALERT, min_size=round(9 * s))
    ex0, ey0, ex1, ey1 = ELIM_BOX
    small = round(24 * s)
    per_row = int(((ex1 - ex0 - 24) * s + gap) // (small + gap))
    xx, yy = (ex0 + 12) * s, (ey0 + 36) * s
    elim = sorted(sc.eliminated, key=lambda p: (p.colour != "white", p.colour != "black", p.key))
    limit = per_row * 8
    for j, p in enumerate(elim[:limit]):
        _paste(img, _piece_sprite(p, small), xx + (j % per_row) * (small + gap), yy + (j // per_row) * (small + gap))
    if len(elim) > limit:
        C.fit_text(draw, ((ex1 - 120) * s, (ey1 - 18) * s, (ex1 - 12) * s, (ey1 - 2) * s), f"+{len(elim) - limit} more",
                   round(11 * s), align="r", valign="t")
    if not elim:
        C.fit_text(draw, (xx, yy + 2 * s, (ex1 - 12) * s, yy + 20 * s), "none yet", round(11 * s), fill=C.MUTED,
                   valign="t")
    dis = [d for d, where in sc.disks.items() if where == "eliminated"]
    if dis:
        C.fit_text(draw, ((ex0 + 12) * s, (ey1 - 18) * s, (ex1 - 124) * s, (ey1 - 2) * s),
                   "Disks lost: " + ", ".join(d.replace("_", " ").title() for d in dis), round(11 * s), valign="t",
                   min_size=round(9 * s))


def draw_board(sc: Scene, s: float = 1.0, crop: tuple[int, int, int, int] | None = None) -> Image.Image:
    """The board image of a scene (``crop``: a box of the scale-``s`` canvas to draw only)."""
    base = static_board(s)
    strip = crop is None and sc.optional is not None and s == 1.0
    if strip:
        # the optional rules' strip goes under the panel (drawn at scale 1 only: the
        # close-ups, the only other scale, crop the map)
        img = Image.new("RGB", (base.width, base.height + round(OPT_H * s)), C.PARCHMENT)
        img.paste(base, (0, 0))
        off: Offset = (0.0, 0.0)
    elif crop is None:
        img = base.copy()
        off = (0.0, 0.0)
    else:
        img = base.crop(crop)
        off = (float(crop[0]), float(crop[1]))
    draw = ImageDraw.Draw(img)
    lay = map_layout(sc)
    _draw_locations(img, draw, sc, s, off, lay)
    _draw_seas(img, draw, sc, s, off, lay)
    if crop is None:
        _header(draw, sc, s)
        _draw_track(img, draw, sc, s)
        _draw_bull_on_track(draw, sc, s)
        _draw_vp(draw, sc, s)
        _draw_boxes(img, draw, sc, s)
        if strip:
            _draw_optional(img, draw, sc)
    return img


