"""Steps made at once share one SQLite commit (bot/service/transactions.py ``_Group``), on a real
SQLite file with the toy engine: each still stands or falls alone, none returns before the
commit, and a commit that fails takes them all back, the hot cache included."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.models import dumps
from bot.service import GameService, StaleVersion, state_hash
from engine.api import RuleError
from tests.bot.test_service import ANN, BOB, rows, two_player_game


def count_commits(service: GameService, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The commits of the service's writing connection, counted (opened by a first step)."""
    counted: list[int] = []
    driver = service._writer_driver
    assert driver is not None, "a step opened the writing connection"
    commit = driver.commit

    async def counting() -> None:
        counted.append(1)
        await commit()

    monkeypatch.setattr(driver, "commit", counting)
    return counted


async def test_steps_made_at_once_share_one_commit(service: GameService, db_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    games = [await two_player_game(service, seed=s) for s in range(6)]
    await service.apply(games[0], "red", {"type": "add", "n": 1}, 0, ANN)
    commits = count_commits(service, monkeypatch)
    steps = await asyncio.gather(*(service.apply(pk, "red", {"type": "add", "n": 2}, 1 if pk == games[0] else 0, ANN)
                                   for pk in games))
    assert len(commits) == 1, "six steps, one commit"
    assert [s.version for s in steps] == [2, 1, 1, 1, 1, 1]
    for pk in games:  # each step has its own move row, hash and notifications
        version, state = await service.state(pk)
        assert rows(db_path, "SELECT max(seq) FROM move WHERE game_pk=?", pk)[0][0] == version
        assert rows(db_path, "SELECT state_hash FROM move WHERE game_pk=? AND seq=?", pk, version)[0][0] \
            == state_hash(dumps(state))
        assert rows(db_path, "SELECT count(*) FROM outbox WHERE game_pk=? AND dedupe_key LIKE ?",
                    pk, f"g{pk}:v{version}:%")[0][0] >= 1
    # alone, a step still commits at once
    await service.apply(games[1], "red", {"type": "bank"}, 1, ANN)
    assert len(commits) == 2


async def test_a_step_that_fails_takes_back_only_its_own_statements(
        service: GameService, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused step (a rule, a stale version) writes nothing; a step that fails after its
    move row and game row were written (here: making its notifications) takes back exactly
    those, inside the shared transaction; the other steps of the group are committed."""
    games = [await two_player_game(service, seed=s) for s in range(5)]
    broken = games[3]
    notices = service._notices

    def failing(loaded: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if loaded.game.id == broken:
            raise RuntimeError("the notifications could not be made")
        return notices(loaded, *args, **kwargs)

    monkeypatch.setattr(service, "_notices", failing)
    before = rows(db_path, "SELECT count(*) FROM outbox")[0][0]
    broken_rows = rows(db_path, "SELECT * FROM outbox WHERE game_pk=?", broken)
    outcomes = await asyncio.gather(
        service.apply(games[0], "red", {"type": "add", "n": 1}, 0, ANN),
        service.apply(games[1], "red", {"type": "add", "n": 3}, 0, ANN),  # no such action
        service.apply(games[2], "red", {"type": "add", "n": 1}, 5, ANN),  # stale
        service.apply(broken, "red", {"type": "add", "n": 1}, 0, ANN),
        service.apply(games[4], "red", {"type": "bank"}, 0, ANN),
        return_exceptions=True)
    assert isinstance(outcomes[1], RuleError)
    assert isinstance(outcomes[2], StaleVersion)
    assert isinstance(outcomes[3], RuntimeError)
    assert [o.version for o in (outcomes[0], outcomes[4]) if not isinstance(o, BaseException)] == [1, 1]
    versions = dict(rows(db_path, "SELECT id, version FROM game"))
    assert versions == {games[0]: 1, games[1]: 0, games[2]: 0, broken: 0, games[4]: 1}
    assert rows(db_path, "SELECT game_pk, seq FROM move ORDER BY game_pk") == [(games[0], 1), (games[4], 1)]
    assert rows(db_path, "SELECT * FROM outbox WHERE game_pk=?", broken) == broken_rows
    assert rows(db_path, "SELECT count(*) FROM outbox")[0][0] > before
    monkeypatch.setattr(service, "_notices", notices)
    step = await service.apply(broken, "red", {"type": "add", "n": 2}, 0, ANN)
    assert step.version == 1 and (await service.state(broken))[1]["pending"] == 2
    for pk in games:
        assert (await service.replay_check(pk)).ok


async def test_two_steps_of_one_game_in_one_group(service: GameService, db_path: Path) -> None:
    """The second step reads the game as the first left it in the open transaction (its
    version, and its state, which is not in the hot cache before the commit)."""
    pk = await two_player_game(service)
    first, second, third = await asyncio.gather(
        service.apply(pk, "red", {"type": "add", "n": 2}, 0, ANN),
        service.apply(pk, "red", {"type": "bank"}, 1, ANN),
        service.apply(pk, "blue", {"type": "add", "n": 1}, 2, BOB))
    assert (first.version, second.version, third.version) == (1, 2, 3)
    version, state = await service.state(pk)
    assert version == 3 and state["score"] == {"red": 2, "blue": 0} and state["pending"] == 1
    assert (await service.replay_check(pk)).ok


async def test_a_commit_that_fails_fails_every_step_of_its_group(
        service: GameService, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    games = [await two_player_game(service, seed=s) for s in range(3)]
    await service.apply(games[0], "red", {"type": "add", "n": 1}, 0, ANN)
    driver = service._writer_driver
    commit = driver.commit

    async def disk_full() -> None:
        raise OSError("disk full")

    monkeypatch.setattr(driver, "commit", disk_full)
    outcomes = await asyncio.gather(
        service.apply(games[0], "red", {"type": "add", "n": 2}, 1, ANN),
        service.apply(games[1], "red", {"type": "add", "n": 2}, 0, ANN),
        service.apply(games[2], "red", {"type": "add", "n": 2}, 0, ANN),
        return_exceptions=True)
    assert all(isinstance(o, OSError) for o in outcomes), outcomes
    monkeypatch.setattr(driver, "commit", commit)
    assert rows(db_path, "SELECT count(*) FROM move")[0][0] == 1
    # nothing of the failed group is served from the hot cache: the same versions are free
    for pk, version in zip(games, (1, 0, 0), strict=True):
        step = await service.apply(pk, "red", {"type": "add", "n": 1}, version, ANN)
        assert step.version == version + 1
        assert (await service.state(pk))[1]["pending"] == (2 if pk == games[0] else 1)
        assert (await service.replay_check(pk)).ok


async def test_a_group_holds_at_most_group_steps(service: GameService, db_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A group holds SQLite's write lock until it commits: steps past GROUP_STEPS wait for
    that commit and share the next one."""
    monkeypatch.setattr("bot.service.transactions.GROUP_STEPS", 4)
    games = [await two_player_game(service, seed=s) for s in range(10)]
    await service.apply(games[0], "red", {"type": "add", "n": 1}, 0, ANN)
    commits = count_commits(service, monkeypatch)
    steps = await asyncio.gather(*(service.apply(pk, "red", {"type": "add", "n": 1}, 1 if pk == games[0] else 0, ANN)
                                   for pk in games))
    assert len(commits) == 3, "10 steps in groups of at most 4"
    assert all(s.version == (2 if s.game_pk == games[0] else 1) for s in steps)
    assert rows(db_path, "SELECT count(*) FROM move")[0][0] == 11
