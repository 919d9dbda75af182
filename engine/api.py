"""The engine contract every game implements (``docs/architecture.md``, "The contract").

A game is a module (or any object) with the attributes of :class:`RulesModule`: the required
part. The contract also names optional capabilities (:class:`GameModule` lists them all, each
with its documented default). Callers never probe a game module for them: ``engine.get``
hands out a :class:`Game`, the one adapter that reads a module once and fills in every
default, so front ends, the service and the tools call every capability directly.

States, views and actions are plain JSON-compatible values so that the server can store,
replay, diff and test any game without knowing its rules.

Conventions shared by every game, so that the server and the tools need no game-specific
code:

* ``state["rng"]`` holds the state of the game's random generator (:mod:`engine.rng`).
* ``state["log"]`` is a list of log entries ``{"text": str}``; an entry that only some roles
  may read carries ``"to": [role, ...]``. Views filter the log with :func:`visible_log`.
* ``state["reveals"]`` counts the moments hidden information was shown to anyone; together
  with ``rng`` it tells the service where undo must stop (:func:`undo_barrier`).
* An action is a small dict with a ``"type"`` key; the keys every game shares are
  :class:`ActionFields`. Its markers (``label``, ``nav``, ``pass``) are for front ends and
  are ignored when an action is matched (:func:`find_action`).
* ``view(state, role)`` returns the keys of :class:`ViewFields` (``prompt``, ``actions``,
  ``log`` always; the others when the game has them) beside its own.
* Navigation is not a move: a game offers every choice at once (``actions``), and paging a
  long list is the front end's. An action marked ``"nav": true`` (:func:`is_nav`) is never
  recorded, undone, timed or counted.
* A pass is the action marked ``"pass": true`` (:func:`is_pass`): what a deadline's auto-pass
  and a player's auto-pass preference both give.
* The adapter (:class:`Game`) marks the actions of a role's view, the same way for every game
  (:func:`mark_steps`): ``"final": true`` on an action whose step can never be taken back (it
  draws at random or reveals hidden information: :func:`undo_barrier`), and ``"forced":
  true`` on a forced step, the one action of a menu that decides nothing, which the service
  takes by itself unless the player asked to confirm such steps. A game opts an action out
  of being forced with ``"ask": true``. Games never write ``final`` or ``forced`` themselves.
"""

from __future__ import annotations

import marshal
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, NotRequired, Protocol, Required, TypedDict, runtime_checkable

from engine.rng import Generator

State = dict[str, Any]
Action = dict[str, Any]
View = dict[str, Any]
Options = dict[str, Any]


class OptionSpec(TypedDict, total=False):
    """One entry of a game's ``OPTIONS``: what a table may vary when a game is created."""

    type: str
    """``"bool"``, ``"int"``, ``"str"`` or ``"float"`` (checked by the service)."""
    default: Required[Any]
    choices: list[Any]
    """The values allowed (the lobby and the terminal table offer them)."""
    help: str


class LogEntry(TypedDict):
    """One line of ``state["log"]`` and of a view's ``log``."""

    text: str
    to: NotRequired[list[str]]
    """The roles that may read it (absent: everyone)."""


ActionFields = TypedDict("ActionFields", {
    "type": Required[str],
    "label": str,
    "nav": bool,
    "pass": bool,
    "group": str | None,
    "ask": bool,
    "final": bool,
    "forced": bool,
    "automatic": bool,
}, total=False)
"""The keys of an action every game shares, beside its own (``card``, ``zone``...):

* ``type`` the kind of decision; ``label`` the human text of a menu entry;
* ``nav`` true on an entry that only turns the page of a list (:func:`is_nav`): no move;
* ``pass`` true on the answer that lets the moment go (:func:`is_pass`);
* ``group`` the kind of choice a front end may gather it under (default: its ``type``);
* ``ask`` true (set by a game, optional) on an action that must be asked even when it is the
  only one (a step that decides something although nothing else is legal): never forced.

Marks the adapter adds to a view's actions (:func:`mark_steps`; a game never sets them, and
:meth:`Game.apply` drops them before the game sees the action):

* ``final`` true when the step cannot be taken back (:func:`undo_barrier`): a front end says
  so on the entry, since ``undo`` will refuse afterwards;
* ``forced`` true on the only action of a menu when it decides nothing: not ``ask``, not
  ``final`` and no other (non-navigation) action is offered. The service takes it by itself
  for a player who has not asked to confirm such steps, and logs that it did.

And one the service adds to a move it records: ``automatic`` true on a forced step it took by
itself (so that undo takes it back with the step that led to it).
"""


