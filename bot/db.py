"""Database engine and migrations.

SQLite runs in WAL mode (readers never wait for the writer) with a busy timeout, and every
write transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock before reading,
so two commands never both read version N and then race to write N+1 (SQLite would fail the
loser with "database is locked" instead of letting it wait). PostgreSQL needs none of this;
there a command locks its game's row (``SELECT ... FOR UPDATE``).

PostgreSQL's hot paths (a step, a view of a hot game) run on a few asyncpg connections the
service keeps (:class:`PgDrivers`), not through SQLAlchemy's pool: checking a connection out,
pinging it and running a statement through SQLAlchemy's asyncio adaptation cost more than the
statement. Neither pool pings a connection before use (SQLAlchemy's ``pool_pre_ping`` is three
round trips on asyncpg); a connection the server dropped is noticed instead (asyncpg sees the
socket close) and replaced, and a step whose first statement meets a dropped connection is
begun again on a fresh one (tests/bot/test_pg_reconnect.py).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Generator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

import migrations

WRITE = {"alcazaba_write": True}
"""Execution options of a connection that will write (see :func:`is_sqlite`)."""

DEFAULT_BUSY_TIMEOUT_MS = 5000


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL, or None for other databases and in-memory SQLite."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database)


def prepare_sqlite_file(url: str) -> None:
    path = sqlite_path(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)


def make_engine(url: str, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS, echo: bool = False) -> AsyncEngine:
    """An async engine for ``url`` (``sqlite+aiosqlite://`` or ``postgresql+asyncpg://``)."""
    if not is_sqlite(url):
        engine = create_async_engine(url, echo=echo, pool_recycle=PG_RECYCLE_S)
        _configure_postgresql(engine.sync_engine)
        return engine
    prepare_sqlite_file(url)
    database = make_url(url).database or ":memory:"
    engine = create_async_engine(url, echo=echo, async_creator=_inline_creator(database, busy_timeout_ms))
    _configure_sqlite(engine.sync_engine, busy_timeout_ms)
    return engine


def _configure_sqlite(sync_engine: sa.Engine, busy_timeout_ms: int) -> None:
    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let us issue BEGIN ourselves (the driver's implicit BEGIN is always DEFERRED).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        immediate = connection.get_execution_options().get("alcazaba_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


# --------------------------------------------------------------------------- PostgreSQL

PG_RECYCLE_S = 3600
"""A pooled PostgreSQL connection older than this is replaced at its next checkout: a
connection a firewall or a server's idle timeout dropped without a word (no closed socket
for asyncpg to see) is thus never used more than an hour later."""
PG_DRIVERS = 8
"""Connections :class:`PgDrivers` keeps at most (steps and views of hot games wait for one).
A step holds its connection while the engine computes it, so more connections than games
being stepped at once only add server processes: the benchmark's two processes of 50 games
each made 976 steps/s with 4, 942-1002 with 8 and 929 with 15 (``throughput.pg_two_processes``,
--quick, within its noise)."""


def _configure_postgresql(sync_engine: sa.Engine) -> None:
    @event.listens_for(sync_engine, "checkout")
    def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        # A connection whose socket closed while it waited in the pool (the server restarted,
        # or its backend was terminated) is replaced at once, at no cost: SQLAlchemy takes
        # another when a checkout handler raises DisconnectionError.
        driver = getattr(dbapi_connection, "driver_connection", None)
        if driver is not None and driver.is_closed():
            raise sa.exc.DisconnectionError("the server closed this connection")


def pg_dropped(exc: BaseException, conn: Any) -> bool:
    """Whether ``exc``, met on the asyncpg connection ``conn``, says the connection is gone
    (its socket closed, the server shutting down or terminating its backend)."""
    import asyncpg

    if conn.is_closed():
        return True
    return isinstance(exc, OSError | asyncpg.PostgresConnectionError | asyncpg.InterfaceError
                      | asyncpg.exceptions.OperatorInterventionError | asyncpg.exceptions.InternalClientError)


class PgDrivers:
    """A few asyncpg connections of the service's own, for the statements of its hot paths,
    run on the driver with its prepared statements (asyncpg prepares each statement once per
    connection). A connection is handed out with no transaction open and taken back only in
    that state; one that failed otherwise, or was interrupted mid-statement, is closed, and
    one older than ``recycle_s`` is replaced, as SQLAlchemy's pool does (``PG_RECYCLE_S``)."""

    def __init__(self, engine: AsyncEngine, size: int = PG_DRIVERS, recycle_s: float = PG_RECYCLE_S) -> None:
        cargs, cparams = engine.sync_engine.dialect.create_connect_args(engine.url)
        for key in ("prepared_statement_cache_size", "prepared_statement_name_func", "async_creator_fn"):
            cparams.pop(key, None)  # SQLAlchemy's own, not asyncpg's
        self._args, self._params = list(cargs), dict(cparams)
        self._idle: list[Any] = []
        self._born: dict[Any, float] = {}  # connection -> when it was opened (time.monotonic)
        self.recycle_s = recycle_s
        self._free = size  # connections that may be opened or taken besides those in use
        # who waits for a connection, in turn: (for a transaction?, the future it waits on)
        self._waiting: collections.deque[tuple[bool, asyncio.Future[Any]]] = collections.deque()
        self.handed_over = 0
        """Transactions begun in the round trip of the commit before them (:meth:`transaction`)."""
        self._closed = False

    async def _connect(self) -> Any:
        import asyncpg

        conn = await asyncpg.connect(*self._args, **self._params)
        self._born[conn] = time.monotonic()
        return conn

    def _drop(self, conn: Any) -> None:
        self._born.pop(conn, None)
        conn.terminate()

    def _take(self) -> Any | None:
        now = time.monotonic()
        while self._idle:
            conn = self._idle.pop()
            if conn.is_closed() or now - self._born.get(conn, now) > self.recycle_s:
                self._drop(conn)
            else:
                return conn
        return None

    def _give_back(self, conn: Any) -> None:
        if self._closed or conn.is_closed() or conn.is_in_transaction():
            self._drop(conn)
        else:
            self._idle.append(conn)

    def _forget_idle(self) -> None:
        """Close the idle connections: one was found dropped, so the server restarted or
        is going away, and they are most likely dropped too."""
        idle, self._idle = self._idle, []
        for conn in idle:
            self._drop(conn)

    async def fetch(self, sql: str, *args: Any) -> list[Any]:
        """The rows of one read-only statement, outside any transaction (autocommit: one
        round trip). Run again on a fresh connection if the connection turns out dropped."""
        await self._turn(transaction=False)
        try:
            for attempt in (1, 2):
                conn = self._take() or await self._connect()
                try:
                    rows = await conn.fetch(sql, *args)
                except BaseException as exc:
                    dropped = pg_dropped(exc, conn)
                    if dropped or not isinstance(exc, Exception):
                        self._drop(conn)
                    else:  # the statement failed, the connection did not
                        self._give_back(conn)
                    if dropped and attempt == 1:
                        self._forget_idle()
                        continue
                    raise
                self._give_back(conn)
                return rows
        finally:
            self._release()
        raise AssertionError("unreachable")

    async def _turn(self, transaction: bool) -> Any:
        """Wait for a connection's turn (at most ``size`` in use). None, or for a transaction
        (``transaction``), possibly a connection the transaction before it handed over
        already begun (:meth:`transaction`), which takes the turn with it."""
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return None
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        entry = (transaction, waiter)
        self._waiting.append(entry)
        try:
            return await waiter
        except BaseException:
            if not waiter.done() or waiter.cancelled():
                waiter.cancel()  # a commit that took it out of line meanwhile sees it gave up
                with contextlib.suppress(ValueError):  # not still in line: taken out by a commit
                    self._waiting.remove(entry)
            else:  # its turn came, then it was interrupted before it could take it
                handed = waiter.result()
                if handed is not None:
                    self._drop(handed)  # begun: the server rolls it back
                self._release()
            raise

    def _release(self) -> None:
        """The end of a turn: the next one waiting takes it."""
        while self._waiting:
            _transaction, waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1

    def _next_transaction(self, conn: Any) -> asyncio.Future[Any] | None:
        """The next one waiting, taken out of line, if it waits for a transaction and ``conn``
        may serve it (open, and young enough: ``recycle_s``)."""
        now = time.monotonic()
        if self._closed or conn.is_closed() or now - self._born.get(conn, now) > self.recycle_s:
            return None
        while self._waiting:
            transaction, waiter = self._waiting[0]
            if waiter.done():
                self._waiting.popleft()
                continue
            if not transaction:
                return None
            self._waiting.popleft()
            return waiter
        return None

    async def _begun(self) -> Any:
        """A connection in a new transaction. BEGIN is the first statement a connection taken
        from the pool runs; if it fails because the connection was dropped, nothing was
        written, and it is begun again once on a fresh connection."""
        for attempt in (1, 2):
            reused = self._take()
            conn = reused or await self._connect()
            try:
                await conn.execute("BEGIN")
            except Exception:
                self._drop(conn)
                # BEGIN fails on a connection that waited in the pool only when the connection
                # is no longer usable (dropped, or its client confused by the server's last
                # words); nothing was written, so begin again on a fresh one.
                if reused is not None and attempt == 1:
                    self._forget_idle()
                    continue
                raise
            except BaseException:
                self._drop(conn)
                raise
            return conn
        raise AssertionError("unreachable")

    @contextlib.asynccontextmanager
    async def transaction(self, notify: str | None = None) -> AsyncIterator[Any]:
        """A connection in a transaction, committed if the block succeeds and rolled back if
        it raises. A connection whose commit or rollback did not finish is closed, never
        reused (the server then rolls back whatever it did not commit). ``notify``: a channel
        to NOTIFY with the commit (sent in the COMMIT's own round trip), which listeners in
        other processes (the web pages, ``bot.web``) hear once the transaction committed.

        When the next one in line for a connection waits for a transaction (steps of many
        games at once), the commit begins its transaction in the same round trip
        (``COMMIT; BEGIN``) and hands it the connection and its turn: a step is then three
        round trips instead of four, and a connection is never left idle in a transaction.
        The commit has returned, as always, before the step that made it returns."""
        conn = await self._turn(transaction=True)
        passed = False  # whether this turn went on to the next transaction
        try:
            if conn is None:
                conn = await self._begun()
            try:
                yield conn
            except BaseException as exc:
                if isinstance(exc, Exception) and not conn.is_closed():
                    try:
                        await conn.execute("ROLLBACK")
                    except BaseException:
                        self._drop(conn)
                        raise exc from None
                    self._give_back(conn)
                else:  # interrupted (cancelled) mid-statement, or dropped: never reused
                    self._drop(conn)
                raise
            end = f"NOTIFY {notify}; COMMIT" if notify else "COMMIT"
            waiter = self._next_transaction(conn)
            try:
                await conn.execute(end if waiter is None else end + "; BEGIN")
            except BaseException:
                self._drop(conn)
                if waiter is not None and not waiter.done():
                    waiter.set_result(None)  # its turn, with no connection
                    passed = True
                raise
            if waiter is None:
                self._give_back(conn)
            elif not waiter.done():
                waiter.set_result(conn)
                passed = True
                self.handed_over += 1
            else:  # it stopped waiting meanwhile: the transaction just begun is not needed
                try:
                    await conn.execute("ROLLBACK")
                except BaseException:
                    self._drop(conn)
                    raise
                self._give_back(conn)
        finally:
            if not passed:
                self._release()

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        self._born.clear()
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close(timeout=5)


# --------------------------------------------------------------------------- SQLite on the loop's thread

_SQLITE_BUSY = 5
_SQLITE_BUSY_RECOVERY = 261  # SQLITE_BUSY | (1 << 8)


class _InlineCursor:
    """An aiosqlite-shaped cursor whose calls run at once on the caller's thread.

    aiosqlite runs every call (cursor, execute, fetch, close) in a thread of its own and
    wakes the event loop with the answer: about 30 thread hand-offs for one game step, which
    cost more than the step's SQL (issue 13 measured 0.1-0.3 ms each on a loaded machine).
    A statement on a WAL database takes microseconds, so it runs inline instead; the one
    wait that can be long, another process's write lock, is waited for with asyncio
    (:meth:`_InlineConnection.begin_immediate`), never by blocking the loop.
    """

    __slots__ = ("_connection", "_cursor")

    def __init__(self, connection: _InlineConnection, cursor: sqlite3.Cursor) -> None:
        self._connection = connection
        self._cursor = cursor

    async def __aenter__(self) -> _InlineCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._cursor.close()

    def __await__(self) -> Generator[Any, None, _InlineCursor]:
        yield from ()
        return self

    async def execute(self, sql: str, parameters: Any = ()) -> _InlineCursor:
        await self._connection.run(self._cursor, sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Any) -> _InlineCursor:
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()

    def __aiter__(self) -> _InlineCursor:
        return self

    async def __anext__(self) -> Any:
        row = self._cursor.fetchone()
        if row is None:
            raise StopAsyncIteration
        return row

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value


class _ImmediateQueue:
    """SQLAlchemy's aiosqlite adapter sets ``isolation_level`` by queueing a function for
    aiosqlite's thread (``_tx.put_nowait((future, function))``); here it runs at once."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Any]) -> None:
        future, function = item
        try:
            result = function()
        except BaseException as exc:  # handed to whoever awaits the future
            if future is not None:
                future.set_exception(exc)
            return
        if future is not None:
            future.set_result(result)


class _InlineConnection:
    """An aiosqlite-shaped connection over a stdlib ``sqlite3`` connection used on the
    event loop's thread (see :class:`_InlineCursor`). SQLAlchemy's ``sqlite+aiosqlite``
    dialect drives it unchanged (``async_creator``)."""

    def __init__(self, conn: sqlite3.Connection, busy_timeout_ms: int,
                 checkpointer: _Checkpointer | None = None) -> None:
        self._connection: sqlite3.Connection | None = conn
        self._busy_timeout_ms = busy_timeout_ms
        self._tx = _ImmediateQueue()
        self._checkpointer = checkpointer
        if checkpointer is not None:
            checkpointer.attach()

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError("no active connection")
        return self._connection

    async def run(self, cursor: sqlite3.Cursor, sql: str, parameters: Any) -> None:
        """Execute one statement, waiting for another connection's lock with asyncio sleeps.

        SQLite's own busy handler would sleep on this thread, which is the event loop's: a
        second connection of the same process (tests/reliability/test_concurrency.py) could
        then never finish the transaction it is waited for. So ``BEGIN IMMEDIATE``, the one
        statement that waits for a writer, is tried with no busy timeout, and any statement
        SQLite refuses as busy is tried again, backing off, until the configured timeout is
        spent (then "database is locked", as SQLite would say)."""
        conn = self._conn
        immediate = sql.lstrip()[:15].upper() == "BEGIN IMMEDIATE"
        deadline = time.monotonic() + self._busy_timeout_ms / 1000
        delay = 0.0005
        if immediate:
            conn.execute("PRAGMA busy_timeout=0")
        try:
            while True:
                try:
                    cursor.execute(sql, parameters)
                    return
                except sqlite3.OperationalError as exc:
                    code = getattr(exc, "sqlite_errorcode", None)
                    if code not in (_SQLITE_BUSY, _SQLITE_BUSY_RECOVERY) or time.monotonic() >= deadline:
                        raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.02)
        finally:
            if immediate:
                conn.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_ms)}")

    def execute_now(self, sql: str, parameters: Any = ()) -> sqlite3.Cursor | None:
        """The statement run at once on the stdlib connection (its cursor), or None when
        SQLite answered busy, having done nothing: then await :meth:`execute`, which waits
        for the lock as :meth:`run` does. For the statements of a write transaction the
        service holds (``bot.service.sql._RawWrite``): a step's few statements take some
        microseconds each in SQLite, and this wrapper's cursor, deadline and awaits cost as
        much again. Not for ``BEGIN IMMEDIATE``, which must not wait in SQLite's handler."""
        try:
            return self._conn.execute(sql, parameters)
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) in (_SQLITE_BUSY, _SQLITE_BUSY_RECOVERY):
                return None
            raise

    def cursor(self) -> _InlineCursor:
        return _InlineCursor(self, self._conn.cursor())

    async def execute(self, sql: str, parameters: Any = ()) -> _InlineCursor:
        return await self.cursor().execute(sql, parameters)

    async def commit(self) -> None:
        self._conn.commit()
        if self._checkpointer is not None:
            self._checkpointer.committed()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def close(self) -> None:
        self.stop()

    def stop(self) -> None:
        """Close (also SQLAlchemy's forced close, terminate)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None
            if self._checkpointer is not None:
                self._checkpointer.detach()

    async def create_function(self, name: str, num_params: int, func: Any, deterministic: bool = False) -> None:
        self._conn.create_function(name, num_params, func, deterministic=deterministic)

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self._conn.isolation_level = value  # type: ignore[assignment]  # None, or a BEGIN mode

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction


class _Checkpointer:
    """Copies the WAL back into the database file from a thread of its own.

    SQLite checkpoints at the commit that grows the WAL past 1000 pages, in the committing
    connection: copying some 4 MB and syncing the file, tens of milliseconds on a busy disk,
    which here is the event loop's thread. The service's connections therefore turn that
    off (``wal_autocheckpoint=0``) and tell this thread about each commit; it runs a PASSIVE
    checkpoint (which never blocks a writer or a reader) at most a few times a second, with
    the GIL released while SQLite copies and syncs. It lives while a connection of its
    engine is open; the last connection closed checkpoints the rest, as SQLite always does."""

    PAUSE_S = 0.25

    def __init__(self, database: str, busy_timeout_ms: int) -> None:
        self.database = database
        self.busy_timeout_ms = busy_timeout_ms
        self._lock = threading.Lock()
        self._users = 0
        self._wake: threading.Event | None = None
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None

    def attach(self) -> None:
        with self._lock:
            self._users += 1
            if self._wake is None:
                self._wake, self._stop = threading.Event(), threading.Event()
                self._thread = threading.Thread(target=self._run, args=(self._wake, self._stop), daemon=True,
                                                name=f"checkpoint {Path(self.database).name}")
                self._thread.start()

    def detach(self) -> None:
        """The last connection closing stops the thread and waits for it: its connection is
        then the database's last, whose close copies the rest of the WAL into the file, so
        that the file alone holds every commit once the engine is disposed (as it did when
        the last connection of the engine closed itself)."""
        thread = None
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._wake is not None and self._stop is not None:
                self._stop.set()
                self._wake.set()
                self._wake = self._stop = None
                thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=30)

    def committed(self) -> None:
        wake = self._wake
        if wake is not None:
            wake.set()

    def _run(self, wake: threading.Event, stop: threading.Event) -> None:
        conn = sqlite3.connect(self.database, timeout=self.busy_timeout_ms / 1000, isolation_level=None,
                               check_same_thread=False, uri=self.database.startswith("file:"))
        try:
            while not stop.is_set():
                wake.wait()
                if stop.wait(self.PAUSE_S):  # gather the commits of a moment into one checkpoint
                    break
                wake.clear()
                with contextlib.suppress(sqlite3.Error):  # busy or closing: the next commit wakes it again
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            conn.close()


def _inline_creator(database: str, busy_timeout_ms: int) -> Any:
    checkpointer = None if database == ":memory:" else _Checkpointer(database, busy_timeout_ms)

    async def connect() -> _InlineConnection:
        conn = sqlite3.connect(database, timeout=busy_timeout_ms / 1000, isolation_level=None,
                               check_same_thread=False, uri=database.startswith("file:"))
        if checkpointer is not None:
            conn.execute("PRAGMA wal_autocheckpoint=0")
        return _InlineConnection(conn, busy_timeout_ms, checkpointer)

    return connect

def alembic_config(url: str) -> Config:
    """Alembic's configuration, built in code so that migrations run from an installed package.

    The URL travels in ``attributes`` rather than the ini options: ini interpolation would
    mangle the ``%`` of a URL-encoded password.
    """
    config = Config()
    config.set_main_option("script_location", str(Path(migrations.__file__).parent))
    config.set_main_option("path_separator", "os")
    config.attributes["url"] = url
    return config


def migrate(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` (creating it if needed).

    Synchronous; Alembic runs its own event loop, so inside a running loop call
    :func:`migrate_async` instead.
    """
    prepare_sqlite_file(url)
    command.upgrade(alembic_config(url), revision)


async def migrate_async(url: str, revision: str = "head") -> None:
    await asyncio.to_thread(migrate, url, revision)
