"""Granada's pieces as sprites: blocks (concealed or showing their face), fleets, disks,
control pieces and cards.

A sprite depends only on what is printed on the piece (never on where it is or whose view
it is drawn for), so it is cached by that face: the hundred-odd blocks of a board are a
handful of distinct pictures pasted many times.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from render import common as C

COLOUR_SIDE = {"white": "christian", "black": "muslim", "grey": "grey"}
LEADER_ABBR = {"ferdinand": "FER", "isabella": "ISA", "boabdil": "BOA", "el_zagal": "ZAG", "boabdil_army": "BOA"}


@dataclass(frozen=True, slots=True)
class Face:
    """What is printed on a block (the part of a component a sprite depends on)."""

    faction: str | None
    shields: int
    leader: int
    horse: bool
    crossbow: bool
    gun: bool
    fleet: bool
    special: str | None
    name: str | None


def face_of(block: Any) -> Face:
    return Face(block.faction, block.shields, block.leader, block.horse, block.crossbow, block.gun, block.fleet,
                block.special, block.name)


def _components() -> Any:
    from engine.granada import components

    return components.load()


def face_by_id(block_id: str) -> Face:
    return face_of(_components().blocks[block_id])


def _style(face: Face) -> C.FactionStyle:
    if face.faction is None and face.special in C.SPECIAL_BLOCKS:
        return C.SPECIAL_BLOCKS[face.special]
    return C.faction_style(face.faction)


def _block_body(draw: ImageDraw.ImageDraw, k: float, size: int, colour: str, highlight: C.Colour | None) -> None:
    side = C.SIDES[COLOUR_SIDE[colour]]
    inset = 1.0 * k
    draw.rounded_rectangle((inset, inset, size * k - inset, size * k - inset), radius=size * k * 0.18,
                           fill=side.fill, outline=highlight or side.edge,
                           width=max(1, round(k * (2.5 if highlight else 1.2))))
    # a bevel line so the block reads as a solid piece, not a flat tile
    draw.line((size * k * 0.2, size * k - inset * 3, size * k * 0.8, size * k - inset * 3),
              fill=C.mix(side.fill, (0, 0, 0), 0.25) if colour != "black" else (80, 80, 86), width=max(1, round(k)))


@functools.lru_cache(maxsize=1024)
def block_sprite(face: Face | None, colour: str, size: int, highlight: C.RGB | None = None) -> Image.Image:
    """A block ``size`` px square: concealed (``face`` None) or showing its identity.

    Identity: the faction shield (colour and emblem), the strength as a digit and as
    shields along the bottom when there is room, a leader's banner with its dots, and
    horse / crossbow / gun pictograms; army leaders carry a crown; fleets a ship.
    """
    side = C.SIDES[COLOUR_SIDE[colour]]
    ink = side.ink

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        _block_body(draw, k, size, colour, highlight)
        S = size * k
        if face is None:
            return
        if face.fleet:
            C.icon(draw, "ship", (S * 0.17, S * 0.14, S * 0.83, S * 0.80), ink, side.fill)
            return
        if face.shields == 0 and face.leader == 2:
            C.icon(draw, "crown", (S * 0.18, S * 0.10, S * 0.82, S * 0.50), C.OI.ORANGE)
            r = S * 0.06
            for dx in (0.38, 0.62):
                draw.ellipse((S * dx - r, S * 0.56 - r, S * dx + r, S * 0.56 + r), fill=ink)
            abbr = LEADER_ABBR.get(face.special or "", (face.name or "?")[:3].upper())
            C.fit_text(draw, (S * 0.08, S * 0.68, S * 0.92, S * 0.98), abbr, max(6, round(S * 0.24)), bold=True,
                       family="condensed", fill=ink, align="c", min_size=max(6, round(S * 0.16)))
            return
        style = _style(face)
        big = size >= 44
        C.shield(draw, (S * 0.08, S * 0.22, S * 0.56, S * (0.80 if big else 0.90)), face.faction,
                 edge=C.INK if colour != "black" else (150, 150, 150), width=max(1, round(k)), style=style)
        C.fit_text(draw, (S * 0.58, S * 0.04, S * 0.98, S * 0.50), str(face.shields), max(6, round(S * 0.36)), bold=True,
                   fill=ink, align="c", min_size=max(6, round(S * 0.2)))
        icons = [n for n, on in (("horse", face.horse), ("crossbow", face.crossbow), ("gun", face.gun)) if on]
        for i, name in enumerate(icons):
            C.icon(draw, name, (S * 0.62, S * (0.50 + 0.0 * i), S * 0.94, S * 0.80), ink, side.fill)
        if face.leader:
            C.banner(draw, (S * 0.08, S * 0.02, S * 0.36, S * 0.20), face.leader, ink, C.OI.ORANGE)
        if big and face.shields:
            C.pips(draw, (S * 0.12, S * 0.83, S * 0.88, S * 0.96), face.shields, style.colour, ink)

    return C.supersampled(size, size, paint, factor=3)


@functools.lru_cache(maxsize=256)
def count_sprite(colour: str, count: int, size: int) -> Image.Image:
    """``count`` concealed blocks of one colour as one block bearing the number, with the
    edges of the blocks beneath showing (a stack, not a single piece)."""
    side = C.SIDES[COLOUR_SIDE[colour]]

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        S = size * k
        o = S * 0.08
        for d in (2, 1):
            draw.rounded_rectangle((o * d, 0, S - 1, S - o * d), radius=S * 0.18, fill=side.fill, outline=side.edge,
                                   width=max(1, round(k * 1.2)))
        draw.rounded_rectangle((0, o * 2, S - o * 2, S - 1), radius=S * 0.18, fill=side.fill, outline=side.edge,
                               width=max(1, round(k * 1.2)))
        C.fit_text(draw, (S * 0.04, o * 2 + S * 0.04, S - o * 2 - S * 0.04, S - S * 0.04), f"{count}",
                   round(S * (0.5 if count < 10 else 0.4)), bold=True, fill=side.ink, align="c",
                   min_size=max(6, round(S * 0.25)))

    return C.supersampled(size, size, paint, factor=3)


@functools.lru_cache(maxsize=64)
def disk_sprite(name: str, size: int) -> Image.Image:
    """El Zegri / Sidi Yahya: a black disk with the leader's initials."""

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        S = size * k
        draw.ellipse((k, k, S - k, S - k), fill=(30, 30, 34), outline=C.OI.ORANGE, width=max(1, round(2 * k)))
        initials = "".join(w[0] for w in name.replace("-", " ").split() if w[0].isupper())[:2] or name[:2]
        C.fit_text(draw, (S * 0.12, S * 0.12, S * 0.88, S * 0.88), initials, round(S * 0.4), bold=True,
                   family="condensed", fill=(245, 242, 232), align="c", min_size=max(6, round(S * 0.25)))

    return C.supersampled(size, size, paint)


