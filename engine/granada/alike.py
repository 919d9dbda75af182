"""One menu entry per choice that has one effect (issue 38).

Granada's pieces come in identical copies: two Andalusies 1-shield blocks in the bag, two
Muslim fleets in reserve, two Castile cards (bid 4, naval 3) in hand. Listed one entry each,
they read alike but for their ids (``Muster Andalusies 1-shield (K12) alone, unseen`` /
``(K13)``), which the picture never shows, and a player cannot choose between them: neither
choice does anything the other does not. So the menu lists one entry per class of choices
with the same effect, the first of each class in the rules' own order; ``apply`` still
accepts every copy (it checks an order against the full list), so older logs replay.

Two choices are one class only when nothing the rules or either player's knowledge reads
tells their pieces apart: the same order apart from the piece, the same printed values
(:mod:`components`: everything but the id), and a position that stays the same when the two
ids are swapped everywhere in it (where each stands, inside or not, moved or fresh, revealed
or not, which the opponent has identified, in hand or shown from it, named by a decision
frame...). A block the opponent has seen and one he has not, a card he saw in a hand and one
he did not, stay two entries, and their labels say how they differ.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from itertools import chain, repeat
from typing import Any

from engine.api import MARKERS, Action
from engine.granada import placement
from engine.granada import state as st

# the order fields that name a piece (one_per_effect has them unrolled, in this order)
PIECE_FIELDS = ("block", "card", "fleet")

# top-level keys of the state whose lists are sets: the order of their ids means nothing
_UNORDERED = frozenset({"hands", "hand_known", "known", "discards", "battle_discard", "surrender"})

# what every choice shares and no rule reads: the history of the game and its generator
_IGNORED = frozenset({"log", "rng", "reveals"})


@functools.cache
def _printed(piece: str) -> Any:
    """The printed values of a piece, its id left out (None: not a piece of the data)."""
    d = st.data()
    item = d.blocks.get(piece) or d.cards.get(piece) or d.optional_cards.get(piece)
    return None if item is None else dataclasses.replace(item, id="")


_FACES: dict[Any, str] = {}
_UNSET = object()


@functools.cache
def _face(piece: str) -> str | None:
    """A piece standing for every piece of the same printed values (None: not a piece of the
    data): a string, cheaper to hash than the values themselves."""
    printed = _printed(piece)
    return None if printed is None else _FACES.setdefault(printed, piece)


def _swap(value: Any, a: str, b: str) -> Any:
    """``value`` with the ids ``a`` and ``b`` swapped wherever they stand as a whole string
    (keys and values; texts that mention them are not ids)."""
    if isinstance(value, str):
        return b if value == a else a if value == b else value
    if isinstance(value, dict):
        return {_swap(k, a, b): _swap(v, a, b) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_swap(v, a, b) for v in value)
    return value


def _as_set(value: Any) -> Any:
    """A list of ids of an unordered key, compared as a set of its entries."""
    if isinstance(value, dict):
        return {k: _as_set(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted(map(repr, value))
    return value


def _position(state: dict[str, Any]) -> dict[str, Any]:
    return {k: (_as_set(v) if k in _UNORDERED else v) for k, v in state.items() if k not in _IGNORED}


def _noted(state: dict[str, Any], piece: str) -> tuple[bool, ...]:
    """In which of the lists of what a player has seen ``piece`` stands (a quick test before
    the whole position is compared)."""
    return tuple(piece in ids for key in ("known", "hand_known") for ids in state.get(key, {}).values())


def interchangeable(state: dict[str, Any], a: str, b: str, position: Any = None,
                    in_records: set[Any] | None = None) -> bool:
    """Whether the pieces ``a`` and ``b`` are alike in every printed value and the position
    stays the same when they trade places: then whatever is done with one has the effect
    of doing it with the other. ``position`` (``_position(state)``) is no longer needed: kept
    for callers that pass it.

    The definition is ``_position(_swap(state)) == _position(state)`` (:func:`_same_swapped`);
    this answers the same without building the swapped copy of the whole state, a
    millisecond a call (issue 33): each part of the position is compared as itself with
    :func:`_invariant`, and only a part that names one of the two ids is swapped.
    ``in_records`` (:func:`_record_values` of this very state, unchanged since) lets the
    block records pass without a look when neither id stands in one: a menu compares
    several pairs in one state, and the records were most of a pair's look (issue 33).
    The parts that by their shape hold no id of the two pieces' kind (:func:`_free_parts`:
    the hands for two blocks, the records for two cards) are passed without a look, which
    was most of what was left (issue 33); under the tests (placement.VERIFY) they are looked
    at anyway, and one that breaks its shape fails."""
    if a == b:
        return True
    printed = _printed(a)
    if printed is None or printed != _printed(b):
        return False
    blocks = state.get("blocks", {})
    if blocks.get(a) != blocks.get(b) or _noted(state, a) != _noted(state, b):
        return False
    # the parts that by their shape hold no id of a piece of this kind (cards in a hand for two
    # blocks, the control pieces for any two pieces): most of a pair's look (issue 33)
    table = _free_parts()
    free = table.get(a, ())
    if table.get(b) is not free:
        free = ()
    for key, value in state.items():
        if key in _IGNORED:
            continue
        if key in free:
            if placement.VERIFY:
                assert _invariant(value, a, b), f"state[{key!r}] holds the id {a} or {b} (STATE SHAPE)"
            continue
        if key in (a, b):       # a part named by one of the ids: the definition itself
            return _same_swapped(state, a, b)
        if key == "blocks" and in_records is not None and value is blocks \
                and a not in in_records and b not in in_records:
            continue            # their own records are equal (above); no record names either
        cls = value.__class__
        if cls in _SCALARS or (cls is str and value != a and value != b):
            continue            # _invariant's answer for a scalar, without its call
        if key in _UNORDERED and cls is dict:
            same = _same_counts(value, a, b)
            if same is not None:
                if same:
                    continue
                return False
        if _invariant(value, a, b):
            continue
        if key not in _UNORDERED or _as_set(_swap(value, a, b)) != _as_set(value):
            return False
    return True


# the parts of the state (STATE SHAPE, engine.granada.state) that by their shape hold no id
# of a piece of a kind: their strings are places, sides, disks, card ids, or (known,
# boabdil) block ids and the words of a Boabdil placement. The block records name no block
# but a fleet (carried_by): for two other blocks whose records are equal, swapping them
# leaves the records as they are
_HOLD_NO_BLOCK = frozenset({"disks", "control", "castle", "hands", "decks", "discards", "battle_discard",
                            "surrender", "hand_known", "bids", "entries", "removed_cards"})
_HOLD_NO_CARD = frozenset({"disks", "control", "castle", "known", "entries", "boabdil", "blocks"})
# what those parts hold besides ids (STATE SHAPE): where a block stands, and the words above
_WORDS = frozenset({"muster", "place", "wait", "return", "palace", "boabdil_box", "eliminated", "aside",
                    "captured", "removed"})


@functools.cache
def _free_parts() -> dict[str, frozenset[str]]:
    """piece id -> the parts of the state that hold no id of a piece of its kind (static
    data): fleets, the other blocks, cards. Empty when an id of the kind is also a word
    those parts hold otherwise (a place, a side...): then no part is passed unlooked."""
    d = st.data()
    words = set(_WORDS) | set(d.locations) | set(d.disks) | set(st.SIDES) | set(st.DISKS)
    words |= {f"sea:{z}" for z in d.sea_zones} | {f"{box}:{side}" for box in ("bag", "recruit") for side in st.SIDES}
    fleets = {b for b, blk in d.blocks.items() if blk.fleet}
    others = set(d.blocks) - fleets
    cards = set(d.cards) | set(d.optional_cards)
    out: dict[str, frozenset[str]] = {}
    for ids, free, beside in ((fleets, _HOLD_NO_BLOCK, cards | others), (others, _HOLD_NO_BLOCK | {"blocks"}, cards | fleets),
                              (cards, _HOLD_NO_CARD, fleets | others)):
        if not ids & (words | beside):
            out.update(dict.fromkeys(ids, free))
    return out


def _same_counts(value: dict[str, Any], a: str, b: str) -> bool | None:
    """The last test of :func:`interchangeable` for a part whose lists are sets of ids (a
    hand, a deck, what a player has seen): swapping ``a`` and ``b`` leaves a list of
    strings and numbers the same set (:func:`_as_set`) exactly when it holds as many of
    one as of the other. None for another shape (a list that holds containers, an id as a
    key): then the swapped copy decides. Where both cards are in a hand, the copy and its
    sorted texts were most of a menu of two alike cards (issue 33)."""
    if a in value or b in value:
        return None
    for ids in value.values():
        if ids.__class__ is not list or not set(map(type, ids)) <= _FLAT:
            return None
        if ids.count(a) != ids.count(b):
            return False
    return True


def _record_values(state: dict[str, Any]) -> set[Any] | None:
    """Every key and value of every block record (None when one is not a flat record)."""
    blocks = state.get("blocks")
    if not isinstance(blocks, dict):
        return None
    try:
        found = set(chain.from_iterable(map(dict.values, blocks.values())))
        found.update(chain.from_iterable(map(dict.keys, blocks.values())))
    except TypeError:
        return None
    return found


# the fields of a block record (STATE SHAPE, engine.granada.state): of their values only
# "loc" and "carried_by" are strings, the others flags
_RECORD_FIELDS = frozenset({"loc", "revealed", "inside", "carried_by", "moved", "fresh"})
_LOC = operator.itemgetter("loc")
_CARRIER = operator.itemgetter("carried_by")


def _record_strings(state: dict[str, Any]) -> set[Any] | None:
    """:func:`_record_values` for what an id can equal (a string): the field names, the
    places and the carrying fleets of the records, at C speed from the two fields that hold
    strings (STATE SHAPE) rather than from every value of every record, which was half of a
    menu's comparison of two alike pieces (issue 33). The tests (placement.VERIFY) check it
    against :func:`_record_values` at every use."""
    blocks = state.get("blocks")
    if blocks.__class__ is not dict:
        return _record_values(state)
    records = blocks.values()
    try:
        found = set(map(_LOC, records))
        found.update(map(_CARRIER, records))
    except (KeyError, TypeError):
        return _record_values(state)
    found |= _RECORD_FIELDS
    if placement.VERIFY:
        every = _record_values(state)
        assert every is not None and {v for v in every if v.__class__ is str} <= found, (
            "a block record holds a string outside its fields loc and carried_by (STATE SHAPE)")
    return found


def _same_swapped(state: dict[str, Any], a: str, b: str) -> bool:
    """The definition of :func:`interchangeable`'s last test, on the whole state."""
    rest = {k: v for k, v in state.items() if k not in _IGNORED}
    return bool(_position(_swap(rest, a, b)) == _position(state))


