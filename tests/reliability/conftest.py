"""Fixtures of the reliability tests: the toy engine registered (as in tests/bot), and a
private PostgreSQL database when ALCAZABA_TEST_PG_URL names a server (.ci/postgres.sh
starts one; CI sets the variable, so these tests run there).

The PostgreSQL tests get their own database on that server (created here, dropped at the
end) rather than the one in the URL, so that they never race the tests/bot PostgreSQL
tests, which drop and re-create the tables of that one.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

import engine
from bot.db import migrate
from tests.bot import toygame

PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")
PG_SKIP = ("ALCAZABA_TEST_PG_URL is not set: start a server with `eval \"$(.ci/postgres.sh)\"` "
           "(CI does) to run the PostgreSQL tests")
TABLES = ("outbox", "move", "game_state", "seat", "game")


@pytest.fixture(autouse=True)
def toy_registered() -> Iterator[None]:
    engine.GAMES[toygame.id] = toygame
    yield
    engine.GAMES.pop(toygame.id, None)


def _sync_url(url: str, database: str | None = None) -> sa.URL:
    parsed = make_url(url).set(drivername="postgresql+psycopg2")
    return parsed.set(database=database) if database is not None else parsed


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A freshly migrated PostgreSQL database of our own (asyncpg URL)."""
    if not PG_URL:
        pytest.skip(PG_SKIP)
    name = f"alcazaba_rel_{os.getpid()}_{secrets.token_hex(3)}"
    admin = sa.create_engine(_sync_url(PG_URL, "postgres"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
        migrate(url)
        yield url
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def pg_clean(pg_url: str) -> str:
    """The PostgreSQL database emptied (ids restart at 1), for one test."""
    sync = sa.create_engine(_sync_url(pg_url))
    try:
        with sync.begin() as conn:
            conn.exec_driver_sql(f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
    finally:
        sync.dispose()
    return pg_url


def pg_rows(url: str, sql: str, **params: object) -> list[tuple[object, ...]]:
    """Rows of a statement run on the PostgreSQL database outside the service (committed)."""
    sync = sa.create_engine(_sync_url(url))
    try:
        with sync.begin() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql), params)]
    finally:
        sync.dispose()
