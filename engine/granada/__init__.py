"""Granada: Last Stand of the Moors 1482-1492 (Compass Games), the engine contract.

The state model and the decision-frame stack are described in :mod:`engine.granada.state`;
views (and their keys, for the render and Discord front ends) in :mod:`engine.granada.views`.
Every decision belongs to the frame on top of ``state["stack"]``; these functions only
dispatch to the module handling that frame.

Two lists of actions, beside the contract's:

* ``actions(state, role)`` (contract): what a role is OFFERED, at most 25 entries at a time,
  for select menus. Long lists come in pages (menus.py); a ``{"type": "menu"}`` entry turns
  the page, which is navigation only (no log line, no undo barrier).
* ``legal_actions(state, role)``: the FULL list of the role's legal actions, unpaged and
  without "menu" entries. Front ends that accept typed orders match them against this list
  (``engine.api.find_action``); ``apply`` accepts any of them whatever page is shown, and
  the built-in player (``choose``) picks among them.

Reactions (DESIGN.md "Prompts must not leak"): the prompts that only ask whether to react
(the pre-battle prompt 10.1/10.5, a Morale Challenge 8.4, the besieged side's artillery 8.7.5)
appear whenever the rules allow the reaction, whatever the reacting player holds. Their
"do nothing" answer carries ``"pass": True`` and the view says ``"reaction": True``
(views.py), so that a front end may answer them for a player who opted into auto-pass: a
preference of the front end, not of the game.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.api import Action, RuleError, State, View, clone, describe, find_action
from engine.rng import Generator

id = "granada"
RULES_VERSION = 2  # bump when a change alters what a log replays to (data files included)
CHANGELOG: dict[int, str] = {
    1: "The rules as first released.",
    2: ("Rules review: the Palace Guard meets a Christian retreat into Granada (10.10), a retreat "
        "among four times as many enemies is overrun after it (8.6.6), the attacker deploys first so "
        "the Watchtower card waits for the defender's initiative (8.2, 10.3); auto-pass is a player "
        "preference, no longer a menu choice; the optional rules of section 11 as options; coastal "
        "towns for Naval Bombardment in the map data."),
}
title = "Granada: Last Stand of the Moors"
# Section 11 optional rules (options.py): each off by default, "all" turns every one on.
OPTIONS: dict[str, dict[str, Any]] = importlib.import_module("engine.granada.options").OPTIONS

__all__ = ["OPTIONS", "actions", "active", "apply", "canonical", "choose", "concealed_ids", "id", "legal_actions", "redeal",
           "result", "roles", "setup", "title", "view"]


def roles(options: dict[str, Any]) -> list[str]:
    return ["christian", "muslim"]


# Importing the submodule engine.granada.setup binds the package attribute "setup" to it;
# import it first so that the contract function below is what "setup" names.
_setup_module = importlib.import_module("engine.granada.setup")


def setup(seed: int, options: dict[str, Any]) -> State:
    result: State = _setup_module.setup(seed, options)
    return result


def active(state: State) -> list[str]:

    return st.active_roles(state)


def actions(state: State, role: str) -> list[Action]:
    """The role's legal actions as offered to a player: at most 25 at a time (menus.py)."""

    full = _frame_actions(state, role)
    if not full:
        return []
    frame = st.top(state)
    menu = (frame or {}).get("_menu", {}).get(role)
    return menus.paged(full, menu)


def legal_actions(state: State, role: str) -> list[Action]:
    """Every legal action of the role, unpaged, for typed orders (the built-in player and
    apply use it)."""
    return _frame_actions(state, role)


def _frame_actions(state: State, role: str) -> list[Action]:
    """The actions of the frame on top (the rules' own choices)."""

    if state.get("result") is not None:
        return []
    frame = st.top(state)
    if frame is None:
        return []
    mod = st.handler(frame)
    if role not in mod.active(state, frame):
        return []
    with st.frozen_index(state):
        acts: list[Action] = mod.actions(state, role, frame)
    return acts


# How apply copies each top-level key of the state (STATE SHAPE in state.py). A generic deep
# copy (marshal) of the whole state was a third to a half of a step (issue 15); these keys
# have a fixed shape, so each is copied with the cheapest operation that still leaves no
# mutable object shared with the input:
#   records: {key: {field: scalar}} (block records)
#   flat:    {key: scalar}
#   lists:   {key: [scalar, ...]}
# Scalars (and None) are shared; "log" is shared entry by entry (entries are never changed
# once written), which keeps the copy's cost independent of the game's length. Any other
# key (the decision stack, "entries", "boabdil", options added later...) gets the generic
# deep copy. tests/engine/granada/test_copy.py checks over random games that the copy is
# equal to the generic one and shares no list or dict with its input.
_RECORDS = frozenset({"blocks"})
_FLAT = frozenset({"disks", "control", "castle", "bids"})
_LISTS = frozenset({"hands", "decks", "discards", "battle_discard", "surrender", "hand_known", "known"})


def _copy(state: State) -> State:
    """The private copy ``apply`` mutates: equal to a deep copy, sharing nothing mutable."""
    new: State = {}
    for key, value in state.items():
        if key == "log":
            new[key] = list(value)
        elif value is None or value.__class__ in _SCALARS:
            new[key] = value
        elif key in _RECORDS:
            new[key] = _CopyOnAccess(value)
        elif key in _FLAT:
            new[key] = value.copy()
        elif key in _LISTS:
            new[key] = {k: list(v) for k, v in value.items()}
        else:
            new[key] = _deep(value)
    return new  # in the input's key order (stored JSON stays byte-identical)


_SCALARS = (str, int, float, bool)
_CONTAINERS = (dict, list)


