"""The engine's speed work (issue 33) changes how a step is computed, never what it computes.

``data/step_fingerprints.json`` was recorded on the engine as it stood BEFORE the speed work
of issue 33 (branch h45 at 03ef9ba, RULES_VERSION 3), by
``python -m tests.engine.granada.test_step_fingerprints > tests/engine/granada/data/step_fingerprints.json``.
For each of 30 seeded random games (half with every optional rule on) it holds one SHA-256
over everything the contract hands out along the game: at every step, the legal actions of
each active role (JSON, in the order listed, labels included) and the stored state after
the step (``json.dumps`` as the store keeps it); at the end, ``canonical`` and ``view`` of
the final state for both roles. Any change to a listed action, its order or label, a log
line, the stored state's shape or key order, or a view shows as a mismatch here.

Re-recorded for issue 38 (orders on identical pieces one entry, engine/granada/alike.py), after
two checks: on main merged with the speed work (before alike.py) all 30 games gave the same
digests as main without the speed work (the recorded file differed from both only by main's
reworded labels and prompts, with the same step counts); and with alike.py but every copy
listed (``actions`` replaced by the full list), 29 games gave those digests again, the 30th
(seed 107) differing only by labels now telling apart two Castile 1-shield blocks of which
the Muslim identified one. The new digests differ because the picks index shorter menus.

Regenerate only on purpose (a deliberate rules or wording change), never to make a speed
change pass.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine.granada as g

DATA = Path(__file__).parent / "data" / "step_fingerprints.json"
CASES: list[tuple[int, dict[str, Any]]] = [(seed, {"all": True} if seed % 2 else {}) for seed in range(100, 130)]


def fingerprint(seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One game's digest: the same seed gives the same picks among the same listed actions."""
    pick = random.Random(seed * 31 + 7)
    digest = hashlib.sha256()

    def feed(value: Any) -> None:
        digest.update(json.dumps(value, ensure_ascii=False).encode())
        digest.update(b"\n")

    state = g.setup(seed, options)
    feed(state)
    steps = 0
    while g.result(state) is None:
        active = g.active(state)
        listed = {role: g.actions(state, role) for role in active}
        feed(listed)
        role = pick.choice([r for r in active if listed[r]])
        state = g.apply(state, role, pick.choice(listed[role]))
        feed(state)
        steps += 1
    for role in g.roles(options):
        feed(g.canonical(state, role))
        feed(g.view(state, role))
    return {"seed": seed, "options": options, "steps": steps, "sha256": digest.hexdigest()}


@pytest.mark.parametrize("case", json.loads(DATA.read_text()) if DATA.exists() else [], ids=lambda c: f"seed-{c['seed']}")
def test_every_listed_action_and_state_is_as_recorded(case: dict[str, Any]) -> None:
    got = fingerprint(case["seed"], case["options"])
    assert got["steps"] == case["steps"]
    assert got["sha256"] == case["sha256"]


if __name__ == "__main__":
    print(json.dumps([fingerprint(seed, options) for seed, options in CASES], indent=1))
