"""Where the dynamic things of the Granada map go: stack boxes, battle and disk badges, fleets.

The printed map puts a location's blocks on its circle; ours cannot (forty-odd towns a
few kilometres apart, 30 px blocks), so each stack sits in a box beside its location. A
reader must still tell whose box it is, so a box is placed by its own location, as close
as it fits, and never over a place name, a location marker (the road junction with its
castle or tower icon), a badge, a fleet or another box; where it has to stand off, a
leader line joins it to its marker. Badges (the battle marker, El Zegrí's and Sidi Yahya's
disks) sit right beside their marker, off the names too.

Everything is in scale-1 map pixels (the drawing scales it). :func:`layout` returns the
rectangles it used and placed (names, markers, badges, fleets, boxes) so that tests can
check the picture's promises from the numbers rather than by eye. The layout depends only
on how many items each stack and fleet has and where battles and disks are, so it is
cached by those counts.

The markers of the optional rules ride on their stacks as on the table (11.7 "on top of the
stacks", 11.8 "on each stack"): an Out of Supply marker or a Pioneers tile is one more item
of its side's rows in the stack's box, first in the row, and a Pioneers tile carried at sea
stands beside its fleets; :attr:`MapLayout.markers` gives where each is, inside the
rectangles every placement rule already keeps clear.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from render import granada_map as M
from render import granada_pieces as P

Rect = tuple[float, float, float, float]
Point = tuple[float, float]

BLOCK = 30          # block size on the map at scale 1
GAP = 2             # between blocks of a stack
PAD = 3             # plate margin around a stack's blocks
MARGIN = 2          # free space kept between a box and anything it must not cover
BADGE = 22          # battle marker and disk diameter
FLEET_STEP = BLOCK + 3
CARGO = 22          # carried blocks drawn above their fleet
LEGEND_H = 262
LEGEND: Rect = (0, M.MAP_HEIGHT - LEGEND_H - 12, 264, M.MAP_HEIGHT)
MAX_STANDOFF = 420  # px: how far from its marker a box may be pushed at most
LEADER_FROM = 6     # px: a box standing off more than this gets a leader line


@dataclass(frozen=True)
class StackSpec:
    """What the layout needs to know of a stack: grid items per side (a group of concealed
    blocks drawn as one counted block is one item) and the preferred row length."""

    loc: str
    christian: int
    muslim: int
    per_row: int
    tiles: tuple[tuple[str, str], ...] = ()   # (side, marker key): first items of that side's rows


@dataclass(frozen=True)
class Box:
    rect: Rect                       # the plate, blocks inside at PAD
    per_row: int                     # items per row the blocks are laid in
    leader: tuple[Point, Point] | None  # from the marker's edge to the box, when it stands off


@dataclass(frozen=True)
class MapLayout:
    labels: dict[str, Rect]          # location names (with recruitment shields), sea-zone names
    dots: dict[str, Rect]            # location markers: the dot or star (a road junction)
    icons: dict[str, tuple[Rect, ...]]  # beside a marker: castle/tower icon, anchor, B of a Boabdil town
    badges: dict[tuple[str, str], Rect]  # ("battle", loc) / ("disk", disk id)
    fleets: dict[str, Rect]          # sea zone -> its fleets (and their cargo, and Pioneers tiles)
    boxes: dict[str, Box]            # location -> its stack box
    markers: dict[str, Rect] = field(default_factory=dict)  # marker key -> its tile (in a box or by a fleet)


# ---------------------------------------------------------------------------------------
# Geometry helpers


def overlaps(a: Rect, b: Rect, margin: float = 0.0) -> bool:
    return a[0] < b[2] + margin and b[0] < a[2] + margin and a[1] < b[3] + margin and b[1] < a[3] + margin


def _segment_hits(a: Point, b: Point, r: Rect) -> bool:
    """Whether the segment a-b passes through rectangle ``r`` (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - r[0]), (dx, r[2] - a[0]), (-dy, a[1] - r[1]), (dy, r[3] - a[1])):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def marker_radius(lid: str, battle: bool = False) -> float:
    L = P._components().locations[lid]
    r = 14.0 if L.capital else 12.0 if L.resource else 8.0
    return 21.0 if battle else r


