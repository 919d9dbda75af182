"""The service's Core statements over the game tables, and the two ways a step's statements
run straight on the database driver (SQLite: :class:`_RawWrite`; PostgreSQL: :class:`_PgWrite`),
compiled once: building and coercing a statement costs more than SQLite takes to run it."""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm.instrumentation import manager_of_class
from sqlmodel import col

from bot.models import Game, GameState, Move, Outbox, RulesUpgrade, Seat
from engine.api import State

_MOVE: sa.Table = Move.__table__  # type: ignore[attr-defined]
_GAME: sa.Table = Game.__table__  # type: ignore[attr-defined]
_GAME_STATE: sa.Table = GameState.__table__  # type: ignore[attr-defined]
_OUTBOX: sa.Table = Outbox.__table__  # type: ignore[attr-defined]
_SEAT: sa.Table = Seat.__table__  # type: ignore[attr-defined]
_UPGRADE: sa.Table = RulesUpgrade.__table__  # type: ignore[attr-defined]
_SEAT_FIELDS = tuple(c.name for c in _SEAT.c if c.name != "game_pk")
_UPGRADE_MARK = (sa.select(sa.func.coalesce(sa.func.max(_UPGRADE.c.id), sa.literal_column("0")))
                 .where(_UPGRADE.c.game_pk == _GAME.c.id).scalar_subquery())
# A game's row, its seats and the id of its last rules upgrade, in one Core statement: all a
# command needs from the database besides the state, which the hot cache holds by version.
_LOOK = (sa.select(*_GAME.c, _UPGRADE_MARK.label("upgrade_mark"),
                   *(_SEAT.c[name].label(f"seat_{name}") for name in _SEAT_FIELDS))
         .select_from(_GAME.outerjoin(_SEAT, _SEAT.c.game_pk == _GAME.c.id))
         .where(_GAME.c.id == sa.bindparam("pk"))
         .order_by(_SEAT.c.id))
_LOOK_LOCKED = _LOOK.with_for_update(of=_GAME)  # PostgreSQL locks the game row only
_UNDONE = (sa.select(_MOVE.c.undoes_seq)
           .where(_MOVE.c.game_pk == sa.bindparam("pk"), _MOVE.c.kind == "undo", _MOVE.c.undoes_seq.is_not(None)))
STANDING_TAIL = 33
"""How many of the last standing steps undo reads: a step and the forced steps the service
took by itself after it (at most ``bot.service.core.FORCED_LIMIT``), which undo takes back
together."""
_LAST_STANDING_STEPS = (sa.select(_MOVE.c.seq, _MOVE.c.role, _MOVE.c.barrier, _MOVE.c.action)
                        .where(_MOVE.c.game_pk == sa.bindparam("pk"), _MOVE.c.kind == "step",
                               _MOVE.c.seq.not_in(_UNDONE))
                        .order_by(_MOVE.c.seq.desc()).limit(STANDING_TAIL))
_SNAPSHOT_ROW = (sa.select(_GAME_STATE.c.state, _GAME_STATE.c.version)
                 .where(_GAME_STATE.c.game_pk == sa.bindparam("pk")))
_DELTAS = (sa.select(_MOVE.c.seq, _MOVE.c.delta, _MOVE.c.state_hash)
           .where(_MOVE.c.game_pk == sa.bindparam("pk"), _MOVE.c.seq > sa.bindparam("since"),
                  _MOVE.c.seq <= sa.bindparam("upto"))
           .order_by(_MOVE.c.seq))
_UPGRADE_FACTS = (sa.select(_UPGRADE.c.seq, _UPGRADE.c.to_version, _UPGRADE.c.outcome)
                  .where(_UPGRADE.c.game_pk == sa.bindparam("pk")).order_by(_UPGRADE.c.id))
# The statements of a step, built once: building and coercing a statement costs more than
# SQLite takes to run it.
_GAME_AND_SEATS = (sa.select(Game, Seat).outerjoin(Seat, col(Seat.game_pk) == col(Game.id))
                   .where(col(Game.id) == sa.bindparam("pk")))
