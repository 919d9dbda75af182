"""Random Granada games for an instruction count of the engine's step (issue 33).

Wall and CPU times of a step move by a third from one minute to the next on a shared
machine; the number of instructions a run executes does not. Run it twice under valgrind,
with the games and without, and take the difference (the imports and a warm-up game, which
fills the caches of static data, are in both)::

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        .venv/bin/python -m benchmarks.granada_instructions 5
    ... the same with 0 games

The garbage collector is off unless ``--gc`` is given: where its collections fall depends
on how many containers a run allocates, which moves a count by a percent either way and
hides changes smaller than that. The games are ``play_random``'s (what ``engine.step``
times: the legal actions of one role, then one of them applied), seeds 1..N. With
``--playouts``, N is a number of ``engine.playouts_per_s``' playouts instead (random legal
actions from the state after 300 random steps, benchmarks/engine_speed.py), the same ones
every run; its start is worked out in both runs, so the difference is the playouts alone.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import time

import engine
from benchmarks.common import play_random
from benchmarks.engine_speed import playout, playout_start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=int, help="random games (or playouts) after the warm-up (0: the warm-up alone)")
    parser.add_argument("--gc", action="store_true", help="leave the garbage collector on")
    parser.add_argument("--playouts", action="store_true",
                        help="count engine.playouts_per_s' playouts instead of random games")
    args = parser.parse_args()
    if not args.gc:
        gc.disable()
    module = engine.get("granada")
    # every frame handler imported in both runs: one a game reaches late (a sea battle) is
    # otherwise compiled inside the games' count (PYTHONDONTWRITEBYTECODE leaves no .pyc)
    from engine.granada.frames import HANDLERS
    for name in HANDLERS.values():
        importlib.import_module(name)
    play_random(module, 1000)          # warm-up: caches of static data, filled once a process
    begin = playout_start(module) if args.playouts else None
    if args.playouts and begin is None:
        raise SystemExit("every random game ended before the playouts' first step")
    steps = 0
    start = time.process_time()
    for seed in range(1, args.games + 1):
        steps += playout(module, begin, seed - 1) if begin is not None else len(play_random(module, seed).moves)
    cpu = time.process_time() - start
    what = "playouts" if args.playouts else "games"
    print(f"{args.games} {what}, {steps} steps, {cpu:.3f} s CPU ({cpu / max(steps, 1) * 1e6:.1f} us a step)")


if __name__ == "__main__":
    main()
