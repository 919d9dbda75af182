"""The commands on games and their database: the engine contract check, export and import of
game files (a file is refused in one sentence), ratings, replay and upgrade checks, backup."""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.commands.base import CommandError, _migrate, _require_existing_db, _with_service, parse_options
from bot.settings import Settings, url_for_db_option


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


def _pg_dump_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    parsed = make_url(url).set(drivername="postgresql")
    return parsed.render_as_string(hide_password=True)

