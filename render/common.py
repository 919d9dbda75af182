"""The shared visual language of every Alcazaba picture.

Every game draws with the same fonts, palette, block and card shapes so that a player who
knows one board reads the others. Three constraints shape this module:

* **Colour-blind safety.** Colours come from the Okabe-Ito palette, and no fact is carried
  by hue alone: sides differ by block *lightness* (white / black / grey, as on the physical
  pieces) and factions differ by the *shape* of the emblem on their shield as well as by its
  colour.
* **Phone legibility.** Text is drawn with a contrasting outline so that it stays readable
  over any map colour, and sizes are chosen for an image shown ~400 px wide on a phone and
  zoomed in.
* **Speed.** A board is one cached static layer (map, tracks, boxes: drawn once per game
  and size) plus sprites (blocks, cards: cached per identity), pasted on a copy of the layer
  and encoded with a fast zlib level. Render never sees a state, only views.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

Box = tuple[float, float, float, float]
RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
Colour = RGB | RGBA

FONTS_DIR = Path(__file__).with_name("fonts")
DATA_DIR = Path(__file__).with_name("data")

# zlib level 1: the board is mostly flat colour, so level 1 is within ~10% of level 9 in
# size and three times faster; ``optimize`` would re-run the compressor several times.
# (Z_RLE and Z_FILTERED strategies were measured: no faster here, and larger.)
PNG_COMPRESS_LEVEL = 1

# ---------------------------------------------------------------------------------------
# Fonts


_FONT_FILES = {
    ("sans", False): "DejaVuSans.ttf",
    ("sans", True): "DejaVuSans-Bold.ttf",
    ("condensed", False): "DejaVuSansCondensed.ttf",
    ("condensed", True): "DejaVuSansCondensed-Bold.ttf",
    ("serif", True): "DejaVuSerif-Bold.ttf",
    ("serif", False): "DejaVuSerif-Bold.ttf",
}


def content_order(view: dict[str, Any]) -> dict[str, Any]:
    """The view with every dict's keys in sorted order: a picture drawn from it depends on what
    the view says, never on the order its dicts were built in (a state held in memory and the
    same state read back from the database, as sorted JSON, must draw the same bytes)."""
    ordered: dict[str, Any] = json.loads(json.dumps(view, sort_keys=True))
    return ordered


@functools.cache
def font(size: int, bold: bool = False, family: str = "sans") -> ImageFont.FreeTypeFont:
    """A shipped DejaVu font (cached): the only fonts used, so accents always have glyphs."""
    name = _FONT_FILES[(family, bold)]
    return ImageFont.truetype(str(FONTS_DIR / name), size=max(6, int(size)))


# ---------------------------------------------------------------------------------------
# Palette


class OI:
    """Okabe-Ito colours (distinguishable under the common colour-vision deficiencies)."""

    BLACK: RGB = (0, 0, 0)
    ORANGE: RGB = (230, 159, 0)
    SKY: RGB = (86, 180, 233)
    GREEN: RGB = (0, 158, 115)
    YELLOW: RGB = (240, 228, 66)
    BLUE: RGB = (0, 114, 178)
    VERMILLION: RGB = (213, 94, 0)
    PURPLE: RGB = (204, 121, 167)


INK: RGB = (28, 26, 24)
PAPER: RGB = (250, 246, 236)
PARCHMENT: RGB = (236, 226, 200)
PANEL: RGB = (244, 238, 222)
PANEL_EDGE: RGB = (150, 130, 100)
MUTED: RGB = (110, 104, 96)
HIGHLIGHT: RGB = OI.ORANGE
ALERT: RGB = OI.VERMILLION
WHITE: RGB = (255, 255, 255)


@dataclass(frozen=True, slots=True)
class SideStyle:
    """How a side's pieces look: fill/edge/ink of its blocks (white or black, as printed)."""

    name: str
    fill: RGB
    edge: RGB
    ink: RGB
    accent: RGB
    emblem: str


SIDES: dict[str, SideStyle] = {
    "christian": SideStyle("Christians", (246, 243, 234), (60, 56, 50), INK, OI.BLUE, "cross"),
    "muslim": SideStyle("Muslims", (38, 38, 42), (0, 0, 0), (245, 242, 232), OI.GREEN, "crescent"),
    "grey": SideStyle("Boabdil Mixed Army", (150, 150, 152), (70, 70, 72), INK, OI.PURPLE, "diamond"),
}


@dataclass(frozen=True, slots=True)
class FactionStyle:
    """A faction's shield: its colour AND a distinct emblem shape (never hue alone)."""

    name: str
    colour: RGB
    emblem: str


FACTIONS: dict[str, FactionStyle] = {
    # Granada: Last Stand of the Moors, Christian factions
    "castile": FactionStyle("Castile", OI.VERMILLION, "tower"),
    "aragon": FactionStyle("Aragón", OI.YELLOW, "pales"),
    "leon": FactionStyle("León", OI.PURPLE, "roundel"),
    "other_kingdoms": FactionStyle("Other Kingdoms", OI.SKY, "cross"),
    # Muslim factions
    "andalusies": FactionStyle("Andalusíes", OI.GREEN, "crescent"),
    "banu_bannigas": FactionStyle("Banu Bannigas", OI.ORANGE, "lozenge"),
    "banu_sarray": FactionStyle("Banu Sarray", OI.BLUE, "star"),
    "zegries": FactionStyle("Zegríes", (200, 200, 196), "triangle"),
    # 1212 Las Navas de Tolosa
    "navarre": FactionStyle("Navarre", OI.GREEN, "saltire"),
    "almohad": FactionStyle("Almohads", (245, 242, 232), "chequy"),
}

