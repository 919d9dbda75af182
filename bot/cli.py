"""``alcazaba``: the command line of the server (names as in docs/architecture.md, "Command line").

Exit status: 0 success; 1 the check or the command failed on its data (a game file that
does not replay, a game not found); 2 a usage or set-up problem (bad arguments, a missing
front end, a database that is not there).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import inspect
import json
import logging
import os
import sqlite3
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from bot.settings import Settings, url_for_db_option

if TYPE_CHECKING:
    from engine.api import GameModule

log = logging.getLogger("alcazaba")


class CommandError(Exception):
    """Stops a command with a message for the operator and an exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


# --------------------------------------------------------------------------- helpers


def _open_service(url: str) -> Any:
    from bot.service import GameService

    return GameService.open(url)


def _require_existing_db(url: str) -> None:
    """Read-only commands must not create an empty database where the operator mistyped."""
    from bot.db import sqlite_path

    path = sqlite_path(url)
    if path is not None and not path.exists():
        raise CommandError(f"there is no database at {path}: set DATA_DIR (or DATABASE_URL, or --db) to "
                           "where the database is")


def _migrate(url: str) -> None:
    from bot.db import migrate

    migrate(url)


def _with_service(url: str, work: Callable[[Any], Coroutine[Any, Any, int]]) -> int:
    async def runner() -> int:
        service = _open_service(url)
        try:
            return await work(service)
        finally:
            await service.close()

    return asyncio.run(runner())


BENCH_WHAT = ("the benchmark (benchmarks/ of a clone; an installed wheel does not ship it: "
              "run `alcazaba bench` from a clone of the repository after `make install`)")


def _optional_module(name: str, what: str) -> Any:
    """Import a part another package provides (Discord front end, benchmarks) on demand."""
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise CommandError(f"{what} is not available in this installation ({name} is missing)") from None
        raise CommandError(f"{what} cannot start: {exc}") from None


def _call(function: Callable[..., Any], *args: Any) -> int:
    """Call a front end's entry point, sync or async; its int result is the exit status."""
    outcome = function(*args)
    if inspect.isawaitable(outcome):
        outcome = asyncio.run(_await(outcome))
    return outcome if isinstance(outcome, int) else 0


async def _await(awaitable: Any) -> Any:
    return await awaitable


# --------------------------------------------------------------------------- commands


def cmd_run(args: argparse.Namespace, settings: Settings) -> int:
    url = settings.db_url
    if settings.discord_token is None and not _interactive():
        raise CommandError(
            "DISCORD_TOKEN is not set and there is no terminal to open the terminal table on: set "
            "DISCORD_TOKEN to the bot's token (docker run -e DISCORD_TOKEN=...), or run with a terminal "
            "(docker run -it ...), or play a scripted game with the local command")
    _migrate(url)
    log.info("database ready at %s", _safe_url(url))
    _upgrade_check_at_start(url)
    _optional_module("bot.web.commands", "the web pages").start_in_background(settings)  # WEB_PORT set
    if settings.discord_token is not None:
        front = _optional_module("bot.discord", "the Discord front end")
        runner = getattr(front, "run", None)
        if runner is None:
            raise CommandError("the Discord front end offers no run(settings)")
        return _call(runner, settings)
    import engine

    games = sorted(engine.GAMES)
    print("DISCORD_TOKEN is not set: opening the terminal table instead of the Discord bot.")
    default = settings.default_game if settings.default_game in engine.GAMES else next(iter(engine.GAMES))
    try:
        game_id = _ask(f"Game to play ({', '.join(games)}) [{default}]: ", default,
                       lambda g: None if g in engine.GAMES else f"There is no game {g!r}: choose one of {', '.join(games)}.")
        options = _ask_options(engine.get(game_id))
        roles = engine.get(game_id).roles({**_default_options(game_id), **options})
        answer = _ask(f"Seats you play ({', '.join(roles)}, comma-separated; 'all' = hot-seat, 'none' = watch)"
                      f" [{roles[0]}]: ", roles[0], lambda a: _seat_problem(a, roles)).lower()
    except EOFError:
        return 0
    if answer == "all":
        seats, autoplay = list(roles), False
    elif answer == "none":
        seats, autoplay = [], True
    else:
        seats, autoplay = [s.strip() for s in answer.split(",") if s.strip()], False
    return _local(settings, url, game_id, seats, autoplay, None, None, options, {})


