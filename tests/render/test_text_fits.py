"""Every text of every picture fits its box (issue 36).

Each game, at every seat count, is walked through a random game (tests.engine.games); at
several points the pictures that apply are drawn for the spectator and for each role, with
32-character Discord names in the players' names, and every text the drawing helpers wrote
is recorded with the box it had to fit and the font object that drew it
(``render.common.recording``: real drawing, the hook only notes it). A text whose ink,
measured with that font, leaves its box, or a box that leaves the picture, fails the test.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import engine
import render
from render import common as C
from tests.engine.games import random_game

#: A Discord display name at its longest (32 characters), wide letters.
LONG_NAMES = ["Wolfgang Maximilian von Habsburg", "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMM",
              "Doña Mencía Álvarez de Toledo WW", "The Extremely Long Player NameXX",
              "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW", "Abu Abdallah Muhammad XII Boabdi"]
assert all(len(n) == 32 for n in LONG_NAMES)

CASES: list[tuple[str, dict[str, Any]]] = [
    *[("granada_city", {"players": n}) for n in range(2, 7)],
    *[("sabika", {"players": n}) for n in range(1, 5)],
    ("granada", {}),
    ("navas", {}),
    ("navas", {"advanced": True}),
]
POINTS = 4          # evenly spaced states of the whole game drawn, its first and its last among them


def _named(view: dict[str, Any], roles: list[str]) -> dict[str, Any]:
    return {**view, "names": {r: LONG_NAMES[i % len(LONG_NAMES)] for i, r in enumerate(roles)}}


def _picks(game_id: str, states: list[Any]) -> list[int]:
    """The states drawn: evenly spaced ones from the first to the last, and the first state
    at which each kind of picture applies (a battle, a scoring...), so that every kind is drawn."""
    module = engine.get(game_id)
    picks = {round(i * (len(states) - 1) / (POINTS - 1)) for i in range(POINTS)}
    seen: set[str] = set()
    for i, state in enumerate(states):
        kinds = {p.kind for p in render.pictures(game_id, module.view(state, None))}
        if kinds - seen:
            picks.add(i)
            seen |= kinds
    return sorted(picks)


def _draw_all(game_id: str, options: dict[str, Any], seed: int) -> list[C.TextRecord]:
    module = engine.get(game_id)
    roles = list(module.roles(options))
    states = random_game(game_id, seed, options)
    picks = _picks(game_id, states)
    with C.recording() as records:
        spectator = []
        for i in picks:
            state = states[i]
            views = [_named(module.view(state, who), roles) for who in [None, *roles]]
            spectator.append(views[0])
            for view in views:
                render.images(game_id, view)
            if module.result(state) is not None:
                render.reveal(game_id, views)
        render.replay(game_id, spectator)
    return records


def _overflows(records: list[C.TextRecord]) -> list[str]:
    t = C.TEXT_TOLERANCE
    bad = []
    for r in records:
        x0, y0, x1, y1 = r.box
        # the ink measured here, with the font object that drew it, where it was drawn
        gx0, gy0, gx1, gy1 = r.font.getbbox(r.text, anchor=r.anchor, stroke_width=r.stroke)
        px, py = r.xy
        bx0, by0, bx1, by1 = px + gx0, py + gy0, px + gx1, py + gy1
        w, h = r.image_size
        where = f"{r.text!r} ({r.font.getname()[0]} {r.font.size}px) box {tuple(round(v) for v in r.box)}"
        if bx0 < x0 - t or by0 < y0 - t or bx1 > x1 + t or by1 > y1 + t:
            bad.append(f"{where} ink {(bx0, by0, bx1, by1)}")
        elif x0 < -t or y0 < -t or x1 > w + t or y1 > h + t:
            bad.append(f"{where} leaves the {w}x{h} picture")
    return bad


@pytest.mark.slow
@pytest.mark.parametrize(("game_id", "options"), CASES,
                         ids=[f"{g}-{'-'.join(f'{k}{v}' for k, v in o.items()) or 'default'}" for g, o in CASES])
def test_every_text_fits_its_box(game_id: str, options: dict[str, Any]) -> None:
    records = _draw_all(game_id, options, seed=7)
    assert records, "no text recorded: the recording hook saw nothing"
    bad = _overflows(records)
    assert not bad, f"{len(bad)} texts overflow their box:\n" + "\n".join(sorted(set(bad))[:40])


def test_six_city_spectator_shows_points_moat_and_supply_whole() -> None:
    """The issue's picture: every city panel of a 6-player spectator board says its points,
    moat and supply in full (no ellipsis, no cut), even under long names."""
    module = engine.get("granada_city")
    options = {"players": 6}
    roles = list(module.roles(options))
    state = random_game("granada_city", 11, options, stop=300)[-1]
    view = _named(module.view(state, None), roles)
    with C.recording() as records:
        render.board("granada_city", view)
    for who in roles:
        facts = (f"{view['scores'].get(who, 0)} pts · moat {view['moats'].get(who, 0)} · "
                 f"supply {len(view['supplies'].get(who, []))}")
        shown = [r for r in records if facts in r.text]
        assert shown and not any(r.ellipsized for r in shown), f"{who}: {facts!r} not shown whole"
    assert not _overflows(records)


def test_the_fitter_shortens_then_shrinks_then_ends_with_an_ellipsis() -> None:
    from PIL import Image, ImageDraw

    draw = ImageDraw.Draw(Image.new("RGB", (400, 100)))
    long, two_lines = "Red: 12 pts · moat 5 · supply 3", "Red\n12 pts · moat 5 · supply 3"
    # 16 px: the one-line wording is 246 px wide, its two-line one 206: the shorter wording
    # comes before a smaller size
    first = C.fit_text(draw, (0.0, 0.0, 225.0, 44.0), [long, two_lines], 16)
    assert (first.lines, first.font.size, first.ellipsized) == (("Red", "12 pts · moat 5 · supply 3"), 16, False)
    # unless the first wording may shrink a little first
    kept = C.fit_text(draw, (0.0, 0.0, 225.0, 44.0), [long, two_lines], 16, keep_wording_to=14)
    assert kept.lines == (long,) and kept.font.size < 16
    # no shorter wording: a smaller size
    smaller = C.fit_text(draw, (0.0, 0.0, 150.0, 20.0), "Castile and León", 24)
    assert smaller.font.size < 24 and smaller.lines == ("Castile and León",) and not smaller.ellipsized
    # too long even at the smallest size: an ellipsis, never a silent cut
    cut = C.fit_text(draw, (0.0, 0.0, 60.0, 20.0), LONG_NAMES[1], 16)
    assert cut.ellipsized and cut.lines[0].endswith(C.ELLIPSIS) and cut.font.size == C.MIN_TEXT
    for fitted in (first, kept, smaller, cut):
        assert fitted.bbox[2] <= 225 + C.TEXT_TOLERANCE
    assert cut.bbox[2] <= 60 + C.TEXT_TOLERANCE
    # an outline's halo stays inside the box too
    halo = C.fit_text(draw, (10.0, 10.0, 110.0, 40.0), "Gibraltar", 16, outline=(255, 255, 255), stroke=3)
    assert halo.bbox[0] >= 10 - C.TEXT_TOLERANCE and halo.bbox[2] <= 110 + C.TEXT_TOLERANCE


def test_pictures_draw_text_only_through_the_fitter() -> None:
    """No renderer writes text past the fitting (and so past the recording): every
    ``.text(``/``multiline_text(`` call on a drawing is in render/common.py's fit_text."""
    offenders, fitter = [], 0
    for path in sorted(Path(render.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.Module):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in ("text", "multiline_text"):
                    if path.name == "common.py" and getattr(fn, "name", "") == "fit_text":
                        fitter += 1
                    elif not isinstance(fn, ast.Module):
                        offenders.append(f"{path.name}:{node.lineno}")
    assert fitter, "render/common.py's fit_text draws no text"
    assert not offenders, f"text drawn outside render.common.fit_text: {sorted(set(offenders))}"
