"""Comparing a rendered picture with its golden reference, with a tolerance.

Pictures are compared by mean absolute pixel difference (0-255 per channel) rather than
byte for byte: a FreeType or zlib update moves a few anti-aliased edge pixels without
changing what the picture says. A failure writes the new picture and a difference image
(changed pixels in red over a faded copy of the reference) to a temporary folder.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

from PIL import Image, ImageChops, ImageStat

GOLDEN_DIR = Path(__file__).with_name("golden")
TOLERANCE = 1.0   # mean absolute difference per channel, out of 255


def golden_path(name: str) -> Path:
    return GOLDEN_DIR / f"{name}.png"


def mean_difference(a: Image.Image, b: Image.Image) -> float:
    diff = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    return sum(ImageStat.Stat(diff).mean) / 3


def diff_image(reference: Image.Image, actual: Image.Image) -> Image.Image:
    ref = reference.convert("RGB")
    act = actual.convert("RGB")
    mask = ImageChops.difference(ref, act).convert("L").point(lambda v: 255 if v > 24 else 0)
    out = Image.blend(ref, Image.new("RGB", ref.size, (255, 255, 255)), 0.6)
    out.paste((230, 0, 0), (0, 0, *ref.size), mask)
    return out


def check(name: str, png: bytes) -> tuple[bool, str]:
    """(ok, message) for a picture against its golden reference."""
    path = golden_path(name)
    if not path.exists():
        return False, f"no golden reference {path}; run `python -m tests.render.regenerate {name}`"
    reference = Image.open(path)
    reference.load()
    actual = Image.open(io.BytesIO(png))
    actual.load()
    out_dir = Path(tempfile.mkdtemp(prefix=f"golden-{name}-"))
    if reference.size != actual.size:
        actual.save(out_dir / "actual.png")
        return False, (f"{name}: size {actual.size} differs from the reference {reference.size}; "
                       f"new picture in {out_dir / 'actual.png'}")
    score = mean_difference(reference, actual)
    if score > TOLERANCE:
        actual.save(out_dir / "actual.png")
        diff_image(reference, actual).save(out_dir / "diff.png")
        return False, (f"{name}: mean pixel difference {score:.2f} > {TOLERANCE}; diff image: "
                       f"{out_dir / 'diff.png'} (new picture beside it). If the change of the picture is "
                       f"intended, run `python -m tests.render.regenerate --keep-views {name}` (it redraws "
                       "from the stored views; `make golden` plays the engines again).")
    return True, f"{name}: mean pixel difference {score:.3f}"
