"""Live updates: which watched game changed, for the pages' server-sent events.

One watcher per web process, whatever the number of open pages: it reads the change stamp
(``bot.service.web.change_stamp``: the version, the status, the last change and the
deadline) of every game some page watches, in one statement, and wakes the pages of the
games that changed. Not the version alone: a resignation or an abort ends a game without a
move. On SQLite it reads them twice a second (a change made by another process shows within
a second); on PostgreSQL it also LISTENs to the channel that the commits of a step, a
resignation, a forfeit, an abort, a substitution and a new deadline NOTIFY
(``bot.service.transactions.MOVES_CHANNEL``), so it reads at once, and polls only every few
seconds for the changes that do not notify (a seat taken before the start).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from bot.service import GameService
from bot.service.transactions import MOVES_CHANNEL

log = logging.getLogger(__name__)

SQLITE_POLL_S = 0.5
PG_POLL_S = 5.0


class Watcher:
    """Wakes the pages watching a game when its change stamp changes."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._stamps: dict[int, str] = {}
        self._events: dict[int, asyncio.Event] = {}
        self._watchers: dict[int, int] = {}  # game_pk -> pages watching it
        self._task: asyncio.Task[None] | None = None
        self._poke = asyncio.Event()
        self._listener: Any = None
        self.pg = service.db.dialect.name == "postgresql"
        self.closing = False

    async def start(self) -> None:
        if self.pg:
            with contextlib.suppress(Exception):  # no LISTEN: polling alone still updates the pages
                await self._listen()
        self._task = asyncio.create_task(self._run(), name="web-watcher")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._listener is not None:
            with contextlib.suppress(Exception):
                await self._listener.close(timeout=2)

    async def _listen(self) -> None:
        import asyncpg

        db = self.service.db
        cargs, cparams = db.sync_engine.dialect.create_connect_args(db.url)
        for key in ("prepared_statement_cache_size", "prepared_statement_name_func", "async_creator_fn"):
            cparams.pop(key, None)
        self._listener = await asyncpg.connect(*cargs, **cparams)
        await self._listener.add_listener(MOVES_CHANNEL, lambda *_args: self._poke.set())

    async def _run(self) -> None:
        period = PG_POLL_S if self.pg and self._listener is not None else SQLITE_POLL_S
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._poke.wait(), period)
            self._poke.clear()
            watched = list(self._watchers)
            if not watched:
                continue
            try:
                stamps = await self.service.change_stamps(watched)
            except Exception:  # the database is away for a moment: the next round tries again
                log.warning("web: reading the watched games' change stamps failed", exc_info=True)
                continue
            for pk, stamp in stamps.items():
                if self._stamps.get(pk) != stamp:
                    self._stamps[pk] = stamp
                    event = self._events.pop(pk, None)
                    if event is not None:
                        event.set()

    @contextlib.asynccontextmanager
    async def watching(self, game_pk: int) -> AsyncIterator[None]:
        self._watchers[game_pk] = self._watchers.get(game_pk, 0) + 1
        try:
            yield
        finally:
            left = self._watchers[game_pk] - 1
            if left:
                self._watchers[game_pk] = left
            else:
                del self._watchers[game_pk]
                self._stamps.pop(game_pk, None)

    def pages_watching(self, game_pk: int) -> int:
        """How many open pages watch the game now (their event streams)."""
        return self._watchers.get(game_pk, 0)

    def close_pages(self) -> None:
        """The server stops: wake every page's stream a last time, to end (:attr:`closing`),
        so that the server stops at once instead of waiting for each open page to go away."""
        self.closing = True
        for event in self._events.values():
            event.set()
        self._events.clear()

    async def changed(self, game_pk: int, timeout: float) -> bool:
        """Wait until the game's change stamp changes (True) or ``timeout`` seconds pass
        (False). True at once when the server stops (:attr:`closing`)."""
        if self.closing:
            return True
        event = self._events.setdefault(game_pk, asyncio.Event())
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True
