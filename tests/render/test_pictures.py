"""``render.pictures`` / ``render.images`` / ``render.replay``: the game-independent entry
points front ends use. Which kinds apply to a view, that each drawn picture is a real image
of its kind, and that a picture's digest covers everything the picture is drawn from (a
front end that skips an unchanged digest never shows a stale picture)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

import render
from engine.players import choose
from tests.render import cases
from tests.render.cases import BY_NAME, load_views


def _view(name: str, n: int = 0) -> dict[str, Any]:
    return load_views(BY_NAME[name])[n]


def _kinds(game_id: str, view: dict[str, Any]) -> list[str]:
    return [p.kind for p in render.pictures(game_id, view)]


def test_kinds_that_apply_to_each_view() -> None:
    assert _kinds("granada", _view("granada_board_christian")) == ["board", "hand"]
    assert _kinds("granada", _view("granada_board_spectator")) == ["board"], "a spectator holds no cards"
    assert _kinds("granada", _view("granada_battle_siege")) == ["board", "hand", "battle"]
    assert _kinds("granada", _view("granada_reveal")) == ["board", "reveal"]
    assert _kinds("navas", _view("navas_board_muslim")) == ["board", "hand"]
    assert _kinds("navas", _view("navas_board_spectator")) == ["board"]
    assert [p.title for p in render.pictures("granada", _view("granada_battle_field"))] == [
        "board", "hand", "battle board"]


def test_images_are_the_game_module_pictures() -> None:
    from render import granada

    view = _view("granada_battle_naval")
    drawn = render.images("granada", view)
    assert list(drawn) == ["board", "hand", "battle"]
    assert drawn["board"] == granada.board(view) == render.board("granada", view)
    assert drawn["hand"] == granada.hand(view)
    assert drawn["battle"] == granada.battle(view)
    for kind, data in drawn.items():
        img = Image.open(io.BytesIO(data))
        img.load()
        assert img.format == "PNG" and img.width >= 800, kind
    reveal = render.images("granada", _view("granada_reveal"))["reveal"]
    assert Image.open(io.BytesIO(reveal)).size == cases.GRANADA_SIZE


def _overlay(game_id: str, kind: str, view: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``other`` overlaid with the part of ``view`` its ``kind`` picture is drawn from: every
    other key (and every other entry of a narrowed key) comes from another moment."""
    inputs = render.module(game_id).image_inputs(view)[kind]
    return {**other, **inputs}


@pytest.mark.parametrize("game_id,name,other_name", [
    ("granada", "granada_battle_field", "granada_board_christian"),
    ("granada", "granada_battle_siege", "granada_hand_muslim"),
    ("navas", "navas_board_christian", None),
])
def test_a_picture_depends_only_on_what_its_digest_covers(game_id: str, name: str, other_name: str | None) -> None:
    view = _view(name)
    if other_name is not None:
        other = _view(other_name)
    else:  # another moment of a 1212 game, same role
        other = cases.game("navas").view(cases.play(cases.game("navas"), 5, cases.NAVAS_OPTIONS, 25), view["role"])
    assert other["role"] == view["role"] and other != view
    pictures = render.pictures(game_id, view)
    others = {p.kind: p for p in render.pictures(game_id, other)}
    changed = 0
    for picture in pictures:
        mixed = _overlay(game_id, picture.kind, view, other)
        again = {p.kind: p for p in render.pictures(game_id, mixed)}[picture.kind]
        assert again.digest == picture.digest, picture.kind
        assert again.draw() == picture.draw(), f"the {picture.kind} reads a key outside its digest"
        if picture.kind in others and others[picture.kind].digest != picture.digest:
            changed += 1
            assert others[picture.kind].draw() != picture.draw()
    assert changed >= 2, "the two moments differ on the board and in the hand"


