"""The pictures of Granada's optional rules (section 11), checked on the decoded PNGs of a
real game with every option on (stored views, tests/render/cases.py): each optional piece the
view gives is drawn where the picture's own geometry says, pixel for pixel (the sprite is
there, not just "something"), and a game without options draws none of it.

The markers ride in their stack boxes, so the layout's promises (tests/render/test_map_layout.py,
which runs on these boards too) cover them; here: each marker lies inside its box, clear of
the box's blocks and of the other markers."""

from __future__ import annotations

import copy
import io
from typing import Any

import pytest
from PIL import Image, ImageChops

from render import common as C
from render import granada
from render import granada_board as B
from render import granada_layout as L
from render import granada_map as M
from render import granada_pieces as P
from render.granada_extra import hand_slots, optional_effects
from render.granada_scene import piece, scene
from tests.render.cases import BY_NAME, CASES, GRANADA_SIZE, _optional_features, game, load_views

OOS_BOARDS = ["granada_options_board_christian", "granada_options_board_spectator"]      # with OOS markers
OPTIONS_BOARDS = [*OOS_BOARDS, "granada_options_late_spectator"]
PLAIN_BOARDS = [c.name for c in CASES if c.game == "granada" and not c.options and c.golden
                and c.name.startswith(("granada_board", "granada_busiest", "granada_reveal"))]


def _view(name: str) -> dict[str, Any]:
    return load_views(BY_NAME[name])[0]


def _decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img.convert("RGB")


def _board(view: dict[str, Any]) -> Image.Image:
    return _decode(granada.board(view))


def _inner(rect: tuple[float, float, float, float], inset: int) -> tuple[int, int, int, int]:
    return (round(rect[0]) + inset, round(rect[1]) + inset, round(rect[2]) - inset, round(rect[3]) - inset)


def _shows_sprite(img: Image.Image, sprite: Image.Image, at: tuple[float, float], inset: int = 3) -> bool:
    """Whether ``sprite`` (RGBA) is drawn with its top-left at ``at``: every (nearly) opaque
    pixel of its middle (``inset`` px in from its anti-aliased edge) is in the picture, to
    within the few levels an alpha of 250-255 blends in (and they are most of it)."""
    x, y = round(at[0]), round(at[1])
    w, h = sprite.size
    drawn = img.crop((x + inset, y + inset, x + w - inset, y + h - inset))
    middle = sprite.crop((inset, inset, w - inset, h - inset))
    opaque = middle.getchannel("A").point(lambda a: 255 if a >= 250 else 0)
    if sum(1 for a in opaque.tobytes() if a) < 0.8 * opaque.width * opaque.height:
        return False
    diff = ImageChops.difference(drawn, middle.convert("RGB")).convert("L").point(lambda v: 255 if v > 6 else 0)
    return ImageChops.multiply(diff, opaque).getbbox() is None


def _canvas(rect: L.Rect) -> tuple[float, float]:
    """A map rectangle's top-left on the board canvas (the map is under the header)."""
    return (rect[0], rect[1] + M.HEADER)


# ---------------------------------------------------------------------------------------
# The fixtures are what the tests claim


@pytest.mark.rule("11.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8")
def test_the_fixture_shows_every_optional_piece() -> None:
    view = _view("granada_options_board_christian")
    assert view["optional"]["rules"] == sorted(
        ["mercenaries", "papal_bull", "general_mobilization", "boabdil_captured_card", "naval_bombardment",
         "out_of_supply", "pioneers", "sortie"])
    features = _optional_features(view)
    assert all(features.values()), features


# ---------------------------------------------------------------------------------------
# The map: Out of Supply markers, Pioneers tiles


@pytest.mark.rule("11.8")
@pytest.mark.parametrize("name", OOS_BOARDS)
def test_each_out_of_supply_marker_is_drawn_on_its_stack(name: str) -> None:
    view = _view(name)
    lay = B.map_layout(scene(view))
    img = _board(view)
    wanted = [f"oos:{side}:{loc}" for side, locs in view["optional"]["out_of_supply"].items() for loc in locs]
    assert wanted
    sprite = P.marker_sprite("oos", "", L.BLOCK)
    for key in wanted:
        loc = key.split(":")[2]
        assert key in lay.markers, key
        assert _inside(lay.markers[key], lay.boxes[loc].rect), key
        assert _shows_sprite(img, sprite, _canvas(lay.markers[key])), f"no Out of Supply marker drawn for {key}"


