"""The Alembic migration creates exactly the schema the models describe."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlmodel import SQLModel

import bot.models  # noqa: F401  (tables)
from bot.db import alembic_config, migrate
from bot.settings import sqlite_url


def schema_differences(sync_url: str) -> list[object]:
    engine = sa.create_engine(sync_url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, SQLModel.metadata))
    finally:
        engine.dispose()


def test_migration_matches_models(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    migrate(sqlite_url(path))
    assert schema_differences(f"sqlite:///{path}") == []


def test_migration_is_one_head_and_reruns_cleanly(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "m.db")
    script = ScriptDirectory.from_config(alembic_config(url))
    assert len(script.get_heads()) == 1
    migrate(url)
    migrate(url)  # already at head: nothing to do, no error
    with sqlite3.connect(tmp_path / "m.db") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(script.get_current_head(),)]


def test_downgrade_and_upgrade_again(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "m.db")
    migrate(url)
    command.downgrade(alembic_config(url), "base")
    with sqlite3.connect(tmp_path / "m.db") as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"alembic_version"}
    migrate(url)
    assert schema_differences(f"sqlite:///{tmp_path / 'm.db'}") == []


def test_migrate_creates_the_data_directory_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "data" / "alcazaba.db"
    migrate(sqlite_url(path))
    assert path.exists()


async def test_service_connections_use_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    from bot.db import make_engine, migrate_async

    url = sqlite_url(tmp_path / "w.db")
    await migrate_async(url)
    engine = make_engine(url, busy_timeout_ms=1234)
    try:
        async with engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
            assert (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 1234
            assert (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    finally:
        await engine.dispose()


@pytest.mark.postgres
def test_migration_matches_models_on_postgresql() -> None:
    url = os.environ.get("ALCAZABA_TEST_PG_URL")
    if not url:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set (a postgresql+asyncpg:// URL of a scratch database)")
    command.downgrade(alembic_config(url), "base")
    migrate(url)
    sync_url = sa.engine.make_url(url).set(drivername="postgresql+psycopg2")
    assert schema_differences(sync_url.render_as_string(hide_password=False)) == []
