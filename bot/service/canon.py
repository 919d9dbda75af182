"""The canonical text of a state (``bot.models.dumps``), made from the last state's.

Every step stores the hash of the new state's canonical text, and encoding a whole Granada
state (up to 65 KB, most of it the log) was a quarter of a step's cost (issue 13). But a step
changes little: engines build the next state sharing every part they do not change, and
never change a state once made (the contract: ``apply`` never changes its input). So the
text of a part that is the very object it was in the last state is the text it had then;
a list that only grew (the log) keeps its old items' texts; a dict keeps its untouched
values' texts. Two levels deep is enough: below that, parts are small.

Engines also copy parts they do not change (Granada copies every top-level list and dict at
each step, and a block record it only read): such a copy has the very same objects at its
leaves, so it is recognised as one (:func:`same_text`, at C speed where the copy is shallow)
and keeps the text of the part it copies, instead of being encoded again (issue 13: most of
what was left of a step's canonical text).

The result is exactly ``dumps(state)`` (tests/bot/test_canon.py): each part is encoded by
``dumps``' own encoder (called straight, :func:`_direct_encoder`), and only the joining of
sorted keys and items is done here, as ``dumps`` does it (sorted keys, no spaces).

A step needs the whole text only for its hash, and a snapshot every few moves: the hash is
read on from the digest of the last state's text before the first part the step changed
(:class:`Canonical`), and the text joined only when asked for (issue 33).
"""

from __future__ import annotations

import hashlib
import json.encoder
import operator
from collections.abc import Callable, Iterator
from itertools import compress
from typing import Any

from bot.models import _CANONICAL, dumps


def _direct_encoder() -> Callable[[Any], str]:
    """``dumps``, calling the C encoder straight: ``JSONEncoder.encode`` builds a new C
    encoder at every call, which cost more than encoding a small part (a step encodes some
    ten). The very options of ``dumps``' encoder (sorted keys, no spaces, ASCII, no NaN), so
    the very text (tests/bot/test_canon.py); only a value that holds itself, which no state
    does, fails otherwise (RecursionError, not ValueError: no circular check)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        return dumps
    encode = make(None, _CANONICAL.default, json.encoder.encode_basestring_ascii, None, ":", ",",
                  True, False, False)

    def text(value: Any) -> str:
        return str(encode(value, 0)[0])
    return text


quick_dumps = _direct_encoder()
"""``dumps``, quicker: the text of a part or an item."""

_key: Callable[[str], str] = json.encoder.encode_basestring_ascii
"""The text of a dict key, as ``dumps`` writes it (keys are strings: states are JSON)."""

_LONG = 256
"""A part whose text was at least this long has its items' texts kept, whatever its number of
items (a stack of two frames, of which a step changes one): encoding it whole again costs
more than reusing the texts of the items the step did not change."""


class _Part:
    """A part of a state and its text (a plain class with slots: a step makes several, and a
    frozen dataclass's ``__init__`` costs several times a plain one's)."""

    __slots__ = ("value", "text", "listed", "keyed")

    def __init__(self, value: Any, text: str, listed: tuple[list[Any], list[str]] | None = None,
                 keyed: tuple[list[str], list[Any], list[str]] | None = None) -> None:
        self.value = value
        self.text = text
        self.listed = listed
        """A list's items (the list itself: states are never changed) and their texts."""
        self.keyed = keyed
        """A dict's keys in canonical (sorted) order, its values and their pieces
        ``"key":text`` in that order (lists, so that a step's changes are found by comparing
        them at C speed)."""


class Canonical:
    """A state, its canonical text, and its parts by key, with their pieces ``"key":text``
    (to make the next state's), and the hash of its text (``bot.service.deltas.state_hash``).

    A state made by parts has its text joined only when asked for (a step needs it only for a
    snapshot, every ``SNAPSHOT_EVERY`` moves), and its hash made from where its text first
    differs from the last state's: SHA-256 reads its input in order, so the digest of the text
    before the first piece a step changed is the last state's, kept at a few points
    (``marks``), and only the rest is read again (most of a Granada step's changes are in
    its last parts: the stack, the log, the discards)."""

    __slots__ = ("state", "parts", "pieces", "marks", "_text", "_hash")

    def __init__(self, state: Any, text: str | None, parts: dict[str, tuple[_Part, str]] | None,
                 pieces: list[str] | None = None, marks: list[tuple[int, Any]] | None = None,
                 digest: str | None = None) -> None:
        self.state = state
        self.parts = parts
        """None when the text was made whole (no state before it was known)."""
        self.pieces = pieces
        """The pieces of ``parts`` in their (sorted) order, when made by parts."""
        self.marks = marks
        """(i, the SHA-256 of the text before piece i) at a few i, in order, when made by parts."""
        self._text = text
        self._hash = digest

    @property
    def text(self) -> str:
        """The canonical text, ``dumps(state)``."""
        if self._text is None:
            assert self.pieces is not None
            self._text = _braced(self.pieces.copy())
        return self._text

    @property
    def hash(self) -> str:
        """``bot.service.deltas.state_hash(self.text)``."""
        if self._hash is None:
            self._hash = _digest(hashlib.sha256(self.text.encode()))
        return self._hash


