"""The map of *Granada: Last Stand of the Moors*: geometry and the static base layer.

The printed map is only a picture, so the board is drawn from the components' data: each
location at its real latitude/longitude (an equirectangular projection around 37°N), then
nudged apart until no two markers crowd each other (the towns around Granada are a few
kilometres apart, closer than a readable marker), with ports and coastal towns pinned to
the coast. The coastline is a reconstructed outline (``render/data/coast.json``), the
Kingdom of Granada's reddish area is the union of its locations' Voronoi cells (a border
halfway between a Muslim and a Christian town), cut to a radius and to the land.

Everything here depends only on the components, never on a view: it is computed once per
scale and cached (:func:`geometry`, :func:`base_layer`).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from render import common as C

Point = tuple[float, float]

# Canvas at scale 1: a header strip, the map, then the tracks and boxes panel.
WIDTH = 1800
HEADER = 64
PANEL = 300
LON_MIN, LON_MAX = -6.85, -0.25
LAT_MIN, LAT_MAX = 35.42, 38.30
LAT0 = 37.0
MIN_GAP = 86.0          # px between two location markers after relaxation
COAST_PIN = 26.0        # px: a location this close to the coast keeps its true position
KINGDOM_RADIUS = 78.0   # px: how far the reddish area reaches around a kingdom location

SEA: C.RGB = (190, 219, 236)
SEA_EDGE: C.RGB = (120, 170, 205)
SEA_TEXT: C.RGB = (24, 78, 128)
LAND: C.RGB = (236, 228, 204)
KINGDOM: C.RGB = C.mix(LAND, C.OI.VERMILLION, 0.24)
KINGDOM_EDGE: C.RGB = C.mix(LAND, C.OI.VERMILLION, 0.62)
COAST: C.RGB = (96, 120, 140)
RIVER: C.RGB = (120, 170, 210)
ROAD_SECONDARY: C.RGB = (30, 28, 26)
ROAD_MAIN: C.RGB = (200, 40, 30)


def _components() -> Any:
    from engine.granada import components

    return components.load()


@functools.cache
def coast() -> dict[str, Any]:
    with open(C.DATA_DIR / "coast.json", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def project(lon: float, lat: float) -> Point:
    """Longitude/latitude to scale-1 map pixels (origin at the map's top-left)."""
    kx = WIDTH / (LON_MAX - LON_MIN)
    ky = kx / math.cos(math.radians(LAT0))
    return ((lon - LON_MIN) * kx, (LAT_MAX - lat) * ky)


MAP_HEIGHT = round(project(LON_MIN, LAT_MIN)[1])
HEIGHT = HEADER + MAP_HEIGHT + PANEL


# ---------------------------------------------------------------------------------------
# Geometry


@dataclass(frozen=True)
class Geometry:
    """Positions at scale 1 in map pixels (add ``HEADER`` for canvas y)."""

    loc: dict[str, Point]
    true_loc: dict[str, Point]
    sea: dict[str, Point]
    label: dict[str, tuple[Point, str]]     # label anchor point and Pillow anchor
    kingdom_cells: dict[str, list[Point]]


def _dist_to_segment(p: Point, a: Point, b: Point) -> float:
    ax, ay = a
    bx, by = b
    px, py = p
    dx, dy = bx - ax, by - ay
    t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _coast_lines() -> list[list[Point]]:
    return [[project(lon, lat) for lon, lat in poly] for poly in coast()["land"].values()]


def _relax(points: dict[str, Point], pinned: set[str]) -> dict[str, Point]:
    """Push markers apart to ``MIN_GAP`` while springs pull them back to their true place."""
    pos = {k: [x, y] for k, (x, y) in points.items()}
    keys = sorted(pos)
    for _ in range(400):
        moved = False
        for i, a in enumerate(keys):
            for b in keys[i + 1:]:
                pa, pb = pos[a], pos[b]
                dx, dy = pb[0] - pa[0], pb[1] - pa[1]
                d = math.hypot(dx, dy)
                if d >= MIN_GAP:
                    continue
                moved = True
                if d < 1e-6:
                    dx, dy, d = 1.0, 0.0, 1.0
                push = (MIN_GAP - d) / d
                wa = 0.0 if a in pinned else (1.0 if b in pinned else 0.5)
                wb = 0.0 if b in pinned else (1.0 if a in pinned else 0.5)
                pa[0] -= dx * push * wa
                pa[1] -= dy * push * wa
                pb[0] += dx * push * wb
                pb[1] += dy * push * wb
        for k in keys:
            if k not in pinned:
                tx, ty = points[k]
                pos[k][0] += (tx - pos[k][0]) * 0.02
                pos[k][1] += (ty - pos[k][1]) * 0.02
        if not moved:
            break
    return {k: (v[0], v[1]) for k, v in pos.items()}


def _clip(poly: list[Point], n: Point, c: float) -> list[Point]:
    """Sutherland-Hodgman: the part of ``poly`` where n·p <= c."""
    out: list[Point] = []
    if not poly:
        return out
    prev = poly[-1]
    prev_in = n[0] * prev[0] + n[1] * prev[1] <= c
    for cur in poly:
        cur_in = n[0] * cur[0] + n[1] * cur[1] <= c
        if cur_in != prev_in:
            d0 = n[0] * prev[0] + n[1] * prev[1] - c
            d1 = n[0] * cur[0] + n[1] * cur[1] - c
            t = d0 / (d0 - d1)
            out.append((prev[0] + (cur[0] - prev[0]) * t, prev[1] + (cur[1] - prev[1]) * t))
        if cur_in:
            out.append(cur)
        prev, prev_in = cur, cur_in
    return out


def voronoi_cells(sites: dict[str, Point], bounds: tuple[float, float, float, float]) -> dict[str, list[Point]]:
    """Each site's Voronoi cell inside ``bounds``, by clipping with every bisector."""
    x0, y0, x1, y1 = bounds
    cells: dict[str, list[Point]] = {}
    for k, p in sites.items():
        poly: list[Point] = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
        for j, q in sites.items():
            if j == k:
                continue
            n = (q[0] - p[0], q[1] - p[1])
            c = (q[0] ** 2 + q[1] ** 2 - p[0] ** 2 - p[1] ** 2) / 2
            poly = _clip(poly, n, c)
        cells[k] = poly
    return cells


def _label_box(anchor_pt: Point, anchor: str, w: float, h: float) -> tuple[float, float, float, float]:
    x, y = anchor_pt
    if anchor[0] == "m":
        x -= w / 2
    elif anchor[0] == "r":
        x -= w
    if anchor[1] == "m":
        y -= h / 2
    elif anchor[1] in "bd":
        y -= h
    return (x, y, x + w, y + h)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def sea_label_font(s: float = 1.0) -> Any:
    return C.font(round(15 * s), True, "condensed")


def label_text(loc: Any) -> str:
    return loc.name.upper() if loc.capital else loc.name


def label_font(loc: Any, s: float = 1.0) -> Any:
    return C.font(round((16 if loc.capital else 13) * s), True, "condensed")


def label_size(loc: Any, s: float = 1.0) -> tuple[float, float]:
    f = label_font(loc, s)
    return f.getlength(label_text(loc)) + (3 + 14 * len(loc.recruit)) * s, f.size * 1.2


def label_box(lid: str, s: float = 1.0) -> tuple[float, float, float, float]:
    """Where a location's name (and recruitment shields) sit, at scale ``s``."""
    L = _components().locations[lid]
    (lx, ly), anchor = geometry().label[lid]
    w, h = label_size(L, s)
    return _label_box((lx * s, ly * s), anchor, w, h)


@functools.cache
def geometry() -> Geometry:
    comps = _components()
    true = {lid: project(L.lon, L.lat) for lid, L in comps.locations.items()}
    lines = _coast_lines()
    pinned = set()
    for lid, p in true.items():
        if comps.locations[lid].port:
            pinned.add(lid)
            continue
        near = min(_dist_to_segment(p, ln[i], ln[i + 1]) for ln in lines for i in range(len(ln) - 1))
        if near < COAST_PIN:
            pinned.add(lid)
    pos = _relax(true, pinned)
    # keep everything on the canvas
    pos = {k: (min(max(x, 40.0), WIDTH - 40.0), min(max(y, 40.0), MAP_HEIGHT - 40.0)) for k, (x, y) in pos.items()}
    sea = {zid: project(Z.lon, Z.lat) for zid, Z in comps.sea_zones.items()}

    # Labels: the first candidate position that overlaps no marker and no placed label.
    marker_boxes = [(x - 16, y - 14, x + 16, y + 14) for x, y in pos.values()]
    placed: list[tuple[float, float, float, float]] = []
    labels: dict[str, tuple[Point, str]] = {}
    for lid in sorted(pos, key=lambda k: (not comps.locations[k].capital, pos[k][1], k)):
        L = comps.locations[lid]
        w, h = label_size(L)
        x, y = pos[lid]
        candidates = [((x, y + 14), "mt"), ((x + 16, y), "lm"), ((x - 16, y), "rm"), ((x, y - 16), "mb"),
                      ((x + 12, y + 12), "lt"), ((x - 12, y + 12), "rt")]
        best = None
        for pt, anchor in candidates:
            box = _label_box(pt, anchor, w, h)
            own = (x - 16, y - 14, x + 16, y + 14)
            cost = sum(_overlap(box, m) for m in marker_boxes if m != own) + sum(_overlap(box, p) for p in placed)
            if box[0] < 0 or box[2] > WIDTH or box[3] > MAP_HEIGHT:
                cost += 1e6
            if best is None or cost < best[0]:
                best = (cost, pt, anchor, box)
            if cost == 0:
                break
        assert best is not None
        labels[lid] = (best[1], best[2])
        placed.append(best[3])

    kingdom_sites = {k: v for k, v in pos.items()}
    cells = voronoi_cells(kingdom_sites, (0, 0, WIDTH, MAP_HEIGHT))
    kingdom_cells = {k: cells[k] for k in pos if comps.locations[k].kingdom}
    return Geometry(pos, true, sea, labels, kingdom_cells)


@functools.cache
def sea_borders() -> list[tuple[Point, Point]]:
    """Borders between sea zones (Voronoi of their centres), each segment once: a shared edge
    drawn from both sides would interleave its dashes into a solid line."""
    cells = voronoi_cells(geometry().sea, (0, 0, WIDTH, MAP_HEIGHT))
    seen: dict[tuple[tuple[int, int], tuple[int, int]], tuple[Point, Point]] = {}
    for poly in cells.values():
        for i in range(len(poly)):
            a, b = poly[i], poly[(i + 1) % len(poly)]
            if (a[0] == b[0] and a[0] in (0, WIDTH)) or (a[1] == b[1] and a[1] in (0, MAP_HEIGHT)):
                continue  # the frame of the map, not a border
            ka, kb = (round(a[0]), round(a[1])), (round(b[0]), round(b[1]))
            key = (ka, kb) if ka <= kb else (kb, ka)
            seen.setdefault(key, (a, b) if ka <= kb else (b, a))
    return [seen[k] for k in sorted(seen)]


# ---------------------------------------------------------------------------------------
# Base layer


def _scaled(points: list[Point], s: float, dy: float = 0.0) -> list[Point]:
    return [(x * s, y * s + dy) for x, y in points]


def dashed_line(draw: ImageDraw.ImageDraw, a: Point, b: Point, colours: tuple[C.Colour | None, ...], width: int,
                dash: float) -> None:
    """A line in alternating colours (the hybrid red-black road, sea-zone borders)."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    if length == 0:
        return
    n = max(1, int(length // dash))
    for i in range(n):
        t0, t1 = i / n, (i + 1) / n
        colour = colours[i % len(colours)]
        if colour is None:
            continue
        draw.line((a[0] + (b[0] - a[0]) * t0, a[1] + (b[1] - a[1]) * t0,
                   a[0] + (b[0] - a[0]) * t1, a[1] + (b[1] - a[1]) * t1), fill=colour, width=width)


def road_style(kind: str, s: float) -> tuple[tuple[C.RGB, ...], int]:
    if kind == "main":
        return (ROAD_MAIN,), max(2, round(4 * s))
    if kind == "hybrid":
        return (ROAD_MAIN, ROAD_SECONDARY), max(2, round(4 * s))
    return (ROAD_SECONDARY,), max(1, round(2 * s))


def draw_road(draw: ImageDraw.ImageDraw, a: Point, b: Point, kind: str, s: float) -> None:
    colours, width = road_style(kind, s)
    if kind == "main":
        draw.line((a, b), fill=(255, 246, 230), width=width + max(2, round(2 * s)))
        draw.line((a, b), fill=colours[0], width=width)
    elif kind == "hybrid":
        draw.line((a, b), fill=(255, 246, 230), width=width + max(2, round(2 * s)))
        dashed_line(draw, a, b, colours, width, 12 * s)
    else:
        draw.line((a, b), fill=colours[0], width=width)


def map_layer(s: float = 1.0) -> Image.Image:
    """The map without pieces or control markers at scale ``s`` (map pixels, no header).

    Not cached itself: it is drawn once into the cached board layer
    (``render.granada.static_board``), and keeping both would double the memory."""
    comps = _components()
    geo = geometry()
    w, h = round(WIDTH * s), round(MAP_HEIGHT * s)
    img = Image.new("RGB", (w, h), SEA)
    draw = ImageDraw.Draw(img)

    # sea-zone borders: Voronoi of the zones' centres, drawn on the sea only (land covers them)
    for a, b in sea_borders():
        dashed_line(draw, (a[0] * s, a[1] * s), (b[0] * s, b[1] * s), (SEA_EDGE, None), max(1, round(2 * s)), 9 * s)

    land = Image.new("L", (w, h), 0)
    ldraw = ImageDraw.Draw(land)
    for poly in coast()["land"].values():
        ldraw.polygon(_scaled([project(lon, lat) for lon, lat in poly], s), fill=255)

    kingdom = Image.new("L", (w, h), 0)
    kdraw = ImageDraw.Draw(kingdom)
    for cell in geo.kingdom_cells.values():
        kdraw.polygon(_scaled(cell, s), fill=255)
    reach = Image.new("L", (w, h), 0)
    rdraw = ImageDraw.Draw(reach)
    r = KINGDOM_RADIUS * s
    for lid in geo.kingdom_cells:
        x, y = geo.loc[lid]
        rdraw.ellipse((x * s - r, y * s - r, x * s + r, y * s + r), fill=255)
    # morphological closing by blur-and-threshold: fills the pockets between kingdom towns
    # (the Sierra Nevada) that no radius reaches, and rounds the outline
    grow = KINGDOM_RADIUS * 0.45 * s
    reach = reach.filter(ImageFilter.GaussianBlur(grow)).point(lambda v: 255 if v > 8 else 0)
    reach = reach.filter(ImageFilter.GaussianBlur(grow)).point(lambda v: 255 if v > 247 else 0)
    kingdom = ImageChops.multiply(ImageChops.multiply(kingdom, reach), land)

    img.paste(LAND, (0, 0, w, h), land)
    img.paste(KINGDOM, (0, 0, w, h), kingdom)
    edge = kingdom.filter(ImageFilter.FIND_EDGES).point(lambda v: 255 if v > 60 else 0)
    if s > 1.2:
        edge = edge.filter(ImageFilter.MaxFilter(3))
    img.paste(KINGDOM_EDGE, (0, 0, w, h), edge)

    for poly in coast()["land"].values():
        pts = _scaled([project(lon, lat) for lon, lat in poly], s)
        draw.line(pts + [pts[0]], fill=COAST, width=max(1, round(2 * s)), joint="curve")
    for river in coast().get("rivers", {}).values():
        pts = _scaled([project(lon, lat) for lon, lat in river], s)
        draw.line(pts, fill=RIVER, width=max(1, round(2 * s)), joint="curve")

    # sea-zone names
    f = sea_label_font(s)
    for zid, Z in comps.sea_zones.items():
        x, y = geo.sea[zid]
        half = min(110 * s, x * s, WIDTH * s - x * s)   # centred under the anchorage, inside the map
        C.fit_text(draw, (x * s - half, y * s + 20 * s, x * s + half, y * s + 44 * s), Z.name, f.size, bold=True,
                   family="condensed", fill=SEA_TEXT, outline=SEA, align="c", valign="t", min_size=round(10 * s))

    # roads (under the markers)
    for road in comps.roads:
        a, b = geo.loc[road.a], geo.loc[road.b]
        draw_road(draw, (a[0] * s, a[1] * s), (b[0] * s, b[1] * s), road.kind, s)
    # port links: a thin dotted line from a port to its sea zone's anchorage
    for lid, L in comps.locations.items():
        if L.port:
            a = (geo.loc[lid][0] * s, geo.loc[lid][1] * s)
            b = (geo.sea[L.port][0] * s, geo.sea[L.port][1] * s)
            dashed_line(draw, a, b, (SEA_TEXT, None), max(1, round(1.5 * s)), 6 * s)

    # names, recruitment shields, anchors
    for lid, L in comps.locations.items():
        fnt = label_font(L, s)
        name = label_text(L)
        box = label_box(lid, s)
        # the layout's box for the name (the shields' room taken off), grown by the halo's width
        halo = max(2, round(3 * s))
        shields_at = box[2] - 14 * s * len(L.recruit)
        C.fit_text(draw, (box[0] - halo, box[1] - halo, shields_at - 3 * s + halo + 2, box[3] + halo), name, fnt.size,
                   bold=True, family="condensed", fill=C.INK, outline=(255, 252, 242), stroke=halo,
                   min_size=round(10 * s))
        # the recruitment shields follow the name on the same line
        sx = shields_at
        sy = box[1] + fnt.size * 0.6 - 7 * s
        for fac in L.recruit:
            C.shield(draw, (sx, sy, sx + 12 * s, sy + 14 * s), fac, edge=C.INK)
            sx += 14 * s
        x, y = geo.loc[lid]
        if L.port:
            C.icon(draw, "anchor", (x * s + 11 * s, y * s - 22 * s, x * s + 23 * s, y * s - 9 * s), SEA_TEXT)
        if L.b_town:
            C.fit_text(draw, (x * s - 22 * s, y * s + 1 * s, x * s - 6 * s, y * s + 17 * s), "B", round(10 * s), bold=True,
                       fill=C.OI.PURPLE, outline=(255, 255, 255), align="c", min_size=round(8 * s))
    # port anchorage marks in the sea
    for zid in comps.sea_zones:
        x, y = geo.sea[zid]
        r = 5 * s
        draw.ellipse((x * s - r, y * s - r, x * s + r, y * s + r), outline=SEA_TEXT, width=max(1, round(s)))
    return img