_GAME_AND_SEATS_LOCKED = _GAME_AND_SEATS.with_for_update(of=Game)
_INSERT_MOVE = sa.insert(_MOVE)
_INSERT_OUTBOX = sa.insert(_OUTBOX)
_UPDATE_GAME = sa.update(_GAME).where(_GAME.c.id == sa.bindparam("game_pk"))
_UPDATE_SNAPSHOT = sa.update(_GAME_STATE).where(_GAME_STATE.c.game_pk == sa.bindparam("snapshot_pk"))
# PostgreSQL, a step written without a lock (``_PgWrite``): the game row as the step read it,
# by its version and the time of its last change (a seat that changes hands, a game that ends
# or moves changes ``updated_at``: bot/service/web.py ``change_stamp``).
_GAME_AS_READ = (_GAME.c.id == sa.bindparam("game_pk"), _GAME.c.version == sa.bindparam("read_version"),
                 _GAME.c.updated_at == sa.bindparam("read_updated_at"))
_LOCK_GAME_AS_READ = sa.select(_GAME.c.id).where(*_GAME_AS_READ).with_for_update()
_UPDATE_GAME_AS_READ = sa.update(_GAME).where(*_GAME_AS_READ).returning(_GAME.c.id)
# The game row as a step wrote it (its new version and the time it wrote): found after a guarded
# write found no row, it says that write was this step's own, sent twice (``_PgWrite.finish``).
_GAME_AS_WRITTEN = sa.select(_GAME.c.id).where(_GAME.c.id == sa.bindparam("game_pk"),
                                                _GAME.c.version == sa.bindparam("version"),
                                                _GAME.c.updated_at == sa.bindparam("updated_at"))
_Row = TypeVar("_Row", Game, Seat)
_GAME_FIELDS = tuple(c.name for c in _GAME.c)
_MARK_AT = len(_GAME_FIELDS)
_VERSION_AT = _GAME_FIELDS.index("version")
_STATUS_AT = _GAME_FIELDS.index("status")
_GAME_ID_AT = _GAME_FIELDS.index("game_id")
_OPTIONS_AT = _GAME_FIELDS.index("options")
_SEAT_ID_AT = _MARK_AT + 1 + _SEAT_FIELDS.index("id")
_SEAT_ROLE_AT = _MARK_AT + 1 + _SEAT_FIELDS.index("role")
_SEAT_USER_AT = _MARK_AT + 1 + _SEAT_FIELDS.index("user_id")


def _detached(cls: type[_Row], values: Mapping[str, Any]) -> _Row:
    """A row object made from values a Core statement read, as the ORM would load it, in no
    session: a command that only reads its game, or writes through Core statements (a step),
    need not pay for a session's identity map and the ORM's loading."""
    obj: _Row = manager_of_class(cls).new_instance()
    obj.__dict__.update(values)
    return obj


def _look_parts(rows: Sequence[Any]) -> tuple[Game, dict[str, Seat], int]:
    """The game, its seats by role and its rules upgrade mark from the rows of ``_LOOK``."""
    first = rows[0]
    game = _detached(Game, dict(zip(_GAME_FIELDS, first[:_MARK_AT], strict=True)))
    seats: dict[str, Seat] = {}
    for row in rows:
        values = dict(zip(_SEAT_FIELDS, row[_MARK_AT + 1:], strict=True))
        if values["id"] is not None:
            values["game_pk"] = game.id
            seats[values["role"]] = _detached(Seat, values)
    return game, seats, int(first[_MARK_AT] or 0)


_SAMPLE_TIMES = (datetime(2026, 1, 2, 3, 4, 5, 6), datetime(987, 12, 31, 23, 59, 59), datetime(2026, 11, 28))


def _iso_time(value: datetime) -> str:
    return value.isoformat(" ", "microseconds")


def _quicker(proc: Any) -> Any:
    """``proc``, a value's bind processor, or when it writes naive times as ``datetime.isoformat``
    does (SQLite's DATETIME: "2026-01-02 03:04:05.000006"), a quicker one for them: SQLAlchemy's
    formats each time through a dict, some 4 µs, and a step writes five or six times."""
    if proc is None:
        return None
    try:
        if any(proc(t) != _iso_time(t) for t in _SAMPLE_TIMES):
            return proc
    except Exception:  # noqa: BLE001 - not a processor of times
        return proc

    def quicker(value: Any) -> Any:
        if value.__class__ is datetime and value.tzinfo is None:
            return value.isoformat(" ", "microseconds")
        return proc(value)
    return quicker