class ViewFields(TypedDict, total=False):
    """The keys of a view every game shares, beside its own. ``prompt``, ``actions`` and
    ``log`` are always there; the rest have the documented default when absent."""

    prompt: Required[str]
    """A sentence for that role: what to do now, or whom the game waits for."""
    actions: Required[list[Action]]
    """The role's legal actions, every one ([] for a spectator or a role not asked)."""
    log: Required[list[LogEntry]]
    """The log entries that role may read."""
    phase: str | None
    """A short public string that changes exactly when a new public picture is worth
    posting (a new turn, phase or battle). Default None: no picture is forced."""
    reaction: bool
    """True when the prompt only asks whether to react; its pass is marked ``pass``
    (:func:`is_pass`). Default False."""
    focus: str | None
    """The place the game's attention is on (a battle's), one of ``places``. Default None."""
    places: list[str]
    """The names of the places a close-up picture can show. Default [] (none)."""
    result: dict[str, Any] | None
    """As :meth:`GameModule.result`. Default None: the game goes on."""
    hand: list[Any]
    """What the role holds hidden from the others (cards, tiles), when the game has a hand.
    Default: absent (the game has no hand)."""
    cards: dict[str, dict[str, Any]]
    """The cards (or tiles) a view names by id in its ``hand``, each with at least its
    ``name`` in the game's words ("1 blue"), so that a front end shows a hand by name and
    never by id. Default: absent (the hand's entries are shown as they are)."""
    held: list[str]
    """What the role holds, in words a player reads (cards named, special cards with their
    names): the game's own description, for a front end that shows text. Default: absent
    (a front end shows ``hand`` as it is)."""


VIEW_KEYS: frozenset[str] = ViewFields.__required_keys__ | ViewFields.__optional_keys__
"""The view keys the contract declares: the only ones a front end may read."""


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
class RulesModule(Protocol):
    """What a game module must define: the required part of the contract. Everything else
    :class:`GameModule` names is optional and read by :class:`Game` alone."""

    id: str
    """The game's id in the registry and in stored games (never changes)."""
    title: str
    """The game's name for players."""

    def roles(self, options: Options) -> list[str]:
        """The seats of a game with these options, in turn order."""
        ...

    def setup(self, seed: int, options: Options) -> State:
        """The first state: the same seed and options always give the same state."""
        ...

    def active(self, state: State) -> list[str]:
        """The roles that must decide now ([] once the game is over)."""
        ...

    def actions(self, state: State, role: str) -> list[Action]:
        """Every legal action of ``role`` now, at once ([] for a role not asked): paging a
        long list is the front end's, so none of them is a page turn (:func:`is_nav`)."""
        ...

    def apply(self, state: State, role: str, action: Action) -> State:
        """A new state after ``role``'s ``action`` (``state`` unchanged); RuleError when the
        action is not legal (its markers, :data:`MARKERS`, ignored)."""
        ...

    def view(self, state: State, role: str | None) -> View:
        """What ``role`` may see (None: a spectator): the keys of :class:`ViewFields` and the
        game's own, a new value sharing nothing with the state or another view."""
        ...

    def result(self, state: State) -> dict[str, Any] | None:
        """None while the game goes on, else its result (``winner``, ``reason``...)."""
        ...