def control_fill(side: str | None) -> tuple[C.RGB, C.RGB]:
    """Fill and edge of a control piece (white / black as on the table; none: hollow)."""
    if side == "christian":
        return C.SIDES["christian"].fill, C.INK
    if side == "muslim":
        return C.SIDES["muslim"].fill, (0, 0, 0)
    return (214, 206, 186), (120, 112, 100)


# ---------------------------------------------------------------------------------------
# Markers of the optional rules

OOS_EDGE: C.RGB = (200, 30, 30)
PIONEER_FILL: C.RGB = (196, 150, 96)


@functools.lru_cache(maxsize=32)
def marker_sprite(kind: str, label: str, size: int) -> Image.Image:
    """A square tile as the optional rules put on a stack: "oos" (an Out of Supply marker,
    11.8: pale with a thick red edge and "OOS") or "pioneer" (a Pioneers tile, 11.7: wood
    brown with an axe and its number)."""

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        S = size * k
        if kind == "oos":
            draw.rectangle((k, k, S - k, S - k), fill=(255, 236, 160), outline=OOS_EDGE, width=max(2, round(3 * k)))
            C.fit_text(draw, (S * 0.1, S * 0.1, S * 0.9, S * 0.9), "OOS", max(6, round(S * 0.34)), bold=True,
                       family="condensed", fill=OOS_EDGE, align="c", min_size=max(6, round(S * 0.22)))
            return
        draw.rectangle((k, k, S - k, S - k), fill=PIONEER_FILL, outline=(70, 44, 20), width=max(1, round(2 * k)))
        C.icon(draw, "axe", (S * 0.14, S * 0.08, S * 0.70, S * 0.64), (40, 26, 12))
        C.fit_text(draw, (S * 0.42, S * 0.52, S * 0.98, S * 0.98), label, max(6, round(S * 0.32)), bold=True,
                   family="condensed", fill=(255, 250, 235), outline=(40, 26, 12), stroke=max(1, round(k)), align="c",
                   min_size=max(6, round(S * 0.2)))

    return C.supersampled(size, size, paint, factor=3)


