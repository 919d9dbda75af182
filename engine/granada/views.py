"""What each role may see (view) and a re-deal of everything hidden from a role (redeal).

VIEW KEYS (render and Discord front ends depend on them)
=========================================================
``view(state, role)`` with role "christian", "muslim" or None (spectator: what both see).
A view is a new value: it shares no list or dict with the state nor with another view (log
lines included), so a caller may keep or edit it without a copy
(tests/engine/granada/test_view_reference.py)::

    game         "granada"
    role         the role viewed for (None for a spectator)
    prompt       sentence for that role (what to do now, or whom we wait for)
    actions      that role's legal actions, every one at once (a front end pages a long list);
                 dicts with "type" and "label";
                 the "do nothing" answer of a reaction prompt also has "pass": true;
                 [] for spectators
    phase        short public string that changes exactly when a new public picture is worth
                 posting: a new year's turn order, a player's Movement or Combat Phase, a
                 battle (land, siege or naval), the Reinforcement Step, the end of the game
                 (e.g. "1485 I: christian combat, battle at loja"); the same for every role
    reaction     true when the prompt only asks this role whether to react (10.1/10.5
                 pre-battle prompt, 8.4 Morale Challenge, 8.7.5 artillery of the castle), so
                 that a front end's auto-pass preference may answer it with the action that
                 has "pass": true; false otherwise (always false for spectators)
    focus        the location id (land) or sea zone id of the battle under way, else None
    places       every location id, then every sea zone id: what a close-up can show
    active       roles that must act now
    log          log entries that role may read ({"text": ..., "to"?: [...]})
    year         0..6; year_label "1482".."1491-1492"; turn 1 | 2; turn_label "1485 II"
    turn_index   0..11 (position on the Turn track, 0 = 1482 II)
    first        side moving first this year (initiative marker) | None
    active_side  side whose Movement/Combat phase it is | None
    frame        {"module", "kind"} of the decision under way (e.g. "movement"/"movement")
    locations    {loc id: {
                    "control": side | None,       # cube / round tower / last mover (4.1)
                    "castle": side | None,        # square tower; key present only at castles
                    "disks": [disk names],        # "el_zegri", "sidi_yahya"
                    "blocks": {"christian": [block], "muslim": [block]},
                 }}  only locations with something to draw beyond the printed map are
                 listed with blocks, but every location has control/castle entries
    seas         {zone id: {"fleets": [{"id", "side", "carrying": [block]}]}}
    block        a visible block: {"key": id, "id", "side", "colour", "faction", "shields",
                 "leader", "name", "horse", "crossbow", "gun", "fleet", "special",
                 "inside", "revealed", "moved", "fresh"}
                 an opposing concealed block: {"key": "<side>:<place>:<n>", "side",
                 "colour", "inside", "moved"}  (the key is opaque and per view; it is not
                 the block id and is renumbered by position, so it tells nothing)
    boxes        {"recruit": {side: [block] (own: full) | {"count": n}}, (5.2.3, 6.4: the
                  opponent's recruits, fleets included, are placed face down)
                  "bag": {side: n}, "palace": [block], "boabdil_box": [block],
                  "aside": [block], "eliminated": [block], "captured": [block]}
    disks        {"el_zegri": loc | "eliminated", "sidi_yahya": ...}
    hand         own cards [{"id", "name", "kind", "factions", "trumpet", "bid", "naval",
                 "evade"}] ([] for spectators); known_opponent_cards: opponent cards this
                 role has seen still in his hand
    hand_sizes   {side: n}; deck_sizes {"christian", "muslim", "naval": n};
    discard_sizes {...}; naval_discard_top: last Naval card drawn (public) | None
    surrender    {side: number of Castle Surrender cards left}
    bids         {side: "placed" | None} (own bid: the card id)
    vp           {side: {"castles", "watchtowers", "resources", "unlinked_resources",
                 "points"}} (victory.breakdown, what both can compute)
    boabdil      {"captures", "allied_until": turn label | None, "pending", "in_play": bool}
    optional     the optional rules in play (section 11, options.py) and their public pieces:
                 {"rules": [option names],
                  "mercenaries": {side: [block]} Mercenaries face up in their box (11.1),
                  "crusaders": [block] beside the board while the Papal Bull waits (11.2),
                  "papal_bull": None | {"card": id | None (played), "playable_now": bool,
                                "from_year": "1487-1488", "max_castles": 6,
                                "christian_castles": n}  (11.2's condition),
                  "removed_cards": [card] played as events and removed (11.2, 11.3),
                  "out_of_supply": {side: [loc]} the stacks carrying an OOS marker (11.8;
                                   {} when the option is off),
                  "pioneers": {tile: loc | "sea:<zone>" | "eliminated"} Pioneers tiles (11.7;
                              {} when the option is off)}
                 (a siege's deployed Pioneers tile: ``battle["pioneer"]``)
                 Sortie cards played are in ``battle["sortie"]`` (siege), Naval Bombardment
                 impacts in ``battle["naval"]`` ({side: n}), both cards in the battle discard;
                 General Mobilization, Sortie and the other cards sit in hands like any card
    contested    [{"loc", "siege": bool}] locations where both sides have units (and Granada
                 while Christians stand there with blocks in the Palace Guard box, 10.10)
    pending_battles  locations the phasing side must still fight this Combat Phase
    movement     during a Movement Phase: {"side", "level", "activations_left",
                 "sea_left", "muster_left", "activated": [...], "origin": loc | None,
                 "stack": {"at", "steps", "size"} | None}
    battle       the public information of the battle under way (battle/siege/seabattle
                 module ``view(state, role, frame)``), or None
    result       state["result"] (None while playing)

FINAL REVEAL
============
Once the game has a result, every view (both players' and a spectator's) shows every
block's identity: the blocks on the map and at sea as visible blocks, and both recruitment
boxes as full lists; only the bags stay counts (blocks never drawn took no part). The final
score is in ``result["score"]`` and ``vp``. One view is thus enough to draw the final reveal
(render.granada.reveal). Before the end nothing changes: the opponent's concealed blocks
keep their opaque keys.

REDEAL
======
``redeal(state, role, seed)`` re-draws what ``role`` cannot see: the identities of the
opponent's blocks role has never identified (on the map, at sea, in the recruitment box,
in the bag; none once the game is over, since the final reveal shows them all), the
opponent's hand (except cards role saw there) together with the opponent's draw pile and
secret bid, the order of role's own draw pile and of the Naval deck, and the generator.
Frames may re-deal their own hidden data with ``redeal(state, role, frame, gen)``.
"""

