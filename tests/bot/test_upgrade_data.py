"""A change to a game's data files (a block's strength, a card, a road) changes what a log
replays to, like any rules change: it must bump the game's ``RULES_VERSION`` (issue 14).

``rules_data_hashes.json`` records, per game and rules version, the SHA-256 of the game's
``data`` folder. Change a data file and this test fails until the version is bumped and the
new hash recorded; the message says exactly what to write.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import engine
from bot.service import rules_version
from bot.upgrade import files_digest

HASHES = Path(__file__).with_name("rules_data_hashes.json")
REAL_GAMES = ["navas", "granada", "granada_city", "sabika"]


def data_digest(game_id: str) -> str:
    """SHA-256 over the game's data files: each one's path (from the data folder) and bytes."""
    source = engine.get(game_id).source
    assert source is not None
    folder = source.parent / "data"
    return files_digest(sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts), folder)


def test_every_real_game_is_listed() -> None:
    assert sorted(g for g in engine.GAMES if g != "toy") == sorted(REAL_GAMES)


@pytest.mark.parametrize("game_id", REAL_GAMES)
def test_data_files_change_only_with_a_rules_version_bump(game_id: str) -> None:
    module = engine.get(game_id)
    version = rules_version(module)
    recorded: dict[str, dict[str, str]] = json.loads(HASHES.read_text(encoding="utf-8"))
    known = recorded.get(game_id, {})
    digest = data_digest(game_id)
    bump = (f"bump RULES_VERSION in engine/{game_id}/__init__.py to {version + 1}, say what changed in its "
            f"CHANGELOG, and record \"{version + 1}\": \"{digest}\" under \"{game_id}\" in {HASHES.name}")
    assert str(version) in known, (f"{HASHES.name} has no hash for {game_id} rules version {version}: record "
                                   f"\"{version}\": \"{digest}\" under \"{game_id}\"")
    assert known[str(version)] == digest, (f"engine/{game_id}/data changed but RULES_VERSION is still {version}: "
                                           f"running games would replay differently. {bump}")
    assert version in getattr(module, "CHANGELOG", {}), f"engine/{game_id}: CHANGELOG has no entry for version {version}"
