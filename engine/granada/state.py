"""The Granada game state: its shape, the small helpers every Granada module shares, and the
decision-frame stack through which movement, battles, sieges, naval battles and reactions
hand control to each other.

Everything here is plain JSON-compatible data so that the service can store and replay it.
Three engineers code against this module (core, battle, components): keep it backward
compatible. Changes after the first version are listed at the end of this docstring.

STATE SHAPE
===========
::

    state = {
      "game": "granada", "version": 1,
      "options": {...},                 # setup options (section 11 optional rules later)
      "rng": int,                       # engine.rng generator state (the ONLY randomness)
      "log": [{"text": str, "to"?: [side]}],   # "to" = private line (engine.api.visible_log)
      "reveals": int,                   # bumped on every reveal of hidden information
      "year": 0..6,                     # index into YEARS ("1482" .. "1491-1492")
      "turn": 1 | 2,                    # turn I or II of the year (1482 starts in II)
      "first": side | None,             # who moves first both turns this year (6.2)
      "active_side": side | None,       # whose Movement/Combat phase it is
      "blocks": {block_id: {
          "loc": str,        # location id | "bag:<side>" | "recruit:<side>" | "palace" |
                             # "boabdil_box" | "eliminated" | "sea:<zone id>" | "aside" |
                             # "captured" (Boabdil black while the grey army is out) |
                             # "removed" (out of play for good, e.g. Boabdil after a 3rd defeat)
          "revealed": bool,  # identity currently visible to the opponent (deployed, shown)
          "inside": bool,    # inside the castle of its location (castle siege, 8.7)
          "carried_by": fleet id | None,   # land block at sea aboard that fleet (7.5.2)
          "moved": bool,     # already part of a move this turn (7.3.1, 7.5.1)
          "fresh": bool,     # arrived this turn (muster 7.2, palace guard 10.10, disembark
                             # 7.5.2, grey army 10.12.1): may not use land movement
      }},
      "disks": {"el_zegri": loc | "eliminated", "sidi_yahya": loc | "eliminated"},
      "control": {loc: side | None},    # location control (cube / round tower / last mover 4.1)
      "castle": {loc: side | None},     # castle control (square tower, 4.3); castle locs only
      "hands": {side: [card id]},
      "decks": {"christian": [...], "muslim": [...], "naval": [...]},  # draw piles, top = last
      "discards": {"christian": [...], "muslim": [...], "naval": [...]},
      "battle_discard": {side: [card id]},   # temporary battle discard pile (8.2.1, 8.8)
      "surrender": {side: [card id]},        # Castle Surrender cards beside the board (10.5)
      "hand_known": {side: [card id]},  # cards in side's hand the OPPONENT has seen (e.g. a card
                                        # shown to refute a Morale Challenge, 8.4.1)
      "known": {side: [block id]},      # opponent blocks whose identity side has seen
      "bids": {side: card id | None},   # secret bids of the Turn Order Step (6.2)
      "entries": {loc: {side: [from loc | "sea:<zone>" | "muster"]}},  # where each side's
                                        # blocks came from this turn (retreats 8.6.2/8.6.3)
      "stack": [frame, ...],            # decision frames, top = last (see below)
      "boabdil": {"captures": int, "allied_until": turn index | None,
                  "pending": None | "place" | "wait" | "return",
                  "grey": [grey block ids in play]},   # 10.12 (special.py)
      "result": None | {"winner": side | None, "reason": str, "score": {...}},
    }

Sides are "christian" and "muslim". Grey blocks (colour "grey") belong to the Christian
player while on the map (10.12); :func:`owner` says so.

Block ids never leave the engine towards a role that may not know them: views replace
unrevealed opposing blocks by opaque keys (views.py).

DECISION-FRAME STACK
====================
``state["stack"]`` is a list of frames; the LAST one is on top and is the only one that
decides who acts. A frame is a dict with at least::

    {"module": <registered handler name>, "kind": str, ...handler-specific keys...}

``module`` names the frame's handler by its registered name ("sequence", "movement",
"naval", "special", "battle", "siege", "seabattle", ...), looked up in :data:`HANDLERS`, not
imported as a file: stored games hold these names, so the code behind a name may move to
another file (re-register the name) without breaking one of them. A name is versioned: the
bare name is version 1, ``"<name>@<n>"`` version n (:func:`handler_name`), for a handler
whose frames change shape while stored games still hold frames of the old one; a name given
up for another stays readable through :data:`RENAMED`. The handler (a module) must define:

    active(state, frame) -> list[str]               # roles that must act now
    actions(state, role, frame) -> list[Action]     # that role's legal actions
    apply(state, role, action, frame) -> None       # perform a LEGAL action (already matched
                                                    # against actions(); state is a private
                                                    # copy: mutate it in place)

and may define:

    advance(state, frame) -> bool     # automatic progress with no decision (e.g. a child
                                      # frame just finished); return True if it changed the
                                      # state (the dispatcher then calls advance again on the
                                      # new top frame), False when the frame waits for a role
    prompt(state, role, frame) -> str # the sentence shown to role
    view(state, role, frame) -> dict  # what role may see of this frame (battle board etc.)
    choose_weight(action) -> float    # weight of an action for the built-in player
    EDITS_BY_REPLACING = True         # apply copies the frame on top one level deep only:
                                      # the handler replaces its containers, never edits them
    COPY_FRAME(frame) -> dict         # how apply copies the frame on top otherwise (default:
                                      # a deep copy; battle.py shares the containers its steps
                                      # replace, battle_deploy.copy_frame)

Dispatch (engine/granada/__init__.py): ``actions(state, role)`` calls the top frame's
module; ``apply`` matches the action against the legal ones, copies the state once, calls
the top frame's ``apply``, then :func:`settle` runs ``advance`` on whatever frame is on top
until it returns False, and checks instant victory.

Starting a sub-decision: push a frame with :func:`push_frame` (from inside an ``apply`` or
``advance``). Ending it: the handling module calls :func:`finish_frame(state, outcome)`,
which pops the top frame and appends ``outcome`` (a dict with at least "kind") to the
``"returns"`` list of the frame below, whose ``advance`` consumes it. This is how a battle
says "battle over, continue": e.g. the combat phase frame (sequence.py) sees the returned
{"kind": "battle", "loc": ...} and offers the next pending battle; the naval movement
frame (naval.py) sees {"kind": "naval_battle", ...} and lets surviving fleets continue.

Battle entry points the BATTLE engineer provides (called by core code):

    battle.start_battle(state, loc, attacker) -> None
        # pushes the frame(s) of the land battle at loc with attacker = the phasing side:
        # pre-battle retreats (Commander 10.1, Castle Surrender 10.5), inside/outside
        # declarations (8.7.2), grey/white choice (10.12.2), then field combat (8.2-8.6)
        # or castle siege (8.7); ends with finish_frame(state, {"kind": "battle", "loc": loc,
        # "winner": side | None, ...}).  Nasrid Palace Guard entry at combat declaration
        # (10.10) is done by the core BEFORE the call (special.palace_guard_join).
    seabattle.start_naval_battle(state, zone, attacker, moving, card) -> None
        # moving = ids of the active side's moving fleets, card = the Naval Battle card
        # just drawn from the Naval deck (its draw_winner breaks ties, 9.1); the frame
        # below is naval.py's "sea_move" frame ("moves_left": zones the moving stack may
        # still enter, for evasion 9.2). Ends with finish_frame(state,
        # {"kind": "naval_battle", "zone": zone, "survivors": [fleet ids of moving fleets
        # still in zone], "evaded": {side: [fleet ids]}}).

Core entry points battle code may call: overrun.resolve(state, loc, side) (overruns on a
retreat path, 7.4), special.capture_boabdil(state) (10.12.1, when the Muslims lose a battle
in which all blocks accompanying Boabdil were eliminated), special.grey_defeated(state)
(grey Boabdil lost a combat against the Muslims), victory.check_instant(state),
draw_cards / discard_cards / reveal / eliminate below.

Menus: the dispatcher offers every legal action at once (a front end pages a long list).
Logs stored before then hold ``{"type": "menu"}`` page turns (menus.py), which still replay
and keep the page a role looked at in ``frame["_menu"][role]`` of the top frame; frame
modules ignore that key (apply still receives a legal action of the full list).

Changes since version 1: start_naval_battle also receives the Naval Battle card drawn;
finish_frame also marks the location of a finished {"kind": "battle"} as fought in the
current Combat Phase (so a follow-on battle caused by a retreat is not declared twice);
guard_defends (10.10): Christians at Granada with blocks in the Nasrid Palace Guard box.
Issue 15 (speed): during a frame's ``apply``/``advance``, ``state["blocks"]`` is a
copy-on-access dict (engine.granada._CopyOnAccess): each record is copied when the step
first reaches it, through ``[]``, ``get``, ``values()`` or ``items()`` (the last two return
lists); ``pop``/``setdefault``/``update``/``copy`` are refused. Read-only scans of every
record may use ``dict.values(state["blocks"])``, as :func:`by_location` does. A state apply
returned shares the records the step did not reach with its input: states are values, so
code that edits a returned state in place (a test arranging a position) edits the states
before it too, and the location index the step worked out for it no longer matches
(placement.py remembers it by the records' dict): engine.ai clones before it edits, and so
does the tests' ``act`` helper.
Issue 33 (speed): apply's state is itself copied key by key as the step reaches it
(engine.granada._StepState): keys the step never reaches are shared with the input, and of
the decision stack only the top frame is copied at once, the frames below when
:func:`pop_frame` or :func:`finish_frame` reaches them (:func:`own_frames`; a rule that edits a
frame below the top by another way must call it first). Reads that change nothing may use
:func:`peek` to avoid the copy; ``state["entries"]`` is copied one level deep, so its records
are replaced, not edited (:func:`add_entry`). The stored JSON is unchanged, key order included.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from engine import rng
from engine.api import RuleError, State
from engine.granada import components as comp
from engine.granada.frames import HANDLERS as HANDLERS
from engine.granada.frames import RENAMED as RENAMED
from engine.granada.frames import active_roles as active_roles
from engine.granada.frames import deep_copy as deep_copy
from engine.granada.frames import finish_frame as finish_frame
from engine.granada.frames import handler as handler
from engine.granada.frames import handler_name as handler_name
from engine.granada.frames import own_frames as own_frames
from engine.granada.frames import pop_frame as pop_frame
from engine.granada.frames import push_frame as push_frame
from engine.granada.frames import register_handler as register_handler
from engine.granada.frames import top as top
from engine.granada.placement import by_location as by_location
from engine.granada.placement import frozen_index as frozen_index
from engine.granada.placement import peek as peek

SIDES = ("christian", "muslim")
YEARS = ("1482", "1483-1484", "1485", "1486", "1487-1488", "1489-1490", "1491-1492")
PUBLIC_PLACES = ("eliminated", "palace", "boabdil_box", "aside", "captured", "removed",
                 "mercenaries:christian", "mercenaries:muslim")
"""Places off the map whose blocks both players see face up: a view shows them, and a
re-deal (redealing.py) never draws their blocks again."""
# Every turn of the game in order: (year index, turn). 1482 has only turn II, 1491-1492 only I.
TURNS: tuple[tuple[int, int], ...] = ((0, 2),) + tuple(
    (y, t) for y in range(1, 6) for t in (1, 2)) + ((6, 1),)
ROMAN = {1: "I", 2: "II"}
DISKS = ("el_zegri", "sidi_yahya")

__all__ = [
    "DISKS", "ROMAN", "SIDES", "TURNS", "YEARS", "RuleError",
    "active_roles", "article", "pass_tiles", "void_capture_card", "block", "blocks_at", "by_location", "castle_owner_natural", "cards_of",
    "data", "discard_cards", "draw_cards", "draw_naval", "eliminate", "enemy_units_at",
    "finish_frame", "guard_defends", "guard_in_box", "handler", "log", "log_private", "natural",
    "other", "owner", "add_entry", "own_frames", "peek",
    "pop_frame", "push_frame", "reveal", "settle", "settle_location", "show_card", "top",
    "turn_index", "turn_label", "units_at",
]


@functools.cache
def data() -> comp.Components:
    """The cached components (map, blocks, cards): asked a dozen times a step, so held here
    once loaded (comp.load caches the same object); a C-level cache, whose call costs a
    fraction of a Python function's (issue 33)."""
    return _DATA if _DATA is not None else _load_data()


