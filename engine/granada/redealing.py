"""The re-deal of Granada (views.py REDEAL): ``redeal`` and ``canonical``, made cheap (issue 33).

The service asks, after every step whose next step may be forced, the same question in two
re-dealt worlds per other seat (bot/service/forced.py), and the built-in player's search draws
one world per iteration from the canonical form: a re-deal cost as much as a whole step. Most
of that was a deep copy of the whole state (the log included) of which the re-deal changes
only a few parts, a JSON text of every hidden record to order them, and the generator's
calls. So the re-deal here:

* copies only what it changes (the block records it re-deals, the hands, decks and bids, the
  frames it renames or whose hooks re-deal them, the entries it renames) and shares the rest
  with its input, as apply does: states are values, nobody edits one in place (apply copies
  what it changes, engine.ai clones before it edits). Its input is never changed;
* renames the frames only when some record changed hands, and copies a frame only where a
  name changes;
* orders the canonical form's records by their JSON text remembered per record content, and
  by where the frames first name their holder only when two records have the same text;
* filters the log from the last re-deal's of the same game (the entries are never changed
  once written, so a longer log only adds lines);
* shuffles with engine.rng's Fisher-Yates, the generator's outputs of a shuffle computed
  all at once on one wide int (the same outputs, the same swaps, the same state after).

Every output is the one the plain re-deal gave (the deep copy, then the same steps in the
same order, in the same key order): tests/engine/granada/test_redeal_reference.py keeps that
code and compares over random games, frames of battles, sieges and sea battles included.
"""

from __future__ import annotations

import functools
import json
import marshal
import re
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from engine import rng
from engine.api import State
from engine.granada import state as st
from engine.granada.frames import deep_copy


@functools.cache
def _tables() -> tuple[dict[str, tuple[tuple[str, bool], ...]], frozenset[str]]:
    """Per side, the blocks a re-deal for the other side may draw again (not grey, not an
    optional piece), in id order, each with whether it is a fleet; and the public places."""
    d = st.data()
    cands = {side: tuple((bid, d.blocks[bid].fleet) for bid in sorted(d.blocks)
                         if d.blocks[bid].side == side and d.blocks[bid].colour != "grey"
                         and not d.blocks[bid].optional)
             for side in st.SIDES}
    return cands, frozenset(st.PUBLIC_PLACES)


def redeal(state: State, role: str, seed: int) -> State:
    return deal(state, role, rng.Generator(seed))


def canonical(state: State, role: str) -> State:
    return deal(state, role, None)


def _fixed_order(items: list[Any]) -> None:
    items.sort()


# The JSON text (sorted keys) of a block record, by its items: records take a few hundred
# contents in a game, and the canonical form orders every hidden one by its text.
_TEXTS: dict[tuple[tuple[str, Any], ...], str] = {}
_TEXTS_KEPT = 4096


def _text(rec: dict[str, Any]) -> str:
    key = tuple(rec.items())
    try:
        text = _TEXTS.get(key)
    except TypeError:        # a value that is a list or a dict: no key, no memo
        return json.dumps(rec, sort_keys=True)
    if text is None:
        if len(_TEXTS) >= _TEXTS_KEPT:
            _TEXTS.clear()
        text = _TEXTS[key] = json.dumps(rec, sort_keys=True)
    return text


@functools.cache
def _id_patterns() -> tuple[tuple[re.Pattern[bytes], ...], dict[bytes, str]]:
    """For :func:`_named`: per length of a block id, a pattern of the marshal text of a short
    ASCII string of that length made of the ids' characters (its length byte, then the
    characters); and the ids by their bytes."""
    ids = list(st.data().blocks)
    assert all(bid.isascii() and 0 < len(bid) < 256 for bid in ids)
    chars = b"".join(re.escape(bytes([c])) for c in sorted({c for bid in ids for c in bid.encode()}))
    patterns = tuple(re.compile(re.escape(bytes([n])) + b"([" + chars + b"]{%d})" % n)
                     for n in sorted({len(bid) for bid in ids}))
    return patterns, {bid.encode(): bid for bid in ids}


def _named(value: Any, ids: Iterable[str]) -> list[str]:
    """The ``ids`` (block ids) that may be strings (values or keys) somewhere in ``value``: a
    superset, found at C speed. Marshal writes an ASCII string shorter than 256 characters as
    its type, its length in one byte and its characters, in full at its first occurrence
    (later ones may be references back to it); the patterns find every such string of the
    ids' lengths and characters (a match never hides another: its characters are no length
    byte), among them every id named in ``value``."""
    blob = marshal.dumps(value, 4)
    patterns, by_bytes = _id_patterns()
    found: set[str] = set()
    for pattern in patterns:
        found.update(bid for b in pattern.findall(blob) if (bid := by_bytes.get(b)) is not None)
    return [bid for bid in ids if bid in found]


