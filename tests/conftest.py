"""Settings every test directory shares: under pytest-xdist, each worker its own PostgreSQL
database; every test that runs on PostgreSQL marked ``postgres``, and every slow one ``slow``
(``make check`` leaves both out; ``make test`` and CI run everything).

Slow: a test that starts the bot against the Discord stand-in (the ``standin`` fixture), one
marked ``@pytest.mark.slow`` in its file, or one listed in ``tests/slow_tests.txt``: those
that took half a second or more on the project's 2-core machine (the list keeps the marks
out of the test files, where they would be a decorator on each of 300 tests in 80 files).

The tests read ``ALCAZABA_TEST_PG_URL`` when their modules are imported; this file is imported
before any of them (it is the outermost conftest), so it points the variable at the worker's
own database (``alcazaba_test_<run>_gw0``, ``..._gw1``, ``alcazaba_test_<pid>_main`` without
xdist) on the same server. Two workers, or two runs, thus never migrate, empty or drop each
other's tables.
The database is made when the worker starts and dropped when it ends (tests/databases.py).
"""

from __future__ import annotations

import os
from pathlib import Path

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
_SLOW_FIXTURES = frozenset({"standin"})
"""Fixtures that make a test slow: the stand-in with the real bot connected to it."""
SLOW_LIST = Path(__file__).with_name("slow_tests.txt")


def slow_tests() -> frozenset[str]:
    """The test ids of ``tests/slow_tests.txt``: a case of a parametrized test, or a test
    without its parameters (every case of it)."""
    lines = SLOW_LIST.read_text().splitlines() if SLOW_LIST.exists() else []
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test on PostgreSQL is marked ``postgres`` whether or not its file says so: it uses a
    PostgreSQL fixture, or it is the "postgresql" case of a test run on both databases. A
    slow test is marked ``slow`` (see above)."""
    slow = slow_tests()
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        listed = item.nodeid in slow or item.nodeid.split("[", 1)[0] in slow
        if (listed or _SLOW_FIXTURES & fixtures) and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
        callspec = getattr(item, "callspec", None)
        on_pg = bool(_PG_FIXTURES & fixtures) or (
            callspec is not None and "postgresql" in callspec.params.values())
        if on_pg and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Granada's location index of a state apply returned is taken from the step that made it
    (engine/granada/placement.py, issue 33), which holds only if nobody edits such a state in
    place: under the tests, every such index is checked against a scan."""
    from engine.granada import placement

    placement.VERIFY = True