_DATA: comp.Components | None = None


def _load_data() -> comp.Components:
    global _DATA
    _DATA = comp.load()
    return _DATA


def other(side: str) -> str:
    return "muslim" if side == "christian" else "christian"


_OWNER: dict[str, str] = {}


def _owners() -> dict[str, str]:
    if not _OWNER:
        for bid, b in data().blocks.items():
            _OWNER[bid] = "christian" if b.colour == "grey" else b.side
    return _OWNER


def owners() -> dict[str, str]:
    """Every block's :func:`owner` at once (static data): for loops over many blocks."""
    return _OWNER or _owners()


def owner(block_id: str) -> str:
    """The side that moves and fights with a block (grey blocks: the Christians, 10.12)."""
    return (_OWNER or _owners())[block_id]


_UNSET = object()


def block(state: State, block_id: str) -> dict[str, Any]:
    rec: dict[str, Any] = state["blocks"][block_id]
    return rec


# ---------------------------------------------------------------- turns

def turn_index(state: State) -> int:
    """Position of the current turn in TURNS (0 = 1482 II, 11 = 1491-1492 I)."""
    return TURNS.index((state["year"], state["turn"]))


def turn_label(year: int, turn: int) -> str:
    return f"{YEARS[year]} {ROMAN[turn]}"