@pytest.mark.rule("11.7")
@pytest.mark.parametrize("name", OPTIONS_BOARDS)
def test_each_pioneers_tile_is_drawn_where_the_view_puts_it(name: str) -> None:
    view = _view(name)
    lay = B.map_layout(scene(view))
    img = _board(view)
    tiles = {t: w for t, w in view["optional"]["pioneers"].items() if w != "eliminated"}
    assert tiles
    for tile, where in tiles.items():
        key = f"pioneer:{tile}"
        rect = lay.markers[key]
        if where.startswith("sea:"):
            assert _inside(rect, lay.fleets[where[4:]]), key
        else:
            assert _inside(rect, lay.boxes[where].rect), key
        assert _shows_sprite(img, P.marker_sprite("pioneer", tile, L.BLOCK), _canvas(rect)), f"{tile} not drawn"


@pytest.mark.rule("11.7")
def test_a_pioneers_tile_carried_at_sea_stands_beside_its_fleets() -> None:
    """No seeded game carried a tile by sea, so the view of one moves P1 aboard a fleet the
    real view has: the tile is drawn right of the zone's fleets, inside the rectangle the
    layout keeps clear for them, over none of them."""
    view = copy.deepcopy(_view("granada_options_board_christian"))
    zone, entry = next((z, e) for z, e in sorted(view["seas"].items()) if e["fleets"])
    view["optional"]["pioneers"]["P1"] = f"sea:{zone}"
    lay = B.map_layout(scene(view))
    rect = lay.markers["pioneer:P1"]
    assert _inside(rect, lay.fleets[zone])
    x, y = M.geometry().sea[zone]
    fleets_right = x + len(entry["fleets"]) * L.FLEET_STEP / 2
    assert rect[0] >= fleets_right, "the tile stands clear of the fleets, on their right"
    assert _shows_sprite(_board(view), P.marker_sprite("pioneer", "P1", L.BLOCK), _canvas(rect))


def _inside(inner: L.Rect, outer: L.Rect) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