_SCALARS = frozenset({bool, int, float, type(None)})
_FEW = 16
_FLAT = _SCALARS | {str}


def _invariant(value: Any, a: str, b: str) -> bool:
    """``_swap(value, a, b) == value`` without building the swapped copy: a dict that has
    both ids as keys must hold at each what the other holds, swapped; every other key, item
    and nested value must be invariant itself (``a != b``). A string equal to an id is a
    change. A collection of strings and numbers (a deck), or of flat records (the blocks),
    is looked at whole at C speed, without a call per item."""
    if isinstance(value, str):
        return value != a and value != b
    if isinstance(value, dict):
        has_a, has_b = a in value, b in value
        if has_a or has_b:
            if not (has_a and has_b):
                return False
            if _swap(value[a], a, b) != value[b] or _swap(value[b], a, b) != value[a]:
                return False
            rest = dict(value)       # the other entries, without a loop in Python
            del rest[a], rest[b]
            items: Any = rest.values()
        else:
            items = value.values()
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        return True
    kinds = set(map(type, items))
    if kinds <= _FLAT:
        # only a string equals a string; looked up in a set of them, which a few hundred
        # instructions each comparison of None (the control of a place) with a string cost
        # more than building (issue 33)
        found = set(items)
        return a not in found and b not in found
    if kinds == {dict} and len(items) > _FEW and not any(map(operator.contains, items, repeat(a))) \
            and not any(map(operator.contains, items, repeat(b))):
        # the records' distinct values in one pass (a list among them is not hashable: then
        # item by item below); of plain strings and numbers, only a string equals an id.
        # Only for many dicts (the block records): a few (the decision frames, the entries)
        # hold lists, and the TypeError that says so costs more than their loop (issue 33)
        try:
            distinct = set(chain.from_iterable(map(dict.values, items)))
        except TypeError:
            distinct = None
        if distinct is not None and set(map(type, distinct)) <= _FLAT:
            return a not in distinct and b not in distinct
    for v in items:
        # a scalar is answered here, without a call (a decision frame is mostly scalars, and
        # a call is a thousand instructions, issue 33)
        cls = v.__class__
        if cls is str:
            if v in (a, b):
                return False
        elif cls is list and set(map(type, v)) <= _FLAT:
            if a in v or b in v:          # a list of ids (a hand, a deck...): only a string equals an id
                return False
        elif cls not in _SCALARS and not _invariant(v, a, b):
            return False
    return True


