"""Granada: Last Stand of the Moors 1482-1492 (Compass Games), the engine contract.

The state model and the decision-frame stack are described in :mod:`engine.granada.state`;
views (and their keys, for the render and Discord front ends) in :mod:`engine.granada.views`.
Every decision belongs to the frame on top of ``state["stack"]``; these functions only
dispatch to the module handling that frame.

Actions: ``actions(state, role)`` (contract) offers every legal action at once, however many
(activating any of 40 locations under total movement): paging a long list is the front end's
(engine/api.py, "Navigation is not a move"). ``legal_actions`` is the same list. Logs stored
before navigation left the games hold ``{"type": "menu"}`` page turns (menus.py): ``apply``
still replays them (they move a page pointer, nothing else) and ``NAV_TYPES`` names them, so
that they are never counted as moves; they are offered no more.

Typed orders: ``parse_order`` expands the shorthand players type most (``move Loja > Moclín``,
``muster Zegries at Ronda``, ``deploy Zegries cavalry with Cavalry Charge``) into the parts
of an order chain (engine/api.py ``GameModule.parse_order``).

Reactions (docs/architecture.md "Prompts must not leak"): the prompts that only ask whether to react
(the pre-battle prompt 10.1/10.5, a Morale Challenge 8.4, the besieged side's artillery 8.7.5)
appear whenever the rules allow the reaction, whatever the reacting player holds. Their
"do nothing" answer carries ``"pass": True`` and the view says ``"reaction": True``
(views.py), so that a front end may answer them for a player who opted into auto-pass: a
preference of the front end, not of the game.
"""

from __future__ import annotations

import builtins
import importlib
from typing import Any

from engine.api import Action, RuleError, State, View, describe, find_action
from engine.granada.frames import deep_copy as _deep
from engine.rng import Generator

id = "granada"
RULES_VERSION = 3  # bump when a change alters what a log replays to (data files included)
CHANGELOG: dict[int, str] = {
    1: "The rules as first released.",
    2: ("Rules review: the Palace Guard meets a Christian retreat into Granada (10.10), a retreat "
        "among four times as many enemies is overrun after it (8.6.6), the attacker deploys first so "
        "the Watchtower card waits for the defender's initiative (8.2, 10.3); auto-pass is a player "
        "preference, no longer a menu choice; the optional rules of section 11 as options; coastal "
        "towns for Naval Bombardment in the map data."),
    3: ("Wording (issue 38): numbers with their nouns in the log and menus (1 block, 2 blocks), sides "
        "capitalised in battle lines, the Andalusíes written with their accent (card names), the "
        "Movement Phase heading says what its menu offers. The rules are unchanged; a log replays "
        "to the same position with reworded lines."),
}
title = "Granada: Last Stand of the Moors"
# Section 11 optional rules (options.py): each off by default, "all" turns every one on.
OPTIONS: dict[str, dict[str, Any]] = importlib.import_module("engine.granada.options").OPTIONS

NAV_TYPES = frozenset({"menu"})
"""Page turns of logs stored before navigation left the games (menus.py)."""

__all__ = ["NAV_TYPES", "OPTIONS", "actions", "active", "apply", "canonical", "choose", "concealed_ids", "id",
           "legal_actions", "parse_order", "redeal", "result", "roles", "setup", "title", "view"]


def roles(options: dict[str, Any]) -> list[str]:
    return ["christian", "muslim"]


# Importing the submodule engine.granada.setup binds the package attribute "setup" to it;
# import it first so that the contract function below is what "setup" names.
_setup_module = importlib.import_module("engine.granada.setup")


def setup(seed: int, options: dict[str, Any]) -> State:
    result: State = _setup_module.setup(seed, options)
    return result


def actions(state: State, role: str) -> list[Action]:
    """Every legal action of the role, at once (a front end pages a long list): one per class
    of orders with the same effect (alike.py), a new list each call, since callers may
    reorder or trim what they get."""
    return list(_list(state, role)[1])


def legal_actions(state: State, role: str) -> list[Action]:
    """Every legal action of the role: the same list as :func:`actions`."""
    return list(_list(state, role)[1])


def _paged(state: State, role: str) -> list[Action]:
    """The page of a long list a stored ``menu`` step was chosen from (menus.py): what
    ``actions`` offered before navigation left the games, kept to replay those logs."""
    full = list(_every(state, role))
    if not full:
        return []
    frame = st.top(state)
    menu = (frame or {}).get("_menu", {}).get(role)
    return menus.paged(full, menu)