@functools.cache
def marks(lid: str, battle: bool) -> tuple[Rect, ...]:
    """The marker of a location as drawn (render.granada_board._draw_locations), part by
    part: its dot or star (ringed in red at a battle) first, then the castle or tower icon
    to its left, the anchor of a port above right, the purple B of a Boabdil town."""
    L = P._components().locations[lid]
    x, y = M.geometry().loc[lid]
    r = marker_radius(lid, battle)
    parts = [(x - r, y - r, x + r, y + r)]
    if L.castle or L.watchtower:
        parts.append((x - 35, y - 11, x - 13, y + 11))
    if L.port:
        parts.append((x + 11, y - 22, x + 23, y - 9))
    if L.b_town:
        parts.append((x - 20, y + 3, x - 8, y + 15))
    return tuple(parts)


@functools.cache
def _static_labels() -> dict[str, Rect]:
    """Location names (render.granada_map.label_box) and sea-zone names as the map draws them."""
    comps = P._components()
    geo = M.geometry()
    out = {lid: M.label_box(lid) for lid in comps.locations}
    f = M.sea_label_font(1.0)
    for zid, Z in comps.sea_zones.items():
        x, y = geo.sea[zid]
        out[f"sea:{zid}"] = f.getbbox(Z.name, anchor="mt")
        bx = out[f"sea:{zid}"]
        out[f"sea:{zid}"] = (x + bx[0] - 2, y + 24 + bx[1] - 2, x + bx[2] + 2, y + 24 + bx[3] + 2)
    return out