def _rename(value: Any, mapping: dict[str, str]) -> Any:
    """``value`` with the block ids of ``mapping`` renamed (dict keys too): ``value`` itself
    where nothing in it is renamed, else a new container (sharing its unchanged parts)."""
    cls = value.__class__
    if cls is str:
        return mapping.get(value, value)
    if cls is list:
        out: list[Any] | None = None
        for i, v in enumerate(value):
            r = _rename(v, mapping)
            if r is not v:
                if out is None:
                    out = value[:]
                out[i] = r
        return value if out is None else out
    if cls is dict:
        changed = False
        pairs = []
        for k, v in value.items():
            k2 = mapping.get(k, k) if k.__class__ is str else k
            r = _rename(v, mapping)
            changed = changed or k2 is not k or r is not v
            pairs.append((k2, r))
        return dict(pairs) if changed else value
    return value


# The log lines each role may read, by role (None: a spectator) and game (the identity of the
# log's first entry), shared by views.py's log and the re-deal's: the log only grows along a
# game and its entries are never changed, so the next view or re-deal of the same game (the
# search re-deals one state again and again; a server draws the views of many games in turn)
# filters only the new lines (issue 13). Used only when the old log is a prefix of the new
# one, entry for entry, so a branch's log is just filtered afresh; the games seen last kept.
_LOGS: OrderedDict[tuple[str | None, int], tuple[list[dict[str, Any]], list[dict[str, Any]], list[int]]] = \
    OrderedDict()
_LOGS_KEPT = 512


def readable_lines(log: list[dict[str, Any]], role: str | None) -> tuple[list[dict[str, Any]], list[int]]:
    """The lines of ``log`` that are public or ``role``'s (the state's own entries), and the
    places among them of the lines addressed to someone (views copies their "to"). Both lists
    are the memo's: read them, do not change them."""
    if not log:
        return [], []
    key = (role, id(log[0]))  # the memo keeps log[0] alive, so its id names it meanwhile
    memo = _LOGS.pop(key, None)
    readable: list[dict[str, Any]] | None = None
    if memo is not None:
        seen = memo[0]
        n = len(seen)
        # the same entry objects first (a cheap miss for a log read anew from storage), then
        # the whole prefix, equal entry for entry
        if n and n <= len(log) and log[0] is seen[0] and log[n - 1] is seen[n - 1] and log[:n] == seen:
            readable, private = memo[1], memo[2]
            if n < len(log):
                readable, private = readable[:], private[:]
                for e in log[n:]:
                    if "to" not in e:
                        readable.append(e)
                    elif role is not None and role in e["to"]:
                        private.append(len(readable))
                        readable.append(e)
    if readable is None:
        if role is None:
            readable = [e for e in log if "to" not in e]
            private = []
        else:
            readable = [e for e in log if "to" not in e or role in e["to"]]
            private = [i for i, e in enumerate(readable) if "to" in e]
    _LOGS[key] = (log[:], readable, private)
    while len(_LOGS) > _LOGS_KEPT:
        _LOGS.popitem(last=False)
    return readable, private