def _frame_actions(state: State, role: str) -> list[Action]:
    """The actions of the frame on top (the rules' own choices), one per class of orders with
    the same effect (alike.py): a new list each call, since callers may reorder or trim what
    they get."""
    return list(_list(state, role)[1])


# The legal actions last listed, per role: (state, stamp, list, copies). A step lists a role's
# legal actions (for the menu, the built-in player or the search) and then applies one of
# them, and apply must check the order against that same list: listing it twice was a fifth
# of a step (issue 15). apply takes the listed answer only when it is given the very state
# object that was listed (the memo holds it, so its id cannot pass to another) AND the very
# action object the list holds, unchanged since (the copies): an order typed, rebuilt or
# edited by the caller is checked against a fresh list. States are values (apply copies;
# nobody edits a state in place once it was listed or returned); the stamp (log length,
# generator, reveals, the top frame) catches the usual ways a position builder edits a listed
# state in place, and a test that edits a state between listing and applying an order taken
# from the old list would defeat it. Listing always computes afresh: only apply reads the memo.
_LEGAL_MEMO: dict[str, tuple[State, tuple[Any, ...], list[Action], list[Action],
                             dict[str, list[str]] | None, list[Action]]] = {}
# (then the location index the listing computed, st.by_location, which apply's step starts
# from; last, the menu: one entry per class of orders with the same effect, alike.py)


def _stamp(state: State) -> tuple[Any, ...]:
    stack = state.get("stack") or ()
    return (len(state.get("log") or ()), state.get("rng"), state.get("reveals"), len(stack),
            builtins.id(stack[-1]) if stack else None)


def _legal(state: State, role: str) -> list[Action]:
    """The choices ``role`` is offered in ``state``: its legal actions, one per class of
    orders with the same effect (alike.py: two identical blocks in the bag are one entry).
    Read only; its entries are entries of :func:`_every`'s list, so apply's memo knows them."""
    return _list(state, role)[1]


def _every(state: State, role: str) -> list[Action]:
    """Every legal action of ``role`` in ``state``, every copy of alike pieces included (what
    apply accepts: a log may name any copy), remembered for apply: read only."""
    return _list(state, role)[0]


def _list(state: State, role: str) -> tuple[list[Action], list[Action]]:
    """:func:`_every` and :func:`_legal` at once, remembered for apply (read only)."""
    acts: list[Action]
    index = None
    try:
        over = state["result"] is not None     # (a subscript: state.get is a call)
    except KeyError:
        over = False
    if over:
        acts = []
    else:
        stack = state["stack"]
        if not stack:
            acts = []
        else:
            frame = stack[-1]
            mod = _LOADED.get(frame["module"]) or st.handler(frame)
            # st.frozen_index, inline (a call and a context manager less per listing): the
            # location index is computed once for the whole query, who acts included (a
            # Combat Phase asks for its pending battles there too)
            saved = placement._MEMO
            memo = saved if saved is not None and saved[0] is state else [state, None]
            placement._MEMO = memo
            try:
                acts = mod.actions(state, role, frame) if role in mod.active(state, frame) else []
            finally:
                placement._MEMO = saved
            index = memo[1]
    acts, shown = alike.one_per_effect(state, acts)
    # _stamp, inline (a call is a thousand instructions), with subscripts where the state has
    # its keys (a dict's look is no call; state.get was four of them)
    try:
        stack = state["stack"]
        stamp = (len(state["log"]), state["rng"], state["reveals"], len(stack),
                 builtins.id(stack[-1]) if stack else None)
    except (KeyError, TypeError):     # (a position built without them)
        stamp = _stamp(state)
    _LEGAL_MEMO[role] = (state, stamp, acts, list(map(dict.copy, acts)), index, shown)
    return acts, shown


def _listed(state: State, role: str, action: Action) -> Action | None:
    """``action`` itself when it is an entry of the list last given for this very state."""
    hit = _LEGAL_MEMO.get(role)
    if hit is None or hit[0] is not state:
        return None
    acts = hit[2]
    # found at C speed: list.index stops at the order itself (an identical object is equal
    # at once); an equal order listed before it, or none, leaves the loop below to decide
    try:
        i = acts.index(action)
    except (ValueError, TypeError):
        return None
    if acts[i] is not action:
        i = next((j for j in range(i + 1, len(acts)) if acts[j] is action), -1)
        if i < 0:
            return None
    if action != hit[3][i]:
        return None
    try:                                # _stamp, inline (as _list)
        stack = state["stack"]
        stamp = (len(state["log"]), state["rng"], state["reveals"], len(stack),
                 builtins.id(stack[-1]) if stack else None)
    except (KeyError, TypeError):     # (a position built without them)
        stamp = _stamp(state)
    return action if hit[1] == stamp else None


