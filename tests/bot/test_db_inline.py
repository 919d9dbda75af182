"""SQLite statements run on the event loop's thread (bot.db, issue 13): waiting for another
connection's write lock must not stop the loop, and still gives up after the busy timeout."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.service import GameService
from bot.settings import sqlite_url
from tests.databases import migrated_sqlite


async def _ticker(ticks: list[int], stop: asyncio.Event) -> None:
    while not stop.is_set():
        ticks.append(1)
        await asyncio.sleep(0.005)


async def test_a_write_waits_for_another_writer_without_stopping_the_loop(tmp_path: Path) -> None:
    url = sqlite_url(migrated_sqlite(tmp_path / "lock.db"))
    service = GameService.open(url, busy_timeout_ms=5000)
    holder = sqlite3.connect(tmp_path / "lock.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # another process's writer, in effect

        async def write() -> None:
            async with service.writing() as session:
                await session.execute(sa.text("INSERT INTO discord_user (user_id) VALUES (42)"))

        ticks: list[int] = []
        stop = asyncio.Event()
        ticker = asyncio.create_task(_ticker(ticks, stop))
        writer = asyncio.create_task(write())
        await asyncio.sleep(0.2)
        assert not writer.done(), "the write waits for the lock"
        waited = len(ticks)
        assert waited >= 10, f"the loop kept running while the write waited ({waited} ticks)"
        holder.execute("COMMIT")
        await asyncio.wait_for(writer, 5)
        stop.set()
        await ticker
        assert holder.execute("SELECT user_id FROM discord_user").fetchall() == [(42,)]
    finally:
        holder.close()
        await service.close()


async def test_a_write_gives_up_after_the_busy_timeout(tmp_path: Path) -> None:
    url = sqlite_url(migrated_sqlite(tmp_path / "lock.db"))
    service = GameService.open(url, busy_timeout_ms=150)
    holder = sqlite3.connect(tmp_path / "lock.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        loop = asyncio.get_running_loop()
        started = loop.time()
        with pytest.raises(sa.exc.OperationalError, match="database is locked"):
            async with service.writing() as session:
                await session.execute(sa.text("INSERT INTO discord_user (user_id) VALUES (43)"))
        assert loop.time() - started >= 0.14
        holder.execute("ROLLBACK")
        async with service.writing() as session:  # the connection is usable again
            await session.execute(sa.text("INSERT INTO discord_user (user_id) VALUES (44)"))
        assert holder.execute("SELECT user_id FROM discord_user").fetchall() == [(44,)]
    finally:
        holder.close()
        await service.close()


async def test_the_wal_is_checkpointed_off_the_event_loop(tmp_path: Path) -> None:
    """The service's connections never checkpoint at a commit; a thread of their engine does,
    soon after commits, so the WAL is copied back without any commit waiting for it."""
    url = sqlite_url(migrated_sqlite(tmp_path / "wal.db"))
    service = GameService.open(url)
    try:
        async with service.reading() as session:
            assert (await session.execute(sa.text("PRAGMA wal_autocheckpoint"))).scalar() == 0
        async with service.writing() as session:
            await session.execute(sa.text("CREATE TABLE scratch (x TEXT)"))
        main_file = tmp_path / "wal.db"
        before = main_file.stat().st_size
        for _ in range(200):  # some 800 KB, written to the WAL first
            async with service.writing() as session:
                await session.execute(sa.text("INSERT INTO scratch (x) VALUES (:x)"), {"x": "x" * 4000})
        # Only a checkpoint copies pages into the database file itself (nothing here opens it
        # to look: a probe's own checkpoint would prove nothing).
        for _ in range(100):  # the thread waits a quarter of a second for more commits
            await asyncio.sleep(0.05)
            if main_file.stat().st_size >= before + 700_000:
                break
        assert main_file.stat().st_size >= before + 700_000, "the thread copied the WAL into the file"
    finally:
        await service.close()


async def test_once_the_service_is_closed_the_database_file_alone_holds_every_commit(tmp_path: Path) -> None:
    """A backup that copies only the database file after a clean stop loses nothing: the WAL
    was copied into it before close() returned."""
    url = sqlite_url(migrated_sqlite(tmp_path / "closed.db"))
    service = GameService.open(url)
    for n in range(50):
        async with service.writing() as session:
            await session.execute(sa.text("INSERT INTO discord_user (user_id) VALUES (:n)"), {"n": n})
    await service.close()
    copy = tmp_path / "copy.db"
    copy.write_bytes((tmp_path / "closed.db").read_bytes())  # the file alone, no -wal beside it
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT count(*) FROM discord_user").fetchone()[0] == 50


async def test_a_statement_run_at_once_answers_none_when_busy(tmp_path: Path) -> None:
    """``execute_now`` (a step's statements, ``bot.service.sql._RawWrite``) runs a statement at
    once; when SQLite answers busy it did nothing and says so (None), for the caller to wait
    on the asyncio path instead; any other error is raised."""
    from bot.db import _inline_creator

    path = migrated_sqlite(tmp_path / "now.db")
    conn = await _inline_creator(str(path), 0)()
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        assert conn.execute_now("INSERT INTO discord_user (user_id) VALUES (42)") is None
        holder.execute("COMMIT")
        cursor = conn.execute_now("INSERT INTO discord_user (user_id) VALUES (?)", (43,))
        assert cursor is not None
        cursor.close()
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            conn.execute_now("INSERT INTO nowhere VALUES (1)")
        assert holder.execute("SELECT user_id FROM discord_user").fetchall() == [(43,)]
    finally:
        holder.close()
        conn.stop()


async def test_a_steps_statement_refused_as_busy_waits_on_the_asyncio_path() -> None:
    """What a step runs at once (``_RawWrite.execute``, ``rows``) goes through the driver's
    waiting ``execute`` when the driver answers busy."""
    from bot.service.sql import _RawWrite

    class Cursor:
        async def fetchall(self) -> list[tuple[int]]:
            return [(7,)]

        async def close(self) -> None:
            pass

    class Busy:
        def __init__(self) -> None:
            self.waited: list[str] = []

        def execute_now(self, sql: str, parameters: object = ()) -> None:
            return None

        async def execute(self, sql: str, parameters: object = ()) -> Cursor:
            self.waited.append(sql)
            return Cursor()

    driver = Busy()
    raw = _RawWrite(driver, sa.create_engine("sqlite://").dialect, {})
    await raw.execute("SAVEPOINT step1")
    assert await raw.rows("SELECT 7", ()) == [(7,)]
    assert driver.waited == ["SAVEPOINT step1", "SELECT 7"]
