"""The search player's sets: ``--ai [--game G] [--level L] [--games N] [--iterations K] [--workers W]`` runs only the search
player's figures (engine/ai): the level against the easy player, sides alternating, games
played on every core at once; ``ai.winrate.<game>.<level>`` with its 95% Wilson interval and
``ai.think_s.<game>.<level>``. It is never part of the other runs: at the issue's sizes (100
games a side of 1212, 20 of Granada) it takes hours. ``--level easy_vs_random`` measures the
built-in ("easy") player itself (issues 9 and 10): it in one seat, uniformly random legal play in
every other, the seat rotating over the same deals; ``--games`` then counts games in all (default
200) and the figure is ``ai.winrate.<game>.easy_vs_random``, same format, target 0.8.

``--option KEY=VALUE`` (repeatable) plays a set with game options, checked against the game's
``OPTIONS`` and typed as each option's default: ``--game sabika --option players=1`` is the
solo game against Yusuf, an automaton inside the rules (never a role), so the set is one seat,
the player's, over ``--games`` seeds, and the figure is the player's share of wins against him
(``ai.winrate.sabika[players=1].<level>``; issue 31's targets, ``SET_TARGETS``). There
``--level easy`` measures the built-in player itself; with more than one seat it is refused
(its opponents would be the same easy player). A ledger keys such a set by its options too.

``--ledger FILE`` keeps each finished game of ``--ai`` as a line of FILE (JSON lines) with
the fingerprint of the code that played it (``ai_code``: the search, the game's rules and
built-in player, the harness), and plays only the games of the set that FILE does not hold
for that code: a run of hours can stop (``--stop-after MINUTES``, a crash, the end of a working
session) and go on later, on the same code, and the figures always cover every game the
ledger holds for it (``from_ledger`` says how many came from earlier runs; ``complete`` whether
the whole set is in).

A set of many hours is finished over several sessions, not always on the same machine, and a
search's budget is a number of iterations: a slower machine plays the same games more slowly.
So each run that adds games to a ledger first measures this machine's ``speed``: it replays the
first decisions of the set's first game (``PROBE_DECISIONS``) and divides their CPU time by
the ledger's, and each line it adds carries that figure (lines without one count as 1.0: the
machine of the set's first game). ``ai.think_s`` then gives, beside the whole set's figures,
each machine's own (``machines``), judged against the budget, so a slower machine's times are
neither hidden in the set's median nor taken for the search's cost.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import engine
from benchmarks.common import (
    default_options,
    figure,
    percentile,
    rounded,
    skipped,
)
from engine.rng import Generator

AI_GAMES_PER_SIDE = {"navas": 100, "granada": 20}
"""Games per side of ``--ai`` (issue 15): a Granada game is some 400 decisions a side."""
EASY_VS_RANDOM = "easy_vs_random"
"""The level that measures the built-in player (engine.players) against random players."""
EASY_VS_RANDOM_GAMES = 200
"""Games in all of ``easy_vs_random`` (issues 9 and 10), whatever the number of seats."""
AI_TARGETS = {"normal": 0.80, "hard": 0.90, EASY_VS_RANDOM: 0.80}
SET_TARGETS: dict[str, dict[str, float]] = {"sabika[players=1]": {"easy": 0.30, "normal": 0.50, "hard": 0.70},
                                             "granada_city": {"normal": 0.60, "hard": 0.70}}
"""Targets of a set by its name (:func:`set_name`), where they differ from ``AI_TARGETS``
(issue 31: Sabika solo against Yusuf; Dirk Henn's Granada, where against two ``easy`` an even
share is a third). A set with options has no target unless it is named here."""


def win_target(name: str, level: str, given: bool) -> float | None:
    """The win rate a set must reach: its own (``SET_TARGETS``), else the level's, but none for
    a set with options (``given``) not named there (its share of an even game is unknown)."""
    return SET_TARGETS.get(name, {}).get(level, None if given else AI_TARGETS.get(level))


EASY = "easy"
"""The built-in player measured against a game's own automaton (Yusuf in solo Sabika): only
where the player holds the one seat, or its opponents would be itself."""
AI_MAX_STEPS = 20_000

Options = dict[str, Any]
AiJob = tuple[str, str, int, str, int | None] | tuple[str, str, int, str, int | None, Options]
"""One game of a set: (game, level, seed, measured seat, iterations[, options]); options the
ones given with ``--option`` (absent or empty: the game's defaults)."""


def parse_options(game_id: str, pairs: Sequence[str]) -> Options:
    """``--option KEY=VALUE`` pairs checked against the game's declared ``OPTIONS``, each value
    typed as the option's default is (``players=1`` an int for Sabika). ValueError: a sentence
    saying what is wrong (an unknown name, a value of the wrong type or not among the choices)."""
    module = engine.get(game_id)
    options: Options = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        name, raw = name.strip(), raw.strip()
        if not sep or not name:
            raise ValueError(f"--option {pair!r}: write KEY=VALUE, e.g. --option players=1")
        spec = module.OPTIONS.get(name)
        if not isinstance(spec, dict) or "default" not in spec:
            known = ", ".join(sorted(module.OPTIONS)) or "none"
            raise ValueError(f"{game_id} has no option {name!r}; its options are: {known}")
        default = spec["default"]
        value: Any
        try:
            if isinstance(default, bool):
                if raw.lower() not in ("true", "false"):
                    raise ValueError(raw)
                value = raw.lower() == "true"
            elif isinstance(default, int):
                value = int(raw)
            elif isinstance(default, float):
                value = float(raw)
            else:
                value = raw
        except ValueError:
            kind = type(default).__name__
            raise ValueError(f"{game_id} option {name} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} "
                             f"like its default {json.dumps(default)}, not {raw!r}") from None
        choices = spec.get("choices")
        if choices is not None and value not in choices:
            raise ValueError(f"{game_id} option {name} must be one of {', '.join(map(str, choices))}, not {raw!r}")
        options[name] = value
    return options


def set_name(game_id: str, options: Options) -> str:
    """The game as a figure names it: ``sabika``, or with options ``sabika[players=1]`` (sorted
    by name), so that a set with options never takes the figure of the game's default set."""
    if not options:
        return game_id
    given = ",".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in sorted(options.items()))
    return f"{game_id}[{given}]"


