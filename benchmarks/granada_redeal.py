"""Granada's re-deal and canonical form, counted in instructions (issue 33).

The service re-deals after every step whose next step may be forced (bot/service/forced.py)
and the built-in player's search re-deals once per iteration from the canonical form. This
plays random games (every optional rule on for odd seeds), keeps every ``--every``-th state,
and then, unless ``--deals 0``, re-deals each kept state ``--deals`` times for each role (seeds
0, 1, ...) and takes its canonical form for each role. Count the instructions with and without
the re-deals under valgrind and take the difference (the games, the imports and a warm-up
re-deal, which compiles views.py and fills the caches of static data, are in both)::

    PYTHONHASHSEED=0 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        .venv/bin/python -m benchmarks.granada_redeal 4
    ... the same with --deals 0

The garbage collector is off (where its collections fall moves a count by a percent).
"""

from __future__ import annotations

import argparse
import gc
import time
from typing import Any

import engine.granada as g
from engine.rng import Generator


def states(seed: int, every: int) -> list[dict[str, Any]]:
    """Every ``every``-th state of a random game of ``seed`` (the engine's own states)."""
    pick = Generator(seed)
    state = g.setup(seed, {"all": True} if seed % 2 else {})
    kept = [state]
    for n in range(1, 3000):
        if g.result(state) is not None:
            break
        role = next(r for r in g.active(state) if g.legal_actions(state, r))
        legal = g.legal_actions(state, role)
        state = g.apply(state, role, legal[pick.randbelow(len(legal))])
        if n % every == 0:
            kept.append(state)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", type=int, help="random games (seeds 1..N)")
    parser.add_argument("--every", type=int, default=10, help="keep every N-th state (default 10)")
    parser.add_argument("--deals", type=int, default=2, help="re-deals a state and role (0: none, no canonical)")
    args = parser.parse_args()
    gc.disable()
    first = g.setup(0, {})
    for role in ("christian", "muslim"):      # the warm-up
        g.redeal(first, role, 0)
        g.canonical(first, role)
    kept = [s for seed in range(1, args.games + 1) for s in states(seed, args.every)]
    if not args.deals:
        print(f"{len(kept)} states, no re-deal")
        return
    start = time.process_time()
    for s in kept:
        for role in ("christian", "muslim"):
            for k in range(args.deals):
                g.redeal(s, role, k)
            g.canonical(s, role)
    cpu = time.process_time() - start
    calls = len(kept) * 2 * (args.deals + 1)
    print(f"{len(kept)} states, {calls} calls ({args.deals} re-deals and the canonical form a state and role), "
          f"{cpu:.3f} s CPU ({cpu / calls * 1e6:.1f} us a call)")


if __name__ == "__main__":
    main()
