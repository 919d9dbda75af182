"""Pictures of Granada (Dirk Henn): real PNGs decoded, drawn from views only, leaking nothing a
redeal could change, the free positions lettered where the player must build, six players told
apart by shape as well as colour, the scoring table after a scoring."""

from __future__ import annotations

import io
from functools import cache
from typing import Any

import pytest
from PIL import Image

import render
from engine import granada_city as game
from render import granada_city as pic

State = dict[str, Any]


@cache
def _played(players: int, seed: int = 3) -> tuple[State, State]:
    """(a state where a player must choose a position after scoring A, the state after the game's
    first 40 steps) from a game of built-in players."""
    s = game.setup(seed, {"players": players})
    early: State | None = None
    for n in range(4000):
        role = game.active(s)[0]
        s = game.apply(s, role, game.choose(s, role, n))
        if n == 40:
            early = s
        if s["scorings"] and game.view(s, role)["positions"] and len(s["cities"][role]) > 4:
            break
    assert early is not None and game.view(s, game.active(s)[0])["positions"]
    return s, early


def _png(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    img.load()
    assert img.format == "PNG"
    return img


@pytest.mark.parametrize("players", [2, 3, 6])
def test_player_and_spectator_boards_are_pngs_of_a_phone_readable_size(players: int) -> None:
    s, _ = _played(players)
    for role in [*s["roles"], None]:
        img = _png(pic.board(game.view(s, role)))
        assert img.width == pic.WIDTH and img.height >= 900
    assert render.board("granada_city", game.view(s, None)) == pic.board(game.view(s, None))


def test_pictures_leak_nothing_a_redeal_changes() -> None:
    s, _ = _played(3)
    for role in s["roles"]:
        for viewer in (role, None):
            reference = pic.board(game.view(s, viewer))
            for k in (1, 2):
                assert pic.board(game.view(game.redeal(s, role, k), viewer)) == reference


def test_the_positions_a_player_may_build_on_are_lettered_on_his_city() -> None:
    s, _ = _played(3)
    role = game.active(s)[0]
    view = game.view(s, role)
    letters = [p["label"] for p in view["positions"]]
    menu = [a["label"].split(":")[0] for a in view["actions"] if a["type"] == "position"]
    assert letters[:len(menu)] == menu  # the picture and the menu name the same cells
    with_positions = pic.draw_board(view).convert("RGB")
    without = pic.draw_board(view | {"positions": []}).convert("RGB")
    city_box = (12, pic.HEADER + 12, 812, pic.HEADER + 652)
    highlight = pic.C.HIGHLIGHT

    def count(img: Image.Image) -> int:
        crop = img.crop(city_box)
        return sum(n for n, colour in (crop.getcolors(1 << 20) or []) if colour == highlight)

    assert count(with_positions) > count(without) + 50 * len(letters)
    # the other players' pictures never show them
    other = next(r for r in s["roles"] if r != role)
    assert game.view(s, other)["positions"] == []


def test_six_players_differ_by_shape_as_well_as_colour() -> None:
    roles = game.roles({"players": 6})
    assert len({pic.PLAYER_SHAPE[r] for r in roles}) == 6
    assert len({pic.PLAYER_COLOUR[r] for r in roles}) == 6
    assert len(set(pic.CURRENCY_SHAPE.values())) == 4
    sprites = [pic.marker_sprite(r, 40).getchannel("A").tobytes() for r in roles]
    assert len(set(sprites)) == 6  # the silhouettes alone tell them apart


def test_the_scoring_picture_follows_each_scoring() -> None:
    s, early = _played(3)
    view = game.view(s, None)
    kinds = [p.kind for p in render.pictures("granada_city", view)]
    assert kinds == ["board", "scoring"]
    img = _png(pic.scoring(view))
    assert img.width >= 600 and img.height >= 500
    early_view = game.view(early, None)
    if not early_view["last_scoring"]:
        assert [p.kind for p in render.pictures("granada_city", early_view)] == ["board"]
        with pytest.raises(KeyError):
            pic.scoring(early_view)
    # the scoring picture depends only on the scoring (and the seats)
    assert pic.scoring(view | {"cities": {}, "scores": {}}) == pic.scoring(view)


def test_the_two_player_board_shows_dirks_tiles() -> None:
    s, _ = _played(2)
    view = game.view(s, "red")
    assert view["dirk"]
    shown = pic.draw_board(view)
    hidden = pic.draw_board(view | {"dirk": None})
    assert shown.height > hidden.height