def set_roles(game_id: str, options: Options) -> list[str]:
    """The seats a set measures: the game's roles under its options, the players' seats only
    (solo Sabika's Yusuf is an automaton inside the rules, never a role)."""
    module = engine.get(game_id)
    return list(module.roles(default_options(module) | options))


def refusal(game_id: str, level: str, options: Options) -> str | None:
    """Why a set cannot be measured, or None: ``easy`` measures the built-in player against the
    game's automaton, so with more than one seat its opponents would be the same easy player."""
    if level == EASY:
        seats = set_roles(game_id, options)
        if len(seats) > 1:
            return (f"--level easy measures the built-in player against the game's own opponent (Yusuf in "
                    f"solo Sabika); {set_name(game_id, options)} has {len(seats)} seats, whose opponents would "
                    f"be the same easy player (use easy_vs_random, or --option players=1 for Sabika)")
    return None


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% for z = 1.96): honest near 0 and 1 and
    for few games, where the normal approximation is not."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def winners_of(res: dict[str, Any], roles: Sequence[str]) -> list[str]:
    """Every role sharing the win: the result's ``winners`` (Granada of Dirk Henn), else its one
    ``winner``; a result with neither is a draw of every role (a two-player shared victory of
    Sabika, a Granada that nobody wins). Scores are not read: "nobody wins" is not a shared win."""
    if res.get("winners") is not None:
        return list(res["winners"])
    if res.get("winner") is not None:
        return [res["winner"]]
    return list(roles)


def credit(game: dict[str, Any]) -> float:
    """The measured player's share of one game: 1 for a win alone, 1/k for a win shared by k
    (a two-player draw is the half it always was), 0 for a loss or an unfinished game."""
    winners = game["winners"]
    return 1.0 / len(winners) if game["ai_role"] in winners else 0.0