class GameModule(Protocol):
    """The whole contract as callers see it (what ``engine.get`` returns, a :class:`Game`):
    the required functions of :class:`RulesModule`, and the optional capabilities below,
    each filled in with its default when a game leaves it out.

    Optional capabilities (the name a game module defines them under, and the default):

    * ``OPTIONS`` (:class:`OptionSpec` per name): what a table may vary. Default {}.
    * ``RULES_VERSION``: bumped whenever a change alters what a stored log replays to
      (``bot.upgrade``). Default 1.
    * ``CHANGELOG``: {version: what changed for players}. Default {}.
    * ``legal_actions(state, role)``: every legal action, for typed orders and the search.
      Default ``actions`` (a game that offers all its choices at once).
    * ``redeal(state, role, seed)``: a state ``role`` cannot tell from ``state``, everything
      hidden from it dealt afresh (the search samples worlds with it). Default: a copy of
      ``state`` (right for a game that hides nothing).
    * ``canonical(state, role)``: one representative of every state ``role`` cannot tell
      apart (engine/ai/adapters.py). Default: a copy of ``state``.
    * ``concealed_ids(state, role)``: the ids of pieces ``role`` may not identify now, for
      the leak tests. Default None: the game does not say.
    * ``choose(state, role, seed)``: the built-in player's move. Default: a legal action
      drawn at random with ``seed``.
    * ``NAV_TYPES``: the action types that only turned a page, in logs stored before
      navigation left the games (Granada's ``menu``, Dirk Henn's Granada's ``page``). The
      game still replays them (they change a page pointer only) but offers them no more;
      they are never a move (:func:`is_nav`). Default: none.
    * ``SOLO_OPPONENT``: the score key of the automaton a one-seat game is played against
      (Sabika's ``yusuf``), so that a solo game's result can rank the player against it.
      Default None: the game has no solo opponent.
    * ``parse_order(text)``: the game's typed-order shorthand, expanded into the parts of a
      chain (each a few words of one step's label; a part starting with
      :data:`OPTIONAL_PART` is skipped when nothing fits it), or None when ``text`` is not
      shorthand. Default: None for every text (orders are written ``a > b > c``).
    """

    id: str
    title: str
    OPTIONS: dict[str, OptionSpec]
    RULES_VERSION: int
    CHANGELOG: dict[int, str]
    NAV_TYPES: frozenset[str]
    SOLO_OPPONENT: str | None

    def roles(self, options: Options) -> list[str]: ...

    def setup(self, seed: int, options: Options) -> State: ...

    def active(self, state: State) -> list[str]: ...

    def actions(self, state: State, role: str) -> list[Action]: ...

    def apply(self, state: State, role: str, action: Action) -> State: ...

    def view(self, state: State, role: str | None) -> View: ...

    def result(self, state: State) -> dict[str, Any] | None: ...

    def legal_actions(self, state: State, role: str) -> list[Action]: ...

    def redeal(self, state: State, role: str, seed: int) -> State: ...

    def canonical(self, state: State, role: str) -> State: ...

    def concealed_ids(self, state: State, role: str | None) -> set[str] | None: ...

    def choose(self, state: State, role: str, seed: int) -> Action: ...

    def parse_order(self, text: str) -> list[str] | None: ...

    def forced_step(self, state: State, role: str) -> tuple[Action, State] | None:
        """``role``'s forced step now and the state after it, or None (:meth:`Game.forced_step`)."""
        ...

    def is_nav(self, action: Mapping[str, Any]) -> bool:
        """Whether ``action`` is a page turn of this game, never a move (:func:`is_nav`)."""
        ...

    def defaults(self) -> Options:
        """Every option at its default value."""
        ...

    @property
    def source(self) -> Path | None:
        """The file the game's rules live in (its package's ``__init__.py``), None for a
        game made at run time (a test double): what the upgrade check fingerprints."""
        ...


OPTIONAL_PART = "?"
"""A part of an order chain starting with this is skipped when no legal action fits it (a
step the engine only sometimes asks, such as taking the whole stack when there is a choice)."""


def _copy_state(state: State, role: str) -> State:
    copied: State = clone(state)
    return copied


def _copy_redeal(state: State, role: str, seed: int) -> State:
    copied: State = clone(state)
    return copied


def _not_said(state: State, role: str | None) -> set[str] | None:
    return None


def _no_shorthand(text: str) -> list[str] | None:
    return None