from __future__ import annotations

import functools
import operator
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import engine.granada as granada  # the package: its actions (a call-time import was a cost)
from engine import rng
from engine.api import State, View, clone
from engine.granada import extras, pioneers, sequence, supply, victory
from engine.granada import options as opt
from engine.granada import redealing as dealing
from engine.granada import state as st

PUBLIC_PLACES = st.PUBLIC_PLACES   # the name engine/ai/granada.py reads
BATTLE_MODULES = ("battle", "siege", "seabattle", "cards")


@dataclass(frozen=True)
class _Faces:
    """What a view reads of the printed components, tabled once (they never change): a view
    passes over every block and location, and looking each face up in the components and
    building it anew was most of its cost (issue 13)."""

    face: dict[str, dict[str, Any]]     # block id -> a visible block's dict in VIEW KEYS order,
                                        # its record's flags still to fill in: views copy it
    public: dict[str, bool]             # fleets and grey blocks are always face up (5.1, 10.12)
    owner: dict[str, str]               # st.owner
    colour: dict[str, str]
    fleets: frozenset[str]
    optional: frozenset[str]            # the pieces of section 11 (aside while off)
    locations: tuple[tuple[str, bool], ...]     # (location id, has a castle) in map order
    seas: tuple[tuple[str, str], ...]           # (zone id, its index key "sea:<zone>")
    seen_by: dict[str | None, frozenset[str]]   # role -> the blocks it always knows: the
                                                # public ones and its own (None: a spectator)
    every: frozenset[str]                       # every block (the final reveal shows all)
    places: tuple[str, ...]                     # the "places" key: locations, then zones