class _Prepared:
    """A Core statement compiled once for SQLite and the parameter names it was compiled for,
    with what SQLAlchemy would do to each value (convert it, or make a column's default when
    it is not given), run straight on the driver."""

    def __init__(self, statement: sa.Executable, dialect: sa.Dialect, keys: Sequence[str]) -> None:
        compiled: Any = cast(sa.ClauseElement, statement).compile(dialect=dialect, column_keys=sorted(keys))
        self.sql = str(compiled)
        self.names = list(compiled.positiontup or ())
        # The dialect's own type (SQLite's DATETIME writes microseconds always; the driver's
        # default adapter drops them on the whole second).
        self.binds = [_quicker(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
                      for name in self.names]
        self.defaults: dict[str, Any] = {}
        for column in (*getattr(compiled, "insert_prefetch", ()), *getattr(compiled, "update_prefetch", ())):
            default = column.default
            self.defaults[column.key] = (default.arg if default.is_callable
                                         else (lambda _ctx, value=default.arg: value))
        selected = getattr(statement, "selected_columns", None)
        self.shape: Any = None if selected is None else namedtuple("_Row", list(selected.keys()))

        self._missing = [_MISSING] * len(self.names)
        self._converting = [(i, proc) for i, proc in enumerate(self.binds) if proc is not None]

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """The statement's parameters from ``values`` by name (a column not given takes its
        default; KeyError when it has none), converted as SQLAlchemy would."""
        out = list(map(values.get, self.names, self._missing))
        if _MISSING in out:
            for i, name in enumerate(self.names):
                if out[i] is _MISSING:
                    out[i] = self.defaults[name](None)
        for i, proc in self._converting:
            if (value := out[i]) is not None:
                out[i] = proc(value)
        return tuple(out)


_MISSING = object()
"""A parameter ``values`` does not give (:meth:`_Prepared.params`)."""


class _RawWrite:
    """SQLite: one write transaction on the service's own writing connection (a step's), its
    statements run on the driver (:class:`_Prepared`): SQLAlchemy's checkout, session and
    execution cost some ten times what SQLite takes to run a step's five statements.

    ``pending`` holds the states this step recorded, by game (version, state, snapshot);
    ``shared`` those of the earlier steps of its group (:class:`_Group`), which the database
    holds in the open transaction but the hot cache may not hold before the commit."""

    def __init__(self, driver: Any, dialect: sa.Dialect, prepared: dict[tuple[Any, ...], _Prepared],
                 shared: dict[int, tuple[int, State, int]] | None = None) -> None:
        self.driver = driver
        # the inline driver's statements at once (``bot.db._InlineConnection.execute_now``)
        self._now: Any = getattr(driver, "execute_now", None)
        self.dialect = dialect
        self._prepared = prepared
        self.pending: dict[int, tuple[int, State, int]] = {}
        self.shared: dict[int, tuple[int, State, int]] = {} if shared is None else shared

    def _get(self, statement: sa.Executable, keys: Iterable[str]) -> _Prepared:
        """The statement prepared for the parameters ``keys``. Found by the keys in the order
        given (each caller gives its values in one order), so a step's statements are found
        without sorting their names; compiled for the sorted names, once for any order."""
        given = (statement, *keys)
        found = self._prepared.get(given)
        if found is None:
            names = tuple(sorted(cast(tuple[str, ...], given[1:])))
            found = self._prepared.get((statement, *names))
            if found is None:
                found = self._prepared[(statement, *names)] = self._compile(statement, names)
            self._prepared[given] = found
        return found

    def _compile(self, statement: sa.Executable, names: tuple[str, ...]) -> _Prepared:
        return _Prepared(statement, self.dialect, names)

    async def run(self, statement: sa.Executable, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        if isinstance(values, Mapping):
            prepared = self._get(statement, values)
            await self.execute(prepared.sql, prepared.params(values))
            return
        prepared = self._get(statement, values[0])
        if len(values) == 1:
            await self.execute(prepared.sql, prepared.params(values[0]))
            return
        cursor = self.driver.cursor()
        await cursor.executemany(prepared.sql, [prepared.params(v) for v in values])
        await cursor.close()

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        """A statement of no rows (a write, a savepoint), at once when the driver can."""
        if self._now is not None:
            cursor = self._now(sql, parameters)
            if cursor is not None:
                cursor.close()
                return
        await (await self.driver.execute(sql, parameters)).close()

    async def rows(self, sql: str, parameters: Sequence[Any]) -> list[Any]:
        """The rows of a query, as the driver gives them (at once when it can)."""
        if self._now is not None:
            found = self._now(sql, parameters)
            if found is not None:
                try:
                    return found.fetchall()
                finally:
                    found.close()
        cursor = await self.driver.execute(sql, parameters)
        try:
            return await cursor.fetchall()
        finally:
            await cursor.close()

    async def all(self, statement: sa.Executable, values: Mapping[str, Any]) -> list[Any]:
        prepared = self._get(statement, values)
        rows = await self.rows(prepared.sql, prepared.params(values))
        shape = prepared.shape
        return rows if shape is None else [shape._make(row) for row in rows]


_DOLLAR = re.compile(r"\$(\d+)")


def _renumbered(sql: str, offset: int, width: int) -> str:
    """``sql`` with its parameters ``$1``..``$width`` made ``$offset+1``.. (checked: the text of
    a compiled statement with exactly those parameters and no other dollar sign)."""
    found = [int(m[1]) for m in _DOLLAR.finditer(sql)]
    if sorted(found) != list(range(1, width + 1)) or sql.count("$") != width:
        raise ValueError(f"not a statement of {width} numbered parameters: {sql}")
    return _DOLLAR.sub(lambda m: f"${int(m[1]) + offset}", sql)


def _one_statement(parts: Sequence[tuple[_Prepared, int]]) -> str:
    """The writes ``parts`` (a statement, and how many rows of it: only an INSERT has more
    than one) as one statement: each but the last a data-modifying WITH query, all run in
    one round trip against one snapshot. None of them may read what another writes."""
    texts: list[str] = []
    offset = 0
    for prepared, rows in parts:
        width = len(prepared.names)
        if rows == 1:
            texts.append(_renumbered(prepared.sql, offset, width))
        else:
            head, values, row = prepared.sql.partition(" VALUES ")
            if not values or not head.startswith("INSERT ") or not row.startswith("(") or not row.endswith(")"):
                raise ValueError(f"not a one-row INSERT: {prepared.sql}")
            texts.append(head + values + ", ".join(_renumbered(row, offset + k * width, width) for k in range(rows)))
        offset += rows * width
    if len(texts) == 1:
        return texts[0]
    return "WITH " + ", ".join(f"w{i} AS ({text})" for i, text in enumerate(texts[:-1])) + " " + texts[-1]


class WriteConflict(Exception):
    """A step written without a lock (``_PgWrite``) found its game changed since it read it:
    nothing was written; the step is made again under the game's lock (``Storage._stepping``)."""


_PLAIN_TYPE = re.compile(r"\(.*\)")


def _cast_row(row: str, table: sa.Table, names: Sequence[str], dialect: sa.Dialect) -> str:
    """The parameters of one row of VALUES, ``($1, $2, ...)``, each cast to its column's type
    (asyncpg's dialect casts them already; any it does not, to the type without length: an
    explicit cast to VARCHAR(64) would cut a longer text, where the INSERT refuses it): a list
    of VALUES in a SELECT does not take its columns' types from the table it is inserted
    into, and parameters of no type would be taken for text."""
    params = row[1:-1].split(", ")
    if len(params) != len(names) or not all(p.startswith("$") for p in params):
        raise ValueError(f"not a row of parameters: {row}")
    return "(" + ", ".join(p if "::" in p else f"{p}::{_PLAIN_TYPE.sub('', table.c[n].type.compile(dialect=dialect))}"
                           for p, n in zip(params, names, strict=True)) + ")"


def _guarded_statement(parts: Sequence[tuple[sa.Executable, _Prepared, int]], dialect: sa.Dialect,
                       notify: str | None) -> str:
    """The writes ``parts`` (a statement, compiled, and how many rows of it) as one statement
    that makes them only if the first, the update of the game row guarded by its version as
    read (``_UPDATE_GAME_AS_READ``), finds its row: each a data-modifying WITH query that
    reads the guard's ``g``, the last one selecting from it (and, with ``notify``, notifying
    the channel at the commit, as NOTIFY would). No row back: the game changed, nothing was
    written. Several rows of one INSERT stay one INSERT, in their order."""
    texts: list[str] = []
    offset = 0
    for n, (statement, prepared, rows) in enumerate(parts):
        width = len(prepared.names)
        sql = prepared.sql
        if n == 0:
            if statement is not _UPDATE_GAME_AS_READ or rows != 1:
                raise ValueError(f"not the guard of the game row: {sql}")
            texts.append(_renumbered(sql, offset, width))
        elif isinstance(statement, sa.Insert):
            head, values, row = sql.partition(" VALUES ")
            if not values or not row.startswith("(") or not row.endswith(")"):
                raise ValueError(f"not a one-row INSERT: {sql}")
            if rows == 1:
                texts.append(f"{head} SELECT {_renumbered(row, offset, width)[1:-1]} FROM g")
            else:
                table = cast(sa.Table, statement.table)
                listed = [_renumbered(row, offset + k * width, width) for k in range(rows)]
                listed[0] = _cast_row(listed[0], table, prepared.names, dialect)
                texts.append(f"{head} SELECT * FROM (VALUES {', '.join(listed)}) AS v WHERE EXISTS (SELECT FROM g)")
        elif isinstance(statement, sa.Update) and " WHERE " in sql and " RETURNING " not in sql and rows == 1:
            texts.append(f"{_renumbered(sql, offset, width)} AND EXISTS (SELECT FROM g)")
        else:
            raise ValueError(f"not a write a step makes: {sql}")
        offset += rows * width
    end = f"SELECT pg_notify('{notify}', '') FROM g" if notify else "SELECT id FROM g"
    return "WITH g AS (" + texts[0] + ")" + "".join(f", w{i} AS ({t})" for i, t in enumerate(texts[1:])) + " " + end


class _PgWrite(_RawWrite):
    """PostgreSQL: the write of a step on the service's own asyncpg connections
    (:class:`bot.db.PgDrivers`), its statements run on the driver as prepared statements,
    with no pool checkout, ping or reset around them.

    Optimistic first (``driver`` None): the step reads its game without a lock, outside any
    transaction (``Storage._load``, which notes the game's ``guard``: its id, version and
    ``updated_at`` as read), when the game is hot at the version read, and its writes wait;
    :meth:`finish` sends them as one statement guarded by that version (:func:`_guarded_statement`),
    which commits by itself, NOTIFY included. A step is then two round trips, the read and
    the write, where a transaction made it four (BEGIN, the locked read, the writes,
    NOTIFY and COMMIT; three when the commit before began it): every round trip costs both
    processes a system call and a wake-up, more than the statements themselves. If the game
    changed meanwhile (another process stepped it, a seat changed hands), the guard finds no
    row, nothing is written, and :class:`WriteConflict` has the step made again under the
    lock, as every step was. A step that needs more (a game not hot: its state is read; a
    game that ends: its ratings are read and written; another step after a forced one is
    fine, its game row update replaces the first's) begins the transaction first
    (:meth:`begin`), which locks the game row as read or raises WriteConflict.

    In a transaction, the writes also wait and go as one statement (:func:`_one_statement`)
    before the next read or the commit. A write that fails thus fails at the end of the
    step's block, which rolls the transaction back as before. Two updates of one statement
    (the game row of two steps in one transaction) never share a statement: PostgreSQL would
    apply only one of them."""

    def __init__(self, driver: Any, dialect: sa.Dialect, prepared: dict[tuple[Any, ...], _Prepared],
                 combined: dict[tuple[Any, ...], str], *, begin: Callable[[], Awaitable[Any]] | None = None,
                 autocommit: Callable[..., Awaitable[list[Any]]] | None = None, notify: str | None = None) -> None:
        super().__init__(driver, dialect, prepared)
        self._combined = combined
        self._queued: list[tuple[sa.Executable, _Prepared, list[tuple[Any, ...]], Mapping[str, Any]]] = []
        self._updates: set[sa.Executable] = set()
        self._begin = begin
        self._autocommit = autocommit
        self._notify = notify
        self.guard: tuple[int, int, datetime] | None = None
        """Optimistic: the game's id, version and ``updated_at`` as the step read them."""

    def _compile(self, statement: sa.Executable, names: tuple[str, ...]) -> _Prepared:
        # An INSERT without RETURNING: a step never needs the new rows' ids back.
        bare = statement.inline() if isinstance(statement, sa.Insert) else statement
        return _Prepared(bare, self.dialect, names)

    async def begin(self) -> None:
        """Optimistic: begin the transaction, and lock the game row as the step read it
        (WriteConflict if it changed since: the step is made again, under the lock)."""
        if self.driver is not None:
            return
        assert self._begin is not None
        self.driver = await self._begin()
        if self.guard is not None:
            pk, version, updated_at = self.guard
            values = {"game_pk": pk, "read_version": version, "read_updated_at": updated_at}
            prepared = self._get(_LOCK_GAME_AS_READ, values)
            if not await self.driver.fetch(prepared.sql, *prepared.params(values)):
                raise WriteConflict(pk)

    async def run(self, statement: sa.Executable, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        rows = [values] if isinstance(values, Mapping) else list(values)
        if not rows:
            return
        if statement in self._updates:
            if self.driver is None:  # optimistic: one statement; the later update takes over
                earlier = next(q for q in self._queued if q[0] is statement)
                self._queued.remove(earlier)
                rows = [{**earlier[3], **rows[0]}]
            else:
                await self.flush()
        prepared = self._get(statement, rows[0])
        self._queued.append((statement, prepared, [prepared.params(v) for v in rows], rows[0]))
        if isinstance(statement, sa.Update):
            self._updates.add(statement)

    async def flush(self) -> None:
        """Run the writes waiting, in one statement (optimistic: in the transaction it begins)."""
        if not self._queued:
            return
        await self.begin()
        queued, self._queued = self._queued, []
        self._updates.clear()
        key = tuple((prepared, len(rows)) for _statement, prepared, rows, _values in queued)
        sql = self._combined.get(key)
        if sql is None:
            sql = self._combined[key] = _one_statement(key)
        await self.driver.execute(sql, *(value for _s, _p, rows, _v in queued for row in rows for value in row))

    async def finish(self) -> None:
        """The end of the step's block: in a transaction, its last writes (the caller commits);
        optimistic, its writes as one statement guarded by the game row as read, which commits
        by itself (WriteConflict if the game changed: nothing written). It goes through
        ``PgDrivers.fetch``, which sends it once more on a fresh connection when the first
        turns out dropped: the guard makes that safe, since a write that did commit the first
        time finds no row the second, and the game row then holds exactly what this step
        wrote (its version and time: ``_GAME_AS_WRITTEN``), which says the step is done."""
        if self.driver is not None or not self._queued:
            await self.flush()
            return
        game = [q for q in self._queued if q[0] is _UPDATE_GAME]
        if self.guard is None or len(game) != 1 or self._autocommit is None:
            await self.flush()  # writes of another kind: in the transaction, under the lock
            return
        pk, version, updated_at = self.guard
        values = {**game[0][3], "read_version": version, "read_updated_at": updated_at}
        if values.get("game_pk") != pk:
            await self.flush()
            return
        guard = self._get(_UPDATE_GAME_AS_READ, values)
        parts: list[tuple[sa.Executable, _Prepared, list[tuple[Any, ...]]]] = [
            (_UPDATE_GAME_AS_READ, guard, [guard.params(values)])]
        parts += [(s, p, rows) for s, p, rows, _v in self._queued if s is not _UPDATE_GAME]
        self._queued = []
        self._updates.clear()
        key = ("guarded", *((p, len(rows)) for _s, p, rows in parts))
        sql = self._combined.get(key)
        if sql is None:
            sql = self._combined[key] = _guarded_statement([(s, p, len(rows)) for s, p, rows in parts],
                                                           self.dialect, self._notify)
        if await self._autocommit(sql, *(value for _s, _p, rows in parts for row in rows for value in row)):
            return
        # No row: the game changed since it was read, or this very write committed the first
        # time and PgDrivers.fetch sent it again because the connection dropped before the
        # answer came. The game row then holds exactly what this step wrote (its version, its
        # time); the step is done, and making it again under the lock would refuse it as stale
        # or, for an order given without a version, make it a second time.
        mine = {"game_pk": pk, "version": values["version"], "updated_at": values["updated_at"]}
        written = self._get(_GAME_AS_WRITTEN, mine)
        if not await self._autocommit(written.sql, *written.params(mine)):
            raise WriteConflict(pk)

    async def all(self, statement: sa.Executable, values: Mapping[str, Any]) -> list[Any]:
        await self.flush()
        await self.begin()
        prepared = self._get(statement, values)
        rows = await self.driver.fetch(prepared.sql, *prepared.params(values))
        shape = prepared.shape
        return [tuple(row) for row in rows] if shape is None else [shape._make(row) for row in rows]


_Sql = AsyncSession | AsyncConnection | _RawWrite
"""Where a command's statements run: an ORM session, a Core connection, or (SQLite, a step)
the driver itself."""


async def _fetch(conn: _Sql, statement: sa.Executable, values: Mapping[str, Any]) -> Sequence[Any]:
    """The rows of a Core select, wherever the command runs."""
    if isinstance(conn, _RawWrite):
        return await conn.all(statement, values)
    return (await conn.execute(statement, values)).all()


async def _run(conn: _Sql, statement: sa.Executable, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
    """A Core statement that writes, wherever the command runs (a list: one per row)."""
    if isinstance(conn, _RawWrite):
        await conn.run(statement, values)
    elif isinstance(conn, AsyncSession):
        await (await conn.connection()).execute(statement, values)
    else:
        await conn.execute(statement, values)