NEUTRAL_FACTION = FactionStyle("Any faction", (214, 206, 186), "roundel")

# Blocks that belong to no faction (any card deploys them): a pale shield and an emblem
# of their own, so they never pass for a faction block.
SPECIAL_BLOCKS: dict[str, FactionStyle] = {
    "military_order": FactionStyle("Military Order", (236, 232, 222), "sword"),
    "palace_guard": FactionStyle("Nasrid Palace Guard", (236, 232, 222), "arch"),
    "mujahideen": FactionStyle("Mujahideens", (236, 232, 222), "flame"),
    "mercenaries": FactionStyle("Mercenaries", (236, 232, 222), "coin"),
    "crusaders": FactionStyle("Crusaders", (236, 232, 222), "crosslet"),
}


def faction_style(faction: str | None) -> FactionStyle:
    if faction is None:
        return NEUTRAL_FACTION
    return FACTIONS.get(faction, FactionStyle(faction.replace("_", " ").title(), (214, 206, 186), "roundel"))


def luminance(colour: Colour) -> float:
    r, g, b = colour[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ink(colour: Colour) -> RGB:
    """Black or white, whichever reads on ``colour``."""
    return INK if luminance(colour) > 140 else (250, 250, 250)


def mix(a: Colour, b: Colour, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


# ---------------------------------------------------------------------------------------
# Text: every text is drawn into a box and fitted to it
#
# One mechanism (:func:`fit_text`) fits every text of every picture: it tries the wordings it
# is given, longest first (a caller passes shorter ones: a two-line version, symbols the
# legend explains), each at the size asked for, then at smaller sizes down to a legible
# minimum, and only then ends the last wording with an ellipsis. A text is never cut
# silently, and a test can see every text with its box (:func:`recording`).

#: The smallest text size (pixels at scale 1) a picture may shrink a text to: below it a
#: phone shows smudges. A supersampled sprite passes its own minimum scaled likewise.
MIN_TEXT = 10
ELLIPSIS = "…"
_H_ANCHOR = {"l": "l", "c": "m", "r": "r"}
_V_ANCHOR = {"t": "a", "m": "m", "b": "d"}


@dataclass(frozen=True, slots=True)
class TextRecord:
    """One line of text as drawn: the line, the font object that drew it, where and how it was
    anchored (and its outline's width), the box it had to fit, the ink's bounding box as the
    fitter measured it, the picture's size, and whether the fitting fell back to an ellipsis."""

    text: str
    font: ImageFont.FreeTypeFont
    xy: tuple[float, float]
    anchor: str
    stroke: int
    box: Box
    bbox: Box
    image_size: tuple[int, int]
    ellipsized: bool


_recorders: list[list[TextRecord]] = []


def clear_caches() -> None:
    """Empty every cached layer and sprite of the render package (not the fonts), so that the
    next pictures draw, and a recording sees, every text again."""
    for name, mod in list(sys.modules.items()):
        if name != "render" and not name.startswith("render."):
            continue
        for value in list(vars(mod).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear) and value is not font and getattr(value, "__module__", "").startswith("render"):
                clear()
    _fitted.cache_clear()


@contextlib.contextmanager
def recording() -> Iterator[list[TextRecord]]:
    """Collect every text the pictures drawn inside the ``with`` draw (real drawing: the hook
    only notes what :func:`fit_text` drew). Caches are emptied first so that the texts on
    cached layers and sprites are drawn, and seen, again."""
    clear_caches()
    records: list[TextRecord] = []
    _recorders.append(records)
    try:
        yield records
    finally:
        _recorders.remove(records)


@dataclass(frozen=True, slots=True)
class Fitted:
    """What :func:`fit_text` drew: the font, the lines, the ink's bounding box, whether an
    ellipsis ended it."""

    font: ImageFont.FreeTypeFont
    lines: tuple[str, ...]
    bbox: Box
    ellipsized: bool

    @property
    def right(self) -> float:
        return self.bbox[2]


def wrap(s: str, fnt: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """Greedy word wrap measured with the real font."""
    lines: list[str] = []
    for para in s.split("\n"):
        words = para.split()
        line = ""
        for word in words:
            candidate = f"{line} {word}".strip()
            if not line or fnt.getlength(candidate) <= max_width:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


_Placed = tuple[tuple[float, float], str, Box]   # a line's anchor point, anchor, ink box (box-relative)


def _line_boxes(lines: Sequence[str], fnt: ImageFont.FreeTypeFont, w: float, h: float, align: str, valign: str,
                stroke: int, spacing: float) -> list[_Placed]:
    """Where each line goes in a box of ``w`` x ``h`` at the origin (anchor point, anchor,
    ink box), aligned as asked."""
    anchor = _H_ANCHOR[align] + _V_ANCHOR[valign]
    # an outline reaches ``stroke`` past the pen: the pen starts that far inside the box
    x = {"l": float(stroke), "c": w / 2, "r": w - stroke}[align]
    step = fnt.size * spacing
    n = len(lines)
    if valign == "t":
        ys = [stroke + i * step for i in range(n)]
    elif valign == "b":
        ys = [h - stroke - (n - 1 - i) * step for i in range(n)]
    else:
        ys = [h / 2 + (i - (n - 1) / 2) * step for i in range(n)]
    out = []
    for line, y in zip(lines, ys, strict=True):
        bx0, by0, bx1, by1 = fnt.getbbox(line or " ", anchor=anchor, stroke_width=stroke)
        out.append(((x, y), anchor, (x + bx0, y + by0, x + bx1, y + by1)))
    return out


#: How far (pixels) ink may reach past its box: Pillow measures ink in whole pixels, and a
#: glyph such as "Y" reaches a pixel left of where its pen starts.
TEXT_TOLERANCE = 1.0


def _inside(boxes: Iterable[Box], w: float, h: float) -> bool:
    t = TEXT_TOLERANCE
    return all(b[0] >= -t and b[1] >= -t and b[2] <= w + t and b[3] <= h + t for b in boxes)


def _ellipsize(line: str, fnt: ImageFont.FreeTypeFont, w: float, stroke: int) -> str:
    """``line`` cut at a word or letter and ended with an ellipsis, so it fits ``w``."""
    cut = line
    while cut and fnt.getbbox(cut + ELLIPSIS, anchor="ls", stroke_width=stroke)[2] > w:
        cut = cut[:-1]
    return cut.rstrip(" ,·:;-") + ELLIPSIS


def _stroke_of(size: int, outline: bool, stroke: int | None) -> int:
    if not outline:
        return 0
    return stroke if stroke is not None else max(1, round(size / 9))


@functools.lru_cache(maxsize=8192)
def _fitted(wordings: tuple[str, ...], w: float, h: float, size: int, min_size: int, bold: bool, family: str,
            outline: bool, stroke: int | None, align: str, valign: str, wrap_lines: bool,
            spacing: float, keep_to: int) -> tuple[int, tuple[str, ...], bool, tuple[_Placed, ...]]:
    """(size, lines, ellipsized, where each line goes) of the first wording that fits at the
    largest size (the first wording alone down to ``keep_to``). Cached: a picture redraws the
    same texts in the same boxes."""
    min_size = min(size, min_size)
    for s in range(size, min_size - 1, -1):
        fnt = font(s, bold, family)
        st = _stroke_of(s, outline, stroke)
        for wording in (wordings[:1] if s > keep_to else wordings):
            lines = wrap(wording, fnt, w - 2 * st) if wrap_lines else wording.split("\n")
            placed = _line_boxes(lines, fnt, w, h, align, valign, st, spacing)
            if _inside((b for _, _, b in placed), w, h):
                return s, tuple(lines), False, tuple(placed)
    # last resort: the last (shortest) wording at the smallest size, as many lines as fit, the
    # last of them (and any too wide) ended with an ellipsis
    fnt = font(min_size, bold, family)
    st = _stroke_of(min_size, outline, stroke)
    lines = wrap(wordings[-1], fnt, w - 2 * st) if wrap_lines else wordings[-1].split("\n")
    while len(lines) > 1 and not _inside((b for _, _, b in _line_boxes(lines, fnt, w, h, align, valign, st, spacing)),
                                         w, h):
        lines = lines[:-2] + [lines[-2] + ELLIPSIS]
    lines = [line if fnt.getbbox(line, anchor="ls", stroke_width=st)[2] <= w else _ellipsize(line, fnt, w, st)
             for line in lines]
    return min_size, tuple(lines), True, tuple(_line_boxes(lines, fnt, w, h, align, valign, st, spacing))


def fit_text(draw: ImageDraw.ImageDraw, box: Box, wording: str | Sequence[str], size: float, *, bold: bool = False,
             family: str = "sans", fill: Colour = INK, outline: Colour | None = None, stroke: int | None = None,
             align: str = "l", valign: str = "m", min_size: float = MIN_TEXT, wrap_lines: bool = False,
             spacing: float = 1.2, keep_wording_to: float | None = None) -> Fitted:
    """Draw a text inside ``box`` (x0, y0, x1, y1), fitted to it.

    ``wording`` is the text, or its wordings from the longest to the shortest (a line break
    makes two lines): the first that fits at ``size`` is drawn; if none does, the first that
    fits at a smaller size, down to ``min_size``; if none fits even then, the last wording at
    ``min_size``, its lines ended with an ellipsis where they overflow. ``keep_wording_to``: a
    size the first wording may shrink to before a shorter one is tried (a name a little smaller
    reads better than its abbreviation). ``align`` l/c/r and
    ``valign`` t/m/b place it; ``wrap_lines`` word-wraps each wording to the box's width.
    ``outline`` draws a contrasting halo (so the text reads over any background), ``stroke``
    wide. Returns what was drawn (the ink's bounding box tells a caller where it ended)."""
    wordings = (wording,) if isinstance(wording, str) else tuple(wording)
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    s, lines, ellipsized, placed = _fitted(wordings, round(w, 2), round(h, 2), int(size), int(min_size), bold, family,
                                           outline is not None, stroke, align, valign, wrap_lines, spacing,
                                           int(size if keep_wording_to is None else keep_wording_to))
    fnt = font(s, bold, family)
    st = _stroke_of(s, outline is not None, stroke)
    ink: list[Box] = []
    for line, ((px, py), anchor, (bx0, by0, bx1, by1)) in zip(lines, placed, strict=True):
        if not line:
            continue
        if outline is None:
            draw.text((x0 + px, y0 + py), line, font=fnt, fill=fill, anchor=anchor)
        else:
            draw.text((x0 + px, y0 + py), line, font=fnt, fill=fill, anchor=anchor, stroke_width=st,
                      stroke_fill=outline)
        b = (x0 + bx0, y0 + by0, x0 + bx1, y0 + by1)
        ink.append(b)
        for records in _recorders:
            records.append(TextRecord(line, fnt, (x0 + px, y0 + py), anchor, st, box, b,
                                      draw.im.size if draw.im is not None else (0, 0), ellipsized))
    bbox = (min(b[0] for b in ink), min(b[1] for b in ink), max(b[2] for b in ink), max(b[3] for b in ink)) \
        if ink else (x0, y0, x0, y0)
    return Fitted(fnt, lines, bbox, ellipsized)


def text_width(s: str, fnt: ImageFont.FreeTypeFont) -> float:
    return float(fnt.getlength(s))


# ---------------------------------------------------------------------------------------
# Shapes


def rounded(draw: ImageDraw.ImageDraw, box: Box, radius: float, fill: Colour | None, edge: Colour | None = None,
            width: int = 1) -> None:
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=edge, width=width)


def regular_polygon(cx: float, cy: float, r: float, n: int, rotation: float = -90.0) -> list[tuple[float, float]]:
    return [
        (cx + r * math.cos(math.radians(rotation + 360 * i / n)), cy + r * math.sin(math.radians(rotation + 360 * i / n)))
        for i in range(n)
    ]


def star_points(cx: float, cy: float, r_out: float, r_in: float, n: int, rotation: float = -90.0) -> list[tuple[float, float]]:
    pts = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rotation + 180 * i / n)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def shield_points(box: Box) -> list[tuple[float, float]]:
    """A heater shield filling ``box``: straight top and sides, curved to a point."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    pts = [(x0, y0), (x1, y0), (x1, y0 + h * 0.45)]
    steps = 8
    for i in range(1, steps + 1):  # right flank curving to the point
        t = i / steps
        a = math.radians(90 * t)
        pts.append((x0 + w / 2 + (w / 2) * math.cos(a), y0 + h * 0.45 + (h * 0.55) * math.sin(a)))
    for i in range(steps - 1, -1, -1):  # left flank back up
        t = i / steps
        a = math.radians(90 * t)
        pts.append((x0 + w / 2 - (w / 2) * math.cos(a), y0 + h * 0.45 + (h * 0.55) * math.sin(a)))
    pts.append((x0, y0 + h * 0.45))
    return pts


EMBLEMS = ("tower", "pales", "roundel", "cross", "crescent", "lozenge", "star", "triangle", "saltire", "chequy",
           "sword", "arch", "flame", "coin", "crosslet")


def emblem(draw: ImageDraw.ImageDraw, shape: str, box: Box, ink: Colour, ground: Colour) -> None:
    """One heraldic charge inside ``box``; each faction has its own (shape carries identity)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = min(w, h) / 2
    if shape == "tower":
        bw = w * 0.62
        bx0, bx1 = cx - bw / 2, cx + bw / 2
        top = y0 + h * 0.30
        draw.rectangle((bx0, top, bx1, y1), fill=ink)
        m = bw / 5
        for i in (0, 2, 4):
            draw.rectangle((bx0 + i * m, y0 + h * 0.08, bx0 + (i + 1) * m, top), fill=ink)
        draw.rectangle((cx - bw * 0.14, y1 - h * 0.32, cx + bw * 0.14, y1), fill=ground)
    elif shape == "pales":
        n = 4
        step = w / (2 * n)
        for i in range(n):
            xa = x0 + step * (2 * i + 0.5)
            draw.rectangle((xa, y0, xa + step, y1), fill=ink)
    elif shape == "roundel":
        draw.ellipse((cx - r * 0.8, cy - r * 0.8, cx + r * 0.8, cy + r * 0.8), fill=ink)
    elif shape == "cross":
        t = max(1.5, r * 0.42)
        draw.rectangle((cx - t / 2, y0 + h * 0.05, cx + t / 2, y1 - h * 0.05), fill=ink)
        draw.rectangle((x0 + w * 0.05, cy - t / 2 - h * 0.08, x1 - w * 0.05, cy + t / 2 - h * 0.08), fill=ink)
    elif shape == "crescent":
        rr = r * 0.9
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ink)
        off = rr * 0.42
        r2 = rr * 0.82
        draw.ellipse((cx - r2 + off, cy - r2 - off * 0.25, cx + r2 + off, cy + r2 - off * 0.25), fill=ground)
    elif shape == "lozenge":
        draw.polygon([(cx, y0), (x1 - w * 0.12, cy), (cx, y1), (x0 + w * 0.12, cy)], fill=ink)
    elif shape == "star":
        draw.polygon(star_points(cx, cy, r * 0.98, r * 0.55, 8, rotation=-90 + 22.5), fill=ink)
    elif shape == "triangle":
        draw.polygon([(cx, y0 + h * 0.05), (x1 - w * 0.03, y1 - h * 0.08), (x0 + w * 0.03, y1 - h * 0.08)], fill=ink)
    elif shape == "saltire":
        t = max(2.0, r * 0.38)
        draw.line((x0 + w * 0.1, y0 + h * 0.1, x1 - w * 0.1, y1 - h * 0.1), fill=ink, width=round(t))
        draw.line((x1 - w * 0.1, y0 + h * 0.1, x0 + w * 0.1, y1 - h * 0.1), fill=ink, width=round(t))
        rr = r * 0.25
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ground, outline=ink, width=max(1, round(t / 3)))
    elif shape == "chequy":
        n = 3
        s = min(w, h) / n
        ox, oy = cx - s * n / 2, cy - s * n / 2
        for i in range(n):
            for j in range(n):
                if (i + j) % 2 == 0:
                    draw.rectangle((ox + i * s, oy + j * s, ox + (i + 1) * s, oy + (j + 1) * s), fill=ink)
    elif shape == "sword":
        t = max(1.5, w * 0.14)
        draw.rectangle((cx - t / 2, y0 + h * 0.02, cx + t / 2, y1 - h * 0.22), fill=ink)
        draw.polygon([(cx - t / 2, y1 - h * 0.22), (cx + t / 2, y1 - h * 0.22), (cx, y1)], fill=ink)
        draw.rectangle((x0 + w * 0.12, y0 + h * 0.24, x1 - w * 0.12, y0 + h * 0.24 + t), fill=ink)
        rr = t * 0.8
        draw.ellipse((cx - rr, y0, cx + rr, y0 + 2 * rr), fill=ink)
    elif shape == "arch":
        # a horseshoe arch (the Alhambra's): a ring open at the bottom on two jambs
        t = max(1.5, w * 0.16)
        draw.ellipse((x0 + w * 0.08, y0 + h * 0.02, x1 - w * 0.08, y0 + h * 0.70), fill=ink)
        draw.ellipse((x0 + w * 0.08 + t, y0 + h * 0.02 + t, x1 - w * 0.08 - t, y0 + h * 0.70 - t), fill=ground)
        draw.rectangle((x0 + w * 0.18, y0 + h * 0.55, x0 + w * 0.18 + t, y1), fill=ink)
        draw.rectangle((x1 - w * 0.18 - t, y0 + h * 0.55, x1 - w * 0.18, y1), fill=ink)
        draw.rectangle((x0 + w * 0.18 + t, y0 + h * 0.55, x1 - w * 0.18 - t, y1), fill=ground)
    elif shape == "flame":
        pts = [(0.5, 0.0), (0.78, 0.35), (0.88, 0.68), (0.72, 0.95), (0.5, 1.0), (0.28, 0.95), (0.12, 0.68),
               (0.25, 0.42), (0.38, 0.55)]
        draw.polygon([(x0 + px * w, y0 + py * h) for px, py in pts], fill=ink)
    elif shape == "coin":
        rr = r * 0.9
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ink)
        q = rr * 0.38
        draw.rectangle((cx - q, cy - q, cx + q, cy + q), fill=ground)
    elif shape == "crosslet":
        t = max(1.5, r * 0.3)
        draw.rectangle((cx - t / 2, y0, cx + t / 2, y1), fill=ink)
        draw.rectangle((x0, cy - t / 2, x1, cy + t / 2), fill=ink)
        for ex, ey in ((cx, y0), (cx, y1), (x0, cy), (x1, cy)):
            if ex == cx:
                draw.rectangle((cx - t * 1.3, ey - t / 2 if ey == y0 else ey - t / 2, cx + t * 1.3, ey + t / 2), fill=ink)
            else:
                draw.rectangle((ex - t / 2, cy - t * 1.3, ex + t / 2, cy + t * 1.3), fill=ink)
    else:
        raise ValueError(f"unknown emblem {shape!r}")