# How apply copies each top-level key of the state (STATE SHAPE in state.py). A generic deep
# copy (marshal) of the whole state was a third to a half of a step (issue 15); these keys
# have a fixed shape, so each is copied with the cheapest operation that still leaves no
# mutable object shared with the input:
#   records: {key: {field: scalar}} (block records, copied on access: _CopyOnAccess)
#   flat:    {key: scalar}
#   lists:   {key: [scalar, ...]}
#   entries: {loc: {side: [scalar, ...]}}
#   "removed_cards": [scalar, ...]
# Scalars (and None) are shared; "log" is shared entry by entry (entries are never changed
# once written), which keeps the copy's cost independent of the game's length. Any other
# key (the decision stack, "boabdil", options added later...) gets the generic deep copy.
# tests/engine/granada/test_copy.py checks over random games that the copy is equal to the
# generic one and shares no list or dict with its input.
_RECORDS = frozenset({"blocks"})
_FLAT = frozenset({"disks", "control", "castle", "bids", "pioneers"})
_LISTS = frozenset({"hands", "decks", "discards", "battle_discard", "surrender", "hand_known", "known"})


def _lists(value: dict[str, list[Any]]) -> dict[str, list[Any]]:
    # a loop over a copy rather than a comprehension, which is a call of its own (issue 33)
    out = value.copy()
    for k, v in value.items():
        out[k] = v[:]
    return out


def _entries(value: dict[str, dict[str, list[Any]]]) -> dict[str, dict[str, list[Any]]]:
    return {loc: {side: v[:] for side, v in sides.items()} for loc, sides in value.items()}


def _copy(state: State) -> State:
    """The private copy ``apply`` mutates: equal to a deep copy, sharing nothing mutable."""
    new: State = {}
    how = _HOW
    for key, value in state.items():
        cls = value.__class__
        if cls is dict or cls is list:
            copier = how.get(key)
            new[key] = copier(value) if copier is not None else _deep(value)
        else:
            new[key] = value      # a scalar or None (JSON has nothing else)
    return new  # in the input's key order (stored JSON stays byte-identical)




class _CopyOnAccess(dict):
    """The block records of the state one apply is building: each record is copied the first
    time this step reaches it, so that a step pays for the few blocks it touches, not for all
    137 (issue 15). Every way a record can come out of the dict copies it first; read-only
    scans (engine.granada.state's location index) read ``dict.values`` directly. ``_seal``
    turns it back into a plain dict when the step ends: records the step never reached are
    then shared with the input state, which is why states are values (apply copies, nobody
    changes a state in place after apply returned it; engine.ai clones before it edits)."""

    __slots__ = ("_own", "_src")

    def __init__(self, records: dict[str, Any]) -> None:
        dict.__init__(self, records)
        # the records this step reached, each the very dict this one holds (read by moved
        # with plain looks, not a dict.__getitem__ call per record, issue 33)
        self._own: dict[str, Any] = {}
        self._src = records

    def moved(self) -> dict[str, str] | None:
        """The blocks whose record the step reached and put elsewhere than the input had it,
        each with where it is now (st.by_location shifts the input's index by them); None if
        the step added a block."""
        src = self._src
        out = {}
        for bid, rec in self._own.items():
            if bid not in src:
                return None
            loc = rec["loc"]
            if loc != src[bid]["loc"]:
                out[bid] = loc
        return out

    def sealed(self) -> dict[str, Any]:
        """The plain dict the step's state keeps: the input's own when no record was
        reached (nothing of it can have changed)."""
        return dict.copy(self) if self._own else self._src

    def __getitem__(self, key: str) -> Any:
        own = self._own
        if key in own:
            return own[key]
        rec = own[key] = dict.__getitem__(self, key).copy()
        dict.__setitem__(self, key, rec)
        return rec

    def __setitem__(self, key: str, value: Any) -> None:
        dict.__setitem__(self, key, value)
        self._own[key] = value

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 (self.get would recurse)

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[k] for k in self]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(k, self[k]) for k in self]

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("block records are edited one by one during a step")

    # (and none leaves the game: moved() reads the records reached, _own)
    pop = popitem = setdefault = update = copy = __delitem__ = __ior__ = __or__ = __ror__ = _refuse


_HOW: dict[str, Any] = {"log": list.copy, "removed_cards": list.copy, "entries": _entries}
_HOW.update({key: _CopyOnAccess for key in _RECORDS})
_HOW.update({key: dict.copy for key in _FLAT})
_HOW.update({key: _lists for key in _LISTS})
# what a step copies when it first reaches a key (_StepState): "entries" one level deep, since
# its only writer (st.add_entry) replaces the record of a location instead of editing it
_STEP_HOW: dict[str, Any] = dict(_HOW, entries=dict.copy)


