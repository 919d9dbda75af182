"""The command line of the web front end: ``alcazaba web`` and ``alcazaba web-link``, and the
pages served inside ``alcazaba run`` when ``WEB_PORT`` is set. Imported by ``bot.cli`` when it
builds its parser, so this module imports nothing heavy until a command runs."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from bot.settings import Settings, url_for_db_option

log = logging.getLogger(__name__)

Add = Callable[[str, Callable[[argparse.Namespace, Settings], int], str], argparse.ArgumentParser]


def add_commands(add: Add) -> None:
    """Register ``web`` and ``web-link`` with the command line's ``add``."""
    p = add("web", cmd_web, "serve the games' web pages (read-only: spectators, replays, players' own views)")
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL (default: DATABASE_URL)")
    p.add_argument("--host", help="address to listen on (default: WEB_HOST, 127.0.0.1)")
    p.add_argument("--port", type=int, help="port to listen on (default: WEB_PORT, else 8080)")

    p = add("web-link", cmd_web_link, "print a game's web address (needs WEB_BASE_URL)")
    p.add_argument("game_id", metavar="GAME_ID", type=int)
    p.add_argument("--db", metavar="PATH", help="SQLite file or database URL")


def cmd_web(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli import _require_existing_db
    from bot.web.app import serve

    url = url_for_db_option(args.db, settings)
    _require_existing_db(url)
    settings = settings.model_copy(update={"discord_token": None})  # the web process holds no Discord token
    _require_web_tables(url)
    host = args.host or settings.web_host
    port = args.port or settings.web_port or 8080
    print(f"web pages at http://{host}:{port}/ (Ctrl+C stops)", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, url, host, port))
    return 0


def _require_web_tables(url: str) -> None:
    """The pages only read: they do not migrate a database an older release left behind."""
    import sqlalchemy as sa

    from bot.cli import CommandError, _with_service

    async def work(service: Any) -> int:
        try:
            await service.game_of_public_id("")
        except sa.exc.DBAPIError:
            raise CommandError("the database has no web tables yet (migration 0011): start `alcazaba run` of "
                               "this release once, which migrates it, then `alcazaba web`") from None
        return 0

    _with_service(url, work)


def cmd_web_link(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli import CommandError, _require_existing_db, _with_service
    from bot.service import GameNotFound
    from bot.web.tokens import game_link

    if not settings.web_base_url:
        raise CommandError("WEB_BASE_URL is not set: set it to the public address of the web pages "
                           "(e.g. https://games.example.org)")
    url = url_for_db_option(args.db, settings)
    _require_existing_db(url)

    async def work(service: Any) -> int:
        try:
            public_id = await service.public_id(args.game_id)
        except GameNotFound as exc:
            raise CommandError(str(exc)) from None
        print(game_link(settings, public_id))
        return 0

    return _with_service(url, work)


def start_in_background(settings: Settings) -> threading.Thread | None:
    """Inside ``alcazaba run``: serve the web pages on ``WEB_PORT`` from a thread of their own
    (its own event loop and its own service), so the bot's loop never waits for a page."""
    if settings.web_port is None:
        return None
    from bot.web.app import serve

    def work() -> None:
        try:
            asyncio.run(serve(settings, settings.db_url, settings.web_host, settings.web_port or 8080))
        except Exception:
            log.exception("the web pages stopped")

    thread = threading.Thread(target=work, name="web-pages", daemon=True)
    thread.start()
    return thread