def shield(draw: ImageDraw.ImageDraw, box: Box, faction: str | None, edge: Colour = INK, width: int = 1,
           style: FactionStyle | None = None) -> None:
    """A faction's shield: its colour, its emblem shape, a dark edge."""
    style = style or faction_style(faction)
    draw.polygon(shield_points(box), fill=style.colour, outline=edge, width=width)
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    inner = (x0 + w * 0.2, y0 + h * 0.16, x1 - w * 0.2, y0 + h * 0.70)
    emblem(draw, style.emblem, inner, contrast_ink(style.colour), style.colour)


# ---------------------------------------------------------------------------------------
# Icons (drawn, so they scale and never depend on a font's symbol coverage)


def icon(draw: ImageDraw.ImageDraw, name: str, box: Box, ink: Colour, ground: Colour | None = None) -> None:
    """A small pictogram: horse, crossbow, gun, bow, trumpet, anchor, star, crown, castle,
    watchtower, ship, sword, skull (eliminated), flag, axe (Pioneers), seal (Papal Bull)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    lw = max(1, round(min(w, h) / 9))
    ground = ground if ground is not None else (255, 255, 255)
    if name == "horse":
        # a horse's head and neck, facing left (the chess knight silhouette)
        pts = [(0.30, 0.95), (0.38, 0.62), (0.20, 0.58), (0.05, 0.50), (0.08, 0.38), (0.32, 0.20),
               (0.40, 0.05), (0.48, 0.15), (0.62, 0.10), (0.85, 0.30), (0.92, 0.60), (0.88, 0.95)]
        draw.polygon([(x0 + px * w, y0 + py * h) for px, py in pts], fill=ink)
        er = min(w, h) * 0.06
        draw.ellipse((x0 + 0.42 * w - er, y0 + 0.30 * h - er, x0 + 0.42 * w + er, y0 + 0.30 * h + er), fill=ground)
    elif name == "crossbow":
        # a bow across the top and a stock pointing down
        draw.arc((x0 + w * 0.05, y0 + h * 0.05, x1 - w * 0.05, y0 + h * 0.75), 200, 340, fill=ink, width=lw + 1)
        draw.line((cx, y0 + h * 0.12, cx, y1 - h * 0.02), fill=ink, width=lw + 1)
        draw.line((x0 + w * 0.13, y0 + h * 0.33, cx, y0 + h * 0.52, x1 - w * 0.13, y0 + h * 0.33), fill=ink, width=lw)
        draw.polygon([(cx, y0), (cx - w * 0.1, y0 + h * 0.16), (cx + w * 0.1, y0 + h * 0.16)], fill=ink)
    elif name == "bow":
        draw.arc((x0 - w * 0.45, y0 + h * 0.02, x1 - w * 0.15, y1 - h * 0.02), -70, 70, fill=ink, width=lw + 1)
        bx = x1 - w * 0.15 - (w * 1.1) / 2 * (1 - math.cos(math.radians(70)))
        draw.line((bx, y0 + h * 0.08, bx, y1 - h * 0.08), fill=ink, width=max(1, lw - 1))
        draw.line((x0 + w * 0.02, cy, x1 - w * 0.05, cy), fill=ink, width=lw)
        draw.polygon([(x1, cy), (x1 - w * 0.18, cy - h * 0.1), (x1 - w * 0.18, cy + h * 0.1)], fill=ink)
    elif name == "gun":
        # a cannon on its wheel
        draw.polygon([(x0 + w * 0.05, y0 + h * 0.30), (x1 - w * 0.02, y0 + h * 0.12),
                      (x1 + 0 * w, y0 + h * 0.36), (x0 + w * 0.10, y0 + h * 0.62)], fill=ink)
        r = min(w, h) * 0.24
        draw.ellipse((x0 + w * 0.32 - r, y1 - h * 0.28 - r, x0 + w * 0.32 + r, y1 - h * 0.28 + r), fill=ground,
                     outline=ink, width=lw)
        draw.line((x0 + w * 0.32 - r, y1 - h * 0.28, x0 + w * 0.32 + r, y1 - h * 0.28), fill=ink, width=1)
        draw.line((x0 + w * 0.32, y1 - h * 0.28 - r, x0 + w * 0.32, y1 - h * 0.28 + r), fill=ink, width=1)
    elif name == "trumpet":
        draw.line((x0 + w * 0.05, cy, x1 - w * 0.35, cy), fill=ink, width=lw + 1)
        draw.polygon([(x1 - w * 0.40, cy - h * 0.06), (x1, cy - h * 0.32), (x1, cy + h * 0.32),
                      (x1 - w * 0.40, cy + h * 0.06)], fill=ink)
        draw.rectangle((x0, cy - h * 0.12, x0 + w * 0.08, cy + h * 0.12), fill=ink)
        draw.line((x0 + w * 0.25, cy, x0 + w * 0.35, cy + h * 0.25, x0 + w * 0.55, cy + h * 0.25, x1 - w * 0.40, cy),
                  fill=ink, width=max(1, lw - 1))
    elif name == "anchor":
        r = min(w, h) * 0.11
        draw.ellipse((cx - r, y0, cx + r, y0 + 2 * r), outline=ink, width=lw)
        draw.line((cx, y0 + 2 * r, cx, y1 - h * 0.05), fill=ink, width=lw + 1)
        draw.line((cx - w * 0.25, y0 + h * 0.32, cx + w * 0.25, y0 + h * 0.32), fill=ink, width=lw)
        draw.arc((x0 + w * 0.08, y0 + h * 0.20, x1 - w * 0.08, y1 - h * 0.02), 20, 160, fill=ink, width=lw + 1)
    elif name == "star":
        draw.polygon(star_points(cx, cy, min(w, h) / 2, min(w, h) / 4.6, 5), fill=ink)
    elif name == "crown":
        pts = [(0.05, 0.85), (0.05, 0.30), (0.28, 0.55), (0.5, 0.15), (0.72, 0.55), (0.95, 0.30), (0.95, 0.85)]
        draw.polygon([(x0 + px * w, y0 + py * h) for px, py in pts], fill=ink)
    elif name == "castle":
        draw.rectangle((x0 + w * 0.12, y0 + h * 0.35, x1 - w * 0.12, y1), fill=ink)
        m = (w * 0.76) / 5
        for i in (0, 2, 4):
            draw.rectangle((x0 + w * 0.12 + i * m, y0 + h * 0.12, x0 + w * 0.12 + (i + 1) * m, y0 + h * 0.36), fill=ink)
        draw.rectangle((cx - w * 0.12, y1 - h * 0.34, cx + w * 0.12, y1), fill=ground)
    elif name == "watchtower":
        draw.rectangle((cx - w * 0.22, y0 + h * 0.25, cx + w * 0.22, y1), fill=ink)
        draw.ellipse((cx - w * 0.34, y0 + h * 0.05, cx + w * 0.34, y0 + h * 0.40), fill=ink)
        draw.rectangle((cx - w * 0.07, y0 + h * 0.45, cx + w * 0.07, y0 + h * 0.62), fill=ground)
    elif name == "ship":
        draw.polygon([(x0, y0 + h * 0.62), (x1, y0 + h * 0.62), (x1 - w * 0.16, y1), (x0 + w * 0.16, y1)], fill=ink)
        draw.line((cx, y0 + h * 0.02, cx, y0 + h * 0.62), fill=ink, width=lw)
        draw.polygon([(cx + lw, y0 + h * 0.06), (cx + lw, y0 + h * 0.54), (x1 - w * 0.08, y0 + h * 0.54)], fill=ink)
        draw.polygon([(cx - lw, y0 + h * 0.16), (cx - lw, y0 + h * 0.54), (x0 + w * 0.14, y0 + h * 0.54)], fill=ink)
    elif name == "sword":
        draw.line((x0 + w * 0.15, y1 - h * 0.15, x1 - w * 0.1, y0 + h * 0.1), fill=ink, width=lw + 1)
        draw.line((x0 + w * 0.12, y1 - h * 0.45, x0 + w * 0.45, y1 - h * 0.12), fill=ink, width=lw + 1)
    elif name == "skull":
        draw.ellipse((x0 + w * 0.12, y0 + h * 0.05, x1 - w * 0.12, y0 + h * 0.75), fill=ink)
        draw.rectangle((x0 + w * 0.3, y0 + h * 0.55, x1 - w * 0.3, y1 - h * 0.05), fill=ink)
        er = min(w, h) * 0.12
        for ex in (0.37, 0.63):
            draw.ellipse((x0 + w * ex - er, y0 + h * 0.38 - er, x0 + w * ex + er, y0 + h * 0.38 + er), fill=ground)
    elif name == "flag":
        draw.line((x0 + w * 0.15, y0, x0 + w * 0.15, y1), fill=ink, width=lw)
        draw.polygon([(x0 + w * 0.15, y0), (x1, y0 + h * 0.2), (x0 + w * 0.15, y0 + h * 0.45)], fill=ink)
    elif name == "axe":
        # a woodcutter's axe (the Pioneers, 11.7): a haft and a blade
        draw.line((x0 + w * 0.2, y1 - h * 0.05, x1 - w * 0.3, y0 + h * 0.15), fill=ink, width=lw + 1)
        draw.polygon([(x1 - w * 0.42, y0 + h * 0.02), (x1 - w * 0.02, y0 + h * 0.12), (x1 - w * 0.08, y0 + h * 0.52),
                      (x1 - w * 0.32, y0 + h * 0.32)], fill=ink)
    elif name == "seal":
        # a papal seal: a disc on a cord, a cross on it
        draw.line((cx - w * 0.25, y0, cx, y0 + h * 0.3, cx + w * 0.25, y0), fill=ink, width=lw)
        r = min(w, h) * 0.36
        draw.ellipse((cx - r, y1 - 2 * r, cx + r, y1), fill=ink)
        t = max(1.0, r * 0.25)
        draw.rectangle((cx - t / 2, y1 - 2 * r + r * 0.35, cx + t / 2, y1 - r * 0.35), fill=ground)
        draw.rectangle((cx - r * 0.55, y1 - r - t / 2 - r * 0.15, cx + r * 0.55, y1 - r + t / 2 - r * 0.15), fill=ground)
    elif name == "siege":
        # a battering ram against a wall: crossed swords over a crenel
        draw.line((x0, y1, x1, y0), fill=ink, width=lw + 1)
        draw.line((x0, y0, x1, y1), fill=ink, width=lw + 1)
    else:
        raise ValueError(f"unknown icon {name!r}")


def banner(draw: ImageDraw.ImageDraw, box: Box, dots: int, ink: Colour, cloth: Colour) -> None:
    """A leader's banner: a pennant on a pole carrying 1 or 2 dots (its impact value)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    lw = max(1, round(w / 10))
    draw.line((x0 + lw, y0, x0 + lw, y1), fill=ink, width=lw)
    draw.polygon([(x0 + lw, y0), (x1, y0), (x1 - w * 0.18, y0 + h * 0.32), (x1, y0 + h * 0.64),
                  (x0 + lw, y0 + h * 0.64)], fill=cloth, outline=ink)
    r = max(1.5, min(w, h) * 0.11)
    for i in range(dots):
        dx = x0 + lw + (w * 0.75 - lw) * (i + 1) / (dots + 1)
        dy = y0 + h * 0.32
        draw.ellipse((dx - r, dy - r, dx + r, dy + r), fill=ink)


