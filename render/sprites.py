"""Sprites, cached layers, PNG encoding and GIF animation (part of the shared visual language,
:mod:`render.common`).

Speed: a board is one cached static layer (map, tracks, boxes: drawn once per game and size)
plus sprites (blocks, cards: cached per identity), pasted on a copy of the layer and encoded
with a fast zlib level.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw

from render.palette import PAPER

# zlib level 1: the board is mostly flat colour, so level 1 is within ~10% of level 9 in
# size and three times faster; ``optimize`` would re-run the compressor several times.
# (Z_RLE and Z_FILTERED strategies were measured: no faster here, and larger.)
PNG_COMPRESS_LEVEL = 1


# ---------------------------------------------------------------------------------------
# Sprites and layers


def new_rgba(w: int, h: int) -> Image.Image:
    return Image.new("RGBA", (max(1, int(w)), max(1, int(h))), (0, 0, 0, 0))


def supersampled(w: int, h: int, paint: Callable[[ImageDraw.ImageDraw, float], None], factor: int = 3) -> Image.Image:
    """An RGBA sprite painted at ``factor`` times its size and scaled down: Pillow's polygon
    fill is not anti-aliased, and small heraldry needs it to stay readable. Sprites are
    cached by their callers, so the cost is paid once per distinct piece."""
    big = new_rgba(w * factor, h * factor)
    paint(ImageDraw.Draw(big), float(factor))
    return big.resize((max(1, int(w)), max(1, int(h))), Image.Resampling.LANCZOS)


def paste(dest: Image.Image, sprite: Image.Image, xy: tuple[float, float], centre: bool = False) -> None:
    x, y = xy
    if centre:
        x -= sprite.width / 2
        y -= sprite.height / 2
    dest.alpha_composite(sprite, (round(x), round(y))) if dest.mode == "RGBA" else dest.paste(
        sprite, (round(x), round(y)), sprite)


def encode_png(img: Image.Image) -> bytes:
    """PNG bytes at a speed-tuned zlib level (no ``optimize``, which recompresses)."""
    buf = io.BytesIO()
    if img.mode not in ("RGB", "RGBA", "P", "L"):
        img = img.convert("RGB")
    img.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def blank_png(size: tuple[int, int]) -> bytes:
    """Encoding of a blank image of ``size``: the benchmark's floor for any picture."""
    return encode_png(Image.new("RGB", size, PAPER))


def cached_layer(func: Callable[..., Image.Image]) -> Callable[..., Image.Image]:
    """Cache a static layer (map without pieces...). Callers must ``copy()`` before drawing."""
    return functools.cache(func)


# ---------------------------------------------------------------------------------------
# Animation


def animate_gif(frames: Sequence[Image.Image], duration_ms: int | Sequence[int] = 1200,
                max_bytes: int = 10 * 1024 * 1024, width: int | None = None, min_width: int = 240) -> bytes:
    """An animated GIF (every chat client animates GIF; APNG support is patchy).

    One adaptive palette, taken from the first frame, is used for every frame so that the
    unchanged map compresses into tiny frame deltas; frames are scaled down until the file
    fits ``max_bytes`` (ValueError if even ``min_width`` does not fit).
    """
    if not frames:
        raise ValueError("an animation needs at least one frame")
    scale_width = width or frames[0].width
    while True:
        scaled = [f.convert("RGB") if f.width == scale_width else
                  f.convert("RGB").resize((scale_width, round(f.height * scale_width / f.width)),
                                          Image.Resampling.BILINEAR)
                  for f in frames]
        palette_source = scaled[0].quantize(colors=255, method=Image.Quantize.MEDIANCUT)
        quantized = [f.quantize(palette=palette_source, dither=Image.Dither.NONE) for f in scaled]
        buf = io.BytesIO()
        quantized[0].save(buf, format="GIF", save_all=True, append_images=quantized[1:],
                          duration=duration_ms, loop=0, optimize=False, disposal=1)
        data = buf.getvalue()
        if len(data) <= max_bytes:
            return data
        if scale_width <= min_width:
            raise ValueError(f"{len(frames)} frames do not fit {max_bytes} bytes even {scale_width} px wide")
        scale_width = max(min_width, int(scale_width * 0.8))
