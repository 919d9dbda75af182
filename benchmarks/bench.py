"""``alcazaba bench [--quick]``: the figures issue 6 asks for, one JSON object per line.

Each line has ``name``, ``unit``, ``median``, ``p95``, ``n`` and, where a floor exists to
compare with, ``baseline`` (measured in the same run, on the same machine) and ``ratio``.
A figure that cannot be measured yet (a game or picture not written) is a line
``{"name": ..., "skipped": reason}``; games and pictures are discovered from
``engine.GAMES`` and the ``render.<game>`` modules, so new ones appear without editing
this file.

Why these choices:

* **Random legal play.** Every engine figure plays uniformly random legal actions, as the
  contract check does: it reaches every phase and needs nothing game-specific.
* **Worst-case service step.** ``service.step`` cycles through more games than the
  service's state cache holds, so every step loads its state from the database (the last
  snapshot plus the deltas of the moves after it, checked against the last move's hash),
  in a database of 10,000 stored games (made by bulk SQL copies of real games, which is
  seconds instead of the minutes that playing them would take). The baseline is a bare
  ``sqlite3`` insert-and-commit of the same bytes (action, state, notifications) with the
  same journal settings: the floor any design storing those bytes pays.
* **Pictures against a blank picture.** A render's baseline is Pillow encoding a blank
  image of the same size: the cost no drawing can avoid.
* **Memory of the real process.** ``memory.bot_rss_mb`` starts ``alcazaba run`` against the
  Discord stand-in (tests/standin) over the 10,000-game database and reads its RSS; when the
  stand-in or the Discord front end is not there, it measures a process that serves the same
  database through the game service, and says so.

``--quick`` runs every figure with fewer repetitions (under a minute on the 2-core
reference machine); ``--only PREFIX`` limits the run to figures whose name starts with it.

``--processes N[,N...]`` and ``--games-per-process N[,N...]`` choose the PostgreSQL figure's
sets (``throughput.pg_processes``, one line for each process count and games per process; by
default 1, 2 and up to the machine's cores, 50 games a process with ``--quick``, 100 without).

``--ai`` runs only the search player's figures (long: hours at the issues' sizes;
``benchmarks/ai_sets.py`` says how, and how its ledger lets a run go on later).

The figures live by subject, each module a section of the run: ``engine_speed`` (engine.*),
``service`` (service.step, throughput.steps_per_s), ``store`` (the 10,000-game database and
storage.*), ``postgres`` (throughput.pg_*), ``pictures`` (render.*), ``web`` (web.*),
``ratings`` (ratings.*), ``memory`` (memory.*), ``ai_sets`` (ai.*); ``common`` holds the run
(Plan, Bench), the figures' format and random play. This module is the command line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import engine
from benchmarks import engine_speed, memory, pictures, postgres, ratings, service, store, web
from benchmarks.ai_sets import EASY, EASY_VS_RANDOM, EASY_VS_RANDOM_GAMES, Ledger, ai_figures, parse_options
from benchmarks.common import Bench, Plan

# --------------------------------------------------------------------------- entry point


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options beyond ``--quick`` (which ``alcazaba bench`` already defines)."""
    parser.add_argument("--only", metavar="PREFIX", help="only figures whose name starts with PREFIX")
    parser.add_argument("--keep", metavar="DIR", help="keep the benchmark's databases in DIR")
    parser.add_argument("--processes", type=postgres.counts_option, metavar="N[,N...]",
                        help="throughput.pg_processes: the numbers of player processes (default 1, 2 and "
                             "doubling up to the machine's cores)")
    parser.add_argument("--games-per-process", type=postgres.counts_option, metavar="N[,N...]",
                        help="throughput.pg_processes: games each process plays (default 50; 100 without --quick)")
    parser.add_argument("--ai", action="store_true",
                        help="only the search player against the easy player (long; ai.winrate, ai.think_s)")
    parser.add_argument("--game", action="append", metavar="G", help="with --ai: a game (repeatable; default all)")
    parser.add_argument("--level", action="append", choices=[EASY, "normal", "hard", EASY_VS_RANDOM],
                        help="with --ai: a level (repeatable; default normal and hard); easy_vs_random "
                             "measures the built-in player against random players, easy against the game's "
                             "own opponent in a one-seat game (solo Sabika's Yusuf)")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE",
                        help="with --ai: a game option for every game of the set (repeatable), e.g. "
                             "--game sabika --option players=1 for the solo game against Yusuf")
    parser.add_argument("--games", type=int, metavar="N",
                        help="with --ai: games per side (default: navas 100, granada 20; --quick: 2); "
                             f"for easy_vs_random games in all (default {EASY_VS_RANDOM_GAMES}; --quick: 2)")
    parser.add_argument("--iterations", type=int, metavar="K",
                        help="with --ai: search iterations per decision instead of the level's own")
    parser.add_argument("--workers", type=int, metavar="W",
                        help="with --ai: games played at once (default: the machine's cores)")
    parser.add_argument("--ledger", metavar="FILE",
                        help="with --ai: keep each finished game in FILE and play only the games it does not "
                             "hold for the same code (a long run goes on where it stopped)")
    parser.add_argument("--code", metavar="FINGERPRINT",
                        help="with --ai, --ledger and one --game: report the ledger's games of this code "
                             "(a set played before its code changed; printed as the figure's \"code\"); "
                             "plays no game unless it is the current code")
    parser.add_argument("--stop-after", type=float, metavar="MINUTES",
                        help="with --ai: start no game after MINUTES (the figures cover the games finished)")


