"""Migrated databases for the tests, migrated once and copied per test.

Running the Alembic migrations costs 0.4-0.8 s a database; a test needs a fresh database but
not a fresh migration. So each test process migrates one SQLite file (on first use) and every
test gets a byte copy of it (a fraction of a millisecond); on PostgreSQL each test process
migrates one template database and a test's database is ``CREATE DATABASE ... TEMPLATE`` of
it. The migrations themselves stay tested where they are the subject (tests/bot/test_migrations.py,
the upgrade tests, ``alcazaba run`` in tests/bot/test_cli.py and the Discord tests that start
on an empty data directory).

Under pytest-xdist every worker is its own process with its own SQLite template, and its own
PostgreSQL database (``<name>_<worker>``, made by tests/conftest.py), so workers never share a
database.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from bot.db import migrate
from bot.settings import sqlite_url

_sqlite_template: Path | None = None


def _migrate(url: str) -> None:
    """The real migration, on a thread of its own: Alembic runs its own event loop, and the
    first user of a template may be a test already inside one."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(migrate, url).result()


def _template() -> Path:
    """This process's migrated SQLite file (made on first use, removed at exit)."""
    global _sqlite_template
    if _sqlite_template is None:
        folder = Path(tempfile.mkdtemp(prefix="alcazaba-template-"))
        atexit.register(shutil.rmtree, folder, True)
        path = folder / "template.db"
        _migrate(sqlite_url(path))
        # The migration leaves no write-ahead log behind (its connections are closed and
        # checkpointed), so the one file is the whole database.
        assert not path.with_name(path.name + "-wal").exists(), "the template has an unmerged WAL"
        _sqlite_template = path
    return _sqlite_template


def migrated_sqlite(path: Path) -> Path:
    """``path`` made a freshly migrated SQLite database (a copy of the template); ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_template(), path)
    return path


# --------------------------------------------------------------------------- PostgreSQL


def worker_suffix() -> str:
    """This test process's own name: the test run's (pytest-xdist's run id, or the process id
    without xdist) and the worker's among the run's ("gw0", ...; "main" without xdist). Two
    runs at once on one server (two clones, two CI jobs) then never drop each other's
    databases, as they did when only the worker's name was used."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")[:8] or str(os.getpid())
    return f"{run}_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


def worker_pg_url(url: str) -> str:
    """The URL of this test process's own database on the server of ``url``."""
    parsed = make_url(url)
    return parsed.set(database=f"{parsed.database}_{worker_suffix()}").render_as_string(hide_password=False)


def _admin(url: str) -> sa.Engine:
    return sa.create_engine(make_url(url).set(drivername="postgresql+psycopg2", database="postgres"),
                            isolation_level="AUTOCOMMIT")


def _template_name(url: str) -> str:
    return f"{make_url(url).database}_template"


def create_pg_database(url: str) -> None:
    """An empty database of ``url``'s name (dropped first if a previous run left it)."""
    name = make_url(url).database
    admin = _admin(url)
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    finally:
        admin.dispose()


def drop_pg_databases(url: str) -> None:
    """``url``'s database and its template gone (at the end of the session)."""
    admin = _admin(url)
    try:
        with admin.connect() as conn:
            for name in (make_url(url).database, _template_name(url)):
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()


_pg_templates: set[str] = set()


def fresh_pg(url: str) -> None:
    """``url``'s database replaced by a copy of the migrated template (made on first use).

    Connections still open on the old database are closed by the server (``WITH (FORCE)``):
    a test that left a service open cannot hold the next test's database."""
    template = _template_name(url)
    name = make_url(url).database
    admin = _admin(url)
    try:
        if template not in _pg_templates:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{template}" WITH (FORCE)')
                conn.exec_driver_sql(f'CREATE DATABASE "{template}"')
            _migrate(make_url(url).set(database=template).render_as_string(hide_password=False))
            _pg_templates.add(template)
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.exec_driver_sql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        admin.dispose()
