"""The game service's storage tests (tests/bot/test_service.py), run again on PostgreSQL.

Every test there that talks to the database only through the service is collected here a
second time with ``service`` bound to PostgreSQL (asyncpg), so the two back ends are held to
the same behaviour by the same assertions, and a test added there is run here without
editing this file. Tests that read the SQLite file directly (they take ``db_path``) have
PostgreSQL counterparts below. Skipped, with the reason, when ALCAZABA_TEST_PG_URL is unset.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.service import GameService, StaleVersion
from engine.api import RuleError
from tests.bot import test_service as sqlite_suite
from tests.bot.boom import registered_boom
from tests.reliability.conftest import PG_SKIP, PG_URL, pg_rows

pytestmark = [pytest.mark.postgres, pytest.mark.skipif(not PG_URL, reason=PG_SKIP)]

_SQLITE_ONLY = {name for name, fn in vars(sqlite_suite).items()
                if name.startswith("test_") and callable(fn) and "db_path" in inspect.signature(fn).parameters}
PORTED = sorted(name for name in vars(sqlite_suite) if name.startswith("test_") and name not in _SQLITE_ONLY)
globals().update({name: value for name, value in vars(sqlite_suite).items()
                  if not name.startswith("__") and name not in _SQLITE_ONLY and name != "pytestmark"})


@pytest.fixture
async def service(pg_clean: str) -> AsyncIterator[GameService]:
    svc = GameService.open(pg_clean)
    yield svc
    await svc.close()


def test_the_suite_is_ported() -> None:
    """Guard: the import above really brought the service tests here."""
    assert len(PORTED) >= 20, PORTED


ANN, BOB = 101, 202


async def two_player_game_pg(service: GameService, channel: int | None = 900) -> int:
    info = await service.create_game("toy", {"target": 12}, seed=7, created_by=ANN, guild_id=1, channel_id=channel)
    await service.join(info.id, ANN, "Ann")
    await service.join(info.id, BOB, "Bob")
    await service.start(info.id)
    return info.id


def snapshot(url: str) -> dict[str, list[tuple[object, ...]]]:
    return {t: pg_rows(url, f"SELECT * FROM {t} ORDER BY 1") for t in ("game", "game_state", "move", "outbox")}


async def test_apply_writes_move_state_and_version_pg(service: GameService, pg_clean: str) -> None:
    pk = await two_player_game_pg(service)
    step = await service.apply(pk, "red", {"type": "add", "n": 2, "label": "add 2"}, 0, ANN)
    assert step.version == 1
    assert pg_rows(pg_clean, "SELECT seq, role, action, kind FROM move WHERE game_pk = :pk", pk=pk) == [
        (1, "red", '{"n":2,"type":"add"}', "step")]
    assert pg_rows(pg_clean, "SELECT version FROM game WHERE id = :pk", pk=pk) == [(1,)]
    # The snapshot stays at version 0 (one every SNAPSHOT_EVERY moves, issue 13): the move row
    # holds what the step changed, and a service loading the game cold rebuilds it.
    assert pg_rows(pg_clean, "SELECT version FROM game_state WHERE game_pk = :pk", pk=pk) == [(0,)]
    assert pg_rows(pg_clean, "SELECT delta FROM move WHERE game_pk = :pk", pk=pk) == [('{"{":{"pending":{"=":2}}}',)]
    cold = GameService.open(pg_clean)
    try:
        assert await cold.state(pk) == await service.state(pk)
    finally:
        await cold.close()


async def test_refusals_write_nothing_pg(service: GameService, pg_clean: str) -> None:
    pk = await two_player_game_pg(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    before = snapshot(pg_clean)
    with pytest.raises(RuleError):
        await service.apply(pk, "red", {"type": "add", "n": 7}, 1, ANN)
    with pytest.raises(StaleVersion):
        await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    assert snapshot(pg_clean) == before


@pytest.fixture
def boom_game() -> Iterator[None]:
    yield from registered_boom()


async def test_a_crash_mid_command_leaves_nothing_pg(service: GameService, pg_clean: str, boom_game: None) -> None:
    info = await service.create_game("boom", {}, seed=5, channel_id=900)
    await service.join(info.id, ANN, "Ann")
    await service.join(info.id, BOB, "Bob")
    await service.start(info.id)
    await service.apply(info.id, "red", {"type": "add", "n": 1}, 0, ANN)
    before = snapshot(pg_clean)
    with pytest.raises(RuntimeError, match="engine crashed"):
        await service.apply(info.id, "red", {"type": "add", "n": 2}, 1, ANN)
    assert snapshot(pg_clean) == before
    assert (await service.apply(info.id, "red", {"type": "add", "n": 1}, 1, ANN)).version == 2


async def test_tampered_log_is_named_pg(service: GameService, pg_clean: str) -> None:
    pk = await two_player_game_pg(service)
    version = 0
    for action in ({"type": "add", "n": 1}, {"type": "add", "n": 2}, {"type": "bank"}):
        version = (await service.apply(pk, "red", action, version, ANN)).version
    assert (await service.replay_check(pk)).ok
    changed = pg_rows(pg_clean, "UPDATE move SET action = :action WHERE game_pk = :pk AND seq = 2 RETURNING seq",
                      action='{"n":1,"type":"add"}', pk=pk)
    assert changed == [(2,)]
    report = await service.replay_check(pk)
    assert not report.ok and report.seq == 2, report