def pips(draw: ImageDraw.ImageDraw, box: Box, n: int, colour: Colour, edge: Colour) -> None:
    """``n`` small shields in a row, centred in ``box`` (a block's strength, as printed)."""
    if n <= 0:
        return
    x0, y0, x1, y1 = box
    h = y1 - y0
    pw = min(h * 0.8, (x1 - x0) / n)
    total = pw * n
    sx = (x0 + x1) / 2 - total / 2
    for i in range(n):
        bx = sx + i * pw
        draw.polygon(shield_points((bx + pw * 0.1, y0, bx + pw * 0.9, y1)), fill=colour, outline=edge)


# ---------------------------------------------------------------------------------------
# Sprites and layers


def new_rgba(w: int, h: int) -> Image.Image:
    return Image.new("RGBA", (max(1, int(w)), max(1, int(h))), (0, 0, 0, 0))


def supersampled(w: int, h: int, paint: Callable[[ImageDraw.ImageDraw, float], None], factor: int = 3) -> Image.Image:
    """An RGBA sprite painted at ``factor`` times its size and scaled down: Pillow's polygon
    fill is not anti-aliased, and small heraldry needs it to stay readable. Sprites are
    cached by their callers, so the cost is paid once per distinct piece."""
    big = new_rgba(w * factor, h * factor)
    paint(ImageDraw.Draw(big), float(factor))
    return big.resize((max(1, int(w)), max(1, int(h))), Image.Resampling.LANCZOS)


