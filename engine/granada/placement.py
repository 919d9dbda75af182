"""Granada's location index (issue 15, issue 33): which blocks stand where, worked out as
cheaply as the rules ask for it, and never stored (a derived view of ``state["blocks"]``).

* During a read-only query (the legal actions of a state) the index is computed once
  (:class:`frozen_index`).
* A scan of the records compares the tuple of their locations with the placements seen last
  (``_RECENT``): the same placement comes back at every step.
* During an apply, the index of the input is shifted by the few blocks the step moved
  (:func:`_shift`) instead of built again: exactly what a scan would build.
* The records of a state apply returned are known by the identity of their dict
  (:func:`remember`): its index is the step's own, found without looking at a record. A scan
  reads the location of all 137 records, most of them out of the processor's caches by the
  next step; this keeps no record of it (issue 33). It holds because states are values: a
  state apply returned is never edited in place (engine.granada.state, "Issue 15"), which
  ``VERIFY`` (on under the tests) checks at every use.

:mod:`engine.granada.state` re-exports :func:`by_location`, :func:`peek` and
:class:`frozen_index`; the rules modules reach them there.
"""

from __future__ import annotations

import contextlib
import operator
from collections import OrderedDict
from typing import Any

from engine.api import State

_UNSET = object()


def peek(state: State, key: str) -> Any:
    """``state[key]`` for a read that changes nothing: during an apply, a key of the state
    the step has not changed yet is then not copied for the look (engine.granada._StepState)."""
    if state.__class__ is dict:
        return state[key]
    value = dict.get(state, key, _UNSET)   # what the step holds already, else the input's
    return value if value is not _UNSET else state._src[key]  # type: ignore[attr-defined]


# While a read-only query runs on a state (the legal actions of a step: engine.granada
# ``_frame_actions``, and apply's check of the order against them, before its copy), its
# location index is computed once instead of once per helper (issue 15). The memo is a
# [state, index] pair that only that very state object hits, and the state cannot change
# during the query (the legal actions are a pure function of the state); callers never
# mutate the index. Another thread replacing the current pair only causes misses.
_MEMO: list[Any] | None = None


class frozen_index:
    """``with frozen_index(state): ...`` memoises :func:`by_location` of ``state`` inside."""

    __slots__ = ("state", "saved", "index")

    def __init__(self, state: State) -> None:
        self.state = state
        self.index: dict[str, list[str]] | None = None   # after the block: what it computed

    def __enter__(self) -> None:
        global _MEMO
        self.saved = _MEMO
        if self.saved is None or self.saved[0] is not self.state:
            _MEMO = [self.state, None]

    def __exit__(self, *exc: object) -> None:
        global _MEMO
        if _MEMO is not None and _MEMO[0] is self.state:
            self.index = _MEMO[1]
        _MEMO = self.saved


def by_location(state: State) -> dict[str, list[str]]:
    """loc -> block ids there (map locations, boxes and sea zones alike), in id order."""
    memo = _MEMO
    if memo is not None and memo[0] is state:
        index: dict[str, list[str]] | None = memo[1]
        if index is None:
            index = memo[1] = _known(state)
        return index
    if state.__class__ is dict:
        return _known(state)
    if state.__class__ is not dict:
        # an apply's step state: the index of its input (listed just before) serves as long
        # as no block the step reached has left the place it had there, and is shifted by the
        # few blocks that did rather than built again (issue 33)
        # _moved, inline (a call is a thousand instructions; this runs at every look of a step)
        blocks: Any = dict.get(state, "blocks")
        if blocks is None:
            moved: dict[str, str] | None = {}   # no record reached yet
        else:
            of = getattr(blocks, "moved", None)
            moved = of() if of is not None else None
        if moved is not None:
            base = getattr(state, "base_index", None)
            if base is None:
                base = _known(state._src)   # type: ignore[attr-defined]
                state.base_index = base           # type: ignore[attr-defined]
            if not moved:
                return base
            # a step asks again and again after its moves: the same moves, the same index
            # (where each moved block went: a dict, equal whatever the order of the moves)
            went = moved
            seen = getattr(state, "shifted", None)
            if seen is not None and seen[0] == went and seen[1] is base:
                again: dict[str, list[str]] = seen[2]
                return again
            # the placement the index came from, shifted by the moves (None when it is no
            # longer known: then a scan builds it); _entry_of inline where found at once
            entry = _ENTRIES.get(id(base))
            if entry is None or entry[2] is not base:
                entry = _entry_of(base)
            shifted = _shift(entry, went)[2] if entry is not None else None
            if shifted is not None:
                state.shifted = (went, base, shifted)   # type: ignore[attr-defined]
                return shifted
    return _by_location(state)


