"""Where a game's state lives between commands: loading a game (its row, seats and latest
state, rebuilt from the snapshot and deltas), the per-process hot cache of states by version,
and writing a move's rows. The game flow over it is ``bot.service.core``."""

from __future__ import annotations

import gc
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession
from sqlalchemy.orm import configure_mappers
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col

import engine
from bot.models import Game, Move, RulesUpgrade, Seat, loads, utcnow
from bot.service.canon import Canonical, canonical, quick_dumps, text_delta_text
from bot.service.deltas import SNAPSHOT_EVERY, _replayed, state_delta
from bot.service.marks import Reached
from bot.service.sql import (
    _DELTAS,
    _GAME,
    _GAME_AND_SEATS,
    _GAME_AND_SEATS_LOCKED,
    _GAME_FIELDS,
    _INSERT_MOVE,
    _LOOK,
    _LOOK_LOCKED,
    _MARK_AT,
    _SEAT,
    _SEAT_FIELDS,
    _SNAPSHOT_ROW,
    _UPDATE_GAME,
    _UPDATE_SNAPSHOT,
    _VERSION_AT,
    WriteConflict,
    _detached,
    _fetch,
    _look_parts,
    _PgWrite,
    _RawWrite,
    _run,
    _Sql,
)
from bot.service.transactions import Transactions
from bot.service.types import GameInfo, GameNotFound, ServiceError
from engine.api import GameModule, State

_T = TypeVar("_T")

_STATE_CACHE_SIZE = 256
"""Games kept hot (a Granada state is some 0.2-0.5 MB of Python objects)."""

_REACHED_GAMES = 64
"""Games whose last views' reached states are kept (``_Hot.reached``): some 10-100 KB each
for Granada, worth keeping for the step that follows a view soon, not for every hot game."""

_YOUNG_COLLECTION_THRESHOLD = 50_000


def _relax_young_collections() -> None:
    """Collect young objects every 50,000 allocations instead of Python's 700.

    The hot cache holds hundreds of parsed states, each tens of thousands of lists and dicts,
    and a step allocates thousands more: at the default threshold a process serving games
    ran a young collection every few hundred objects and, every second or two, a full one
    walking every cached state, some 17-27% of its CPU (issue 13, measured with
    ``throughput.steps_per_s``). JSON states hold no cycles, so those collections freed
    nearly nothing. Process-wide, and never lowers a threshold the process chose."""
    young, middle, old = gc.get_threshold()
    if young < _YOUNG_COLLECTION_THRESHOLD:
        gc.set_threshold(_YOUNG_COLLECTION_THRESHOLD, middle, old)



def _module(game_id: str) -> GameModule:
    try:
        return engine.get(game_id)
    except KeyError as exc:
        raise ServiceError(str(exc.args[0])) from None


@dataclass(frozen=True)
class _UndoFacts:
    """What decides whether a role may take back its last step, besides the role. Read from
    the move log and the rules upgrades, so fixed for one (version, last upgrade) pair: the
    log is append-only and a version names one state forever."""

    last: tuple[int, str, bool] | None
    """(seq, role, barrier) of the last step still standing; None: no step stands."""
    recorded: int
    """The rules version the game's moves are recorded under (its last upgrade's, or its own)."""
    base: tuple[int, int] | None
    """(seq, to_version) of the last upgrade the log does not replay across, if any."""


@dataclass
class _Loaded:
    """A game locked for a command: its row, seats, engine and latest state."""

    game: Game
    seats: dict[str, Seat]
    module: GameModule
    state: State
    snapshot: int = 0
    """The version of the game's stored snapshot (a new one is due SNAPSHOT_EVERY moves on)."""
    mark: int | None = None
    """The id of the game's last rules upgrade (0: none) when read with the game, else None."""
    undo: _UndoFacts | None = None
    """The undo facts at the game's version, when the hot cache knew them (kept up to date by
    ``_record``, so that the next view of the game reads no move row)."""
    reached: dict[str, Reached] | None = None
    """The states the last views of the roles at this version reached (``_Hot.reached``)."""
    cold: bool = False
    """Whether the state was rebuilt from the database for this command (not hot)."""