def _facts(state: dict[str, Any], piece: str) -> dict[str, str]:
    """What a player may read about a piece beyond its printed values, each as a few words:
    where it stands, how it stands, whether the opponent has identified it."""
    d = st.data()
    out: dict[str, str] = {}
    rec = state.get("blocks", {}).get(piece)
    if rec is not None:
        opp = st.other(st.owner(piece))
        loc = str(rec.get("loc"))
        place = d.locations.get(loc)
        out["loc"] = f"at {place.name}" if place is not None else ""
        out["inside"] = "inside the castle" if rec.get("inside") else ""
        out["revealed"] = "face up" if rec.get("revealed") and place is not None else ""
        out["moved"] = "moved this turn" if rec.get("moved") else ""
        out["fresh"] = "arrived this turn" if rec.get("fresh") else ""
        seen = piece in state.get("known", {}).get(opp, ())
        out["known"] = f"identified by the {opp.capitalize()}" if seen else f"unknown to the {opp.capitalize()}"
        return out
    d_card = d.cards.get(piece) or d.optional_cards.get(piece)
    if d_card is not None:
        for side, held in state.get("hand_known", {}).items():
            if piece in state.get("hands", {}).get(side, ()):
                opp = st.other(side)
                seen = piece in held
                out["known"] = f"seen by the {opp.capitalize()}" if seen else f"unseen by the {opp.capitalize()}"
    return out