def index_label(index: int) -> str:
    """The label of a position on the Turn track, even one beyond the last turn."""
    if 0 <= index < len(TURNS):
        return turn_label(*TURNS[index])
    return "after the end of the game"


# ---------------------------------------------------------------- log

def log(state: State, text: str) -> None:
    """A public log line."""
    state["log"].append({"text": text})


def log_private(state: State, side: str, text: str) -> None:
    """A log line only ``side`` may read."""
    state["log"].append({"text": text, "to": [side]})


# ---------------------------------------------------------------- blocks and units

def blocks_at(state: State, loc: str, side: str | None = None,
              index: dict[str, list[str]] | None = None) -> list[str]:
    """Blocks at a map location (not counting carried blocks at sea), optionally of one side."""
    # the index (memoised during a legal-actions query, else cached by placement, which a
    # step asks for again and again) is cheaper than a scan of every record
    ids = (index if index is not None else by_location(state)).get(loc, [])
    if side is None:
        return list(ids)
    own = _OWNER or _owners()
    out = []        # (a loop, not a comprehension: that is a call of its own, issue 33)
    for b in ids:
        if own[b] == side:
            out.append(b)
    return out


def add_entry(state: State, loc: str, side: str, came: str) -> None:
    """``side``'s blocks entered ``loc`` from ``came`` this turn (retreats 8.6.2/8.6.3). The
    record of the location is replaced by an edited copy, never edited in place: apply copies
    "entries" one level deep only (engine.granada._STEP_HOW, issue 33), so the records of the
    other locations stay the input state's."""
    # state["entries"] (an apply's step state takes it in one call; its setdefault is three)
    try:
        entries = state["entries"]
    except KeyError:
        entries = state["entries"] = {}
    sides = entries.get(loc)
    sides = {} if sides is None else {s: v[:] for s, v in sides.items()}
    came_from = sides.setdefault(side, [])
    if came not in came_from:
        came_from.append(came)
    entries[loc] = sides