@functools.cache
def _faces() -> _Faces:
    d = st.data()
    face: dict[str, dict[str, Any]] = {}
    for bid, b in d.blocks.items():
        face[bid] = {"key": bid, "id": bid, "side": st.owner(bid), "colour": b.colour,
                     "faction": b.faction, "shields": b.shields, "leader": b.leader,
                     "name": b.name, "horse": b.horse, "crossbow": b.crossbow, "gun": b.gun,
                     "fleet": b.fleet, "special": b.special,
                     "inside": False, "revealed": False, "moved": False, "fresh": False}
    public = {bid: b.fleet or b.colour == "grey" for bid, b in d.blocks.items()}
    shown = frozenset(bid for bid, up in public.items() if up)
    seen_by: dict[str | None, frozenset[str]] = {None: shown}
    for side in st.SIDES:
        seen_by[side] = shown | {bid for bid in d.blocks if st.owner(bid) == side}
    return _Faces(
        face=face,
        public=public,
        owner={bid: st.owner(bid) for bid in d.blocks},
        colour={bid: b.colour for bid, b in d.blocks.items()},
        fleets=frozenset(bid for bid, b in d.blocks.items() if b.fleet),
        optional=frozenset(bid for bid, b in d.blocks.items() if b.optional),
        locations=tuple((loc, L.castle) for loc, L in d.locations.items()),
        seas=tuple((zone, f"sea:{zone}") for zone in d.sea_zones),
        seen_by=seen_by,
        every=frozenset(d.blocks),
        places=(*sorted(d.locations), *sorted(d.sea_zones)))


def phase(state: State, focus: str | None) -> str:
    """The public picture's name (see VIEW KEYS): it changes with the year's turn order, each
    Movement and Combat Phase, each battle and the Reinforcement Step, and nothing else."""
    if state.get("result") is not None:
        return "game over"
    root = state["stack"][0]
    y, t = state["year"], state["turn"]
    where = f", battle at {focus}" if focus else ""
    if root["phase"] in ("bid", "order"):
        return f"{st.YEARS[y]} turn order{where}"
    if root["phase"] == "reinforce":
        return f"{st.YEARS[y]} reinforcements{where}"
    side = state["active_side"]
    combat = any(f["module"] == "sequence" and f["kind"] == "combat" for f in state["stack"])
    return f"{st.turn_label(y, t)}: {side} {'combat' if combat else 'movement'}{where}"


def _visible(state: State, bid: str, role: str | None) -> bool:
    """Whether ``role`` may know the block's identity now: its owner, anyone for a block
    always face up (fleets, grey) or revealed, everyone once the game is over."""
    faces = _faces()
    if faces.public[bid] or faces.owner[bid] == role:
        return True
    if state.get("result") is not None:
        return True                 # the final reveal: the game is over, nothing is hidden
    return bool(state["blocks"][bid]["revealed"])


def _fulls(records: dict[str, Any], ids: Iterable[str]) -> list[dict[str, Any]]:
    """Visible blocks, in that order: each its printed face and its record's public flags (new
    dicts; the boxes hold dozens late in a game)."""
    shown = _shown
    return [shown(bid, _FLAGS(records[bid])).copy() for bid in ids]


class _Memo:
    """A memo of at most twice ``size`` entries, the used lately kept: when the new generation
    is full it becomes the old one (the one before it is dropped), and an entry found in the
    old is put in the new again. No bookkeeping at a hit in the new one, unlike an LRU's."""

    __slots__ = ("new", "old", "size")

    def __init__(self, size: int) -> None:
        self.new: dict[Any, Any] = {}
        self.old: dict[Any, Any] = {}
        self.size = size

    def old_get(self, key: Any) -> Any:
        """The entry of ``key`` in the old generation (put in the new), else None: what a miss
        in ``new`` asks next."""
        found = self.old.get(key)
        if found is not None:
            self.put(key, found)
        return found

    def put(self, key: Any, value: Any) -> None:
        if len(self.new) >= self.size:
            self.old = self.new
            self.new = {}
        self.new[key] = value


_FLAGS = operator.itemgetter("inside", "revealed", "moved", "fresh")
"""What a view reads of a block's record (its place aside, which the location index gives):
the public flags a visible block shows, "inside" and "moved" of a concealed one, and whether
it is "revealed"."""

# A visible block as views draw it, by its id and flags (:data:`_FLAGS`): a view hands out
# copies. 137 blocks, 16 flag values each at most; shared by the memos below, so that what
# they keep costs little more than their lists.
_SHOWN: dict[tuple[str, tuple[Any, ...]], dict[str, Any]] = {}
_SHOWN_KEPT = 4096


