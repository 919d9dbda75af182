"""A role's view with its marked actions, and the states its marking reached (issue 33).

A view's actions are marked ``final`` and ``forced`` by applying each of them
(``engine.api.marked_steps``), and a front end then sends one of those very actions as the step:
the engine applied it already, to the very state the step starts from. The service keeps what
the marking reached (:class:`Reached`) with the game kept hot at that version, and the step
takes its new state from there instead of applying the action again (``ServiceCore._step``).
Engines are deterministic and never change a state once made (``apply`` never changes its
input), so the state kept is the one ``apply`` would make now."""

from __future__ import annotations

from bot.service.canon import same_text
from engine.api import (
    ADDED_MARKS,
    Action,
    GameModule,
    State,
    View,
    adapt,
    marked_steps,
    view_actions,
)


class Reached:
    """The states the marking of one view reached from ``state``: each action as it was
    applied (a copy: the marks go into the view's own dict, which a front end may change
    too), with the state after it."""

    __slots__ = ("state", "steps")

    def __init__(self, state: State) -> None:
        self.state = state
        self.steps: list[tuple[Action, State]] = []

    def after(self, state: State, action: Action) -> State | None:
        """The state ``action`` leads to from ``state``, when the marking applied that very
        action (the same text, the marks the adapter and the service add aside) to that very
        state; else None (apply it)."""
        if state is not self.state:
            return None
        wanted = _unmarked(action)
        for applied, after in self.steps:
            if same_text(_unmarked(applied), wanted):
                return after
        return None


def _unmarked(action: Action) -> Action:
    return {k: v for k, v in action.items() if k not in ADDED_MARKS}


def marked_view(module: GameModule, state: State, role: str | None) -> tuple[View, Reached | None]:
    """``module.view(state, role)`` (the game's view, its actions marked as the adapter marks
    them: ``engine.api.Game.view``), and the states its marking reached (None for a
    spectator, whose view offers nothing), from ``engine.api.marked_steps``, the one marking."""
    game = adapt(module)
    seen = game.own_view(state, role)
    if role is None:
        return seen, None
    reached = Reached(state)
    actions = view_actions(seen)
    for action, after in zip(actions, marked_steps(game, state, role, actions), strict=True):
        if after is not None:
            reached.steps.append((action.copy(), after))
    return seen, reached