def disks_at(state: State, loc: str) -> list[str]:
    disks = peek(state, "disks")
    return [d for d in DISKS if disks.get(d) == loc]


def units_at(state: State, loc: str, side: str, index: dict[str, list[str]] | None = None) -> int:
    """Number of ``side``'s units at a location: blocks plus (Muslim) disks (8.7.4)."""
    # len(blocks_at(...)), counted at C speed without the list of ids
    ids = (index if index is not None else by_location(state)).get(loc, ())
    n = list(map((_OWNER or _owners()).__getitem__, ids)).count(side)
    if side == "muslim":
        # len(disks_at(...)), inline (st.peek: the disks are never empty)
        disks = dict.get(state, "disks") or (state if state.__class__ is dict else state._src)["disks"]  # type: ignore[attr-defined]
        n += list(map(disks.get, DISKS)).count(loc)
    return n


def enemy_units_at(state: State, loc: str, side: str,
                   index: dict[str, list[str]] | None = None) -> int:
    # units_at(state, loc, other(side), index), inline (asked at every move, and a call is a
    # thousand instructions)
    ids = (index if index is not None else by_location(state)).get(loc, ())
    if side != "christian":     # (other(side))
        return list(map((_OWNER or _owners()).__getitem__, ids)).count("christian")
    disks = dict.get(state, "disks") or (state if state.__class__ is dict else state._src)["disks"]  # type: ignore[attr-defined]
    return list(map((_OWNER or _owners()).__getitem__, ids)).count("muslim") + list(map(disks.get, DISKS)).count(loc)


