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
    draw.text((16, 26), title, font=C.fit_font(title, 22, width * 0.62, True), fill=HEADER_INK, anchor="lm")
    if right:
        draw.text((width - 16, 26), right, font=C.font(15), fill=(230, 220, 200), anchor="rm")


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
        draw.text((20, y + 20), "A spectator holds no cards.", font=C.font(18), fill=C.MUTED)
    bid = sc.bids.get(sc.viewer or "") if sc.viewer else None
    draw.text((20, y), "Cards in hand (bid number bottom right, naval value or evade arrow bottom left)",
              font=C.font(14, True), fill=C.INK)
    y += 26
    for cid, slot in zip(cards, hand_slots(len(cards)), strict=True):
        _paste(img, P.card_sprite(cid), slot[0], slot[1])
    if not cards and sc.viewer is not None:
        draw.text((20, y + 20), "no cards in hand", font=C.font(16), fill=C.MUTED)
    y += rows * (ch + gap) + 10
    label = "Castle Surrender cards (beside the board, 10.5)"
    if bid and bid not in ("placed",):
        label += f" · your secret bid: {bid}"
    draw.text((20, y), label, font=C.font(14, True), fill=C.INK)
    y += 26
    for i, cid in enumerate(surrender):
        _paste(img, P.card_sprite(cid), 20 + i * (cw + gap), y)
    if not surrender:
        draw.text((20, y + 20), "none left", font=C.font(16), fill=C.MUTED)
    y += ch + 20
    if known:
        draw.text((20, y), "Opponent cards you have seen in his hand", font=C.font(14, True), fill=C.INK)
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
        draw.text((30, 100), "There is no battle in progress in this view.", font=C.font(20), fill=C.MUTED)
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
        draw.text((tx0, ty - 44), "Impact track", font=C.font(15, True), fill=C.INK)
        draw.line((tx0, ty + 10, tx1, ty + 10), fill=C.INK, width=3)
        step = (tx1 - tx0) / top_scale
        for v in range(top_scale + 1):
            x = tx0 + v * step
            tall = v % unit == 0
            draw.line((x, ty + (0 if tall else 5), x, ty + 15), fill=C.INK, width=2 if tall else 1)
            if tall or top_scale <= 30:
                draw.text((x, ty + 28), str(v), font=C.font(12, tall), fill=C.INK, anchor="mm")
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
        C.paragraph(draw, (40, ty + 64), note, C.font(13), width - 80, fill=C.MUTED, max_lines=2)
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
        draw.text((x0 + 62, y0 + 16), f"{SIDE_NAME[side]} ({role})", font=C.font(20, True), fill=C.INK)
        status = []
        if ini:
            status.append("has the initiative")
        if b.finished.get(side):
            status.append("finished deploying")
        if b.kind != "naval":
            status.append(f"loses {losses.get(side, 0)} block{'s' if losses.get(side, 0) != 1 else ''} if it ended now")
        draw.text((x0 + 62, y0 + 44), " · ".join(status), font=C.font(13), fill=C.ALERT if ini else C.MUTED)
        ex = x0 + 62
        for tile, line in optional_effects(b, side):
            if tile is not None:
                _paste(img, P.marker_sprite("pioneer", tile, 20), ex, y0 + 62)
                ex += 24
            draw.text((ex, y0 + 72), line, font=C.font(12, True), fill=C.INK, anchor="lm")
            ex += C.font(12, True).getlength(line) + 14
        if b.kind != "naval":
            total = b.impacts.get(side, 0)
            draw.text((x0 + col_w - 20, y0 + 12), str(total), font=C.font(46, True), fill=C.INK, anchor="ra")
            draw.text((x0 + col_w - 20, y0 + 64), "impacts", font=C.font(12), fill=C.MUTED, anchor="ra")
        y: float = y0 + 88
        draw.text((x0 + 16, y), "Deployed (block · card that deployed it)", font=C.font(14, True), fill=C.INK)
        y += 24
        deployed = b.deployed.get(side, [])
        slots, hidden = deploy_slots(deployed, x0 + 16, y, col_w - 32)
        for slot in slots:
            for (pc, scored), br in zip(slot.deployment.blocks, slot.blocks, strict=True):
                _paste(img, P.block_sprite(pc.face, pc.colour, DEPLOY_BLOCK), br[0], br[1])
                if scored is not None:
                    draw.text(((br[0] + br[2]) / 2, br[3] + 10), f"+{scored}", font=C.font(14, True), fill=C.INK,
                              anchor="mm")
            cid = slot.deployment.card
            if cid is not None and cid in comps.cards:
                _paste(img, P.card_sprite(cid, DEPLOY_CARD_SCALE), slot.card[0], slot.card[1])
            else:
                C.rounded(draw, slot.card, 6, C.PAPER, C.PANEL_EDGE, 1)
                f = C.font(NOTE_SIZE, True, "condensed")
                ny = (slot.card[1] + slot.card[3]) / 2 - len(slot.note) * NOTE_SIZE * 0.6
                for line in slot.note:
                    draw.text(((slot.card[0] + slot.card[2]) / 2, ny), line, font=f, fill=C.INK, anchor="mt")
                    ny += NOTE_SIZE * 1.2
        if hidden:
            draw.text((x0 + col_w - 16, y - 22), f"+{hidden} more deployment{'s' if hidden != 1 else ''}",
                      font=C.font(13, True), fill=C.ALERT, anchor="ra")
        if not deployed:
            draw.text((x0 + 16, y + 6), "nothing deployed yet", font=C.font(14), fill=C.MUTED)
        rows = max(2, len({s.card[1] for s in slots}))
        y += rows * (DEPLOY_CARD_H + DEPLOY_ROW_GAP) + 6
        undeployed = b.undeployed.get(side, [])
        label = "Fleets" if b.kind == "naval" else "Not deployed"
        draw.text((x0 + 16, y), f"{label}: {len(undeployed)}", font=C.font(14, True), fill=C.INK)
        y += 22
        us = 44
        per = int((col_w - 30) // (us + 5))
        for j, pc in enumerate(undeployed[: per * 2]):
            _paste(img, P.block_sprite(pc.face, pc.colour, us), x0 + 16 + (j % per) * (us + 5), y + (j // per) * (us + 5))
        if b.kind == "siege" and side == dfn and b.disks:
            names = ", ".join(comps.disks[d].name if d in getattr(comps, "disks", {}) else d for d in b.disks)
            draw.text((x0 + 16, height - 150), f"Disk inside the castle: {names}", font=C.font(14, True), fill=C.INK)
        played = [c for c in b.cards.get(side, []) if c not in {d.card for d in deployed}]
        if played:
            draw.text((x0 + 16, height - 132), "Other cards played", font=C.font(13, True), fill=C.INK)
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
    if b.draw_winner:
        draw.text((width / 2, 302), "a draw is won by the", font=C.font(13), fill=C.INK, anchor="mm")
        draw.text((width / 2, 322), SIDE_NAME[b.draw_winner], font=C.font(16, True), fill=C.INK, anchor="mm")
    if b.winner:
        draw.text((width / 2, 360), f"{SIDE_NAME[b.winner]} win", font=C.font(20, True), fill=C.ALERT, anchor="mm")
    col_w = (width - P.CARD_W - 100) / 2
    for i, side in enumerate((att, dfn)):
        x0 = 20 if i == 0 else width - 20 - col_w
        box = (x0, 70, x0 + col_w, img.height - 20)
        C.rounded(draw, box, 12, C.PANEL, C.PANEL_EDGE, 2)
        st = C.SIDES[side]
        draw.ellipse((x0 + 14, 84, x0 + 50, 120), fill=st.fill, outline=C.INK, width=2)
        C.emblem(draw, st.emblem, (x0 + 22, 92, x0 + 42, 112), st.ink, st.fill)
        role = "attacker" if side == att else "defender"
        draw.text((x0 + 62, 88), f"{SIDE_NAME[side]} ({role})", font=C.font(20, True), fill=C.INK)
        fleets = b.undeployed.get(side, [])
        draw.text((x0 + 16, 140), f"Fleets in the battle: {len(fleets)}", font=C.font(14, True), fill=C.INK)
        for j, pc in enumerate(fleets):
            sunk = pc.key in b.sunk
            _paste(img, P.block_sprite(pc.face, pc.colour, 64), x0 + 16 + j * 74, 166)
            if sunk:
                draw.line((x0 + 16 + j * 74, 166, x0 + 80 + j * 74, 230), fill=C.ALERT, width=5)
                draw.line((x0 + 80 + j * 74, 166, x0 + 16 + j * 74, 230), fill=C.ALERT, width=5)
        draw.text((x0 + 16, 256), "Card with a naval value or evade arrow", font=C.font(14, True), fill=C.INK)
        played = b.played.get(side)
        if played and played in comps.cards:
            _paste(img, P.card_sprite(played), x0 + 16, 282)
        elif side in b.played and b.played.get(side) is None:
            draw.text((x0 + 16, 290), "no card with a naval icon", font=C.font(14), fill=C.MUTED)
        elif side == sc.viewer and b.my_choice and b.my_choice in comps.cards:
            _paste(img, P.card_sprite(b.my_choice), x0 + 16, 282)
            draw.text((x0 + 16 + P.CARD_W + 12, 300), "your choice\n(hidden until both\nhave chosen)",
                      font=C.font(13), fill=C.MUTED)
        elif b.chosen.get(side):
            _paste(img, P.card_back_sprite(side), x0 + 16, 282)
            draw.text((x0 + 16 + P.CARD_W + 12, 300), "chosen, face down", font=C.font(13), fill=C.MUTED)
        else:
            draw.text((x0 + 16, 290), "choosing…", font=C.font(14), fill=C.MUTED)


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
    draw.text((w / 2, y0 + 26), head, font=C.font(30, True, "serif"), fill=C.INK, anchor="mm")
    parts = []
    for side in ("christian", "muslim"):
        if side in score:
            parts.append(f"{SIDE_NAME[side]} {score[side]:g}")
    line = " · ".join(parts)
    if res.get("reason"):
        line = f"{line} — {res['reason']}" if line else str(res["reason"])
    f = C.fit_font(line or "the game is not over yet", 17, w * 0.54, False)
    draw.text((w / 2, y0 + 66), line or "the game is not over yet", font=f, fill=C.INK, anchor="mm")
    hidden = sum(1 for ps in sc.stacks.values() for p in ps if p.face is None)
    hidden += sum(1 for ps in sc.recruit.values() for p in ps if p.face is None)
    if hidden:
        note = f"{hidden} block{'s' if hidden != 1 else ''} still concealed in this view"
        draw.text((w * 0.78 - 12, y0 + 84), note, font=C.font(11), fill=C.ALERT, anchor="rd")
    return img
