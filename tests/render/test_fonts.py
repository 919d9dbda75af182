"""Names with accents (Córdoba, Málaga, Fiñana, Almuñécar...) draw real glyphs from the
shipped fonts, never the missing-glyph box."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import ImageFont

from render import common as C

ACCENTED = "áéíóúÁÉÍÓÚñÑüç"
NOTDEF = "\ue000"   # a private-use code point: no font ships a glyph for it


def _mask(font: ImageFont.FreeTypeFont, ch: str) -> tuple[tuple[int, int], bytes]:
    m = font.getmask(ch)
    return m.size, bytes(m)


@pytest.mark.parametrize("bold,family", [(False, "sans"), (True, "sans"), (True, "condensed"), (False, "condensed"),
                                         (True, "serif")])
def test_shipped_font_has_every_accented_letter(bold: bool, family: str) -> None:
    font = C.font(24, bold, family)
    assert Path(font.path).parent == C.FONTS_DIR
    missing = _mask(font, NOTDEF)
    for ch in ACCENTED:
        size, data = _mask(font, ch)
        assert any(data), f"{ch!r} draws nothing"
        assert (size, data) != missing, f"{ch!r} draws the missing-glyph box"
    # the accent is really there: ñ is not n, é is not e
    for accented, plain in (("ñ", "n"), ("é", "e"), ("á", "a"), ("ó", "o"), ("í", "i"), ("ú", "u")):
        assert _mask(font, accented) != _mask(font, plain)


def test_every_map_name_draws_real_glyphs() -> None:
    from engine.granada import components

    comps = components.load()
    names = [L.name for L in comps.locations.values()] + [z.name for z in comps.sea_zones.values()]
    assert {"Córdoba", "Málaga", "Fiñana", "Almuñécar"} <= set(names)
    font = C.font(13, True, "condensed")
    missing = _mask(font, NOTDEF)
    for name in names:
        for ch in set(name) - {" ", "-", "'"}:
            assert _mask(font, ch) != missing, f"{ch!r} of {name} has no glyph"
