"""The "moved this turn" and "arrived this turn" dots on Granada's blocks speak of the turn
under way only. The view marks blocks moved/fresh without a turn stamp and the engine clears
the marks when the next turn's Movement Phase starts, so between turns (Reinforcement Step,
Turn Order Step, the end of the game) the view still carries last turn's marks: the board
must not show them then (ISSUE 12)."""

from __future__ import annotations

import copy
import io
from typing import Any

from PIL import Image

from engine.api import State
from render import granada
from tests.render.cases import GRANADA_SEED, game, play


def _marked(view: dict[str, Any]) -> int:
    return sum(1 for e in view["locations"].values() for blocks in (e.get("blocks") or {}).values()
               for b in blocks if (b.get("moved") or b.get("fresh")) and "shields" in b)


def _first(stop: Any) -> dict[str, Any]:
    module = game("granada")

    def when(state: State) -> bool:
        view = module.view(state, "christian")
        return bool(stop(view)) and _marked(view) > 0

    state = play(module, GRANADA_SEED, {}, 5000, stop=when)
    view = module.view(state, "christian")
    assert when(state), "the seeded game never reached the moment this test needs"
    return view


def _unmarked(view: dict[str, Any]) -> dict[str, Any]:
    """The same view with every moved/fresh mark taken off."""
    out = copy.deepcopy(view)
    for entry in out["locations"].values():
        for blocks in (entry.get("blocks") or {}).values():
            for b in blocks:
                b["moved"] = False
                b["fresh"] = False
    return out


def _marks_drawn(view: dict[str, Any]) -> bool:
    """Whether the view's marks change the board's pixels."""
    def pixels(v: dict[str, Any]) -> bytes:
        return Image.open(io.BytesIO(granada.board(v))).convert("RGB").tobytes()

    return pixels(view) != pixels(_unmarked(view))


def test_marks_show_while_their_turn_is_under_way() -> None:
    view = _first(lambda v: (v.get("frame") or {}).get("kind") == "movement")
    assert _marks_drawn(view)


def test_marks_of_last_turn_do_not_show_between_turns() -> None:
    view = _first(lambda v: (v.get("frame") or {}).get("kind") == "game")
    assert not _marks_drawn(view), "last turn's moved/arrived dots are drawn during the steps between turns"


def test_marks_do_not_show_once_the_game_is_over() -> None:
    module = game("granada")
    state = play(module, GRANADA_SEED, {}, 20000)
    view = module.view(state, None)
    assert view["result"] is not None
    assert _marked(view) > 0, "the final view still carries marks (else this test proves nothing)"
    assert not _marks_drawn(view)
