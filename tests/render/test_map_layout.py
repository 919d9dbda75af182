"""The Granada map's layout (render.granada_layout), checked from the rectangles it placed,
on the busiest moments of real games (stored views, tests/render/cases.py) and on the other
board views: a stack box sits by its own location, never over a place name, a location
marker, a badge, a fleet or another box; where it stands off, a leader line joins it to its
marker; badges (battle markers, disks) sit off every name and every other marker too. The
markers of the optional rules (Out of Supply, Pioneers) are items of their stack's box, so
every promise about a box holds for them; each lies inside its box or beside its fleets."""

from __future__ import annotations

import math
from typing import Any

import pytest

from render import granada_layout as L
from render import granada_map as M
from render.granada_board import map_layout
from render.granada_scene import scene
from tests.render.cases import BY_NAME, load_views

BOARD_CASES = [
    "granada_busiest_stacks_christian", "granada_busiest_stacks_muslim", "granada_busiest_stacks_spectator",
    "granada_busiest_blocks_christian", "granada_busiest_blocks_muslim",
    "granada_board_christian", "granada_board_muslim", "granada_board_spectator", "granada_reveal",
    "granada_battle_field", "granada_battle_siege",
    # every optional rule on: Out of Supply markers and Pioneers tiles ride in the boxes
    "granada_options_board_christian", "granada_options_board_spectator", "granada_options_late_spectator",
]


def _layout(name: str) -> tuple[dict[str, Any], L.MapLayout]:
    view = load_views(BY_NAME[name])[0]
    return view, map_layout(scene(view))


def _hits(r: L.Rect, others: dict[Any, L.Rect]) -> list[Any]:
    return [k for k, o in others.items() if L.overlaps(r, o)]


def test_the_busiest_views_are_busy() -> None:
    """The fixtures are what the test claims: the crowded moments of real games."""
    for name in ("granada_busiest_stacks_spectator", "granada_busiest_blocks_muslim"):
        view, lay = _layout(name)
        occupied = [lid for lid, e in view["locations"].items() if any((e.get("blocks") or {}).values())]
        assert len(occupied) >= 28, (name, len(occupied))
        assert len(lay.boxes) == len(occupied)


@pytest.mark.parametrize("name", BOARD_CASES)
def test_no_box_covers_a_name_a_marker_a_badge_or_another_box(name: str) -> None:
    _, lay = _layout(name)
    icons = {(lid, i): r for lid, parts in lay.icons.items() for i, r in enumerate(parts)}
    assert lay.boxes, name
    for lid, box in lay.boxes.items():
        r = box.rect
        assert r[0] >= 0 and r[1] >= 0 and r[2] <= M.WIDTH and r[3] <= M.MAP_HEIGHT, (name, lid, r)
        assert not _hits(r, lay.labels), (name, lid, "covers names", _hits(r, lay.labels))
        assert not _hits(r, lay.dots), (name, lid, "covers markers", _hits(r, lay.dots))
        assert not _hits(r, icons), (name, lid, "covers marker icons", _hits(r, icons))
        assert not _hits(r, lay.badges), (name, lid, "covers badges", _hits(r, lay.badges))
        assert not _hits(r, lay.fleets), (name, lid, "covers fleets", _hits(r, lay.fleets))
        others = {k: b.rect for k, b in lay.boxes.items() if k != lid}
        assert not _hits(r, others), (name, lid, "covers boxes", _hits(r, others))
        assert not L.overlaps(r, L.LEGEND), (name, lid, "covers the legend")


@pytest.mark.parametrize("name", BOARD_CASES)
def test_badges_sit_off_names_and_other_markers(name: str) -> None:
    view, lay = _layout(name)
    for key, r in lay.badges.items():
        assert not _hits(r, lay.labels), (name, key, _hits(r, lay.labels))
        loc = key[1] if key[0] == "battle" else view["disks"][key[1]]    # on its own marker's ring at most
        others = {k: d for k, d in lay.dots.items() if k != loc}
        assert not _hits(r, others), (name, key, _hits(r, others))
        rest = {k: b for k, b in lay.badges.items() if k != key}
        assert not _hits(r, rest), (name, key, _hits(r, rest))


@pytest.mark.parametrize("name", BOARD_CASES)
def test_optional_markers_lie_inside_their_box_or_fleet_rectangle(name: str) -> None:
    view, lay = _layout(name)
    opt = view["optional"]
    where = {f"oos:{side}:{loc}": loc for side, locs in opt["out_of_supply"].items() for loc in locs}
    where.update({f"pioneer:{t}": w for t, w in opt["pioneers"].items() if w != "eliminated"})
    assert set(lay.markers) == set(where), name
    for key, loc in where.items():
        outer = lay.fleets[loc[4:]] if loc.startswith("sea:") else lay.boxes[loc].rect
        r = lay.markers[key]
        assert outer[0] <= r[0] and outer[1] <= r[1] and r[2] <= outer[2] and r[3] <= outer[3], (name, key)


def _gap(r: L.Rect, p: tuple[float, float]) -> float:
    q = (min(max(p[0], r[0]), r[2]), min(max(p[1], r[1]), r[3]))
    return math.hypot(q[0] - p[0], q[1] - p[1])


@pytest.mark.parametrize("name", BOARD_CASES)
def test_each_box_reads_as_its_own_locations(name: str) -> None:
    """A box without a leader touches its own marker and is nearer to it than to any other;
    a box with one has the leader running from its marker to the box's edge."""
    _, lay = _layout(name)
    geo = M.geometry()
    for lid, box in lay.boxes.items():
        own = _gap(box.rect, geo.loc[lid])
        if box.leader is None:
            assert own <= L.marker_radius(lid, True) + L.LEADER_FROM + 1, (name, lid, own)
            nearest = min(geo.loc, key=lambda k: _gap(box.rect, geo.loc[k]))
            assert nearest == lid, (name, lid, "is nearer", nearest)
        else:
            start, end = box.leader
            assert math.dist(start, geo.loc[lid]) <= L.marker_radius(lid, True) + 2, (name, lid, start)
            assert _gap(box.rect, end) < 0.5, (name, lid, end)


def test_the_stacks_of_the_issue_stand_by_their_towns() -> None:
    """ISSUE 12: the Loja stack covered Archidona's and Montefrío's names, Alhama's stood
    over Loja's name, Málaga's box and badge hid "Málaga"."""
    for name in BOARD_CASES:
        _, lay = _layout(name)
        for lid in ("loja", "alhama", "malaga", "archidona", "montefrio"):
            if lid in lay.boxes:
                for other in ("loja", "alhama", "malaga", "archidona", "montefrio"):
                    assert not L.overlaps(lay.boxes[lid].rect, lay.labels[other]), (name, lid, other)
        for key, r in lay.badges.items():
            assert not L.overlaps(r, lay.labels["malaga"]), (name, key)