@dataclass
class _Hot:
    """A game kept hot: its state at one version and what a view needs besides the game's row
    (which a view reads anyway, to know the version). Replaced, never changed, when the
    version changes."""

    version: int
    state: State
    snapshot: int
    mark: int | None = None
    """The rules upgrade mark ``undo`` was read under (None: ``undo`` unknown)."""
    undo: _UndoFacts | None = None
    rows: tuple[Any, ...] = ()
    """The game-and-seats rows ``info`` was made from (those of an earlier version, until a
    view at this version reads its own)."""
    info: GameInfo | None = None
    reached: dict[str, Reached] | None = None
    """By role, the marking of its last view (bot/service/marks.py): the step that follows
    takes its state from the states it reached, and the next view of the role its marks."""


class Storage(Transactions):
    """The games' storage under the game flow (``bot.service.core.ServiceCore``): loading a
    game, the hot cache, the rebuilt state, and a move's rows."""

    def __init__(self, db: AsyncEngine) -> None:
        super().__init__(db)
        # game_pk -> the game kept hot at one version. Only committed states enter; a (game,
        # version) pair names one state forever because versions only grow.
        self._states: OrderedDict[int, _Hot] = OrderedDict()
        # game_pk -> the canonical text of the game's last recorded state, with its parts'
        # texts: the next step's text re-encodes only what changed (bot/service/canon.py).
        # Used only for the very state object it was made from, so a rolled-back step's
        # entry is harmless.
        self._texts: OrderedDict[int, Canonical] = OrderedDict()
        self._revision: str | None = None  # the database's Alembic revision, once read
        # game_pk -> its hot game holding reached states (``_Hot.reached``), the last viewed last
        self._reaching: OrderedDict[int, _Hot] = OrderedDict()
        # game_pk -> its seats' rows as a step last read them, and the row objects made of them
        self._seats_kept: OrderedDict[int, tuple[list[Any], dict[str, Seat]]] = OrderedDict()
        self._look_sql = str(_LOOK.compile(dialect=db.dialect))
        self._look_locked_sql = str(_LOOK_LOCKED.compile(dialect=db.dialect))
        columns = (*_GAME.c, None, *(_SEAT.c[name] for name in _SEAT_FIELDS))  # None: the upgrade mark
        self._look_processors: list[Any] = [
            None if c is None else c.type.dialect_impl(db.dialect).result_processor(db.dialect, None)
            for c in columns]
        # the columns a value read from SQLite must be converted in (times, booleans)
        self._look_converting = [(i, p) for i, p in enumerate(self._look_processors) if p is not None]
        configure_mappers()  # _detached makes row objects without a query, which would do it
        _relax_young_collections()

    async def _game_row(self, session: AsyncSession, game_pk: int, lock: bool = False) -> Game:
        query = sa.select(Game).where(col(Game.id) == game_pk)
        if lock:
            query = query.with_for_update()
        game = (await session.execute(query)).scalar_one_or_none()
        if game is None:
            raise GameNotFound(f"There is no game {game_pk}.")
        return game

    async def _seats(self, session: AsyncSession, game_pk: int) -> dict[str, Seat]:
        rows = (await session.execute(sa.select(Seat).where(col(Seat.game_pk) == game_pk))).scalars()
        return {s.role: s for s in rows}

    async def _state(self, session: AsyncSession, game: Game) -> State:
        return (await self._state_and_snapshot(session, game))[0]

    async def _state_and_snapshot(self, session: _Sql, game: Game) -> tuple[State, int]:
        """The game's latest state, from the hot cache or rebuilt from the database, and the
        version of its stored snapshot."""
        state, snapshot, _cold = await self._latest_state(session, game)
        return state, snapshot

    async def _latest_state(self, session: _Sql, game: Game, for_step: bool = False) -> tuple[State, int, bool]:
        """As :meth:`_state_and_snapshot`, and whether the state was rebuilt from the database.
        ``for_step``: a command that may step the game, for which a state rebuilt has its text
        made by parts and kept (``_write_move``; a view pays no more than the whole text)."""
        assert game.id is not None
        cached = self._states.get(game.id)
        if cached is not None and cached.version == game.version:
            self._states.move_to_end(game.id)
            return cached.state, cached.snapshot, False
        if isinstance(session, _RawWrite):
            # an earlier step of this group moved the game (not committed yet, so not hot)
            found = session.shared.get(game.id)
            if found is not None and found[0] == game.version:
                return found[1], found[2], False
        text, snapshot, problem, rebuilt = await self._rebuild(session, game.id, game.version, for_step)
        if problem is not None:
            raise ServiceError(f"Game {game.id} is inconsistent: {problem} Run `alcazaba replay-check {game.id}`.")
        if rebuilt is None:
            return loads(text), snapshot, True
        if rebuilt.parts is None:
            return rebuilt.state, snapshot, True
        self._texts[game.id] = rebuilt
        self._texts.move_to_end(game.id)
        while len(self._texts) > _STATE_CACHE_SIZE:
            self._texts.popitem(last=False)
        return rebuilt.state, snapshot, True

    @staticmethod
    async def _rebuild(session: _Sql, game_pk: int, version: int,
                       parts: bool = False) -> tuple[str, int, str | None, Canonical | None]:
        """The canonical text of the game's state at ``version`` (its latest): the snapshot
        plus the deltas of the moves after it, checked against the last move's hash. Returns
        (text, snapshot version, None, canonical), or a sentence saying what does not fit as
        the third item (a damaged snapshot, a missing or corrupted delta, a gap in the log).
        The canonical: the state the text is of (with its parts' texts when ``parts``), when
        deltas made it (None: parse the text)."""
        found = await _fetch(session, _SNAPSHOT_ROW, {"pk": game_pk})
        if not found:
            raise GameNotFound(f"Game {game_pk} has no stored state.")
        text, snapshot = str(found[0].state), int(found[0].version)
        rows: Sequence[Any] = ()
        if snapshot < version:
            rows = await _fetch(session, _DELTAS, {"pk": game_pk, "since": snapshot, "upto": version})
        out, canon, problem = _replayed(text, snapshot, version, rows, parts)
        return out, snapshot, problem, canon

    async def _latest_text(self, session: AsyncSession, game: Game) -> tuple[str, str | None]:
        """The canonical text of the game's latest state as the database holds it (never the
        hot cache: the replay check and the upgrade check vouch for what is stored) and, when
        it cannot be rebuilt, why (they report instead of refusing)."""
        assert game.id is not None
        text, _snapshot, problem, _state = await self._rebuild(session, game.id, game.version)
        return text, problem

    def _remember(self, game_pk: int, version: int, state: State, snapshot: int | None = None, *,
                  mark: int | None = None, undo: _UndoFacts | None = None) -> _Hot:
        """Keep a committed state hot. ``snapshot``: the version of the game's stored snapshot
        (``_Loaded.snapshot``); when not given, the last one known, or one due at once: an
        older guess only brings the next snapshot forward, never leaves a move unrebuildable.
        ``undo``: the undo facts at ``version`` under the rules upgrade ``mark``, when known."""
        cached = self._states.get(game_pk)
        if snapshot is None:
            snapshot = min(cached.snapshot, version) if cached is not None else version - SNAPSHOT_EVERY
        if cached is None or cached.version != version:
            # the last info stays, for the next view to make the new one from (rows of
            # another version never match ``rows``: ``_info_of_look``)
            if cached is not None:
                cached.reached = None  # the states its views reached: of no use at another version
            cached = self._states[game_pk] = (_Hot(version, state, snapshot) if cached is None else
                                              _Hot(version, state, snapshot, rows=cached.rows, info=cached.info))
        else:
            cached.snapshot = snapshot
        if undo is not None and mark is not None:
            cached.mark, cached.undo = mark, undo
        self._states.move_to_end(game_pk)
        while len(self._states) > _STATE_CACHE_SIZE:
            self._states.popitem(last=False)
        return cached

    def _kept_reached(self, game_pk: int, hot: _Hot, role: str, reached: Reached) -> None:
        """Keep the states a view of ``role`` reached with its game kept hot, for the step that
        follows it; those of the games viewed longest ago go (``_REACHED_GAMES``)."""
        if hot.reached is None:
            hot.reached = {}
        hot.reached[role] = reached
        self._reaching[game_pk] = hot
        self._reaching.move_to_end(game_pk)
        while len(self._reaching) > _REACHED_GAMES:
            self._reaching.popitem(last=False)[1].reached = None

    def _keep(self, loaded: _Loaded) -> _Hot:
        """Keep a game hot after the command that loaded it committed."""
        assert loaded.game.id is not None
        return self._remember(loaded.game.id, loaded.game.version, loaded.state, loaded.snapshot,
                              mark=loaded.mark, undo=loaded.undo)

    async def _quick_look(self, game_pk: int) -> tuple[Any, ...]:
        """The rows of ``_LOOK`` outside any transaction (one statement reads one snapshot):
        a view of a hot game needs nothing else from the database.

        SQLite: read on the service's own reading connection, straight from the driver (times
        as text, booleans as integers: :meth:`_typed` converts them), since checking a
        connection out of the pool, beginning and ending a transaction and running a statement
        through SQLAlchemy cost some 0.5 ms, where SQLite answers in 0.02 ms. PostgreSQL: in
        autocommit, one round trip, on one of the service's own connections (as a step)."""
        if self._pg is not None:
            return tuple(tuple(row) for row in await self._pg.fetch(self._look_sql, game_pk))
        if self._write_gate is None:
            async with self.db.connect() as conn:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                return tuple((await conn.execute(_LOOK, {"pk": game_pk})).all())
        if self._reader_driver is None:
            reader = await self.db.connect()
            if self._reader_driver is not None:  # another view opened it meanwhile
                await reader.close()
            else:
                self._reader = reader
                self._reader_driver = (await reader.get_raw_connection()).driver_connection
        found = self._reader_driver.execute_now(self._look_sql, (game_pk,))
        if found is not None:
            try:
                return tuple(found.fetchall())
            finally:
                found.close()
        cursor = await self._reader_driver.execute(self._look_sql, (game_pk,))  # busy: wait for it
        try:
            return tuple(await cursor.fetchall())
        finally:
            await cursor.close()

    def _typed(self, rows: Sequence[Any]) -> list[tuple[Any, ...]]:
        """Rows of :meth:`_quick_look` with the values SQLAlchemy would have made of them."""
        if self._write_gate is None:  # PostgreSQL: read through SQLAlchemy
            return [tuple(row) for row in rows]
        converting = self._look_converting
        typed: list[tuple[Any, ...]] = []
        game: list[Any] | None = None
        for row in rows:
            values = list(row)
            for i, proc in converting:
                if game is not None and i < _MARK_AT:  # the game's columns: every row repeats them
                    values[i] = game[i]
                elif (v := values[i]) is not None:
                    values[i] = proc(v)
            game = game or values
            typed.append(tuple(values))
        return typed

    @staticmethod
    async def _look(conn: AsyncConnection, game_pk: int, lock: bool = False) -> tuple[Any, ...]:
        """The rows of ``_LOOK``: the game, a row per seat, its last rules upgrade."""
        rows = tuple((await conn.execute(_LOOK_LOCKED if lock else _LOOK, {"pk": game_pk})).all())
        if not rows:
            raise GameNotFound(f"There is no game {game_pk}.")
        return rows

    async def _load(self, session: _Sql, game_pk: int, lock: bool, attach: bool = True) -> _Loaded:
        """The game, its seats and its latest state. ``attach``: as objects of ``session``, for
        a command that changes them; else read by Core into row objects of no session (a step,
        a view: ``_record`` writes through Core statements), with the hot cache's undo facts."""
        if isinstance(session, _PgWrite):
            await session.flush()
            if session.driver is None:
                loaded = await self._load_unlocked(session, game_pk) if lock and session.guard is None else None
                if loaded is not None:
                    return loaded
                await session.begin()  # not hot at the version read: read it all under the lock
            found = await session.driver.fetch(self._look_locked_sql if lock else self._look_sql, game_pk)
            if not found:
                raise GameNotFound(f"There is no game {game_pk}.")
            return await self._loaded(session, *self._look_kept(game_pk, [tuple(row) for row in found], True))
        if isinstance(session, _RawWrite):
            raw = await session.rows(self._look_sql, (game_pk,))
            if not raw:
                raise GameNotFound(f"There is no game {game_pk}.")
            return await self._loaded(session, *self._look_kept(game_pk, raw, False))
        if isinstance(session, AsyncConnection):
            return await self._loaded(session, *_look_parts(await self._look(session, game_pk, lock)))
        if attach:
            # The game row and its seats in one statement (PostgreSQL locks the game row only).
            found = (await session.execute(_GAME_AND_SEATS_LOCKED if lock else _GAME_AND_SEATS,
                                           {"pk": game_pk})).all()
            if not found:
                raise GameNotFound(f"There is no game {game_pk}.")
            game = found[0][0]
            seats = {seat.role: seat for _game, seat in found if seat is not None}
            module = _module(game.game_id)
            state, snapshot, cold = await self._latest_state(session, game, for_step=True)
            return _Loaded(game, seats, module, state, snapshot, cold=cold)
        conn = await session.connection()
        return await self._loaded(conn, *_look_parts(await self._look(conn, game_pk, lock)))

    async def _load_unlocked(self, session: _PgWrite, game_pk: int) -> _Loaded | None:
        """PostgreSQL, a step written optimistically (``_PgWrite``): the game read without a lock
        in one statement outside any transaction, its state the hot cache's, with the game row
        as read noted as the step's ``guard``; None when the game is not hot (none of it was
        read: the step reads it under the lock) or not hot at the version read."""
        if game_pk not in self._states:
            return None
        assert self._pg is not None
        found = await self._pg.fetch(self._look_sql, game_pk)
        if not found:
            raise GameNotFound(f"There is no game {game_pk}.")
        rows = [tuple(row) for row in found]
        hot = self._states.get(game_pk)
        if hot is None or hot.version != rows[0][_VERSION_AT]:
            return None
        game, seats, mark = self._look_kept(game_pk, rows, True)
        session.guard = (game_pk, game.version, game.updated_at)
        return await self._loaded(session, game, seats, mark)

    async def _stepping(self, block: Callable[[_Sql], Awaitable[tuple[_T, _Loaded | None]]]) -> _T:
        """Run a step's ``block`` in its write transaction (:meth:`_write_step`) and keep the
        game it returns hot once committed. PostgreSQL: optimistically first, then, if the game
        changed between its read and its write (``WriteConflict``: nothing was written), once
        more under the game's lock, which reads the game again and checks again what the block
        checks (the version a player expected, whose turn it is), as when two steps meet."""
        optimistic = self._pg is not None
        while True:
            try:
                async with self._write_step(optimistic) as session:
                    value, loaded = await block(session)
            except WriteConflict:
                if not optimistic:
                    raise
                optimistic = False
                continue
            if loaded is not None:
                self._keep(loaded)
            return value

    def _look_kept(self, game_pk: int, rows: Sequence[Any], typed: bool) -> tuple[Game, dict[str, Seat], int]:
        """``_look_parts`` of the rows of ``_LOOK`` a step read on the driver (SQLite's not
        ``typed`` yet: :meth:`_typed`), with the seats' row objects of the game's last such
        read when its seats' rows are the same: every step reads its game's seats, which
        change only when a seat changes hands, and making row objects costs more than the
        statement. The seats are only read there (a step writes through Core statements; a
        command that changes a seat loads its own, ``attach``); each command has its own dict."""
        seat_rows = [row[_MARK_AT + 1:] for row in rows]
        kept = self._seats_kept.get(game_pk)
        if kept is not None and kept[0] == seat_rows:
            first = rows[0] if typed else self._typed(rows[:1])[0]
            game = _detached(Game, dict(zip(_GAME_FIELDS, first[:_MARK_AT], strict=True)))
            self._seats_kept.move_to_end(game_pk)
            return game, dict(kept[1]), int(first[_MARK_AT] or 0)
        game, seats, mark = _look_parts(rows if typed else self._typed(rows))
        self._seats_kept[game_pk] = (seat_rows, seats)
        self._seats_kept.move_to_end(game_pk)
        while len(self._seats_kept) > _STATE_CACHE_SIZE:
            self._seats_kept.popitem(last=False)
        return game, dict(seats), mark

    async def _loaded(self, conn: _Sql, game: Game, seats: dict[str, Seat], mark: int) -> _Loaded:
        """The loaded game from its row objects, with its state and the hot cache's undo facts."""
        module = _module(game.game_id)
        state, snapshot, cold = await self._latest_state(conn, game, for_step=True)
        hot = self._states.get(game.id or 0)
        current = hot is not None and hot.version == game.version
        undo = hot.undo if hot is not None and current and hot.mark == mark else None
        return _Loaded(game, seats, module, state, snapshot, mark, undo,
                       hot.reached if hot is not None and current else None, cold)

    async def _write_move(self, session: _Sql, loaded: _Loaded, role: str, user_id: int | None,
                          new_state: State, *, kind: str, action: dict[str, Any], undoes_seq: int | None,
                          barrier: bool, active: list[str], result: dict[str, Any] | None,
                          now: datetime | None = None) -> tuple[int, bool]:
        """Write one move's rows: the move (with the delta from the state before, or a new
        snapshot every SNAPSHOT_EVERY moves and at the end) and the game row, as Core
        statements (two or three; no ORM flush). Returns the new version and whether a
        snapshot was written; :meth:`_advance` makes ``loaded`` say so once the rest of the
        step is written. ``now``: the move's time (the command's one clock reading)."""
        game, before = loaded.game, loaded.state
        assert game.id is not None
        last = self._texts.pop(game.id, None)
        prior = last if last is not None and last.state is before else None
        # A command that loaded its game cold encodes only the parts its steps change,
        # without learning the texts of their items (some three encodings of the state, paid
        # back by the steps of later commands, which learn them; a cold game may be dropped
        # from the cache before: ``service.step``).
        canon = self._texts[game.id] = canonical(new_state, prior, learn=not loaded.cold)
        while len(self._texts) > _STATE_CACHE_SIZE:
            self._texts.popitem(last=False)
        version = game.version + 1
        if now is None:
            now = utcnow()
        snapshot = result is not None or version - loaded.snapshot >= SNAPSHOT_EVERY
        await _run(session, _INSERT_MOVE, {
            "game_pk": game.id, "seq": version, "role": role, "user_id": user_id, "action": quick_dumps(action),
            "kind": kind, "undoes_seq": undoes_seq, "barrier": barrier, "state_hash": canon.hash,
            "created_at": now, "delta": None if snapshot else (
                text_delta_text(prior, canon) if prior is not None and prior.parts is not None
                else quick_dumps(state_delta(before, new_state)))})
        if snapshot:
            await _run(session, _UPDATE_SNAPSHOT, {"snapshot_pk": game.id, "version": version, "state": canon.text,
                                                  "updated_at": now})
        values: dict[str, Any] = {"version": version, "active": quick_dumps(active), "updated_at": now}
        if result is not None:
            values.update(status="finished", result=quick_dumps(result))
        await _run(session, _UPDATE_GAME, {"game_pk": game.id, **values})
        # The row object says what the database now holds, without an ORM flush. A step on
        # the driver has its game row made by ``_look_kept`` (``_detached``: in no session,
        # nothing changed or expired), whose attributes are its dict's values, which
        # set_committed_value would only write there at several times the cost.
        if isinstance(session, _RawWrite):
            game.__dict__.update(values)
        else:
            for name, value in values.items():
                set_committed_value(game, name, value)
        return version, snapshot

    @staticmethod
    def _advance(session: _Sql, loaded: _Loaded, version: int, new_state: State, snapshot: bool) -> None:
        """``loaded`` at the version a step just wrote (:meth:`_write_move`), and the step's
        state kept for a later step of its group commit (``_RawWrite.pending``)."""
        game = loaded.game
        assert game.id is not None
        loaded.state = new_state
        if snapshot:
            loaded.snapshot = version
        if isinstance(session, _RawWrite):
            session.pending[game.id] = (version, new_state, loaded.snapshot)

    async def _schema_revision(self, session: AsyncSession) -> str | None:
        """The database's Alembic revision, recorded with each new game (read once)."""
        if self._revision is None:
            row = (await session.execute(sa.text("SELECT version_num FROM alembic_version"))).first()
            self._revision = str(row[0]) if row is not None else ""
        return self._revision or None

    @staticmethod
    async def _upgrades(session: AsyncSession, game_pk: int) -> list[RulesUpgrade]:
        query = sa.select(RulesUpgrade).where(col(RulesUpgrade.game_pk) == game_pk).order_by(col(RulesUpgrade.id))
        return list((await session.execute(query)).scalars())

    @staticmethod
    async def _move_rows(session: AsyncSession, game_pk: int, since: int = 0) -> list[Move]:
        query = sa.select(Move).where(col(Move.game_pk) == game_pk, col(Move.seq) > since).order_by(col(Move.seq))
        return list((await session.execute(query)).scalars())
