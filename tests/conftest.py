"""Settings every test directory shares: under pytest-xdist, each worker its own PostgreSQL
database.

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