def grid_size(spec: StackSpec, per_row: int) -> tuple[float, float]:
    """Width and height of a stack's blocks laid ``per_row`` items a row, Christians' rows
    first, then Muslims' (render.granada_board._rows)."""
    cols = min(per_row, max(spec.christian, spec.muslim))
    rows = -(-spec.christian // per_row) + -(-spec.muslim // per_row)
    step = BLOCK + GAP
    return (cols * step - GAP, rows * step - GAP)


def item_rect(spec: StackSpec, per_row: int, box: Rect, side: str, index: int) -> Rect:
    """Where the ``index``-th item of ``side``'s rows sits in a stack box laid ``per_row``
    items a row (render.granada_board._draw_rows: each row centred, Christians' rows first)."""
    count = spec.christian if side == "christian" else spec.muslim
    first_row = 0 if side == "christian" else -(-spec.christian // per_row)
    row, col = divmod(index, per_row)
    in_row = min(per_row, count - row * per_row)
    step = BLOCK + GAP
    width = box[2] - box[0] - 2 * PAD
    x = box[0] + PAD + (width - (in_row * step - GAP)) / 2 + col * step
    y = box[1] + PAD + (first_row + row) * step
    return (x, y, x + BLOCK, y + BLOCK)


def fleet_tile_rect(zone: str, fleets: int, index: int) -> Rect:
    """A Pioneers tile carried at sea: right of its zone's row of fleets."""
    x, y = M.geometry().sea[zone]
    left = x + fleets * FLEET_STEP / 2 + 3 + index * FLEET_STEP
    top = y - BLOCK - 8
    return (left, top, left + BLOCK, top + BLOCK)


def fleet_rect(zone: str, fleets: int, cargo: int, tiles: int = 0) -> Rect:
    """Where render.granada_board._draw_seas draws ``fleets`` fleets carrying at most
    ``cargo`` blocks each, with the red frame of a naval battle, and ``tiles`` Pioneers
    tiles beside them."""
    x, y = M.geometry().sea[zone]
    width = fleets * FLEET_STEP
    top = y - BLOCK - 8
    right = x + width / 2
    if tiles:
        right = fleet_tile_rect(zone, fleets, tiles - 1)[2]
    if cargo:
        top -= CARGO + 2
        right = max(right, x - width / 2 + (fleets - 1) * FLEET_STEP + cargo * (CARGO + 2))
    return (x - width / 2 - 4, top - 4, right + 4, y - 8 + 4)


# ---------------------------------------------------------------------------------------
# Placement


def _directions(*degrees: float) -> tuple[Point, ...]:
    return tuple((math.cos(math.radians(a)), math.sin(math.radians(a))) for a in degrees)


#: where a box goes, in order of preference: above or below its marker, then beside it
_DIRECTIONS = _directions(-90, 90, 0, 180, -45, -135, 45, 135, -67.5, -112.5, 67.5, 112.5, -22.5, -157.5, 22.5, 157.5)
#: where a badge goes: on the shoulder of its marker first
_BADGE_DIRECTIONS = _directions(-40, 40, -140, 140, -90, 90, 0, 180)


def _beside(own: Rect, centre: Point, u: Point, w: float, h: float, gap: float) -> Rect:
    """The ``w``×``h`` rectangle in direction ``u`` from ``centre`` that clears ``own`` by
    ``gap`` (moving along ``u`` only)."""
    cx, cy = centre
    ts = []
    if u[0] > 1e-9:
        ts.append((own[2] + gap + w / 2 - cx) / u[0])
    elif u[0] < -1e-9:
        ts.append((own[0] - gap - w / 2 - cx) / u[0])
    if u[1] > 1e-9:
        ts.append((own[3] + gap + h / 2 - cy) / u[1])
    elif u[1] < -1e-9:
        ts.append((own[1] - gap - h / 2 - cy) / u[1])
    t = min(ts)
    x, y = cx + u[0] * t, cy + u[1] * t
    return (x - w / 2, y - h / 2, x + w / 2, y + h / 2)


class _Index:
    """The rectangles placed so far, bucketed in a coarse grid: a candidate box is checked
    against the few rectangles near it, not against every name on the map."""

    CELL = 64.0

    def __init__(self, rects: list[Rect]) -> None:
        self.rects: list[Rect] = []
        self.cells: dict[tuple[int, int], list[int]] = {}
        for r in rects:
            self.add(r)

    def _span(self, r: Rect, margin: float) -> tuple[range, range]:
        c = self.CELL
        return (range(int((r[0] - margin) // c), int((r[2] + margin) // c) + 1),
                range(int((r[1] - margin) // c), int((r[3] + margin) // c) + 1))

    def add(self, r: Rect) -> None:
        n = len(self.rects)
        self.rects.append(r)
        xs, ys = self._span(r, 0.0)
        for i in xs:
            for j in ys:
                self.cells.setdefault((i, j), []).append(n)

    def near(self, r: Rect, margin: float = 0.0) -> set[int]:
        xs, ys = self._span(r, margin)
        out: set[int] = set()
        for i in xs:
            for j in ys:
                out.update(self.cells.get((i, j), ()))
        return out

    def free(self, r: Rect) -> bool:
        if not _inside_map(r):
            return False
        x0, y0, x1, y1 = r[0] - MARGIN, r[1] - MARGIN, r[2] + MARGIN, r[3] + MARGIN
        xs, ys = self._span(r, MARGIN)
        rects, cells = self.rects, self.cells
        for i in xs:
            for j in ys:
                for n in cells.get((i, j), ()):
                    o = rects[n]
                    if x0 < o[2] and o[0] < x1 and y0 < o[3] and o[1] < y1:
                        return False
        return True

    def crossings(self, a: Point, b: Point, skip: tuple[Rect, ...]) -> int:
        seg = (min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1]))
        return sum(1 for n in self.near(seg) if self.rects[n] not in skip and _segment_hits(a, b, self.rects[n]))


def _inside_map(r: Rect) -> bool:
    return r[0] >= 2 and r[1] >= 2 and r[2] <= M.WIDTH - 2 and r[3] <= M.MAP_HEIGHT - 2


def _nearest(r: Rect, p: Point) -> Point:
    return (min(max(p[0], r[0]), r[2]), min(max(p[1], r[1]), r[3]))


def _leader(lid: str, centre: Point, r: Rect, battle: bool) -> tuple[Point, Point]:
    end = _nearest(r, centre)
    dx, dy = end[0] - centre[0], end[1] - centre[1]
    d = math.hypot(dx, dy) or 1.0
    rad = marker_radius(lid, battle) + 1
    return ((centre[0] + dx / d * rad, centre[1] + dy / d * rad), end)


def _distance(r: Rect, p: Point) -> float:
    q = _nearest(r, p)
    return math.hypot(q[0] - p[0], q[1] - p[1])


def _nearest_marker_is(lid: str, r: Rect) -> bool:
    """Whether ``lid``'s marker is clearly the nearest to box ``r`` (a box without a leader
    must read as its own location's)."""
    geo = M.geometry()
    own = _distance(r, geo.loc[lid])
    return all(_distance(r, p) > own + 8 for k, p in geo.loc.items() if k != lid)


def _place_badge(own: Rect, centre: Point, blocked: _Index) -> Rect:
    best: tuple[float, Rect] | None = None
    for gap in (0.0, 3.0, 6.0, 10.0, 16.0, 24.0):
        for i, u in enumerate(_BADGE_DIRECTIONS):
            r = _beside(own, centre, u, BADGE, BADGE, gap)
            if blocked.free(r):
                return r
            cost = gap + i + sum(1000 for n in blocked.near(r) if overlaps(r, blocked.rects[n]))
            if best is None or cost < best[0]:
                best = (cost, r)
    assert best is not None
    return best[1]


def _place_box(spec: StackSpec, own: tuple[Rect, ...], centre: Point, blocked: _Index, battle: bool) -> Box:
    """The nearest free spot beside the marker for the stack, trying a few row lengths;
    a leader crossing a name, another marker or a box counts as extra distance (it may
    cross its own marker's icons)."""
    dot = own[0]
    reach = marker_radius(spec.loc, battle) + LEADER_FROM
    widest = max(spec.christian, spec.muslim)
    shapes = [spec.per_row] + [p for p in (spec.per_row - 1, spec.per_row + 1, spec.per_row - 2)
                               if 2 <= p <= widest]
    best: tuple[float, Box] | None = None
    gap = 1.0
    while gap <= MAX_STANDOFF:
        if best is not None and gap > best[0]:
            break
        for k, p in enumerate(shapes):
            gw, gh = grid_size(spec, p)
            w, h = gw + 2 * PAD, gh + 2 * PAD
            for i, u in enumerate(_DIRECTIONS):
                r = _beside(dot, centre, u, w, h, gap)
                cost = gap + 3.0 * k + 0.5 * i
                if best is not None and cost >= best[0]:
                    continue
                if not blocked.free(r):
                    continue
                leader = None
                if _distance(r, centre) > reach or not _nearest_marker_is(spec.loc, r):
                    leader = _leader(spec.loc, centre, r, battle)
                    cost += 120.0 * blocked.crossings(leader[0], leader[1], own)
                if best is None or cost < best[0]:
                    best = (cost, Box(r, p, leader))
        gap += 4.0 if gap < 40 else 8.0
    if best is None:   # nowhere free within reach: the least crowded spot beside it
        gw, gh = grid_size(spec, spec.per_row)
        r = _beside(dot, centre, _DIRECTIONS[0], gw + 2 * PAD, gh + 2 * PAD, 1.0)
        return Box(r, spec.per_row, None)
    return best[1]


@functools.lru_cache(maxsize=256)
def layout(stacks: tuple[StackSpec, ...], battles: tuple[str, ...] = (), disks: tuple[tuple[str, str], ...] = (),
           fleets: tuple[tuple[str, int, int], ...] = (),
           sea_tiles: tuple[tuple[str, tuple[str, ...]], ...] = ()) -> MapLayout:
    """Place the badges (``battles``: locations with a battle marker; ``disks``: (disk id,
    location)), then the stack boxes, biggest first, around the fixed names, markers,
    legend and ``fleets`` ((sea zone, fleets, most blocks one carries)) with their
    ``sea_tiles`` ((sea zone, marker keys): Pioneers tiles carried there)."""
    geo = M.geometry()
    battle_set = set(battles)
    labels = dict(_static_labels())
    parts = {lid: marks(lid, lid in battle_set) for lid in geo.loc}
    dots = {lid: p[0] for lid, p in parts.items()}
    icons = {lid: p[1:] for lid, p in parts.items()}
    at_sea = dict(sea_tiles)
    fleet_rects = {z: fleet_rect(z, n, c, len(at_sea.get(z, ()))) for z, n, c in fleets if n and z in geo.sea}
    markers: dict[str, Rect] = {}
    for z, n, _c in fleets:
        if z in fleet_rects:
            for i, key in enumerate(at_sea.get(z, ())):
                markers[key] = fleet_tile_rect(z, n, i)
    blocked = _Index([*labels.values(), *(r for p in parts.values() for r in p), *fleet_rects.values(), LEGEND])
    badges: dict[tuple[str, str], Rect] = {}
    for kind, key, lid in [("battle", b, b) for b in sorted(battle_set)] + [("disk", d, w) for d, w in sorted(disks)]:
        if lid not in geo.loc:
            continue
        # a badge may sit on its own marker's red battle ring, nothing else
        ring = dots[lid]
        inner = marks(lid, False)[0]
        others = _Index([b for b in blocked.rects if b is not ring])
        r = _place_badge(inner, geo.loc[lid], others)
        badges[(kind, key)] = r
        blocked.add(r)
    boxes: dict[str, Box] = {}
    order = sorted((s for s in stacks if s.loc in geo.loc),
                   key=lambda s: (-(grid_size(s, s.per_row)[0] * grid_size(s, s.per_row)[1]), s.loc))
    for spec in order:
        box = _place_box(spec, parts[spec.loc], geo.loc[spec.loc], blocked, spec.loc in battle_set)
        boxes[spec.loc] = box
        blocked.add(box.rect)
        for side in ("christian", "muslim"):
            keys = [key for s, key in spec.tiles if s == side]
            for i, key in enumerate(keys):
                markers[key] = item_rect(spec, box.per_row, box.rect, side, i)
    return MapLayout(labels, dots, icons, badges, fleet_rects, boxes, markers)