def paste(dest: Image.Image, sprite: Image.Image, xy: tuple[float, float], centre: bool = False) -> None:
    x, y = xy
    if centre:
        x -= sprite.width / 2
        y -= sprite.height / 2
    dest.alpha_composite(sprite, (round(x), round(y))) if dest.mode == "RGBA" else dest.paste(
        sprite, (round(x), round(y)), sprite)


def encode_png(img: Image.Image) -> bytes:
    """PNG bytes at a speed-tuned zlib level (no ``optimize``, which recompresses)."""
    buf = io.BytesIO()
    if img.mode not in ("RGB", "RGBA", "P", "L"):
        img = img.convert("RGB")
    img.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def blank_png(size: tuple[int, int]) -> bytes:
    """Encoding of a blank image of ``size``: the benchmark's floor for any picture."""
    return encode_png(Image.new("RGB", size, PAPER))


def cached_layer(func: Callable[..., Image.Image]) -> Callable[..., Image.Image]:
    """Cache a static layer (map without pieces...). Callers must ``copy()`` before drawing."""
    return functools.cache(func)


# ---------------------------------------------------------------------------------------
# Panels and cards


def panel(draw: ImageDraw.ImageDraw, box: Box, title: str | Sequence[str] | None = None, fill: Colour = PANEL,
          edge: Colour = PANEL_EDGE, title_size: int = 18, title_right: float | None = None) -> float:
    """A framed panel; returns the y where its content starts. The title (or its wordings,
    longest first) is fitted between the panel's left edge and ``title_right`` (default: its
    right edge), where a caller draws something else on the title's line."""
    rounded(draw, box, 10, fill, edge, 2)
    x0, y0, x1, _ = box
    if title:
        right = x1 - 12 if title_right is None else title_right
        fit_text(draw, (x0 + 12, y0 + 6, right, y0 + 8 + title_size * 1.3), title, title_size, bold=True,
                 valign="t", min_size=min(title_size, MIN_TEXT + 2))
        return y0 + 8 + title_size * 1.45
    return y0 + 10


