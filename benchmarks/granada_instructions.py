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
times: the legal actions of one role, then one of them applied), seeds 1..N.
"""

from __future__ import annotations

import argparse
import gc
import time

import engine
from benchmarks.common import play_random


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=int, help="random games after the warm-up (0: the warm-up alone)")
    parser.add_argument("--gc", action="store_true", help="leave the garbage collector on")
    args = parser.parse_args()
    if not args.gc:
        gc.disable()
    module = engine.get("granada")
    play_random(module, 1000)          # warm-up: caches of static data, filled once a process
    steps = 0
    start = time.process_time()
    for seed in range(1, args.games + 1):
        steps += len(play_random(module, seed).moves)
    cpu = time.process_time() - start
    print(f"{args.games} games, {steps} steps, {cpu:.3f} s CPU ({cpu / max(steps, 1) * 1e6:.1f} us a step)")


if __name__ == "__main__":
    main()
