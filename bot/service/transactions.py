"""The service's transactions: read and write sessions, the SQLite write gate, the write
transaction of a step on the service's own connections, and the group commit that the steps
of one moment share on SQLite."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Self

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from bot.db import WRITE, PgDrivers, make_engine
from bot.service.sql import _PgWrite, _Prepared, _RawWrite
from engine.api import State

GROUP_STEPS = 32
"""Steps at most in one group commit (SQLite, :class:`_Group`): a group holds the database's
write lock until it commits, so another process writing to the same file waits at most for
this many steps; 32 steps share the commit's cost nearly as well as 200 would."""
MOVES_CHANNEL = "alcazaba_moves"
"""PostgreSQL: the channel a step's commit NOTIFYs, so that the web pages of another process
update within a second (``bot.web.live``); SQLite pages watch the game's version instead."""


class _Group:
    """SQLite: a write transaction that the steps of one moment share (group commit).

    A commit writes every page the transaction changed to the WAL (the move table and its
    index, the game row and its indexes, the outbox and its three indexes: some 11 pages, 44
    KB), and the checkpointer then copies them into the file: most of a step's cost in
    SQLite (issue 13). Steps made while a group is open (in the same turn of the event loop,
    as happens when many games are played at once) join it, each inside a SAVEPOINT of its
    own, so that one step's failure takes back only its own statements; the group commits
    once, at the next turn of the loop, and only then does any of its steps return (nothing
    is acknowledged before it is committed, so a crash still loses no step anyone was told
    of). A step alone, the usual case, costs one turn of the loop more than a commit of its
    own."""

    __slots__ = ("done", "states", "savepoints")

    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done
        """Its result is None once the group committed; its exception, why it did not."""
        self.states: dict[int, tuple[int, State, int]] = {}
        """The states its steps recorded (``_RawWrite.pending``), for a later step of the same
        game in the same group."""
        self.savepoints = 0


