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
    """The marking of one role's view of ``state``: the states it reached, each action as it
    was applied (a copy made before the marks, which go into the view's own dict, and which a
    front end may change too; without the marks the adapter and the service add) with the
    state after it, and the marks it added, for the next view of the same state by that role
    (:meth:`mark`)."""

    __slots__ = ("marks", "offered", "state", "steps")

    def __init__(self, state: State) -> None:
        self.state = state
        self.steps: list[tuple[Action, State]] = []
        self.offered: list[Action] = []
        """The view's actions as the game offered them (copies, before the marks)."""
        self.marks: list[tuple[int, str]] = []
        """Each mark the marking added to them: (the action's index, its key)."""

    def after(self, state: State, action: Action) -> State | None:
        """The state ``action`` leads to from ``state``, when the marking applied that very
        action (the same text, the marks the adapter and the service add aside) to that very
        state; else None (apply it)."""
        if state is not self.state:
            return None
        wanted = _unmarked(action)
        for applied, after in self.steps:
            if same_text(applied, wanted):
                return after
        return None

    def mark(self, state: State, actions: list[Action]) -> bool:
        """Mark ``actions``, those of a new view of ``state`` by the same role, as this marking
        marked them, when it was of that very state and they are the actions it was offered
        (a view is a function of the state and the role, which the check only confirms);
        False, leaving them unmarked, when they are not."""
        if state is not self.state or actions != self.offered:
            return False
        for index, key in self.marks:
            actions[index][key] = True
        return True


def _unmarked(action: Action) -> Action:
    return {k: v for k, v in action.items() if k not in ADDED_MARKS}


def marked_view(module: GameModule, state: State, role: str | None,
                known: Reached | None = None) -> tuple[View, Reached | None]:
    """``module.view(state, role)`` (the game's view, its actions marked as the adapter marks
    them: ``engine.api.Game.view``), and its marking (None for a spectator, whose view offers
    nothing), from the one marking (:func:`marked_steps`).

    ``known``: the marking of an earlier view of ``role``, kept with the game (the service
    keeps a game's state hot, one object per version): when it was of this very state, its
    marks are this view's, and no action is applied again (the marks are found by applying
    every action offered, half the cost of a view)."""
    game = adapt(module)
    seen = game.own_view(state, role)
    if role is None:
        return seen, None
    actions = view_actions(seen)
    if known is not None and known.mark(state, actions):
        return seen, known
    return seen, _marking(module, state, role, actions)


def _marking(module: GameModule, state: State, role: str, actions: list[Action]) -> Reached:
    """The marking of ``actions`` (``role``'s, offered in ``state``): they are marked in place
    (:func:`marked_steps`), and what it reached is returned."""
    reached = Reached(state)
    reached.offered = [action.copy() for action in actions]
    afters = marked_steps(module, state, role, actions, remember=False)
    for index, (action, offered, after) in enumerate(zip(actions, reached.offered, afters, strict=True)):
        if len(action) != len(offered):
            reached.marks.extend((index, key) for key in action if key not in offered)
        if after is not None:
            reached.steps.append((offered if ADDED_MARKS.isdisjoint(offered) else _unmarked(offered), after))
    return reached


def forced_step(module: GameModule, state: State, role: str) -> tuple[tuple[Action, State] | None, Reached | None]:
    """``module.forced_step(state, role)`` (``engine.api.Game.forced_step``: the only action
    offered, navigation aside, when it is not ``ask``, the game takes it and it can be taken
    back), found by the marking of ``role``'s actions when they are one (the marking marks it
    ``forced`` exactly then), with that marking; (None, None) when more are offered (nothing
    is applied, as by the engine's).

    A step the service does not take by itself (it is final, ``ask``, or would tell another
    seat something) is offered to its player next, whose view marks the same one action by
    applying it again: the marking kept with the game spares that (:meth:`Reached.mark`)."""
    actions = module.actions(state, role)
    offered = [i for i, action in enumerate(actions) if not module.is_nav(action)]
    if len(offered) != 1:
        return None, None
    only = offered[0]
    reached = _marking(adapt(module), state, role, actions)
    if (only, "forced") not in reached.marks:
        return None, reached
    # the one action applied is the one step reached (navigation reaches none)
    return (dict(reached.offered[only]), reached.steps[0][1]), reached
