"""What a Granada picture shows, taken from a view: the one place that knows view keys.

Drawing code works on a :class:`Scene` (plain dataclasses), never on the view dict: when
the view format changes only :func:`scene` changes. A scene holds only what the view holds;
a block whose identity the view does not give is a :class:`Piece` with ``face=None`` (a
plain block of its colour), and nothing here can reach a state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from render.granada_pieces import Face, face_by_id

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
class Battle:
    loc: str
    kind: str                    # "field" | "siege" | "naval"
    attacker: str | None = None
    defender: str | None = None
    impacts: dict[str, int] = field(default_factory=dict)
    # side -> (block, card id or how it deployed without a card, impacts it scored)
    deployed: dict[str, list[tuple[Piece, str | None, int | None]]] = field(default_factory=dict)
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


@dataclass
class Scene:
    viewer: str | None                       # "christian" | "muslim" | None (spectator)
    year: int = 0
    turn: int = 2
    first: str | None = None
    active_side: str | None = None
    phase: str = ""
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


def piece_from_id(block_id: str, **flags: Any) -> Piece:
    """A block whose identity the view gives (its id)."""
    from render.granada_pieces import _components

    b = _components().blocks[block_id]
    return Piece(b.colour, face_by_id(block_id), block_id, **flags)


def scene(view: dict[str, Any]) -> Scene:
    """The scene of a Granada view (see engine/granada/views.py for the keys)."""
    from render.granada_view import scene_from_view

    return scene_from_view(view)