# The placements of the states apply returned, by the identity of their records' dict (issue
# 33): id -> (the dict, its index, or None and what it is worked out from: the placement
# of the step's input and where the blocks it moved went; then, for _LINEAGES, the first
# entry of the input's log and the input's records). Each entry holds its dict, so its id
# cannot pass to another while it is here; the oldest leave first. A state whose records
# come from elsewhere (setup, storage, a test's position, a clone) is looked at by a scan.
_SEALED: OrderedDict[int, tuple[Any, ...]] = OrderedDict()
_SEALED_SIZE = 64
# The entries another game's states pushed out of _SEALED, kept per game: the service plays
# hundreds of games in turn, and the state a game stepped to, listed again by its next view a
# whole round later, had left _SEALED (64 states) long before, so each view scanned (issue
# 33). A game's states share their log's entries (apply copies the log entry by entry), so
# the first entry's identity names the game: id of that entry -> [the entry, the records of
# the input its states were made from, {id of a records' dict -> its entry}]. Those are the
# states made from one input (a view's marking applies each action offered, and the service
# steps to one of them), at most _LINEAGE_STATES; a state looked at here is where the game is
# now, and the others leave (_kept); when a step starts from one of them, the states made
# from it replace them, that one kept. An entry pushed out by its own game's newer states is
# dropped, as before (a single game, the engine's benchmarks and searches, keeps none here).
# The games looked at least lately leave first: more than the service keeps hot
# (bot/service/storage.py, _STATE_CACHE_SIZE).
_LINEAGES: OrderedDict[int, list[Any]] = OrderedDict()
_LINEAGES_SIZE = 320
_LINEAGE_STATES = 16
# id of an index -> its placement (ids, locations, index), for the indexes made lately: how a
# step finds the placement its listing's index came from
_ENTRIES: OrderedDict[int, tuple[Any, Any, Any]] = OrderedDict()
VERIFY = False
"""Check every index taken from :data:`_SEALED` against a scan (the tests turn it on): a
state edited in place after apply returned it breaks the rule this relies on."""


def _known(state: State) -> dict[str, list[str]]:
    """The index of a plain state: its step's own when apply returned these records, else a
    scan's (:func:`_by_location`)."""
    blocks = state["blocks"]
    table: dict[int, tuple[Any, ...]] = _SEALED
    known = table.get(id(blocks))
    if known is None or known[0] is not blocks:
        # made longer ago: with the states of its game (_LINEAGES), if it is one
        table, known = _kept(state, blocks)
        if known is None:
            return _by_location(state)
    entry = known[1]
    if entry is None:
        entry = _shift(*known[2])
        table[id(blocks)] = (blocks, entry, None, *known[3:])
    index: dict[str, list[str]] = entry[2]
    if VERIFY:
        scanned = _scan(blocks)
        assert index == scanned and list(index) == list(scanned), (
            "a state apply returned was edited in place (states are values: clone it first)")
    return index


def _kept(state: State, blocks: dict[str, Any]) -> tuple[dict[int, tuple[Any, Any, Any]], Any]:
    """The states kept with the game of ``state`` and the entry of ``blocks`` there (None when
    it is not one of them). The one looked at is where the game is now: the others made with
    it (the actions its view did not take) leave."""
    log = state.get("log")
    if not log:
        return {}, None
    first = log[0]
    lineage = _LINEAGES.get(id(first))
    if lineage is None or lineage[0] is not first:
        return {}, None
    states = lineage[2]
    known = states.get(id(blocks))
    if known is None or known[0] is not blocks:
        return {}, None
    if len(states) > 1:
        src = lineage[1]
        states.clear()
        states[id(blocks)] = known
        if src is not blocks:
            lineage[1] = blocks
    with contextlib.suppress(KeyError):     # another thread removed it meanwhile
        _LINEAGES.move_to_end(id(first))
    entry = known[1]
    if entry is not None and _ENTRIES.get(id(entry[2])) is not entry:
        # made a while ago: where a step from this state finds the placement its index came
        # from (by_location), to shift it
        _keep(_ENTRIES, id(entry[2]), entry, 2 * _SEALED_SIZE)
    return states, known