AI_HARNESS = 1
"""Bumped when ``ai_game`` changes what a game of ``--ai`` is (its seeds, seats or opponents):
games a ledger holds from before then no longer count."""


def ai_code(game_id: str) -> str:
    """The fingerprint of everything that decides how a game of ``--ai`` goes: the search
    (engine/ai, but of the games' own adapters only this game's, ``engine/ai/<game>.py``:
    Granada's does not decide a 1212 game), the game's rules, data and built-in player with
    the engine's shared modules (``bot.upgrade.code_fingerprint``) and the harness
    (``AI_HARNESS``)."""
    from bot.upgrade import code_fingerprint, files_digest

    parts = [str(AI_HARNESS), code_fingerprint(engine.get(game_id)) or game_id,
             files_digest(search_files(game_id), SEARCH_DIR)]
    return hashlib.sha256(":".join(parts).encode()).hexdigest()[:16]


SEARCH_DIR = Path(engine.__file__).resolve().parent / "ai"


def search_files(game_id: str) -> list[Path]:
    """The search's files that can decide a game of ``game_id``: all of engine/ai but the
    other games' adapters."""
    return [f for f in sorted(SEARCH_DIR.glob("*.py")) if f.stem == game_id or f.stem not in engine.GAMES]


class Ledger:
    """The finished games of ``--ai`` runs, one JSON line each (see the module notes). A line
    is written and flushed to disk as its game ends, so a run stopped at any point keeps every
    game it finished; a torn last line (a crash while writing) is ignored."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def games(self, key: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
        """The games held for ``key`` (game, level, iterations, code and, for a set with
        ``--option``, its options), by (seed, seat)."""
        held: dict[tuple[int, str], dict[str, Any]] = {}
        if not self.path.exists():
            return held
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                game = json.loads(line)
            except ValueError:
                continue
            # a set's options are part of its key, and a key without them is the game's default set
            if (all(game.get(k) == v for k, v in key.items() if k != "options")
                    and (game.get("options") or {}) == (key.get("options") or {})):
                held[(int(game["seed"]), str(game["ai_role"]))] = game
        return held

    def add(self, key: dict[str, Any], game: dict[str, Any], speed: float = 1.0) -> None:
        """Keep one finished game, with the ``speed`` of the machine that played it
        (:func:`machine_speed`)."""
        line = dict(game, **key, think=[round(t, 4) for t in game["think"]], cpu=[round(t, 4) for t in game["cpu"]],
                    speed=round(speed, 3))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line, sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())


def ai_game(job: AiJob, decisions: int | None = None) -> dict[str, Any]:
    """One game: the search at ``level`` in seat ``ai_role`` against the easy player in every
    other seat, or for ``easy_vs_random`` the easy player against uniformly random legal play,
    or for ``easy`` the easy player alone against the game's automaton (solo Sabika's Yusuf);
    the job's options over the game's defaults.
    Top-level so that a process pool can run it. Returns the winners and the measured player's
    thinking times (for the search, decisions with more than one option only: the others return
    at once; for the easy player, every decision). With ``decisions``, the game stops after that
    many measured decisions (:func:`machine_speed`'s replay)."""
    from engine import ai, players

    game_id, level, seed, ai_role, iterations, *extra = job
    module = engine.get(game_id)
    options = default_options(module) | (dict(extra[0]) if extra else {})
    state = module.setup(seed, options)
    seeds = Generator(seed * 1_000_003 + 17)
    think: list[float] = []
    cpu: list[float] = []       # the same decisions' CPU time (time.process_time of this worker)
    steps = 0
    while module.result(state) is None and steps < AI_MAX_STEPS:
        if decisions is not None and len(think) >= decisions:
            break
        active = list(module.active(state))
        role = ai_role if ai_role in active else active[0]
        decision_seed = seeds.randbelow(1 << 62)
        if level in (EASY_VS_RANDOM, EASY):
            if role == ai_role:
                t0, c0 = time.perf_counter(), time.process_time()
                action = players.choose(module, state, role, decision_seed)
                think.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            elif level == EASY:  # refused where it would happen (:func:`refusal`): easy against easy
                action = players.choose(module, state, role, decision_seed)
            else:
                action = Generator(decision_seed).choice(module.actions(state, role))
        elif role == ai_role:
            t0, c0 = time.perf_counter(), time.process_time()
            action, stats = ai.choose_with_stats(module, state, role, decision_seed, level, iterations)
            if stats.iterations:
                think.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
        else:
            action = players.choose(module, state, role, decision_seed)
        state = module.apply(state, role, action)
        steps += 1
    res = module.result(state)
    roles = list(module.roles(options))
    return {"game": game_id, "level": level, "seed": seed, "ai_role": ai_role,
            "winner": None if res is None else res.get("winner"),
            "winners": [] if res is None else winners_of(res, roles), "finished": res is not None,
            "steps": steps, "think": think, "cpu": cpu}


PROBE_DECISIONS = 10
"""Decisions replayed to measure a machine's speed: some 20 s of the reference machine at
1212 ``hard``. A single decision's CPU ratio between two machines varies (1.3-2.4 over the 44
of one 1212 game replayed on a slower machine, 27 Nov), the sum of ten much less."""


def machine_speed(base: dict[str, Any]) -> float:
    """How many times the CPU time of the machine that played ``base`` (a ledger line, the
    set's first game) this machine takes for the same decisions: the same code replays the
    same game, so the decisions and the work are identical and only the machine differs.
    Relative to the set's first machine: ``base``'s own speed, if it has one, carries over."""
    reference = base["cpu"][:PROBE_DECISIONS]
    if not reference or sum(reference) <= 0:
        return 1.0
    replay = ai_game((base["game"], base["level"], int(base["seed"]), base["ai_role"], base["iterations"],
                      dict(base.get("options") or {})), decisions=len(reference))
    return _speed(base) * sum(replay["cpu"]) / sum(reference)


SAME_MACHINE = 1.25
"""Speeds within this factor of a group's lowest are one machine: the probe's
ten decisions measure one machine 5-10% apart from run to run (2.11 for the first ten
decisions of a 1212 game whose whole replay took 1.94 times the CPU, 27 Nov)."""


def _speed(game: dict[str, Any]) -> float:
    """A ledger line's machine speed; lines from before the probe were played on the set's
    first machine."""
    return float(game.get("speed", 1.0))


def by_machine(done: Sequence[dict[str, Any]], budget: float | None) -> list[dict[str, Any]]:
    """The think time of a set's games grouped by the machine that played them (speeds within
    ``SAME_MACHINE`` of the group's first, in order of speed), each group judged against the
    budget: what a player waited on each machine. A group is named by its median speed."""
    groups: list[list[dict[str, Any]]] = []
    for game in sorted(done, key=_speed):
        if groups and _speed(game) <= SAME_MACHINE * _speed(groups[-1][0]):
            groups[-1].append(game)
        else:
            groups.append([game])
    out: list[dict[str, Any]] = []
    for group in groups:
        think = [t for g in group for t in g["think"]]
        cpu = [t for g in group for t in g["cpu"]]
        if not think:
            continue
        speed = statistics.median(_speed(g) for g in group)
        row: dict[str, Any] = {"speed": round(speed, 2), "games": len(group), "n": len(think),
                               "median": rounded(statistics.median(think)), "p95": rounded(percentile(think, 95))}
        out.append(row | think_budget(think, cpu, budget))
    return out


def play_ai_jobs(jobs: list[AiJob], workers: int, label: str,
                 keep: Callable[[dict[str, Any]], None] | None = None,
                 stop_at: float | None = None) -> list[dict[str, Any]]:
    """Play the games, ``workers`` at once, saying each result on stderr as it comes and
    handing it to ``keep``; no game starts after ``stop_at`` (``time.perf_counter``), and the
    games still being played then are abandoned."""
    import multiprocessing

    started = time.perf_counter()
    done: list[dict[str, Any]] = []

    def over() -> bool:
        return stop_at is not None and time.perf_counter() >= stop_at

    def note(game: dict[str, Any]) -> None:
        done.append(game)
        if keep is not None:
            keep(game)
        share = credit(game)
        mark = "won" if share == 1.0 else "lost" if share == 0.0 else f"shared ({share:.2f})"
        print(f"bench --ai: {label} {len(done)}/{len(jobs)}: seed {game['seed']} as {game['ai_role']} {mark} "
              f"in {game['steps']} steps ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)

    if not jobs:
        return done
    if workers > 1:
        with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            results = pool.imap_unordered(ai_game, jobs, chunksize=1)
            for _ in jobs:
                while True:
                    try:
                        note(results.next(timeout=5))
                        break
                    except multiprocessing.TimeoutError:
                        if over():
                            pool.terminate()
                            return done
                if over():
                    pool.terminate()
                    return done
    else:
        for job in jobs:
            if over():
                break
            note(ai_game(job))
    return done


def think_budget(think: Sequence[float], cpu: Sequence[float], budget: float | None) -> dict[str, Any]:
    """The CPU time of the same decisions beside their wall time, and, for a level's own budget
    (issue 15: median within it, p95 at most 1.5 times it), whether the wall time meets it. A
    player waits the wall time; on a machine shared with other work the CPU time (``cpu_*``)
    says what the search itself took."""
    out: dict[str, Any] = {"cpu_median": rounded(statistics.median(cpu)), "cpu_p95": rounded(percentile(cpu, 95))}
    if budget:
        out["budget_s"] = budget
        out["target"] = f"median <= {budget:g} s, p95 <= {1.5 * budget:g} s"
        out["meets_target"] = statistics.median(think) <= budget and percentile(think, 95) <= 1.5 * budget
    return out


def ai_figures(games: Sequence[str], levels: Sequence[str], per_side: int | None, iterations: int | None,
               workers: int, out: Callable[[dict[str, Any]], None], ledger: Ledger | None = None,
               stop_at: float | None = None, options: Options | None = None, code: str | None = None) -> None:
    """``ai.winrate.<game>.<level>`` (with its 95% Wilson interval) and ``ai.think_s.<game>.<level>``:
    the level against the easy player (``easy_vs_random``: the easy player against random ones;
    ``easy``: the easy player against the game's automaton, solo Sabika's Yusuf), in the
    game's seats, the seat rotating over the same deals (game nk + i, i < n seats, has seed
    k + 1). ``per_side`` is games per seat for a search level and games in all for
    ``easy_vs_random``, as the issues count them. A shared win counts its share (see ``credit``).
    ``options`` (``--option``, checked by :func:`parse_options`) go into every game's setup, the
    ledger key (only when given: the sets of the default options keep their ledgers) and the
    figure's name (``ai.winrate.sabika[players=1].normal``, :func:`set_name`). A set that
    :func:`refusal` refuses raises ValueError before any game is played.

    ``code`` (``--code``): the ledger's games of that fingerprint instead of the code's own
    (:func:`ai_code`), to report again a set whose code has changed since it was played (the
    README cites each set with the code that played it). Games of another code than this one
    cannot be played now: a set short of games is reported as it is, incomplete."""

    from engine.ai import SECONDS

    given: Options = dict(options or {})
    for game_id in games:
        for level in levels:
            problem = refusal(game_id, level, given)
            if problem:
                raise ValueError(problem)
    for game_id in games:
        roles = set_roles(game_id, given)
        name = set_name(game_id, given)
        for level in levels:
            if level == EASY_VS_RANDOM:
                total = per_side if per_side is not None else EASY_VS_RANDOM_GAMES
            else:
                total = len(roles) * (per_side if per_side is not None else AI_GAMES_PER_SIDE.get(game_id, 20))
            jobs: list[AiJob] = [(game_id, level, 1 + k // len(roles), roles[k % len(roles)], iterations, given)
                                 for k in range(total)]
            started = time.perf_counter()
            current = ai_code(game_id)
            key: dict[str, Any] = {"game": game_id, "level": level, "iterations": iterations,
                                   "code": code or current}
            if given:
                key["options"] = given
            held = ledger.games(key) if ledger is not None else {}
            earlier = [held[(j[2], j[3])] for j in jobs if (j[2], j[3]) in held]
            # another code's games are the ledger's only: this code cannot play them
            todo = [j for j in jobs if (j[2], j[3]) not in held] if key["code"] == current else []
            speed = 1.0
            if ledger is not None and todo and held and (stop_at is None or time.perf_counter() < stop_at):
                speed = round(machine_speed(next(iter(held.values()))), 3)
                print(f"bench --ai: {name} {level}: this machine takes {speed:.2f} times the CPU time of "
                      "the machine of the set's first game", file=sys.stderr, flush=True)
            keep = None if ledger is None else (lambda game, key=key, speed=speed: ledger.add(key, game, speed))
            # the games played now are judged on this machine's speed, as the ledger keeps them
            done = earlier + [dict(g, speed=speed) for g in play_ai_jobs(todo, workers, f"{name} {level}", keep,
                                                                          stop_at)]
            if not done:
                out(skipped(f"ai.winrate.{name}.{level}", "no game finished before --stop-after"))
                continue
            wins = sum(1 for g in done if g["winners"] == [g["ai_role"]])
            shared = sum(1 for g in done if g["ai_role"] in g["winners"] and len(g["winners"]) > 1)
            # a draw needs more than one role that can win: solo, the one seat alone is a win
            draws = sum(1 for g in done if g["finished"] and len(roles) > 1 and len(g["winners"]) == len(roles))
            points = sum(credit(g) for g in done)
            low, high = wilson(points, len(done))
            rate = points / len(done)
            by_side = {r: {"wins": sum(1 for g in done if g["ai_role"] == r and g["winners"] == [r]),
                           "games": sum(1 for g in done if g["ai_role"] == r)} for r in roles}
            target = win_target(name, level, bool(given))
            line: dict[str, Any] = {"name": f"ai.winrate.{name}.{level}", "unit": "fraction",
                                    "rate": round(rate, 4), "ci95": [round(low, 4), round(high, 4)],
                                    "wins": wins, "shared": shared, "draws": draws, "games": len(done),
                                    "seats": len(roles), "by_side": by_side,
                                    "unfinished": sum(1 for g in done if not g["finished"]),
                                    "wall_s": round(time.perf_counter() - started, 1)}
            if ledger is not None:
                line |= {"ledger": str(ledger.path), "code": key["code"], "from_ledger": len(earlier),
                         "complete": len(done) == len(jobs), "set": len(jobs)}
                if key["code"] != current:
                    line["current_code"] = current
            automaton = engine.get(game_id).SOLO_OPPONENT if len(roles) == 1 else None
            opponent = automaton.capitalize() if automaton else "easy"
            if given:
                line["options"] = given
            if level == EASY_VS_RANDOM:
                line |= {"player": "easy", "opponent": "random"}
            elif level == EASY:
                line |= {"player": "easy", "opponent": opponent}
            else:
                line |= {"opponent": opponent, "iterations": iterations or "level default"}
            if target is not None:
                line["target"] = f">= {target:g}"
                line["meets_target"] = rate >= target
            out(line)
            think = [t for g in done for t in g["think"]]
            if think:
                cpu = [t for g in done for t in g["cpu"]]
                budget = SECONDS.get(level) if iterations is None else None
                machines = by_machine(done, budget)
                extra: dict[str, Any] = {"machines": machines} if len(machines) > 1 else {}
                out(figure(f"ai.think_s.{name}.{level}", "s", think,
                           **think_budget(think, cpu, budget), workers=workers, **extra))
            else:
                out(skipped(f"ai.think_s.{name}.{level}", "no decision had more than one option"))


