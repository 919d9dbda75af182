"""Rooms that match their purpose (issue 32): no module of the project, outside the tests and
data files, is over 800 lines. A module that grows past it is a sign that it holds more than
one concern; split it the way its subject is split (a rulebook's chapters, storage apart
from flow) rather than raising the limit."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bot", "render", "benchmarks", "migrations")
LIMIT = 800


def long_modules(root: Path, limit: int = LIMIT) -> dict[str, int]:
    """Project modules (``.py`` under ``PACKAGES``) over ``limit`` lines, with their lengths."""
    out = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > limit:
                out[str(path.relative_to(root))] = lines
    return out


def test_no_module_is_over_800_lines() -> None:
    assert long_modules(ROOT) == {}


def test_the_count_sees_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "big.py").write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    (tmp_path / "engine" / "small.py").write_text("x = 1\n" * LIMIT, encoding="utf-8")
    assert long_modules(tmp_path) == {"engine/big.py": LIMIT + 1}
