"""Draw a screenshot-like picture of a real DM prompt, for the README.

    python -m tests.bot.discord.screenshot OUT.png [game]

Runs the real bot against the stand-in, opens a game (Granada by default) between two test
users, waits for the first player's turn DM, and draws that message as Discord shows it: the
bot's name, the text, the board and hand pictures, the buttons and menus. Nothing is made
up: every word and picture comes from the message the bot sent.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from render import common as C
from tests.bot.discord.conftest import FAST, Harness
from tests.standin import Message, StandIn
from tests.standin.server import iter_components

BG = (49, 51, 56)
TEXT = (219, 222, 225)
MUTED = (148, 155, 164)
BUTTON = (88, 101, 242)
GREY_BUTTON = (78, 80, 88)
SELECT = (30, 31, 34)
WIDTH = 900
LEFT = 72


def plain(text: str) -> str:
    text = re.sub(r"<t:(\d+):[a-zA-Z]>", "in 3 days", text)
    text = re.sub(r"\(in 3 days\)", "", text)
    text = re.sub(r"<@\d+>", "@player", text)
    text = re.sub("[\U0001F000-\U0001FFFF\u2300-\u23FF\uFE0F]", "", text)  # emoji: no glyph in DejaVu
    return text.replace("**", "").replace("> ", "│ ").replace("\n ", "\n")


def draw_message(msg: Message) -> Image.Image:
    body = C.font(17)
    bold = C.font(18, bold=True)
    small = C.font(13, bold=True)
    lines: list[str] = []
    for raw in plain(msg.content).split("\n"):
        lines += C.wrap(raw, body, WIDTH - LEFT - 24) or [""]
    pictures = [Image.open(io.BytesIO(f.data)).convert("RGB") for f in msg.files]
    scaled = []
    for pic in pictures:
        w = min(WIDTH - LEFT - 24, pic.width)
        scaled.append(pic.resize((w, int(pic.height * w / pic.width)), Image.Resampling.LANCZOS))
    rows = [c for c in msg.components if c.get("type") == 1]
    height = 70 + 24 * len(lines) + sum(p.height + 10 for p in scaled) + 46 * len(rows) + 20
    img = Image.new("RGB", (WIDTH, height), BG)
    draw = ImageDraw.Draw(img)
    draw.ellipse((16, 16, 56, 56), fill=BUTTON)
    draw.text((36, 36), "A", font=bold, fill=(255, 255, 255), anchor="mm")
    draw.text((LEFT, 18), "Alcazaba", font=bold, fill=(242, 243, 245))
    name_w = draw.textlength("Alcazaba", font=bold)
    draw.rounded_rectangle((LEFT + name_w + 8, 20, LEFT + name_w + 44, 38), 4, fill=BUTTON)
    draw.text((LEFT + name_w + 26, 29), "APP", font=small, fill=(255, 255, 255), anchor="mm")
    draw.text((LEFT + name_w + 54, 22), "Today at 21:07", font=C.font(13), fill=MUTED)
    y = 48
    for line in lines:
        draw.text((LEFT, y), line, font=body, fill=TEXT)
        y += 24
    y += 6
    for pic in scaled:
        img.paste(pic, (LEFT, y))
        y += pic.height + 10
    for row in rows:
        x = LEFT
        for comp in row.get("components", []):
            if comp["type"] == 2:
                label = str(comp.get("label", ""))
                w = int(draw.textlength(label, font=C.font(15))) + 32
                colour = BUTTON if comp.get("style") == 1 else GREY_BUTTON
                draw.rounded_rectangle((x, y, x + w, y + 36), 4, fill=colour)
                draw.text((x + w / 2, y + 18), label, font=C.font(15), fill=(255, 255, 255), anchor="mm")
                x += w + 8
            elif comp["type"] == 3:
                w = WIDTH - LEFT - 24
                draw.rounded_rectangle((x, y, x + w, y + 38), 4, fill=SELECT, outline=(20, 20, 22))
                draw.text((x + 12, y + 19), str(comp.get("placeholder", "")), font=C.font(15), fill=MUTED, anchor="lm")
                draw.text((x + w - 20, y + 19), "⌄", font=C.font(18), fill=MUTED, anchor="mm")
        y += 46
    return img


async def capture(game: str) -> Message:
    si = StandIn()
    await si.start()
    with tempfile.TemporaryDirectory() as tmp:
        h = Harness(si, Path(tmp) / "data", FAST)
        await h.start()
        try:
            await h.open_game(game, side="christian", seed=11)
            msg = await si.wait_message(lambda m: si.visible_to(m, h.alice) and m.files and any(
                c.get("custom_id") for c in iter_components(m.components)), timeout=60)
            return msg
        finally:
            await h.stop()
            await si.stop()


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else Path("dm-board.png")
    game = argv[1] if len(argv) > 1 else "granada"
    msg: Any = asyncio.run(capture(game))
    image = draw_message(msg)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, optimize=True)
    print(f"wrote {out} ({image.width}x{image.height})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
