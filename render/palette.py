"""The palette of every Alcazaba picture: colours, sides, factions (part of the shared visual
language, :mod:`render.common`).

Colours come from the Okabe-Ito palette, and no fact is carried by hue alone: sides differ by
block *lightness* (white / black / grey, as on the physical pieces) and factions differ by the
*shape* of the emblem on their shield as well as by its colour.
"""

from __future__ import annotations

from dataclasses import dataclass

Box = tuple[float, float, float, float]
RGB = tuple[int, int, int]
RGBA = tuple[int, int, int, int]
Colour = RGB | RGBA


# ---------------------------------------------------------------------------------------
# Palette


class OI:
    """Okabe-Ito colours (distinguishable under the common colour-vision deficiencies)."""

    BLACK: RGB = (0, 0, 0)
    ORANGE: RGB = (230, 159, 0)
    SKY: RGB = (86, 180, 233)
    GREEN: RGB = (0, 158, 115)
    YELLOW: RGB = (240, 228, 66)
    BLUE: RGB = (0, 114, 178)
    VERMILLION: RGB = (213, 94, 0)
    PURPLE: RGB = (204, 121, 167)


INK: RGB = (28, 26, 24)
PAPER: RGB = (250, 246, 236)
PARCHMENT: RGB = (236, 226, 200)
PANEL: RGB = (244, 238, 222)
PANEL_EDGE: RGB = (150, 130, 100)
MUTED: RGB = (110, 104, 96)
HIGHLIGHT: RGB = OI.ORANGE
ALERT: RGB = OI.VERMILLION
WHITE: RGB = (255, 255, 255)


@dataclass(frozen=True, slots=True)
class SideStyle:
    """How a side's pieces look: fill/edge/ink of its blocks (white or black, as printed)."""

    name: str
    fill: RGB
    edge: RGB
    ink: RGB
    accent: RGB
    emblem: str


SIDES: dict[str, SideStyle] = {
    "christian": SideStyle("Christians", (246, 243, 234), (60, 56, 50), INK, OI.BLUE, "cross"),
    "muslim": SideStyle("Muslims", (38, 38, 42), (0, 0, 0), (245, 242, 232), OI.GREEN, "crescent"),
    "grey": SideStyle("Boabdil Mixed Army", (150, 150, 152), (70, 70, 72), INK, OI.PURPLE, "diamond"),
}


@dataclass(frozen=True, slots=True)
class FactionStyle:
    """A faction's shield: its colour AND a distinct emblem shape (never hue alone)."""

    name: str
    colour: RGB
    emblem: str


FACTIONS: dict[str, FactionStyle] = {
    # Granada: Last Stand of the Moors, Christian factions
    "castile": FactionStyle("Castile", OI.VERMILLION, "tower"),
    "aragon": FactionStyle("Aragón", OI.YELLOW, "pales"),
    "leon": FactionStyle("León", OI.PURPLE, "roundel"),
    "other_kingdoms": FactionStyle("Other Kingdoms", OI.SKY, "cross"),
    # Muslim factions
    "andalusies": FactionStyle("Andalusíes", OI.GREEN, "crescent"),
    "banu_bannigas": FactionStyle("Banu Bannigas", OI.ORANGE, "lozenge"),
    "banu_sarray": FactionStyle("Banu Sarray", OI.BLUE, "star"),
    "zegries": FactionStyle("Zegríes", (200, 200, 196), "triangle"),
    # 1212 Las Navas de Tolosa
    "navarre": FactionStyle("Navarre", OI.GREEN, "saltire"),
    "almohad": FactionStyle("Almohads", (245, 242, 232), "chequy"),
}

NEUTRAL_FACTION = FactionStyle("Any faction", (214, 206, 186), "roundel")

# Blocks that belong to no faction (any card deploys them): a pale shield and an emblem
# of their own, so they never pass for a faction block.
SPECIAL_BLOCKS: dict[str, FactionStyle] = {
    "military_order": FactionStyle("Military Order", (236, 232, 222), "sword"),
    "palace_guard": FactionStyle("Nasrid Palace Guard", (236, 232, 222), "arch"),
    "mujahideen": FactionStyle("Mujahideens", (236, 232, 222), "flame"),
    "mercenaries": FactionStyle("Mercenaries", (236, 232, 222), "coin"),
    "crusaders": FactionStyle("Crusaders", (236, 232, 222), "crosslet"),
}


def faction_style(faction: str | None) -> FactionStyle:
    if faction is None:
        return NEUTRAL_FACTION
    return FACTIONS.get(faction, FactionStyle(faction.replace("_", " ").title(), (214, 206, 186), "roundel"))


def luminance(colour: Colour) -> float:
    r, g, b = colour[:3]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ink(colour: Colour) -> RGB:
    """Black or white, whichever reads on ``colour``."""
    return INK if luminance(colour) > 140 else (250, 250, 250)


def mix(a: Colour, b: Colour, t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )

