"""How often the built-in player wins Granada (Dirk Henn) against random players.

    .venv/bin/python -m tests.engine.granada_city.winrate --games 200 --players 3

Game k uses seed k; the built-in player takes seat k mod n (so no seat is favoured), every
other seat plays uniformly random legal steps (what ``engine.players.choose`` does for a game
without a player of its own). A shared win counts as a win and is also reported apart.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from engine.granada_city import actions, active, apply, choose, result, roles, setup
from engine.rng import Generator


def play(seed: int, players: int, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """(the built-in player's seat, the result) of one game."""
    opts = {"players": players} | (options or {})
    seats = roles(opts)
    bot = seats[seed % len(seats)]
    state = setup(seed, opts)
    rnd = Generator(seed * 7919 + 1)
    step = 0
    while result(state) is None:
        role = active(state)[0]
        if role == bot:
            action = choose(state, role, seed * 100_003 + step)
        else:
            action = rnd.choice(actions(state, role))
        state = apply(state, role, action)
        step += 1
    res = result(state)
    assert res is not None
    return bot, res


def measure(games: int, players: int, options: dict[str, Any] | None = None, first: int = 1) -> dict[str, Any]:
    wins = shared = 0
    margins = []
    for seed in range(first, first + games):
        bot, res = play(seed, players, options)
        if bot in res["winners"]:
            wins += 1
            shared += len(res["winners"]) > 1
        others = [v for k, v in res["score"].items() if k not in (bot, "dirk")]
        margins.append(res["score"][bot] - max(others))
    margins.sort()
    return {"games": games, "players": players, "options": options or {}, "wins": wins, "shared": shared,
            "win_rate": round(wins / games, 3), "median_margin": margins[len(margins) // 2]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--simplified", action="store_true")
    parser.add_argument("--first", type=int, default=1, help="first seed")
    args = parser.parse_args()
    t0 = time.perf_counter()
    out = measure(args.games, args.players, {"simplified": True} if args.simplified else None, args.first)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