def _told_apart(state: dict[str, Any], group: list[Action], field: str) -> dict[int, Action]:
    """New entries (by the position of the old in ``group``) for entries whose pieces read
    alike but are not interchangeable (a block the opponent identified and one he did not):
    each label names, beside the id, what differs."""
    facts = [_facts(state, a[field]) for a in group]
    differ = [k for k in facts[0] if len({f.get(k, "") for f in facts}) > 1]
    out: dict[int, Action] = {}
    for i, (action, fact) in enumerate(zip(group, facts)):
        note = ", ".join(fact[k] for k in differ if fact.get(k))
        label = action.get("label")
        if not note or not isinstance(label, str):
            continue
        piece = action[field]
        out[i] = action | {"label": label.replace(f"{piece})", f"{note}, {piece})", 1) if f"{piece})" in label
                           else f"{label} ({note})"}
    return out


def one_per_effect(state: dict[str, Any], acts: list[Action]) -> tuple[list[Action], list[Action]]:
    """``acts`` (every legal order) and the menu: one entry per class of orders with the same
    effect (module docstring), the first of each in the order given. Entries that read alike
    and still differ get new labels that tell them apart (:func:`_told_apart`), in both lists
    (new dicts: the rules' own may be shared). Without alike entries, ``acts`` both times."""
    # most lists name no two pieces of one printed face: then no class can have two members,
    # whatever the rest of the orders says, and the answer is ``acts`` (issue 33: the full
    # keys below were a fifth of a step). One pass, each piece's face looked up in a plain
    # dict (no call per order), the faces of all three fields in one set: two pieces of one
    # face in different fields are no class, but only :func:`_classes` decides so, and such
    # a list is rare (a twentieth of a step was this loop and the one before it, issue 33)
    known = _FACE_OF or _faces()
    seen: set[Any] = set()
    for action in acts:
        # the first of PIECE_FIELDS the order has, unrolled
        if "block" in action:
            piece = action["block"]
        elif "card" in action:
            piece = action["card"]
        elif "fleet" in action:
            piece = action["fleet"]
        else:
            continue
        if piece.__class__ is not str and not isinstance(piece, str):
            continue
        try:
            face = known[piece]
        except KeyError:
            face = None             # (what _face says of a string that names no piece)
        if face in seen:
            return _classes(state, acts)
        seen.add(face)
    return acts, acts


