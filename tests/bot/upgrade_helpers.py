"""Helpers of the upgrade tests (issue 14): copy the rows of a database into one at an older
revision, as that release would have held them, and play stored games to their end through
the service, undo included."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import sqlalchemy as sa

import engine
from bot.service import GameService, rules_version
from engine.players import choose

CORE_TABLES = ("game", "seat", "move", "game_state", "outbox")


def sync_url(url: str) -> str:
    """The synchronous driver's URL for an application URL (aiosqlite/asyncpg)."""
    parsed = sa.engine.make_url(url)
    driver = "sqlite" if parsed.drivername.startswith("sqlite") else "postgresql+psycopg2"
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


def copy_rows(source: Path, url: str, tables: tuple[str, ...] = CORE_TABLES) -> dict[str, list[dict[str, Any]]]:
    """Insert the rows of ``tables`` of the SQLite file ``source`` into the database at
    ``url``, keeping only the columns its revision has (the rows an older release would have
    written). Returns what was inserted."""
    copied: dict[str, list[dict[str, Any]]] = {}
    target = sa.create_engine(sync_url(url))
    try:
        meta = sa.MetaData()
        meta.reflect(target, only=list(tables))
        with sqlite3.connect(source) as conn:
            conn.row_factory = sqlite3.Row
            with target.begin() as out:
                for name in tables:
                    table = meta.tables[name]
                    rows = [dict(r) for r in conn.execute(f"SELECT * FROM {name} ORDER BY 1")]
                    kept = [{k: _typed(table.c[k], v) for k, v in r.items() if k in table.c} for r in rows]
                    if kept:
                        out.execute(table.insert(), kept)
                    copied[name] = kept
                if target.dialect.name == "postgresql":
                    for name in tables:
                        if "id" in meta.tables[name].c and copied[name]:
                            out.execute(sa.text(f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                                                f"(SELECT max(id) FROM {name}))"))
    finally:
        target.dispose()
    return copied


def _typed(column: sa.Column[Any], value: Any) -> Any:
    from datetime import datetime

    if value is not None and isinstance(column.type, sa.DateTime) and isinstance(value, str):
        return datetime.fromisoformat(value)
    if value is not None and isinstance(column.type, sa.Boolean):
        return bool(value)
    return value


def read_rows(url: str, name: str, columns: list[str]) -> list[dict[str, Any]]:
    target = sa.create_engine(sync_url(url))
    try:
        meta = sa.MetaData()
        table = sa.Table(name, meta, autoload_with=target)
        with target.connect() as conn:
            result = conn.execute(sa.select(*(table.c[c] for c in columns)).order_by(table.c[columns[0]]))
            return [dict(r._mapping) for r in result]
    finally:
        target.dispose()


async def finish(service: GameService, pk: int, *, undo_every: int = 7, limit: int = 20000) -> dict[str, int]:
    """Play game ``pk`` to its end through the service with the built-in player at every seat
    (as each seat's holder), taking a step back and making it again whenever the undo rule
    allows it, every ``undo_every`` moves. Returns counts of steps and undos."""
    info = await service.game(pk)
    module = engine.get(info.game_id)
    holders = {s.role: s.user_id for s in info.seats}
    steps = undos = 0
    while info.result is None:
        if steps > limit:
            raise AssertionError(f"game {pk} did not end in {limit} steps")
        version, state = await service.state(pk)
        role = module.active(state)[0]
        action = choose(module, state, role, seed=pk * 100_003 + version)
        done = await service.apply(pk, role, action, version, holders.get(role))
        steps += 1
        if done.result is None and steps % undo_every == 0 and await service.can_undo(pk, role) is None:
            # The forced steps the service took after the step go back with it, an undo row each.
            undone = await service.undo(pk, role, done.version, holders.get(role))
            assert undone.version == done.version + 1 + len(done.forced)
            undos += 1
            again = await service.apply(pk, role, action, undone.version, holders.get(role))
            assert again.version == undone.version + 1 + len(again.forced) and len(again.forced) == len(done.forced)
        info = await service.game(pk)
    return {"steps": steps, "undos": undos, "rules_version": rules_version(module)}
