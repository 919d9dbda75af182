"""Sabika's board picture: a real PNG, drawn from a view, the same for views that are the same."""

from __future__ import annotations

import io

from PIL import Image

import engine.sabika as sabika
import render
from render import sabika as picture


def _played(n: int, steps: int, **options: object) -> dict:  # type: ignore[type-arg]
    s = sabika.setup(3, {"players": n, **options})
    for i in range(steps):
        if sabika.result(s) is not None:
            break
        role = sabika.active(s)[0]
        s = sabika.apply(s, role, sabika.choose(s, role, i))
    return s


def test_board_is_a_png_showing_the_workers_in_their_colours() -> None:
    s = _played(3, 120)
    view = sabika.view(s, "blue")
    img = Image.open(io.BytesIO(picture.board(view)))
    assert img.format == "PNG" and img.size == (picture.WIDTH, picture.HEIGHT)
    placed = [w for p in view["players"].values() for w in p["workers"].values() if w["at"] is not None]
    assert placed
    colours = {c for _, c in img.convert("RGB").getcolors(1 << 20)}
    assert picture.PLAYER_COLOURS["blue"] in colours and picture.PLAYER_COLOURS["pink"] in colours


def test_solo_board_shows_yusuf_and_the_event() -> None:
    s = _played(1, 200, events="mixed")
    view = sabika.view(s, "blue")
    img = Image.open(io.BytesIO(render.board("sabika", view))).convert("RGB")
    assert picture.PLAYER_COLOURS["yusuf"] in {c for _, c in img.getcolors(1 << 20)}


def test_what_a_player_cannot_see_does_not_change_the_picture() -> None:
    s = _played(2, 60)
    view = sabika.view(s, "yellow")
    other = sabika.view(sabika.redeal(s, "yellow", 99), "yellow")
    assert other == view and picture.board(other) == picture.board(view)
    assert [p.kind for p in render.pictures("sabika", view)] == ["board"]
