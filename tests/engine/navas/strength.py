"""How strong the 1212 built-in player is against a uniformly random player.

    python -m tests.engine.navas.strength [--games 200] [--seed 1] [--advanced]

Game k (seed ``seed + k``) gives the built-in player the Christians when k is even and the
Muslims when k is odd; the random player picks uniformly among the legal actions with its own
generator. Prints one JSON line per game with ``--verbose`` and a summary JSON line: games,
wins of the built-in player overall and per side, with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from engine.navas import actions, active, apply, choose, result, setup
from engine.rng import Generator

MAX_STEPS = 20000


def play(seed: int, player_side: str, advanced: bool) -> dict[str, Any]:
    """One game, the built-in player on ``player_side``; its result and length."""
    state = setup(seed, {"advanced": advanced})
    chance = Generator(seed * 7919 + 1)
    steps = 0
    while result(state) is None:
        if steps >= MAX_STEPS:
            raise RuntimeError(f"seed {seed}: no result after {MAX_STEPS} steps")
        role = active(state)[0]
        if role == player_side:
            action = choose(state, role, seed * 100003 + steps)
        else:
            action = chance.choice(actions(state, role))
        state = apply(state, role, action)
        steps += 1
    outcome = result(state)
    assert outcome is not None
    return {"seed": seed, "player": player_side, "winner": outcome["winner"], "reason": outcome["reason"],
            "steps": steps, "round": state["round"]}


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (round(centre - half, 3), round(centre + half, 3))


def match(games: int, seed: int = 1, advanced: bool = False, verbose: bool = False) -> dict[str, Any]:
    wins = {"christian": 0, "muslim": 0}
    played = {"christian": 0, "muslim": 0}
    started = time.perf_counter()
    for k in range(games):
        side = "christian" if k % 2 == 0 else "muslim"
        game = play(seed + k, side, advanced)
        played[side] += 1
        if game["winner"] == side:
            wins[side] += 1
        if verbose:
            print(json.dumps(game), flush=True)
    total = wins["christian"] + wins["muslim"]
    return {"games": games, "advanced": advanced, "player_wins": total, "win_rate": round(total / games, 3),
            "interval95": wilson(total, games),
            "as_christian": f"{wins['christian']}/{played['christian']}",
            "as_muslim": f"{wins['muslim']}/{played['muslim']}",
            "seconds": round(time.perf_counter() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--advanced", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    print(json.dumps(match(args.games, args.seed, args.advanced, args.verbose)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
