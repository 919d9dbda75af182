"""Drawn shapes of every Alcazaba picture: polygons, shields and their heraldic emblems, the
small pictograms (part of the shared visual language, :mod:`render.common`). Everything is
drawn, never taken from a font, so it scales and never depends on a font's symbol coverage.
"""

from __future__ import annotations

import math

from PIL import ImageDraw

from render.palette import INK, Box, Colour, FactionStyle, contrast_ink, faction_style

# ---------------------------------------------------------------------------------------
# Shapes


def rounded(draw: ImageDraw.ImageDraw, box: Box, radius: float, fill: Colour | None, edge: Colour | None = None,
            width: int = 1) -> None:
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=edge, width=width)


def regular_polygon(cx: float, cy: float, r: float, n: int, rotation: float = -90.0) -> list[tuple[float, float]]:
    return [
        (cx + r * math.cos(math.radians(rotation + 360 * i / n)), cy + r * math.sin(math.radians(rotation + 360 * i / n)))
        for i in range(n)
    ]


def star_points(cx: float, cy: float, r_out: float, r_in: float, n: int, rotation: float = -90.0) -> list[tuple[float, float]]:
    pts = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rotation + 180 * i / n)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def shield_points(box: Box) -> list[tuple[float, float]]:
    """A heater shield filling ``box``: straight top and sides, curved to a point."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    pts = [(x0, y0), (x1, y0), (x1, y0 + h * 0.45)]
    steps = 8
    for i in range(1, steps + 1):  # right flank curving to the point
        t = i / steps
        a = math.radians(90 * t)
        pts.append((x0 + w / 2 + (w / 2) * math.cos(a), y0 + h * 0.45 + (h * 0.55) * math.sin(a)))
    for i in range(steps - 1, -1, -1):  # left flank back up
        t = i / steps
        a = math.radians(90 * t)
        pts.append((x0 + w / 2 - (w / 2) * math.cos(a), y0 + h * 0.45 + (h * 0.55) * math.sin(a)))
    pts.append((x0, y0 + h * 0.45))
    return pts


EMBLEMS = ("tower", "pales", "roundel", "cross", "crescent", "lozenge", "star", "triangle", "saltire", "chequy",
           "sword", "arch", "flame", "coin", "crosslet")


def emblem(draw: ImageDraw.ImageDraw, shape: str, box: Box, ink: Colour, ground: Colour) -> None:
    """One heraldic charge inside ``box``; each faction has its own (shape carries identity)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = min(w, h) / 2
    if shape == "tower":
        bw = w * 0.62
        bx0, bx1 = cx - bw / 2, cx + bw / 2
        top = y0 + h * 0.30
        draw.rectangle((bx0, top, bx1, y1), fill=ink)
        m = bw / 5
        for i in (0, 2, 4):
            draw.rectangle((bx0 + i * m, y0 + h * 0.08, bx0 + (i + 1) * m, top), fill=ink)
        draw.rectangle((cx - bw * 0.14, y1 - h * 0.32, cx + bw * 0.14, y1), fill=ground)
    elif shape == "pales":
        n = 4
        step = w / (2 * n)
        for i in range(n):
            xa = x0 + step * (2 * i + 0.5)
            draw.rectangle((xa, y0, xa + step, y1), fill=ink)
    elif shape == "roundel":
        draw.ellipse((cx - r * 0.8, cy - r * 0.8, cx + r * 0.8, cy + r * 0.8), fill=ink)
    elif shape == "cross":
        t = max(1.5, r * 0.42)
        draw.rectangle((cx - t / 2, y0 + h * 0.05, cx + t / 2, y1 - h * 0.05), fill=ink)
        draw.rectangle((x0 + w * 0.05, cy - t / 2 - h * 0.08, x1 - w * 0.05, cy + t / 2 - h * 0.08), fill=ink)
    elif shape == "crescent":
        rr = r * 0.9
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ink)
        off = rr * 0.42
        r2 = rr * 0.82
        draw.ellipse((cx - r2 + off, cy - r2 - off * 0.25, cx + r2 + off, cy + r2 - off * 0.25), fill=ground)
    elif shape == "lozenge":
        draw.polygon([(cx, y0), (x1 - w * 0.12, cy), (cx, y1), (x0 + w * 0.12, cy)], fill=ink)
    elif shape == "star":
        draw.polygon(star_points(cx, cy, r * 0.98, r * 0.55, 8, rotation=-90 + 22.5), fill=ink)
    elif shape == "triangle":
        draw.polygon([(cx, y0 + h * 0.05), (x1 - w * 0.03, y1 - h * 0.08), (x0 + w * 0.03, y1 - h * 0.08)], fill=ink)
    elif shape == "saltire":
        t = max(2.0, r * 0.38)
        draw.line((x0 + w * 0.1, y0 + h * 0.1, x1 - w * 0.1, y1 - h * 0.1), fill=ink, width=round(t))
        draw.line((x1 - w * 0.1, y0 + h * 0.1, x0 + w * 0.1, y1 - h * 0.1), fill=ink, width=round(t))
        rr = r * 0.25
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ground, outline=ink, width=max(1, round(t / 3)))
    elif shape == "chequy":
        n = 3
        s = min(w, h) / n
        ox, oy = cx - s * n / 2, cy - s * n / 2
        for i in range(n):
            for j in range(n):
                if (i + j) % 2 == 0:
                    draw.rectangle((ox + i * s, oy + j * s, ox + (i + 1) * s, oy + (j + 1) * s), fill=ink)
    elif shape == "sword":
        t = max(1.5, w * 0.14)
        draw.rectangle((cx - t / 2, y0 + h * 0.02, cx + t / 2, y1 - h * 0.22), fill=ink)
        draw.polygon([(cx - t / 2, y1 - h * 0.22), (cx + t / 2, y1 - h * 0.22), (cx, y1)], fill=ink)
        draw.rectangle((x0 + w * 0.12, y0 + h * 0.24, x1 - w * 0.12, y0 + h * 0.24 + t), fill=ink)
        rr = t * 0.8
        draw.ellipse((cx - rr, y0, cx + rr, y0 + 2 * rr), fill=ink)
    elif shape == "arch":
        # a horseshoe arch (the Alhambra's): a ring open at the bottom on two jambs
        t = max(1.5, w * 0.16)
        draw.ellipse((x0 + w * 0.08, y0 + h * 0.02, x1 - w * 0.08, y0 + h * 0.70), fill=ink)
        draw.ellipse((x0 + w * 0.08 + t, y0 + h * 0.02 + t, x1 - w * 0.08 - t, y0 + h * 0.70 - t), fill=ground)
        draw.rectangle((x0 + w * 0.18, y0 + h * 0.55, x0 + w * 0.18 + t, y1), fill=ink)
        draw.rectangle((x1 - w * 0.18 - t, y0 + h * 0.55, x1 - w * 0.18, y1), fill=ink)
        draw.rectangle((x0 + w * 0.18 + t, y0 + h * 0.55, x1 - w * 0.18 - t, y1), fill=ground)
    elif shape == "flame":
        pts = [(0.5, 0.0), (0.78, 0.35), (0.88, 0.68), (0.72, 0.95), (0.5, 1.0), (0.28, 0.95), (0.12, 0.68),
               (0.25, 0.42), (0.38, 0.55)]
        draw.polygon([(x0 + px * w, y0 + py * h) for px, py in pts], fill=ink)
    elif shape == "coin":
        rr = r * 0.9
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=ink)
        q = rr * 0.38
        draw.rectangle((cx - q, cy - q, cx + q, cy + q), fill=ground)
    elif shape == "crosslet":
        t = max(1.5, r * 0.3)
        draw.rectangle((cx - t / 2, y0, cx + t / 2, y1), fill=ink)
        draw.rectangle((x0, cy - t / 2, x1, cy + t / 2), fill=ink)
        for ex, ey in ((cx, y0), (cx, y1), (x0, cy), (x1, cy)):
            if ex == cx:
                draw.rectangle((cx - t * 1.3, ey - t / 2 if ey == y0 else ey - t / 2, cx + t * 1.3, ey + t / 2), fill=ink)
            else:
                draw.rectangle((ex - t / 2, cy - t * 1.3, ex + t / 2, cy + t * 1.3), fill=ink)
    else:
        raise ValueError(f"unknown emblem {shape!r}")