_HASHED = 16
"""The hex digits of a state's hash (``bot.service.deltas.state_hash``)."""

_MARK_EVERY = 2048
"""Characters of a text between two kept digests of its start (``Canonical.marks``): a copy
of a digest costs about what reading some hundred characters does."""


def _digest(hasher: Any) -> str:
    return str(hasher.hexdigest()[:_HASHED])


def state_hash(text: str) -> str:
    """A short fingerprint of a state's canonical text, kept with every move (a state made by
    parts has it made as its text is: ``Canonical.hash``)."""
    return _digest(hashlib.sha256(text.encode()))


def _hashed(pieces: list[str], marks: list[tuple[int, Any]] | None, pieces_before: list[str] | None) -> tuple[
        list[tuple[int, Any]], str]:
    """The marks and the hash of the text ``"{" + ",".join(pieces) + "}"``, reading it from
    the last of ``marks`` (those of the text of the pieces ``pieces_before``) before the
    first piece that is not the very one it was there."""
    start, hasher, kept = 0, None, []
    if marks and pieces_before is not None and len(pieces_before) == len(pieces):
        first = next(compress(range(len(pieces)), map(operator.is_not, pieces, pieces_before)), len(pieces))
        for mark in marks:
            if mark[0] > first:
                break
            kept.append(mark)
        if kept:
            start, hasher = kept[-1]
            hasher = hasher.copy()
    if hasher is None:
        hasher = hashlib.sha256(b"{")
        kept = [(0, hasher.copy())]
    n = len(pieces)
    i = start
    while i < n:
        # the pieces up to the next mark, some _MARK_EVERY characters on
        j, size = i, 0
        while j < n and size < _MARK_EVERY:
            size += len(pieces[j]) + 1
            j += 1
        hasher.update((",".join(pieces[i:j]) + ("," if j < n else "}")).encode())
        if j < n:
            kept.append((j, hasher.copy()))
        i = j
    if not pieces:
        hasher.update(b"}")
    return kept, _digest(hasher)


def canonical(state: Any, before: Canonical | None = None, *, learn: bool = True) -> Canonical:
    """The canonical text of ``state``, reusing ``before``'s texts of the parts ``state``
    shares with it (any ``before``, even another game's, gives the right text).

    Without ``before`` (a game loaded cold), the text is made whole, in one call of the C
    encoder: a step of a cold game costs no more than it did. The texts of the parts are
    learnt at the next step, when a game is being played (issue 13's two figures: the cold
    step, and a hot game's steps).

    ``learn=False``: the large parts whose items' texts are not known yet are encoded whole,
    or extended when they only grew (a log), without learning their items' texts, which
    costs some three encodings of them, paid back only by later steps: for a game loaded
    cold, whose state's text is made by parts from the start (:func:`by_parts`), and whose
    command's steps then re-encode only the parts they change (issue 33)."""
    if before is None or state.__class__ is not dict:
        return Canonical(state, quick_dumps(state), None)
    old = before.parts or {}
    last_state = before.state
    if old and last_state.__class__ is dict and len(old) == len(state) and last_state.keys() == state.keys():
        # The keys of the last state (its parts are in their sorted order): only the parts
        # that are not the very objects of the last state are looked at, found at C speed.
        keys = list(old)
        parts = old.copy()
        changed: Iterator[str] = compress(keys, map(operator.is_not, map(state.__getitem__, keys),
                                                    map(last_state.__getitem__, keys)))
    elif all(k.__class__ is str for k in state):
        keys = sorted(state)
        parts = {}
        changed = iter(keys)
    else:
        return Canonical(state, quick_dumps(state), None)
    for key in changed:
        value = state[key]
        last = old.get(key)
        if last is not None and last[0].value is value:
            parts[key] = last
        else:
            part = _part(value, last[0] if last is not None else None, learn)
            # a copy keeps the very text, and so the piece, of the part it copies
            parts[key] = (part, last[1] if last is not None and part.text is last[0].text
                          else _key(key) + ":" + part.text)
    pieces = list(map(_piece, parts.values()))
    marks, digest = _hashed(pieces, before.marks, before.pieces)
    return Canonical(state, None, parts, pieces, marks, digest)