def _shown(bid: str, flags: tuple[Any, ...]) -> dict[str, Any]:
    """The visible block ``bid`` with ``flags``, as kept in :data:`_SHOWN` (read only)."""
    key = (bid, flags)
    out = _SHOWN.get(key)
    if out is None:
        out = _faces().face[bid].copy()
        out["inside"], out["revealed"], out["moved"], out["fresh"] = flags
        if len(_SHOWN) >= _SHOWN_KEPT:
            _SHOWN.clear()
        _SHOWN[key] = out
    return out


def _blocks_for(records: dict[str, Any], ids: list[str], role: str | None, place: str,
                over: bool) -> list[dict[str, Any]]:
    """The blocks of one side at one place as ``role`` sees them: the visible ones by id,
    then the concealed ones under keys numbered by what anyone sees of them (colour, inside,
    moved), so that the numbering tells nothing of which block is which. The test of
    :func:`_visible`, inlined: this runs for every block of every view."""
    faces = _faces()
    face, public, owner, colour = faces.face, faces.public, faces.owner, faces.colour
    shown: list[dict[str, Any]] = []
    hidden: list[tuple[Any, ...]] = []
    for bid in sorted(ids):
        rec = records[bid]
        if over or public[bid] or owner[bid] == role or rec["revealed"]:
            out = face[bid].copy()          # _fulls, inlined
            out["inside"] = rec["inside"]
            out["revealed"] = rec["revealed"]
            out["moved"] = rec["moved"]
            out["fresh"] = rec["fresh"]
            shown.append(out)
        else:
            hidden.append((colour[bid], rec["inside"], rec["moved"], owner[bid]))
    if hidden:
        hidden.sort()
        for n, (col, inside, moved, side) in enumerate(hidden, 1):
            shown.append({"key": f"{side}:{place}:{n}", "side": side, "colour": col,
                          "inside": inside, "moved": moved})
    return shown


@functools.cache
def _card_face(cid: str) -> dict[str, Any]:
    c = st.data().cards[cid]
    return {"id": cid, "name": c.name, "kind": c.kind, "factions": c.factions,
            "trumpet": c.trumpet, "bid": c.bid, "naval": c.naval, "evade": c.evade}


def _card(cid: str) -> dict[str, Any]:
    """A card's face as views show it (a new dict: views share nothing)."""
    out = dict(_card_face(cid))
    out["factions"] = list(out["factions"])
    return out



def _log(log: list[dict[str, Any]], role: str | None) -> list[dict[str, Any]]:
    """The log lines ``role`` may read (engine.api.visible_log), each a copy: a view shares
    nothing with the state, so a front end may edit it (the entries' one container, "to",
    is copied too). The filtering is remembered by game (redealing.readable_lines)."""
    readable, private = dealing.readable_lines(log, role)
    out = list(map(dict.copy, readable))
    for i in private:
        out[i]["to"] = list(out[i]["to"])
    return out


# How a location was drawn for a role, by what the drawing reads: the role (a finished game's
# views under "over", which show every block), the location, the ids there and their records'
# flags (:data:`_FLAGS`) -> the Christians' and the Muslims' drawn blocks, how many are
# Christian, whether one is inside. Between two steps most locations keep their blocks and
# flags, and drawing them was half of a view (issue 33); a server draws the views of many
# games in turn, so the memo is keyed by content, not by game: any state of any game whose
# location reads the same is drawn by copying the kept dicts. Nothing of a state is kept (its
# flags are copied into the key), so editing a state in place cannot fool it.
_DRAWN = _Memo(8192)    # a few hundred bytes an entry; a generation: some 150 games, two roles each
# The drawings a game's map had at its last view for a role (issue 33), by game (the identity
# of its log's first entry, which the memo keeps alive, so that its id names it meanwhile; 0
# for a state without a log) and role key: location -> (its ids, copies of their records, the
# drawing). Asked first: between two views of a game most locations hold the same records,
# and comparing them with the copies (dict equality, in C) costs less than building the
# flags key of _DRAWN and hashing it; a location that compares unequal is looked up in
# _DRAWN. The copies are the state's content, not its objects, so editing a state in place
# cannot fool this memo either. Some 30 locations of a few records each per entry.
_PLACED: OrderedDict[tuple[int, str | None], tuple[Any, dict[str, Any]]] = OrderedDict()
_PLACED_KEPT = 512      # more than the games a server keeps hot, each for both roles


