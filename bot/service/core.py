"""The service's core: transactions, loading a game, the checks before a command, and
recording a step with its notifications."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import re
from collections import OrderedDict, namedtuple
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol, Self, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.orm import configure_mappers
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.instrumentation import manager_of_class
from sqlmodel import col

import engine
from bot.db import WRITE, PgDrivers, make_engine
from bot.models import Game, GameState, Move, Outbox, RulesUpgrade, Seat, dumps, loads, utcnow
from bot.service import ratings
from bot.service.canon import Canonical, canonical, same_text, text_delta
from bot.service.types import (
    GameInfo,
    GameNotFound,
    NotAllowed,
    SeatInfo,
    ServiceError,
    StaleVersion,
    StepResult,
)
from engine.api import GameModule, RulesModule, State, adapt, clone, strip_label, undo_barrier, visible_log

EXPORT_FORMAT = 1

_SEED_LIMIT = 1 << 63
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
_LAST_STANDING_STEP = (sa.select(_MOVE.c.seq, _MOVE.c.role, _MOVE.c.barrier)
                       .where(_MOVE.c.game_pk == sa.bindparam("pk"), _MOVE.c.kind == "step",
                              _MOVE.c.seq.not_in(_UNDONE))
                       .order_by(_MOVE.c.seq.desc()).limit(1))
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
_STATE_CACHE_SIZE = 256
"""Games kept hot (a Granada state is some 0.2-0.5 MB of Python objects)."""
GROUP_STEPS = 32
"""Steps at most in one group commit (SQLite, :class:`_Group`): a group holds the database's
write lock until it commits, so another process writing to the same file waits at most for
this many steps; 32 steps share the commit's cost nearly as well as 200 would."""
MOVES_CHANNEL = "alcazaba_moves"
"""PostgreSQL: the channel a step's commit NOTIFYs, so that the web pages of another process
update within a second (``bot.web.live``); SQLite pages watch the game's version instead."""
SNAPSHOT_EVERY = 32
"""Moves between two snapshots of a game's whole state (issue 13): the moves in between store
only what they changed, so a step writes a few hundred bytes instead of the 20-65 KB state,
and a game loaded cold applies at most this many deltas."""



