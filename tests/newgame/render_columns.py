"""The pictures of Three Columns (tests/newgame/columns), standing where ``render/columns.py``
would: drawn from views only, with the shared visual language (``render.common``).

``board(view)``: the three columns, each player's cards on his side, the hands' and the
deck's sizes. ``hand(view)``: the cards the seat holds. ``image_inputs(view)`` says which
apply and what each is drawn from, so a front end redraws a picture only when it changed.
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from render import common as C

WIDTH, HEIGHT = 720, 520
CARD_W, CARD_H = 70, 98
SIDE_COLOURS = {"north": C.OI.BLUE, "south": C.OI.VERMILLION}


def image_inputs(view: dict[str, Any]) -> dict[str, Any]:
    """The board from the public part of the view; the hand, for a seat that holds cards,
    from the hand alone."""
    public = {key: view[key] for key in ("columns", "hand_sizes", "deck_size", "turn", "result")}
    inputs: dict[str, Any] = {"board": public}
    if view.get("hand"):
        inputs["hand"] = {"hand": view["hand"], "cards": view["cards"]}
    return inputs


def _card(draw: ImageDraw.ImageDraw, box: C.Box, number: int, band: C.Colour) -> None:
    C.card_frame(draw, box, band=band)
    x0, y0, x1, y1 = box
    C.fit_text(draw, (x0 + 4, y0 + (y1 - y0) * 0.2, x1 - 4, y1 - 6), str(number), 40, bold=True, align="c")


def board(view: dict[str, Any]) -> bytes:
    """The table: North's cards above the line, South's below, one column each third."""
    image = Image.new("RGB", (WIDTH, HEIGHT), C.PARCHMENT)
    draw = ImageDraw.Draw(image)
    third = WIDTH / 3
    for n, (column, sides) in enumerate(view["columns"].items()):
        x0 = n * third + 8
        top = C.panel(draw, (x0, 8, x0 + third - 16, HEIGHT - 60), column.title())
        middle = (top + HEIGHT - 60) / 2
        draw.line((x0 + 8, middle, x0 + third - 24, middle), fill=C.INK, width=2)
        owner = (view.get("result") or {}).get("columns", {}).get(column)
        if owner is not None:
            label = (x0 + 30, middle - 12, x0 + third - 46, middle + 12)
            C.rounded(draw, label, 8, C.PAPER, SIDE_COLOURS[owner], 2)
            C.fit_text(draw, label, f"{owner} takes it", 16, bold=True, fill=SIDE_COLOURS[owner], align="c")
        for role, y in (("north", middle - 14 - CARD_H), ("south", middle + 14)):
            for k, number in enumerate(sides[role]):
                left = x0 + 18 + k * (CARD_W + 12)
                _card(draw, (left, y, left + CARD_W, y + CARD_H), number, SIDE_COLOURS[role])
    sizes = view["hand_sizes"]
    status = (f"North holds {sizes['north']} · South holds {sizes['south']} · deck {view['deck_size']}"
              + (f" · {view['turn']} to play" if view.get("result") is None else " · game over"))
    C.fit_text(draw, (12, HEIGHT - 50, WIDTH - 12, HEIGHT - 10), status, 20)
    return C.encode_png(image)


def hand(view: dict[str, Any]) -> bytes:
    """The seat's own cards, face up, with their names."""
    cards = view["hand"]
    width = max(1, len(cards)) * (CARD_W + 16) + 16
    image = Image.new("RGB", (width, CARD_H + 32), C.PAPER)
    draw = ImageDraw.Draw(image)
    for k, card in enumerate(cards):
        left = 16 + k * (CARD_W + 16)
        _card(draw, (left, 16, left + CARD_W, 16 + CARD_H), view["cards"][card]["value"], C.OI.GREEN)
    return C.encode_png(C.titled(image, "Your hand", 36))
