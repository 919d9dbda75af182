"""The first memos a view asks (views._PLACED for the map, views._BOXED for the boxes, issue
33): they keep copies of the records a drawing was made from and hand the drawing back when the
records compare equal. These tests draw the views of games in turn through memos small enough
to be pushed out every view or two and compare them with views drawn with nothing remembered;
and they edit a state in place between two of its views (a flag of a block on the map and of
one in a box), which a memo comparing the records' objects instead of their content would miss.
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict
from typing import Any

import pytest

import engine.granada as g
from engine.granada import state as st
from engine.granada import views
from tests.engine.granada.core_helpers import D, random_states
from tests.engine.granada.test_view_reference import check_view

ROLES = ("christian", "muslim", None)


def forget(monkeypatch: pytest.MonkeyPatch, placed: int = 512, boxed: int = 1024) -> None:
    """Every drawing memo of views.py emptied (``placed`` games kept in _PLACED, ``boxed``
    boxes a generation in _BOXED)."""
    monkeypatch.setattr(views, "_PLACED", OrderedDict())
    monkeypatch.setattr(views, "_PLACED_KEPT", placed)
    monkeypatch.setattr(views, "_BOXED", views._Memo(boxed))
    monkeypatch.setattr(views, "_DRAWN", views._Memo(8192))
    monkeypatch.setattr(views, "_BOXES", views._Memo(1024))


@pytest.mark.rule("3.1", "3.3")
def test_views_of_games_in_turn_through_small_memos_are_those_drawn_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    games = [random_states(seed, {}, 240) for seed in (4, 9, 13)]
    order = random.Random(5)
    seen: list[tuple[dict[str, Any], str | None, str]] = []
    forget(monkeypatch, placed=2, boxed=2)
    for step in range(0, 240, 7):
        for game in order.sample(games, len(games)):
            state = game[min(step, len(game) - 1)]
            for role in order.sample(ROLES, len(ROLES)):
                seen.append((state, role, json.dumps(g.view(state, role))))
    assert len(views._PLACED) <= 2
    for state, role, text in seen:
        forget(monkeypatch)
        assert json.dumps(g.view(state, role)) == text
    check_view(*seen[-1][:2], json.loads(seen[-1][2]))


@pytest.mark.rule("3.1", "3.3")
def test_a_state_edited_in_place_between_two_views_is_drawn_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    forget(monkeypatch)
    s = json.loads(json.dumps(random_states(2, {}, 160)[-1]))
    idx = st.by_location(s)
    hidden = next(bid for bid, rec in s["blocks"].items()
                  if rec["loc"] in D.locations and st.owner(bid) == "muslim" and not rec["revealed"]
                  and D.blocks[bid].colour != "grey")
    before = g.view(s, "christian")
    assert hidden not in json.dumps(before["locations"])
    s["blocks"][hidden]["revealed"] = True            # the very record the memo saw
    after = g.view(s, "christian")
    assert hidden in json.dumps(after["locations"][s["blocks"][hidden]["loc"]]), "drawn afresh: face up now"
    check_view(s, "christian", after)
    # a box: one of its blocks' flags changed in place
    box = next(name for name in ("eliminated", "palace", "boabdil_box", "captured") if idx.get(name))
    bid = idx[box][0]
    flag = not s["blocks"][bid]["moved"]
    assert [b["moved"] for b in g.view(s, None)["boxes"][box] if b["id"] == bid] == [not flag]
    s["blocks"][bid]["moved"] = flag
    assert [b["moved"] for b in g.view(s, None)["boxes"][box] if b["id"] == bid] == [flag]
