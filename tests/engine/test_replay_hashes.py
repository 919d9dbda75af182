"""Replay exactness across engine changes (issue 15): stored games must keep replaying.

``data/replay_hashes.json`` was recorded with the engines as they stood BEFORE the speed
work of issue 15 (main at e937db3). Each entry plays a game from its seed with actions
picked by a fixed generator among ``legal_actions`` (Granada) or ``actions`` (the others),
and records the SHA-256 of ``json.dumps(state, sort_keys=True)`` at a few step counts and
at the end. A change of the state's representation or of any rule's order of draws shows
here as a mismatch; such a change needs a rules-version bump for running campaigns.

Re-recorded for issue 38 with its rules-version bumps (Granada 3, 1212 3): Granada's states
without their logs were checked equal to the old engines' at every checkpoint of its four cases
(only log lines were reworded); 1212's games take other paths, as alike units became one menu
entry and the fixed picks index shorter menus; 1212's again when alike archers and alike units
to rally became one entry too (same release, rules version 3). Granada's again when orders on
identical pieces became one entry (engine/granada/alike.py, same release): replayed with every
copy listed (``legal_actions`` replaced by the full list), the new engine gave the recorded
hashes of all four cases byte for byte; the re-recorded games take other paths only because
the fixed picks index shorter menus (1212's cases are unchanged).

Regenerate only on purpose: ``python -m tests.engine.test_replay_hashes > tests/engine/data/replay_hashes.json``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.rng import Generator

DATA = Path(__file__).parent / "data" / "replay_hashes.json"
CHECKPOINTS = (1, 50, 200, 600, 1500)
CASES: list[tuple[str, int, dict[str, Any]]] = [
    ("granada", 1, {}),
    ("granada", 2, {}),
    ("granada", 3, {"all": True}),
    ("granada", 4, {"all": True}),
    ("navas", 1, {}),
    ("navas", 2, {}),
]
MAX_STEPS = 3000


def digest(state: Any) -> str:
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()


def play(game_id: str, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """The hashes of one deterministic game: the same seed and picks give the same actions."""
    module = engine.GAMES[game_id]
    listing = getattr(module, "legal_actions", module.actions)
    pick = Generator(seed * 7919 + 11)
    state = module.setup(seed, options)
    hashes: dict[str, str] = {"0": digest(state)}
    steps = 0
    while steps < MAX_STEPS and module.result(state) is None:
        active = list(module.active(state))
        for role in [active[pick.randbelow(len(active))], *active]:
            legal = listing(state, role)
            if legal:
                break
        else:
            raise AssertionError(f"{game_id} seed {seed}: no legal action for {active}")
        state = module.apply(state, role, legal[pick.randbelow(len(legal))])
        steps += 1
        if steps in CHECKPOINTS:
            hashes[str(steps)] = digest(state)
    hashes["end"] = digest(state)
    return {"game": game_id, "seed": seed, "options": options, "steps": steps, "hashes": hashes}


def record() -> list[dict[str, Any]]:
    return [play(game_id, seed, options) for game_id, seed, options in CASES]


@pytest.mark.parametrize("case", json.loads(DATA.read_text()) if DATA.exists() else [],
                         ids=lambda c: f"{c['game']}-{c['seed']}")
def test_replay_is_byte_identical_to_the_recorded_engines(case: dict[str, Any]) -> None:
    got = play(case["game"], case["seed"], case["options"])
    assert got["steps"] == case["steps"]
    assert got["hashes"] == case["hashes"]


def test_the_recorded_hashes_are_there() -> None:
    data = json.loads(DATA.read_text())
    assert {(c["game"], c["seed"]) for c in data} == {(g, s) for g, s, _ in CASES}


if __name__ == "__main__":
    print(json.dumps(record(), indent=1))