def _keep_lineage(first: Any, src: dict[str, Any], sealed: dict[str, Any], known: tuple[Any, Any, Any]) -> None:
    """Keep ``known``, the entry of ``sealed`` made from the input records ``src``, with the
    states of its game (:data:`_LINEAGES`, whose first log entry is ``first``)."""
    table = _LINEAGES
    lineage = table.get(id(first))
    if lineage is None or lineage[0] is not first:
        table[id(first)] = [first, src, {id(sealed): known}]
        while len(table) > _LINEAGES_SIZE:
            try:
                table.popitem(last=False)
            except KeyError:        # another thread emptied it first
                break
        return
    states = lineage[2]
    if lineage[1] is not src:
        kept = states.get(id(src))
        if kept is not None and kept[0] is src:
            # the game stepped to one of its states: the states made from it replace them
            states.clear()
            states[id(src)] = kept
            lineage[1] = src
            with contextlib.suppress(KeyError):     # another thread removed it meanwhile
                table.move_to_end(id(first))
        # (else an input from elsewhere, such as a re-deal: what it made joins the others, and
        # the input is not kept, since it may be edited in place)
    if len(states) < _LINEAGE_STATES:
        states[id(sealed)] = known


def _entry_of(index: dict[str, list[str]]) -> tuple[Any, ...] | None:
    """The placement (ids, locations, index) whose index is ``index``, if it is still known."""
    entry = _ENTRIES.get(id(index))
    if entry is not None and entry[2] is index:
        return entry
    return next((e for e in _RECENT if e[2] is index), None)


def _keep(table: OrderedDict[int, Any], key: int, value: Any, size: int) -> None:
    """``table[key] = value``, the oldest entries leaving while the table holds more than
    ``size``. An OrderedDict: a plain dict emptied from its front walks over the slots of
    the entries it deleted before at each look for its first one."""
    table[key] = value
    while len(table) > size:
        try:
            table.popitem(last=False)
        except KeyError:        # another thread emptied it first
            break


def _scan(blocks: dict[str, Any]) -> dict[str, list[str]]:
    """The index of ``blocks`` built afresh, shared with nothing (VERIFY)."""
    out: dict[str, list[str]] = {}
    for bid, rec in dict.items(blocks):
        out.setdefault(rec["loc"], []).append(bid)
    return out


def remember(step: Any, records: Any, sealed: dict[str, Any]) -> None:
    """``sealed`` holds the records of the state an apply returns (``step``, its step state;
    ``records``, the copy-on-access dict it edited): remember how its index is found. Only
    when the step started from a known placement and moved no block in or out of the game."""
    base = step.base_index
    if base is None or sealed is records._src:
        return
    moved = records.moved()
    if moved is None:
        return
    # _entry_of and _keep inline where they are found at once (this runs after every step
    # that reached a record, and a call is a thousand instructions, issue 33)
    entry = _ENTRIES.get(id(base))
    if entry is None or entry[2] is not base:
        entry = _entry_of(base)
        if entry is None:
            return
    # with it, for _LINEAGES: the game's first log entry (the input's: the same object when it
    # has one) and the input's records
    src = records._src
    log = step._src.get("log")
    first = log[0] if log else None
    if moved:
        went = moved            # (where each block the step moved went)
        seen = step.shifted
        shifted = seen[2] if seen is not None and seen[1] is base and seen[0] == went else None
        after = None
        if shifted is not None:
            after = _ENTRIES.get(id(shifted))
            if after is None or after[2] is not shifted:
                after = _entry_of(shifted)
        known: tuple[Any, ...] = ((sealed, after, None, first, src) if after is not None
                                  else (sealed, None, (entry, went), first, src))
    else:
        known = (sealed, entry, None, first, src)
    table = _SEALED
    table[id(sealed)] = known
    while len(table) > _SEALED_SIZE:
        try:
            gone = table.popitem(last=False)[1]
        except KeyError:        # another thread emptied it first
            break
        if gone[3] is not first and gone[3] is not None:
            # pushed out by another game's states: kept with its own game
            _keep_lineage(gone[3], gone[4], gone[0], gone)


