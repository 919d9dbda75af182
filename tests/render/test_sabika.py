"""Sabika's board picture: a real PNG, drawn from a view, the same for views that are the same."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

import engine.sabika as sabika
import render
from render import sabika as picture


def _played(n: int, steps: int, **options: object) -> dict[str, Any]:
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
    colours = {c for _, c in img.convert("RGB").getcolors(1 << 20) or []}
    assert picture.PLAYER_COLOURS["blue"] in colours and picture.PLAYER_COLOURS["pink"] in colours


def test_solo_board_shows_yusuf_and_the_event() -> None:
    s = _played(1, 200, events="mixed")
    view = sabika.view(s, "blue")
    img = Image.open(io.BytesIO(render.board("sabika", view))).convert("RGB")
    assert picture.PLAYER_COLOURS["yusuf"] in {c for _, c in img.getcolors(1 << 20) or []}


def test_what_a_player_cannot_see_does_not_change_the_picture() -> None:
    s = _played(2, 60)
    view = sabika.view(s, "yellow")
    other = sabika.view(sabika.redeal(s, "yellow", 99), "yellow")
    assert other == view and picture.board(other) == picture.board(view)
    assert [p.kind for p in render.pictures("sabika", view)] == ["board"]


def _image(view: dict[str, Any]) -> Image.Image:
    return Image.open(io.BytesIO(picture.board(view))).convert("RGB")


def _count(img: Image.Image, box: tuple[float, float, float, float], colour: tuple[int, int, int]) -> int:
    region = img.crop((int(box[0]), int(box[1]), int(box[2]), int(box[3])))
    return sum(n for n, c in region.getcolors(1 << 20) or [] if c == colour)


def _area(r: tuple[float, float, float, float]) -> float:
    return (r[2] - r[0]) * (r[3] - r[1])


def test_the_viewers_workshop_is_the_large_one_and_each_opponents_small() -> None:
    """ISSUE 10: a player's picture shows his workshop large and each opponent's small; the
    workshop panels carry their owner's disc (checked in the decoded PNG, top right)."""
    s = _played(4, 150)
    for me in ("blue", "yellow", "pink", "green"):
        view = sabika.view(s, me)
        rects = picture.layout(view)
        img = _image(view)
        mine = rects[f"workshop:{me}"]
        others = [rects[f"workshop:{w}"] for w in view["seats"] if w != me]
        assert len(others) == 3 and all(_area(mine) > 2 * _area(r) for r in others)
        for who in view["seats"]:
            x0, y0, x1, _ = rects[f"workshop:{who}"]
            assert _count(img, (x1 - 40, y0 + 4, x1 - 8, y0 + 36), picture.PLAYER_COLOURS[who]) > 80, who
        # the large panel is the viewer's: his disc is there, no one else's
        x0, y0, x1, _ = mine
        assert all(_count(img, (x1 - 40, y0 + 4, x1 - 8, y0 + 36), picture.PLAYER_COLOURS[w]) == 0
                   for w in view["seats"] if w != me)


def test_a_spectator_sees_every_workshop_small() -> None:
    s = _played(3, 120)
    rects = picture.layout(sabika.view(s, None))
    areas = {_area(rects[f"workshop:{w}"]) for w in ("blue", "yellow", "pink")}
    assert len(areas) == 1
    assert _area(picture.layout(sabika.view(s, "blue"))["workshop:blue"]) > 2 * areas.pop()


def test_workshop_storehouse_items_are_drawn_in_the_item_colour() -> None:
    s = _played(3, 120)
    view = sabika.view(s, "blue")
    img = _image(view)
    rect = picture.layout(view)["workshop:blue"]
    items = [i for st in view["players"]["blue"]["stores"] for i in st["items"]] + view["players"]["blue"]["processing"]
    assert items, "the seeded game has something in blue's workshop"
    for item in set(items) - {"sugar"}:  # sugar is white like the empty boxes' paper edge; the others are distinct
        assert _count(img, rect, picture.ITEM_COLOUR[item]) > 100, item


def test_the_map_draws_each_city_in_its_colour_with_ships_and_seals() -> None:
    s = _played(1, 200, events="mixed")
    view = sabika.view(s, "blue")
    img = _image(view)
    rect = picture.layout(view)["map"]
    points = picture.map_points(rect)
    cities = view["board"]["cities"]
    for city, info in cities.items():
        x, y = points[city]
        colour = picture.C.OI.SKY if info["colour"] == "blue" else picture.C.OI.VERMILLION
        assert _count(img, (x - 16, y - 16, x + 16, y + 16), colour) > 200, city
        seal = _count(img, (x + 10, y - 28, x + 34, y - 4), (212, 175, 55))
        assert (seal > 20) == bool(info["seal"]), city
        for owner, colour in picture.PLAYER_COLOURS.items():  # each Ship in its owner's colour
            ships = _count(img, (x - 80, y - 10, x + 80, y + 10), colour)
            assert (ships > 30) == (owner in info["left"] + info["right"]), (city, owner)
    assert any(info["left"] or info["right"] for info in cities.values())


def test_a_solo_view_draws_yusufs_board_with_his_decks_as_counts() -> None:
    s = _played(1, 200, events="mixed")
    for role in ("blue", None):
        view = sabika.view(s, role)
        rects = picture.layout(view)
        assert "yusuf" in rects and _area(rects["yusuf"]) > _area(rects["workshop:blue"]) / 2
        img = _image(view)
        assert _count(img, rects["yusuf"], (60, 60, 60)) > 3 * 96 * 56 // 2  # the three face-down decks
    three = sabika.view(_played(3, 60), "blue")
    assert "yusuf" not in picture.layout(three)
    assert _count(_image(three), (0, 0, picture.WIDTH, picture.HEIGHT), (60, 60, 60)) == 0


def test_hidden_things_are_counts_only_in_every_picture() -> None:
    """Decks, piles, Yusuf's tiles and the other players' Starting tile offers: a redeal of
    what a role cannot see draws the very same bytes for that role and for the spectator."""
    for state in (sabika.setup(5, {"players": 3}), _played(3, 80), _played(1, 120, events="mixed")):
        for role in state["roles"]:  # a redeal for ``role`` keeps what ``role`` (and so a spectator) sees
            for viewer in (role, None):
                reference = picture.board(sabika.view(state, viewer))
                for k in (1, 2):
                    other = sabika.redeal(state, role, k)
                    assert picture.board(sabika.view(other, viewer)) == reference, (viewer, role, k)