@functools.cache
def natural(loc: str) -> str:
    """Natural alignment of a location: Muslim inside the Kingdom of Granada (4.3); static
    data, cached (asked wherever a castle is emptied)."""
    return "muslim" if data().locations[loc].kingdom else "christian"


castle_owner_natural = natural


ALHAMBRA = "granada"


def guard_in_box(state: State, index: dict[str, list[str]] | None = None) -> bool:
    """Blocks are still waiting in the Nasrid Palace Guard box (10.10)."""
    if index is not None:
        return bool(index.get("palace"))
    return any(rec["loc"] == "palace" for rec in state["blocks"].values())


def guard_defends(state: State, loc: str, side: str,
                  index: dict[str, list[str]] | None = None) -> bool:
    """Christian forces at Granada face the Nasrid Palace Guard even where no Muslim block
    stands yet: while the guard box holds blocks, Granada is attacked, not taken (10.10: "at
    the moment combat is declared, all blocks in the Nasrid Palace Guard box appear in
    Granada location and join the battle"; RULINGS.md 30). Such forces stop there, change
    no control piece and must declare the battle."""
    return loc == ALHAMBRA and side == "christian" and guard_in_box(state, index)


def reveal(state: State, block_id: str, why: str = "") -> None:
    """Show a block's identity to the opponent (deployment, muster display, leader declared,
    loss). Bumps ``state["reveals"]`` (undo barrier) and remembers the opponent saw it."""
    rec = state["blocks"][block_id]
    side = owner(block_id)
    opp = other(side)
    if not rec["revealed"]:
        rec["revealed"] = True
        state["reveals"] += 1
    if data().blocks[block_id].colour != "grey" and block_id not in state["known"][opp]:
        state["known"][opp].append(block_id)
        state["known"][opp].sort()
    if why:
        log(state, f"{side.capitalize()} reveals {block_name(block_id)} ({why}).")


def conceal(state: State, block_ids: list[str] | None = None) -> None:
    """Turn revealed blocks face down again (8.1: after a battle). Grey blocks and fleets
    stay face up, and so do blocks off the map that are public (eliminated, boxes)."""
    comps = data().blocks
    for bid in block_ids if block_ids is not None else list(state["blocks"]):
        rec = state["blocks"][bid]
        b = comps[bid]
        if b.fleet or b.colour == "grey" or rec["loc"] in ("eliminated", "palace", "boabdil_box",
                                                             "removed", "captured", "aside"):
            continue
        rec["revealed"] = False


def article(word: str) -> str:
    """'a' or 'an' before ``word`` (log lines and labels are read by players)."""
    return "an" if word[:1].lower() in "aeiou" else "a"


@functools.cache
def block_name(block_id: str) -> str:
    """A human name of a block's face (only for lines its viewer may read); static data,
    named in every menu label, hence cached."""
    b = data().blocks[block_id]
    extra = "".join(s for s, f in ((" cavalry", b.horse), (" crossbow", b.crossbow),
                                   (" artillery", b.gun)) if f)
    if b.name:
        faces = {(o.shields, o.horse, o.crossbow, o.gun) for o in data().blocks.values() if o.name == b.name}
        if len(faces) == 1:
            return b.name
        # pieces of one name with different faces (the Nasrid Palace Guard, 10.10): a menu
        # tells them apart
        return f"{b.name} ({b.shields}-shield{extra or ' infantry'})"
    if b.fleet:
        return f"fleet {block_id}"
    fac = (b.faction or "").replace("_", " ").title()
    lead = " leader" if b.leader else ""
    return f"{fac} {b.shields}-shield{extra}{lead} ({block_id})"


