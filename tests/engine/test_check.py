"""The project's own contract check (engine/check.py): it passes the real games and the toy
game, and it catches each broken promise when one is planted in the toy game."""

from __future__ import annotations

import random
import types
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine.api import Action, State, View, clone
from engine.check import as_json, check_all, play_one
from tests.bot import toygame


def broken(**overrides: Callable[..., Any]) -> Any:
    """The toy game with some of its functions replaced."""
    module = types.SimpleNamespace(**{name: getattr(toygame, name) for name in (
        "id", "title", "OPTIONS", "roles", "setup", "active", "actions", "apply", "view", "result", "redeal")})
    for name, function in overrides.items():
        setattr(module, name, function)
    return module


def problem(module: Any, games: int = 3, deep_every: int = 1) -> str:
    report = check_all(module, games=games, seed=1, deep_every=deep_every)
    assert not report.ok, "the planted fault went unnoticed"
    text = report.failures[0].problem
    assert text is not None
    return text


@pytest.mark.parametrize("game", sorted(g for g in engine.GAMES if g != "toy"))
def test_the_registered_games_pass(game: str) -> None:
    report = check_all(engine.get(game), games=2, seed=1)
    assert report.ok, [g.problem for g in report.failures]
    assert all(g.result is not None and g.steps > 10 for g in report.games)


def test_the_advanced_variant_of_1212_passes() -> None:
    report = check_all(engine.get("navas"), games=2, seed=7, options={"advanced": True})
    assert report.ok, [g.problem for g in report.failures]
    assert report.options == {"advanced": True}


def test_the_toy_game_passes_with_every_check_at_every_step() -> None:
    report = check_all(broken(), games=5, seed=1, deep_every=1)
    assert report.ok, [g.problem for g in report.failures]


def test_apply_that_changes_its_input_is_caught() -> None:
    def apply(state: State, role: str, action: Action) -> State:
        new = toygame.apply(state, role, action)
        state["pending"] = -99
        return new

    assert "apply changed its input state" in problem(broken(apply=apply))


def test_a_view_that_is_not_json_is_caught() -> None:
    def view(state: State, role: str | None) -> View:
        return {**toygame.view(state, role), "hand_set": {1, 2}}

    assert "is not JSON-serialisable" in problem(broken(view=view))


def test_a_state_with_tuples_is_caught() -> None:
    def setup(seed: int, options: dict[str, Any]) -> State:
        return {**toygame.setup(seed, options), "corner": (1, 2)}

    assert "does not survive a JSON round trip" in problem(broken(setup=setup))


def test_a_private_line_in_another_role_s_view_is_caught() -> None:
    def view(state: State, role: str | None) -> View:
        return {**toygame.view(state, role), "log": clone(state["log"])}

    assert "shows a log line addressed to" in problem(broken(view=view))


def test_a_view_sharing_a_part_of_the_state_is_caught() -> None:
    """The service hands views out without copying them: a front end editing its view
    must not edit the game."""

    def view(state: State, role: str | None) -> View:
        return {**toygame.view(state, role), "score": state["score"]}

    assert "shares a list or dict with the state" in problem(broken(view=view))


def test_views_sharing_a_part_with_each_other_are_caught() -> None:
    board = {"cells": [1, 2, 3]}

    def view(state: State, role: str | None) -> View:
        return {**toygame.view(state, role), "board": board}

    assert "two views of 'red' share a list or dict" in problem(broken(view=view))


def test_a_view_that_leaks_the_opponent_s_hand_is_caught_by_redeal() -> None:
    def view(state: State, role: str | None) -> View:
        return {**toygame.view(state, role), "all_hands": clone(state["hands"])}

    assert "changes when what it cannot see is re-dealt" in problem(broken(view=view))


def test_a_view_that_depends_on_the_order_of_the_state_s_keys_is_caught() -> None:
    """The service keeps states as JSON with sorted keys (bot.models.dumps): a view built by
    walking a dict in insertion order shows something else once the game is read back."""

    def setup(seed: int, options: dict[str, Any]) -> State:
        return {**toygame.setup(seed, options), "seen": {"zeta": 1, "alpha": 2}}

    def view(state: State, role: str | None) -> View:
        return {**toygame.view(state, role), "seen_order": list(state["seen"])}

    assert "changes when the state is read back from storage" in problem(broken(setup=setup, view=view))


def test_a_step_that_depends_on_the_order_of_the_state_s_keys_is_caught() -> None:
    """A log line written by walking a dict in insertion order differs once the game is read
    back: a reloaded game would record another state than a replay computes."""

    def setup(seed: int, options: dict[str, Any]) -> State:
        return {**toygame.setup(seed, options), "seen": {"zeta": 1, "alpha": 2}}

    def apply(state: State, role: str, action: Action) -> State:
        new = toygame.apply(state, role, action)
        new["log"].append({"text": " ".join(state["seen"])})
        return new

    assert "gives another state when the state is read back" in problem(broken(setup=setup, apply=apply))


def test_a_made_up_action_that_is_accepted_is_caught() -> None:
    def apply(state: State, role: str, action: Action) -> State:
        if str(action.get("type", "")).startswith("__") or not action:
            return clone(state)
        return toygame.apply(state, role, action)

    assert "a made-up action" in problem(broken(apply=apply))


def test_a_refusal_that_is_not_a_rule_error_is_caught() -> None:
    def apply(state: State, role: str, action: Action) -> State:
        if role not in toygame.ROLES:
            raise KeyError(role)
        return toygame.apply(state, role, action)

    assert "raised KeyError" in problem(broken(apply=apply))


def test_an_idle_role_that_may_act_is_caught() -> None:
    def apply(state: State, role: str, action: Action) -> State:
        return toygame.apply(state, state["turn"], action)  # whoever asks plays for the mover

    assert "played by idle" in problem(broken(apply=apply))


def test_a_dead_end_is_caught() -> None:
    def actions(state: State, role: str) -> list[Action]:
        return [] if state["score"][role] > 0 else toygame.actions(state, role)

    assert "dead end" in problem(broken(actions=actions), deep_every=1000)


def test_a_game_that_never_ends_is_caught() -> None:
    report = play_one(broken(), 1, {"target": 10**9}, max_steps=50)
    assert report.problem == "step 50: no result after 50 steps"


def test_a_game_that_depends_on_something_else_than_its_seed_is_caught() -> None:
    outside = random.Random(4)

    def apply(state: State, role: str, action: Action) -> State:
        new = toygame.apply(state, role, action)
        new["noise"] = outside.random()
        return new

    assert "not deterministic" in problem(broken(apply=apply), deep_every=1000)


def test_a_view_whose_actions_differ_from_actions_is_caught() -> None:
    def view(state: State, role: str | None) -> View:
        shown = toygame.view(state, role)
        return {**shown, "actions": shown["actions"][:1]}

    assert "lists other actions than actions() gives" in problem(broken(view=view))


def test_a_result_while_someone_may_act_is_caught() -> None:
    def result(state: State) -> dict[str, Any] | None:
        return {"winner": "red"} if state["score"]["red"] > 0 else toygame.result(state)

    def active(state: State) -> list[str]:
        return [state["turn"]]

    assert "has a result but" in problem(broken(result=result, active=active), deep_every=1000)


def test_as_json_is_canonical() -> None:
    assert as_json({"b": 1, "a": [1, 2]}, "x") == '{"a":[1,2],"b":1}'