def deal(state: State, role: str, gen: rng.Generator | None) -> State:
    """The one re-deal (views.py REDEAL): ``gen`` shuffles; without it, everything takes a
    fixed order (the records by content and by where the decision frames name their holder).
    The steps, and the generator's draws, are those of the plain re-deal, in its order."""
    new: State = dict(state)          # the input's key order; each changed part replaced
    order = gen.shuffle if gen is not None else _fixed_order
    cands, public = _tables()
    opp = st.other(role)
    blocks = state["blocks"]
    # ---- the opponent's blocks role never identified (all are shown at the final reveal);
    # the bag and the recruitment box hold fleets as well, face down (5.2.3, 6.4)
    bag, box = unseen = (f"bag:{opp}", f"recruit:{opp}")
    pool: list[str] = []
    fleets: set[str] = set()
    if state.get("result") is None:
        known = set(state["known"][role])
        for bid, fleet in cands[opp]:
            rec = blocks.get(bid)
            if rec is None:
                continue
            loc = rec["loc"]
            if loc in public:
                continue
            if fleet:
                if loc in (bag, box):       # face up on the map only (5.1)
                    pool.append(bid)
                    fleets.add(bid)
                continue
            # "revealed" means face up on the map; a record in the bag or a box keeps it from
            # its last outing (a fleet's always), which tells role nothing there
            if bid in known or (rec["revealed"] and loc not in (bag, box)):
                continue
            pool.append(bid)
    mapping: dict[str, str] = {}       # old holder of a record -> block id now holding it
    stack = state["stack"]
    entries = state.get("entries")
    in_stack: set[str] = set()                               # the ids the frames may name
    in_entries: set[str] = set()
    if pool:
        in_stack = set(_named(stack, pool))
        in_entries = set(_named(entries, pool)) if entries else set()
        records = {bid: blocks[bid] for bid in pool}
        if gen is None:   # which block held which record must not matter: order them by content
            texts = {bid: _text(records[bid]) for bid in pool}
            if len(set(texts.values())) < len(pool):   # a tie: by where the frames name them
                # (the first place of '"id"' in the JSON text of [stack, entries, pioneers];
                # an id named in the stack only is placed as well by the stack's own text)
                named = in_stack | in_entries | set(_named(state.get("pioneers") or {}, pool))
                if named - in_stack:
                    text = json.dumps([stack, entries or {}, state.get("pioneers") or {}])
                else:
                    text = json.dumps(stack) if named else ""
                end = len(text)
                at = {bid: pos for bid in named if (pos := text.find(f'"{bid}"')) >= 0}
                pool.sort(key=lambda h: (texts[h], at.get(h, end), h))
            else:
                pool.sort(key=texts.__getitem__)
        slots_fixed = [bid for bid in pool if records[bid]["loc"] not in unseen]   # land only
        slots_bag = [bid for bid in pool if records[bid]["loc"] in unseen]
        land = sorted(bid for bid in pool if bid not in fleets)
        order(land)
        chosen = land[:len(slots_fixed)]
        taken = set(chosen)
        rest = sorted(bid for bid in pool if bid not in taken)
        order(rest)
        mapping.update(zip(slots_fixed, chosen))
        mapping.update(zip(slots_bag, rest))
    if mapping:
        moved = {slot: bid for slot, bid in mapping.items() if slot != bid}
        if moved:
            new_blocks = blocks.copy()
            for slot, bid in moved.items():
                new_blocks[bid] = dict(records[slot])
            new["blocks"] = new_blocks
            renamed = {slot: bid for slot, bid in moved.items() if slot in in_stack}
            if renamed:
                new["stack"] = [_rename(f, renamed) for f in stack]
            if entries and not in_entries.isdisjoint(moved):
                new["entries"] = _renamed_entries(entries, moved)
        # a Pioneers tile rides with the record of its block (pioneers.py)
        new["pioneers"] = {t: mapping.get(c, c) for t, c in (state.get("pioneers") or {}).items()}
    # ---- cards: the opponent's unseen hand, draw pile and secret bid
    hands = state["hands"]
    in_hand = hands[opp]
    seen = [c for c in state["hand_known"][opp] if c in in_hand]
    hidden_hand = [c for c in in_hand if c not in seen]
    decks = new["decks"] = dict(state["decks"])
    bid = state["bids"][opp]
    secret = bid not in (None, "none")
    cards = hidden_hand + decks[opp] + ([bid] if secret else [])
    order(cards)
    if secret:
        d = st.data()
        biddable = [c for c in cards if d.cards[c].bid is not None]
        new_bid = biddable[0] if biddable else bid
        cards.remove(new_bid)
        bids = new["bids"] = dict(state["bids"])
        bids[opp] = new_bid
    hands = new["hands"] = dict(hands)
    hands[opp] = seen + cards[:len(hidden_hand)]
    decks[opp] = cards[len(hidden_hand):]
    decks[role] = own = decks[role][:]
    order(own)
    decks["naval"] = naval = decks["naval"][:]
    order(naval)
    # ---- frames re-deal their own secrets (with a fixed generator for the canonical form),
    # each on a copy of its frame put in a copy of the stack
    hooks_gen = gen if gen is not None else rng.Generator(0)
    stack = new["stack"]
    copied = stack is not state["stack"]
    for i, f in enumerate(stack):
        hook = getattr(st.handler(f), "redeal", None)
        if hook is not None:
            if not copied:
                stack = new["stack"] = stack[:]
                copied = True
            f = stack[i] = deep_copy(f)
            hook(new, role, f, hooks_gen)
    # lines only the opponent reads may name what was re-dealt: keep role's and public ones
    new["log"] = readable_lines(state["log"], role)[0][:]
    new["rng"] = rng.seed_state(gen.randbelow(1 << 62) if gen is not None else 0)
    return new


def _renamed_entries(entries: dict[str, dict[str, Any]], moved: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The entries record (st.add_entry) with the ids of ``moved`` renamed in its values, as the
    frames are: the record itself where nothing is renamed."""
    out: dict[str, dict[str, Any]] | None = None
    for loc, ent in entries.items():
        new_ent: dict[str, Any] | None = None
        for side, v in ent.items():
            r = _rename(v, moved)
            if r is not v:
                if new_ent is None:
                    new_ent = dict(ent)
                new_ent[side] = r
        if new_ent is not None:
            if out is None:
                out = dict(entries)
            out[loc] = new_ent
    return entries if out is None else out
