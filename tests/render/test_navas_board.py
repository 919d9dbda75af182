"""The 1212 board says what is true at the moment it shows (no "0 action points left" while
the turn's card is being chosen, "Game over" rather than "Round 4 · Over phase" at the end),
and its attack arrows never cover a unit's name yet stay in sight (ISSUE 12).

Views are real: played by the built-in player, or the stored golden views."""

from __future__ import annotations

import copy
import io
from typing import Any

from PIL import Image, ImageChops

from engine.navas.data import NEIGHBOURS, RING2
from render import navas
from tests.render.cases import BY_NAME, NAVAS_OPTIONS, NAVAS_SEED, game, load_views, play


def _first_view(stop: Any, role: str | None = "christian", steps: int = 5000) -> dict[str, Any]:
    module = game("navas")
    state = play(module, NAVAS_SEED, NAVAS_OPTIONS, steps, stop=lambda s: stop(module.view(s, role)))
    view: dict[str, Any] = module.view(state, role)
    return view


def test_no_action_points_while_the_turns_card_is_chosen() -> None:
    view = _first_view(lambda v: bool(v.get("turn")) and v["turn"].get("card") is None and v["stage"] == "action")
    assert view["turn"]["card"] is None and view["turn"]["ap"] == 0, "the moment this test needs"
    lines = navas.status_lines(view)
    assert not any("action point" in line and "left" in line for line in lines), lines
    assert any("choosing" in line for line in lines), lines


def test_action_points_once_the_card_is_played() -> None:
    view = _first_view(lambda v: bool(v.get("turn")) and v["turn"].get("card") is not None and v["stage"] == "action")
    lines = navas.status_lines(view)
    assert f"{view['turn']['ap']} action points left" in " ".join(lines), lines


def test_the_end_says_game_over() -> None:
    view = _first_view(lambda v: v.get("result") is not None, role=None, steps=20000)
    assert view["stage"] == "over" and view["result"]
    lines = navas.status_lines(view)
    assert lines[0] == "Game over", lines
    assert not any("Over phase" in line or "Round" in line for line in lines), lines
    winner = {"christian": "Christian", "muslim": "Muslim"}[view["result"]["winner"]]
    assert lines[1] == f"{winner} victory", lines
    navas.board(view)     # and it draws


# ---------------------------------------------------------------------------------------
# Arrows


def _pixels(view: dict[str, Any]) -> Image.Image:
    return Image.open(io.BytesIO(navas.board(view))).convert("RGB")


#: attacks from an edge zone and a middle one: every direction, one and two zones away
PAIRS = sorted({(a, b) for a in ("A2", "B4") for b in NEIGHBOURS[a] + RING2[a]})


def _units_mask(view: dict[str, Any], size: tuple[int, int]) -> Image.Image:
    """White where a unit (its marker, name, tilt and EXHAUSTED tag) is drawn opaque."""
    mask = Image.new("L", size, 0)
    for _uid, sprite, (x, y) in navas.unit_sprites(view):
        alpha = sprite.getchannel("A").point(lambda v: 255 if v == 255 else 0)
        mask.paste(255, (x, y), alpha)
    return mask


def test_arrows_never_cover_a_unit() -> None:
    """No arrow pixel lands on a unit (so never on its name), and every arrow shows."""
    base = copy.deepcopy(load_views(BY_NAME["navas_board_christian"])[0])
    base["combat"] = None
    base["last_battle"] = None
    plain = _pixels(base)
    mask = _units_mask(base, plain.size)
    assert mask.getbbox() is not None
    for a, b in PAIRS:
        view = copy.deepcopy(base)
        view["combat"] = {"kind": "standard", "attacker": "christian", "from": a, "to": b, "units": [], "cards": [],
                          "karr": None}
        drawn = _pixels(view)
        diff = ImageChops.difference(drawn, plain).convert("L").point(lambda v: 255 if v else 0)
        assert diff.getbbox() is not None, (a, b, "the arrow is not drawn at all")
        covered = ImageChops.multiply(diff, mask).getbbox()
        assert covered is None, (a, b, "an arrow is drawn over a unit at", covered)


def test_arrow_heads_stand_clear_of_every_unit() -> None:
    """The head of every arrow lies in a free band of the grid, even with every zone full
    (else it would hide under the units drawn over it)."""
    view = load_views(BY_NAME["navas_board_christian"])[0]
    three = [u for u, info in view["units"].items() if not info.get("exhausted")][:3]
    squares = []
    for zone in view["zones"]:
        one = {**view, "zones": {zone: {**view["zones"][zone], "units": three}}}
        squares += [(x, y, x + navas.UNIT, y + navas.UNIT) for x, y in navas.unit_positions(one).values()]
    assert len(squares) == 3 * 18
    for a, b in PAIRS:
        _, tip = navas.arrow_ends(a, b)
        for x0, y0, x1, y1 in squares:
            assert not (x0 - 4 <= tip[0] <= x1 + 4 and y0 - 4 <= tip[1] <= y1 + 4), (a, b, tip)
