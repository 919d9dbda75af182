"""``alcazaba``: the command line of the server (names as in DESIGN.md, "Command line").

Exit status: 0 success; 1 the check or the command failed on its data (a game file that
does not replay, a game not found); 2 a usage or set-up problem (bad arguments, a missing
front end, a database that is not there).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import logging
import sqlite3
import sys
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.settings import Settings, url_for_db_option

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
        raise CommandError(f"there is no database at {path}")


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
    _migrate(url)
    log.info("database ready at %s", _safe_url(url))
    if settings.discord_token is not None:
        front = _optional_module("bot.discord", "the Discord front end")
        runner = getattr(front, "run", None)
        if runner is None:
            raise CommandError("the Discord front end offers no run(settings)")
        return _call(runner, settings)
    import engine

    games = sorted(engine.GAMES)
    print("DISCORD_TOKEN is not set: opening the terminal table instead of the Discord bot.")
    default = settings.default_game if settings.default_game in engine.GAMES else games[0]
    try:
        game_id = _ask(f"Game to play ({', '.join(games)}) [{default}]: ", default,
                       lambda g: None if g in engine.GAMES else f"There is no game {g!r}: choose one of {', '.join(games)}.")
        roles = engine.get(game_id).roles(_default_options(game_id))
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
    return _local(settings, url, game_id, seats, autoplay, None, None)


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

    spec = getattr(engine.get(game_id), "OPTIONS", {}) or {}
    return {k: v["default"] for k, v in spec.items() if isinstance(v, dict) and "default" in v}


def _local(settings: Settings, url: str, game_id: str, seats: list[str], autoplay: bool, seed: int | None,
           resume: int | None) -> int:
    from bot.local import LocalError, play
    from bot.service import ServiceError

    async def work(service: Any) -> int:
        try:
            return await play(service, game_id, seats=seats, autoplay=autoplay, seed=seed, resume=resume,
                              images_dir=settings.images_dir)
        except (LocalError, ServiceError) as exc:
            raise CommandError(str(exc)) from None

    return _with_service(url, work)


def cmd_local(args: argparse.Namespace, settings: Settings) -> int:
    url = url_for_db_option(args.db, settings)
    _migrate(url)
    return _local(settings, url, args.game, args.seat or [], args.autoplay, args.seed, args.resume)


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
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"{name} is not JSON: {exc}", 1) from None


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from bot.service import ImportRefused

    data = _read_file(args.file)
    url = url_for_db_option(args.db, settings)
    _migrate(url)

    async def work(service: Any) -> int:
        try:
            pk = await service.import_game(data)
        except ImportRefused as exc:
            raise CommandError(f"{args.file} refused: {exc}", 1) from None
        print(pk)
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
        source = _read_file(target)
        url = "sqlite+aiosqlite:///:memory:"  # a file needs no database

    async def work(service: Any) -> int:
        try:
            report = await service.replay_check(source)
        except GameNotFound as exc:
            raise CommandError(str(exc), 1) from None
        if report.ok:
            print(report.message)
            return 0
        print(f"replay-check FAILED: {report.message}", file=sys.stderr)
        return 1

    return _with_service(url, work)


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    bench = _optional_module("bot.bench", "the benchmark (bot.bench)")
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
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    # The online backup API copies a consistent snapshot while the bot keeps writing.
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            check = dst.execute("PRAGMA integrity_check").fetchone()[0]
            games = dst.execute("SELECT count(*) FROM game").fetchone()[0]
        finally:
            dst.close()
    finally:
        src.close()
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
    p.add_argument("--seed", type=int, help="random seed of a new game")
    p.add_argument("--resume", type=int, metavar="ID", help="continue the stored game ID")
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

    p = add("bench", cmd_bench, "benchmark figures, one JSON object per line")
    p.add_argument("--quick", action="store_true", help="a short run")

    p = add("backup", cmd_backup, "copy the SQLite database consistently while the bot runs")
    p.add_argument("path", metavar="PATH", help="file (or directory) to write")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")
    p.add_argument("--force", action="store_true", help="overwrite PATH")

    add("sync", cmd_sync, "register the slash commands with Discord")
    return parser, parsers


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser, parsers = build_parser()
    if args_list and args_list[0] == "bench":
        # The benchmark may add its own options; it is imported only when asked for.
        try:
            extend = getattr(_optional_module("bot.bench", "the benchmark (bot.bench)"), "add_arguments", None)
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
    try:
        status: int = args.handler(args, settings)
        return status
    except CommandError as exc:
        print(f"alcazaba {args.command}: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