def _braced(pieces: list[str]) -> str:
    """``"{" + ",".join(pieces) + "}"``, copying the long text once, not three times (the
    braces go on the first and last pieces, which are short)."""
    if not pieces:
        return "{}"
    pieces[0] = "{" + pieces[0]
    pieces[-1] += "}"
    return ",".join(pieces)


_piece = operator.itemgetter(1)


_ITEMISED = 16
"""Parts with fewer items are encoded whole: one call of the C encoder costs less than
reusing a few items' texts (engines copy their small parts at every step anyway)."""


def same_text(new: Any, old: Any) -> bool:
    """Whether ``new`` and ``old`` have one canonical text (the one test of it: a step's
    text reuse here and the move delta's comparison of parts, ``bot.service.storage``).

    Exact, not merely equal: Python finds ``1 == True == 1.0`` and ``0.0 == -0.0``, which
    JSON prints apart, so a leaf of another type, or a float of another ``repr`` (JSON prints
    a float as its ``repr``), is a change. A value that is ``old`` itself, or a copy holding
    its very objects (engines copy parts they do not change), is recognised at C speed."""
    if new is old:
        return True
    kind = new.__class__
    if kind is not old.__class__:
        return False
    if kind is list:
        return len(new) == len(old) and (all(map(operator.is_, new, old)) or all(map(same_text, new, old)))
    if kind is dict:
        if len(new) != len(old):
            return False
        if all(map(operator.is_, new, old)) and all(map(operator.is_, new.values(), old.values())):
            return True  # a shallow copy (the same keys in the same order, the same values)
        for key, value in new.items():
            if key.__class__ is not str or key not in old or not same_text(value, old[key]):
                return False
        return True
    if kind is float:
        return bool(new == old) and repr(new) == repr(old)
    return (kind is str or kind is int or kind is bool) and new == old


def _shallow_copy_of(new: Any, old: Any) -> bool:
    """Whether the list or dict ``new`` holds the very items of ``old`` (a shallow copy), at C
    speed."""
    if new.__class__ is not old.__class__ or len(new) != len(old):
        return False
    if new.__class__ is dict:
        return all(map(operator.is_, new, old)) and all(map(operator.is_, new.values(), old.values()))
    return all(map(operator.is_, new, old))


_NO_PARTS = Canonical(None, "", {})
"""A Canonical of no part: what :func:`by_parts` makes a state's parts from."""


def by_parts(state: Any) -> Canonical:
    """The canonical text of ``state`` made part by part, each part whole (about what one
    encoding of the whole state costs), so that the steps of a game loaded cold re-encode
    only the parts they change (``canonical(..., learn=False)``)."""
    return canonical(state, _NO_PARTS, learn=False)


