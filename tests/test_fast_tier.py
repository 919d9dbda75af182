"""The test suite's own machinery: ``make check`` (lint, types and the fast tests on every
core), pytest-xdist pinned for a fresh clone, migrated databases copied rather than migrated
per test, and one PostgreSQL database per xdist worker."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from bot.db import alembic_config
from tests import databases

ROOT = Path(__file__).resolve().parents[1]


def _dry_run(target: str, tmp_path: Path) -> str:
    done = subprocess.run(["make", "-n", "-B", target, f"VENV={tmp_path / 'venv'}"], cwd=ROOT, text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_make_check_lints_types_and_runs_the_fast_tests_in_parallel(tmp_path: Path) -> None:
    commands = _dry_run("check", tmp_path)
    assert "ruff check" in commands and "mypy engine" in commands
    pytest_line = next(line for line in commands.splitlines() if "-m pytest" in line)
    assert "-n auto" in pytest_line and "-m \"not slow and not postgres\"" in pytest_line


def test_make_test_runs_every_test_in_parallel(tmp_path: Path) -> None:
    pytest_line = next(line for line in _dry_run("test", tmp_path).splitlines() if "-m pytest" in line)
    assert "-n auto" in pytest_line and " -m " not in pytest_line.split("-m pytest", 1)[1]


def test_pytest_xdist_is_a_pinned_test_dependency() -> None:
    pins = (ROOT / "requirements" / "test.txt").read_text().splitlines()
    assert any(line.startswith("pytest-xdist==") for line in pins)
    assert any(line.startswith("execnet==") for line in pins)
    assert '"pytest-xdist' in (ROOT / "pyproject.toml").read_text()


def test_each_test_gets_its_own_copy_of_a_migrated_database(tmp_path: Path) -> None:
    first, second = databases.migrated_sqlite(tmp_path / "a.db"), databases.migrated_sqlite(tmp_path / "b" / "c.db")
    head = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
    for path in (first, second):
        with sqlite3.connect(path) as conn:
            assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(head,)]
    with sqlite3.connect(first) as conn:
        conn.execute("CREATE TABLE scratch (x)")
    with sqlite3.connect(second) as conn:
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'scratch'").fetchall() == []


@pytest.mark.parametrize(("run", "worker", "database"), [
    ("0123456789abcdef", "gw0", "alcazaba_test_01234567_gw0"), ("0123456789abcdef", "gw1", "alcazaba_test_01234567_gw1"),
    ("fedcba9876543210", "gw0", "alcazaba_test_fedcba98_gw0"), (None, None, "alcazaba_test_{pid}_main")])
def test_each_xdist_worker_of_each_run_has_its_own_postgresql_database(
        monkeypatch: pytest.MonkeyPatch, run: str | None, worker: str | None, database: str) -> None:
    for name, value in (("PYTEST_XDIST_TESTRUNUID", run), ("PYTEST_XDIST_WORKER", worker)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    url = databases.worker_pg_url("postgresql+asyncpg://postgres@127.0.0.1:5432/alcazaba_test")
    assert url == f"postgresql+asyncpg://postgres@127.0.0.1:5432/{database.format(pid=os.getpid())}"