def shield(draw: ImageDraw.ImageDraw, box: Box, faction: str | None, edge: Colour = INK, width: int = 1,
           style: FactionStyle | None = None) -> None:
    """A faction's shield: its colour, its emblem shape, a dark edge."""
    style = style or faction_style(faction)
    draw.polygon(shield_points(box), fill=style.colour, outline=edge, width=width)
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    inner = (x0 + w * 0.2, y0 + h * 0.16, x1 - w * 0.2, y0 + h * 0.70)
    emblem(draw, style.emblem, inner, contrast_ink(style.colour), style.colour)


# ---------------------------------------------------------------------------------------
# Icons (drawn, so they scale and never depend on a font's symbol coverage)


def icon(draw: ImageDraw.ImageDraw, name: str, box: Box, ink: Colour, ground: Colour | None = None) -> None:
    """A small pictogram: horse, crossbow, gun, bow, trumpet, anchor, star, crown, castle,
    watchtower, ship, sword, skull (eliminated), flag, axe (Pioneers), seal (Papal Bull)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    lw = max(1, round(min(w, h) / 9))
    ground = ground if ground is not None else (255, 255, 255)
    if name == "horse":
        # a horse's head and neck, facing left (the chess knight silhouette)
        pts = [(0.30, 0.95), (0.38, 0.62), (0.20, 0.58), (0.05, 0.50), (0.08, 0.38), (0.32, 0.20),
               (0.40, 0.05), (0.48, 0.15), (0.62, 0.10), (0.85, 0.30), (0.92, 0.60), (0.88, 0.95)]
        draw.polygon([(x0 + px * w, y0 + py * h) for px, py in pts], fill=ink)
        er = min(w, h) * 0.06
        draw.ellipse((x0 + 0.42 * w - er, y0 + 0.30 * h - er, x0 + 0.42 * w + er, y0 + 0.30 * h + er), fill=ground)
    elif name == "crossbow":
        # a bow across the top and a stock pointing down
        draw.arc((x0 + w * 0.05, y0 + h * 0.05, x1 - w * 0.05, y0 + h * 0.75), 200, 340, fill=ink, width=lw + 1)
        draw.line((cx, y0 + h * 0.12, cx, y1 - h * 0.02), fill=ink, width=lw + 1)
        draw.line((x0 + w * 0.13, y0 + h * 0.33, cx, y0 + h * 0.52, x1 - w * 0.13, y0 + h * 0.33), fill=ink, width=lw)
        draw.polygon([(cx, y0), (cx - w * 0.1, y0 + h * 0.16), (cx + w * 0.1, y0 + h * 0.16)], fill=ink)
    elif name == "bow":
        draw.arc((x0 - w * 0.45, y0 + h * 0.02, x1 - w * 0.15, y1 - h * 0.02), -70, 70, fill=ink, width=lw + 1)
        bx = x1 - w * 0.15 - (w * 1.1) / 2 * (1 - math.cos(math.radians(70)))
        draw.line((bx, y0 + h * 0.08, bx, y1 - h * 0.08), fill=ink, width=max(1, lw - 1))
        draw.line((x0 + w * 0.02, cy, x1 - w * 0.05, cy), fill=ink, width=lw)
        draw.polygon([(x1, cy), (x1 - w * 0.18, cy - h * 0.1), (x1 - w * 0.18, cy + h * 0.1)], fill=ink)
    elif name == "gun":
        # a cannon on its wheel
        draw.polygon([(x0 + w * 0.05, y0 + h * 0.30), (x1 - w * 0.02, y0 + h * 0.12),
                      (x1 + 0 * w, y0 + h * 0.36), (x0 + w * 0.10, y0 + h * 0.62)], fill=ink)
        r = min(w, h) * 0.24
        draw.ellipse((x0 + w * 0.32 - r, y1 - h * 0.28 - r, x0 + w * 0.32 + r, y1 - h * 0.28 + r), fill=ground,
                     outline=ink, width=lw)
        draw.line((x0 + w * 0.32 - r, y1 - h * 0.28, x0 + w * 0.32 + r, y1 - h * 0.28), fill=ink, width=1)
        draw.line((x0 + w * 0.32, y1 - h * 0.28 - r, x0 + w * 0.32, y1 - h * 0.28 + r), fill=ink, width=1)
    elif name == "trumpet":
        draw.line((x0 + w * 0.05, cy, x1 - w * 0.35, cy), fill=ink, width=lw + 1)
        draw.polygon([(x1 - w * 0.40, cy - h * 0.06), (x1, cy - h * 0.32), (x1, cy + h * 0.32),
                      (x1 - w * 0.40, cy + h * 0.06)], fill=ink)
        draw.rectangle((x0, cy - h * 0.12, x0 + w * 0.08, cy + h * 0.12), fill=ink)
        draw.line((x0 + w * 0.25, cy, x0 + w * 0.35, cy + h * 0.25, x0 + w * 0.55, cy + h * 0.25, x1 - w * 0.40, cy),
                  fill=ink, width=max(1, lw - 1))
    elif name == "anchor":
        r = min(w, h) * 0.11
        draw.ellipse((cx - r, y0, cx + r, y0 + 2 * r), outline=ink, width=lw)
        draw.line((cx, y0 + 2 * r, cx, y1 - h * 0.05), fill=ink, width=lw + 1)
        draw.line((cx - w * 0.25, y0 + h * 0.32, cx + w * 0.25, y0 + h * 0.32), fill=ink, width=lw)
        draw.arc((x0 + w * 0.08, y0 + h * 0.20, x1 - w * 0.08, y1 - h * 0.02), 20, 160, fill=ink, width=lw + 1)
    elif name == "star":
        draw.polygon(star_points(cx, cy, min(w, h) / 2, min(w, h) / 4.6, 5), fill=ink)
    elif name == "crown":
        pts = [(0.05, 0.85), (0.05, 0.30), (0.28, 0.55), (0.5, 0.15), (0.72, 0.55), (0.95, 0.30), (0.95, 0.85)]
        draw.polygon([(x0 + px * w, y0 + py * h) for px, py in pts], fill=ink)
    elif name == "castle":
        draw.rectangle((x0 + w * 0.12, y0 + h * 0.35, x1 - w * 0.12, y1), fill=ink)
        m = (w * 0.76) / 5
        for i in (0, 2, 4):
            draw.rectangle((x0 + w * 0.12 + i * m, y0 + h * 0.12, x0 + w * 0.12 + (i + 1) * m, y0 + h * 0.36), fill=ink)
        draw.rectangle((cx - w * 0.12, y1 - h * 0.34, cx + w * 0.12, y1), fill=ground)
    elif name == "watchtower":
        draw.rectangle((cx - w * 0.22, y0 + h * 0.25, cx + w * 0.22, y1), fill=ink)
        draw.ellipse((cx - w * 0.34, y0 + h * 0.05, cx + w * 0.34, y0 + h * 0.40), fill=ink)
        draw.rectangle((cx - w * 0.07, y0 + h * 0.45, cx + w * 0.07, y0 + h * 0.62), fill=ground)
    elif name == "ship":
        draw.polygon([(x0, y0 + h * 0.62), (x1, y0 + h * 0.62), (x1 - w * 0.16, y1), (x0 + w * 0.16, y1)], fill=ink)
        draw.line((cx, y0 + h * 0.02, cx, y0 + h * 0.62), fill=ink, width=lw)
        draw.polygon([(cx + lw, y0 + h * 0.06), (cx + lw, y0 + h * 0.54), (x1 - w * 0.08, y0 + h * 0.54)], fill=ink)
        draw.polygon([(cx - lw, y0 + h * 0.16), (cx - lw, y0 + h * 0.54), (x0 + w * 0.14, y0 + h * 0.54)], fill=ink)
    elif name == "sword":
        draw.line((x0 + w * 0.15, y1 - h * 0.15, x1 - w * 0.1, y0 + h * 0.1), fill=ink, width=lw + 1)
        draw.line((x0 + w * 0.12, y1 - h * 0.45, x0 + w * 0.45, y1 - h * 0.12), fill=ink, width=lw + 1)
    elif name == "skull":
        draw.ellipse((x0 + w * 0.12, y0 + h * 0.05, x1 - w * 0.12, y0 + h * 0.75), fill=ink)
        draw.rectangle((x0 + w * 0.3, y0 + h * 0.55, x1 - w * 0.3, y1 - h * 0.05), fill=ink)
        er = min(w, h) * 0.12
        for ex in (0.37, 0.63):
            draw.ellipse((x0 + w * ex - er, y0 + h * 0.38 - er, x0 + w * ex + er, y0 + h * 0.38 + er), fill=ground)
    elif name == "flag":
        draw.line((x0 + w * 0.15, y0, x0 + w * 0.15, y1), fill=ink, width=lw)
        draw.polygon([(x0 + w * 0.15, y0), (x1, y0 + h * 0.2), (x0 + w * 0.15, y0 + h * 0.45)], fill=ink)
    elif name == "axe":
        # a woodcutter's axe (the Pioneers, 11.7): a haft and a blade
        draw.line((x0 + w * 0.2, y1 - h * 0.05, x1 - w * 0.3, y0 + h * 0.15), fill=ink, width=lw + 1)
        draw.polygon([(x1 - w * 0.42, y0 + h * 0.02), (x1 - w * 0.02, y0 + h * 0.12), (x1 - w * 0.08, y0 + h * 0.52),
                      (x1 - w * 0.32, y0 + h * 0.32)], fill=ink)
    elif name == "seal":
        # a papal seal: a disc on a cord, a cross on it
        draw.line((cx - w * 0.25, y0, cx, y0 + h * 0.3, cx + w * 0.25, y0), fill=ink, width=lw)
        r = min(w, h) * 0.36
        draw.ellipse((cx - r, y1 - 2 * r, cx + r, y1), fill=ink)
        t = max(1.0, r * 0.25)
        draw.rectangle((cx - t / 2, y1 - 2 * r + r * 0.35, cx + t / 2, y1 - r * 0.35), fill=ground)
        draw.rectangle((cx - r * 0.55, y1 - r - t / 2 - r * 0.15, cx + r * 0.55, y1 - r + t / 2 - r * 0.15), fill=ground)
    elif name == "siege":
        # a battering ram against a wall: crossed swords over a crenel
        draw.line((x0, y1, x1, y0), fill=ink, width=lw + 1)
        draw.line((x0, y0, x1, y1), fill=ink, width=lw + 1)
    else:
        raise ValueError(f"unknown icon {name!r}")


def banner(draw: ImageDraw.ImageDraw, box: Box, dots: int, ink: Colour, cloth: Colour) -> None:
    """A leader's banner: a pennant on a pole carrying 1 or 2 dots (its impact value)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    lw = max(1, round(w / 10))
    draw.line((x0 + lw, y0, x0 + lw, y1), fill=ink, width=lw)
    draw.polygon([(x0 + lw, y0), (x1, y0), (x1 - w * 0.18, y0 + h * 0.32), (x1, y0 + h * 0.64),
                  (x0 + lw, y0 + h * 0.64)], fill=cloth, outline=ink)
    r = max(1.5, min(w, h) * 0.11)
    for i in range(dots):
        dx = x0 + lw + (w * 0.75 - lw) * (i + 1) / (dots + 1)
        dy = y0 + h * 0.32
        draw.ellipse((dx - r, dy - r, dx + r, dy + r), fill=ink)


def pips(draw: ImageDraw.ImageDraw, box: Box, n: int, colour: Colour, edge: Colour) -> None:
    """``n`` small shields in a row, centred in ``box`` (a block's strength, as printed)."""
    if n <= 0:
        return
    x0, y0, x1, y1 = box
    h = y1 - y0
    pw = min(h * 0.8, (x1 - x0) / n)
    total = pw * n
    sx = (x0 + x1) / 2 - total / 2
    for i in range(n):
        bx = sx + i * pw
        draw.polygon(shield_points((bx + pw * 0.1, y0, bx + pw * 0.9, y1)), fill=colour, outline=edge)