class Game:
    """The one adapter between a game module and its callers: every capability of
    :class:`GameModule`, the module's own where it has one, else the documented default.

    It reads the module once (the functions are bound as plain attributes, so a call costs
    what a call to the module costs). ``engine.get`` makes one per registered module; build
    one with :func:`adapt` for a module from elsewhere (a test double)."""

    def __init__(self, module: Any) -> None:
        missing = [name for name in _REQUIRED if not hasattr(module, name)]
        if missing:
            raise TypeError(f"a game module must define {', '.join(missing)} (engine/api.py RulesModule)")
        self.module: Any = module
        self.id: str = str(module.id)
        self.title: str = str(module.title)
        self.roles: Callable[[Options], list[str]] = module.roles
        self.setup: Callable[[int, Options], State] = module.setup
        self.active: Callable[[State], list[str]] = module.active
        self.actions: Callable[[State, str], list[Action]] = module.actions
        self.apply: Callable[[State, str, Action], State] = _unmarked(module.apply)
        self.own_view: Callable[[State, str | None], View] = module.view
        self.result: Callable[[State], dict[str, Any] | None] = module.result
        self.OPTIONS: dict[str, OptionSpec] = dict(_optional(module, "OPTIONS") or {})
        self.RULES_VERSION: int = int(_optional(module, "RULES_VERSION") or 1)
        self.CHANGELOG: dict[int, str] = dict(_optional(module, "CHANGELOG") or {})
        self.NAV_TYPES: frozenset[str] = frozenset(_optional(module, "NAV_TYPES") or ())
        solo = _optional(module, "SOLO_OPPONENT")
        self.SOLO_OPPONENT: str | None = str(solo) if solo else None
        self.legal_actions: Callable[[State, str], list[Action]] = _optional(module, "legal_actions") or module.actions
        self.redeal: Callable[[State, str, int], State] = _optional(module, "redeal") or _copy_redeal
        self.canonical: Callable[[State, str], State] = _optional(module, "canonical") or _copy_state
        self.concealed_ids: Callable[[State, str | None], set[str] | None] = (
            _optional(module, "concealed_ids") or _not_said)
        self.own_choose: Callable[[State, str, int], Action] | None = _optional(module, "choose")
        self.parse_order: Callable[[str], list[str] | None] = _optional(module, "parse_order") or _no_shorthand
        found = _optional(module, "__file__")
        self.source: Path | None = Path(found) if isinstance(found, str) and found else None

    def view(self, state: State, role: str | None) -> View:
        """The game's view of ``role``, its actions marked ``final`` and ``forced`` (:func:`mark_steps`):
        the same marks for every game, which no game computes itself."""
        seen = self.own_view(state, role)
        if role is not None:
            mark_steps(self, state, role, view_actions(seen))
        return seen

    def forced_step(self, state: State, role: str) -> tuple[Action, State] | None:
        """The forced step of ``role`` now and the state after it, or None: the only action
        ``role`` is offered (navigation aside), when it is not ``ask`` and can be taken back
        (not :func:`undo_barrier`). A final step is never forced, so that taking it by itself
        never closes the undo of the step before it behind the player's back."""
        offered = [a for a in self.actions(state, role) if not self.is_nav(a)]
        if len(offered) != 1 or offered[0].get("ask") is True:
            return None
        try:
            after = self.apply(state, role, offered[0])
        except Exception:  # a listed action the game refuses: the player meets the refusal himself
            return None
        if undo_barrier(state, after):
            return None
        return offered[0], after

    def choose(self, state: State, role: str, seed: int) -> Action:
        """The built-in player's move: the game's own ``choose``, else a legal action drawn
        at random with ``seed`` (how the contract check fuzzes the rules, too)."""
        if self.own_choose is not None:
            return self.own_choose(state, role, seed)
        legal = self.actions(state, role)
        if not legal:
            raise ValueError(f"{role} has no legal action")
        chosen: Action = Generator(seed).choice(legal)
        return chosen

    def is_nav(self, action: Mapping[str, Any]) -> bool:
        """Whether ``action`` (offered now, or read from this game's stored log) is a page
        turn, never a move (:func:`is_nav`)."""
        return is_nav(action, self.NAV_TYPES)

    def defaults(self) -> Options:
        """Every option at its default value."""
        return {name: clone(spec["default"]) for name, spec in self.OPTIONS.items()
                if isinstance(spec, dict) and "default" in spec}

    def __repr__(self) -> str:
        return f"<game {self.id!r}>"


_REQUIRED = ("id", "title", "roles", "setup", "active", "actions", "apply", "view", "result")