# The indexes of the placements seen last, most recent first: the same placement comes back
# at every step (the legal actions of a state, then apply's checks) and between most steps
# only a few blocks move, so the tuple of the blocks' locations is a cheap, exact key. It is
# compared with a few recent ones (equal tuples of the same strings compare at C speed, and
# unequal ones stop at their first difference) rather than hashed: hashing the two tuples
# of a dict key was a quarter of this function (issue 33).
_RECENT: list[tuple[tuple[str, ...], tuple[str, ...], dict[str, list[str]]]] = []
_RECENT_SIZE = 8
_LOC = operator.itemgetter("loc")
_FIRST = operator.itemgetter(0)
_SECOND = operator.itemgetter(1)


def _by_location(state: State) -> dict[str, list[str]]:
    # peek and dict.values: a read-only scan, for which apply copies nothing; map(itemgetter)
    # builds the key at C speed (a comprehension was half of this function)
    blocks = peek(state, "blocks")
    locs = tuple(map(_LOC, dict.values(blocks)))
    recent = _RECENT
    ids: tuple[str, ...] | None = None
    for i, (seen_ids, seen_locs, out) in enumerate(recent):
        if seen_locs == locs:
            if ids is None:
                ids = tuple(blocks)
            if seen_ids == ids:
                if i:
                    recent.insert(0, recent.pop(i))
                return out
    if ids is None:
        ids = tuple(blocks)
    out = {}
    for bid, loc in zip(ids, locs):
        if loc in out:
            out[loc].append(bid)
        else:
            out[loc] = [bid]
    entry = (ids, locs, out)
    recent.insert(0, entry)
    del recent[_RECENT_SIZE:]
    _keep(_ENTRIES, id(out), entry, 2 * _SEALED_SIZE)
    return out


# the ids of the blocks in their records' order and each one's position there (the order of
# the index's lists), for the last order seen: every state of a game has the same
_ORDER: tuple[tuple[str, ...], dict[str, int]] = ((), {})


def _shift(entry: tuple[tuple[str, ...], tuple[str, ...], dict[str, list[str]]],
           went: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, list[str]]]:
    """The placement after the moves from the placement ``entry`` (ids, locations, index)
    and where the blocks that moved went (each a block the step put elsewhere than its
    input had it): exactly what a new scan would build (lists in the records' order, places
    in the order of their first block), made from the few places that changed."""
    base = entry[2]
    ids, locs = entry[0], entry[1]
    global _ORDER
    order = _ORDER
    if order[0] is not ids:
        # replaced whole (one assignment), never edited: another thread sees one pair or
        # the other, each consistent
        order = (ids, order[1] if order[0] == ids else {bid: i for i, bid in enumerate(ids)})
        _ORDER = order
    position: dict[str, int] = order[1]
    now = list(locs)
    for bid, loc in went.items():
        now[position[bid]] = loc
    new_locs = tuple(now)
    for i, seen in enumerate(_RECENT):
        if seen[1] == new_locs and seen[0] == ids:
            if i:
                _RECENT.insert(0, _RECENT.pop(i))
            return seen
    changed: dict[str, list[str]] = {}
    for bid, loc in went.items():
        old = locs[position[bid]]
        if old not in changed:
            changed[old] = [b for b in base[old] if b not in went]
        if loc not in changed:
            changed[loc] = [b for b in base.get(loc, ()) if b not in went]
    for bid, loc in went.items():
        changed[loc].append(bid)
    reordered = False
    for loc, ids_there in changed.items():
        if ids_there:
            ids_there.sort(key=position.__getitem__)
            before = base.get(loc)
            if before is None or before[0] != ids_there[0]:
                reordered = True     # a new place, or a new first block: its rank may change
    out = base.copy()
    for loc, ids_there in changed.items():
        if ids_there:
            out[loc] = ids_there
        else:
            del out[loc]
    if reordered:
        # the places by their first block's position, sorted at C speed (no two places share
        # a first block, so the pairs never tie)
        firsts = map(position.__getitem__, map(_FIRST, out.values()))
        keys = list(map(_SECOND, sorted(zip(firsts, out))))
        out = dict(zip(keys, map(out.__getitem__, keys)))
    entry = (ids, new_locs, out)
    _RECENT.insert(0, entry)
    del _RECENT[_RECENT_SIZE:]
    table = _ENTRIES            # _keep, inline
    table[id(out)] = entry
    while len(table) > 2 * _SEALED_SIZE:
        try:
            table.popitem(last=False)
        except KeyError:        # another thread emptied it first
            break
    return entry