_ABSENT = object()

# handler module -> how apply copies its frame on top: dict.copy for a handler that
# EDITS_BY_REPLACING, its own COPY_FRAME if it has one (battle.py), else the deep copy. Asked
# at every step, and a getattr that misses builds an AttributeError, six thousand
# instructions (issue 33)
_FRAME_COPY: dict[Any, Any] = {}


def _frame_copy(mod: Any) -> Any:
    found = _FRAME_COPY[mod] = (dict.copy if getattr(mod, "EDITS_BY_REPLACING", False)
                                else getattr(mod, "COPY_FRAME", None) or _deep)
    return found


class _StepState(dict):
    """The state one apply is building, copied key by key as the step reaches it (issue 33):
    a step pays for the parts of the state it touches, not for all of them. Each key is
    taken the first time the step asks for it, by ``[]`` (through ``__missing__``, so later
    reads run at a plain dict's speed), ``get`` or ``setdefault``: a scalar as it is, a
    container (``state["hands"]``, the decision stack...) copied with :data:`_HOW` (or
    :func:`_deep`). :func:`_seal` gives the plain dict apply returns, in the input's key order; keys
    the step never reached are then the input's own objects (states are values: apply
    copies, nobody edits a state in place after apply returned it). Nothing in a step
    iterates over the whole state or deletes a key of it; those ways are refused, so that a
    rule written one day to do so fails loudly instead of missing the untouched keys."""

    __slots__ = ("_src", "frames_shared", "base_index", "shifted")

    def __init__(self, src: State, base_index: dict[str, list[str]] | None = None) -> None:
        # nothing is taken at once: a step reads a handful of the state's thirty keys, and
        # copying even its scalars up front was a tenth of a short step's apply
        self._src = src
        # (the stack list, n): its frames below index n are still the input's (st.own_frames)
        self.frames_shared: tuple[list[Any], int] | None = None
        # the location index of the input's placement, if the listing computed it
        self.base_index = base_index
        # (the moves, base_index, the index after them) last worked out by st.by_location
        self.shifted: tuple[Any, ...] | None = None

    def __missing__(self, key: str) -> Any:
        value = self._src[key]
        cls = value.__class__
        if cls is not dict and cls is not list:
            new = value               # a scalar or None (JSON has nothing else): shared
        elif key == "stack":
            # only the frame on top is reached by most steps: the frames below are copied
            # when a pop or a finished battle reaches them (st.pop_frame, st.finish_frame)
            new = value[:]
            if new:
                top = new[-1]
                # a handler that never edits a container inside its frame in place, but
                # replaces it (EDITS_BY_REPLACING: the movement frame, most steps' frame),
                # has its frame copied one level deep only (_FRAME_COPY)
                mod = _LOADED.get(top["module"]) or st.handler(top)
                copier = _FRAME_COPY.get(mod) or _frame_copy(mod)
                new[-1] = copier(top)
                self.frames_shared = (new, len(new) - 1)
        else:
            copier = _STEP_HOW.get(key)
            new = copier(value) if copier is not None else _deep(value)
        dict.__setitem__(self, key, new)
        return new

    def __len__(self) -> int:
        return len(self._src.keys() | dict.keys(self))

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or key in self._src

    def get(self, key: str, default: Any = None) -> Any:
        value = dict.get(self, key, _ABSENT)   # state.get("result") runs after every advance
        if value is not _ABSENT:
            return value
        return self[key] if key in self._src else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            dict.__setitem__(self, key, default)
        return self[key]

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a step reads and sets the keys of the state one by one")

    __delitem__ = __iter__ = keys = values = items = _refuse
    pop = popitem = update = copy = __ior__ = __or__ = __ror__ = __reversed__ = _refuse


def _seal(state: State) -> State:
    """The state apply returns: plain dicts only (JSON, marshal and the contract's tools)."""
    if state.__class__ is _StepState:
        # the input's keys in its order, then those the step added in theirs (as _copy):
        # updating a copy of the input keeps the order of the keys it has
        sealed: State = state._src.copy()
        sealed.update(dict.items(state))
        state = sealed
    value = state.get("blocks")     # _RECORDS
    if value.__class__ is _CopyOnAccess:
        state["blocks"] = value.sealed()
    return state


