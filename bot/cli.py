"""``alcazaba``: the command line of the server (names as in docs/architecture.md, "Command line").

Exit status: 0 success; 1 the check or the command failed on its data (a game file that
does not replay, a game not found); 2 a usage or set-up problem (bad arguments, a missing
front end, a database that is not there).

This module parses the command line, runs the command and turns a set-up failure into one
sentence; the commands themselves live in :mod:`bot.commands`.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import logging
import sqlite3
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import ValidationError

from bot.commands.base import CommandError as CommandError
from bot.commands.base import _call, _optional_module, _safe_url
from bot.commands.base import _require_existing_db as _require_existing_db
from bot.commands.base import _with_service as _with_service
from bot.commands.base import parse_options as parse_options
from bot.commands.games import (
    cmd_backup,
    cmd_check,
    cmd_export,
    cmd_import,
    cmd_ratings,
    cmd_replay_check,
    cmd_upgrade_check,
)
from bot.commands.play import _ask_options as _ask_options
from bot.commands.play import cmd_local, cmd_run, cmd_sync
from bot.commands.play import parse_levels as parse_levels
from bot.settings import Settings, url_for_db_option

log = logging.getLogger("alcazaba")


BENCH_WHAT = ("the benchmark (benchmarks/ of a clone; an installed wheel does not ship it: "
              "run `alcazaba bench` from a clone of the repository after `make install`)")


def cmd_bench(args: argparse.Namespace, settings: Settings) -> int:
    bench = _optional_module("benchmarks.bench", BENCH_WHAT)
    return _call(bench.main, args)


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