def _placed(state: State, key: str | None) -> dict[str, Any]:
    """The game's entry of :data:`_PLACED` for ``key`` (a new one if none), to read and fill."""
    log = state["log"]
    first = log[0] if log else None
    at = (id(first) if log else 0, key)
    kept = _PLACED.get(at)
    if kept is not None and kept[0] is first:
        _PLACED.move_to_end(at)
        return kept[1]
    mine: dict[str, Any] = {}
    _PLACED[at] = (first, mine)
    if len(_PLACED) > _PLACED_KEPT:
        _PLACED.popitem(last=False)
    return mine


_OVER = "over"          # the role key of a finished game's views (every role sees everything)


def _draw(ids: list[str], flags: tuple[tuple[Any, ...], ...], known: frozenset[str],
          loc: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int, bool]:
    """A location's :data:`_DRAWN` entry, drawn afresh: :func:`_blocks_for` for both sides,
    inlined."""
    faces = _faces()
    owner, colour = faces.owner, faces.colour
    christian: list[dict[str, Any]] = []
    muslim: list[dict[str, Any]] = []
    shown = {"christian": christian, "muslim": muslim}
    hidden: list[tuple[Any, ...]] = []
    for bid, flag in sorted(zip(ids, flags)):
        if bid in known or flag[1]:
            shown[owner[bid]].append(_shown(bid, flag))
        else:
            hidden.append((colour[bid], flag[0], flag[2], owner[bid]))
    chris = len(christian)
    if hidden:
        # numbered per side in the order of what anyone sees (the sides' own orders, since
        # the side is the last item of the tuple)
        hidden.sort()
        nc = nm = 0
        for col, ins, moved, side in hidden:
            if side == "christian":
                nc += 1
                christian.append({"key": f"christian:{loc}:{nc}", "side": side,
                                  "colour": col, "inside": ins, "moved": moved})
            else:
                nm += 1
                muslim.append({"key": f"muslim:{loc}:{nm}", "side": side,
                               "colour": col, "inside": ins, "moved": moved})
        chris += nc
    return christian, muslim, chris, any(flag[0] for flag in flags)


