"""The static base layer (the map without pieces) is drawn once and reused.

How fast a board renders is measured by ``render.bench_cases()`` through ``alcazaba bench``
(budget: 150 ms median for a Granada player board), never asserted in a test.
"""

from __future__ import annotations

from tests.render import cases


def test_granada_static_layer_is_cached() -> None:
    from render import granada

    view = cases.game("granada").view(cases.granada_state(), "christian")
    granada.board(view)  # warm: static layer, sprites
    layer = granada.static_board(1.0)
    misses = granada.static_board.cache_info().misses  # type: ignore[attr-defined]
    for _ in range(3):
        granada.board(view)
    assert granada.static_board(1.0) is layer
    assert granada.static_board.cache_info().misses == misses  # type: ignore[attr-defined]


def test_navas_static_layer_is_cached() -> None:
    from render import navas

    view = cases.game("navas").view(cases.navas_state(), "muslim")
    navas.board(view)
    layer = navas.static_board(1.0)
    navas.board(view)
    assert navas.static_board(1.0) is layer


def test_bench_cases_are_callable_pairs() -> None:
    import render

    found = render.bench_cases()
    names = [name for name, _fn, _base in found]
    assert "granada_board_player" in names and "navas_board_player" in names
    for _name, fn, baseline in found:
        assert fn()[:8] == b"\x89PNG\r\n\x1a\n"
        assert baseline()[:8] == b"\x89PNG\r\n\x1a\n"