_FACE_OF: dict[str, Any] = {}
"""Every piece of the data -> :func:`_face` (filled at the first list, :func:`_faces`)."""


def _faces() -> dict[str, Any]:
    d = st.data()
    _FACE_OF.update((piece, _face(piece)) for piece in chain(d.blocks, d.cards, d.optional_cards))
    return _FACE_OF


def _classes(state: dict[str, Any], acts: list[Action]) -> tuple[list[Action], list[Action]]:
    """:func:`one_per_effect` for a list where two orders name pieces of one face."""
    classes: dict[tuple[Any, ...], list[Action]] = {}
    out: list[Action] = []
    # the first of PIECE_FIELDS each order has, unrolled: a generator left before its end is
    # closed by an exception, some four thousand instructions (issue 33)
    fields = ["block" if "block" in action else "card" if "card" in action else "fleet" if "fleet" in action
              else None for action in acts]
    # an order whose piece's face no other order names is a class of its own, whatever the
    # rest of it says: its full key (a sorted repr of the order) is not worked out (issue 33)
    seen: dict[tuple[str, str | None], int] = {}
    # _record_strings, worked out at the first pair compared whose records may name one of them
    # (a pair of fleets: the carried blocks name theirs)
    in_records: Any = _UNSET
    for action, field in zip(acts, fields):
        if field is not None and isinstance(action[field], str):
            face = (field, _face(action[field]))
            seen[face] = seen.get(face, 0) + 1
    for action, field in zip(acts, fields):
        if field is None or not isinstance(action[field], str):
            out.append(action)
            continue
        if seen[(field, _face(action[field]))] == 1:
            out.append(action)
            continue
        rest = tuple(sorted((k, repr(v)) for k, v in action.items() if k != field and k not in MARKERS))
        key = (field, rest, _printed(action[field]))
        kept = classes.setdefault(key, [])
        if kept and in_records is _UNSET and "blocks" not in _free_parts().get(action[field], ()):
            in_records = _record_strings(state)     # (the records name no other piece)
        for other in kept:      # (a loop, not any() over a generator left before its end)
            if interchangeable(state, other[field], action[field],
                               in_records=None if in_records is _UNSET else in_records):
                break
        else:
            kept.append(action)
            out.append(action)
    if len(out) == len(acts) and max(map(len, classes.values()), default=0) <= 1:
        return acts, acts
    renamed: dict[int, Action] = {}
    for (field, _rest, printed), group in classes.items():
        if len(group) > 1 and printed is not None:
            renamed.update({id(group[i]): new for i, new in _told_apart(state, group, field).items()})
    if not renamed:
        return acts, out
    return [renamed.get(id(a), a) for a in acts], [renamed.get(id(a), a) for a in out]