def _unmarked(apply: Callable[[State, str, Action], State]) -> Callable[[State, str, Action], State]:
    """``apply`` handed the action without the marks the adapter and the service add
    (:data:`ADDED_MARKS`): a game compares actions as it offered them."""
    def unmarked(state: State, role: str, action: Action) -> State:
        if ADDED_MARKS.isdisjoint(action):
            return apply(state, role, action)
        return apply(state, role, {k: v for k, v in action.items() if k not in ADDED_MARKS})
    return unmarked


def mark_steps(module: GameModule, state: State, role: str, actions: list[Action]) -> None:
    """Mark ``actions`` (``role``'s, offered in ``state``) in place: ``"final": true`` on each
    whose step cannot be taken back (:func:`undo_barrier`, found by applying it), and
    ``"forced": true`` on the only one when it is a forced step (:meth:`Game.forced_step`).
    Computed from the state, as ``undo`` decides; whether a step draws or reveals depends on
    what the role can see, which the contract check's redeal test holds every game to."""
    marked_steps(module, state, role, actions)


def marked_steps(module: GameModule, state: State, role: str, actions: list[Action], *,
                 remember: bool = True) -> list[State | None]:
    """:func:`mark_steps`, returning the state each of ``actions`` leads to (None for a page
    turn or an action the game refused): marking applied them all already, so a caller about
    to take one of them (the service's next step) need not apply it again. The states are
    shared with later callers: never change them (``apply`` never changes its input either).

    ``remember=False`` marks without the memo of recent markings (:data:`_MARKS`), neither
    looked up nor added to: for a caller that keeps its markings itself (the service keeps
    each with the very state object of a hot game), for which the memo's key, marshal's text
    of the whole state and its actions, costs a third to a half of applying the actions and
    is never found."""
    marking = _marking(module, state, role, actions) if remember else _applied(module, state, role, actions)
    for action, mark in zip(actions, marking.marks, strict=True):
        if mark:
            action[mark] = True
    return list(marking.afters)


class _Marking(NamedTuple):
    """What applying each offered action found: its mark (``"final"``, ``"forced"`` or None)
    and the state it leads to (None for a page turn or a refused action)."""

    marks: tuple[str | None, ...]
    afters: tuple[State | None, ...]


def _marking(module: GameModule, state: State, role: str, actions: list[Action]) -> _Marking:
    """The marking of ``actions`` in ``state``, from :data:`_MARKS` when this exact content
    was marked lately.

    Applying every offered action is most of a view's cost, and callers view one state many
    times (the service for each prompt and check of a step, the contract check for each of its
    checks), so the markings of the last states seen are kept, keyed on the exact content of
    the state and of the actions: equal content, equal marks and equal states after, since
    ``apply`` is deterministic and leaves its input as it was (both held by the contract check)."""
    try:
        key = (module, role, marshal.dumps(state, 2), marshal.dumps(actions, 2))
    except ValueError:  # not plain data (the contract check reports it): marked, not kept
        return _applied(module, state, role, actions)
    with _MARKS_LOCK:
        kept = _MARKS.pop(key, None)
        if kept is not None:
            _MARKS[key] = kept  # the most recently used last
            return kept
    marking = _applied(module, state, role, actions)
    with _MARKS_LOCK:
        _MARKS[key] = marking
        while len(_MARKS) > _MARKS_KEPT:
            del _MARKS[next(iter(_MARKS))]
    return marking


def _applied(module: GameModule, state: State, role: str, actions: list[Action]) -> _Marking:
    """The marking of ``actions``, found by applying each of them."""
    marks: list[str | None] = [None] * len(actions)
    afters: list[State | None] = [None] * len(actions)
    offered: list[int] = []
    refused = False
    for index, action in enumerate(actions):
        if module.is_nav(action):
            continue
        offered.append(index)
        try:
            after = module.apply(state, role, action)
        except Exception:  # a listed action the game refuses: the contract check's to report, not a view's
            refused = True
            continue
        afters[index] = after
        if undo_barrier(state, after):
            marks[index] = "final"
    if len(offered) == 1 and not refused:
        only = offered[0]
        if actions[only].get("ask") is not True and marks[only] is None:
            marks[only] = "forced"
    return _Marking(tuple(marks), tuple(afters))


