"""Steps stay cheap with many games stored: every query a command makes uses an index.

This is what keeps a step's cost flat as a community's archive grows. How long a step takes
is measured by ``alcazaba bench`` (``service.step``), not asserted here: timings belong to
benchmarks, not to pass/fail tests."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.models import dumps
from bot.service import GameService
from bot.settings import sqlite_url
from tests.bot import toygame

STORED_GAMES = 10_000
MOVES_PER_GAME = 40


@pytest.fixture
def crowded_db(db_path: Path) -> Path:
    """10,000 running games with seats, 40 moves each and delivered notifications. Filled
    with plain SQL: the rows are the scenery here, not what is tested."""
    text = dumps(toygame.setup(1, {"target": 20}))
    stamp = "2026-01-01 00:00:00"
    ids = range(1, STORED_GAMES + 1)
    with sqlite3.connect(db_path) as conn:
        conn.executemany(
            "INSERT INTO game (id, game_id, seed, options, status, version, active, channel_id, created_at,"
            " updated_at) VALUES (?, 'toy', 1, '{\"target\":20}', 'running', ?, '[\"red\"]', ?, ?, ?)",
            [(i, MOVES_PER_GAME, 5000 + i, stamp, stamp) for i in ids])
        conn.executemany("INSERT INTO game_state (game_pk, version, state, updated_at) VALUES (?, ?, ?, ?)",
                         [(i, MOVES_PER_GAME, text, stamp) for i in ids])
        conn.executemany(
            "INSERT INTO seat (game_pk, role, user_id, display_name, is_bot, prefs, joined_at)"
            " VALUES (?, ?, ?, 'p', 0, '{}', ?)",
            [(i, role, i * 10 + k, stamp) for i in ids for k, role in enumerate(("red", "blue"))])
        conn.executemany(
            "INSERT INTO move (game_pk, seq, role, action, kind, barrier, state_hash, created_at)"
            " VALUES (?, ?, 'red', '{\"type\":\"bank\"}', 'step', 0, 'x', ?)",
            [(i, s, stamp) for i in ids for s in range(1, MOVES_PER_GAME + 1)])
        conn.executemany(
            "INSERT INTO outbox (game_pk, kind, recipient, payload, dedupe_key, created_at, sent_at, attempts,"
            " next_attempt_at) VALUES (?, 'dm', '1', '{}', ?, ?, ?, 0, ?)",
            [(i, f"old:{i}:{k}", stamp, stamp, stamp) for i in ids for k in range(3)])
    return db_path


FULL_SCAN = re.compile(r"^SCAN (game|game_state|move|seat|outbox)$")


def full_scans(db_path: Path, statements: list[tuple[str, Any]]) -> list[str]:
    found = []
    with sqlite3.connect(db_path) as conn:
        for sql, params in statements:
            if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")):
                continue
            for row in conn.execute("EXPLAIN QUERY PLAN " + sql, tuple(params or ())):
                if FULL_SCAN.match(row[3]):
                    found.append(f"{row[3]} in: {sql}")
    return found


@pytest.mark.slow
async def test_commands_use_indexes_with_many_games_stored(crowded_db: Path) -> None:
    service = GameService.open(sqlite_url(crowded_db))
    statements: list[tuple[str, Any]] = []

    @event.listens_for(service.db.sync_engine, "before_cursor_execute")
    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool) -> None:
        statements.append((statement, parameters))

    try:
        users = {"red": 1, "blue": 2}
        steps = 0
        games = 0
        while steps < 200:
            info = await service.create_game("toy", {"target": 20}, seed=games, channel_id=77)
            await service.join(info.id, users["red"], "Ann")
            await service.join(info.id, users["blue"], "Bob")
            await service.start(info.id)
            games += 1
            version, role = 0, "red"
            for turn in range(40):
                for action in ({"type": "add", "n": 2}, {"type": "add", "n": 1}, {"type": "bank"}):
                    step = await service.apply(info.id, role, action, version, users[role])
                    steps += 1
                    version = step.version
                if step.finished:
                    break
                if turn == 0:
                    # the other commands a front end makes between steps
                    await service.view(info.id, role, users[role])
                    await service.can_undo(info.id, role)
                    await service.claim_outbox("w", limit=10)
                    await service.games(channel_id=77)
                    await service.games(user_id=users["red"], status="running")
                    await service.waiting_for_bots()
                role = step.active[0]
            undo_from = await service.apply(info.id, role, {"type": "add", "n": 1}, version, users[role]) \
                if not step.finished else None
            if undo_from is not None:
                await service.undo(info.id, role, undo_from.version, users[role])
    finally:
        await service.close()
    scans = full_scans(crowded_db, statements)
    assert scans == [], "\n".join(sorted(set(scans)))
