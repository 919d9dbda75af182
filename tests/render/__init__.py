"""Tests of the pictures (render/).

The golden tests (test_images.py) draw every picture from views frozen in
``tests/render/views/<case>.json`` and compare it with ``tests/render/golden/<case>.png``, so
a change of the rules, which changes the course of a seeded game, does not change them. The
cases, and how their views are reached by real play, are in :mod:`tests.render.cases`.

Refresh them with::

    make golden                                    # = python -m tests.render.regenerate
    python -m tests.render.regenerate NAME...      # only these cases
    python -m tests.render.regenerate --keep-views # a picture changed, not the views: redraw only
    python -m tests.render.regenerate --docs       # the README pictures in docs/

``regenerate`` plays the engines with the built-in player to the views each case shows,
stores them as JSON, then draws the golden pictures from the stored views. Run it (and look
at the pictures) after an intended change of a picture, or when a golden test says the
engine's views no longer have the keys of the stored ones. Tests that assert properties
rather than pixels (nothing leaks under redeal, caching, replay frames) play the real
engines.
"""
