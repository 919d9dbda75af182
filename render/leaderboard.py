"""The leaderboard picture (issue 29): rank, name, rating, games and the trend over the
last games, one row per player, the reader's own row marked.

It draws plain rows handed to it by the front end (names already resolved, ratings already
on the shown scale): no game state, nothing hidden. Rows are separated by rule lines and
banded, the reader's row carries a marker and bold text, so nothing depends on colour alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from render.common import INK, OI, PAPER, PARCHMENT, encode_png, fit_text, mix

WIDTH = 760
ROW = 34
HEAD = 74
FOOT = 14
TREND_W = 150


@dataclass(frozen=True)
class Row:
    """One leaderboard line as shown."""

    rank: int
    name: str
    rating: int
    provisional: bool
    games: int
    wins: int | str
    """Games won, or any short text (a tournament's first tie-break)."""
    trend: Sequence[int] = field(default_factory=tuple)
    """The shown rating after each of the last games, oldest first."""
    mine: bool = False
    shown: str | None = None
    """Text instead of the rating (a tournament's points, e.g. '2.5')."""


def leaderboard(title: str, rows: Sequence[Row], note: str = "",
                labels: tuple[str, str, str] = ("Rating", "Games", "Won")) -> bytes:
    """The picture, as PNG bytes. ``rows``: the top lines, then (after a gap) the reader's own
    line when he is further down. ``labels``: the three number columns' heads (a tournament's
    standings: points, games, tie-break)."""
    height = HEAD + ROW * max(1, len(rows)) + FOOT + (ROW // 2 if _gap(rows) else 0)
    img = Image.new("RGB", (WIDTH, height), PAPER)
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, WIDTH, HEAD - 8), fill=PARCHMENT)
    fit_text(draw, (16, 6, WIDTH - 16, HEAD - 36), title, 24, bold=True)
    columns = {"#": 16, "Player": 64, labels[0]: 400, labels[1]: 480, labels[2]: 550, "Trend": WIDTH - TREND_W - 16}
    edges = [*columns.values(), WIDTH - 16]
    for (label, x), right in zip(columns.items(), edges[1:], strict=True):
        fit_text(draw, (x, HEAD - 34, right - 6, HEAD - 12), label, 14, bold=True, fill=mix(INK, PAPER, 0.3))
    draw.line((0, HEAD - 8, WIDTH, HEAD - 8), fill=INK, width=2)
    if not rows:
        fit_text(draw, (16, HEAD, WIDTH - 16, HEAD + ROW), note or "No rated games yet.", 16, align="c")
        return encode_png(img)
    y = HEAD
    for i, row in enumerate(rows):
        if i and row.rank > rows[i - 1].rank + 1:
            fit_text(draw, (16, y, WIDTH - 16, y + ROW // 2), "⋯", 16, align="c")
            y += ROW // 2
        _row(draw, y, row, i % 2 == 1)
        y += ROW
    if note:
        fit_text(draw, (16, y, WIDTH - 16, y + FOOT), note, 11, min_size=8, fill=mix(INK, PAPER, 0.4))
    return encode_png(img)


def _gap(rows: Sequence[Row]) -> bool:
    return any(i and r.rank > rows[i - 1].rank + 1 for i, r in enumerate(rows))


def _row(draw: ImageDraw.ImageDraw, y: int, row: Row, banded: bool) -> None:
    if row.mine:
        draw.rectangle((0, y, WIDTH, y + ROW - 1), fill=mix(OI.SKY, PAPER, 0.75))
        draw.polygon([(4, y + 9), (12, y + ROW / 2), (4, y + ROW - 9)], fill=INK)  # the reader's marker
    elif banded:
        draw.rectangle((0, y, WIDTH, y + ROW - 1), fill=mix(PARCHMENT, PAPER, 0.5))
    draw.line((0, y + ROW - 1, WIDTH, y + ROW - 1), fill=mix(INK, PAPER, 0.8))
    top, bottom = y + 2, y + ROW - 2
    fit_text(draw, (16, top, 60, bottom), str(row.rank), 17, bold=row.mine)
    fit_text(draw, (64, top, 394, bottom), row.name, 17, bold=row.mine)
    rating = row.shown if row.shown is not None else f"{row.rating}{'?' if row.provisional else ''}"
    fit_text(draw, (400, top, 474, bottom), rating, 17, bold=True)
    fit_text(draw, (480, top, 544, bottom), str(row.games), 17, bold=row.mine)
    fit_text(draw, (550, top, WIDTH - TREND_W - 22, bottom), str(row.wins), 17, bold=row.mine)
    _trend(draw, (WIDTH - TREND_W - 16, y + 6, WIDTH - 16, y + ROW - 7), row.trend)


def _trend(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], values: Sequence[int]) -> None:
    """A small line of the last ratings (a dot for one game), rising to the right when better."""
    x0, y0, x1, y1 = box
    if not values:
        return
    low, high = min(values), max(values)
    span = max(1, high - low)
    step = (x1 - x0) / max(1, len(values) - 1)
    points = [(x0 + i * step, y1 - (v - low) / span * (y1 - y0)) for i, v in enumerate(values)]
    if len(points) > 1:
        draw.line(points, fill=OI.BLUE, width=2)
    last = points[-1]
    draw.ellipse((last[0] - 3, last[1] - 3, last[0] + 3, last[1] + 3), fill=INK)


def bench_case() -> tuple[str, list[Row], str]:
    """A full board (top 20 and the reader's line) for ``alcazaba bench``'s render.leaderboard."""
    rows = [Row(i, f"Player number {i} de Castilla", 1900 - 23 * i, i > 15, 40 - i, 20 - i // 2,
                tuple(1700 + (i * 37 + k * 53) % 200 for k in range(10))) for i in range(1, 21)]
    rows.append(Row(34, "The reader", 1010, True, 3, 1, (1000, 990, 1010), mine=True))
    return "1212 · Las Navas de Tolosa · leaderboard", rows, "? provisional: fewer than about ten games"
