"""Fixtures of the server tests: a real SQLite file per test, a copy of one migrated by the real
migration (tests/databases.py), the same on the PostgreSQL server of ``ALCAZABA_TEST_PG_URL``
where one is given (the worker's database re-made from a migrated template), and the toy game
(tests/bot/toygame.py) registered as an engine next to the real ones."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.service import GameService
from bot.settings import sqlite_url
from tests.bot import toygame
from tests.databases import fresh_pg, migrated_sqlite


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    engine.GAMES[toygame.id] = toygame
    yield
    engine.GAMES.pop(toygame.id, None)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return migrated_sqlite(tmp_path / "alcazaba.db")


@pytest.fixture
async def service(db_path: Path) -> AsyncIterator[GameService]:
    svc = GameService.open(sqlite_url(db_path))
    yield svc
    await svc.close()


PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")


async def fresh_pg_database() -> None:
    """The test server's database made again, freshly migrated (skips without a server)."""
    if not PG_URL:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set")
    await asyncio.to_thread(fresh_pg, PG_URL)


@pytest.fixture
async def pg_service() -> AsyncIterator[GameService]:
    await fresh_pg_database()
    service = GameService.open(PG_URL)
    yield service
    await service.close()


class NotingConnection:
    """An asyncpg connection that notes each statement it sends (one round trip each), and
    may run a hook (``before``) as a statement is sent: the PostgreSQL tests count a step's
    round trips and interrupt a transaction at a chosen statement through it."""

    def __init__(self, conn: Any, sent: list[str]) -> None:
        self.conn = conn
        self.sent = sent
        self.before: Callable[[str], None] | None = None

    def _note(self, sql: str) -> None:
        self.sent.append(sql)
        if self.before is not None:
            self.before(sql)

    async def execute(self, sql: str, *args: Any) -> Any:
        self._note(sql)
        return await self.conn.execute(sql, *args)

    async def executemany(self, sql: str, args: Any) -> Any:
        self._note(sql)
        return await self.conn.executemany(sql, args)

    async def fetch(self, sql: str, *args: Any) -> Any:
        self._note(sql)
        return await self.conn.fetch(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)
