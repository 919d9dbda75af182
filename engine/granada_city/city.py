"""A city of Granada as a grid of tiles: the building rules and the longest moat.

A city is ``{"x,y": [tile id, side]}`` with the starting tile at ``"0,0"``; x grows to the
east, y to the south (as the picture draws it). All tiles share one orientation, so a tile's
edges are simply north, east, south and west. The building rules are checked after every
change of a city (building, rebuilding, an end-of-game award): :func:`problem` says which rule
a whole city breaks, :func:`add_problem` is the same test for adding one tile to a city that
already obeys them (the common case, and the one the menus list positions for).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.granada_city.data import moats_of

City = dict[str, list[str]]
Cell = tuple[int, int]

STEP: dict[str, Cell] = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}
OPPOSITE = {"n": "s", "s": "n", "e": "w", "w": "e"}
START: Cell = (0, 0)

# The rulebook's building-rule bullet points, named for RuleError messages.
R_EDGES = "the edges of adjacent tiles must be of the same kind (moat against moat, open against open)"
R_FOOT = "every tile must be accessible on foot from the starting tile without crossing a moat"
R_TOUCH = "each added tile must touch another tile edge to edge"
R_HOLE = "no hole (an empty space surrounded by tiles on all four sides) may be created"
R_START = "the starting tile must never be rebuilt or removed"


def key(cell: Cell) -> str:
    return f"{cell[0]},{cell[1]}"


def cell_of(text: str) -> Cell:
    x, y = text.split(",")
    return int(x), int(y)


def neighbour(cell: Cell, edge: str) -> Cell:
    dx, dy = STEP[edge]
    return cell[0] + dx, cell[1] + dy


def _moats(city: City, cell: Cell) -> frozenset[str] | None:
    entry = city.get(key(cell))
    return None if entry is None else moats_of(entry[0])


def frontier(city: City) -> list[Cell]:
    """Empty cells touching the city edge to edge, north to south then west to east."""
    out: set[Cell] = set()
    for k in city:
        c = cell_of(k)
        for e in STEP:
            n = neighbour(c, e)
            if key(n) not in city:
                out.add(n)
    return sorted(out, key=lambda c: (c[1], c[0]))


def _is_hole(city: City, cell: Cell) -> bool:
    return key(cell) not in city and all(key(neighbour(cell, e)) in city for e in STEP)


def add_problem(city: City, tid: str, cell: Cell) -> str | None:
    """Which building rule adding ``tid`` at ``cell`` would break, None when it is legal.

    The city is assumed to obey the rules already, so the new tile is reachable on foot exactly
    when it shares an open edge with a neighbour, and only the cells around it can become holes.
    """
    if key(cell) in city:
        return "that position is already built"
    mine = moats_of(tid)
    touching = False
    walkable = False
    for e in STEP:
        theirs = _moats(city, neighbour(cell, e))
        if theirs is None:
            continue
        touching = True
        if (e in mine) != (OPPOSITE[e] in theirs):
            return R_EDGES
        if e not in mine:
            walkable = True
    if not touching:
        return R_TOUCH
    if not walkable:
        return R_FOOT
    grown = dict(city)
    grown[key(cell)] = [tid, "even"]
    for e in STEP:
        if _is_hole(grown, neighbour(cell, e)):
            return R_HOLE
    return None


def problem(city: City) -> str | None:
    """Which building rule a whole city breaks, None when it obeys them all."""
    if key(START) not in city:
        return R_START
    for k, (tid, _side) in city.items():
        c = cell_of(k)
        mine = moats_of(tid)
        for e in ("e", "s"):
            theirs = _moats(city, neighbour(c, e))
            if theirs is not None and (e in mine) != (OPPOSITE[e] in theirs):
                return R_EDGES
    seen = {key(START)}
    todo = [START]
    while todo:
        c = todo.pop()
        mine = _moats(city, c) or frozenset()
        for e in STEP:
            n = neighbour(c, e)
            if key(n) in city and key(n) not in seen and e not in mine:
                seen.add(key(n))
                todo.append(n)
    if len(seen) != len(city):
        return R_FOOT
    if any(_is_hole(city, c) for c in frontier(city)):
        return R_HOLE
    return None


_POSITIONS: dict[tuple[tuple[tuple[str, str], ...], frozenset[str]], list[Cell]] = {}


def positions(city: City, tid: str) -> list[Cell]:
    """Every position where ``tid`` may be added, in reading order (the order of the labels).

    Only the tiles' moats matter, so the answer is remembered per (city, moats): menus, views
    and the built-in player ask the same question many times between two changes of a city.
    """
    memo = (tuple(sorted((k, v[0]) for k, v in city.items())), moats_of(tid))
    found = _POSITIONS.get(memo)
    if found is None:
        if len(_POSITIONS) > 4096:
            _POSITIONS.clear()
        found = _POSITIONS[memo] = [c for c in frontier(city) if add_problem(city, tid, c) is None]
    return list(found)


def removal_problem(city: City, cell: Cell) -> str | None:
    if cell == START:
        return R_START
    rest = {k: v for k, v in city.items() if k != key(cell)}
    return problem(rest)


def exchange_problem(city: City, cell: Cell, tid: str, side: str) -> str | None:
    """Which rule putting ``tid`` in place of the tile at ``cell`` would break.

    The built cells stay the same, so no hole can appear; and since every edge facing a
    neighbour must match that neighbour whatever lies at ``cell``, the new tile's edges
    towards its neighbours are the old tile's, and the walk from the starting tile is
    unchanged. Only the matching of those edges remains to check.
    """
    if cell == START:
        return R_START
    mine = moats_of(tid)
    for e in STEP:
        theirs = _moats(city, neighbour(cell, e))
        if theirs is not None and (e in mine) != (OPPOSITE[e] in theirs):
            return R_EDGES
    return None


def position_label(index: int) -> str:
    """A, B, ..., Z, AA, AB, ...: the letters the picture prints on the free positions."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(ord("A") + rem) + letters
    return letters


