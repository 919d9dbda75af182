"""What a Granada picture shows, taken from a view: the one place that knows view keys.

Drawing code works on a :class:`Scene` (plain dataclasses), never on the view dict: when
the view format changes only :func:`scene` changes. A scene holds only what the view holds;
a block whose identity the view does not give is a :class:`Piece` with ``face=None`` (a
plain block of its colour), and nothing here can reach a state.

Reading a view: a block dict that carries its face (own blocks, revealed ones, fleets, grey
blocks, public boxes) becomes a piece with a :class:`Face`; a concealed one (``{"key",
"side", "colour", ...}`` with no faction/shields) becomes a plain piece of its colour.
Nothing is looked up by block id for a concealed block: the view's opaque keys are never
block ids.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.text import plural
from render.granada_pieces import Face, _components, face_by_id

SIDES = ("christian", "muslim")
YEARS = ("1482", "1483-1484", "1485", "1486", "1487-1488", "1489-1490", "1491-1492")


@dataclass(frozen=True, slots=True)
class Piece:
    """One block as the viewer sees it."""

    colour: str                  # "white" | "black" | "grey"
    face: Face | None            # None: concealed (the viewer sees only its colour)
    key: str = ""                # block id (own / revealed) or the view's opaque key
    revealed: bool = False       # an opposing block shown to the viewer (deployed, mustered...)
    inside: bool = False         # inside the castle of its location (besieged)
    fresh: bool = False          # arrived this turn
    moved: bool = False          # already moved this turn
    carried_by: str | None = None


@dataclass
class Deployment:
    """One deployment of a battle (8.3): the blocks one card (or a leader without a card, or
    a special rule) brought in, each with the impacts it scored."""

    blocks: list[tuple[Piece, int | None]]
    card: str | None                     # card id
    how: str = ""                        # what deployed the blocks when no card did


@dataclass
class Battle:
    loc: str
    kind: str                    # "field" | "siege" | "naval"
    attacker: str | None = None
    defender: str | None = None
    impacts: dict[str, int] = field(default_factory=dict)
    deployed: dict[str, list[Deployment]] = field(default_factory=dict)     # side -> in order
    undeployed: dict[str, list[Piece]] = field(default_factory=dict)
    finished: dict[str, bool] = field(default_factory=dict)
    initiative: str | None = None
    threshold: int | None = None          # impacts per loss (siege table, 8.7.5)
    threshold_note: str = ""
    inside: list[Piece] = field(default_factory=list)
    disks: list[str] = field(default_factory=list)
    cards: dict[str, list[str]] = field(default_factory=dict)  # side -> other cards played (bombardment...)
    active: bool = True
    label: str = ""
    # naval battles (9.1): the Naval Battle card drawn, who wins a draw, each side's played
    # card once revealed, whether a side has chosen, the viewer's own secret choice
    naval_card: str | None = None
    draw_winner: str | None = None
    played: dict[str, str | None] = field(default_factory=dict)
    chosen: dict[str, bool] = field(default_factory=dict)
    my_choice: str | None = None
    winner: str | None = None
    sunk: list[str] = field(default_factory=list)
    # the optional rules in a battle: the Pioneers tile deployed in a siege (11.7), Naval
    # Bombardment impacts by side (11.6), impacts taken off by Sortie cards (11.5)
    pioneer: str | None = None
    bombardment: dict[str, int] = field(default_factory=dict)
    sortie: int = 0


@dataclass
class OptionalRules:
    """The optional rules in play (section 11) and their public pieces, as the view's
    ``optional`` key gives them (engine/granada/views.py)."""

    rules: list[str] = field(default_factory=list)
    mercenaries: dict[str, list[Piece]] = field(default_factory=dict)   # side -> face up in its box (11.1)
    crusaders: list[Piece] = field(default_factory=list)                # beside the board (11.2)
    bull: dict[str, Any] | None = None                                  # the Papal Bull's condition (11.2)
    removed_cards: list[str] = field(default_factory=list)              # card ids played as events (11.2, 11.3)
    out_of_supply: dict[str, list[str]] = field(default_factory=dict)   # side -> locations with an OOS marker (11.8)
    pioneers: dict[str, str] = field(default_factory=dict)              # tile -> loc | "sea:<zone>" | "eliminated" (11.7)


@dataclass
class Scene:
    viewer: str | None                       # "christian" | "muslim" | None (spectator)
    year: int = 0
    turn: int = 2
    first: str | None = None
    active_side: str | None = None
    phase: str = ""
    frame_kind: str = ""                     # the view's frame kind ("game": between turns)
    prompt: str = ""
    control: dict[str, str | None] = field(default_factory=dict)
    castle: dict[str, str | None] = field(default_factory=dict)
    stacks: dict[str, list[Piece]] = field(default_factory=dict)      # map location -> pieces
    seas: dict[str, list[Piece]] = field(default_factory=dict)        # sea zone -> fleets and carried
    disks: dict[str, str] = field(default_factory=dict)               # disk id -> location | "eliminated"
    recruit: dict[str, list[Piece]] = field(default_factory=dict)     # side -> pieces (concealed if opponent)
    palace: list[Piece] = field(default_factory=list)
    boabdil_box: list[Piece] = field(default_factory=list)
    eliminated: list[Piece] = field(default_factory=list)
    captured: list[Piece] = field(default_factory=list)
    vp: dict[str, float] = field(default_factory=dict)
    hand: list[str] = field(default_factory=list)                     # viewer's hand card ids
    hand_counts: dict[str, int] = field(default_factory=dict)
    surrender: dict[str, list[str]] = field(default_factory=dict)
    decks: dict[str, int] = field(default_factory=dict)
    discards: dict[str, int] = field(default_factory=dict)
    discard_top: dict[str, str | None] = field(default_factory=dict)
    bids: dict[str, str | None] = field(default_factory=dict)
    battles: list[Battle] = field(default_factory=list)               # pending / in progress
    battle: Battle | None = None                                      # the one being fought
    result: dict[str, Any] | None = None
    bag: dict[str, int] = field(default_factory=dict)
    log_tail: list[str] = field(default_factory=list)
    movement: str = ""                                                # activations left etc.
    boabdil: str = ""                                                 # captures / alliance (10.12)
    optional: OptionalRules | None = None                                 # None: no optional rule in play
    names: dict[str, str] = field(default_factory=dict)              # side -> player's name, where the view has them


def piece_from_id(block_id: str, **flags: Any) -> Piece:
    """A block whose identity the view gives (its id)."""
    b = _components().blocks[block_id]
    return Piece(b.colour, face_by_id(block_id), block_id, **flags)


# ---------------------------------------------------------------------------------------
# Reading a view

_FACE_KEYS = ("faction", "shields", "leader", "horse", "crossbow", "gun", "fleet", "special", "name")
_COLOURS = {"christian": "white", "muslim": "black"}
_FLEET = Face(None, 0, 0, False, False, False, True, None, None)

PHASES = {
    "movement": "Movement Phase", "combat": "Combat Phase", "battle": "field combat", "siege": "castle siege",
    "naval_battle": "naval battle", "muster": "mustering", "bid": "Turn Order Step (bids)", "bids": "Turn Order Step (bids)",
    "order": "Turn Order Step", "reinforcement": "Reinforcement Step", "game": "between phases",
}


def _face(block: dict[str, Any]) -> Face | None:
    if "shields" not in block and "fleet" not in block:
        return None
    return Face(block.get("faction"), int(block.get("shields") or 0), int(block.get("leader") or 0),
                bool(block.get("horse")), bool(block.get("crossbow")), bool(block.get("gun")),
                bool(block.get("fleet")), block.get("special"), block.get("name"))


def piece(block: dict[str, Any], carried_by: str | None = None, public: bool = False) -> Piece:
    """``public``: a box both players see (eliminated, palace...), where a "revealed" mark
    would say nothing."""
    face = _face(block)
    colour = str(block.get("colour") or _COLOURS.get(str(block.get("side")), "white"))
    always_public = public or (face is not None and (face.fleet or colour == "grey"))
    return Piece(colour=colour, face=face, key=str(block.get("key") or block.get("id") or ""),
                 revealed=bool(block.get("revealed")) and not always_public,
                 inside=bool(block.get("inside")), fresh=bool(block.get("fresh")), moved=bool(block.get("moved")),
                 carried_by=carried_by)


def _pieces(blocks: Any, public: bool = False) -> list[Piece]:
    return [piece(b, public=public) for b in blocks or []]


def _battle(info: dict[str, Any]) -> Battle:
    kind = str(info.get("kind", "battle"))
    if kind == "naval_battle":
        b = Battle(loc=str(info.get("zone", "")), kind="naval", attacker=info.get("attacker"),
                   defender=info.get("defender"))
        b.label = str(info.get("step", ""))
        b.naval_card = info.get("naval_battle_card")
        b.draw_winner = info.get("draw_winner")
        b.played = {str(s): (str(c) if c else None) for s, c in (info.get("played") or {}).items()}
        b.chosen = {str(s): bool(v) for s, v in (info.get("chosen") or {}).items()}
        b.my_choice = info.get("my_choice")
        b.winner = info.get("winner")
        b.sunk = [str(f) for f in info.get("sunk") or []]
        for s, ids in (info.get("fleets") or {}).items():
            b.undeployed[s] = [Piece(_COLOURS.get(s, "white"), _FLEET, str(i)) for i in (ids or [])]
        return b
    b = Battle(loc=str(info.get("loc", "")), kind="siege" if kind == "siege" or info.get("mode") == "siege" else "field",
               attacker=info.get("attacker"), defender=info.get("defender"))
    b.impacts = {k: int(v) for k, v in (info.get("impacts") or {}).items()}
    b.initiative = info.get("initiative")
    b.finished = {k: bool(v) for k, v in (info.get("finished") or {}).items()}
    b.threshold = info.get("threshold")
    b.disks = list(info.get("disks") or [])
    for side, deployments in (info.get("deployed") or {}).items():
        rows: list[Deployment] = []
        for dep in deployments or []:
            card = dep.get("card") or None
            cid = card.get("id") if isinstance(card, dict) else card
            blocks = [(piece_from_id(str(blk["id"]), revealed=True), blk.get("impacts")) for blk in dep.get("blocks") or []]
            how = "" if cid else str(dep.get("special") or "leader, no card").replace("_", " ")
            rows.append(Deployment(blocks, str(cid) if cid else None, how))
        b.deployed[side] = rows
    for side, n in (info.get("undeployed") or {}).items():
        b.undeployed[side] = [Piece(_COLOURS.get(side, "white"), None) for _ in range(int(n))]
    b.cards = {s: list(v) for s, v in (info.get("battle_discard") or {}).items()}
    b.pioneer = str(info["pioneer"]) if info.get("pioneer") else None
    b.bombardment = {str(s): int(v) for s, v in (info.get("naval") or {}).items() if v}
    b.sortie = int(info.get("sortie") or 0)
    b.label = str(info.get("step", ""))
    return b


def _own_undeployed(sc: Scene) -> None:
    """The viewer knows his own undeployed blocks: the view counts them, and his blocks at the
    battle's location minus those deployed name them (kept as a count if they disagree)."""
    b = sc.battle
    if b is None or sc.viewer is None or b.kind == "naval" or sc.viewer not in b.undeployed:
        return
    colours = ("white", "grey") if sc.viewer == "christian" else ("black",)
    deployed = {p.key for d in b.deployed.get(sc.viewer, []) for p, _ in d.blocks}
    mine = [p for p in sc.stacks.get(b.loc, []) if p.colour in colours and p.face is not None
            and p.key not in deployed]
    if len(mine) == len(b.undeployed[sc.viewer]):
        b.undeployed[sc.viewer] = mine