def _part(value: Any, last: _Part | None, learn: bool = True) -> _Part:
    kind = value.__class__
    if kind is not list and kind is not dict:
        # a leaf: encoding it costs no more than comparing it
        return _Part(value, quick_dumps(value))
    small = len(value) < _ITEMISED and (last is None or len(last.text) < _LONG)
    if last is not None and (same_text(value, last.value) if small else _shallow_copy_of(value, last.value)):
        # a copy the step did not change: the old text, and the old items' texts (the next
        # step compares its items with the old ones, which the copy holds too, or equals;
        # a large part a step changed deep inside is compared item by item below)
        return _Part(value, last.text, last.listed, last.keyed)
    if small:
        return _Part(value, quick_dumps(value))
    if not learn and (last is None or (last.listed is None and last.keyed is None)):
        if (last is not None and kind is list and last.value.__class__ is list and len(last.value) <= len(value)
                and all(map(operator.is_, last.value, value))):
            # it only grew (a log): the old text, cut before its "]", goes on
            return _Part(value, _grown(last.text, len(last.value), list(map(quick_dumps, value[len(last.value):]))))
        return _Part(value, quick_dumps(value))
    if kind is list:
        listed = last.listed if last is not None else None
        olds, texts = listed if listed is not None else ([], [])
        n = len(olds)
        if last is not None and listed is not None and n <= len(value) and all(map(operator.is_, olds, value)):
            # it only grew (a log): the old text, cut before its "]", goes on
            extra = list(map(quick_dumps, value[n:]))
            return _Part(value, _grown(last.text, n, extra), listed=(value, texts + extra))
        texts = [texts[i] if i < n and (olds[i] is v or same_text(v, olds[i])) else quick_dumps(v)
                 for i, v in enumerate(value)]
        return _Part(value, "[" + ",".join(texts) + "]", listed=(value, texts))
    keyed = last.keyed if last is not None else None
    if keyed is not None and last is not None and last.value.keys() == value.keys():
        # the same keys (in keyed's order): only the values that are not the very ones
        # of the last state are looked at
        keys, olds, pieces = keyed
        news = list(map(value.__getitem__, keys))
        replaced = False
        for i in compress(range(len(news)), map(operator.is_not, news, olds)):
            v = news[i]
            if not same_text(v, olds[i]):
                if not replaced:
                    pieces, replaced = pieces.copy(), True
                pieces[i] = _key(keys[i]) + ":" + quick_dumps(v)
        return _Part(value, _braced(pieces.copy()) if replaced else last.text, keyed=(keys, news, pieces))
    if not all(k.__class__ is str for k in value):
        return _Part(value, quick_dumps(value))
    was = dict(zip(keyed[0], zip(keyed[1], keyed[2], strict=True), strict=True)) if keyed is not None else {}
    keys = sorted(value)
    news = [value[k] for k in keys]
    pieces = []
    for k, v in zip(keys, news, strict=True):
        seen = was.get(k)
        pieces.append(seen[1] if seen is not None and (seen[0] is v or same_text(v, seen[0]))
                      else _key(k) + ":" + quick_dumps(v))
    return _Part(value, _braced(pieces.copy()), keyed=(keys, news, pieces))


def _grown(text: str, n: int, extra: list[str]) -> str:
    """The text of a list of ``n`` items, ``text``, with the items of texts ``extra`` after
    them (a log that grew), copying the long text once."""
    if not extra:
        return text
    return "".join((text[:-1], ",", ",".join(extra), "]") if n else ("[", ",".join(extra), "]"))


def text_delta(before: Canonical, after: Canonical) -> dict[str, Any]:
    """What turns ``before``'s state into ``after``'s, in the form of
    ``bot.service.deltas.state_delta``, found by comparing the parts' texts (which is how
    that delta compares parts: by canonical text) instead of walking both states. A changed
    item of a dict part is replaced whole; a list part that kept its first items is cut and
    extended (a log grows by its new lines)."""
    if before.parts is None or after.parts is None:
        raise ValueError("a delta by texts needs the texts of both states' parts")
    keys: dict[str, Any] = {}
    for key, (part, piece) in after.parts.items():
        last = before.parts.get(key)
        if last is None:
            keys[key] = {"=": part.value}
        elif last[1] is not piece and last[1] != piece:
            keys[key] = _part_delta(last[0], part)
    gone = [key for key in before.parts if key not in after.parts]
    return {"{": keys, "-": gone} if gone else {"{": keys}


def text_delta_text(before: Canonical, after: Canonical) -> str:
    """``dumps(text_delta(before, after))``, written from the texts the parts and their items
    already have: a step's delta holds the parts it changed, whose canonical texts were just
    made, and encoding them again was most of its cost. The pieces are joined as ``dumps``
    joins them (sorted keys, no spaces)."""
    if before.parts is None or after.parts is None:
        raise ValueError("a delta by texts needs the texts of both states' parts")
    keys: list[str] = []
    olds, news = before.pieces, after.pieces
    if olds is not None and news is not None and len(olds) == len(news) and before.parts.keys() == after.parts.keys():
        # the same keys, in the same (sorted) order: only the pieces that are not the very
        # ones of the state before are looked at, found at C speed
        entries = list(after.parts.values())
        lasts = list(before.parts.values())
        for i in compress(range(len(news)), map(operator.is_not, news, olds)):
            part, piece = entries[i]
            if olds[i] != piece:
                keys.append(piece[:len(piece) - len(part.text)] + _part_delta_text(lasts[i][0], part))
        return '{"{":{' + ",".join(keys) + "}}"
    for key, (part, piece) in after.parts.items():
        last = before.parts.get(key)
        if last is None:
            keys.append(piece[:len(piece) - len(part.text)] + '{"=":' + part.text + "}")
        elif last[1] is not piece and last[1] != piece:
            keys.append(piece[:len(piece) - len(part.text)] + _part_delta_text(last[0], part))
    # after.parts holds its keys sorted (canonical), as dumps writes them
    changed = "{" + ",".join(keys) + "}"
    gone = [key for key in before.parts if key not in after.parts]
    return '{"-":' + quick_dumps(gone) + ',"{":' + changed + "}" if gone else '{"{":' + changed + "}"


