"""The Alembic migration creates exactly the schema the models describe."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from datetime import datetime
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


# --------------------------------------------------------------------------- data survives every migration


ANN, BOB = 101, 202
DEADLINE = datetime(2030, 1, 2, 3, 4, 5)


def _populated(path: Path) -> None:
    from bot.service.deltas import rebuild_snapshots_sync

    migrate(sqlite_url(path))
    asyncio.run(_play_some(path))
    # The rows are copied into the schema of every older revision: there, as an older release
    # left them, each game's snapshot is at its version (0006 lets it lag behind, with deltas).
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as conn:
        rebuild_snapshots_sync(conn)
    engine.dispose()


async def _play_some(path: Path) -> None:
    """Games as players leave them: in progress at several points (with a thread, a deadline
    and notifications not yet delivered), finished, and open; some rows already delivered."""
    from bot.service import GameService

    service = GameService.open(sqlite_url(path))
    try:
        for seed, moves in ((1, 0), (2, 3), (3, 6), (4, 40)):
            info = await service.create_game("toy", {"target": 8}, seed=seed, guild_id=1, thread_id=500 + seed)
            await service.join(info.id, ANN, "Ann")
            await service.join(info.id, BOB, "Bob")
            await service.start(info.id)
            await service.set_schedule(info.id, pace="24h", deadline_at=DEADLINE)
            for _ in range(moves):
                version, state = await service.state(info.id)
                if state["result"] is not None:
                    break
                role = state["turn"]
                action = {"type": "bank"} if state["pending"] >= 2 else {"type": "add", "n": 1}
                await service.apply(info.id, role, action, version, ANN if role == "red" else BOB)
        await service.create_game("toy", {}, seed=9)  # open, nobody seated
        claimed = await service.claim_outbox("old-worker", limit=3)
        await service.mark_all_sent([c.id for c in claimed], "old-worker")
    finally:
        await service.close()


def _revisions() -> list[tuple[str, str]]:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    return [(r.revision, str(r.down_revision)) for r in reversed(list(script.walk_revisions()))
            if r.down_revision is not None]


def _upgrade_from_previous(url: str, source: Path, revision: str, previous: str) -> None:
    from tests.bot.upgrade_helpers import copy_rows, read_rows

    command.upgrade(alembic_config(url), previous)
    copied = copy_rows(source, url)
    command.upgrade(alembic_config(url), revision)
    for name, rows in copied.items():  # nothing lost, nothing changed by the migration
        if rows:
            assert read_rows(url, name, list(rows[0])) == rows, f"{name} changed upgrading {previous} -> {revision}"
    migrate(url)  # the rest of the way, to run today's service
    asyncio.run(_games_continue(url))


async def _games_continue(url: str) -> None:
    from bot.service import GameService
    from tests.bot.upgrade_helpers import finish

    service = GameService.open(url)
    try:
        games = await service.games()
        assert sorted(g.status for g in games) == ["finished", "open", "running", "running", "running"]
        assert all(g.deadline_at == DEADLINE for g in games if g.status == "running")
        pending = {i.dedupe_key for i in await service.outbox(pending_only=True)}
        delivered = {i.dedupe_key for i in await service.outbox() if i.sent_at is not None}
        assert len(delivered) == 3 and pending and not pending & delivered
        for game in games:
            if game.status == "running":
                await finish(service, game.id, undo_every=3)
                assert (await service.replay_check(game.id)).ok
        claimed = await service.claim_outbox("new-worker", limit=1000)
        keys = [c.dedupe_key for c in claimed]
        assert len(keys) == len(set(keys)) and not set(keys) & delivered, "nothing is sent twice"
        assert pending <= set(keys), "every notification pending before the upgrade is still delivered"
    finally:
        await service.close()


@pytest.mark.parametrize(("revision", "previous"), _revisions())
def test_each_migration_keeps_games_outbox_and_deadlines(revision: str, previous: str, tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    _populated(source)
    _upgrade_from_previous(sqlite_url(tmp_path / "old.db"), source, revision, previous)


@pytest.mark.postgres
@pytest.mark.parametrize(("revision", "previous"), _revisions())
def test_each_migration_keeps_games_on_postgresql(revision: str, previous: str, tmp_path: Path) -> None:
    url = os.environ.get("ALCAZABA_TEST_PG_URL")
    if not url:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set (a postgresql+asyncpg:// URL of a scratch database)")
    source = tmp_path / "source.db"
    _populated(source)
    command.downgrade(alembic_config(url), "base")
    _upgrade_from_previous(url, source, revision, previous)
