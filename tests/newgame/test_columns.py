"""Three Columns (tests/newgame): its rules, the contract check, its pictures, and that it
joins the registries through ``engine.register`` / ``render.register`` alone."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

import engine
import render
from engine.api import RuleError, State, adapt
from engine.check import check
from tests.newgame import columns, registered, render_columns


@pytest.fixture
def game_id() -> Iterator[str]:
    with registered() as gid:
        yield gid


def play(state: State, card: str, column: str) -> State:
    return columns.apply(state, columns.active(state)[0], {"type": "play", "card": card, "column": column})


def stacked(hands: dict[str, list[str]], deck: list[str]) -> State:
    """A state with the hands and the deck given (the deck's top is its last card)."""
    state = columns.setup(1, {})
    state["hands"] = {role: list(cards) for role, cards in hands.items()}
    state["deck"] = list(deck)
    return state


@pytest.mark.rule("columns:1")
def test_setup_deals_three_hidden_cards_each_and_north_starts() -> None:
    state = columns.setup(7, {})
    assert columns.active(state) == ["north"]
    assert [len(state["hands"][r]) for r in columns.ROLES] == [3, 3] and len(state["deck"]) == 4
    assert sorted(state["deck"] + state["hands"]["north"] + state["hands"]["south"]) == sorted(columns.CARDS)
    north, south, spectator = (columns.view(state, r) for r in ("north", "south", None))
    assert north["hand"] == sorted(state["hands"]["north"], key=columns.value)
    assert not set(north["hand"]) & set(south["hand"])
    assert "hand" not in spectator and spectator["actions"] == []
    text = json.dumps(north)
    assert not any(f'"{card}"' in text for card in state["hands"]["south"] + state["deck"]), "north sees only his own"
    assert columns.setup(7, {}) == state, "the same seed deals the same cards"


@pytest.mark.rule("columns:2.1", "columns:2.3")
def test_a_turn_plays_a_card_face_up_and_draws_the_top_of_the_deck() -> None:
    state = stacked({"north": ["c1", "c5", "c9"], "south": ["c2", "c3", "c4"]}, ["c6", "c7", "c8", "c10"])
    after = play(state, "c9", "left")
    assert after["columns"]["left"]["north"] == ["c9"] and after["hands"]["north"] == ["c1", "c5", "c10"]
    assert columns.active(after) == ["south"]
    assert columns.view(after, "south")["columns"]["left"]["north"] == [9], "a played card is public"
    assert "You draw the 10." in [e["text"] for e in columns.view(after, "north")["log"]]
    assert "You draw the 10." not in [e["text"] for e in columns.view(after, "south")["log"]]
    with pytest.raises(RuleError, match="turn"):
        columns.apply(after, "north", {"type": "play", "card": "c1", "column": "left"})


@pytest.mark.rule("columns:2.2")
def test_a_side_of_a_column_holds_two_cards() -> None:
    state = stacked({"north": ["c1", "c5", "c9"], "south": ["c2", "c3", "c4"]}, [])
    state = play(play(play(state, "c1", "left"), "c2", "left"), "c5", "left")
    assert {a["column"] for a in columns.actions(state, "south")} == {"left", "middle", "right"}
    state = play(state, "c3", "middle")
    assert {a["column"] for a in columns.actions(state, "north")} == {"middle", "right"}
    with pytest.raises(RuleError) as refused:
        columns.apply(state, "north", {"type": "play", "card": "c9", "column": "left"})
    assert refused.value.rule == "2.2"


@pytest.mark.rule("columns:3")
def test_the_columns_decide_then_the_totals() -> None:
    state = stacked({"north": ["c10", "c9", "c1"], "south": ["c2", "c3", "c4"]}, [])
    for north, south in ((("c10", "left"), ("c2", "left")), (("c9", "middle"), ("c3", "middle")),
                         (("c1", "right"), ("c4", "right"))):
        state = play(play(state, *north), *south)
    outcome = columns.result(state)
    assert outcome is not None and columns.active(state) == []
    assert outcome["winner"] == "north" and outcome["score"] == {"north": 2, "south": 1}
    assert outcome["columns"] == {"left": "north", "middle": "north", "right": "south"}

    even = stacked({"north": ["c5", "c2"], "south": ["c4", "c3"]}, [])
    even = play(play(play(play(even, "c5", "left"), "c4", "left"), "c2", "right"), "c3", "right")
    assert columns.result(even) == {"winner": None, "winners": [], "reason": "columns and totals are equal",
                                    "score": {"north": 1, "south": 1}, "columns": {"left": "north", "middle": None,
                                                                                   "right": "south"}}


def test_the_contract_check_passes() -> None:
    failures = [r.problem for r in check(adapt(columns), games=6, seed=1, options={}, deep_every=2)
                if not r.ok]
    assert failures == []


def test_it_joins_the_registries_and_leaves_them(game_id: str) -> None:
    assert engine.get(game_id).title == "Three Columns"
    assert render.module(game_id) is render_columns
    with pytest.raises(ValueError, match="taken"):
        engine.register(type("Other", (), {**{n: getattr(columns, n) for n in dir(columns) if not n.startswith("_")}})())
    with pytest.raises(TypeError, match="board"):
        render.register(game_id, columns)  # rules are not pictures
    engine.unregister(game_id)
    render.unregister(game_id)
    assert game_id not in engine.GAMES
    with pytest.raises(ModuleNotFoundError):
        render.module(game_id)


def _png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG"
    return image


def test_pictures_are_drawn_from_views_and_redrawn_only_when_they_change(game_id: str) -> None:
    state = columns.setup(3, {})
    view = columns.view(state, "north")
    found = {p.kind: p for p in render.pictures(game_id, view)}
    assert list(found) == ["board", "hand"]
    drawn = render.images(game_id, view)
    assert _png(drawn["board"]).size == (render_columns.WIDTH, render_columns.HEIGHT)
    assert _png(drawn["hand"]).width == 3 * (render_columns.CARD_W + 16) + 16
    assert "hand" not in {p.kind for p in render.pictures(game_id, columns.view(state, None))}
    after = play(state, columns.actions(state, "north")[0]["card"], "right")
    again = {p.kind: p.digest for p in render.pictures(game_id, columns.view(after, "south"))}
    south_before = {p.kind: p.digest for p in render.pictures(game_id, columns.view(state, "south"))}
    assert again["board"] != south_before["board"], "a card on the table changes the board"
    assert again["hand"] == south_before["hand"], "south's hand did not change"


def test_every_view_keeps_the_other_hand_and_the_deck_hidden() -> None:
    state = columns.setup(11, {})
    views: list[dict[str, Any]] = []
    while columns.active(state):
        for role in [*columns.ROLES, None]:
            hidden = columns.concealed_ids(state, role) or set()
            shown = json.dumps(columns.view(state, role))
            assert not [card for card in hidden if f'"{card}"' in shown], (role, state)
            views.append(columns.view(state, role))
        role = columns.active(state)[0]
        state = columns.apply(state, role, columns.actions(state, role)[-1])
    assert len(views) == 3 * 10