def test_digest_changes_with_the_hand_and_not_with_the_log() -> None:
    view = _view("granada_hand_muslim")
    hand = {p.kind: p.digest for p in render.pictures("granada", view)}
    fewer = {**view, "hand": view["hand"][1:]}
    assert {p.kind: p.digest for p in render.pictures("granada", fewer)}["hand"] != hand["hand"]
    chatter = {**view, "log": [*view["log"], {"text": "Muslims pass."}], "prompt": "Waiting for Christians."}
    assert {p.kind: p.digest for p in render.pictures("granada", chatter)} == hand


def _spectator_views_of_the_seeded_game() -> Iterator[dict[str, Any]]:
    module = cases.game("granada")
    state = module.setup(cases.GRANADA_SEED, {})
    yield module.view(state, None)
    n = 0
    while module.active(state):
        role = module.active(state)[0]
        state = module.apply(state, role, choose(module, state, role, cases.GRANADA_SEED * 100_003 + n))
        n += 1
        yield module.view(state, None)


def test_replay_keeps_the_first_view_of_each_turn_and_the_last() -> None:
    frames = render.replay_frames("granada", _spectator_views_of_the_seeded_game())
    expected = list(cases.granada_turn_views())
    if expected[-1] == expected[-2]:
        expected.pop()
    assert frames == expected
    turns = [(v["year"], v["turn"]) for v in frames]
    assert turns[0] == (0, 2) and frames[-1]["result"] is not None
    assert len(set(turns)) == len(turns) - (1 if turns[-1] == turns[-2] else 0)


def test_replay_animation_and_games_without_one() -> None:
    views = load_views(BY_NAME["granada_replay"])[:3]
    data = render.replay("granada", iter(views))
    assert data is not None
    img = Image.open(io.BytesIO(data))
    assert img.format == "GIF" and getattr(img, "n_frames", 1) == 3
    assert render.replay("navas", iter([_view("navas_board_spectator")])) is None
    assert render.replay_frames("navas", [_view("navas_board_spectator")]) == []
    assert render.replay("granada", iter([])) is None


def _concealed(view: dict[str, Any]) -> int:
    """Blocks drawn plain (identity unknown) on the map, at sea and in the recruitment boxes."""
    from render.granada_scene import scene

    sc = scene(view)
    places = [*sc.stacks.values(), *sc.seas.values(), *sc.recruit.values()]
    return sum(1 for pieces in places for p in pieces if p.face is None)


def test_final_reveal_from_one_end_of_game_view() -> None:
    """The game's end shows every block to everyone: the spectator's final view alone draws
    the whole reveal (the stored case, and the real end of the seeded game)."""
    from render import granada

    view = _view("granada_reveal")
    assert view["role"] is None and view["result"] is not None
    assert _concealed(view) == 0
    data = render.reveal("granada", [view])
    assert data is not None and data == granada.reveal(view)
    assert Image.open(io.BytesIO(data)).size == cases.GRANADA_SIZE
    module = cases.game("granada")
    final = cases.granada_final_state()
    for role in (None, "christian", "muslim"):
        live = module.view(final, role)
        assert _concealed(live) == 0, f"{role or 'spectator'} final view hides a block"
        assert [p.kind for p in render.pictures("granada", live)][-1] == "reveal"
    assert render.reveal("navas", [_view("navas_board_spectator")]) is None


def test_reveal_of_a_game_stopped_midway_merges_the_players_views() -> None:
    """A resignation ends the game with no result in the rules: each view still hides the
    opponent's blocks, and the players' views together complete the reveal."""
    from render import granada
    from render.granada_extra import merge_views
    from render.granada_scene import scene

    module = cases.game("granada")
    state = cases.granada_state()
    views = [module.view(state, role) for role in (None, "christian", "muslim")]
    assert _concealed(views[0]) > 0
    merged = merge_views(scene(views[0]), [scene(v) for v in views[1:]])
    assert all(p.face is not None for ps in [*merged.stacks.values(), *merged.seas.values()] for p in ps)
    assert granada.reveal(*views) == render.reveal("granada", views) != granada.reveal(views[0])
