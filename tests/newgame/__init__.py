"""A fifth game added from the tests alone: Three Columns (its rules in ``columns``, its
pictures in ``render_columns``), registered through ``engine.register`` and
``render.register``, the one way a game joins, and played through the Discord stand-in and
the terminal table with no edit to ``bot/`` (docs/architecture.md, "How to add a game")."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import engine
import render
from tests.newgame import columns, render_columns


@contextlib.contextmanager
def registered() -> Iterator[str]:
    """Three Columns among the games, with its pictures, for the ``with`` block; its id."""
    engine.register(columns)
    render.register(columns.id, render_columns)
    try:
        yield columns.id
    finally:
        render.unregister(columns.id)
        engine.unregister(columns.id)
