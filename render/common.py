"""The shared visual language of every Alcazaba picture, in one namespace.

Every game draws with the same fonts, palette, block and card shapes so that a player who
knows one board reads the others (``from render import common as C``). Three constraints
shape it:

* **Colour-blind safety** (:mod:`render.palette`): Okabe-Ito colours; no fact is carried
  by hue alone (sides differ by lightness, factions by the shape of their emblem too, drawn
  by :mod:`render.shapes`).
* **Phone legibility** (this module): every text is fitted to its box by :func:`fit_text`,
  the one place that draws text, with a contrasting outline so it reads over any map colour,
  sized for an image shown ~400 px wide on a phone and zoomed in.
* **Speed** (:mod:`render.sprites`): one cached static layer per board plus cached sprites,
  encoded with a fast zlib level. Render never sees a state, only views.

This module holds the fonts, the text fitting and the panels and cards built on it; it
re-exports the palette, the shapes and the sprite helpers so a picture needs one import.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from render.palette import (
    ALERT,
    FACTIONS,
    HIGHLIGHT,
    INK,
    MUTED,
    NEUTRAL_FACTION,
    OI,
    PANEL,
    PANEL_EDGE,
    PAPER,
    PARCHMENT,
    RGB,
    RGBA,
    SIDES,
    SPECIAL_BLOCKS,
    WHITE,
    Box,
    Colour,
    FactionStyle,
    SideStyle,
    contrast_ink,
    faction_style,
    luminance,
    mix,
)
from render.shapes import (
    EMBLEMS,
    banner,
    emblem,
    icon,
    pips,
    regular_polygon,
    rounded,
    shield,
    shield_points,
    star_points,
)
from render.sprites import (
    PNG_COMPRESS_LEVEL,
    animate_gif,
    blank_png,
    cached_layer,
    encode_png,
    new_rgba,
    paste,
    supersampled,
)

FONTS_DIR = Path(__file__).with_name("fonts")
DATA_DIR = Path(__file__).with_name("data")

# Everything a picture draws with, one import away (``from render import common as C``).
__all__ = [
    "ALERT",
    "Box",
    "Colour",
    "DATA_DIR",
    "ELLIPSIS",
    "EMBLEMS",
    "FACTIONS",
    "FONTS_DIR",
    "FactionStyle",
    "Fitted",
    "HIGHLIGHT",
    "INK",
    "MIN_TEXT",
    "MUTED",
    "NEUTRAL_FACTION",
    "OI",
    "PANEL",
    "PANEL_EDGE",
    "PAPER",
    "PARCHMENT",
    "PNG_COMPRESS_LEVEL",
    "RGB",
    "RGBA",
    "SIDES",
    "SPECIAL_BLOCKS",
    "SideStyle",
    "TEXT_TOLERANCE",
    "TextRecord",
    "WHITE",
    "animate_gif",
    "banner",
    "blank_png",
    "cached_layer",
    "card_back",
    "card_frame",
    "clear_caches",
    "content_order",
    "contrast_ink",
    "emblem",
    "encode_png",
    "faction_style",
    "fit_text",
    "font",
    "icon",
    "luminance",
    "mix",
    "new_rgba",
    "panel",
    "paragraph",
    "paste",
    "pips",
    "recording",
    "regular_polygon",
    "rounded",
    "shield",
    "shield_points",
    "star_points",
    "supersampled",
    "text_width",
    "titled",
    "wrap",
]


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