def _deep(value: Any) -> Any:
    """A deep copy of a small JSON value (the decision stack, "entries"...): for a kilobyte
    of nested frames, faster than a marshal round trip, which builds every string anew."""
    if value.__class__ is dict:
        return {k: (_deep(v) if v.__class__ in _CONTAINERS else v) for k, v in value.items()}
    if value.__class__ is list:
        return [_deep(v) if v.__class__ in _CONTAINERS else v for v in value]
    return clone(value)


class _CopyOnAccess(dict):
    """The block records of the state one apply is building: each record is copied the first
    time this step reaches it, so that a step pays for the few blocks it touches, not for all
    137 (issue 15). Every way a record can come out of the dict copies it first; read-only
    scans (engine.granada.state's location index) read ``dict.values`` directly. ``_seal``
    turns it back into a plain dict when the step ends: records the step never reached are
    then shared with the input state, which is why states are values (apply copies, nobody
    changes a state in place after apply returned it; engine.ai clones before it edits)."""

    __slots__ = ("_own",)

    def __init__(self, records: dict[str, Any]) -> None:
        super().__init__(records)
        self._own: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        rec = dict.__getitem__(self, key)
        if key not in self._own:
            rec = rec.copy()
            dict.__setitem__(self, key, rec)
            self._own.add(key)
        return rec

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self._own.add(key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (self.get would recurse)

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[k] for k in self]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(k, self[k]) for k in self]

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("block records are edited one by one during a step")

    pop = popitem = setdefault = update = copy = __ior__ = __or__ = __ror__ = _refuse


def _seal(state: State) -> State:
    """The state apply returns: plain dicts only (JSON, marshal and the contract's tools)."""
    for key in _RECORDS:
        value = state.get(key)
        if isinstance(value, _CopyOnAccess):
            state[key] = dict.copy(value)
    return state


def apply(state: State, role: str, action: Action) -> State:

    if not isinstance(action, dict) or "type" not in action:
        raise RuleError("an action is a dict with a 'type'")
    if state.get("result") is not None:
        raise RuleError("the game is over", "6.5")
    frame = st.top(state)
    if frame is None:
        raise RuleError("nothing can be done now")
    mod = st.handler(frame)
    if role not in mod.active(state, frame):
        raise RuleError(f"it is not the {role} player's decision now",
                        allowed=[f"{r} acts now" for r in mod.active(state, frame)])
    if action["type"] == menus.MENU:
        # navigating a long list (menus.py): no rule is involved, nothing else changes
        offered = actions(state, role)
        if find_action(offered, action) is None:
            raise RuleError(f"{describe(action)} is not a menu offered now",
                            allowed=[describe(a) for a in offered])
        new = _copy(state)
        top = st.top(new)
        assert top is not None
        top.setdefault("_menu", {})[role] = menus.chosen(action)
        return _seal(new)
    with st.frozen_index(state):
        legal = mod.actions(state, role, frame)
    found = find_action(legal, action)
    if found is None:
        what = getattr(mod, "RULE", None)
        raise RuleError(f"{describe(action)} is not a legal order now", what,
                        [describe(a) for a in legal])
    new = _copy(state)
    top = st.top(new)
    assert top is not None
    if "_menu" in top:
        top["_menu"].pop(role, None)
    st.handler(top).apply(new, role, found, top)
    run(new)
    victory.check_instant(new)
    return _seal(new)


def run(state: State) -> None:
    """Let the frames on top progress automatically until someone must decide."""

    for _ in range(10000):
        if state.get("result") is not None:
            return
        frame = st.top(state)
        if frame is None:
            return
        adv = getattr(st.handler(frame), "advance", None)
        if adv is None or not adv(state, frame):
            return
        victory.check_instant(state)
    raise RuntimeError("granada: frames keep advancing without a decision")


def view(state: State, role: str | None) -> View:
    from engine.granada import views

    return views.view(state, role)


def result(state: State) -> dict[str, Any] | None:
    res: dict[str, Any] | None = state.get("result")
    return res


def redeal(state: State, role: str, seed: int) -> State:
    from engine.granada import views

    return views.redeal(state, role, seed)


def canonical(state: State, role: str) -> State:
    """The representative of all states ``role`` cannot tell apart (the re-deal in a fixed
    order): what a search samples from, so its decision cannot depend on hidden facts."""
    from engine.granada import views

    return views.canonical(state, role)


def concealed_ids(state: State, role: str | None) -> set[str]:
    """Block ids ``role`` may not see now (views.concealed_ids): the leak tests' list."""
    from engine.granada import views

    return views.concealed_ids(state, role)


def choose(state: State, role: str, seed: int) -> Action:
    """The built-in player: a random legal action, weighted so that phases end sensibly
    (frames may weight their own actions with ``choose_weight``)."""

    legal = _frame_actions(state, role)
    if not legal:
        raise ValueError(f"{role} has no legal action")
    frame = st.top(state)
    weigh = getattr(st.handler(frame), "choose_weight", None) if frame else None
    weights = [max(0.0, float(weigh(a))) if weigh else 1.0 for a in legal]
    total = sum(weights)
    gen = Generator(seed)
    if total <= 0:
        return gen.choice(legal)
    x = gen.randbelow(1 << 30) / float(1 << 30) * total
    for a, w in zip(legal, weights):
        x -= w
        if x < 0:
            return a
    return legal[-1]


# The rule modules the dispatch above calls at every step, imported once the contract's
# functions exist (importing engine.granada.setup first, above, keeps "setup" the function);
# an import inside each function cost about a microsecond a call (issue 15).
from engine.granada import menus, victory  # noqa: E402
from engine.granada import state as st  # noqa: E402
