"""The engine contract every game implements (see ``docs/architecture.md``).

A game is a module (or any object) with the attributes of :class:`GameModule`. States,
views and actions are plain JSON-compatible values so that the server can store, replay,
diff and test any game without knowing its rules.

Conventions shared by every game, so that the server and the tools need no game-specific
code:

* ``state["rng"]`` holds the state of the game's random generator (:mod:`engine.rng`).
* ``state["log"]`` is a list of log entries ``{"text": str}``; an entry that only some roles
  may read carries ``"to": [role, ...]``. Views filter the log with :func:`visible_log`.
* ``state["reveals"]`` counts the moments hidden information was shown to anyone; together
  with ``rng`` it tells the service where undo must stop (:func:`undo_barrier`).
* An action is a small dict with a ``"type"`` key and may carry a human ``"label"``; the
  label is for menus and is ignored when an action is matched (:func:`find_action`).
* ``view(state, role)`` returns at least ``prompt`` (a sentence), ``actions`` (the role's
  legal actions, [] for spectators) and ``log`` (the entries that role may read).
"""

from __future__ import annotations

import marshal
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

State = dict[str, Any]
Action = dict[str, Any]
View = dict[str, Any]


class RuleError(Exception):
    """An illegal order. ``rule`` names the rulebook section that forbids it.

    ``str(error)`` is a sentence a player can read; ``allowed`` optionally lists what would
    have been legal, so that front ends can say it.
    """

    def __init__(self, message: str, rule: str | None = None, allowed: list[str] | None = None) -> None:
        super().__init__(message)
        self.rule = rule
        self.allowed = allowed or []

    def explain(self) -> str:
        """The message with its rule reference and the allowed choices, for a player."""
        text = str(self)
        if self.rule:
            text = f"{text} (rule {self.rule})"
        if self.allowed:
            shown = ", ".join(self.allowed[:8])
            more = f" and {len(self.allowed) - 8} more" if len(self.allowed) > 8 else ""
            text = f"{text}. Allowed: {shown}{more}"
        return text


@runtime_checkable
class GameModule(Protocol):
    """What ``engine.GAMES[...]`` holds. Module-level functions satisfy it."""

    id: str
    title: str
    OPTIONS: dict[str, dict[str, Any]]

    def roles(self, options: dict[str, Any]) -> list[str]: ...

    def setup(self, seed: int, options: dict[str, Any]) -> State: ...

    def active(self, state: State) -> list[str]: ...

    def actions(self, state: State, role: str) -> list[Action]: ...

    def apply(self, state: State, role: str, action: Action) -> State: ...

    def view(self, state: State, role: str | None) -> View: ...

    def result(self, state: State) -> dict[str, Any] | None: ...

    def redeal(self, state: State, role: str, seed: int) -> State: ...


def clone(value: Any) -> Any:
    """A deep copy of a JSON-compatible value, several times faster than ``copy.deepcopy``.

    ``apply`` must not change its input (the service keeps the old state for undo), so every
    game copies; this is the one way the project does it.
    """
    return marshal.loads(marshal.dumps(value))


def strip_label(action: Action) -> Action:
    return {k: v for k, v in action.items() if k != "label"}


def find_action(legal: Iterable[Action], action: Action) -> Action | None:
    """The legal action equal to ``action`` (labels ignored), or None."""
    wanted = strip_label(action)
    for candidate in legal:
        if strip_label(candidate) == wanted:
            return candidate
    return None


def describe(action: Action) -> str:
    """A short human text for an action: its label, or its type and fields."""
    if "label" in action:
        return str(action["label"])
    rest = ", ".join(f"{k}={v}" for k, v in action.items() if k != "type")
    return f"{action.get('type', '?')}({rest})" if rest else str(action.get("type", "?"))


def require_legal(legal: list[Action], action: Action, rule: str | None, what: str) -> Action:
    """Return the matching legal action or raise a RuleError that lists what is allowed."""
    found = find_action(legal, action)
    if found is None:
        if not legal:
            raise RuleError(f"{what}: you have nothing to do now", rule)
        raise RuleError(f"{what}: {describe(action)} is not a legal order now", rule,
                        [describe(a) for a in legal])
    return found


def visible_log(log: list[dict[str, Any]], role: str | None) -> list[dict[str, Any]]:
    """The log entries ``role`` may read (a spectator, None, reads only public ones)."""
    return [e for e in log if "to" not in e or (role is not None and role in e["to"])]


def undo_barrier(before: State, after: State) -> bool:
    """True when the step from ``before`` to ``after`` can never be taken back.

    A random draw (the generator moved) or a reveal of hidden information makes the step
    final: taking it back would let a player fish for a better draw or unsee a card.
    """
    return before.get("rng") != after.get("rng") or before.get("reveals", 0) != after.get("reveals", 0)

