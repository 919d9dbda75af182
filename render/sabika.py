"""Pictures of *Sabika*, drawn from views only (see the view keys in ``engine/sabika/view.py``).

:func:`board` draws the three rondels (squares by action, Workers as discs lettered B/M/P in
the player's colour, the Sultan's Workers as gold discs lettered S, Yusuf's as black discs
lettered Y), the Secondary Actions between the rings (Raw Material letter or Marble), and
panels for the displays, the Cities, the Round track with the Sultan's Wishes and the Event,
and each player's tokens, Storehouses and constructions. Players are told apart by a letter
as well as by colour. Face-down things (decks, piles, bag, other players' Starting tiles)
appear only as counts, as in the view.
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from render import common as C

WIDTH, HEIGHT = 1600, 1000
HEADER = 56
CENTRE = (400.0, HEADER + 400.0)
RINGS = {"outer": (250.0, 370.0), "middle": (150.0, 250.0), "inner": (50.0, 150.0)}
PLAYER_COLOURS: dict[str, C.RGB] = {"blue": C.OI.BLUE, "yellow": C.OI.YELLOW, "pink": C.OI.PURPLE,
                                    "green": C.OI.GREEN, "yusuf": (30, 30, 30)}
ACTION_SHORT = {"minor_quarry": "Minor\nquarry", "major_quarry": "Major\nquarry", "storehouse": "Store-\nhouse",
                "market": "Market", "construction": "Build", "export": "Export", "consolidate": "Consol.",
                "produce": "Produce", "carve": "Carve", "reactivate": "React.", "artisanal": "Artisan"}
RING_FILL = {"outer": (226, 214, 186), "middle": (206, 222, 214), "inner": (222, 210, 226)}
WORKER_LETTER = {"builder1": "B", "builder2": "B", "merchant": "M", "poet": "P"}
RAW_LETTER = {"sugar": "Su", "clothes": "Si", "pottery": "Cl"}
CERAMIC: dict[str, C.RGB] = {"yellow": C.OI.YELLOW, "green": C.OI.GREEN, "blue": C.OI.SKY, "white": (245, 245, 245)}


def _angle(i: int, n: int) -> float:
    return -math.pi / 2 + (i + 0.5) * 2 * math.pi / n


def _polar(r: float, a: float) -> tuple[float, float]:
    return CENTRE[0] + r * math.cos(a), CENTRE[1] + r * math.sin(a)


def _rondel_actions(view: dict[str, Any]) -> dict[str, list[str]]:
    from engine.sabika.data import DATA  # component names only; no state is read

    return {r: [DATA["rondels"][r][sq]["a"] for sq in view["board"]["rondels"][r]] for r in RINGS}


def _secondaries(view: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    from engine.sabika.data import DATA

    out = []
    for kind in ("raw", "marble"):
        squares = view["board"]["raw_squares" if kind == "raw" else "marble_squares"]
        for key in sorted(squares, key=int):  # component order, not the dict's
            out.append((kind, key, DATA["secondary"][kind][int(key)]))
    return out


def _disc(draw: ImageDraw.ImageDraw, xy: tuple[float, float], r: float, colour: C.Colour, letter: str,
          lying: bool = False) -> None:
    x, y = xy
    draw.ellipse((x - r, y - r, x + r, y + r), fill=colour, outline=C.INK, width=2)
    if lying:
        draw.line((x - r, y + r, x + r, y - r), fill=C.contrast_ink(colour), width=2)
    C.text(draw, (x, y), letter, C.font(int(r * 1.1), True), fill=C.contrast_ink(colour), anchor="mm")


def _draw_rondels(img: Image.Image, view: dict[str, Any]) -> None:
    draw = ImageDraw.Draw(img)
    actions = _rondel_actions(view)
    positions = {r: view["board"]["rondels"][r] for r in RINGS}
    for rondel, (r0, r1) in RINGS.items():
        n = len(positions[rondel])
        for i in range(n):
            a0 = math.degrees(-math.pi / 2 + i * 2 * math.pi / n)
            a1 = math.degrees(-math.pi / 2 + (i + 1) * 2 * math.pi / n)
            box = (CENTRE[0] - r1, CENTRE[1] - r1, CENTRE[0] + r1, CENTRE[1] + r1)
            draw.pieslice(box, a0, a1, fill=RING_FILL[rondel], outline=C.PANEL_EDGE, width=2)
        inner = (CENTRE[0] - r0, CENTRE[1] - r0, CENTRE[0] + r0, CENTRE[1] + r0)
        if rondel != "inner":
            draw.ellipse(inner, fill=C.PAPER, outline=C.PANEL_EDGE, width=2)
    for rondel, (r0, r1) in RINGS.items():
        n = len(positions[rondel])
        for i, action in enumerate(actions[rondel]):
            x, y = _polar((r0 + r1) / 2 + 18, _angle(i, n))
            label = f"{positions[rondel][i]}\n{ACTION_SHORT[action]}"
            draw.multiline_text((x, y), label, font=C.font(13, True), fill=C.INK, anchor="mm", align="center")
    draw.ellipse((CENTRE[0] - 50, CENTRE[1] - 50, CENTRE[0] + 50, CENTRE[1] + 50), fill=C.PAPER, outline=C.PANEL_EDGE)
    C.text(draw, CENTRE, "Alhambra", C.font(14, True), anchor="mm")
    # Secondary Actions between the rings, at the angle of the outer of their two squares
    for kind, key, sec in _secondaries(view):
        rondel = "outer" if "outer" in sec else "middle"
        sq = sec[rondel]
        n = len(positions[rondel])
        if sq not in positions[rondel]:
            continue
        a = _angle(positions[rondel].index(sq), n) + 0.22
        r = RINGS[rondel][0]
        x, y = _polar(r, a)
        if kind == "raw":
            token = view["board"]["raw_squares"][key]
            fill: C.Colour = (250, 236, 200) if token else C.PAPER
            draw.rectangle((x - 15, y - 11, x + 15, y + 11), fill=fill, outline=C.INK, width=1)
            C.text(draw, (x, y), RAW_LETTER.get(token, "-") if token else "-", C.font(12, True), anchor="mm")
        else:
            has = view["board"]["marble_squares"][key]
            draw.rectangle((x - 15, y - 11, x + 15, y + 11), fill=(235, 235, 240) if has else C.PAPER,
                           outline=C.INK, width=1)
            C.text(draw, (x, y), "Ma" if has else "-", C.font(12, True), anchor="mm")
    # Workers: the Sultan's, then each seat's in seat order, each seat's in the order of
    # WORKER_LETTER: the order of the discs on a square never follows a dict's key order (a
    # view read back from the database has its keys sorted; it must draw the same picture)
    occupants: dict[tuple[str, int], list[tuple[C.Colour, str, bool]]] = {}
    sultan = view["board"]["sultan"]
    for rondel in RINGS:
        for sq in sultan.get(rondel, []):
            occupants.setdefault((rondel, sq), []).append(((212, 175, 55), "S", False))
    seats = {who: view["players"][who] for who in view["seats"] if who in view["players"]}
    if view.get("yusuf"):
        seats["yusuf"] = view["yusuf"]
    for who, p in seats.items():
        for w in sorted(p["workers"], key=list(WORKER_LETTER).index):
            info = p["workers"][w]
            if info["at"] is None:
                continue
            rondel = {"B": "outer", "M": "middle", "P": "inner"}[WORKER_LETTER[w]]
            letter = "Y" if who == "yusuf" else WORKER_LETTER[w]
            occupants.setdefault((rondel, info["at"]), []).append((PLAYER_COLOURS[who], letter, not info["up"]))
    for (rondel, sq), pieces in occupants.items():
        if sq not in positions[rondel]:
            continue
        n = len(positions[rondel])
        r0, r1 = RINGS[rondel]
        base = _angle(positions[rondel].index(sq), n)
        for k, (colour, letter, lying) in enumerate(pieces):
            a = base - 0.25 + 0.5 * (k + 0.5) / max(1, len(pieces)) * (1 if rondel != "inner" else 1.6)
            _disc(draw, _polar(r0 + 24, a), 13, colour, letter, lying)


def _panel_displays(draw: ImageDraw.ImageDraw, view: dict[str, Any], x: float, y: float, w: float) -> float:
    from engine.sabika.data import MAJOR_POEMS, MAJORS, MINORS, STOREHOUSES

    b = view["board"]
    y = C.panel(draw, (x, y, x + w, y + 250), "On offer")
    f = C.font(14)
    for i, c in enumerate(b["minor_display"]):
        bx = x + 12 + i * 96
        if c is None:
            draw.rectangle((bx, y, bx + 88, y + 56), outline=C.MUTED)
            continue
        card = MINORS[c]
        draw.rectangle((bx, y, bx + 88, y + 56), fill=C.PAPER, outline=C.INK)
        draw.rectangle((bx, y + 40, bx + 44, y + 56), fill=CERAMIC[card["left"]], outline=C.INK)
        draw.rectangle((bx + 44, y + 40, bx + 88, y + 56), fill=CERAMIC[card["right"]], outline=C.INK)
        C.text(draw, (bx + 4, y + 3), f"{c} {card['type']}", C.font(12, True))
        C.text(draw, (bx + 4, y + 20), card["base"], C.font(12))
    C.text(draw, (x + 400, y + 4), f"deck {b['minor_deck']}", f, fill=C.MUTED)
    y += 64
    poems = ", ".join(p for p in b["poem_display"] if p) or "none"
    C.text(draw, (x + 12, y), f"Minor Poems: {poems} (deck {b['poem_deck']})", f)
    y += 20
    majors = ", ".join(f"{p} {MAJOR_POEMS[p]['crit']}" for p in b["major_poems"] if p) or "none"
    for line in C.wrap(f"Major Poems: {majors}", f, w - 24)[:2]:
        C.text(draw, (x + 12, y), line, f)
        y += 18
    era = str(view["era"])
    built = ", ".join(f"{t} {MAJORS[t]['type']}" for t in b["majors"][era])
    for line in C.wrap(f"Major Constructions (Era {'I' * int(era)}): {built or 'none'}", f, w - 24)[:3]:
        C.text(draw, (x + 12, y), line, f)
        y += 18
    for side in ("left", "right"):
        tiles = ", ".join(f"{t}({STOREHOUSES[t]['boxes']})" for t in b["store_display"][side] if t) or "none"
        C.text(draw, (x + 12, y), f"Storehouses {side}: {tiles}  (pile {b['store_piles'][side]})", f)
        y += 18
    return y + 16


def _panel_map(draw: ImageDraw.ImageDraw, view: dict[str, Any], x: float, y: float, w: float) -> float:
    from engine.sabika.data import CITIES

    b = view["board"]
    top = y
    y = C.panel(draw, (x, y, x + w, y + 228), f"Cities (Trade card {b['trade']})")
    f = C.font(13)
    for c in [c for c in CITIES if c in b["cities"]]:  # the map's order, not the dict's
        info = b["cities"][c]
        seal = " seal" if info["seal"] else ""
        left = " ".join(p[0].upper() for p in info["left"])
        right = " ".join(p[0].upper() for p in info["right"])
        swatch: C.Colour = C.OI.SKY if info["colour"] == "blue" else C.OI.VERMILLION
        draw.rectangle((x + 12, y + 2, x + 24, y + 14), fill=swatch, outline=C.INK)
        C.text(draw, (x + 30, y), f"{CITIES[c]['name']} ({info['colour']}, wants {info['demand']}){seal}", f)
        C.text(draw, (x + w - 150, y), f"{left or '-'} | {right or '-'}", C.font(13, True))
        y += 20
    return top + 240


def _panel_players(draw: ImageDraw.ImageDraw, view: dict[str, Any], x: float, y: float, w: float) -> float:
    f = C.font(13)
    seats = list(view["seats"])
    h = 28 + 62 * len(seats)
    y = C.panel(draw, (x, y, x + w, y + h), "Players: PP / Dinars / Parias / Seals / Favour")
    for who in seats:
        p = view["yusuf"] if who == "yusuf" else view["players"][who]
        _disc(draw, (x + 24, y + 12), 11, PLAYER_COLOURS[who], who[0].upper())
        money = "-" if who == "yusuf" else p["dinars"]
        mark = " (start)" if view.get("start") == who else ""
        C.text(draw, (x + 42, y + 2), f"{who}{mark}: {p['pp']} PP, {money} D, {p['parias']} Par, {p['seals']} Seals,"
                                      f" favour {p['favour']}, ships {p['ships']}", C.font(13, True))
        if who == "yusuf":
            line = (f"majors {len(p['majors'])}, minors {len(p['minors'])}, poems {len(p['poems'])}+{len(p['grey'])}, "
                    f"storehouses {len(p['storehouses'])}, tiles left {p['pile']}")
        else:
            stores = " | ".join(f"{','.join(st['items']) or '-'} /{cap}" for st, cap in zip(p["stores"], p["capacity"],
                                                                                        strict=True))
            line = f"stores: {stores}; raw: {','.join(p['processing']) or '-'}"
        C.text(draw, (x + 42, y + 20), line[:120], f)
        if who != "yusuf":
            line2 = (f"majors {len(p['majors'])}, minors {len(p['minors'])}, balances {len(p['balances'])}, "
                     f"poems blue {len(p['blue'])} red {len(p['red'])} grey {len(p['grey'])}")
            C.text(draw, (x + 42, y + 38), line2, f)
        y += 62
    return y + 12


def _header(draw: ImageDraw.ImageDraw, view: dict[str, Any]) -> None:
    draw.rectangle((0, 0, WIDTH, HEADER), fill=(58, 44, 36))
    era = "I" * int(view["era"])
    ev = view["events"]
    event = f"  Event: {ev['active']}" if ev["active"] else (f"  Events face down: {ev['face_down']}" if ev["face_down"]
                                                              else "")
    title = (f"Sabika  Round {view['round']}/5 (Era {era})  Narrator {view['narrator']}  "
             f"Tower: {', '.join(view['board']['tower']) or '-'}{event}")
    C.text(draw, (16, HEADER / 2), title, C.fit_font(title, 24, WIDTH - 32, True), fill=(255, 250, 235), anchor="lm")


def draw_board(view: dict[str, Any]) -> Image.Image:
    img = Image.new("RGB", (WIDTH, HEIGHT), C.PARCHMENT)
    _draw_rondels(img, view)
    draw = ImageDraw.Draw(img)
    _header(draw, view)
    x, w = 820.0, WIDTH - 830.0
    y = _panel_displays(draw, view, x, HEADER + 10, w)
    y = _panel_map(draw, view, x, y, w)
    _panel_players(draw, view, x, y, w)
    prompt = view.get("prompt", "")
    for i, line in enumerate(C.wrap(prompt, C.font(16), 760)[:3]):
        C.text(draw, (20, HEIGHT - 80 + i * 22), line, C.font(16, True))
    return img


def board(view: dict[str, Any]) -> bytes:
    """PNG of the table as ``view``'s role (or a spectator) sees it."""
    return C.encode_png(draw_board(view))


def image_inputs(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Only the board: everything a Sabika player holds is on the table."""
    return {"board": {k: v for k, v in view.items() if k not in ("actions", "log")}}