def _parse(argv: argparse.Namespace | Sequence[str] | None) -> argparse.Namespace:
    if isinstance(argv, argparse.Namespace):
        return argv
    parser = argparse.ArgumentParser(prog="alcazaba bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (under a minute)")
    add_arguments(parser)
    return parser.parse_args(list(sys.argv[1:] if argv is None else argv))


def print_line(line: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


@contextlib.contextmanager
def _workdir(keep: str | None) -> Iterator[Path]:
    if keep:
        path = Path(keep)
        path.mkdir(parents=True, exist_ok=True)
        for old in path.glob("*.db*"):
            old.unlink()
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="alcazaba-bench-") as tmp:
        yield Path(tmp)


def main(argv: argparse.Namespace | Sequence[str] | None = None) -> int:
    """Run every figure; 0 when each was measured or skipped for a stated reason, 1 when
    one failed (its line says ``error``)."""
    args = _parse(argv)
    if getattr(args, "ai", False):
        return ai_main(args)
    plan = Plan.make(bool(getattr(args, "quick", False)))
    only = getattr(args, "only", None)
    started = time.perf_counter()
    failed = False
    with _workdir(getattr(args, "keep", None)) as workdir:
        bench = Bench(plan, workdir, print_line, only)
        processes = getattr(args, "processes", None) or postgres.default_process_counts(os.cpu_count())
        per_process = getattr(args, "games_per_process", None) or [postgres.default_games_per_process(bench)]
        sections: list[tuple[tuple[str, ...], Callable[[], Any]]] = [
            (("engine.",), lambda: engine_speed.engine_figures(bench)),
            (("engine.step.granada.late", "engine.playouts_per_s."), lambda: engine_speed.engine_speed_figures(bench)),
            (("service.", "throughput.", "storage.bytes", "memory."),
             lambda: asyncio.run(service.service_figures(bench))),
            (postgres.PG_FIGURES, lambda: postgres.pg_figures(bench, processes, per_process)),
            (("storage.granada_game_bytes",), lambda: asyncio.run(store.granada_game_bytes(bench))),
            (("render.",), lambda: pictures.render_figures(bench)),
            (("web.",), lambda: asyncio.run(web.web_figures(bench))),
            (("render.leaderboard",), lambda: pictures.leaderboard_figure(bench)),
            (("ratings.",), lambda: asyncio.run(ratings.ratings_figures(bench))),
            (("memory.",), lambda: memory.memory_figure(bench)),
        ]
        for prefixes, run in sections:
            if not any(bench.wants(p) for p in prefixes):
                continue
            try:
                if prefixes[0] != "engine.":
                    bench.prepare_empty_db()
                run()
            except Exception as exc:  # one broken figure must not hide the others
                failed = True
                print_line({"name": prefixes[0].rstrip("."), "error": f"{type(exc).__name__}: {exc}"[:2000]})
                traceback.print_exc(file=sys.stderr)
    print(f"bench: {'quick ' if plan.quick else ''}run took {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 1 if failed else 0


def ai_main(args: argparse.Namespace) -> int:
    """``alcazaba bench --ai``: separate from the other figures (it may run for hours)."""
    started = time.perf_counter()
    games = args.game or sorted(engine.GAMES)
    unknown = [g for g in games if g not in engine.GAMES]
    if unknown:
        print(f"bench --ai: unknown game(s) {', '.join(unknown)}; known: {', '.join(sorted(engine.GAMES))}",
              file=sys.stderr)
        return 2
    try:
        options: dict[str, Any] = {}
        for game_id in games:
            options = parse_options(game_id, getattr(args, "option", None) or [])
    except ValueError as exc:
        print(f"bench --ai: {exc}", file=sys.stderr)
        return 2
    code = getattr(args, "code", None)
    if code is not None and (len(games) != 1 or not getattr(args, "ledger", None)):
        print("bench --ai: --code reports a ledger's set: give --ledger and one --game (a fingerprint is one "
              "game's code)", file=sys.stderr)
        return 2
    per_side = args.games if args.games is not None else (2 if args.quick else None)
    workers = args.workers or os.cpu_count() or 1
    ledger = Ledger(Path(args.ledger)) if getattr(args, "ledger", None) else None
    stop_after = getattr(args, "stop_after", None)
    stop_at = None if stop_after is None else started + 60 * stop_after
    try:
        ai_figures(games, args.level or ["normal", "hard"], per_side, args.iterations, workers, print_line, ledger,
                   stop_at, options, code)
    except ValueError as exc:  # a set refused before any game (ai_sets.refusal)
        print(f"bench --ai: {exc}", file=sys.stderr)
        return 2
    print(f"bench --ai: run took {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
