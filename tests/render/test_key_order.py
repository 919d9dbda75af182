"""Granada (Dirk Henn) and Sabika pictures do not depend on the order of a view's keys.

The service keeps states in memory but also reads them back from the database as JSON with
sorted keys, so one move's view may reach the renderer with its dicts in another order. Each
picture the module offers (``render.pictures``) must come out byte for byte the same from
the view as the engine made it, from the same view with every dict's keys reversed, and from
the view after a sorted-keys JSON round trip.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

import engine
import render
from engine import players
from engine.rng import Generator

View = dict[str, Any]
Moment = tuple[str, int, int, int]


def _reversed_keys(value: Any) -> Any:
    """The same JSON value with every dict's keys in reverse order, at every depth."""
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


def _sorted_keys(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def _step(module: engine.GameModule, state: Any, n: int, seed: int) -> Any:
    """One move by the first active role: the built-in player on even seeds, a uniformly
    random legal action on odd ones (two kinds of game for the same seeds)."""
    role = module.active(state)[0]
    if seed % 2 == 0:
        action = players.choose(module, state, role, seed * 10_000 + n)
    else:
        action = Generator(seed * 10_000 + n).choice(module.actions(state, role))
    return module.apply(state, role, action)


@cache
def _states(game_id: str, seed: int, count: int, stops: tuple[int, ...]) -> tuple[Any, ...]:
    """States of one game at the given step numbers; for Granada also the first state right
    after a scoring (the step whose views first carry ``last_scoring``)."""
    module = engine.GAMES[game_id]
    state = module.setup(seed, {"players": count})
    out: list[Any] = []
    after_scoring = game_id == "granada_city"
    for n in range(max(stops) + 4000 * after_scoring + 1):
        if module.result(state) is not None:
            break
        if n in stops:
            out.append(state)
        if after_scoring and module.view(state, None).get("last_scoring"):
            out.append(state)
            after_scoring = False
        if n >= max(stops) and not after_scoring:
            break
        state = _step(module, state, n, seed)
    assert not after_scoring, "the game ended without a scoring"
    assert out
    return tuple(out)


def _views(game_id: str, seed: int, count: int, stops: tuple[int, ...]) -> list[View]:
    module = engine.GAMES[game_id]
    views: list[View] = []
    for state in _states(game_id, seed, count, stops):
        roles = list(module.view(state, None)["roles"])
        views += [module.view(state, role) for role in [*roles, None]]
    return views


def _check(game_id: str, views: list[View]) -> set[str]:
    kinds: set[str] = set()
    for view in views:
        for picture in render.pictures(game_id, view):
            kinds.add(picture.kind)
            drawn = picture.draw()
            for other in (_reversed_keys(view), _sorted_keys(view)):
                again = [p for p in render.pictures(game_id, other) if p.kind == picture.kind]
                assert len(again) == 1 and again[0].digest == picture.digest
                assert again[0].draw() == drawn, (picture.kind, view.get("role"))
    return kinds


def test_reversing_keys_reverses_every_dict() -> None:
    value = {"a": 1, "b": [{"c": 2, "d": 3}], "e": {"f": 4, "g": 5}}
    turned = _reversed_keys(value)
    assert turned == value
    assert list(turned) == ["e", "b", "a"]
    assert list(turned["b"][0]) == ["d", "c"] and list(turned["e"]) == ["g", "f"]


@pytest.mark.parametrize(("seed", "count"), [(1, 2), (2, 3), (3, 5)])
def test_granada_pictures_do_not_depend_on_key_order(seed: int, count: int) -> None:
    views = _views("granada_city", seed, count, (0, 25))
    assert any(v.get("last_scoring") for v in views)
    assert _check("granada_city", views) == {"board", "scoring"}


@pytest.mark.parametrize(("seed", "count"), [(1, 1), (2, 2), (3, 3), (4, 4)])
def test_sabika_pictures_do_not_depend_on_key_order(seed: int, count: int) -> None:
    views = _views("sabika", seed, count, (30, 90))
    assert any(w["at"] is not None for v in views for p in v["players"].values() for w in p["workers"].values())
    assert _check("sabika", views) == {"board"}


def _builders_share_a_square(view: View) -> bool:
    """A seat's two Builders on one square, one standing and one lying: two discs that differ
    only by the stroke across the lying one, drawn in the order of the seat's workers."""
    for p in [*view["players"].values(), *([view["yusuf"]] if view.get("yusuf") else [])]:
        one, two = p["workers"]["builder1"], p["workers"]["builder2"]
        if one["at"] is not None and one["at"] == two["at"] and one["up"] != two["up"]:
            return True
    return False


@pytest.mark.parametrize(("seed", "count"), [(1, 3), (11, 2), (21, 1)])  # random play: odd seeds
def test_sabika_builders_on_one_square_keep_their_order(seed: int, count: int) -> None:
    module = engine.GAMES["sabika"]
    state = module.setup(seed, {"players": count})
    for n in range(600):
        view = module.view(state, None)
        if _builders_share_a_square(view):
            break
        assert module.result(state) is None, "the game ended before two Builders shared a square"
        state = _step(module, state, n, seed)
    assert _builders_share_a_square(view)
    _check("sabika", [view, *(module.view(state, role) for role in view["roles"])])


@pytest.mark.parametrize(("game_id", "seed", "count", "stops"),
                         [("granada_city", 1, 2, (0, 25)), ("granada_city", 3, 5, (0, 25)),
                          ("sabika", 1, 1, (30, 90)), ("sabika", 4, 4, (30, 90))])
def test_a_state_read_back_from_the_database_draws_the_same_pictures(game_id: str, seed: int, count: int,
                                                                      stops: tuple[int, ...]) -> None:
    """As the service does: the same state held in memory and read back as sorted-keys JSON."""
    module = engine.GAMES[game_id]
    for state in _states(game_id, seed, count, stops):
        read_back = json.loads(json.dumps(state, sort_keys=True))
        for role in [*module.view(state, None)["roles"], None]:
            assert render.images(game_id, module.view(read_back, role)) == render.images(game_id,
                                                                                         module.view(state, role))
