"""The marks the contract adapter puts on a view's actions, over random games of every game
(issue 38): ``final`` on exactly the actions whose step cannot be taken back (the service's
undo barrier: a random draw or a reveal), so that a menu warns before the step that undo will
refuse; ``forced`` on the only action of a menu that decides nothing, which the service takes
by itself. The marks come from the adapter (engine/api.py ``mark_steps``), the same for every
game, and say nothing hidden: a role's marks do not change when what it cannot see is re-dealt.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

import engine
from bot.viewkeys import FINAL_NOTE, entry_text
from engine import api
from engine.api import find_action, marked_steps, undo_barrier, view_actions
from tests.engine.games import random_game

GAMES: list[tuple[str, dict[str, Any], tuple[int, ...], int]] = [
    ("granada", {}, (1, 2), 300),
    ("navas", {}, (1, 2), 250),
    ("navas", {"advanced": True}, (3,), 250),
    ("sabika", {"players": 2}, (1,), 300),
    ("sabika", {"players": 1}, (2,), 200),
    ("granada_city", {"players": 2}, (1,), 250),
    ("granada_city", {"players": 3}, (2,), 150),
]
IDS = [f"{g}-{'-'.join(map(str, seeds))}{'-' + '-'.join(map(str, o.values())) if o else ''}"
       for g, o, seeds, _ in GAMES]


@pytest.mark.parametrize(("game_id", "options", "seeds", "stop"), GAMES, ids=IDS)
def test_every_step_that_cannot_be_taken_back_is_marked_final_and_no_other(
        game_id: str, options: dict[str, Any], seeds: tuple[int, ...], stop: int) -> None:
    module = engine.get(game_id)
    finals = forced = 0
    for seed in seeds:
        chooser = random.Random(seed)
        for state in random_game(game_id, seed, {**module.defaults(), **options}, stop):
            for role in module.active(state):
                actions = view_actions(module.view(state, role))
                for action in actions:
                    barrier = undo_barrier(state, module.apply(state, role, action))
                    assert (action.get("final") is True) == barrier, (
                        f"{game_id} seed {seed}: {action.get('label')!r} is {'not ' if barrier else ''}final "
                        "but marked otherwise")
                    assert (FINAL_NOTE in entry_text(action)) == barrier, "the entry says what the mark says"
                    finals += barrier
                marked = [a for a in actions if a.get("forced")]
                found = module.forced_step(state, role)
                assert [a.get("label") for a in marked] == ([found[0].get("label")] if found else [])
                if found is not None:
                    forced += 1
                    assert len(actions) == 1 and not undo_barrier(state, found[1])
                    assert find_action(module.actions(state, role), marked[0]) is not None
                if chooser.random() < 0.05:
                    # The marks say nothing hidden: the same after what the role cannot see is re-dealt.
                    other = module.redeal(state, role, chooser.randrange(1 << 30))
                    again = view_actions(module.view(other, role))
                    assert [(a.get("final"), a.get("forced")) for a in again] == \
                        [(a.get("final"), a.get("forced")) for a in actions]
    assert finals or game_id == "sabika", f"{game_id}: random games met no step that cannot be taken back"


def test_the_marks_never_reach_the_game() -> None:
    """A front end hands back the action it was shown, marks and all: the adapter drops them
    before the game sees it, and a recorded action never holds them."""
    module = engine.get("granada")
    state = module.setup(1, module.defaults())
    role = module.active(state)[0]
    action = view_actions(module.view(state, role))[0]
    marked = {**action, "final": True, "forced": True, "automatic": True}
    assert module.apply(state, role, marked) == module.apply(state, role, action)


@pytest.mark.parametrize(("game_id", "options", "seeds", "stop"), GAMES[:2], ids=IDS[:2])
def test_the_states_marking_reached_are_those_apply_makes_and_a_second_marking_agrees(
        game_id: str, options: dict[str, Any], seeds: tuple[int, ...], stop: int) -> None:
    """``marked_steps`` hands the service the states its marking reached (so the step need not
    apply again): each is the very state ``apply`` makes, page turns have none, and a view of
    the same content later (kept markings) gives the same marks and states, as does a marking
    made without the memo (``remember=False``), which leaves the memo as it was."""
    module = engine.get(game_id)
    compared = 0
    for state in random_game(game_id, seeds[0], options, stop=60):
        for role in module.active(state):
            actions = [dict(a) for a in module.own_view(state, role)["actions"]]
            again = [dict(a) for a in actions]
            afters = marked_steps(module, state, role, actions)
            assert marked_steps(module, copy.deepcopy(state), role, again) == afters
            assert actions == again
            unkept = [dict(a) for a in module.own_view(state, role)["actions"]]
            memo = dict(api._MARKS)
            assert marked_steps(module, state, role, unkept, remember=False) == afters
            assert unkept == actions and memo == api._MARKS, "remember=False: the same marking, the memo untouched"
            for action, after in zip(actions, afters, strict=True):
                if module.is_nav(action):
                    assert after is None
                else:
                    assert after == module.apply(state, role, action)
                    compared += 1
    assert compared > 20