_MARKS: dict[tuple[Any, str, bytes, bytes], _Marking] = {}
"""The markings of the states :func:`_marking` saw last, oldest first (at most :data:`_MARKS_KEPT`).
Keyed on marshal's format 2, which writes equal values alike (no references between objects)."""
_MARKS_KEPT = 64
_MARKS_LOCK = threading.Lock()


def _optional(module: Any, name: str) -> Any:
    """An optional capability of ``module``, or None: the one place a module is probed."""
    return getattr(module, name, None)


_ADAPTED: dict[int, tuple[Any, Game]] = {}


def adapt(module: Any) -> Game:
    """The :class:`Game` of ``module`` (itself when it is one), made once per module object."""
    if isinstance(module, Game):
        return module
    kept = _ADAPTED.get(id(module))
    if kept is not None and kept[0] is module:
        return kept[1]
    game = Game(module)
    _ADAPTED[id(module)] = (module, game)
    return game


def clone(value: Any) -> Any:
    """A deep copy of a JSON-compatible value, several times faster than ``copy.deepcopy``.

    ``apply`` must not change its input (the service keeps the old state for undo), so every
    game copies; this is the one way the project does it.
    """
    return marshal.loads(marshal.dumps(value))


ADDED_MARKS = frozenset({"final", "forced", "automatic"})
"""The keys the adapter and the service add to a game's actions (:data:`ActionFields`): never
the game's own, so they are dropped before an action reaches the game (:meth:`Game.apply`)."""

MARKERS = frozenset({"label", "nav", "pass", "ask"}) | ADDED_MARKS
"""The keys of an action that are for front ends (its text, the navigation, pass and step
marks): two actions that differ only in them are the same order (:func:`find_action`)."""


def strip_label(action: Action) -> Action:
    """The action as the game itself knows it: without its label and without the marks the
    adapter and the service add (:data:`ADDED_MARKS`)."""
    return {k: v for k, v in action.items() if k != "label" and k not in ADDED_MARKS}


def _order(action: Action) -> Action:
    return {k: v for k, v in action.items() if k not in MARKERS}


def find_action(legal: Iterable[Action], action: Action) -> Action | None:
    """The legal action equal to ``action``, its markers (:data:`MARKERS`) ignored, or None."""
    wanted = _order(action)
    for candidate in legal:
        if _order(candidate) == wanted:
            return candidate
    return None


def describe(action: Mapping[str, Any]) -> str:
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


# ---------------------------------------------------------------- navigation and passes

def is_nav(action: Mapping[str, Any], nav_types: Iterable[str] = ()) -> bool:
    """Whether ``action`` only turns the page of a list of choices: marked ``"nav": true``,
    or of a type in ``nav_types`` (a game's ``NAV_TYPES``, the page turns its stored logs
    hold). Never a move."""
    return action.get("nav") is True or str(action.get("type")) in nav_types


def is_pass(action: Mapping[str, Any]) -> bool:
    """Whether ``action`` is a pass: the answer marked ``"pass": true`` that lets the moment go.
    The one definition, for a deadline's auto-pass and a player's auto-pass preference alike."""
    return action.get("pass") is True


def pass_of(actions: Sequence[Action]) -> Action | None:
    """The pass among ``actions`` (the first marked one), or None when none is offered."""
    return next((a for a in actions if is_pass(a)), None)


# ---------------------------------------------------------------- reading a view's shared keys

def view_actions(view: Mapping[str, Any]) -> list[Action]:
    """The view's ``actions`` (default [])."""
    found = view.get("actions")
    return [a for a in found if isinstance(a, dict)] if isinstance(found, list) else []


def view_places(view: Mapping[str, Any]) -> list[str]:
    """The view's ``places``, the names a close-up can show (default []: none)."""
    found = view.get("places")
    return [str(p) for p in found] if isinstance(found, list) else []


def view_held(view: Mapping[str, Any]) -> list[str] | None:
    """The view's ``held`` lines (what the role holds, in words), None when the game says
    nothing."""
    found = view.get("held")
    return [str(p) for p in found] if isinstance(found, list) else None