def _name(loc: Any) -> str:
    L = _components().locations.get(str(loc))
    return L.name if L is not None else str(loc)


def _optional(info: Any) -> OptionalRules | None:
    """The optional rules' part of a view; None when no optional rule is in play (a game
    without options draws exactly what it drew before section 11 existed)."""
    if not isinstance(info, dict) or not info.get("rules"):
        return None
    bull = info.get("papal_bull")
    return OptionalRules(
        rules=[str(r) for r in info.get("rules") or []],
        mercenaries={str(s): _pieces(bs, public=True) for s, bs in (info.get("mercenaries") or {}).items()},
        crusaders=_pieces(info.get("crusaders"), public=True),
        bull=dict(bull) if isinstance(bull, dict) else None,
        removed_cards=[str(c["id"]) if isinstance(c, dict) else str(c) for c in info.get("removed_cards") or []],
        out_of_supply={str(s): [str(x) for x in locs or []] for s, locs in (info.get("out_of_supply") or {}).items()},
        pioneers={str(t): str(w) for t, w in (info.get("pioneers") or {}).items()})


def scene(view: dict[str, Any]) -> Scene:
    """The scene of a Granada view (see engine/granada/views.py for the keys)."""
    if view.get("game") not in (None, "granada"):
        raise ValueError(f"not a Granada view: game {view.get('game')!r}")
    frame = view.get("frame") or {}
    kind = str(frame.get("kind") or "")
    sc = Scene(viewer=view.get("role"), year=int(view.get("year", 0)), turn=int(view.get("turn", 2)),
               first=view.get("first"), active_side=view.get("active_side"),
               phase=PHASES.get(kind, kind.replace("_", " ")), frame_kind=kind, prompt=str(view.get("prompt", "")),
               names={str(k): str(v) for k, v in (view.get("names") or {}).items() if v})
    for loc, entry in (view.get("locations") or {}).items():
        sc.control[loc] = entry.get("control")
        if "castle" in entry:
            sc.castle[loc] = entry.get("castle")
        blocks = entry.get("blocks") or {}
        pieces = _pieces(blocks.get("christian")) + _pieces(blocks.get("muslim"))
        if pieces:
            sc.stacks[loc] = pieces
    for zone, entry in (view.get("seas") or {}).items():
        pieces = []
        for fleet in entry.get("fleets") or []:
            fid = str(fleet.get("id"))
            side = str(fleet.get("side"))
            pieces.append(Piece(_COLOURS.get(side, "white"), _FLEET, fid))
            pieces.extend(piece(b, carried_by=fid) for b in fleet.get("carrying") or [])
        if pieces:
            sc.seas[zone] = pieces
    sc.disks = dict(view.get("disks") or {})
    boxes = view.get("boxes") or {}
    for side, content in (boxes.get("recruit") or {}).items():
        if isinstance(content, dict):
            fleets = list(content.get("fleets") or [])
            n = int(content.get("count", 0)) - len(fleets)
            sc.recruit[side] = [Piece(_COLOURS.get(side, "white"), None) for _ in range(max(0, n))] + [
                Piece(_COLOURS.get(side, "white"), _FLEET, str(f))
                for f in fleets]
        else:
            sc.recruit[side] = _pieces(content)
    sc.bag = {k: int(v) for k, v in (boxes.get("bag") or {}).items()}
    sc.palace = _pieces(boxes.get("palace"), public=True)
    sc.boabdil_box = _pieces(boxes.get("boabdil_box"), public=True)
    sc.eliminated = _pieces(boxes.get("eliminated"), public=True)
    sc.captured = _pieces(boxes.get("captured"), public=True)
    sc.vp = {side: float(v.get("points", 0.0)) if isinstance(v, dict) else float(v)
             for side, v in (view.get("vp") or {}).items()}
    sc.hand = [str(c["id"]) if isinstance(c, dict) else str(c) for c in view.get("hand") or []]
    sc.hand_counts = {k: int(v) for k, v in (view.get("hand_sizes") or {}).items()}
    surrender = view.get("surrender") or {}
    comps = _components()
    for side, n in surrender.items():
        ids = list(getattr(comps, "surrender", {}).get(side, ()))
        sc.surrender[side] = ids[: int(n)] if isinstance(n, int) else list(n)
    sc.decks = {k: int(v) for k, v in (view.get("deck_sizes") or {}).items()}
    sc.discards = {k: int(v) for k, v in (view.get("discard_sizes") or {}).items()}
    sc.discard_top = {"naval": view.get("naval_discard_top")}
    sc.bids = dict(view.get("bids") or {})
    pending = set(view.get("pending_battles") or [])
    battle = view.get("battle")
    current_loc = None
    if battle:
        sc.battle = _battle(battle)
        current_loc = sc.battle.loc
        _own_undeployed(sc)
    for c in view.get("contested") or []:
        loc = str(c.get("loc"))
        if loc == current_loc:
            continue
        b = Battle(loc=loc, kind="siege" if c.get("siege") else "field")
        b.active = loc in pending
        sc.battles.append(b)
    for loc in pending:
        if loc != current_loc and not any(b.loc == loc for b in sc.battles):
            sc.battles.append(Battle(loc=loc, kind="field"))
    mv = view.get("movement")
    if mv:
        parts = [f"{mv['level']} movement"] if mv.get("level") else []     # no level before one is chosen
        if mv.get("activations_left") is not None:
            parts.append(f"{plural(mv['activations_left'], 'activation')} left")
        if mv.get("muster_left"):
            parts.append("muster available")
        if mv.get("stack"):
            parts.append(f"stack of {mv['stack'].get('size')} at {_name(mv['stack'].get('at'))}")
        sc.movement = ", ".join(p for p in parts if p)
    bo = view.get("boabdil") or {}
    if bo.get("captures") or bo.get("in_play") or bo.get("allied_until"):
        text = f"Boabdil captured {bo.get('captures', 0)}×"
        if bo.get("in_play"):
            text += "; Mixed Army in play"
        if bo.get("allied_until"):
            text += f"; allied until {bo['allied_until']}"
        sc.boabdil = text
    sc.optional = _optional(view.get("optional"))
    sc.result = view.get("result")
    sc.log_tail = [str(e.get("text", "")) for e in (view.get("log") or [])[-6:]]
    return sc
