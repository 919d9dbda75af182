"""Snapshots every SNAPSHOT_EVERY moves and a delta per move in between (issue 13).

A game not in the hot cache is rebuilt from its last snapshot and the deltas after it, and
checked against the last move's hash. These tests hold that a game loaded cold is the one
kept hot (toy race and a real Granada game), that a damaged snapshot, delta or log is
detected rather than served, that undo works across a snapshot, that a process killed
between steps loses nothing, and that the downgrade to 0005 writes every snapshot up to date.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from bot.db import alembic_config
from bot.models import dumps
from bot.service import GameService, ServiceError, state_hash
from bot.service.deltas import SNAPSHOT_EVERY, apply_delta, state_delta
from bot.settings import sqlite_url
from engine.rng import Generator

ANN, BOB = 101, 202
N = SNAPSHOT_EVERY
ROOT = Path(__file__).resolve().parents[2]


def rows(db_path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as conn:
        return conn.execute(sql, params).fetchall()


def execute(db_path: Path, sql: str, *params: Any) -> None:
    with sqlite3.connect(db_path) as conn:
        conn.execute(sql, params)


async def toy_game(service: GameService) -> int:
    info = await service.create_game("toy", {"target": 20}, seed=11, channel_id=900)
    await service.join(info.id, ANN, "Ann")
    await service.join(info.id, BOB, "Bob")
    await service.start(info.id)
    return info.id


async def add_ones(service: GameService, pk: int, count: int) -> int:
    """Red adds 1, ``count`` times (undoable steps: the turn never passes)."""
    version = (await service.game(pk)).version
    for _ in range(count):
        version = (await service.apply(pk, "red", {"type": "add", "n": 1}, version, ANN)).version
    return version


async def cold_state(db_path: Path, pk: int) -> tuple[int, Any]:
    fresh = GameService.open(sqlite_url(db_path))
    try:
        return await fresh.state(pk)
    finally:
        await fresh.close()


async def cold_replay(db_path: Path, pk: int) -> Any:
    fresh = GameService.open(sqlite_url(db_path))
    try:
        return await fresh.replay_check(pk)
    finally:
        await fresh.close()


# ----------------------------------------------------------------------------- the delta itself

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1, 2) | st.sampled_from([0.0, -0.0, 1.0, 0.5])
    | st.text("ab", max_size=2),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text("abc", max_size=2), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_a_delta_turns_any_value_into_any_other(old: Any, new: Any) -> None:
    delta = json.loads(dumps(state_delta(old, new)))  # as stored
    assert dumps(apply_delta(json.loads(dumps(old)), delta)) == dumps(new)


@settings(max_examples=300, deadline=None)
@given(json_values, json_values)
def test_a_rebuilt_value_is_the_parse_of_its_text_keys_in_order_too(old: Any, new: Any) -> None:
    """A game loaded cold is served as the deltas made it, not parsed again from its text
    (issue 33), so it must be that parse exactly: a key a delta adds goes where a parse of
    the canonical text (sorted keys) puts it, not last."""
    rebuilt = apply_delta(json.loads(dumps(old)), json.loads(dumps(state_delta(old, new))))
    assert json.dumps(rebuilt) == json.dumps(json.loads(dumps(new)))  # unsorted: the order shows


@pytest.mark.parametrize(("old", "new"), [
    ({"a": False}, {"a": 0}), ([1], [1.0]), ({"x": 0.0}, {"x": -0.0}), ([True, 2], [1, 2]), ({"k": [0]}, {"k": [False]}),
])
def test_values_python_finds_equal_but_json_prints_apart_are_changes(old: Any, new: Any) -> None:
    """False == 0 == 0.0 in Python; in the canonical text (and so in the move's hash) they differ."""
    assert old == new and dumps(old) != dumps(new)
    assert dumps(apply_delta(json.loads(dumps(old)), json.loads(dumps(state_delta(old, new))))) == dumps(new)


@settings(max_examples=200, deadline=None)
@given(json_values, st.lists(json_values, max_size=3), st.text("abc", max_size=2), json_values)
def test_a_delta_of_a_small_change_is_small(base: Any, appended: list[Any], key: str, value: Any) -> None:
    old = {"log": [base] * 20, "board": {"k": base, "other": [1, 2, 3] * 10}}
    new = json.loads(dumps(old))
    new["log"].extend(appended)
    new["board"][key] = value
    delta = state_delta(old, new)
    assert dumps(apply_delta(json.loads(dumps(old)), json.loads(dumps(delta)))) == dumps(new)
    assert "other" not in delta["{"].get("board", {}).get("{", {}) or key == "other"
    assert len(dumps(delta)) <= len(dumps(appended)) + len(dumps(value)) + 60, "only the change is stored"


# ----------------------------------------------------------------------------- cold equals hot


async def test_a_game_loaded_cold_equals_the_one_kept_hot(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    for target in (1, N - 1, N, N + 1, 2 * N, 2 * N + 5):
        version = await add_ones(service, pk, target - (await service.game(pk)).version)
        hot = await service.state(pk)
        assert hot == await cold_state(db_path, pk)
        assert hot[1]["pending"] == version
        snapshot = rows(db_path, "SELECT version FROM game_state WHERE game_pk=?", pk)[0][0]
        assert snapshot == version // N * N, "a snapshot every N moves, none in between"
    deltas = dict(rows(db_path, "SELECT seq, delta IS NOT NULL FROM move WHERE game_pk=?", pk))
    assert [seq for seq, has in deltas.items() if not has] == [N, 2 * N], "a move with a snapshot has no delta"
    assert (await cold_replay(db_path, pk)).ok


async def test_the_end_of_a_game_writes_a_snapshot(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    version = await add_ones(service, pk, 20)
    step = await service.apply(pk, "red", {"type": "bank"}, version, ANN)
    assert step.finished
    assert rows(db_path, "SELECT version FROM game_state WHERE game_pk=?", pk)[0][0] == step.version
    assert (await cold_state(db_path, pk)) == await service.state(pk)


async def test_a_real_granada_game_loaded_cold_equals_the_one_kept_hot(service: GameService, db_path: Path) -> None:
    module = engine.GAMES["granada"]
    info = await service.create_game("granada", {}, seed=3)
    users: dict[str, int] = {}
    for n, role in enumerate(info.roles):
        users[role] = 1000 + n
        await service.join(info.id, users[role], f"p{n}", role)
    await service.start(info.id)
    pick = Generator(99)
    version, state = await service.state(info.id)
    checked = 0
    while version < 2 * N + 7 and module.result(state) is None:
        role = module.active(state)[0]
        action = pick.choice(module.actions(state, role))
        version = (await service.apply(info.id, role, action, version, users[role])).version
        state = module.apply(state, role, action)
        if version % 9 == 0 or version in (N, N + 1):
            cold = await cold_state(db_path, info.id)
            assert cold == (version, json.loads(dumps(state)))
            assert json.dumps(cold[1]) == json.dumps(json.loads(dumps(state))), "as parsed: keys in order too"
            checked += 1
    assert checked >= 7 and version > N
    assert (await cold_replay(db_path, info.id)).ok


# ----------------------------------------------------------------------------- damage is detected


@pytest.mark.parametrize("damage", ["delta", "hash", "missing", "snapshot"])
async def test_a_damaged_log_or_snapshot_is_detected_not_served(service: GameService, db_path: Path,
                                                                damage: str) -> None:
    pk = await toy_game(service)
    await add_ones(service, pk, N + 6)  # snapshot at N, deltas for N+1..N+6
    if damage == "delta":
        # A delta that still applies, to another state: only the hash can tell.
        execute(db_path, "UPDATE move SET delta=? WHERE game_pk=? AND seq=?",
                dumps({"{": {"pending": {"=": 99}}}), pk, N + 6)
    elif damage == "hash":
        execute(db_path, "UPDATE move SET state_hash='0000000000000000' WHERE game_pk=? AND seq=?", pk, N + 6)
    elif damage == "missing":
        execute(db_path, "DELETE FROM move WHERE game_pk=? AND seq=?", pk, N + 6)
    else:
        text = rows(db_path, "SELECT state FROM game_state WHERE game_pk=?", pk)[0][0]
        execute(db_path, "UPDATE game_state SET state=? WHERE game_pk=?", text.replace('"target":20', '"target":5'), pk)
    fresh = GameService.open(sqlite_url(db_path))
    try:
        with pytest.raises(ServiceError, match=f"Game {pk} is inconsistent"):
            await fresh.state(pk)
        with pytest.raises(ServiceError, match="inconsistent"):
            await fresh.apply(pk, "red", {"type": "add", "n": 1}, N + 6, ANN)
        report = await fresh.replay_check(pk)
    finally:
        await fresh.close()
    assert not report.ok
    if damage == "hash":
        assert report.seq == N + 6
    assert rows(db_path, "SELECT max(seq) FROM move WHERE game_pk=?", pk)[0][0] <= N + 6, "nothing was written"


# ----------------------------------------------------------------------------- undo across a snapshot


async def test_undo_across_a_snapshot_boundary(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    version = await add_ones(service, pk, N)  # move N wrote the snapshot
    assert rows(db_path, "SELECT version FROM game_state WHERE game_pk=?", pk)[0][0] == N
    for expected_pending in (N - 1, N - 2):  # take back move N, then move N-1 (before the snapshot)
        version = (await service.undo(pk, "red", version, ANN)).version
        hot = await service.state(pk)
        assert hot[1]["pending"] == expected_pending
        assert await cold_state(db_path, pk) == hot
    version = await add_ones(service, pk, N)  # past the next snapshot, with undo rows in the log
    assert await cold_state(db_path, pk) == await service.state(pk)
    fresh = GameService.open(sqlite_url(db_path))
    try:
        version = (await fresh.undo(pk, "red", version, ANN)).version  # undo on a game loaded cold
        assert (await fresh.state(pk))[1]["pending"] == 2 * N - 3
        assert (await fresh.replay_check(pk)).ok
    finally:
        await fresh.close()
    assert await cold_state(db_path, pk) == (version, (await service.state(pk))[1])


# ----------------------------------------------------------------------------- a crash between steps


PLAYER = textwrap.dedent("""
    import asyncio, sys
    import engine
    from bot.service import GameService
    from tests.bot import toygame

    engine.GAMES[toygame.id] = toygame

    async def main(url, pk):
        service = GameService.open(url)
        version = (await service.game(pk)).version
        while True:
            version = (await service.apply(pk, "red", {"type": "add", "n": 1}, version, 101)).version
            print(version, flush=True)  # committed

    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
""")


async def test_a_process_killed_between_steps_loses_no_move(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    await add_ones(service, pk, 3)
    proc = subprocess.Popen([sys.executable, "-c", PLAYER, sqlite_url(db_path), str(pk)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    told = 0
    while told < N + 9:  # past a snapshot, between two
        line = proc.stdout.readline()
        assert line, "the player process ended early"
        told = int(line)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    version, state = await cold_state(db_path, pk)
    assert version >= told, "every step the process reported committed is there"
    assert state["pending"] == version, "and the state is the one its moves make"
    assert (await cold_replay(db_path, pk)).ok
    # The game goes on from the state rebuilt after the crash.
    more = GameService.open(sqlite_url(db_path))
    try:
        step = await more.apply(pk, "red", {"type": "add", "n": 2}, version, ANN)
        assert (await more.state(pk))[1]["pending"] == version + 2
    finally:
        await more.close()
    assert (await cold_state(db_path, pk))[0] == step.version


# ----------------------------------------------------------------------------- downgrade


async def test_the_downgrade_to_0005_brings_every_snapshot_up_to_date(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    version = await add_ones(service, pk, N + 4)
    hot = await service.state(pk)
    await service.close()
    await asyncio.to_thread(command.downgrade, alembic_config(sqlite_url(db_path)), "0005")
    snapshot, text = rows(db_path, "SELECT version, state FROM game_state WHERE game_pk=?", pk)[0]
    assert (snapshot, json.loads(text)) == (version, hot[1])
    assert rows(db_path, "SELECT state_hash FROM move WHERE game_pk=? AND seq=?", pk, version)[0][0] == state_hash(text)


async def test_replay_check_vouches_for_the_database_not_the_hot_cache(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service)
    await add_ones(service, pk, N + 2)
    await service.state(pk)  # hot
    execute(db_path, "UPDATE move SET delta=? WHERE game_pk=? AND seq=?", dumps({"{": {"pending": {"=": 7}}}), pk, N + 2)
    report = await service.replay_check(pk)  # the same service, its cache still right
    assert not report.ok and "different state from the stored one" in report.message