def _map(state: State, role: str | None, idx: dict[str, list[str]],
         over: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The "locations" and "contested" keys, in one pass over the map: each location's
    blocks from :data:`_PLACED` when its records are those of the game's last view, else
    from :data:`_DRAWN` when it kept a drawing of what they read, else :func:`_draw`."""
    faces = _faces()
    known = faces.every if over else faces.seen_by[role]
    key = _OVER if over else role
    drawn = _DRAWN
    kept_drawing = drawn.new.get
    placed = _placed(state, key)
    placed_get = placed.get
    record = state["blocks"].__getitem__
    flagged = _FLAGS
    copy = dict.copy
    control, castle = state["control"].get, state["castle"].get
    alhambra = st.ALHAMBRA       # the only place st.guard_defends asks more of (10.10)
    disks_at: dict[str, list[str]] = {}
    for disk in st.DISKS:                      # st.disks_at for every location at once
        where = state["disks"].get(disk)
        if where is not None:
            disks_at.setdefault(where, []).append(disk)
    locations: dict[str, Any] = {}
    contested = []
    for loc, has_castle in faces.locations:
        ids = idx.get(loc)
        if ids:
            recs = tuple(map(record, ids))
            last = placed_get(loc)
            if last is not None and last[0] == ids and last[1] == recs:
                kept = last[2]
            else:
                flags = tuple(map(flagged, recs))
                what = (key, loc, tuple(ids), flags)
                kept = kept_drawing(what)
                if kept is None:
                    kept = drawn.old_get(what)
                    if kept is None:
                        kept = _draw(ids, flags, known, loc)
                        drawn.put(what, kept)
                    kept_drawing = drawn.new.get        # a new generation may have begun
                placed[loc] = (ids[:], tuple(map(copy, recs)), kept)
            christian, muslim, chris, inside = kept
            shown = {"christian": list(map(copy, christian)) if christian else [],
                     "muslim": list(map(copy, muslim)) if muslim else []}
            if chris:
                # st.units_at: the Muslims' units are their blocks and disks (8.7.4)
                mus = len(ids) - chris
                disks = disks_at.get(loc) if disks_at else None
                if mus or disks:
                    contested.append({"loc": loc, "siege": inside or bool(disks and not mus)})
                elif loc == alhambra and st.guard_defends(state, loc, "christian", idx):
                    contested.append({"loc": loc, "siege": False})  # the Palace Guard will appear (10.10)
        else:
            shown = {"christian": [], "muslim": []}
        if has_castle:
            locations[loc] = {"control": control(loc), "castle": castle(loc), "disks": [], "blocks": shown}
        else:
            locations[loc] = {"control": control(loc), "disks": [], "blocks": shown}
    for where, disks in disks_at.items():      # the disks: a few locations, after the pass
        if where in locations:
            locations[where]["disks"] = disks
    return locations, contested


def _seas(state: State, role: str | None, idx: dict[str, list[str]], over: bool) -> dict[str, Any]:
    """The fleets of every sea zone and the blocks they carry (7.5.2)."""
    faces = _faces()
    records = state["blocks"]
    seas: dict[str, Any] = {}
    for zone, key in faces.seas:
        fleets = []
        afloat = idx.get(key)
        if afloat:
            for bid in afloat:
                if bid not in faces.fleets:
                    continue
                aboard = [b for b in afloat if records[b]["carried_by"] == bid]
                fleets.append({"id": bid, "side": faces.owner[bid],
                               "carrying": _blocks_for(records, aboard, role, f"{zone}:{bid}", over)
                               if aboard else []})
        seas[zone] = {"fleets": fleets}
    return seas


# The drawing of a box (and of the optional rules' boxes), by its ids and their flags
# (:data:`_FLAGS`), as :data:`_DRAWN` keeps the map's: the eliminated and captured blocks
# pile up over a game, and a box is the same at most steps.
_BOXES = _Memo(1024)     # some 200 games' boxes (eliminated: dozens of blocks, a few KB)
# Asked first, as _PLACED is for the map: a box's ids -> (copies of their records, its
# drawing), which a box that compares equal takes without building the flags key.
_BOXED = _Memo(1024)


def _box(records: dict[str, Any], ids: list[str] | tuple[str, ...]) -> list[dict[str, Any]]:
    """:func:`_fulls` of a box's ``ids``, from :data:`_BOXED` or :data:`_BOXES` when it
    holds the same."""
    if not ids:
        return []
    ids = tuple(ids)
    recs = tuple(map(records.__getitem__, ids))
    last = _BOXED.new.get(ids)
    if last is None:
        last = _BOXED.old_get(ids)
    if last is not None and last[0] == recs:
        kept = last[1]
    else:
        what = (ids, tuple(map(_FLAGS, recs)))
        kept = _BOXES.new.get(what)
        if kept is None:
            kept = _BOXES.old_get(what)
            if kept is None:
                kept = list(map(_shown, ids, what[1]))
                _BOXES.put(what, kept)
        _BOXED.put(ids, (tuple(map(dict.copy, recs)), kept))
    return list(map(dict.copy, kept))


def _boxes(state: State, role: str | None, idx: dict[str, list[str]], over: bool) -> dict[str, Any]:
    """The boxes beside the map: the recruits face down to the opponent (5.2.3, 6.4), the
    bags as counts, the public boxes in full."""
    records = state["blocks"]
    recruit: dict[str, Any] = {}
    for s in st.SIDES:
        ids = idx.get(f"recruit:{s}", [])
        if role == s or over:
            recruit[s] = _box(records, ids)
        else:
            recruit[s] = {"count": len(ids)}
    optional = _faces().optional
    aside = idx.get("aside")
    return {
        "recruit": recruit,
        "bag": {s: len(idx.get(f"bag:{s}", ())) for s in st.SIDES},
        "palace": _box(records, idx.get("palace", ())),
        "boabdil_box": _box(records, idx.get("boabdil_box", ())),
        "aside": _box(records, [b for b in aside if b not in optional]) if aside else [],
        "eliminated": _box(records, idx.get("eliminated", ())),
        "captured": _box(records, idx.get("captured", ())),
    }


def view(state: State, role: str | None) -> View:
    """What ``role`` may see (VIEW KEYS above): plain JSON sharing no list or dict with the
    state, so that a caller may keep or edit it.

    One pass over the location index (st.by_location) draws the map, the boxes and the
    contested locations; the printed faces come from :func:`_faces`. The state cannot change
    while its view is drawn, so every rule asked on the way (supply, pending battles, the
    frames' prompts and legal actions) reads the same index, computed once
    (st.frozen_index)."""
    with st.frozen_index(state):
        return _view(state, role)


def _view(state: State, role: str | None) -> View:
    idx = st.by_location(state)
    frame = st.top(state)
    active = st.active_roles(state)
    over = state.get("result") is not None
    locations, contested = _map(state, role, idx, over)
    seas = _seas(state, role, idx, over)
    boxes = _boxes(state, role, idx, over)
    bo = state["boabdil"]
    pending: list[str] = []
    move_info = None
    battle = None
    focus = None
    for f in reversed(state["stack"]):
        if f["module"] in BATTLE_MODULES and battle is None:
            hook = getattr(st.handler(f), "view", None)
            battle = hook(state, role, f) if hook else {"module": f["module"], "kind": f["kind"]}
            focus = f.get("loc") or f.get("zone")
        if f.get("kind") == "combat" and f["module"] == "sequence":
            pending = sequence.pending_battles(state, f["side"], f["done"])
        if f.get("kind") == "movement" and move_info is None:
            ms = f["mstack"]
            move_info = {"side": f["side"], "level": f["level"], "activations_left": f["acts"],
                         "sea_left": f["sea"], "muster_left": f["muster"],
                         "activated": list(f["activated"]), "origin": f["origin"],
                         "stack": None if ms is None else {"at": ms["at"], "steps": ms["steps"],
                                                           "size": len(ms["blocks"])}}
    prompt = ""
    offered = granada.actions(state, role) if role in st.SIDES else []
    reaction = any(a.get("pass") for a in offered)
    res = state.get("result")
    if res:
        prompt = f"The game is over: {res['reason']}."
    elif frame is not None and role is not None and role in active:
        hook = getattr(st.handler(frame), "prompt", None)
        prompt = hook(state, role, frame) if hook else "Your decision."
    elif active:
        prompt = "Waiting for " + " and ".join(a.capitalize() for a in active) + "."
    opp = st.other(role) if role in st.SIDES else None
    y, t = state["year"], state["turn"]
    naval_top = state["discards"]["naval"][-1] if state["discards"]["naval"] else None
    return {
        "game": "granada",
        "role": role,
        "prompt": prompt,
        "actions": offered,
        "phase": phase(state, focus),
        "reaction": reaction,
        "focus": focus,
        "active": list(active),
        "log": _log(state["log"], role),
        "year": y, "year_label": st.YEARS[y], "turn": t, "turn_label": st.turn_label(y, t),
        "turn_index": st.TURNS.index((y, t)),
        "first": state["first"], "active_side": state["active_side"],
        "frame": {"module": frame["module"], "kind": frame["kind"]} if frame else None,
        "places": list(_faces().places),
        "locations": locations,
        "seas": seas,
        "boxes": boxes,
        "disks": dict(state["disks"]),
        "hand": [_card(c) for c in sorted(state["hands"][role])] if role in st.SIDES else [],
        "known_opponent_cards": sorted(state["hand_known"][opp]) if opp else [],
        "hand_sizes": {s: len(state["hands"][s]) for s in st.SIDES},
        "deck_sizes": {k: len(v) for k, v in state["decks"].items()},
        "discard_sizes": {k: len(v) for k, v in state["discards"].items()},
        "naval_discard_top": naval_top,
        "surrender": {s: len(state["surrender"][s]) for s in st.SIDES},
        "bids": {s: (state["bids"][s] if s == role else ("placed" if state["bids"][s] else None))
                 for s in st.SIDES},
        "vp": _vp(state),
        "boabdil": {"captures": bo["captures"], "pending": bo["pending"],
                    "allied_until": st.index_label(bo["allied_until"])
                    if bo["allied_until"] is not None else None,
                    "in_play": bool(bo["grey"])},
        "optional": _optional(state, idx),
        "contested": contested,
        "pending_battles": pending,
        "movement": move_info,
        "battle": battle,
        "result": clone(res) if res is not None else None,
    }


def concealed_ids(state: State, role: str | None) -> set[str]:
    """The block ids whose identity ``role`` (None: a spectator, who knows what both players
    know) may not learn now: what redeal re-draws, whose ids must appear nowhere in his view
    (the property tests look for them in the serialized view)."""
    if state.get("result") is not None:
        return set()
    out: set[str] = set()
    for bid, rec in state["blocks"].items():
        side = st.owner(bid)
        if side == role or _faces().colour[bid] == "grey" or rec["loc"] in PUBLIC_PLACES:
            continue
        if rec["loc"] in (f"bag:{side}", f"recruit:{side}") or not _visible(state, bid, role):
            out.add(bid)
    return out


@functools.cache
def _default_rules() -> tuple[str, ...]:
    """The optional rules in play in a game set up without options (none, as options.py has
    it): most games, tabled once."""
    return tuple(sorted(name for name in opt.OPTIONS if name != "all" and opt.on({}, name)))


# The optional rules in play by the options they were read from, lately (most recent first):
# a game's options never change, and reading every rule's was a tenth of a view's extras.
_RULES: list[tuple[dict[str, Any], tuple[str, ...]]] = []


def _rules(options: dict[str, Any], state: State) -> list[str]:
    """The optional rules in play under ``options`` (``state["options"]``), sorted."""
    for seen, rules in _RULES:
        if seen == options:
            return list(rules)
    found = tuple(sorted(name for name in opt.OPTIONS if name != "all" and opt.on(state, name)))
    _RULES.insert(0, (dict(options), found))
    del _RULES[8:]
    return list(found)


# The victory-point breakdown of each game's view lately, by game (the identity of its log's
# first entry, which the memo keeps alive, so that its id names it meanwhile; 0 for a state
# without a log): (that entry, copies of the control and castle pieces, the breakdown). Every
# view carries one, control changes at few steps, and a server draws the views of many games
# in turn, which a few entries shared by all games could not keep (victory.breakdown's memo
# neither: the breakdown walks the map). Equal pieces give the same breakdown whatever the
# game, so a state of another branch or game that hits is still right.
_VP: OrderedDict[int, tuple[Any, dict[str, Any], dict[str, Any], dict[str, dict[str, Any]]]] = OrderedDict()
_VP_KEPT = 512


def _vp(state: State) -> dict[str, dict[str, Any]]:
    """victory.breakdown(state): it reads only the control and castle pieces (fresh dicts)."""
    control, castle = state["control"], state["castle"]
    log = state["log"]
    first = log[0] if log else None
    game = id(first) if log else 0
    kept = _VP.get(game)
    if kept is not None and kept[0] is first and kept[1] == control and kept[2] == castle:
        _VP.move_to_end(game)
        out = kept[3]
    else:
        out = victory.breakdown(state)
        _VP[game] = (first, dict(control), dict(castle), out)
        _VP.move_to_end(game)
        if len(_VP) > _VP_KEPT:
            _VP.popitem(last=False)
    return {s: dict(counts) for s, counts in out.items()}


@functools.cache
def _crusaders() -> frozenset[str]:
    """The Crusader blocks (11.2), tabled once: a view asked extras.crusaders, which sorts
    every block, for each block aside."""
    return frozenset(extras.crusaders())


def _optional(state: State, idx: dict[str, list[str]]) -> dict[str, Any]:
    """The public pieces of the optional rules in play (section 11, see VIEW KEYS)."""
    options = state.get("options")
    if options:
        rules = _rules(options, state)
    else:
        rules = list(_default_rules())
    bull = state.get("papal_bull")
    records = state["blocks"]
    return {
        "rules": rules,
        "out_of_supply": supply.out_of_supply(state) if "out_of_supply" in rules else {},
        "pioneers": pioneers.where(state),
        "mercenaries": {s: _box(records, idx.get(f"mercenaries:{s}", ()))
                        for s in opt.mercenary_sides(state)},
        "crusaders": _fulls(records, [b for b in idx.get("aside", ()) if b in _crusaders()])
        if bull else [],
        "papal_bull": None if "papal_bull" not in rules else {
            "card": bull, "playable_now": extras.bull_playable(state),
            "from_year": st.YEARS[extras.BULL_FIRST_YEAR], "max_castles": extras.BULL_MAX_CASTLES,
            "christian_castles": extras.christian_castles(state)},
        "removed_cards": [_card(c) for c in state.get("removed_cards", ())],
    }


# ---------------------------------------------------------------- redeal

def redeal(state: State, role: str, seed: int) -> State:
    """Everything hidden from ``role`` drawn again, consistent with all ``role`` has seen
    (engine/granada/redealing.py: the re-deal, made cheap)."""
    return dealing.deal(state, role, rng.Generator(seed))


def canonical(state: State, role: str) -> State:
    """One representative of every state ``role`` cannot tell from ``state``: the same re-deal
    with every shuffle replaced by a fixed order (the search samples from it, engine/ai), so
    ``canonical(s, r) == canonical(redeal(s, r, k), r)``."""
    return dealing.deal(state, role, None)