_TRUE, _FALSE = ("true", "yes", "on", "y", "1"), ("false", "no", "off", "n", "0")


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _ask_options(game: GameModule) -> dict[str, Any]:
    """The options of a new game, asked from what the game declares it lets vary (its
    ``OPTIONS``: the number of players, variants): each shown with its choices and default,
    then one answer, ``name=value`` pairs, Enter for the defaults. {} for a game with none."""
    if not game.OPTIONS:
        return {}
    print(f"{game.title} lets these vary:")
    for name, spec in game.OPTIONS.items():
        kind = spec.get("type") or type(spec["default"]).__name__
        choices = spec.get("choices")
        allowed = "/".join(_option_text(c) for c in choices) if choices else ("yes/no" if kind == "bool" else kind)
        help_text = " ".join(str(spec.get("help") or "").split())
        line = f"  {name} ({allowed}, default {_option_text(spec['default'])})" + (f": {help_text}" if help_text else "")
        print(line if len(line) <= 160 else line[:159] + "…")
    example = next(iter(game.OPTIONS))
    chosen: dict[str, Any] = {}

    def problem(answer: str) -> str | None:
        chosen.clear()
        try:
            chosen.update(_option_values(game, answer))
        except ValueError as exc:
            return str(exc)
        return None

    _ask(f"Options to change (e.g. {example}=..., several separated by spaces) [none]: ", "", problem)
    return dict(chosen)


def _option_values(game: GameModule, answer: str) -> dict[str, Any]:
    """``name=value`` pairs typed at the terminal, each checked against the game's ``OPTIONS``
    (ValueError: a sentence saying what is wrong)."""
    values: dict[str, Any] = {}
    for pair in answer.replace(",", " ").split():
        name, sep, raw = pair.partition("=")
        spec = game.OPTIONS.get(name)
        if spec is None or not sep:
            raise ValueError(f"Write name=value with one of: {', '.join(game.OPTIONS)}.")
        kind = spec.get("type") or type(spec["default"]).__name__
        value: Any = raw
        if kind == "bool":
            if raw.lower() not in _TRUE + _FALSE:
                raise ValueError(f"{name} is yes or no.")
            value = raw.lower() in _TRUE
        elif kind in ("int", "float"):
            try:
                value = int(raw) if kind == "int" else float(raw)
            except ValueError:
                raise ValueError(f"{name} is a number.") from None
        choices = spec.get("choices")
        if choices is not None and value not in choices:
            raise ValueError(f"{name} is one of {', '.join(_option_text(c) for c in choices)}.")
        values[name] = value
    return values


def _interactive() -> bool:
    """Whether a person can answer the table's questions: stdin is a terminal. A container
    started without ``-it`` (or with stdin closed) has none, and the table would read end of
    file at once and quit in silence."""
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def _ask(question: str, default: str, problem: Callable[[str], str | None]) -> str:
    """Ask until the answer is acceptable: a typo gets a sentence and the question again,
    never an exit (EOFError ends the conversation)."""
    while True:
        answer = input(question).strip() or default
        trouble = problem(answer)
        if trouble is None:
            return answer
        print(trouble)


def _seat_problem(answer: str, roles: list[str]) -> str | None:
    if answer.lower() in ("all", "none"):
        return None
    unknown = [s.strip() for s in answer.lower().split(",") if s.strip() and s.strip() not in roles]
    if unknown:
        return f"There is no seat {unknown[0]!r}: the seats are {', '.join(roles)} (or 'all', 'none')."
    return None


def _default_options(game_id: str) -> dict[str, Any]:
    import engine

    return engine.get(game_id).defaults()


def _local(settings: Settings, url: str, game_id: str, seats: list[str], autoplay: bool, seed: int | None,
           resume: int | None, options: dict[str, Any], levels: dict[str | None, str], db: str | None = None) -> int:
    from bot.local import LocalError, play, program_name
    from bot.service import ServiceError
    from bot.thinking import InlineThinker

    async def work(service: Any) -> int:
        try:
            return await play(service, game_id, seats=seats, autoplay=autoplay, seed=seed, resume=resume,
                              images_dir=settings.images_dir, options=options, program=program_name(),
                              levels=levels, thinker=InlineThinker(settings.ai_iteration_cap),
                              db=db if db is None or "://" in db else os.path.abspath(db))
        except (LocalError, ServiceError) as exc:
            raise CommandError(str(exc)) from None

    return _with_service(url, work)


