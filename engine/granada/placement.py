"""Granada's location index (issue 15, issue 33): which blocks stand where, worked out as
cheaply as the rules ask for it, and never stored (a derived view of ``state["blocks"]``).

* During a read-only query (the legal actions of a state) the index is computed once
  (:class:`frozen_index`).
* A scan of the records compares the tuple of their locations with the placements seen last
  (``_RECENT``): the same placement comes back at every step.
* During an apply, the index of the input is shifted by the few blocks the step moved
  (:func:`_shifted`) instead of built again: exactly what a scan would build.

:mod:`engine.granada.state` re-exports :func:`by_location`, :func:`peek` and
:class:`frozen_index`; the rules modules reach them there.
"""

from __future__ import annotations

import operator
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
            index = memo[1] = _by_location(state)
        return index
    if state.__class__ is not dict:
        # an apply's step state: the index of its input (listed just before) serves as long
        # as no block the step reached has left the place it had there, and is shifted by the
        # few blocks that did rather than built again (issue 33)
        moved = _moved(state)
        if moved is not None:
            base = getattr(state, "base_index", None)
            if base is None:
                base = _by_location(state._src)   # type: ignore[attr-defined]
                state.base_index = base           # type: ignore[attr-defined]
            if not moved:
                return base
            blocks: Any = dict.get(state, "blocks")
            # a step asks again and again after its moves: the same moves, the same index
            key = tuple(sorted((b, dict.__getitem__(blocks, b)["loc"]) for b in moved))
            seen = getattr(state, "shifted", None)
            if seen is not None and seen[0] == key and seen[1] is base:
                again: dict[str, list[str]] = seen[2]
                return again
            shifted = _shifted(base, blocks, moved)
            if shifted is not None:
                state.shifted = (key, base, shifted)   # type: ignore[attr-defined]
                return shifted
    return _by_location(state)


def _moved(state: State) -> list[str] | None:
    """The blocks a step state's records put elsewhere than its input had them (None: the
    step replaced the records or added one, so only a new scan can tell)."""
    blocks = dict.get(state, "blocks")
    if blocks is None:
        return []                    # no record reached yet
    moved = getattr(blocks, "moved", None)
    if moved is None:
        return None
    found: list[str] | None = moved()
    return found


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
    recent.insert(0, (ids, locs, out))
    del recent[_RECENT_SIZE:]
    return out


# the ids of the blocks in their records' order and each one's position there (the order of
# the index's lists), for the last order seen: every state of a game has the same
_ORDER: tuple[tuple[str, ...], dict[str, int]] = ((), {})


def _shifted(base: dict[str, list[str]], blocks: Any, moved: list[str]) -> dict[str, list[str]] | None:
    """The index of ``base``'s placement after the blocks ``moved`` went where ``blocks`` (a
    step's records) now have them: exactly what a new scan would build (lists in the records'
    order, places in the order of their first block), made from the few places that changed.
    None when ``base`` is no longer among the recent placements (then a scan builds it)."""
    entry = next((e for e in _RECENT if e[2] is base), None)
    if entry is None:
        return None
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
    went: dict[str, str] = {}
    for bid in moved:
        loc = dict.__getitem__(blocks, bid)["loc"]
        now[position[bid]] = loc
        went[bid] = loc
    new_locs = tuple(now)
    for i, (seen_ids, seen_locs, out) in enumerate(_RECENT):
        if seen_locs == new_locs and seen_ids == ids:
            if i:
                _RECENT.insert(0, _RECENT.pop(i))
            return out
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
    _RECENT.insert(0, (ids, new_locs, out))
    del _RECENT[_RECENT_SIZE:]
    return out