def eliminate(state: State, block_id: str) -> None:
    """A block lost (combat, overrun, naval battle): to the eliminated pile, face up (8.5).
    Carried blocks of an eliminated fleet go with it (9.1). Boabdil (black) cannot be
    eliminated (3.2): callers use special.capture_boabdil instead."""
    rec = state["blocks"][block_id]
    # 11.1: eliminated Mercenaries are removed from the game
    gone = "removed" if data().blocks[block_id].special == "mercenaries" else "eliminated"
    was = rec["loc"]
    rec.update(loc=gone, inside=False, carried_by=None)
    if state.get("pioneers"):
        pass_tiles(state, block_id, was)
    reveal(state, block_id)
    if data().blocks[block_id].fleet:
        for bid, other_rec in state["blocks"].items():
            if other_rec.get("carried_by") == block_id:
                other_rec.update(loc="eliminated", inside=False, carried_by=None)
                reveal(state, bid)


# ---------------------------------------------------------------- control

def settle_location(state: State, loc: str, index: dict[str, list[str]] | None = None) -> None:
    """Bring the control pieces of a location in line with who is there (4.1, 4.3, 10.12.2).

    * Location control (cube / round tower): a side that is alone at the location takes it;
      a side outside facing enemies that are all inside the castle takes it (8.7: castle to
      one side, location to the other); grey blocks alone remove Muslim control without
      placing Christian control (10.12.2); otherwise unchanged (4.1: the last mover keeps it).
    * Castle control: the side alone there (grey alone: Muslim castle removed); both present:
      unchanged (the side that was there first, 4.3); nobody: natural alignment (4.3).
    * Blocks are no longer "inside" once no enemy is present.
    * Christians alone at Granada while the Nasrid Palace Guard box holds blocks change
      nothing: the guard appears when the battle is declared (10.10, :func:`guard_defends`).
    """
    idx = index if index is not None else by_location(state)
    # looks first (peek, inline: a call is a thousand instructions; dict.__getitem__): during
    # apply, a record, the control or the castle pieces are copied only when this location
    # really changes them (issue 33: settle() runs over every location after each Combat Phase)
    src = state if state.__class__ is dict else state._src   # type: ignore[attr-defined]
    get = dict.get
    disks = get(state, "disks") or src["disks"]
    _settle(state, loc, idx, get(state, "blocks") or src["blocks"], get(state, "control") or src["control"],
            get(state, "castle") or src["castle"], list(map(disks.get, DISKS)).count(loc),
            data().locations[loc])


def _settle(state: State, loc: str, idx: dict[str, list[str]], records: dict[str, Any],
            control: dict[str, Any], castle: dict[str, Any], disks: int, L: Any) -> None:
    """:func:`settle_location` with what it looks at given (:func:`settle` looks once for
    every location): the records, control and castle pieces as :func:`peek` gives them (a
    location's own pieces are the same in the input and in the step's copy), the number of
    disks there and the location's data. A piece is set (``state[key][loc] = side``, which
    copies the pieces during apply) only for a change (_put, inline: this runs after every
    move, and a call is a thousand instructions)."""
    ids = idx.get(loc, ())
    white_out = white_in = grey = 0
    black_out = black_in = 0
    inside = False              # a block there is inside its castle (then :func:`_outside`)
    colour = _COLOURS or _colours()
    record = dict.__getitem__
    for bid in ids:
        c = colour[bid]
        if c == "grey":
            grey += 1
            if record(records, bid)["inside"]:
                inside = True
        elif record(records, bid)["inside"]:
            inside = True
            if c == "black":
                black_in += 1
            else:
                white_in += 1
        elif c == "black":
            black_out += 1
        else:
            white_out += 1
    black_in += disks
    chris = white_out + white_in + grey
    mus = black_out + black_in
    if chris and not mus:
        if loc == ALHAMBRA and guard_defends(state, loc, "christian", idx):
            return              # Granada is attacked, not taken: the guard will appear (10.10)
        if white_out + white_in:
            if control.get(loc, _UNSET) != "christian":
                state["control"][loc] = "christian"
            if L.castle and castle.get(loc, _UNSET) != "christian":
                state["castle"][loc] = "christian"
        else:  # grey alone
            if control.get(loc) == "muslim":
                state["control"][loc] = None
            if L.castle and castle.get(loc) == "muslim":
                state["castle"][loc] = None
        if inside:
            _outside(state, records, ids)
    elif mus and not chris:
        if control.get(loc, _UNSET) != "muslim":
            state["control"][loc] = "muslim"
        if L.castle and castle.get(loc, _UNSET) != "muslim":
            state["castle"][loc] = "muslim"
        if inside:
            _outside(state, records, ids)
    elif not mus and not chris:
        if L.castle:
            _put(state, castle, "castle", loc, natural(loc))
    else:
        if mus and black_out == 0 and (white_out + grey) and not white_in:
            if white_out:
                _put(state, control, "control", loc, "christian")
            elif control.get(loc) == "muslim":
                _put(state, control, "control", loc, None)
        elif chris and white_out + grey == 0 and black_out:
            _put(state, control, "control", loc, "muslim")


