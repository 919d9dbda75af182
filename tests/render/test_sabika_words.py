"""The picture of Sabika names things as its menus do (issue 38): the rondels' squares by the
actions' names, every Material, Good and Raw Material by a symbol of its own."""

from __future__ import annotations

from collections import Counter

from engine.sabika.names import ACTION_NAME, ITEM_NAME, RAW_NAME
from render.sabika import ACTION_SHORT, ITEM_LETTER, LEGEND, RAW_LETTER


def test_the_rondel_squares_read_as_the_menus_do() -> None:
    """The picture said ``Build`` where the menu says ``Construction``: every square's words are
    the action's name (broken over two lines at most)."""
    for action, short in ACTION_SHORT.items():
        assert short.replace("-\n", "").replace("\n", " ") == ACTION_NAME[action], action


def test_the_item_symbols_are_unique_and_the_legend_names_them_as_the_menus_do() -> None:
    """Pottery drawn as ``Cl``, ``Si`` for both silk and Clothes: each symbol stands for one thing,
    and the legend gives it the name the menus use."""
    symbols = Counter([*ITEM_LETTER.values(), *RAW_LETTER.values()])
    assert all(n == 1 for n in symbols.values()), symbols
    assert set(ITEM_LETTER) == set(ITEM_NAME) and set(RAW_LETTER) == set(RAW_NAME)
    for legend in LEGEND:
        for item, sym in ITEM_LETTER.items():
            assert f"{sym} {ITEM_NAME[item]}" in legend, (sym, legend)
        for good, sym in RAW_LETTER.items():
            assert f"{sym} {RAW_NAME[good]}".lower() in legend.lower(), (sym, legend)
