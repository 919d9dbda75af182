"""Fixtures of the server tests: a real SQLite file per test, migrated by the real migration,
and the toy game (tests/bot/toygame.py) registered as an engine next to the real ones."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

import engine
from bot.db import migrate
from bot.service import GameService
from bot.settings import sqlite_url
from tests.bot import toygame


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    engine.GAMES[toygame.id] = toygame
    yield
    engine.GAMES.pop(toygame.id, None)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "alcazaba.db"
    migrate(sqlite_url(path))
    return path


@pytest.fixture
async def service(db_path: Path) -> AsyncIterator[GameService]:
    svc = GameService.open(sqlite_url(db_path))
    yield svc
    await svc.close()