_COLOURS: dict[str, str] = {}


def _colours() -> dict[str, str]:
    """Every block's colour (static data), looked up at each block ``_settle`` counts."""
    _COLOURS.update((bid, b.colour) for bid, b in data().blocks.items())
    return _COLOURS


def _put(state: State, pieces: dict[str, Any], key: str, loc: str, side: str | None) -> None:
    """``state[key][loc] = side``, copying the pieces (during apply) only for a change;
    ``pieces`` is what :func:`peek` gave for ``key``. A location not yet in the dict is set
    even to None, as the plain assignment did."""
    if pieces.get(loc, _UNSET) != side:
        state[key][loc] = side


def _outside(state: State, records: dict[str, Any], ids: Iterable[str]) -> None:
    """The blocks ``ids`` are no longer inside a castle (only records that were are reached)."""
    for bid in ids:
        if dict.__getitem__(records, bid)["inside"]:
            state["blocks"][bid]["inside"] = False


def pass_through(state: State, loc: str, side: str, grey: bool,
                 index: dict[str, list[str]] | None = None) -> None:
    """A block of ``side`` moves onto or through ``loc`` (4.1): if the location is free of
    enemies its control pieces change (grey blocks only remove Muslim ones, 10.12.2)."""
    if enemy_units_at(state, loc, side, index) or guard_defends(state, loc, side, index):
        return
    take_control(state, loc, side, grey)


def take_control(state: State, loc: str, side: str, grey: bool) -> None:
    """:func:`pass_through` where the caller has just found no enemy and no Palace Guard
    there (a move's step: the same looks are not asked again, issue 33)."""
    L = data().locations[loc]
    if grey:
        if state["control"].get(loc) == "muslim":
            state["control"][loc] = None
        if L.castle and state["castle"].get(loc) == "muslim":
            state["castle"][loc] = None
        return
    state["control"][loc] = side
    if L.castle:
        state["castle"][loc] = side


def settle(state: State) -> None:
    """settle_location for every map location."""
    idx = by_location(state)
    disks = peek(state, "disks")
    on = set(disks.values())
    # looked at once for every location (settle_location looks for one)
    records, control, castle = peek(state, "blocks"), peek(state, "control"), peek(state, "castle")
    counts: dict[str, int] = {}
    for d in DISKS:
        where = disks.get(d)
        counts[where] = counts.get(where, 0) + 1
    for loc, L in data().locations.items():
        if loc in idx or loc in on:
            _settle(state, loc, idx, records, control, castle, counts.get(loc, 0), L)
        elif L.castle:
            # nobody there: the castle reverts to its alignment (_settle's last case, inline:
            # most castles are empty, and three calls each were a tenth of a step that ends a
            # Combat Phase, issue 33)
            side = "muslim" if L.kingdom else "christian"     # natural(loc)
            if castle.get(loc, _UNSET) != side:
                state["castle"][loc] = side


# ---------------------------------------------------------------- cards

def cards_of(side: str) -> str:
    """The deck key of a side."""
    return side


def draw_cards(state: State, side: str, n: int) -> list[str]:
    """Draw n cards into side's hand; when the draw pile is exhausted the discard pile is
    shuffled into a new draw pile (3.3). Draws stop early only if both piles are empty.
    The drawn cards are named in a line only ``side`` reads."""
    drawn: list[str] = []
    deck = state["decks"][side]
    for _ in range(n):
        if not deck:
            pile = state["discards"][side]
            if not pile:
                break
            deck.extend(pile)
            pile.clear()
            rng.shuffle(state, deck)
            log(state, f"The {side} discard pile is shuffled into a new draw pile (3.3).")
        drawn.append(deck.pop())
    state["hands"][side].extend(drawn)
    if drawn:
        names = ", ".join(card_name(c) for c in drawn)
        log_private(state, side, f"You draw {names}.")
        log(state, f"{side.capitalize()} draws {len(drawn)} card{'s' if len(drawn) != 1 else ''}.")
        void_capture_card(state)
    return drawn


