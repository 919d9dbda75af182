"""Database engine and migrations.

SQLite runs in WAL mode (readers never wait for the writer) with a busy timeout, and every
write transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock before reading,
so two commands never both read version N and then race to write N+1 (SQLite would fail the
loser with "database is locked" instead of letting it wait). PostgreSQL needs none of this;
there the version check is a conditional UPDATE.
"""

from __future__ import annotations

import asyncio
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
        return create_async_engine(url, echo=echo, pool_pre_ping=True)
    prepare_sqlite_file(url)
    engine = create_async_engine(url, echo=echo, connect_args={"timeout": busy_timeout_ms / 1000})
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