# ---------------------------------------------------------------------------------------
# Cards

CARD_W, CARD_H = 150, 214
DECK_BAND = {"christian": C.OI.BLUE, "muslim": C.OI.GREEN, "naval": (70, 110, 150), "surrender": C.OI.PURPLE}
SPECIAL_ICON = {"morale": "flag", "commander": "crown", "bombardment": "gun", "watchtower": "watchtower",
                "cavalry_charge": "horse", "crossbowmen": "crossbow", "surrender": "castle",
                "quiet_crossing": "ship", "naval_battle": "sword",
                # the optional cards (section 11)
                "papal_bull": "seal", "general_mobilization": "flag", "boabdil_captured": "crown",
                "sortie": "horse", "naval_bombardment": "ship"}


#: what an optional card does, under its pictogram (section 11)
OPTIONAL_CAPTION = {"papal_bull": "11.2 · 2 Crusaders", "general_mobilization": "11.3 · Total movement",
                    "boabdil_captured": "11.4 · captures Boabdil", "sortie": "11.5 · −impacts in a siege",
                    "naval_bombardment": "11.6 · fleets: 2-3 impacts"}


@functools.lru_cache(maxsize=256)
def card_sprite(card_id: str, scale: float = 1.0, dim: bool = False) -> Image.Image:
    """A card face as printed: name, shield(s) or special pictogram, trumpet, bid number
    (bottom right), naval value or evade arrow (bottom left), and its id."""
    card = _components().cards[card_id]
    w, h = round(CARD_W * scale), round(CARD_H * scale)
    band = DECK_BAND.get(card.deck, C.MUTED)

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        s = scale * k
        W, H = w * k, h * k
        C.card_frame(draw, (k, k, W - k, H - k), fill=C.PAPER, edge=C.INK, band=band, radius=10 * s)
        # title in the band
        title = "Naval Battle" if card.kind == "naval_battle" else card.name
        short = title.replace("Special Attack", "Sp. Attack").replace("Banu ", "B. ")   # the shorter wording
        C.fit_text(draw, (8 * s, 3 * k, W - 8 * s, H * 0.155), [title, short], round(15 * s), bold=True, family="condensed",
                   fill=C.contrast_ink(band), align="c", min_size=round(9 * s), keep_wording_to=round(10 * s))
        cx, cy = W / 2, H * 0.44
        if card.factions:
            facs = list(card.factions)
            if len(facs) == 1:
                C.shield(draw, (cx - 34 * s, cy - 40 * s, cx + 34 * s, cy + 40 * s), facs[0], width=max(1, round(2 * k)))
            else:
                for i, fac in enumerate(facs[:2]):
                    ox = (-1 if i == 0 else 1) * 30 * s
                    C.shield(draw, (cx + ox - 26 * s, cy - 32 * s, cx + ox + 26 * s, cy + 30 * s), fac,
                             width=max(1, round(2 * k)))
            fname = " + ".join(dict.fromkeys(C.faction_style(x).name for x in facs))
            if len(facs) == 2 and facs[0] == facs[1]:
                fname = f"Double {C.faction_style(facs[0]).name}"
            C.fit_text(draw, (7 * s, cy + 41 * s, W - 7 * s, cy + 59 * s), fname, round(13 * s), family="condensed",
                       align="c", min_size=round(8 * s))
        elif card.kind == "naval_battle":
            winner = card.draw_winner or "christian"
            ring = C.SIDES[winner]
            draw.ellipse((cx - 36 * s, cy - 36 * s, cx + 36 * s, cy + 36 * s), fill=ring.fill, outline=C.INK,
                         width=max(1, round(2 * k)))
            C.emblem(draw, ring.emblem, (cx - 20 * s, cy - 20 * s, cx + 20 * s, cy + 20 * s), ring.ink, ring.fill)
            C.fit_text(draw, (7 * s, cy + 41 * s, W - 7 * s, cy + 59 * s),
                       f"draw: {'Christians' if winner == 'christian' else 'Muslims'} win", round(12 * s),
                       family="condensed", align="c", min_size=round(8 * s))
        else:
            name = SPECIAL_ICON.get(card.kind, "flag")
            C.icon(draw, name, (cx - 34 * s, cy - 34 * s, cx + 34 * s, cy + 34 * s), C.INK, C.PAPER)
            if card.kind == "surrender":
                C.icon(draw, "flag", (cx + 6 * s, cy - 54 * s, cx + 34 * s, cy - 26 * s), C.INK)
            caption = OPTIONAL_CAPTION.get(card.kind)
            if caption:
                C.fit_text(draw, (7 * s, cy + 41 * s, W - 7 * s, cy + 59 * s), caption, round(12 * s), family="condensed",
                           align="c", min_size=round(8 * s))
        if card.trumpet:
            draw.ellipse((W - 40 * s, H * 0.17, W - 8 * s, H * 0.17 + 32 * s), fill=C.OI.YELLOW, outline=C.INK)
            C.icon(draw, "trumpet", (W - 36 * s, H * 0.17 + 6 * s, W - 12 * s, H * 0.17 + 26 * s), C.INK)
        # bottom corners
        by = H - 24 * s
        if card.bid is not None:
            draw.ellipse((W - 42 * s, by - 16 * s, W - 10 * s, by + 16 * s), fill=C.INK)
            C.fit_text(draw, (W - 41 * s, by - 15 * s, W - 11 * s, by + 15 * s), str(card.bid), round(18 * s), bold=True,
                       fill=C.PAPER, align="c", min_size=round(9 * s))
        if card.naval is not None:
            draw.rounded_rectangle((10 * s, by - 16 * s, 46 * s, by + 16 * s), radius=6 * s, fill=(70, 110, 150))
            C.fit_text(draw, (11 * s, by - 16 * s, 45 * s, by + 14 * s), str(card.naval), round(17 * s), bold=True,
                       fill=C.PAPER, align="c", min_size=round(9 * s))
        elif card.evade:
            draw.rounded_rectangle((10 * s, by - 16 * s, 46 * s, by + 16 * s), radius=6 * s, fill=(70, 110, 150))
            # an evade arrow: a curved retreat
            draw.arc((16 * s, by - 10 * s, 40 * s, by + 12 * s), 180, 360, fill=C.PAPER, width=max(1, round(3 * s)))
            draw.polygon([(12 * s, by), (22 * s, by), (17 * s, by + 8 * s)], fill=C.PAPER)
        C.fit_text(draw, (48 * s, H - 22 * s, W - 44 * s, H - 3 * s), card.id, round(11 * s), family="condensed",
                   fill=C.MUTED, align="c", min_size=round(8 * s))
        if dim:
            draw.rounded_rectangle((k, k, W - k, H - k), radius=10 * s, fill=(255, 255, 255, 140))

    return C.supersampled(w, h, paint, factor=2)


@functools.lru_cache(maxsize=16)
def card_back_sprite(side: str, scale: float = 1.0) -> Image.Image:
    w, h = round(CARD_W * scale), round(CARD_H * scale)
    style = C.SIDES[side] if side in C.SIDES else C.SIDES["christian"]
    colour = DECK_BAND.get(side, C.MUTED)

    def paint(draw: ImageDraw.ImageDraw, k: float) -> None:
        C.card_back(draw, (k, k, w * k - k, h * k - k), colour, style.emblem)

    return C.supersampled(w, h, paint, factor=2)
