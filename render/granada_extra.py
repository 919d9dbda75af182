"""Granada's side pictures: the hand of cards, the battle board and the final reveal."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from render import common as C
from render import granada_map as M
from render import granada_pieces as P
from render.granada_board import SIDE_NAME, draw_board
from render.granada_scene import Battle, Deployment, Scene

Rect = tuple[float, float, float, float]
HEADER_BG: C.RGB = (58, 44, 36)
HEADER_INK: C.RGB = (255, 250, 235)


def _paste(img: Image.Image, sprite: Image.Image, x: float, y: float) -> None:
    img.paste(sprite, (round(x), round(y)), sprite)


def _title(draw: ImageDraw.ImageDraw, width: int, title: str, right: str = "") -> None:
    draw.rectangle((0, 0, width, 52), fill=HEADER_BG)
    C.fit_text(draw, (16, 2, width * 0.62 + 16, 50), title, 22, bold=True, fill=HEADER_INK)
    if right:
        C.fit_text(draw, (width * 0.62 + 28, 2, width - 16, 50), right, 15, fill=(230, 220, 200), align="r")


# ---------------------------------------------------------------------------------------
# Hand


HAND_PER_ROW = 6
HAND_GAP = 14
HAND_TOP = 92


def hand_slots(n: int) -> list[Rect]:
    """Where the hand picture draws the viewer's ``n`` cards, in hand order."""
    cw, ch = P.CARD_W, P.CARD_H
    out: list[Rect] = []
    for i in range(n):
        x = 20 + (i % HAND_PER_ROW) * (cw + HAND_GAP)
        y = HAND_TOP + (i // HAND_PER_ROW) * (ch + HAND_GAP)
        out.append((x, y, x + cw, y + ch))
    return out


def draw_hand(sc: Scene, known_opponent: list[str] | None = None) -> Image.Image:
    """The viewer's cards as printed, then his Castle Surrender cards (10.5)."""
    per_row = HAND_PER_ROW
    cw, ch, gap = P.CARD_W, P.CARD_H, HAND_GAP
    cards = list(sc.hand)
    surrender = list(sc.surrender.get(sc.viewer or "", []))
    known = list(known_opponent or [])
    rows = max(1, -(-len(cards) // per_row))
    width = 40 + per_row * (cw + gap)
    height = 52 + 40 + rows * (ch + gap) + 50 + ch + 30
    if known:
        height += 40 + ch
    img = Image.new("RGB", (width, height), C.PARCHMENT)
    draw = ImageDraw.Draw(img)
    who = SIDE_NAME.get(sc.viewer, "Spectator")
    _title(draw, width, f"Granada · {who}' hand: {len(cards)} card{'s' if len(cards) != 1 else ''}",
           f"{sc.decks.get(sc.viewer or '', '?')} in draw pile" if sc.viewer else "")
    y = 66
    if sc.viewer is None:
        C.fit_text(draw, (20, y + 18, width - 20, y + 42), "A spectator holds no cards.", 18, fill=C.MUTED, valign="t")
    bid = sc.bids.get(sc.viewer or "") if sc.viewer else None
    C.fit_text(draw, (20, y - 2, width - 20, y + 20),
               ["Cards in hand (bid number bottom right, naval value or evade arrow bottom left)",
                "Cards in hand (bid bottom right, naval value or evade bottom left)"], 14, bold=True, valign="t")
    y += 26
    for cid, slot in zip(cards, hand_slots(len(cards)), strict=True):
        _paste(img, P.card_sprite(cid), slot[0], slot[1])
    if not cards and sc.viewer is not None:
        C.fit_text(draw, (20, y + 18, width - 20, y + 40), "no cards in hand", 16, fill=C.MUTED, valign="t")
    y += rows * (ch + gap) + 10
    label = "Castle Surrender cards (beside the board, 10.5)"
    if bid and bid not in ("placed",):
        label += f" · your secret bid: {bid}"
    C.fit_text(draw, (20, y - 2, width - 20, y + 20), label, 14, bold=True, valign="t")
    y += 26
    for i, cid in enumerate(surrender):
        _paste(img, P.card_sprite(cid), 20 + i * (cw + gap), y)
    if not surrender:
        C.fit_text(draw, (20, y + 18, width - 20, y + 40), "none left", 16, fill=C.MUTED, valign="t")
    y += ch + 20
    if known:
        C.fit_text(draw, (20, y - 2, width - 20, y + 20), "Opponent cards you have seen in his hand", 14, bold=True,
                   valign="t")
        y += 26
        for i, cid in enumerate(known[:per_row]):
            _paste(img, P.card_sprite(cid), 20 + i * (cw + gap), y)
    return img


# ---------------------------------------------------------------------------------------
# Battle board


def _losses(b: Battle) -> dict[str, int]:
    """Blocks each side loses if the battle ended now (8.5.1, 8.7.5)."""
    if b.kind == "siege":
        t = b.threshold or 9
        att = b.attacker or "christian"
        dfn = b.defender or "muslim"
        return {dfn: max(0, b.impacts.get(att, 0) - b.impacts.get(dfn, 0)) // t, att: 0}
    out = {}
    for side, other in (("christian", "muslim"), ("muslim", "christian")):
        out[side] = b.impacts.get(other, 0) // 7
    return out


DEPLOY_BLOCK = 58            # a deployed block on the battle board
DEPLOY_CARD_SCALE = 0.4      # the card that deployed it
DEPLOY_CARD_W, DEPLOY_CARD_H = round(P.CARD_W * DEPLOY_CARD_SCALE), round(P.CARD_H * DEPLOY_CARD_SCALE)
DEPLOY_ROW_GAP = 12
DEPLOY_ROWS = 3
NOTE_SIZE = 12               # what deployed blocks without a card ("leader, no card"), in the card's place


@dataclass(frozen=True)
class DeploySlot:
    """Where one deployment is drawn: its blocks side by side, then the card that deployed
    them, once, however many blocks it brought (or, without a card, a card-sized note
    saying what deployed them, wrapped to fit it)."""

    deployment: Deployment
    blocks: list[Rect]
    card: Rect
    note: list[str]


def deploy_slots(deployments: list[Deployment], x: float, y: float, width: float) -> tuple[list[DeploySlot], int]:
    """The slots of a side's deployments, in order, flowing left to right in rows of
    ``width`` (at most ``DEPLOY_ROWS`` rows); and how many deployments did not fit."""
    f = C.font(NOTE_SIZE, True, "condensed")
    slots: list[DeploySlot] = []
    cx, row = x, 0
    for n, dep in enumerate(deployments):
        w = len(dep.blocks) * (DEPLOY_BLOCK + 4) + DEPLOY_CARD_W
        if cx > x and cx + w > x + width:
            cx, row = x, row + 1
        if row >= DEPLOY_ROWS:
            return slots, len(deployments) - n
        cy = y + row * (DEPLOY_CARD_H + DEPLOY_ROW_GAP)
        blocks: list[Rect] = []
        bx = cx
        for _ in dep.blocks:
            blocks.append((bx, cy + 8, bx + DEPLOY_BLOCK, cy + 8 + DEPLOY_BLOCK))
            bx += DEPLOY_BLOCK + 4
        card = (bx, cy, bx + DEPLOY_CARD_W, cy + DEPLOY_CARD_H)
        note = [] if dep.card is not None else C.wrap(dep.how or "no card", f, DEPLOY_CARD_W - 8)
        slots.append(DeploySlot(dep, blocks, card, note))
        cx = card[2] + 18
    return slots, 0


def optional_effects(b: Battle, side: str) -> list[tuple[str | None, str]]:
    """What the optional rules add to ``side`` in a battle, as (marker tile, line): the
    Pioneers tile of the besieger (11.7), Naval Bombardment (11.6: added, or taken off the
    besieger by the besieged), Sortie cards of the besieged (11.5)."""
    att = b.attacker or "christian"
    out: list[tuple[str | None, str]] = []
    if b.pioneer and side == att:
        out.append((b.pioneer, f"Pioneers {b.pioneer}: +1 impact (11.7)"))
    n = b.bombardment.get(side)
    if n:
        besieged = b.kind == "siege" and side != att
        out.append((None, f"Naval Bombardment: {'−' if besieged else '+'}{n} impacts"
                          f"{' to the besieger' if besieged else ''} (11.6)"))
    if b.sortie and side != att:
        out.append((None, f"Sortie: −{b.sortie} impacts to the besieger (11.5)"))
    return out


def draw_battle(sc: Scene) -> Image.Image:
    b = sc.battle
    width, height = 1400, (560 if b is not None and b.kind == "naval" else 780)
    img = Image.new("RGB", (width, height), C.PARCHMENT)
    draw = ImageDraw.Draw(img)
    comps = P._components()
    if b is None:
        _title(draw, width, "Granada · no battle under way")
        C.fit_text(draw, (30, 96, width - 30, 124), "There is no battle in progress in this view.", 20, fill=C.MUTED,
                   valign="t")
        return img
    if b.kind == "naval":
        zone = comps.sea_zones.get(b.loc)
        where = zone.name if zone is not None else b.loc
        title = f"Naval battle · {where}"
    else:
        L = comps.locations.get(b.loc)
        where = L.name if L is not None else b.loc
        title = f"{'Castle siege' if b.kind == 'siege' else 'Field combat'} at {where}"
    _title(draw, width, f"Granada · {title}", f"{SIDE_NAME.get(sc.viewer, 'Spectator')} view")
    if b.kind == "naval":
        _naval(img, draw, b, sc)
        return img
    att = b.attacker or "christian"
    dfn = b.defender or ("muslim" if att == "christian" else "christian")
    # impact track across the top: both markers on one scale
    if b.kind != "naval":
        unit = (b.threshold or 9) if b.kind == "siege" else 7   # impacts per loss
        top_scale = max(3 * unit, max(b.impacts.values(), default=0) + 3)
        tx0, tx1, ty = 40, width - 40, 110
        C.fit_text(draw, (tx0, ty - 46, tx1, ty - 26), "Impact track", 15, bold=True, valign="t")
        draw.line((tx0, ty + 10, tx1, ty + 10), fill=C.INK, width=3)
        step = (tx1 - tx0) / top_scale
        for v in range(top_scale + 1):
            x = tx0 + v * step
            tall = v % unit == 0
            draw.line((x, ty + (0 if tall else 5), x, ty + 15), fill=C.INK, width=2 if tall else 1)
            if tall or top_scale <= 30:
                C.fit_text(draw, (x - max(step, 14) / 2, ty + 18, x + max(step, 14) / 2, ty + 38), str(v), 12, bold=tall,
                           align="c", min_size=9)
        for i, side in enumerate((att, dfn)):
            v = b.impacts.get(side, 0)
            st = C.SIDES[side]
            x = tx0 + v * step
            my = ty - 14 if i == 0 else ty + 44
            r = 13
            draw.ellipse((x - r, my - r, x + r, my + r), fill=st.fill, outline=C.INK, width=2)
            C.emblem(draw, st.emblem, (x - 8, my - 8, x + 8, my + 8), st.ink, st.fill)
        if b.kind == "siege":
            t = b.threshold or 9
            note = (f"Siege table: the defender loses one block or disk per {t} impacts "
                    "(7 with attacking artillery, 9 without; +1 for a port unless blockaded, 8.7.5). "
                    "Defender artillery subtracts its impacts.")
        else:
            note = "Field combat: a side loses one block per 7 impacts delivered against it; the defender wins ties."
        C.paragraph(draw, (40, ty + 60, width - 40, ty + 60 + 2 * 13 * 1.2 + 4), note, 13, fill=C.MUTED)
    losses = _losses(b) if b.kind != "naval" else {}
    col_w = (width - 60) / 2
    for i, side in enumerate((att, dfn)):
        x0 = 20 + i * (col_w + 20)
        y0: float = 200 if b.kind != "naval" else 80
        box = (x0, y0, x0 + col_w, height - 20)
        ini = b.initiative == side and not b.finished.get(side)
        C.rounded(draw, box, 12, C.PANEL, C.OI.ORANGE if ini else C.PANEL_EDGE, 5 if ini else 2)
        role = "attacker" if side == att else "defender"
        st = C.SIDES[side]
        draw.ellipse((x0 + 14, y0 + 14, x0 + 50, y0 + 50), fill=st.fill, outline=C.INK, width=2)
        C.emblem(draw, st.emblem, (x0 + 22, y0 + 22, x0 + 42, y0 + 42), st.ink, st.fill)
        C.fit_text(draw, (x0 + 62, y0 + 12, x0 + col_w - 90, y0 + 40), f"{SIDE_NAME[side]} ({role})", 20, bold=True,
                   valign="t")
        status = []
        if ini:
            status.append("has the initiative")
        if b.finished.get(side):
            status.append("finished deploying")
        if b.kind != "naval":
            status.append(f"loses {losses.get(side, 0)} block{'s' if losses.get(side, 0) != 1 else ''} if it ended now")
        C.fit_text(draw, (x0 + 62, y0 + 42, x0 + col_w - 90, y0 + 60), " · ".join(status), 13,
                   fill=C.ALERT if ini else C.MUTED, valign="t")
        ex = x0 + 62
        for tile, line in optional_effects(b, side):
            if tile is not None:
                _paste(img, P.marker_sprite("pioneer", tile, 20), ex, y0 + 62)
                ex += 24
            drawn = C.fit_text(draw, (ex, y0 + 62, x0 + col_w - 16, y0 + 82), line, 12, bold=True)
            ex = drawn.right + 14
        if b.kind != "naval":
            total = b.impacts.get(side, 0)
            C.fit_text(draw, (x0 + col_w - 88, y0 + 8, x0 + col_w - 16, y0 + 62), str(total), 46, bold=True, align="r",
                       valign="t")
            C.fit_text(draw, (x0 + col_w - 88, y0 + 62, x0 + col_w - 16, y0 + 80), "impacts", 12, fill=C.MUTED,
                       align="r", valign="t")
        y: float = y0 + 88
        C.fit_text(draw, (x0 + 16, y - 2, x0 + col_w - 200, y + 20),
                   ["Deployed (block · card that deployed it)", "Deployed"], 14, bold=True, valign="t")
        y += 24
        deployed = b.deployed.get(side, [])
        slots, hidden = deploy_slots(deployed, x0 + 16, y, col_w - 32)
        for slot in slots:
            for (pc, scored), br in zip(slot.deployment.blocks, slot.blocks, strict=True):
                _paste(img, P.block_sprite(pc.face, pc.colour, DEPLOY_BLOCK), br[0], br[1])
                if scored is not None:
                    C.fit_text(draw, (br[0] - 2, br[3] + 1, br[2] + 2, br[3] + 19), f"+{scored}", 14, bold=True,
                               align="c")
            cid = slot.deployment.card
            if cid is not None and cid in comps.cards:
                _paste(img, P.card_sprite(cid, DEPLOY_CARD_SCALE), slot.card[0], slot.card[1])
            else:
                C.rounded(draw, slot.card, 6, C.PAPER, C.PANEL_EDGE, 1)
                c0, c1, c2, c3 = slot.card
                C.fit_text(draw, (c0 + 3, c1 + 3, c2 - 3, c3 - 3), "\n".join(slot.note), NOTE_SIZE, bold=True,
                           family="condensed", align="c", min_size=9)
        if hidden:
            C.fit_text(draw, (x0 + col_w - 196, y - 24, x0 + col_w - 16, y - 4),
                       [f"+{hidden} more deployment{'s' if hidden != 1 else ''}", f"+{hidden} more"], 13, bold=True,
                       fill=C.ALERT, align="r", valign="t")
        if not deployed:
            C.fit_text(draw, (x0 + 16, y + 4, x0 + col_w - 16, y + 26), "nothing deployed yet", 14, fill=C.MUTED,
                       valign="t")
        rows = max(2, len({s.card[1] for s in slots}))
        y += rows * (DEPLOY_CARD_H + DEPLOY_ROW_GAP) + 6
        undeployed = b.undeployed.get(side, [])
        label = "Fleets" if b.kind == "naval" else "Not deployed"
        C.fit_text(draw, (x0 + 16, y - 2, x0 + col_w - 16, y + 20), f"{label}: {len(undeployed)}", 14, bold=True,
                   valign="t")
        y += 22
        us = 44
        per = int((col_w - 30) // (us + 5))
        for j, pc in enumerate(undeployed[: per * 2]):
            _paste(img, P.block_sprite(pc.face, pc.colour, us), x0 + 16 + (j % per) * (us + 5), y + (j // per) * (us + 5))
        if b.kind == "siege" and side == dfn and b.disks:
            names = ", ".join(comps.disks[d].name if d in getattr(comps, "disks", {}) else d for d in b.disks)
            C.fit_text(draw, (x0 + 16, height - 152, x0 + col_w - 16, height - 132), f"Disk inside the castle: {names}",
                       14, bold=True, valign="t")
        played = [c for c in b.cards.get(side, []) if c not in {d.card for d in deployed}]
        if played:
            C.fit_text(draw, (x0 + 16, height - 134, x0 + col_w - 16, height - 114), "Other cards played", 13, bold=True,
                       valign="t")
            for j, cid in enumerate(played[:8]):
                if cid in comps.cards:
                    _paste(img, P.card_sprite(cid, 0.4), x0 + 16 + j * 66, height - 112)
    return img


def _naval(img: Image.Image, draw: ImageDraw.ImageDraw, b: Battle, sc: Scene) -> None:
    """A naval battle (9.1): the Naval Battle card drawn, each side's fleets and card (hidden
    until both have chosen; the viewer sees his own choice), the winner and sunk fleets."""
    comps = P._components()
    width = img.width
    att = b.attacker or "christian"
    dfn = b.defender or "muslim"
    if b.naval_card and b.naval_card in comps.cards:
        _paste(img, P.card_sprite(b.naval_card), width / 2 - P.CARD_W / 2, 70)
    col_w = (width - P.CARD_W - 100) / 2
    mx0, mx1 = 20 + col_w + 8, width - 20 - col_w - 8    # the middle column, between the sides' panels
    if b.draw_winner:
        C.fit_text(draw, (mx0, 292, mx1, 312), "a draw is won by the", 13, align="c")
        C.fit_text(draw, (mx0, 311, mx1, 333), SIDE_NAME[b.draw_winner], 16, bold=True, align="c")
    if b.winner:
        C.fit_text(draw, (mx0, 346, mx1, 374), f"{SIDE_NAME[b.winner]} win", 20, bold=True, fill=C.ALERT, align="c")
    for i, side in enumerate((att, dfn)):
        x0 = 20 if i == 0 else width - 20 - col_w
        box = (x0, 70, x0 + col_w, img.height - 20)
        C.rounded(draw, box, 12, C.PANEL, C.PANEL_EDGE, 2)
        st = C.SIDES[side]
        draw.ellipse((x0 + 14, 84, x0 + 50, 120), fill=st.fill, outline=C.INK, width=2)
        C.emblem(draw, st.emblem, (x0 + 22, 92, x0 + 42, 112), st.ink, st.fill)
        role = "attacker" if side == att else "defender"
        C.fit_text(draw, (x0 + 62, 84, x0 + col_w - 12, 112), f"{SIDE_NAME[side]} ({role})", 20, bold=True, valign="t")
        fleets = b.undeployed.get(side, [])
        C.fit_text(draw, (x0 + 16, 138, x0 + col_w - 12, 160), f"Fleets in the battle: {len(fleets)}", 14, bold=True,
                   valign="t")
        for j, pc in enumerate(fleets):
            sunk = pc.key in b.sunk
            _paste(img, P.block_sprite(pc.face, pc.colour, 64), x0 + 16 + j * 74, 166)
            if sunk:
                draw.line((x0 + 16 + j * 74, 166, x0 + 80 + j * 74, 230), fill=C.ALERT, width=5)
                draw.line((x0 + 80 + j * 74, 166, x0 + 16 + j * 74, 230), fill=C.ALERT, width=5)
        C.fit_text(draw, (x0 + 16, 254, x0 + col_w - 12, 276), ["Card with a naval value or evade arrow",
                                                                "Card: naval value or evade"], 14, bold=True, valign="t")
        played = b.played.get(side)
        if played and played in comps.cards:
            _paste(img, P.card_sprite(played), x0 + 16, 282)
        elif side in b.played and b.played.get(side) is None:
            C.fit_text(draw, (x0 + 16, 288, x0 + col_w - 12, 310), "no card with a naval icon", 14, fill=C.MUTED,
                       valign="t")
        elif side == sc.viewer and b.my_choice and b.my_choice in comps.cards:
            _paste(img, P.card_sprite(b.my_choice), x0 + 16, 282)
            C.fit_text(draw, (x0 + 16 + P.CARD_W + 12, 298, x0 + col_w - 8, 360),
                       ["your choice\n(hidden until both\nhave chosen)", "your choice\n(hidden)"], 13, fill=C.MUTED,
                       valign="t")
        elif b.chosen.get(side):
            _paste(img, P.card_back_sprite(side), x0 + 16, 282)
            C.fit_text(draw, (x0 + 16 + P.CARD_W + 12, 298, x0 + col_w - 8, 340), "chosen, face down", 13, fill=C.MUTED,
                       valign="t", wrap_lines=True)
        else:
            C.fit_text(draw, (x0 + 16, 288, x0 + col_w - 12, 310), "choosing…", 14, fill=C.MUTED, valign="t")


# ---------------------------------------------------------------------------------------
# Final reveal


def merge_views(sc: Scene, others: list[Scene]) -> Scene:
    """Each side's blocks as its own view shows them (faces included): the union of the
    two players' final views shows every block even if a single view does not."""
    for other in others:
        side = other.viewer
        if side is None:
            continue
        colours = {"christian": ("white", "grey"), "muslim": ("black",)}[side]
        for loc in set(sc.stacks) | set(other.stacks):
            mine = [p for p in sc.stacks.get(loc, []) if p.colour not in colours]
            theirs = [p for p in other.stacks.get(loc, []) if p.colour in colours]
            if mine or theirs:
                sc.stacks[loc] = mine + theirs
        for zone in set(sc.seas) | set(other.seas):
            sc.seas[zone] = [p for p in sc.seas.get(zone, []) if p.colour not in colours] + [
                p for p in other.seas.get(zone, []) if p.colour in colours]
        if side in other.recruit:
            sc.recruit[side] = other.recruit[side]
    return sc


def draw_reveal(sc: Scene) -> Image.Image:
    """The board with every block it knows face up, and the final score on a banner."""
    img = draw_board(sc)
    draw = ImageDraw.Draw(img)
    res = sc.result or {}
    winner = res.get("winner")
    score = res.get("score") or {}
    w = img.width
    y0 = M.HEADER + 770   # over the open sea between Spain and Africa
    C.rounded(draw, (w * 0.22, y0, w * 0.78, y0 + 92), 14, (255, 250, 235), C.INK, 3)
    head = "Final reveal" if not res else f"{SIDE_NAME.get(winner, 'Nobody')} win" if winner else "Draw"
    C.fit_text(draw, (w * 0.22 + 12, y0 + 6, w * 0.78 - 12, y0 + 46), head, 30, bold=True, family="serif", align="c")
    parts = []
    for side in ("christian", "muslim"):
        if side in score:
            parts.append(f"{SIDE_NAME[side]} {score[side]:g}")
    line = " · ".join(parts)
    if res.get("reason"):
        line = f"{line} — {res['reason']}" if line else str(res["reason"])
    C.fit_text(draw, (w * 0.22 + 12, y0 + 52, w * 0.78 - 12, y0 + 76), line or "the game is not over yet", 17,
               align="c")
    hidden = sum(1 for ps in sc.stacks.values() for p in ps if p.face is None)
    hidden += sum(1 for ps in sc.recruit.values() for p in ps if p.face is None)
    if hidden:
        note = f"{hidden} block{'s' if hidden != 1 else ''} still concealed in this view"
        C.fit_text(draw, (w * 0.45, y0 + 74, w * 0.78 - 12, y0 + 90), note, 11, fill=C.ALERT, align="r", valign="b",
                   min_size=9)
    return img
