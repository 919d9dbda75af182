"""A PostgreSQL commit hands its connection, begun again in the commit's own round trip, to the
transaction next in line (bot/db.py ``PgDrivers.transaction``): steps of many games at once are
three round trips each instead of four. What must hold: each transaction's writes are
committed when it returns, the one handed over is already begun (no BEGIN of its own), only a
transaction next in line gets one (a view waiting before it takes its turn as before), and a
transaction that stops waiting meanwhile leaves no connection in a transaction and no turn
lost. Runs when ALCAZABA_TEST_PG_URL names a scratch database."""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.db import PgDrivers, make_engine
from tests.bot.conftest import NotingConnection

pytestmark = pytest.mark.postgres
PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")


@pytest.fixture
async def one() -> AsyncIterator[tuple[PgDrivers, list[str], str]]:
    """The service's own connections, at most one, noting what they send; and a scratch table."""
    if not PG_URL:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set")
    engine = make_engine(PG_URL)
    drivers = PgDrivers(engine, size=1)
    sent: list[str] = []
    connect = drivers._connect

    async def noting() -> Any:
        return NotingConnection(await connect(), sent)

    drivers._connect = noting  # type: ignore[method-assign]
    table = f"handoff_{secrets.token_hex(4)}"
    async with drivers.transaction() as conn:
        await conn.execute(f"CREATE TABLE {table} (n integer NOT NULL)")
    sent.clear()
    yield drivers, sent, table
    async with drivers.transaction() as conn:
        await conn.execute(f"DROP TABLE {table}")
    await drivers.close()
    await engine.dispose()


async def _write(drivers: PgDrivers, table: str, n: int, started: asyncio.Event | None = None,
                 hold: asyncio.Event | None = None, used: list[Any] | None = None) -> None:
    """One transaction writing ``n`` (``used``: its connection goes there)."""
    async with drivers.transaction(notify="alcazaba_test_handoff") as conn:
        if used is not None:
            used.append(conn)
        if started is not None:
            started.set()
        if hold is not None:
            await hold.wait()
        await conn.execute(f"INSERT INTO {table} VALUES ($1)", n)


async def _rows(drivers: PgDrivers, table: str) -> list[int]:
    return sorted(r[0] for r in await drivers.fetch(f"SELECT n FROM {table}"))


async def test_a_commit_begins_the_next_transaction_in_line(one: tuple[PgDrivers, list[str], str]) -> None:
    drivers, sent, table = one
    started, hold = asyncio.Event(), asyncio.Event()
    first = asyncio.create_task(_write(drivers, table, 1, started, hold))
    await started.wait()
    second = asyncio.create_task(_write(drivers, table, 2))
    await asyncio.sleep(0.05)  # the second waits in line for the one connection
    assert not second.done()
    hold.set()
    await first
    await second
    assert drivers.handed_over == 1
    # the second sent no BEGIN of its own: the first's commit began its transaction
    assert [s.split()[0] for s in sent] == ["BEGIN", "INSERT", "NOTIFY", "INSERT", "NOTIFY"]
    assert sent[2].endswith("; COMMIT; BEGIN") and sent[4].endswith("; COMMIT")
    assert await _rows(drivers, table) == [1, 2]  # both committed, each by its own COMMIT
    assert drivers._free == 1 and not drivers._waiting


async def test_a_view_next_in_line_takes_its_turn_as_before(one: tuple[PgDrivers, list[str], str]) -> None:
    drivers, sent, table = one
    started, hold = asyncio.Event(), asyncio.Event()
    first = asyncio.create_task(_write(drivers, table, 1, started, hold))
    await started.wait()
    view = asyncio.create_task(drivers.fetch(f"SELECT count(*) FROM {table}"))
    await asyncio.sleep(0.02)
    second = asyncio.create_task(_write(drivers, table, 2))
    await asyncio.sleep(0.02)
    hold.set()
    await asyncio.wait_for(first, 10)
    assert await view == [(1,)]  # after the first's commit, before the second
    await second
    assert drivers.handed_over == 0
    assert [s.split()[0] for s in sent] == ["BEGIN", "INSERT", "NOTIFY", "SELECT", "BEGIN", "INSERT", "NOTIFY"]
    assert all(s.endswith("; COMMIT") for s in sent if s.startswith("NOTIFY"))
    assert await _rows(drivers, table) == [1, 2]


async def test_a_transaction_that_stops_waiting_leaves_nothing_begun(one: tuple[PgDrivers, list[str], str]) -> None:
    """The one next in line is cancelled while the commit that begins its transaction is on
    its way: the commit stands, the transaction begun for it is rolled back, the connection
    goes back idle and the turn to whoever comes next."""
    drivers, sent, table = one
    started, hold = asyncio.Event(), asyncio.Event()
    used: list[Any] = []
    first = asyncio.create_task(_write(drivers, table, 1, started, hold, used))
    await started.wait()
    second = asyncio.create_task(_write(drivers, table, 2))
    await asyncio.sleep(0.02)
    noting = used[0]

    def cancel_the_second(sql: str) -> None:
        if sql.endswith("; BEGIN"):
            second.cancel()

    noting.before = cancel_the_second
    hold.set()
    await asyncio.wait_for(first, 10)
    with pytest.raises(asyncio.CancelledError):
        await second
    noting.before = None
    assert drivers.handed_over == 0 and drivers._free == 1 and not drivers._waiting
    assert [s.split()[0] for s in sent][-2:] == ["NOTIFY", "ROLLBACK"] and sent[-2].endswith("; COMMIT; BEGIN")
    assert drivers._idle == [noting] and not noting.is_in_transaction()
    await _write(drivers, table, 3)
    assert [s.split()[0] for s in sent][-3:] == ["BEGIN", "INSERT", "NOTIFY"]  # began on its own
    assert await _rows(drivers, table) == [1, 3]