def apply(state: State, role: str, action: Action) -> State:

    found = _listed(state, role, action)
    if found is not None:
        # the very order listed for this very state: the checks below were made then
        return _step(state, role, found, _LEGAL_MEMO[role][4])
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
        # a page turn of a stored log (menus.py): no rule is involved, nothing else changes
        offered = _paged(state, role)
        if find_action(offered, action) is None:
            raise RuleError(f"{describe(action)} is not a menu offered now",
                            allowed=[describe(a) for a in offered])
        new = _copy(state)
        top = st.top(new)
        assert top is not None
        top.setdefault("_menu", {})[role] = menus.chosen(action)
        return _seal(new)
    legal = _every(state, role)
    found = find_action(legal, action)
    if found is None:
        what = getattr(mod, "RULE", None)
        raise RuleError(f"{describe(action)} is not a legal order now", what,
                        [describe(a) for a in _legal(state, role)])
    return _step(state, role, found, _LEGAL_MEMO[role][4])


def _step(state: State, role: str, found: Action, index: dict[str, list[str]] | None = None) -> State:
    """Apply a legal order (``found``, an entry of the role's legal list) to a copy;
    ``index`` is the location index of ``state`` when the listing computed it."""
    # _StepState(state, index) without the call of its __init__ (the same four slots)
    new = _StepState.__new__(_StepState)
    new._src = state
    new.base_index = index
    new.shifted = None
    if "result" in state:
        # None (a finished game has no legal order): taken now, so that run's look after
        # the step is a plain dict's (it reads dict.get)
        dict.__setitem__(new, "result", state["result"])
    # the decision stack, which every step reaches: taken here as _StepState.__missing__
    # takes it (the top frame copied, the frames below the input's), without its call and
    # with the top frame's handler looked up once
    stack = state["stack"][:]
    assert stack
    top = stack[-1]
    mod = _LOADED.get(top["module"]) or st.handler(top)
    top = stack[-1] = (_FRAME_COPY.get(mod) or _frame_copy(mod))(top)
    new.frames_shared = (stack, len(stack) - 1)   # (the fourth slot)
    dict.__setitem__(new, "stack", stack)
    if "_menu" in top:
        # replaced, not edited: the frame may be copied one level deep only (_StepState)
        top["_menu"] = {k: v for k, v in top["_menu"].items() if k != role}
    mod.apply(new, role, found, top)
    if not run(new) and (dict.__contains__(new, "castle") or dict.__contains__(new, "blocks")):
        # instant victory (2.1) reads the Alhambra's castle and where two blocks stand: a step
        # that reached neither left them as its input had them, after its own check
        victory.check_instant(new)
    # _seal, inline: the input's keys in its order, then those the step added in theirs
    out = state.copy()
    out.update(dict.items(new))
    records = dict.get(new, "blocks")
    if records.__class__ is _CopyOnAccess:
        sealed = out["blocks"] = records.sealed()
        # the index of the new placement, known to the next listing without a scan
        placement.remember(new, records, sealed)
    return out


def run(state: State) -> bool:
    """Let the frames on top progress automatically until someone must decide. True when
    instant victory (victory.check_instant) was checked after the last change the loop saw:
    then the caller need not check it again."""

    # st.top and st.handler inline: this loop runs after every step
    loaded = _LOADED
    check = victory.check_instant
    checked = False
    for _ in range(10000):
        # dict.get: a step state holds "result" from its start (_step)
        if dict.get(state, "result") is not None:
            return True
        stack = state["stack"]
        if not stack:
            return checked
        frame = stack[-1]
        adv = getattr(loaded.get(frame["module"]) or st.handler(frame), "advance", None)
        if adv is None or not adv(state, frame):
            return checked
        check(state)
        checked = True
    raise RuntimeError("granada: frames keep advancing without a decision")


def view(state: State, role: str | None) -> View:
    from engine.granada import views

    return views.view(state, role)


def result(state: State) -> dict[str, Any] | None:
    try:
        res: dict[str, Any] | None = state["result"]     # (asked before every step: no call)
    except KeyError:
        return None
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


def parse_order(text: str) -> list[str] | None:
    """Granada's typed-order shorthand, expanded into order parts (orders.py)."""
    return orders.parse_order(text)


def choose(state: State, role: str, seed: int) -> Action:
    """The built-in player: a random legal action, weighted so that phases end sensibly
    (frames may weight their own actions with ``choose_weight``)."""

    legal = _legal(state, role)
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
from engine.granada import alike, menus, orders, placement, victory  # noqa: E402
from engine.granada import state as st  # noqa: E402
from engine.granada.frames import _HANDLERS as _LOADED  # noqa: E402  (name -> handler module, once loaded)
from engine.granada.frames import active_roles as active  # noqa: E402
# (the contract's active(state): the roles that must act now; bound to the function itself,
# asked before every step, rather than wrapped in a call of its own)
