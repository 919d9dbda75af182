"""Benchmarks of a clone (``alcazaba bench``): not part of what ``pip install`` ships.

They drive the Discord stand-in of ``tests/standin`` and build throw-away databases, so they
live beside the tests, at the top of the clone, and ``pyproject.toml`` leaves them out of the
wheel. An installed wheel has no ``alcazaba bench``: run it from a clone
(``.venv/bin/alcazaba bench`` after ``make install``).
"""