def pass_tiles(state: State, block_id: str, loc: str) -> None:
    """The block a Pioneers tile rides on is eliminated at ``loc``: the tile passes to another
    white Christian block there, or is eliminated with the last of them (11.7, pioneers.py)."""
    blocks = data().blocks
    for tile, carrier in sorted(state["pioneers"].items()):
        if carrier != block_id:
            continue
        riders = sorted(b for b, rec in state["blocks"].items()
                        if rec["loc"] == loc and b != block_id and owner(b) == "christian"
                        and blocks[b].colour == "white")
        state["pioneers"][tile] = riders[0] if riders else "eliminated"
        if not riders:
            log(state, f"The Pioneers tile {tile} is eliminated with the last block of its stack (11.7).")


def void_capture_card(state: State) -> None:
    """11.4: once Boabdil has been captured, the Boabdil Is Captured in Combat card no longer
    applies: held by the Christian, it is discarded (face up) and replaced from the deck."""
    if not peek(state, "boabdil")["captures"]:    # (a read: apply copies nothing for it)
        return
    cards = data().cards
    void = [c for c in state["hands"]["christian"] if cards[c].kind == "boabdil_captured"]
    if void:
        # replaced first (so that the replacement is never the void card reshuffled), then
        # discarded face up
        hand = state["hands"]["christian"]
        for c in void:
            hand.remove(c)
        draw_cards(state, "christian", len(void))
        hand.extend(void)
        discard_cards(state, "christian", void, "(Boabdil was captured before: the card no longer applies, 11.4)")


def draw_naval(state: State) -> str | None:
    """Draw the top card of the shared Naval deck (7.5.3), reshuffling its discards (3.3).
    The card is shown to both players and goes to the naval discard pile."""
    deck = state["decks"]["naval"]
    if not deck:
        pile = state["discards"]["naval"]
        if not pile:
            return None
        deck.extend(pile)
        pile.clear()
        rng.shuffle(state, deck)
        log(state, "The Naval discard pile is shuffled into a new draw pile (3.3).")
    card = deck.pop()
    state["discards"]["naval"].append(card)
    state["reveals"] += 1
    return card


@functools.cache
def card_name(card_id: str) -> str:
    """A card's name and id (static data, in log lines)."""
    c = data().cards[card_id]
    return f"{c.name} ({card_id})"


@functools.cache
def card_choice(card_id: str) -> str:
    """A card in a menu entry: its name with what is printed on it besides (bid number, naval
    value or evade arrow, trumpet) and its id, ``Castile (bid 2, naval 1, C10)``. Two cards of
    one name differ only there, and the picture shows no ids: ``Discard Aragón (C30)`` against
    ``(C31)`` could not be told apart (issue 38). Log lines keep :func:`card_name`."""
    c = data().cards[card_id]
    traits = [f"bid {c.bid}"] if c.bid is not None else []
    if c.naval is not None:
        traits.append(f"naval {c.naval}")
    elif c.evade:
        traits.append("evade")
    if c.trumpet:
        traits.append("trumpet")
    return f"{c.name} ({', '.join([*traits, card_id])})"


def discard_cards(state: State, side: str, cards: list[str], why: str = "") -> None:
    """Cards from side's hand to its discard pile, face up (3.3: all discards are public)."""
    hand = state["hands"][side]
    for c in cards:
        hand.remove(c)
        state["discards"][side].append(c)
        if c in state["hand_known"][side]:
            state["hand_known"][side].remove(c)
    if cards:
        state["reveals"] += 1
        names = ", ".join(card_name(c) for c in cards)
        log(state, f"{side.capitalize()} discards {names}{' ' + why if why else ''}.")


def show_card(state: State, side: str, card: str) -> None:
    """side shows a card of its hand to the opponent (e.g. refuting a Morale Challenge,
    8.4.1); the card stays in hand and the opponent now knows it is there."""
    if card not in state["hand_known"][side]:
        state["hand_known"][side].append(card)
    state["reveals"] += 1