def _part_delta_text(old: _Part, new: _Part) -> str:
    """``dumps(_part_delta(old, new))``, from the texts of ``new``'s items."""
    if old.listed is None and old.keyed is None and _large(old.value) and _large(new.value):
        return quick_dumps(_value_delta(old.value, new.value))  # made whole: the items' texts unknown
    if old.listed is not None and new.listed is not None:
        new_texts = new.listed[1]
        keep = _kept(old.listed[1], new_texts)
        return ('{"+":[' + ",".join(new_texts[keep:]) + '],"[":' + str(keep) + "}" if keep
                else '{"=":' + new.text + "}")
    if old.keyed is not None and new.keyed is not None:
        changed = _changed_items(old, new)
        pieces = ",".join([_with_value(k, piece) for k, _v, piece in changed])
        gone = [k for k in old.keyed[0] if k not in new.value]
        return ('{"-":' + quick_dumps(gone) + ',"{":{' + pieces + "}}" if gone else '{"{":{' + pieces + "}}")
    return '{"=":' + new.text + "}"


def _changed_items(old: _Part, new: _Part) -> list[tuple[str, Any, str]]:
    """The items of the dict part ``new`` whose pieces are not ``old``'s (new or changed), as
    (key, value, piece), keys in canonical order."""
    assert old.keyed is not None and new.keyed is not None
    old_keys, _olds, old_pieces = old.keyed
    keys, values, pieces = new.keyed
    if old_keys is keys or old_keys == keys:
        return [(keys[i], values[i], pieces[i])
                for i in compress(range(len(pieces)), map(operator.is_not, pieces, old_pieces))
                if pieces[i] != old_pieces[i]]
    was = dict(zip(old_keys, old_pieces, strict=True))
    return [(k, v, piece) for k, v, piece in zip(keys, values, pieces, strict=True)
            if (seen := was.get(k)) is None or (seen is not piece and seen != piece)]


def _kept(olds: list[str], new_texts: list[str]) -> int:
    """How many of a list's first items' texts a step left as they were (a log only grows)."""
    keep = 0
    for a, b in zip(olds, new_texts, strict=False):
        if a is not b and a != b:
            break
        keep += 1
    return keep


def _with_value(key: str, piece: str) -> str:
    """The piece ``"key":{"=":text}`` of a dict item replaced, from its piece ``"key":text``."""
    head = len(_key(key)) + 1
    return piece[:head] + '{"=":' + piece[head:] + "}"


def _part_delta(old: _Part, new: _Part) -> dict[str, Any]:
    if old.listed is None and old.keyed is None and _large(old.value) and _large(new.value):
        return _value_delta(old.value, new.value)  # made whole (``learn=False``)
    if old.listed is not None and new.listed is not None:
        keep = _kept(old.listed[1], new.listed[1])
        return {"[": keep, "+": new.value[keep:]} if keep else {"=": new.value}
    if old.keyed is not None and new.keyed is not None:
        keys = {k: {"=": v} for k, v, _piece in _changed_items(old, new)}
        gone = [k for k in old.keyed[0] if k not in new.value]
        return {"{": keys, "-": gone} if gone else {"{": keys}
    return {"=": new.value}


def kept_prefix(old: list[Any], new: list[Any]) -> int:
    """How many first items ``new`` keeps of ``old`` (:func:`same_text`): a list that grew or
    changed at its end is written in a delta as that count and its new tail."""
    keep = 0
    for a, b in zip(old, new, strict=False):
        if not same_text(b, a):
            break
        keep += 1
    return keep


def _large(value: Any) -> bool:
    return (value.__class__ is list or value.__class__ is dict) and len(value) >= _ITEMISED


def _value_delta(old: Any, new: Any) -> dict[str, Any]:
    """The delta of a part whose items' texts are not known (made whole, ``learn=False``): a
    list that kept its first items is cut and extended, a dict's changed items are replaced,
    anything else replaced whole, as :func:`_part_delta` does with the items' texts."""
    if old.__class__ is list and new.__class__ is list:
        keep = kept_prefix(old, new)
        return {"[": keep, "+": new[keep:]} if keep else {"=": new}
    if old.__class__ is dict and new.__class__ is dict:
        keys = {k: {"=": v} for k, v in new.items() if k not in old or not same_text(v, old[k])}
        gone = [k for k in old if k not in new]
        return {"{": keys, "-": gone} if gone else {"{": keys}
    return {"=": new}