def state_hash(text: str) -> str:
    """A short fingerprint of a state's canonical text, kept with every move."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def state_delta(old: Any, new: Any) -> dict[str, Any]:
    """What turns ``old`` into ``new``, as JSON: ``{"=": value}`` replaces, ``{"{": {key:
    delta}, "-": [keys]}`` patches an object's keys (and drops some), ``{"[": n, "+":
    [items]}`` keeps a list's first n items and appends the rest (a log that grows).

    Parts are compared as their canonical JSON would be (``canon.same_text``: ``False``, ``0``
    and ``0.0`` are three values there, though Python finds them equal); a part the step did not
    touch is usually the very object of the state before (engines share what they do not
    change), which is recognised at once. The result is checked against the move's hash
    whenever it is applied (``ServiceCore._rebuild``)."""
    change = _delta(old, new)
    if change is None:  # a step that changed nothing
        return {"{": {}} if new.__class__ is dict else {"=": new}
    return change


def _delta(old: Any, new: Any) -> dict[str, Any] | None:
    if old is new:
        return None
    if old.__class__ is dict and new.__class__ is dict:
        keys: dict[str, Any] = {}
        for key, value in new.items():
            if key not in old:
                keys[key] = {"=": value}
            else:
                sub = _delta(old[key], value)
                if sub is not None:
                    keys[key] = sub
        gone = [key for key in old if key not in new]
        if not keys and not gone:
            return None
        return {"{": keys, "-": gone} if gone else {"{": keys}
    if old.__class__ is list and new.__class__ is list:
        keep = 0
        for a, b in zip(old, new, strict=False):
            if not same_text(a, b):
                break
            keep += 1
        if keep == len(old) == len(new):
            return None
        if keep:
            return {"[": keep, "+": new[keep:]}
        return {"=": new}
    return None if same_text(old, new) else {"=": new}


def apply_delta(value: Any, delta: dict[str, Any]) -> Any:
    """The value :func:`state_delta` described, made from ``value`` (changed in place: pass
    a freshly parsed state)."""
    if "=" in delta:
        return delta["="]
    if "{" in delta:
        if not isinstance(value, dict):
            raise ValueError("an object delta applied to a non-object")
        for key in delta.get("-", ()):
            del value[key]
        for key, sub in delta["{"].items():
            value[key] = apply_delta(value.get(key), sub)
        return value
    if "[" in delta:
        if not isinstance(value, list) or len(value) < delta["["]:
            raise ValueError("a list delta applied to a shorter list or a non-list")
        del value[delta["["]:]
        value.extend(delta["+"])
        return value
    raise ValueError(f"unknown delta {sorted(delta)}")


def _rebuilt(text: str, snapshot: int, version: int, rows: Sequence[Any]) -> tuple[str, str | None]:
    """The text of the state at ``version`` from the snapshot ``text`` (at ``snapshot``) and
    the move rows after it (seq, delta, state_hash), or the snapshot's text and a sentence
    saying what does not fit."""
    if snapshot == version:
        return text, None
    if snapshot > version:
        return text, f"its snapshot is at version {snapshot}, the game at version {version}."
    if [r.seq for r in rows] != list(range(snapshot + 1, version + 1)):
        return text, f"moves {snapshot + 1}-{version} after its snapshot are not all in the log."
    state = loads(text)
    for r in rows:
        if r.delta is None:
            return text, f"move {r.seq} has no delta and no snapshot was written with it."
        try:
            state = apply_delta(state, loads(r.delta))
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            return text, f"the delta of move {r.seq} does not apply ({exc})."
    out = dumps(state)
    if state_hash(out) != rows[-1].state_hash:
        return text, (f"its snapshot (version {snapshot}) and the deltas after it do not lead to the state "
                      f"move {version} recorded.")
    return out, None


def rebuild_snapshots_sync(conn: sa.Connection) -> int:
    """Bring every game's snapshot up to its version (migration 0006's downgrade: older code
    reads the latest state from ``game_state`` alone). Returns how many were rewritten;
    raises when one does not rebuild (a downgrade must not lose a state)."""
    behind = conn.execute(sa.text(
        "SELECT s.game_pk, s.version, s.state, g.version FROM game_state s JOIN game g ON g.id = s.game_pk "
        "WHERE s.version < g.version")).all()
    for game_pk, snapshot, text, version in behind:
        rows = conn.execute(sa.text(
            "SELECT seq, delta, state_hash FROM move WHERE game_pk = :pk AND seq > :s AND seq <= :v ORDER BY seq"),
            {"pk": game_pk, "s": snapshot, "v": version}).all()
        rebuilt, problem = _rebuilt(text, snapshot, version, rows)
        if problem is not None:
            raise RuntimeError(f"Game {game_pk} does not rebuild: {problem}")
        conn.execute(sa.text("UPDATE game_state SET version = :v, state = :t WHERE game_pk = :pk"),
                     {"v": version, "t": rebuilt, "pk": game_pk})
    return len(behind)


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


def _bot_seed(game_seed: int, version: int, role: str) -> int:
    # Deterministic, so that a game with built-in players replays and demos reproduce.
    salt = int(hashlib.sha256(role.encode()).hexdigest()[:8], 16)
    return (game_seed * 1_000_003 + version * 7919 + salt) % _SEED_LIMIT


def _new_lines(before: State, after: State) -> list[dict[str, Any]]:
    """The log entries a step added (engines append to ``state["log"]``)."""
    old, new = before.get("log") or [], after.get("log") or []
    if len(new) < len(old):
        return []
    return list(new[len(old):])


def rules_version(module: GameModule | RulesModule) -> int:
    """The module's ``RULES_VERSION``: bumped whenever a change alters what a log replays to
    (a game module without one, a test double, is at version 1)."""
    return adapt(module).RULES_VERSION


class _Upgraded(Protocol):
    @property
    def outcome(self) -> str: ...


_Upgrade = TypeVar("_Upgrade", bound=_Upgraded)  # a RulesUpgrade, or a row of _UPGRADE_FACTS


def _upgrade_base(upgrades: Sequence[_Upgrade]) -> _Upgrade | None:
    """The last rules upgrade the log does not replay across (its stored state is where undo
    and replay start), or None: replay from setup."""
    opaque = [u for u in upgrades if u.outcome != "identical"]
    return opaque[-1] if opaque else None


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


def undo_refusal(facts: _UndoFacts, role: str, module: GameModule) -> str | None:
    """None if ``role`` may take back its last step, else the sentence refusing it: the one
    place that says when undo is allowed (the view's ``can_undo`` and ``undo`` both ask it)."""
    if facts.last is None:
        return "There is nothing to take back: no step has been made."
    seq, last_role, barrier = facts.last
    if last_role != role:
        return f"You cannot take that back: {last_role} has acted since your last step."
    if barrier:
        return ("You cannot take back your last step: it drew at random or revealed hidden "
                "information.")
    # Undo replays the log, and never across a rules upgrade (issue 14): it stops there as
    # it stops at a reveal.
    installed = rules_version(module)
    if facts.recorded != installed:
        return (f"You cannot take back your last step: the rules of {module.title} were updated "
                f"(version {facts.recorded} to {installed}) after it was made.")
    if facts.base is not None and seq <= facts.base[0]:
        return (f"You cannot take back your last step: it was made before the rules of {module.title} "
                f"were updated to version {facts.base[1]}.")
    return None


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
    """The game-and-seats rows ``info`` was made from."""
    info: GameInfo | None = None


_Row = TypeVar("_Row", Game, Seat)
_GAME_FIELDS = tuple(c.name for c in _GAME.c)
_MARK_AT = len(_GAME_FIELDS)
_VERSION_AT = _GAME_FIELDS.index("version")
_STATUS_AT = _GAME_FIELDS.index("status")
_GAME_ID_AT = _GAME_FIELDS.index("game_id")
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



def _standing_steps(rows: Sequence[Move]) -> list[Move]:
    """The steps not taken back, in order (rows sorted by seq)."""
    undone = {m.undoes_seq for m in rows if m.kind == "undo"}
    return [m for m in rows if m.kind == "step" and m.seq not in undone]



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
        self.binds = [compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in self.names]
        self.defaults: dict[str, Any] = {}
        for column in (*getattr(compiled, "insert_prefetch", ()), *getattr(compiled, "update_prefetch", ())):
            default = column.default
            self.defaults[column.key] = (default.arg if default.is_callable
                                         else (lambda _ctx, value=default.arg: value))
        selected = getattr(statement, "selected_columns", None)
        self.shape: Any = None if selected is None else namedtuple("_Row", list(selected.keys()))

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        out = []
        for name, proc in zip(self.names, self.binds, strict=True):
            value = values[name] if name in values else self.defaults[name](None)
            out.append(value if proc is None or value is None else proc(value))
        return tuple(out)


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
        self.dialect = dialect
        self._prepared = prepared
        self.pending: dict[int, tuple[int, State, int]] = {}
        self.shared: dict[int, tuple[int, State, int]] = {} if shared is None else shared

    def _get(self, statement: sa.Executable, keys: Iterable[str]) -> _Prepared:
        names = tuple(sorted(keys))
        found = self._prepared.get((statement, *names))
        if found is None:
            found = self._prepared[(statement, *names)] = _Prepared(statement, self.dialect, names)
        return found

    async def run(self, statement: sa.Executable, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        if isinstance(values, Mapping):
            prepared = self._get(statement, values)
            cursor = await self.driver.execute(prepared.sql, prepared.params(values))
        else:
            prepared = self._get(statement, values[0])
            cursor = self.driver.cursor()
            await cursor.executemany(prepared.sql, [prepared.params(v) for v in values])
        await cursor.close()

    async def all(self, statement: sa.Executable, values: Mapping[str, Any]) -> list[Any]:
        prepared = self._get(statement, values)
        cursor = await self.driver.execute(prepared.sql, prepared.params(values))
        try:
            rows = await cursor.fetchall()
        finally:
            await cursor.close()
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


class _PgWrite(_RawWrite):
    """PostgreSQL: the write transaction of a step on one of the service's own asyncpg
    connections (:class:`bot.db.PgDrivers`), its statements run on the driver as prepared
    statements, with no pool checkout, ping or reset around them.

    The writes wait, and go as one statement (:func:`_one_statement`) before the next read
    or the commit: a step is BEGIN, the locked read, its writes and COMMIT, four round trips
    where one per statement made six (every round trip costs both processes a system call
    and a wake-up, more than the statements themselves). A write that fails thus fails at
    the end of the step's block, which rolls the transaction back as before. Two updates of
    one statement (the game row of two steps in one transaction) never share a statement:
    PostgreSQL would apply only one of them."""

    def __init__(self, driver: Any, dialect: sa.Dialect, prepared: dict[tuple[Any, ...], _Prepared],
                 combined: dict[tuple[Any, ...], str]) -> None:
        super().__init__(driver, dialect, prepared)
        self._combined = combined
        self._queued: list[tuple[_Prepared, list[tuple[Any, ...]]]] = []
        self._updates: set[sa.Executable] = set()

    def _get(self, statement: sa.Executable, keys: Iterable[str]) -> _Prepared:
        names = tuple(sorted(keys))
        found = self._prepared.get((statement, *names))
        if found is None:
            # An INSERT without RETURNING: a step never needs the new rows' ids back.
            bare = statement.inline() if isinstance(statement, sa.Insert) else statement
            found = self._prepared[(statement, *names)] = _Prepared(bare, self.dialect, names)
        return found

    async def run(self, statement: sa.Executable, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]) -> None:
        rows = [values] if isinstance(values, Mapping) else list(values)
        if not rows:
            return
        if statement in self._updates:
            await self.flush()
        prepared = self._get(statement, rows[0])
        self._queued.append((prepared, [prepared.params(v) for v in rows]))
        if isinstance(statement, sa.Update):
            self._updates.add(statement)

    async def flush(self) -> None:
        """Run the writes waiting, in one statement."""
        queued, self._queued = self._queued, []
        self._updates.clear()
        if not queued:
            return
        key = tuple((prepared, len(rows)) for prepared, rows in queued)
        sql = self._combined.get(key)
        if sql is None:
            sql = self._combined[key] = _one_statement(key)
        await self.driver.execute(sql, *(value for _prepared, rows in queued for row in rows for value in row))

    async def all(self, statement: sa.Executable, values: Mapping[str, Any]) -> list[Any]:
        await self.flush()
        prepared = self._get(statement, values)
        rows = await self.driver.fetch(prepared.sql, *prepared.params(values))
        shape = prepared.shape
        return [tuple(row) for row in rows] if shape is None else [shape._make(row) for row in rows]


class _Group:
    """SQLite: a write transaction that the steps of one moment share (group commit).

    A commit writes every page the transaction changed to the WAL (the move table and its
    index, the game row and its indexes, the outbox and its three indexes: some 11 pages, 44
    KB), and the checkpointer then copies them into the file: most of a step's cost in
    SQLite (issue 13). Steps made while a group is open (in the same turn of the event loop,
    as happens when many games are played at once) join it, each inside a SAVEPOINT of its
    own, so that one step's failure takes back only its own statements; the group commits
    once, at the next turn of the loop, and only then does any of its steps return (nothing
    is acknowledged before it is committed, so a crash still loses no step anyone was told
    of). A step alone, the usual case, costs one turn of the loop more than a commit of its
    own."""

    __slots__ = ("done", "states", "savepoints")

    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done
        """Its result is None once the group committed; its exception, why it did not."""
        self.states: dict[int, tuple[int, State, int]] = {}
        """The states its steps recorded (``_RawWrite.pending``), for a later step of the same
        game in the same group."""
        self.savepoints = 0


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


class ServiceCore:
    """The plumbing every group of commands shares: sessions and the SQLite write gate, the
    loaded game, the checks a command makes before it acts, and the one way a state changes
    (:meth:`_record`), which writes the move, the state and the notifications together."""

    def __init__(self, db: AsyncEngine) -> None:
        self.db = db
        self._sessions = async_sessionmaker(db, expire_on_commit=False, autoflush=False)
        # game_pk -> the game kept hot at one version. Only committed states enter; a (game,
        # version) pair names one state forever because versions only grow.
        self._states: OrderedDict[int, _Hot] = OrderedDict()
        # game_pk -> the canonical text of the game's last recorded state, with its parts'
        # texts: the next step's text re-encodes only what changed (bot/service/canon.py).
        # Used only for the very state object it was made from, so a rolled-back step's
        # entry is harmless.
        self._texts: OrderedDict[int, Canonical] = OrderedDict()
        # SQLite has one writer at a time. Writers of this process queue here, in asyncio,
        # instead of in SQLite's busy handler, whose timeout turns a burst of commands into
        # "database is locked" errors (tests/reliability/test_concurrency.py); the busy
        # timeout then only arbitrates between processes.
        self._write_gate: asyncio.Lock | None = asyncio.Lock() if db.dialect.name == "sqlite" else None
        self._revision: str | None = None  # the database's Alembic revision, once read
        # SQLite: a connection of the service's own for views of hot games (see _quick_look).
        self._reader: AsyncConnection | None = None
        self._reader_driver: Any = None
        self._writer: AsyncConnection | None = None
        self._writer_driver: Any = None
        self._group: _Group | None = None  # SQLite: the steps' open write transaction, if any
        self._in_group = asyncio.Lock()  # a step inside its statements, or the group committing
        self._committing: asyncio.Task[None] | None = None
        self._prepared: dict[tuple[Any, ...], _Prepared] = {}
        self._combined: dict[tuple[Any, ...], str] = {}  # PostgreSQL: writes run as one (_PgWrite)
        self._look_sql = str(_LOOK.compile(dialect=db.dialect))
        self._look_locked_sql = str(_LOOK_LOCKED.compile(dialect=db.dialect))
        # PostgreSQL: the service's own connections for steps and views of hot games.
        self._pg: PgDrivers | None = PgDrivers(db) if db.dialect.name == "postgresql" else None
        columns = (*_GAME.c, None, *(_SEAT.c[name] for name in _SEAT_FIELDS))  # None: the upgrade mark
        self._look_processors: list[Any] = [
            None if c is None else c.type.dialect_impl(db.dialect).result_processor(db.dialect, None)
            for c in columns]
        # the columns a value read from SQLite must be converted in (times, booleans)
        self._look_converting = [(i, p) for i, p in enumerate(self._look_processors) if p is not None]
        configure_mappers()  # _detached makes row objects without a query, which would do it
        _relax_young_collections()

    @classmethod
    def open(cls, url: str, busy_timeout_ms: int = 5000) -> Self:
        return cls(make_engine(url, busy_timeout_ms=busy_timeout_ms))

    async def close(self) -> None:
        if self._committing is not None:  # a group still open commits first
            with contextlib.suppress(Exception):
                await self._committing
        if self._reader is not None:
            reader, self._reader, self._reader_driver = self._reader, None, None
            await reader.close()
        if self._writer is not None:
            writer, self._writer, self._writer_driver = self._writer, None, None
            await writer.close()
        if self._pg is not None:
            await self._pg.close()
        await self.db.dispose()


    @asynccontextmanager
    async def _read(self) -> AsyncIterator[AsyncSession]:
        async with self._sessions() as session:
            if self.db.dialect.name == "postgresql":
                # One snapshot for the whole read: under READ COMMITTED another process's
                # commit between "SELECT game" and "SELECT game_state" reads as an
                # inconsistent game (tests/reliability/test_pg_shards.py).
                await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            yield session

    @asynccontextmanager
    async def _write(self) -> AsyncIterator[AsyncSession]:
        """One write transaction (SQLite: BEGIN IMMEDIATE), committed if the block succeeds."""
        if self._write_gate is not None:
            await self._write_gate.acquire()
        try:
            async with self._sessions() as session:
                await session.connection(execution_options=WRITE)
                try:
                    yield session
                    await session.commit()
                except BaseException:
                    await session.rollback()
                    raise
        finally:
            if self._write_gate is not None:
                self._write_gate.release()

    @asynccontextmanager
    async def _glance(self) -> AsyncIterator[AsyncConnection]:
        """A read transaction on a bare connection, for Core statements only: a view of a hot
        game runs one statement, and an ORM session costs more than SQLite takes to run it.
        Same consistency as :meth:`_read`."""
        async with self.db.connect() as conn:
            if self.db.dialect.name == "postgresql":
                await conn.execution_options(isolation_level="REPEATABLE READ")
            yield conn

    @asynccontextmanager
    async def _write_step(self) -> AsyncIterator[AsyncConnection | _RawWrite]:
        """The write transaction of a step (or a batch of them): on SQLite, BEGIN IMMEDIATE
        on the service's own writing connection, with the statements run on the driver (the
        write gate makes it this process's only writer meanwhile); on PostgreSQL, one of the
        service's own connections, the statements also run on the driver (:class:`_PgWrite`).
        Committed if the block succeeds, rolled back otherwise, as :meth:`_write`."""
        gate = self._write_gate
        if gate is None:
            if self._pg is not None:
                async with self._pg.transaction(notify=MOVES_CHANNEL) as driver:  # bot.web listens
                    write = _PgWrite(driver, self.db.dialect, self._prepared, self._combined)
                    yield write
                    await write.flush()
                return
            async with self.db.connect() as conn, conn.begin():
                yield conn
            return
        while True:
            group = self._group
            if group is None:
                group = await self._open_group(gate)
            await self._in_group.acquire()  # one step's statements at a time: savepoints nest
            if group is self._group:
                break
            self._in_group.release()  # it committed meanwhile: the next one
        try:
            driver = self._writer_driver
            group.savepoints += 1
            name = f"step{group.savepoints}"
            await (await driver.execute(f"SAVEPOINT {name}")).close()
            raw = _RawWrite(driver, self.db.dialect, self._prepared, group.states)
            try:
                yield raw
            except BaseException:
                await (await driver.execute(f"ROLLBACK TO {name}")).close()
                await (await driver.execute(f"RELEASE {name}")).close()
                raise
            await (await driver.execute(f"RELEASE {name}")).close()
            group.states.update(raw.pending)
            if group.savepoints >= GROUP_STEPS:  # full: commit now, the next step opens another
                await self._end_group(group, gate)
        finally:
            self._in_group.release()
        # Returns once the group committed; a cancelled caller leaves the group be.
        await asyncio.shield(group.done)

    async def _open_group(self, gate: asyncio.Lock) -> _Group:
        """Take the write gate, begin the transaction (BEGIN IMMEDIATE) and schedule its
        commit at the next turn of the event loop (:class:`_Group`)."""
        await gate.acquire()
        try:
            if self._writer_driver is None:
                self._writer = await self.db.connect()
                self._writer_driver = (await self._writer.get_raw_connection()).driver_connection
            await (await self._writer_driver.execute("BEGIN IMMEDIATE")).close()
        except BaseException:
            gate.release()
            raise
        loop = asyncio.get_running_loop()
        group = self._group = _Group(loop.create_future())
        self._committing = loop.create_task(self._commit_group(group, gate))
        return group

    async def _commit_group(self, group: _Group, gate: asyncio.Lock) -> None:
        """Commit ``group`` at the next turn of the loop, once no step is inside its
        statements (unless it filled up and committed already)."""
        async with self._in_group:
            await self._end_group(group, gate)

    async def _end_group(self, group: _Group, gate: asyncio.Lock) -> None:
        """Commit ``group`` (once; the caller holds ``_in_group``), tell its steps how it went,
        and let the next writer in."""
        if group.done.done():
            return
        self._group = None
        try:
            driver = self._writer_driver
            try:
                await driver.commit()
            except BaseException as exc:
                with contextlib.suppress(Exception):
                    await driver.rollback()
                group.done.set_exception(exc)
                if not isinstance(exc, Exception):
                    raise
            else:
                group.done.set_result(None)
        finally:
            gate.release()

    def reading(self) -> AbstractAsyncContextManager[AsyncSession]:
        """A read session for a front end's own tables (the Discord front end's rows), with
        the same consistency as the service's reads."""
        return self._read()

    def writing(self) -> AbstractAsyncContextManager[AsyncSession]:
        """One write transaction for a front end's own tables, committed if the block
        succeeds. It queues with the service's own writers (SQLite has one writer at a time),
        so a front end's bookkeeping never meets "database is locked" while moves are made."""
        return self._write()

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
        assert game.id is not None
        cached = self._states.get(game.id)
        if cached is not None and cached.version == game.version:
            self._states.move_to_end(game.id)
            return cached.state, cached.snapshot
        if isinstance(session, _RawWrite):
            # an earlier step of this group moved the game (not committed yet, so not hot)
            found = session.shared.get(game.id)
            if found is not None and found[0] == game.version:
                return found[1], found[2]
        text, snapshot, problem = await self._rebuild(session, game.id, game.version)
        if problem is not None:
            raise ServiceError(f"Game {game.id} is inconsistent: {problem} Run `alcazaba replay-check {game.id}`.")
        state: State = loads(text)
        return state, snapshot

    @staticmethod
    async def _rebuild(session: _Sql, game_pk: int, version: int) -> tuple[str, int, str | None]:
        """The canonical text of the game's state at ``version`` (its latest): the snapshot
        plus the deltas of the moves after it, checked against the last move's hash. Returns
        (text, snapshot version, None), or a sentence saying what does not fit as the third
        item (a damaged snapshot, a missing or corrupted delta, a gap in the log)."""
        found = await _fetch(session, _SNAPSHOT_ROW, {"pk": game_pk})
        if not found:
            raise GameNotFound(f"Game {game_pk} has no stored state.")
        text, snapshot = str(found[0].state), int(found[0].version)
        rows: Sequence[Any] = ()
        if snapshot < version:
            rows = await _fetch(session, _DELTAS, {"pk": game_pk, "since": snapshot, "upto": version})
        rebuilt, problem = _rebuilt(text, snapshot, version, rows)
        return rebuilt, snapshot, problem

    async def _latest_text(self, session: AsyncSession, game: Game) -> tuple[str, str | None]:
        """The canonical text of the game's latest state as the database holds it (never the
        hot cache: the replay check and the upgrade check vouch for what is stored) and, when
        it cannot be rebuilt, why (they report instead of refusing)."""
        assert game.id is not None
        text, _snapshot, problem = await self._rebuild(session, game.id, game.version)
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
            cached = self._states[game_pk] = _Hot(version, state, snapshot)
        else:
            cached.snapshot = snapshot
        if undo is not None and mark is not None:
            cached.mark, cached.undo = mark, undo
        self._states.move_to_end(game_pk)
        while len(self._states) > _STATE_CACHE_SIZE:
            self._states.popitem(last=False)
        return cached

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
        cursor = await self._reader_driver.execute(self._look_sql, (game_pk,))
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
            found = await session.driver.fetch(self._look_locked_sql if lock else self._look_sql, game_pk)
            if not found:
                raise GameNotFound(f"There is no game {game_pk}.")
            return await self._loaded(session, *_look_parts([tuple(row) for row in found]))
        if isinstance(session, _RawWrite):
            cursor = await session.driver.execute(self._look_sql, (game_pk,))
            raw = await cursor.fetchall()
            await cursor.close()
            if not raw:
                raise GameNotFound(f"There is no game {game_pk}.")
            return await self._loaded(session, *_look_parts(self._typed(raw)))
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
            state, snapshot = await self._state_and_snapshot(session, game)
            return _Loaded(game, seats, module, state, snapshot)
        conn = await session.connection()
        return await self._loaded(conn, *_look_parts(await self._look(conn, game_pk, lock)))

    async def _loaded(self, conn: _Sql, game: Game, seats: dict[str, Seat], mark: int) -> _Loaded:
        """The loaded game from its row objects, with its state and the hot cache's undo facts."""
        module = _module(game.game_id)
        state, snapshot = await self._state_and_snapshot(conn, game)
        hot = self._states.get(game.id or 0)
        undo = hot.undo if hot is not None and hot.version == game.version and hot.mark == mark else None
        return _Loaded(game, seats, module, state, snapshot, mark, undo)

    @staticmethod
    async def _undo_facts(conn: _Sql, game: Game) -> _UndoFacts:
        """The undo facts of the game as the database holds them (two indexed statements)."""
        found = await _fetch(conn, _LAST_STANDING_STEP, {"pk": game.id})
        last = found[0] if found else None
        upgrades = await _fetch(conn, _UPGRADE_FACTS, {"pk": game.id})
        recorded = int(upgrades[-1].to_version) if upgrades else int(game.rules_version)
        base = _upgrade_base(upgrades)
        return _UndoFacts(
            last=(int(last.seq), str(last.role), bool(last.barrier)) if last is not None else None,
            recorded=recorded,
            base=(int(base.seq), int(base.to_version)) if base is not None else None)

    def _info(self, game: Game, seats: Iterable[Seat]) -> GameInfo:
        assert game.id is not None
        options = loads(game.options)
        try:
            module: GameModule | None = _module(game.game_id)
        except ServiceError:
            module = None
        roles = list(module.roles(options)) if module else []
        order = {r: i for i, r in enumerate(roles)}
        seat_infos = [
            SeatInfo(s.role, s.user_id, s.display_name, s.is_bot, loads(s.prefs) or {})
            for s in sorted(seats, key=lambda s: order.get(s.role, len(order)))
        ]
        return GameInfo(
            id=game.id,
            game_id=game.game_id,
            title=module.title if module else game.game_id,
            seed=game.seed,
            options=options,
            status=game.status,
            version=game.version,
            roles=roles,
            active=loads(game.active) or [],
            seats=seat_infos,
            result=loads(game.result),
            created_by=game.created_by,
            guild_id=game.guild_id,
            channel_id=game.channel_id,
            thread_id=game.thread_id,
            pace=game.pace,
            deadline_at=game.deadline_at,
            reminded_at=game.reminded_at,
            created_at=game.created_at,
            updated_at=game.updated_at,
        )

    @staticmethod
    def _require_status(game: Game, *allowed: str) -> None:
        if game.status in allowed:
            return
        sentences = {
            "open": f"Game {game.id} has not started yet.",
            "running": f"Game {game.id} is already under way.",
            "finished": f"Game {game.id} is over.",
            "aborted": f"Game {game.id} was abandoned.",
        }
        raise NotAllowed(sentences.get(game.status, f"Game {game.id} is {game.status}."))

    @staticmethod
    def _require_holder(loaded: _Loaded, role: str, user_id: int | None) -> Seat:
        seat = loaded.seats.get(role)
        roles = loaded.module.roles(loads(loaded.game.options))
        if role not in roles:
            raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
        if seat is None:
            raise NotAllowed(f"Nobody holds the {role} seat.")
        if seat.is_bot:
            raise NotAllowed(f"The built-in player holds the {role} seat.")
        if seat.user_id is not None and seat.user_id != user_id:
            raise NotAllowed(f"The {role} seat belongs to {seat.display_name or 'another player'}.")
        if seat.user_id is None and user_id is not None:
            raise NotAllowed(f"The {role} seat is played at the terminal table.")
        return seat

    @staticmethod
    def _require_version(loaded: _Loaded, expected: int, role: str | None) -> None:
        if loaded.game.version != expected:
            prompt = str(loaded.module.view(loaded.state, role).get("prompt", ""))
            raise StaleVersion(expected, loaded.game.version, role, prompt)


    @staticmethod
    def _target(game: Game) -> int | None:
        return game.thread_id or game.channel_id

    def _notify(
        self,
        session: AsyncSession,
        loaded: _Loaded,
        version: int,
        public: list[str],
        prompted: list[str],
        result: dict[str, Any] | None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Outbox rows of one command, in its transaction. Channel rows: public text only.
        ``prompted``: the roles told to act (a 'your_turn' row each, for a person's seat)."""
        session.add_all(Outbox(**row) for row in self._notices(loaded, version, public, prompted, result, extra))

    def _notices(
        self,
        loaded: _Loaded,
        version: int,
        public: list[str],
        prompted: list[str],
        result: dict[str, Any] | None,
        extra: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        """The outbox rows of :meth:`_notify`, as column values."""
        game = loaded.game
        pk = game.id
        target = self._target(game)
        rows: list[dict[str, Any]] = []

        def row(kind: str, recipient: object, payload: dict[str, Any], key: str) -> None:
            rows.append({"game_pk": pk, "kind": kind, "recipient": str(recipient), "payload": dumps(payload),
                         "dedupe_key": key})

        if target is not None and (public or extra):
            payload: dict[str, Any] = {"type": "log", "game": pk, "version": version, "lines": public}
            if extra:
                payload.update(extra)
            row("channel", target, payload, f"g{pk}:v{version}:{payload['type']}:{payload.get('role', '')}")
        for role in prompted:
            seat = loaded.seats.get(role)
            if seat is None or seat.is_bot or seat.user_id is None or result is not None:
                continue
            row("dm", seat.user_id, {"type": "your_turn", "game": pk, "role": role, "version": version},
                f"g{pk}:v{version}:turn:{role}")
        if result is not None:
            if target is not None:
                row("channel", target, {"type": "finished", "game": pk, "version": version, "result": result},
                    f"g{pk}:finished:channel")
            for seat in self._people(loaded):
                row("dm", seat.user_id, {"type": "finished", "game": pk, "role": seat.role, "version": version,
                                         "result": result}, f"g{pk}:finished:{seat.role}")
        return rows

    async def _record(
        self,
        session: _Sql,
        loaded: _Loaded,
        role: str,
        user_id: int | None,
        new_state: State,
        *,
        kind: str,
        action: dict[str, Any],
        undoes_seq: int | None,
        barrier: bool,
        extra_notice: dict[str, Any] | None = None,
        prompt_again: bool = True,
    ) -> StepResult:
        """Write one move: its row (with the delta from the state before, or a new snapshot
        every SNAPSHOT_EVERY moves and at the end), the game row and the notifications, as
        Core statements (three or four; no ORM flush)."""
        game, module, before = loaded.game, loaded.module, loaded.state
        assert game.id is not None
        last = self._texts.pop(game.id, None)
        prior = last if last is not None and last.state is before else None
        canon = self._texts[game.id] = canonical(new_state, prior)
        while len(self._texts) > _STATE_CACHE_SIZE:
            self._texts.popitem(last=False)
        text = canon.text
        version = game.version + 1
        now = utcnow()
        active_before = list(module.active(before))
        active = list(module.active(new_state))
        result = module.result(new_state)
        snapshot = result is not None or version - loaded.snapshot >= SNAPSHOT_EVERY
        await _run(session, _INSERT_MOVE, {
            "game_pk": game.id, "seq": version, "role": role, "user_id": user_id, "action": dumps(action),
            "kind": kind, "undoes_seq": undoes_seq, "barrier": barrier, "state_hash": state_hash(text),
            "created_at": now, "delta": None if snapshot else dumps(
                text_delta(prior, canon) if prior is not None and prior.parts is not None
                else state_delta(before, new_state))})
        if snapshot:
            await _run(session, _UPDATE_SNAPSHOT, {"snapshot_pk": game.id, "version": version, "state": text,
                                                  "updated_at": now})
        values: dict[str, Any] = {"version": version, "active": dumps(active), "updated_at": now}
        if result is not None:
            values.update(status="finished", result=dumps(result))
        await _run(session, _UPDATE_GAME, {"game_pk": game.id, **values})
        if result is not None:
            await self._rate(session, loaded, result)
        for name, value in values.items():
            # The row object says what the database now holds, without an ORM flush.
            set_committed_value(game, name, value)
        new_entries = _new_lines(before, new_state)
        public = [str(e.get("text", "")) for e in visible_log(new_entries, None)]
        prompted = [r for r in active if r not in active_before]
        if prompt_again and role in active and role not in prompted:
            # The role must act again: its next prompt is a notification like any other,
            # written with the step, so that a crash after this commit cannot lose it.
            prompted.append(role)
        notices = self._notices(loaded, version, public, prompted, result, extra_notice)
        if notices:
            await _run(session, _INSERT_OUTBOX, notices)
        loaded.state = new_state
        if snapshot:
            loaded.snapshot = version
        if isinstance(session, _RawWrite):
            session.pending[game.id] = (version, new_state, loaded.snapshot)
        # A step stands last now; an undo brings back an older one, which the log will say.
        loaded.undo = (replace(loaded.undo, last=(version, role, barrier))
                       if loaded.undo is not None and kind == "step" else None)
        return StepResult(game_pk=game.id, version=version, role=role, kind=kind, active=active, result=result,
                          log=visible_log(new_entries, role), barrier=barrier)

    async def _rate(self, session: _Sql, loaded: _Loaded, result: dict[str, Any]) -> str | None:
        """Count a game that ends now for ratings, in the transaction that records its result
        (``bot.service.ratings``); why it does not count, or None."""
        game = loaded.game
        assert game.id is not None
        order = {r: i for i, r in enumerate(loaded.module.roles(loads(game.options)))}
        seats = sorted(loaded.seats.values(), key=lambda s: order.get(s.role, len(order)))
        return await ratings.rate_finished(
            lambda statement, values: _fetch(session, statement, values),
            lambda statement, values: _run(session, statement, values), self.db.dialect.name,
            game_pk=game.id, guild_id=game.guild_id, game_id=game.game_id, seats=seats, result=result)

    async def _step(self, session: _Sql, loaded: _Loaded, role: str, action: dict[str, Any],
                    user_id: int | None, prompt_again: bool = True) -> StepResult:
        module, state = loaded.module, loaded.state
        active = module.active(state)
        if role not in active:
            waiting = ", ".join(active) if active else "nobody"
            raise NotAllowed(f"It is not {role}'s turn; waiting for {waiting}.")
        new_state = module.apply(state, role, action)  # RuleError passes through, nothing written
        return await self._record(session, loaded, role, user_id, new_state, kind="step",
                                  action=strip_label(action), undoes_seq=None,
                                  barrier=undo_barrier(state, new_state), prompt_again=prompt_again)

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
    def _people(loaded: _Loaded) -> list[Seat]:
        """The seats held by a person with an account, in the order of the game's roles."""
        order = {r: i for i, r in enumerate(loaded.module.roles(loads(loaded.game.options)))}
        return [s for s in sorted(loaded.seats.values(), key=lambda s: order.get(s.role, len(order)))
                if not s.is_bot and s.user_id is not None]

    @staticmethod
    async def _move_rows(session: AsyncSession, game_pk: int, since: int = 0) -> list[Move]:
        query = sa.select(Move).where(col(Move.game_pk) == game_pk, col(Move.seq) > since).order_by(col(Move.seq))
        return list((await session.execute(query)).scalars())

    @staticmethod
    def _options(module: GameModule, given: dict[str, Any]) -> dict[str, Any]:
        spec: dict[str, Any] = dict(module.OPTIONS)
        unknown = sorted(set(given) - set(spec))
        if unknown:
            known = ", ".join(sorted(spec)) or "none"
            raise ServiceError(f"{module.title} has no option {', '.join(unknown)}; its options are: {known}.")
        options = {name: clone(s["default"]) for name, s in spec.items() if isinstance(s, dict) and "default" in s}
        kinds: dict[str, type | tuple[type, ...]] = {"bool": bool, "int": int, "str": str, "float": (int, float)}
        for name, value in given.items():
            entry = spec[name] if isinstance(spec[name], dict) else {}
            choices = entry.get("choices")
            if choices is not None and value not in choices:
                raise ServiceError(f"Option {name} must be one of {', '.join(map(str, choices))}, not {value!r}.")
            kind = kinds.get(str(entry.get("type")))
            wrong_bool = isinstance(value, bool) and entry.get("type") in ("int", "float")
            if kind is not None and (not isinstance(value, kind) or wrong_bool):
                article = "an" if str(entry["type"])[0] in "aeiou" else "a"
                raise ServiceError(f"Option {name} must be {article} {entry['type']}, not {value!r}.")
            options[name] = value
        return options
