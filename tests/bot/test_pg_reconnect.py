"""A PostgreSQL connection the server dropped does not break the service's next command.

The service pings no connection before using it (bot/db.py: SQLAlchemy's ``pool_pre_ping``
cost three round trips per checkout). These tests drop every connection the service holds,
by terminating their server processes or restarting the server between two steps, and check
that the next view, step, built-in player's move and outbox claim all succeed, with every
move recorded once. They run against the server of ``ALCAZABA_TEST_PG_URL`` (.ci/postgres.sh),
except the restart test: it starts a server of its own (.ci/postgres.sh in a directory of its
own) and restarts that one (``pg_ctl restart``, the same data directory and options), so that
the tests other pytest-xdist workers run meanwhile on the shared server keep their connections."""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from bot.db import PgDrivers, make_engine, migrate
from bot.service import GameService

pytestmark = pytest.mark.postgres
PG_URL = os.environ.get("ALCAZABA_TEST_PG_URL", "")


ROOT = Path(__file__).resolve().parents[2]


async def _admin(of: str = "") -> asyncpg.Connection:
    url = make_url(of or PG_URL)
    return await asyncpg.connect(user=url.username, password=url.password, host=url.host, port=url.port,
                                 database=url.database)


async def _others(admin: asyncpg.Connection) -> list[int]:
    """The server processes of the test database's other connections (the service's)."""
    rows = await admin.fetch("SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                             "AND pid <> pg_backend_pid()")
    return [int(r["pid"]) for r in rows]


async def _terminate_the_service_connections() -> int:
    admin = await _admin()
    try:
        pids = await _others(admin)
        for pid in pids:
            await admin.execute("SELECT pg_terminate_backend($1)", pid)
        for _ in range(100):  # until the server has let them go
            if not set(pids) & set(await _others(admin)):
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the terminated connections are still there")
        return len(pids)
    finally:
        await admin.close()


async def _game(service: GameService) -> int:
    """A running toy game: red a person (user 7), blue the built-in player at ``easy``."""
    info = await service.create_game("toy", {"target": 20}, seed=5, channel_id=99)
    await service.join(info.id, 7, "Ann", role="red")
    await service.start(info.id, fill_with_bots=True)
    await service.set_levels(info.id, {"blue": "easy"})
    return info.id


async def _a_round(service: GameService, pk: int) -> int:
    """A view and a step of red (the front end's way), the built-in player's answer, and the
    outbox claimed and marked sent; the game's version after it."""
    view = await service.view(pk, "red", user_id=7)
    step = await service.apply(pk, "red", {"type": "bank"}, view.version, 7)  # blue's turn
    bots = await service.play_bots(pk)
    assert bots and [b.version for b in bots] == list(range(step.version + 1, step.version + len(bots) + 1))
    claimed = await service.claim_outbox("w", limit=100)
    assert claimed
    assert all(await asyncio.gather(*(service.mark_sent(o.id, "w") for o in claimed)))
    return bots[-1].version


async def _moves_recorded_once(service: GameService, pk: int, version: int) -> None:
    moves = await service.moves(pk)
    assert [m["seq"] for m in moves] == list(range(1, version + 1))
    assert (await service.replay_check(pk)).ok


async def test_the_next_step_after_the_service_connections_were_terminated(pg_service: GameService) -> None:
    service = pg_service
    pk = await _game(service)
    before = await _a_round(service, pk)
    assert await _terminate_the_service_connections() >= 2  # its own and SQLAlchemy's pool
    version = await _a_round(service, pk)
    assert version >= before + 2
    await _moves_recorded_once(service, pk, version)


class _Unaware:
    """A connection as its client sees it before reading the closed socket: open."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    def is_closed(self) -> bool:
        return False

    def __getattr__(self, name: str) -> object:
        return getattr(self.conn, name)


@pytest.fixture
async def one_driver() -> AsyncIterator[PgDrivers]:
    """The service's own connections, at most one, on the test server."""
    if not PG_URL:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set")
    engine = make_engine(PG_URL)
    drivers = PgDrivers(engine, size=1)
    yield drivers
    await drivers.close()
    await engine.dispose()


async def test_a_step_that_meets_a_dropped_connection_begins_again_on_a_fresh_one(one_driver: PgDrivers) -> None:
    """The race the check at checkout cannot see: the server dropped the connection but the
    client has not read the closed socket yet, so BEGIN is sent on it. It fails, wrote
    nothing, and the transaction begins on a fresh connection."""
    drivers = one_driver
    async with drivers.transaction() as conn:
        first = conn.get_server_pid()
    admin = await _admin()
    try:
        await admin.execute("SELECT pg_terminate_backend($1)", first)
    finally:
        await admin.close()
    # The idle connection is handed out as if still open (the client not yet having
    # noticed), so that BEGIN meets the dropped connection.
    stale = drivers._idle[0] = _Unaware(drivers._idle[0])
    async with drivers.transaction() as conn:
        assert conn is not stale and conn.get_server_pid() != first
        assert stale.conn.is_closed()
        assert await conn.fetchval("SELECT 1") == 1
    assert await drivers.fetch("SELECT 2") == [(2,)]


def _pg_ctl(admin_rows: dict[str, str]) -> str:
    found = Path(admin_rows["bindir"]) / "pg_ctl"
    if found.exists():
        return str(found)
    which = shutil.which("pg_ctl")
    if which is None:
        pytest.skip("pg_ctl is not on this machine (the server runs elsewhere)")
    return which


@pytest.fixture
def own_server() -> Iterator[str]:
    """A migrated database on a PostgreSQL server of this test's own (asyncpg URL), stopped
    and removed at the end. Skips where the shared server runs elsewhere (no binaries here)."""
    if not PG_URL:
        pytest.skip("ALCAZABA_TEST_PG_URL is not set")
    if not (list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")) or shutil.which("pg_ctl")):
        pytest.skip("pg_ctl is not on this machine (the server runs elsewhere)")
    folder = Path(tempfile.gettempdir()) / f"alcazaba-pg-restart-{os.getpid()}-{secrets.token_hex(3)}"
    script = ["bash", str(ROOT / ".ci" / "postgres.sh")]
    env = {**os.environ, "ALCAZABA_PG_DIR": str(folder), "ALCAZABA_PG_DB": "restart"}
    try:
        done = subprocess.run(script, env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        url = done.stdout.strip().rpartition("ALCAZABA_TEST_PG_URL=")[2]
        migrate(url)
        yield url
    finally:
        subprocess.run([*script, "stop"], env=env, capture_output=True, timeout=120)


async def test_the_next_step_after_the_server_restarted(own_server: str) -> None:
    service = GameService.open(own_server)
    try:
        await _restart_between_two_rounds(service, own_server)
    finally:
        await service.close()


async def _restart_between_two_rounds(service: GameService, url: str) -> None:
    admin = await _admin(url)
    try:
        rows = {"data": await admin.fetchval("SHOW data_directory"),
                "bindir": await admin.fetchval("SELECT setting FROM pg_config WHERE name = 'BINDIR'")}
    finally:
        await admin.close()
    if not Path(rows["data"]).is_dir():
        pytest.skip("the server's data directory is not on this machine")
    pg_ctl = _pg_ctl(rows)
    pk = await _game(service)
    before = await _a_round(service, pk)
    # The server's output goes where .ci/postgres.sh sends it (else nowhere): pg_ctl's own
    # output is a pipe the server would hold open.
    log = Path(rows["data"]).parent / "server.log"
    restart = [pg_ctl, "-D", rows["data"], "-l", str(log) if log.exists() else os.devnull,
               "restart", "-m", "fast", "-w", "-t", "60"]
    owner = Path(rows["data"]).owner()
    if os.geteuid() == 0 and owner != "root":  # pg_ctl refuses root (as .ci/postgres.sh does it)
        if shutil.which("runuser") is None:
            pytest.skip("runuser is not on this machine, and pg_ctl refuses to run as root")
        restart = ["runuser", "-u", owner, "--", *restart]
    done = await asyncio.to_thread(subprocess.run, restart, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    version = await _a_round(service, pk)
    assert version >= before + 2
    await _moves_recorded_once(service, pk, version)


async def test_a_connection_older_than_the_recycle_age_is_replaced(one_driver: PgDrivers) -> None:
    """A connection a firewall dropped without a word shows no closed socket: the service's own
    connections are therefore replaced once older than ``recycle_s`` (an hour by default), as
    SQLAlchemy's pool replaces its own (``pool_recycle``)."""
    drivers = one_driver
    async with drivers.transaction() as conn:
        first = conn.get_server_pid()
    async with drivers.transaction() as conn:
        assert conn.get_server_pid() == first  # young: kept
    drivers.recycle_s = 0.0
    await asyncio.sleep(0.01)
    assert [r[0] for r in await drivers.fetch("SELECT pg_backend_pid()")] != [first]