class Transactions:
    """Where every command's statements run: sessions, the SQLite write gate, the service's
    own connections (a step's writes and the views of hot games) and the group commit."""

    def __init__(self, db: AsyncEngine) -> None:
        self.db = db
        self._sessions = async_sessionmaker(db, expire_on_commit=False, autoflush=False)
        # SQLite has one writer at a time. Writers of this process queue here, in asyncio,
        # instead of in SQLite's busy handler, whose timeout turns a burst of commands into
        # "database is locked" errors (tests/reliability/test_concurrency.py); the busy
        # timeout then only arbitrates between processes.
        self._write_gate: asyncio.Lock | None = asyncio.Lock() if db.dialect.name == "sqlite" else None
        # SQLite: a connection of the service's own for views of hot games (see Storage._quick_look).
        self._reader: AsyncConnection | None = None
        self._reader_driver: Any = None
        self._writer: AsyncConnection | None = None
        self._writer_driver: Any = None
        self._group: _Group | None = None  # SQLite: the steps' open write transaction, if any
        self._in_group = asyncio.Lock()  # a step inside its statements, or the group committing
        self._committing: asyncio.Task[None] | None = None
        self._prepared: dict[tuple[Any, ...], _Prepared] = {}
        self._combined: dict[tuple[Any, ...], str] = {}  # PostgreSQL: writes run as one (_PgWrite)
        # PostgreSQL: the service's own connections for steps and views of hot games.
        self._pg: PgDrivers | None = PgDrivers(db) if db.dialect.name == "postgresql" else None

    @classmethod
    def open(cls, url: str, busy_timeout_ms: int = 5000) -> Self:
        return cls(make_engine(url, busy_timeout_ms=busy_timeout_ms))

    async def close(self) -> None:
        if self._committing is not None:  # a group still open commits first
            with contextlib.suppress(Exception):
                await self._committing
        if self._reader is not None:
            reader, self._reader, self._reader_driver = self._reader, None, None
            await reader.close()
        if self._writer is not None:
            writer, self._writer, self._writer_driver = self._writer, None, None
            await writer.close()
        if self._pg is not None:
            await self._pg.close()
        await self.db.dispose()


    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            if self.db.dialect.name == "postgresql":
                # One snapshot for the whole read: under READ COMMITTED another process's
                # commit between "SELECT game" and "SELECT game_state" reads as an
                # inconsistent game (tests/reliability/test_pg_shards.py).
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            yield session

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncSession]:
        """One write transaction (SQLite: BEGIN IMMEDIATE), committed if the block succeeds."""
        if self._write_gate is not None:
            await self._write_gate.acquire()
        try:
            async with self._sessions() as session:
                await session.connection(execution_options=WRITE)
                try:
                    yield session
                    await session.commit()
                except BaseException:
                    await session.rollback()
                    raise
        finally:
            if self._write_gate is not None:
                self._write_gate.release()

    @asynccontextmanager
    async def _glance(self) -> AsyncIterator[AsyncConnection]:
        """A read transaction on a bare connection, for Core statements only: a view of a hot
        game runs one statement, and an ORM session costs more than SQLite takes to run it.
        Same consistency as :meth:`_read`."""
        async with self.db.connect() as conn:
            if self.db.dialect.name == "postgresql":
                await conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    @asynccontextmanager
    async def _write_step(self, optimistic: bool = False) -> AsyncIterator[AsyncConnection | _RawWrite]:
        """The write transaction of a step (or a batch of them): on SQLite, BEGIN IMMEDIATE
        on the service's own writing connection, with the statements run on the driver (the
        write gate makes it this process's only writer meanwhile); on PostgreSQL, one of the
        service's own connections, the statements also run on the driver (:class:`_PgWrite`),
        and with ``optimistic``, no transaction until the step needs one: its writes go as one
        statement guarded by the game's version as read, which raises WriteConflict when the
        game changed (``Storage._stepping`` makes the step again, not optimistic).
        Committed if the block succeeds, rolled back otherwise, as :meth:`_write`."""
        gate = self._write_gate
        if gate is None:
            if self._pg is not None:
                pg = self._pg
                async with contextlib.AsyncExitStack() as stack:
                    async def begin() -> Any:
                        return await stack.enter_async_context(pg.transaction(notify=MOVES_CHANNEL))  # bot.web listens

                    write = _PgWrite(None if optimistic else await begin(), self.db.dialect, self._prepared,
                                     self._combined, begin=begin, autocommit=pg.fetch, notify=MOVES_CHANNEL)
                    yield write
                    await write.finish()
                return
            async with self.db.connect() as conn, conn.begin():
                yield conn
            return
        while True:
            group = self._group
            if group is None:
                group = await self._open_group(gate)
            await self._in_group.acquire()  # one step's statements at a time: savepoints nest
            if group is self._group:
                break
            self._in_group.release()  # it committed meanwhile: the next one
        try:
            group.savepoints += 1
            name = f"step{group.savepoints}"
            raw = _RawWrite(self._writer_driver, self.db.dialect, self._prepared, group.states)
            await raw.execute(f"SAVEPOINT {name}")
            try:
                yield raw
            except BaseException:
                await raw.execute(f"ROLLBACK TO {name}")
                await raw.execute(f"RELEASE {name}")
                raise
            await raw.execute(f"RELEASE {name}")
            group.states.update(raw.pending)
            if group.savepoints >= GROUP_STEPS:  # full: commit now, the next step opens another
                await self._end_group(group, gate)
        finally:
            self._in_group.release()
        # Returns once the group committed; a cancelled caller leaves the group be.
        await asyncio.shield(group.done)

    async def _open_group(self, gate: asyncio.Lock) -> _Group:
        """Take the write gate, begin the transaction (BEGIN IMMEDIATE) and schedule its
        commit at the next turn of the event loop (:class:`_Group`)."""
        await gate.acquire()
        try:
            if self._writer_driver is None:
                self._writer = await self.db.connect()
                self._writer_driver = (await self._writer.get_raw_connection()).driver_connection
            await (await self._writer_driver.execute("BEGIN IMMEDIATE")).close()
        except BaseException:
            gate.release()
            raise
        loop = asyncio.get_running_loop()
        group = self._group = _Group(loop.create_future())
        self._committing = loop.create_task(self._commit_group(group, gate))
        return group

    async def _commit_group(self, group: _Group, gate: asyncio.Lock) -> None:
        """Commit ``group`` at the next turn of the loop, once no step is inside its
        statements (unless it filled up and committed already)."""
        async with self._in_group:
            await self._end_group(group, gate)

    async def _end_group(self, group: _Group, gate: asyncio.Lock) -> None:
        """Commit ``group`` (once; the caller holds ``_in_group``), tell its steps how it went,
        and let the next writer in."""
        if group.done.done():
            return
        self._group = None
        try:
            driver = self._writer_driver
            try:
                await driver.commit()
            except BaseException as exc:
                with contextlib.suppress(Exception):
                    await driver.rollback()
                group.done.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
            else:
                group.done.set_result(None)
        finally:
            gate.release()

    def reading(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A read session for a front end's own tables (the Discord front end's rows), with
        the same consistency as the service's reads."""
        return self._read()

    def writing(self) -> AbstractAsyncContextManager[AsyncSession]:
        """One write transaction for a front end's own tables, committed if the block
        succeeds. It queues with the service's own writers (SQLite has one writer at a time),
        so a front end's bookkeeping never meets "database is locked" while moves are made."""
        return self._write()
