"""What every ``alcazaba`` command shares: the error that stops a command with a message
and an exit status, opening the service and the database, importing an optional part (the
Discord front end, the web pages, the benchmarks) on demand, and ``--option`` pairs."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Coroutine, Sequence
from typing import Any


class CommandError(Exception):
    """Stops a command with a message for the operator and an exit status."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


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


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)