def where(cell: Cell) -> str:
    """Where a position lies, relative to the Alhambra, for a menu label."""
    x, y = cell
    parts = []
    if y:
        parts.append(f"{abs(y)} {'north' if y < 0 else 'south'}")
    if x:
        parts.append(f"{abs(x)} {'east' if x > 0 else 'west'}")
    return ", ".join(parts) if parts else "the Alhambra"


# ---------------------------------------------------------------- moats

Vertex = tuple[int, int]
Segment = tuple[Vertex, Vertex]


def outer_moats(city: City) -> list[Segment]:
    """Moat edges on the city's outline: a moat facing an empty space.

    Ruling (see RULINGS.md): a moat lying against a neighbour's moat is "within the city"
    (the book's "moats being side by side") and neither scores nor joins two outer moats.
    """
    out: list[Segment] = []
    for k, (tid, _side) in city.items():
        x, y = cell_of(k)
        for e in moats_of(tid):
            if key(neighbour((x, y), e)) in city:
                continue
            if e == "n":
                out.append(((x, y), (x + 1, y)))
            elif e == "s":
                out.append(((x, y + 1), (x + 1, y + 1)))
            elif e == "w":
                out.append(((x, y), (x, y + 1)))
            else:
                out.append(((x + 1, y), (x + 1, y + 1)))
    return out


def longest_trail(segments: Iterable[Segment]) -> int:
    """The most unit segments one continuous line can follow without reusing a segment."""
    segs = list(segments)
    touching: dict[Vertex, list[int]] = {}
    for i, (a, b) in enumerate(segs):
        touching.setdefault(a, []).append(i)
        touching.setdefault(b, []).append(i)
    used = [False] * len(segs)
    best = 0

    def walk(v: Vertex, length: int) -> None:
        nonlocal best
        best = max(best, length)
        for i in touching[v]:
            if not used[i]:
                used[i] = True
                a, b = segs[i]
                walk(b if a == v else a, length + 1)
                used[i] = False

    for v in touching:
        walk(v, 0)
    return best


_LONGEST: dict[tuple[Segment, ...], int] = {}


def longest_moat(city: City) -> int:
    """The city's longest continuous outer moat, remembered per outline (views ask for every
    city at every step, and a city's outline changes only when it is built on)."""
    outline = tuple(sorted(outer_moats(city)))
    found = _LONGEST.get(outline)
    if found is None:
        if len(_LONGEST) > 4096:
            _LONGEST.clear()
        found = _LONGEST[outline] = longest_trail(outline)
    return found
