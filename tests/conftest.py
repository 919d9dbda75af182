"""Settings every test directory shares: under pytest-xdist, each worker its own PostgreSQL
database; and every test that runs on PostgreSQL marked ``postgres`` (``make check`` leaves
them out; ``make test`` and CI run them).

The tests read ``ALCAZABA_TEST_PG_URL`` when their modules are imported; this file is imported
before any of them (it is the outermost conftest), so it points the variable at the worker's
own database (``alcazaba_test_gw0``, ``alcazaba_test_gw1``, ``alcazaba_test_main`` without
xdist) on the same server. Two workers thus never migrate, empty or drop each other's tables.
The database is made when the worker starts and dropped when it ends (tests/databases.py).
"""

from __future__ import annotations

import os

import pytest

from tests import databases

_GIVEN_PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")
if _GIVEN_PG_URL:
    os.environ["ALCAZABA_TEST_PG_URL"] = databases.worker_pg_url(_GIVEN_PG_URL)


def _runs_tests(config: pytest.Config) -> bool:
    """False in pytest-xdist's controller, which hands the tests to its workers."""
    if hasattr(config, "workerinput"):
        return True
    return not config.getoption("numprocesses", None)


def pytest_configure(config: pytest.Config) -> None:
    if _GIVEN_PG_URL and _runs_tests(config) and not config.option.collectonly:
        databases.create_pg_database(os.environ["ALCAZABA_TEST_PG_URL"])


def pytest_unconfigure(config: pytest.Config) -> None:
    if _GIVEN_PG_URL and _runs_tests(config) and not config.option.collectonly:
        databases.drop_pg_databases(os.environ["ALCAZABA_TEST_PG_URL"])


_PG_FIXTURES = frozenset({"pg_service", "pg_url", "pg_clean", "pg_database", "own_server"})
"""Fixtures that put a test on the PostgreSQL server (tests/bot, tests/reliability)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test on PostgreSQL is marked ``postgres`` whether or not its file says so: it uses a
    PostgreSQL fixture, or it is the "postgresql" case of a test run on both databases."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_pg = bool(_PG_FIXTURES & set(getattr(item, "fixturenames", ()))) or (
            callspec is not None and "postgresql" in callspec.params.values())
        if on_pg and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)