def titled(img: Image.Image, title: str | Sequence[str], height: int = 44) -> Image.Image:
    """``img`` under a dark title bar (close-ups and side images say what they show)."""
    out = Image.new("RGB", (img.width, img.height + height), (58, 44, 36))
    out.paste(img, (0, height))
    d = ImageDraw.Draw(out)
    fit_text(d, (12, 2, img.width - 12, height - 2), title, round(height * 0.5), bold=True, fill=(255, 250, 235))
    return out


def card_frame(draw: ImageDraw.ImageDraw, box: Box, fill: Colour = PAPER, edge: Colour = INK,
               band: Colour | None = None, radius: float = 8) -> None:
    """A playing card outline with an optional coloured band along the top."""
    rounded(draw, box, radius, fill, edge, 2)
    if band is not None:
        x0, y0, x1, y1 = box
        bh = (y1 - y0) * 0.16
        draw.rounded_rectangle((x0 + 2, y0 + 2, x1 - 2, y0 + bh), radius=radius - 2, fill=band)
        draw.rectangle((x0 + 2, y0 + bh - radius, x1 - 2, y0 + bh), fill=band)


def card_back(draw: ImageDraw.ImageDraw, box: Box, colour: Colour, emblem_shape: str) -> None:
    """A face-down card: the side's colour and emblem, nothing else."""
    rounded(draw, box, 8, colour, INK, 2)
    x0, y0, x1, y1 = box
    inset = min(x1 - x0, y1 - y0) * 0.12
    draw.rounded_rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), radius=5,
                           outline=contrast_ink(colour), width=1)
    w = (x1 - x0) * 0.45
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    emblem(draw, emblem_shape, (cx - w / 2, cy - w / 2, cx + w / 2, cy + w / 2), contrast_ink(colour), colour)