def cmd_local(args: argparse.Namespace, settings: Settings) -> int:
    options = parse_options(args.option or [])
    if args.players is not None:
        options["players"] = args.players
    if options and args.resume is not None:
        raise CommandError("--option sets up a new game; a resumed game keeps the options it was created with")
    levels = parse_levels(args.level or [])
    url = url_for_db_option(args.db, settings)
    _migrate(url)
    return _local(settings, url, args.game, args.seat or [], args.autoplay, args.seed, args.resume, options, levels,
                  args.db or None)


def parse_levels(given: Sequence[str]) -> dict[str | None, str]:
    """``--level LEVEL`` (every seat of the built-in player) and ``--level ROLE=LEVEL`` (one
    seat; repeat), as a level per role, ``None`` for every role not named. Whether a role
    exists is the game's to say (``bot.local``)."""
    from engine.ai import LEVELS

    levels: dict[str | None, str] = {}
    for item in given:
        role, sep, level = item.partition("=")
        key: str | None = role.strip() if sep else None
        level = (level if sep else role).strip().lower()
        if level not in LEVELS:
            raise CommandError(f"--level {item}: there is no level {level!r}; the levels are {', '.join(LEVELS)}")
        if sep and not key:
            raise CommandError(f"--level {item}: name a role before '=' (e.g. christian=hard)")
        if key in levels and levels[key] != level:
            raise CommandError(f"--level gives {'every seat' if key is None else key} two levels "
                               f"({levels[key]} and {level})")
        levels[key] = level
    return levels


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``--option key=value`` pairs: a value is JSON where it parses (``true``, ``3``,
    ``"x"``), else the text itself. Whether the game knows the option and accepts the value
    is the service's decision (GameService._options), not repeated here."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise CommandError(f"--option {pair!r}: write KEY=VALUE, e.g. --option advanced=true")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options[key.strip()] = value
    return options


def cmd_check(args: argparse.Namespace, settings: Settings) -> int:
    """The engine contract check (engine/check.py) over random legal games, one line per
    failure (and per game with --verbose), one summary line per game."""
    import engine
    from bot.service import GameService, ServiceError
    from engine.check import check

    wanted = args.game or sorted(engine.GAMES)
    unknown = [g for g in wanted if g not in engine.GAMES]
    if unknown:
        raise CommandError(f"unknown game {unknown[0]!r}; known games: {', '.join(sorted(engine.GAMES))}")
    if args.games < 1:
        raise CommandError("--games must be at least 1")
    given = parse_options(args.option or [])
    failures = 0
    for game_id in wanted:
        module = engine.get(game_id)
        try:
            options = GameService._options(module, given)
        except ServiceError as exc:
            raise CommandError(str(exc)) from None
        shown = f" {json.dumps(given, sort_keys=True)}" if given else ""
        started = time.perf_counter()
        steps: list[int] = []
        for report in check(module, games=args.games, seed=args.seed, options=options, deep_every=args.deep_every):
            if report.ok:
                steps.append(report.steps)
                if args.verbose:
                    print(f"ok   {game_id} seed={report.seed}: {report.steps} steps, "
                          f"result={json.dumps(report.result, sort_keys=True)[:100]}", flush=True)
            else:
                failures += 1
                print(f"FAIL {game_id}{shown} seed={report.seed}: {report.problem}", flush=True)
        seconds = time.perf_counter() - started
        median = f"; steps median {statistics.median(steps):.0f}" if steps else ""
        print(f"summary {game_id}{shown}: {len(steps)}/{args.games} games ok (seeds {args.seed}-"
              f"{args.seed + args.games - 1}){median}; {seconds:.1f}s", flush=True)
    print(f"{'FAIL' if failures else 'PASS'}: {failures} failure(s)")
    return 1 if failures else 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from bot.service import GameNotFound

    url = url_for_db_option(args.db, settings)
    _require_existing_db(url)
    _migrate(url)

    async def work(service: Any) -> int:
        try:
            data = await service.export(args.game_id)
        except GameNotFound as exc:
            raise CommandError(str(exc), 1) from None
        json.dump(data, sys.stdout, indent=1, sort_keys=False)
        sys.stdout.write("\n")
        return 0

    return _with_service(url, work)


