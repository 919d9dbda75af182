"""The shared visual language: faction emblems differ by shape (not hue alone), text
outlines, PNG encoding, animation size limit. Isolated drawing helpers, so drawn here on
blank canvases rather than from game views."""

from __future__ import annotations

import io
import itertools

import pytest
from PIL import Image, ImageChops, ImageDraw

from render import common as C


def _emblem_mask(shape: str) -> Image.Image:
    img = Image.new("L", (60, 60), 0)
    C.emblem(ImageDraw.Draw(img), shape, (5, 5, 55, 55), 255, 0)
    return img


def test_every_faction_has_its_own_emblem_shape() -> None:
    granada = ["castile", "aragon", "leon", "other_kingdoms", "andalusies", "banu_bannigas", "banu_sarray", "zegries"]
    shapes = [C.FACTIONS[f].emblem for f in granada]
    assert len(set(shapes)) == len(shapes), "two factions share an emblem shape"
    specials = [s.emblem for s in C.SPECIAL_BLOCKS.values()]
    assert not set(specials) & set(shapes), "a faction-less block looks like a faction"
    masks = {s: _emblem_mask(s) for s in C.EMBLEMS}
    for a, b in itertools.combinations(C.EMBLEMS, 2):
        diff = ImageChops.difference(masks[a], masks[b]).point(lambda v: 255 if v > 127 else 0)
        assert diff.histogram()[255] > 150, f"{a} and {b} look alike"


def test_sides_differ_by_lightness_not_hue_alone() -> None:
    white, black = C.SIDES["christian"].fill, C.SIDES["muslim"].fill
    grey = C.SIDES["grey"].fill
    assert C.luminance(white) - C.luminance(grey) > 60
    assert C.luminance(grey) - C.luminance(black) > 60


def test_outlined_text_has_a_halo() -> None:
    img = Image.new("RGB", (200, 60), (0, 0, 0))
    C.fit_text(ImageDraw.Draw(img), (10, 10, 190, 50), "Málaga", 30, bold=True, fill=(0, 0, 0), outline=(255, 255, 255))
    assert img.getbbox() is not None  # black text on black shows only through its white outline


def test_encode_png_round_trips() -> None:
    img = Image.new("RGB", (320, 200), C.PARCHMENT)
    ImageDraw.Draw(img).ellipse((10, 10, 100, 100), fill=C.OI.BLUE)
    data = C.encode_png(img)
    back = Image.open(io.BytesIO(data))
    assert back.format == "PNG" and back.size == (320, 200)
    assert ImageChops.difference(back.convert("RGB"), img).getbbox() is None


def test_animation_shrinks_to_fit_its_byte_limit() -> None:
    frames = []
    for i in range(6):
        img = Image.new("RGB", (900, 600), C.PARCHMENT)
        d = ImageDraw.Draw(img)
        for j in range(40):
            x, y = (j * 97 + i * 13) % 860, (j * 57 + i * 29) % 560
            d.rounded_rectangle((x, y, x + 40, y + 40), radius=6, fill=C.OI.BLUE if j % 2 else C.INK)
            d.text((x + 4, y + 12), "Málaga", font=C.font(11), fill=C.WHITE)
        frames.append(img)
    big = C.animate_gif(frames)
    limit = len(big) // 2
    small = C.animate_gif(frames, max_bytes=limit)
    assert len(small) <= limit
    img = Image.open(io.BytesIO(small))
    assert img.format == "GIF" and img.n_frames == 6 and img.width < 900
    with pytest.raises(ValueError):
        C.animate_gif(frames, max_bytes=1000)