@pytest.mark.parametrize("name", OPTIONS_BOARDS)
def test_markers_keep_clear_of_the_blocks_of_their_box_and_of_each_other(name: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A marker takes an item's place in its stack's rows: with the markers left undrawn,
    each marker's place is bare plate (the blocks are drawn around it, not under it)."""
    view = _view(name)
    lay = B.map_layout(scene(view))
    keys = list(lay.markers)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            assert not L.overlaps(lay.markers[a], lay.markers[b]), (a, b)
    monkeypatch.setattr(B, "_draw_markers", lambda *args: None)
    bare = _board(view)
    land = [k for k in keys if k.startswith("oos:") or not view["optional"]["pioneers"][k[8:]].startswith("sea:")]
    assert land
    for key in land:
        x, y = _canvas(lay.markers[key])
        colours = bare.crop(_inner((x, y, x + L.BLOCK, y + L.BLOCK), 1)).getcolors()
        assert colours is not None and [c for _, c in colours] == [B.PLATE], (key, colours)


@pytest.mark.rule("11.8")
def test_the_markers_come_from_the_view() -> None:
    """Take the Out of Supply markers out of the view: the board no longer draws them."""
    view = copy.deepcopy(_view("granada_options_board_christian"))
    lay = B.map_layout(scene(view))
    keys = [k for k in lay.markers if k.startswith("oos:")]
    view["optional"]["out_of_supply"] = {"christian": [], "muslim": []}
    img = _board(view)
    sprite = P.marker_sprite("oos", "", L.BLOCK)
    assert keys
    assert not any(k.startswith("oos:") for k in B.map_layout(scene(view)).markers)
    for key in keys:
        assert not _shows_sprite(img, sprite, _canvas(lay.markers[key])), key


# ---------------------------------------------------------------------------------------
# The strip: Mercenaries in their boxes, the Papal Bull and the Crusaders; the Turn track


@pytest.mark.rule("11.1")
def test_mercenaries_waiting_in_their_box_are_drawn_face_up() -> None:
    view = _view("granada_options_board_christian")
    sc = scene(view)
    img = _board(view)
    slots = B.mercenary_slots(sc)
    waiting = [b for bs in view["optional"]["mercenaries"].values() for b in bs]
    assert waiting and len(slots) == len(waiting)
    for block in waiting:
        p = piece(block, public=True)
        assert p.face is not None and p.face.special == "mercenaries"
        r = slots[p.key]
        assert _shows_sprite(img, P.block_sprite(p.face, p.colour, B.OPT_BLOCK), (r[0], r[1])), block["id"]


@pytest.mark.rule("11.2")
def test_papal_bull_and_crusaders_beside_the_board() -> None:
    view = _view("granada_options_board_spectator")
    sc = scene(view)
    img = _board(view)
    slots = B.bull_slots(sc)
    card = view["optional"]["papal_bull"]["card"]
    assert card == "CX1"
    r = slots[card]
    assert _shows_sprite(img, P.card_sprite(card, B.OPT_CARD_SCALE), (r[0], r[1]), inset=4)
    assert sc.optional is not None
    for p in sc.optional.crusaders:
        assert p.face is not None and p.face.special == "crusaders"
        r = slots[p.key]
        assert _shows_sprite(img, P.block_sprite(p.face, p.colour, B.OPT_BLOCK), (r[0], r[1])), p.key


@pytest.mark.rule("11.2")
def test_the_papal_bull_window_is_marked_on_the_turn_track() -> None:
    """A purple bracket spans the Turn track from 1487-1488 (11.2) to its end."""
    view = _view("granada_options_board_christian")
    sc = scene(view)
    img = _board(view)
    box = B.bull_bracket(sc)
    assert box is not None
    first_cell = next(b for yi, _t, b in B._track_cells(1.0) if yi == 4)      # 1487-1488
    last_cell = B._track_cells(1.0)[-1][2]
    assert (box[0], box[2]) == (first_cell[0], last_cell[2])
    x0, y0, x1, y1 = (round(v) for v in box)
    purple = sum(1 for x in range(x0, x1 + 1) for y in range(y0, y1 + 1) if img.getpixel((x, y)) == B.BULL_INK)
    assert purple >= (x1 - x0) * 2, purple        # the bracket's 3 px line across the eligible years
    # without the Papal Bull the same spot is bare track
    view["optional"] = dict(view["optional"], papal_bull=None, rules=[r for r in view["optional"]["rules"]
                                                                        if r != "papal_bull"])
    bare = _board(view)
    assert not any(bare.getpixel((x, y)) == B.BULL_INK for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


@pytest.mark.rule("11.3")
def test_cards_removed_from_play_are_drawn() -> None:
    view = _view("granada_options_late_spectator")
    removed = [c["id"] for c in view["optional"]["removed_cards"]]
    assert removed == ["CX2"], "General Mobilization played as an event and removed (11.3)"
    assert "eliminated" in view["optional"]["pioneers"].values()
    img = _board(view)
    slots = B.removed_slots(scene(view))
    r = slots["CX2"]
    assert _shows_sprite(img, P.card_sprite("CX2", B.REMOVED_SCALE), (r[0], r[1]), inset=3)


@pytest.mark.rule("11.2")
def test_a_played_papal_bull_leaves_a_grey_bracket_and_no_card() -> None:
    """Once played (``card`` None, 11.2: removed from play) the track's bracket turns grey
    and the card is no longer beside the board."""
    view = copy.deepcopy(_view("granada_options_board_christian"))
    view["optional"]["papal_bull"]["card"] = None
    view["optional"]["crusaders"] = []
    sc = scene(view)
    assert "CX1" not in B.bull_slots(sc)
    img = _board(view)
    box = B.bull_bracket(sc)
    assert box is not None
    x0, y0, x1, y1 = (round(v) for v in box)
    pixels = [img.getpixel((x, y)) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    assert B.BULL_INK not in pixels
    assert sum(1 for p in pixels if p == C.MUTED) >= (x1 - x0) * 2


@pytest.mark.rule("11.1.1")
def test_mercenaries_of_one_coalition_only() -> None:
    """11.1.1 (a real game set up with ``mercenaries: christian``): only the Christian
    Mercenaries wait in their box and are drawn; no other optional piece is."""
    module = game("granada")
    view = module.view(module.setup(1, {"mercenaries": "christian"}), None)
    assert view["optional"]["rules"] == ["mercenaries"]
    sc = scene(view)
    slots = B.mercenary_slots(sc)
    assert sorted(slots) == ["O1", "O2"]
    img = _board(view)
    assert img.size == (M.WIDTH, M.HEIGHT + B.OPT_H)
    assert sc.optional is not None
    for p in sc.optional.mercenaries["christian"]:
        assert p.face is not None
        r = slots[p.key]
        assert _shows_sprite(img, P.block_sprite(p.face, p.colour, B.OPT_BLOCK), (r[0], r[1]))
    assert B.map_layout(sc).markers == {} and B.bull_bracket(sc) is None and B.bull_slots(sc) == {}


# ---------------------------------------------------------------------------------------
# The hand: optional cards as printed; the battle board


@pytest.mark.rule("11.6")
def test_optional_cards_in_the_hand_are_drawn_with_their_faces() -> None:
    view = _view("granada_options_hand_christian")
    img = _decode(granada.hand(view))
    ids = [c["id"] for c in view["hand"]]
    optional = [c for c in ids if c in {"CX2", "CX3", "CX4"}]
    assert optional
    slots = hand_slots(len(ids))
    for cid in optional:
        r = slots[ids.index(cid)]
        assert _shows_sprite(img, P.card_sprite(cid), (r[0], r[1]), inset=4), cid
    # an optional card's face is its own (a caption naming its rule), not a generic card
    assert P.card_sprite("CX4").tobytes() != P.card_sprite("C65").tobytes()


@pytest.mark.rule("11.7")
def test_the_siege_board_shows_the_pioneers_tile_and_the_sortie() -> None:
    view = _view("granada_options_siege_sortie")
    b = scene(view).battle
    assert b is not None and b.pioneer and b.sortie
    att = b.attacker or "christian"
    dfn = b.defender or "muslim"
    assert [t for t, _ in optional_effects(b, att)] == [b.pioneer]
    assert any("Sortie" in line for _, line in optional_effects(b, dfn))
    img = _decode(granada.battle(view))
    # the attacker's column (left) carries the Pioneers tile beside his name
    assert _shows_sprite(img, P.marker_sprite("pioneer", b.pioneer, 20), (20 + 62, 200 + 62), inset=2)
    plain = copy.deepcopy(view)
    plain["battle"]["pioneer"] = None
    plain["battle"]["sortie"] = 0
    assert _decode(granada.battle(plain)).tobytes() != img.tobytes()


@pytest.mark.rule("11.6")
def test_the_battle_board_shows_a_naval_bombardment() -> None:
    view = _view("granada_options_battle_bombardment")
    b = scene(view).battle
    assert b is not None and b.bombardment
    side, n = next(iter(b.bombardment.items()))
    assert any(f"Naval Bombardment: +{n} impacts" in line for _, line in optional_effects(b, side))
    assert "CX4" in b.cards.get(side, []) or "MX3" in b.cards.get(side, []), "the card is in the battle discard"
    plain = copy.deepcopy(view)
    plain["battle"]["naval"] = {}
    assert _decode(granada.battle(plain)).tobytes() != _decode(granada.battle(view)).tobytes()


# ---------------------------------------------------------------------------------------
# A game without options draws none of it


@pytest.mark.parametrize("name", PLAIN_BOARDS)
def test_a_game_without_options_draws_no_optional_piece(name: str) -> None:
    view = _view(name)
    assert view["optional"]["rules"] == []
    sc = scene(view)
    assert sc.optional is None
    assert B.map_layout(sc).markers == {}
    assert B.bull_bracket(sc) is None and B.mercenary_slots(sc) == {} and B.bull_slots(sc) == {}
    assert _board(view).size == GRANADA_SIZE, "no strip of optional rules under the panel"


def test_the_strip_is_there_only_with_optional_rules() -> None:
    view = _view("granada_options_board_christian")
    assert _board(view).size == (M.WIDTH, M.HEIGHT + B.OPT_H)
    x0, y0, x1, y1 = B.MERC_BOX
    strip = _board(view).crop((round(x0), round(y0), round(x1), round(y1)))
    assert len(strip.getcolors(maxcolors=1 << 16) or []) > 20, "the strip has its panels drawn"