def paragraph(draw: ImageDraw.ImageDraw, box: Box, s: str | Sequence[str], size: int, *, bold: bool = False,
              family: str = "sans", fill: Colour = INK, spacing: float = 1.2, min_size: float = MIN_TEXT) -> float:
    """Word-wrapped text from the top of ``box`` (:func:`fit_text`); returns the y below its
    last line."""
    fitted = fit_text(draw, box, s, size, bold=bold, family=family, fill=fill, valign="t", wrap_lines=True,
                      spacing=spacing, min_size=min_size)
    return box[1] + len(fitted.lines) * fitted.font.size * spacing


# ---------------------------------------------------------------------------------------
# Animation


def animate_gif(frames: Sequence[Image.Image], duration_ms: int | Sequence[int] = 1200,
                max_bytes: int = 10 * 1024 * 1024, width: int | None = None, min_width: int = 240) -> bytes:
    """An animated GIF (every chat client animates GIF; APNG support is patchy).

    One adaptive palette, taken from the first frame, is used for every frame so that the
    unchanged map compresses into tiny frame deltas; frames are scaled down until the file
    fits ``max_bytes`` (ValueError if even ``min_width`` does not fit).
    """
    if not frames:
        raise ValueError("an animation needs at least one frame")
    scale_width = width or frames[0].width
    while True:
        scaled = [f.convert("RGB") if f.width == scale_width else
                  f.convert("RGB").resize((scale_width, round(f.height * scale_width / f.width)),
                                          Image.Resampling.BILINEAR)
                  for f in frames]
        palette_source = scaled[0].quantize(colors=255, method=Image.Quantize.MEDIANCUT)
        quantized = [f.quantize(palette=palette_source, dither=Image.Dither.NONE) for f in scaled]
        buf = io.BytesIO()
        quantized[0].save(buf, format="GIF", save_all=True, append_images=quantized[1:],
                          duration=duration_ms, loop=0, optimize=False, disposal=1)
        data = buf.getvalue()
        if len(data) <= max_bytes:
            return data
        if scale_width <= min_width:
            raise ValueError(f"{len(frames)} frames do not fit {max_bytes} bytes even {scale_width} px wide")
        scale_width = max(min_width, int(scale_width * 0.8))
