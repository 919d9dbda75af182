"""Fixtures of the server tests: a real SQLite file per test, a copy of one migrated by the real
migration (tests/databases.py), the same on the PostgreSQL server of ``ALCAZABA_TEST_PG_URL``
where one is given (the worker's database re-made from a migrated template), and the toy game
(tests/bot/toygame.py) registered as an engine next to the real ones."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

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