def _read_file(name: str) -> Any:
    """A game file's JSON, or a CommandError of one sentence (status 1 when the file is at
    fault): too big, not UTF-8, not JSON, nested too deeply for the parser."""
    from bot.service.archive import MAX_DEPTH, MAX_FILE_BYTES

    shown = _shown(name)
    try:
        if name == "-":
            raw = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        else:
            with Path(name).open("rb") as file:
                raw = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise CommandError(f"cannot read {shown}: {exc.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise CommandError(f"{shown} refused: a game file has at most {MAX_FILE_BYTES // (1024 * 1024)} MiB "
                           f"({MAX_FILE_BYTES} bytes), and this one is longer.", 1)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{shown} is not UTF-8 text (byte {exc.start}).", 1) from None
    try:
        return json.loads(text, parse_constant=_no_constant, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{shown} is not JSON: {exc}.", 1) from None
    except RecursionError:
        raise CommandError(f"{shown} refused: its JSON nests far deeper than the {MAX_DEPTH} levels a game file "
                           "has.", 1) from None
    except ValueError as exc:  # from the two below
        raise CommandError(f"{shown} refused: {exc}.", 1) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"it holds {name}, which is not a JSON number")


def _int(text: str) -> int:
    """An integer of the file; one longer than 64 bits can hold is refused before Python
    converts it (a hostile file may hold millions of digits)."""
    if len(text.lstrip("-")) > 19:
        raise ValueError(f"it holds an integer of {len(text.lstrip('-'))} digits ({_cut(text, 24)}), more than 64 "
                         "bits hold")
    return int(text)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _shown(name: str) -> str:
    """A file name in a refusal: a long path keeps its end (the file's own name)."""
    if name == "-":
        return "the file on standard input"
    return name if len(name) <= 80 else "…" + name[-79:]


REFUSAL_LIMIT = 300  # characters of the one line that refuses a game file


def _refusal(command: str, text: str) -> str:
    """The text after ``alcazaba COMMAND: ``, so that the whole line has at most
    REFUSAL_LIMIT characters (the service already cuts what it quotes; this is the bound)."""
    sentence = " ".join(text.split())
    if not sentence.endswith((".", "…")):
        sentence += "."
    return _cut(sentence, REFUSAL_LIMIT - len(f"alcazaba {command}: "))


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from bot.service import ImportRefused

    data = _read_file(args.file)
    url = url_for_db_option(args.db, settings)
    _migrate(url)

    async def work(service: Any) -> int:
        try:
            pk = await service.import_game(data)
        except ImportRefused as exc:
            raise CommandError(_refusal("import", f"{_shown(args.file)} refused: {exc}"), 1) from None
        print(pk)
        return 0

    return _with_service(url, work)


def cmd_ratings(args: argparse.Namespace, settings: Settings) -> int:
    """``ratings rebuild``: every rating made again from the games counted, in order (prints
    what differed, exit 1 if anything did); ``ratings rate GAME_ID [--unrated]``: a manager's
    mark (an imported game counts only so)."""
    from bot.service import GameNotFound

    url = url_for_db_option(args.db, settings)
    _require_existing_db(url)
    _migrate(url)

    async def work(service: Any) -> int:
        if args.action == "rebuild":
            report = await service.rebuild_ratings()
            print(f"{report.games} rated games replayed, {report.ratings} ratings written, "
                  f"{len(report.differed)} differed from the stored values")
            for name in report.differed:
                print(f"  differed: {name}")
            return 1 if report.differed else 0
        if args.game_id is None:
            raise CommandError("ratings rate needs a GAME_ID")
        try:
            why = await service.set_rated(args.game_id, not args.unrated)
        except GameNotFound as exc:
            raise CommandError(str(exc), 1) from None
        print(f"game {args.game_id}: " + ("unrated" if args.unrated else "rated" if why is None
                                           else f"marked rated, but it does not count: {why}"))
        return 0

    return _with_service(url, work)


def cmd_replay_check(args: argparse.Namespace, settings: Settings) -> int:
    from bot.service import GameNotFound

    target = args.target
    source: int | dict[str, Any]
    url = url_for_db_option(args.db, settings)
    if target.isdigit() and not Path(target).exists():
        source = int(target)
        _require_existing_db(url)
        _migrate(url)
    else:
        from bot.service import ImportRefused
        from bot.service.archive import as_game_file

        try:
            source = as_game_file(_read_file(target))
        except ImportRefused as exc:
            print(f"replay-check FAILED: {_refusal('replay-check', str(exc))}", file=sys.stderr)
            return 1
        url = "sqlite+aiosqlite:///:memory:"  # a file needs no database

    async def work(service: Any) -> int:
        try:
            report = await service.replay_check(source)
        except GameNotFound as exc:
            raise CommandError(str(exc), 1) from None
        if report.ok:
            print(report.message)
            return 0
        print(f"replay-check FAILED: {_refusal('replay-check', report.message)}", file=sys.stderr)
        return 1

    return _with_service(url, work)


def _upgrade_check_at_start(url: str) -> None:
    """``run``: replay the games whose rules changed since they were last checked, once the
    schema is current, and log the summary (a game that no longer replays carries on; the
    check records it)."""
    from bot.upgrade import check_at_start

    async def work(service: Any) -> int:
        report = await check_at_start(service)
        log.info("%s", report.summary())
        for game in report.games:
            if game.outcome != "identical":
                log.warning("%s", game.public)
        return 0

    try:
        _with_service(url, work)
    except Exception:  # the bot still serves its players; the operator reads why in the log
        log.exception("the upgrade check failed")


def cmd_upgrade_check(args: argparse.Namespace, settings: Settings) -> int:
    from bot.upgrade import check_games

    url = url_for_db_option(args.db, settings)
    _require_existing_db(url)
    _migrate(url)

    async def work(service: Any) -> int:
        report = await check_games(service)
        for game in report.games:
            print(game.public)
            if args.details and game.details:
                print(f"  details (may show hidden information): {game.details}")
        print(report.summary())
        return 0 if report.ok else 1

    return _with_service(url, work)


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    bench = _optional_module("benchmarks.bench", BENCH_WHAT)
    return _call(bench.main, args)


def cmd_sync(args: argparse.Namespace, settings: Settings) -> int:
    front = _optional_module("bot.discord", "the Discord front end")
    sync = getattr(front, "sync", None)
    if sync is None:
        raise CommandError("the Discord front end offers no sync(settings)")
    if settings.discord_token is None:
        raise CommandError("DISCORD_TOKEN is not set: syncing slash commands needs the bot's token")
    return _call(sync, settings)


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    from bot.db import sqlite_path

    url = url_for_db_option(args.db, settings)
    source = sqlite_path(url)
    if source is None:
        raise CommandError(
            "this database is not a SQLite file; back up PostgreSQL with pg_dump, e.g.\n"
            f"  pg_dump --format=custom --file {args.path} '{_pg_dump_url(url)}'\n"
            "and restore with pg_restore --clean --dbname '<url>' FILE"
        )
    if not source.exists():
        raise CommandError(f"there is no database at {source}")
    target = Path(args.path)
    if target.is_dir():
        target = target / f"alcazaba-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}.db"
    if target.exists() and not args.force:
        raise CommandError(f"{target} exists; use --force to overwrite it")
    partial = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial.unlink(missing_ok=True)
        dst = sqlite3.connect(partial)
    except (OSError, sqlite3.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CommandError(f"cannot write the backup to {target} ({reason}): give a PATH in a folder "
                           "this user may write to") from exc
    # The online backup API copies a consistent snapshot while the bot keeps writing.
    try:
        src = sqlite3.connect(source, timeout=30)
        try:
            src.backup(dst)
            check = dst.execute("PRAGMA integrity_check").fetchone()[0]
            games = dst.execute("SELECT count(*) FROM game").fetchone()[0]
        finally:
            src.close()
    except sqlite3.Error as exc:
        partial.unlink(missing_ok=True)
        raise CommandError(f"cannot back up {source} ({exc}): is it an Alcazaba database? "
                           "Check --db or DATABASE_URL") from exc
    finally:
        dst.close()
    if check != "ok":
        partial.unlink(missing_ok=True)
        raise CommandError(f"the backup failed its integrity check: {check}", 1)
    partial.replace(target)
    print(f"backup written: {target} ({games} games)")
    return 0


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _pg_dump_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=True)


# --------------------------------------------------------------------------- parser


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(prog="alcazaba", description="Alcazaba: turn server for historical board games.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parsers: dict[str, argparse.ArgumentParser] = {}

    def add(name: str, handler: Callable[[argparse.Namespace, Settings], int], help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        parsers[name] = p
        return p

    add("run", cmd_run, "migrate the database, then run the Discord bot (terminal table without DISCORD_TOKEN)")

    p = add("local", cmd_local, "play at the terminal (hot-seat or against the built-in player)")
    p.add_argument("game", metavar="GAME", help="game id, e.g. navas")
    p.add_argument("--seat", action="append", metavar="ROLE", help="a role you play (repeat; default: all)")
    p.add_argument("--autoplay", action="store_true", help="the built-in player takes every seat")
    p.add_argument("--level", action="append", metavar="[ROLE=]LEVEL",
                   help="the built-in player's level, easy, normal or hard: for every seat, or ROLE=LEVEL for one "
                        "(repeat); default easy")
    p.add_argument("--players", type=int, metavar="N",
                   help="number of seats of a new game, where the game lets it vary (same as --option players=N)")
    p.add_argument("--seed", type=int, help="random seed of a new game")
    p.add_argument("--resume", type=int, metavar="ID", help="continue the stored game ID")
    p.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="a game option of a new game (repeat), e.g. advanced=true; the value is JSON where it parses")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL (default: DATABASE_URL)")

    p = add("export", cmd_export, "print a game as JSON (seed, options, moves)")
    p.add_argument("game_id", metavar="GAME_ID", type=int)
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")

    p = add("import", cmd_import, "store an exported game; prints the new game id")
    p.add_argument("file", metavar="FILE", help="JSON file from export ('-' = stdin)")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")

    p = add("replay-check", cmd_replay_check, "replay a game's log; exit 0 only if it reproduces the stored state")
    p.add_argument("target", metavar="FILE|GAME_ID")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")

    p = add("upgrade-check", cmd_upgrade_check,
            "replay every game under the installed rules; exit 0 only if every one replays identically")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")
    p.add_argument("--details", action="store_true",
                   help="also print each divergence's moves and state keys (may show hidden information)")

    p = add("ratings", cmd_ratings, "ratings: rebuild them all from the rated games, or mark a game rated/unrated")
    p.add_argument("action", choices=("rebuild", "rate"))
    p.add_argument("game_id", metavar="GAME_ID", type=int, nargs="?", help="the game to mark (rate)")
    p.add_argument("--unrated", action="store_true", help="rate: mark the game unrated")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")

    p = add("bench", cmd_bench, "benchmark figures, one JSON object per line")
    p.add_argument("--quick", action="store_true", help="a short run")

    p = add("backup", cmd_backup, "copy the SQLite database consistently while the bot runs")
    p.add_argument("path", metavar="PATH", help="file (or directory) to write")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")
    p.add_argument("--force", action="store_true", help="overwrite PATH")

    add("sync", cmd_sync, "register the slash commands with Discord")

    p = add("check", cmd_check, "the engine contract check: random legal games of each game, exit 1 on a failure")
    p.add_argument("game", metavar="GAME", nargs="*", help="game id(s); default: every registered game")
    p.add_argument("--games", type=int, default=10, help="games per game id (default 10)")
    p.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    p.add_argument("--option", action="append", metavar="KEY=VALUE", help="a game option (repeat)")
    p.add_argument("--deep-every", type=int, default=25, metavar="N",
                   help="the costly checks (views, JSON, refusals, redeal) every N steps (default 25)")
    p.add_argument("--verbose", action="store_true", help="one line per game, not only per failure")
    _optional_module("bot.web.commands", "the web pages").add_commands(add)  # web, web-link
    return parser, parsers


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser, parsers = build_parser()
    if args_list and args_list[0] == "bench":
        # The benchmark may add its own options; it is imported only when asked for.
        try:
            extend = getattr(_optional_module("benchmarks.bench", BENCH_WHAT), "add_arguments", None)
        except CommandError:
            extend = None
        if extend is not None:
            extend(parsers["bench"])
    args = parser.parse_args(args_list)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        settings = Settings()
    except ValidationError as exc:
        print(f"alcazaba: bad configuration:\n{exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    if settings.log_level != "DEBUG":
        logging.getLogger("alembic").setLevel(logging.WARNING)
        logging.getLogger("discord.client").addFilter(_no_voice_warning)
    try:
        status: int = args.handler(args, settings)
        return status
    except CommandError as exc:
        print(f"alcazaba {args.command}: {exc}", file=sys.stderr)
        _debug_traceback(exc, settings)
        return exc.status
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        problem = setup_problem(exc, args, settings)
        if problem is None:
            raise  # a bug, not a set-up problem: the traceback is what a report needs
        print(f"alcazaba {args.command}: {problem}", file=sys.stderr)
        _debug_traceback(exc, settings)
        return 2


def _no_voice_warning(record: logging.LogRecord) -> bool:
    """discord.py warns at every start that voice support (PyNaCl, davey) is missing; the bot
    never joins a voice channel, so the warning only worries operators."""
    return "voice will NOT be supported" not in record.getMessage()


def _debug_traceback(exc: BaseException, settings: Settings) -> None:
    """The traceback behind a set-up problem, for LOG_LEVEL=DEBUG only."""
    cause = exc.__cause__ if isinstance(exc, CommandError) else exc
    if settings.log_level == "DEBUG" and cause is not None:
        traceback.print_exception(cause, file=sys.stderr)


def _is_sqlite(url: str) -> bool:
    from bot.db import is_sqlite

    return is_sqlite(url)


def _chain(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def setup_problem(exc: BaseException, args: argparse.Namespace, settings: Settings) -> str | None:
    """One sentence naming the setting to change, for the failures that come from the
    machine's set-up rather than from a bug: a data folder or database that cannot be
    opened, a Discord that cannot be reached or refuses the token. None for anything else."""
    import sqlalchemy.exc

    chain = _chain(exc)
    db_option = getattr(args, "db", None)
    db_setting = "--db" if db_option else ("DATABASE_URL" if settings.database_url else "DATA_DIR (or DATABASE_URL)")
    url = url_for_db_option(db_option, settings)
    where = _safe_url(url)
    discord_problem = _discord_problem(chain, args, settings)
    if discord_problem is not None:
        return discord_problem
    for link in chain:
        if isinstance(link, sqlalchemy.exc.DBAPIError | sqlite3.Error):
            reason = str(getattr(link, "orig", None) or link).splitlines()[0]
            return (f"cannot open the database {where} ({reason}): set {db_setting} to a database this user "
                    "can read and write")
    for link in chain:
        if isinstance(link, OSError) and link.filename is not None:
            reason = link.strerror or errno.errorcode.get(link.errno or 0, str(link))
            inside_data = _is_within(Path(str(link.filename)), settings.data_dir) or not db_option
            setting = "DATA_DIR" if inside_data and not settings.database_url and not db_option else db_setting
            return (f"cannot use {link.filename} ({reason}): set {setting} to a folder this user can create "
                    "and write to")
    if not _is_sqlite(url):
        for link in chain:
            if isinstance(link, OSError | asyncio.TimeoutError):
                return f"cannot reach the database {where} ({link}): check {db_setting} and that the server runs"
    return None


def _is_within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError):
        return False
    return True


def _discord_problem(chain: list[BaseException], args: argparse.Namespace, settings: Settings) -> str | None:
    if args.command not in ("run", "sync") or settings.discord_token is None:
        return None
    try:
        import aiohttp
        import discord
    except ImportError:
        return None
    where = settings.discord_api_base or "discord.com"
    for link in chain:
        if isinstance(link, discord.LoginFailure):
            return ("Discord refused the token: DISCORD_TOKEN is wrong or was reset; copy the bot's token from "
                    "the Bot tab of https://discord.com/developers/applications")
        if isinstance(link, discord.PrivilegedIntentsRequired):
            return ("Discord refused a privileged intent: leave the three Privileged Gateway Intents off on the "
                    "Bot tab of the developer portal (the bot needs none)")
        if isinstance(link, aiohttp.ClientConnectionError | discord.GatewayNotFound | asyncio.TimeoutError):
            return (f"cannot reach Discord at {where} ({link}): check this machine's network connection "
                    "(and DISCORD_API_BASE / DISCORD_GATEWAY_URL if you set them)")
    return None


if __name__ == "__main__":
    sys.exit(main())
