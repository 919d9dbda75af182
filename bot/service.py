"""The game service: every command a front end may give, each one database transaction.

Front ends (Discord, the terminal table, benchmarks) call :class:`GameService`; it knows
nothing about them. One command loads the latest state, checks the version the player saw,
asks the engine, and writes the move, the new state and the notifications (outbox rows)
together, or nothing at all. The move log is append-only: an undo is a new row, and a replay
of the log from ``setup`` reproduces the stored state exactly (``replay_check``).

Hidden information: rows meant for a channel carry only what a spectator may read (public
log lines, results); rows meant for a player name the role, and the front end draws that
role's view when it delivers them.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.orm import aliased
from sqlmodel import col

import engine
from bot.db import WRITE, make_engine
from bot.models import Game, GameState, Move, Outbox, RulesUpgrade, Seat, dumps, loads, utcnow
from engine.api import GameModule, RuleError, State, clone, strip_label, undo_barrier, visible_log
from engine.players import choose

EXPORT_FORMAT = 1
_SEED_LIMIT = 1 << 63
_STATE_CACHE_SIZE = 128

__all__ = [
    "EXPORT_FORMAT",
    "GameInfo",
    "GameNotFound",
    "GameService",
    "GameView",
    "ImportRefused",
    "NotAllowed",
    "OutboxItem",
    "ReplayReport",
    "RuleError",
    "SeatInfo",
    "ServiceError",
    "StaleVersion",
    "StepResult",
    "UndoRefused",
    "rules_version",
    "state_hash",
]


# --------------------------------------------------------------------------- errors


class ServiceError(Exception):
    """A command the service refuses; ``str()`` is a sentence a player can read."""


class GameNotFound(ServiceError):
    pass


class NotAllowed(ServiceError):
    """Refused for who asked or when: not your seat, not your turn, game not running..."""


class UndoRefused(NotAllowed):
    pass


class StaleVersion(ServiceError):
    """The order was given against an older version of the game (a stale button, a race).

    ``version`` is the current version and ``prompt`` what ``role`` is asked now, so that a
    front end can show the new situation at once.
    """

    def __init__(self, expected: int, version: int, role: str | None, prompt: str) -> None:
        self.expected = expected
        self.version = version
        self.role = role
        self.prompt = prompt
        super().__init__(
            f"The game moved on since you looked (your order was for version {expected}, "
            f"it is now at version {version}). {prompt}".strip()
        )


class ImportRefused(ServiceError):
    """A game file that does not replay; ``seq`` names the first bad move (None: the header)."""

    def __init__(self, message: str, seq: int | None = None) -> None:
        self.seq = seq
        super().__init__(message)


# --------------------------------------------------------------------------- values returned


@dataclass(frozen=True)
class SeatInfo:
    role: str
    user_id: int | None
    display_name: str
    is_bot: bool
    prefs: dict[str, Any] = field(default_factory=dict)

    @property
    def is_terminal(self) -> bool:
        """A seat played at the terminal table (nobody's account, not the built-in player)."""
        return self.user_id is None and not self.is_bot


@dataclass(frozen=True)
class GameInfo:
    """A game's row, without its state. ``active`` are the roles that must act now."""

    id: int
    game_id: str
    title: str
    seed: int
    options: dict[str, Any]
    status: str
    version: int
    roles: list[str]
    active: list[str]
    seats: list[SeatInfo]
    result: dict[str, Any] | None
    created_by: int | None
    guild_id: int | None
    channel_id: int | None
    thread_id: int | None
    pace: str | None
    deadline_at: datetime | None
    reminded_at: datetime | None
    created_at: datetime
    updated_at: datetime

    def seat(self, role: str) -> SeatInfo | None:
        return next((s for s in self.seats if s.role == role), None)

    def roles_of(self, user_id: int) -> list[str]:
        return [s.role for s in self.seats if s.user_id == user_id]

    @property
    def free_roles(self) -> list[str]:
        taken = {s.role for s in self.seats}
        return [r for r in self.roles if r not in taken]


@dataclass(frozen=True)
class GameView:
    """What one role (or a spectator, role None) may see now: the engine's view plus the
    game's row. ``view`` holds at least ``prompt``, ``actions`` and ``log``."""

    game: GameInfo
    role: str | None
    version: int
    view: dict[str, Any]
    can_undo: bool


@dataclass(frozen=True)
class StepResult:
    """The outcome of a step, an undo or a bot move.

    ``log`` holds the new log entries ``role`` may read; ``barrier`` says the step drew at
    random or revealed something (it can never be taken back).
    """

    game_pk: int
    version: int
    role: str
    kind: str
    active: list[str]
    result: dict[str, Any] | None
    log: list[dict[str, Any]]
    barrier: bool

    @property
    def finished(self) -> bool:
        return self.result is not None


@dataclass(frozen=True)
class ReplayReport:
    """``ok`` or the first move that failed: ``seq`` (None when the header or the final
    comparison failed) and a sentence in ``message``."""

    ok: bool
    moves: int
    message: str
    seq: int | None = None
    #: what went wrong: 'different' (a move leads to another state), 'fails' (a move is
    #: refused under the installed rules) or 'log' (the log or the header itself); None if ok.
    problem: str | None = None
    #: the rule a refused move broke (RuleError.rule), when it names one.
    rule: str | None = None


@dataclass(frozen=True)
class OutboxItem:
    id: int
    game_pk: int | None
    kind: str
    recipient: str
    payload: dict[str, Any]
    attempts: int
    dedupe_key: str
    created_at: datetime
    sent_at: datetime | None
    failed_at: datetime | None = None
    last_error: str | None = None


def state_hash(text: str) -> str:
    """A short fingerprint of a state's canonical text, kept with every move."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


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


def rules_version(module: GameModule) -> int:
    """The module's ``RULES_VERSION``: bumped whenever a change alters what a log replays to
    (a game module without one, a test double, is at version 1)."""
    return int(getattr(module, "RULES_VERSION", 1))


def _upgrade_base(upgrades: Sequence[RulesUpgrade]) -> RulesUpgrade | None:
    """The last rules upgrade the log does not replay across (its stored state is where undo
    and replay start), or None: replay from setup."""
    opaque = [u for u in upgrades if u.outcome != "identical"]
    return opaque[-1] if opaque else None


def _module(game_id: str) -> GameModule:
    try:
        return engine.get(game_id)
    except KeyError as exc:
        raise ServiceError(str(exc.args[0])) from None


@dataclass
class _Loaded:
    """A game locked for a command: its row, seats, engine and latest state."""

    game: Game
    seats: dict[str, Seat]
    module: GameModule
    state: State


# --------------------------------------------------------------------------- the service


class GameService:
    """All game commands over one database. Safe to share within one event loop; several
    processes may serve the same database (versions and locks keep them consistent).

    Create with ``GameService(async_engine)`` or ``GameService.open(url)`` (the database must
    be migrated: ``bot.db.migrate(url)``); ``await service.close()`` at the end.
    """

    def __init__(self, db: AsyncEngine) -> None:
        self.db = db
        self._sessions = async_sessionmaker(db, expire_on_commit=False, autoflush=False)
        # (game_pk) -> (version, parsed state). Only committed states enter; a (game, version)
        # pair names one state forever because versions only grow.
        self._states: OrderedDict[int, tuple[int, State]] = OrderedDict()
        # SQLite has one writer at a time. Writers of this process queue here, in asyncio,
        # instead of in SQLite's busy handler, whose timeout turns a burst of commands into
        # "database is locked" errors (tests/reliability/test_concurrency.py); the busy
        # timeout then only arbitrates between processes.
        self._write_gate: asyncio.Lock | None = asyncio.Lock() if db.dialect.name == "sqlite" else None
        self._revision: str | None = None  # the database's Alembic revision, once read

    @classmethod
    def open(cls, url: str, busy_timeout_ms: int = 5000) -> GameService:
        return cls(make_engine(url, busy_timeout_ms=busy_timeout_ms))

    async def close(self) -> None:
        await self.db.dispose()

    # ------------------------------------------------------------------ plumbing

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
        assert game.id is not None
        cached = self._states.get(game.id)
        if cached is not None and cached[0] == game.version:
            self._states.move_to_end(game.id)
            return cached[1]
        row = (
            await session.execute(sa.select(col(GameState.state), col(GameState.version)).where(col(GameState.game_pk) == game.id))
        ).one_or_none()
        if row is None:
            raise GameNotFound(f"Game {game.id} has no stored state.")
        if row.version != game.version:
            raise ServiceError(f"Game {game.id} is inconsistent: row at version {game.version}, state at {row.version}.")
        state: State = loads(row.state)
        return state

    def _remember(self, game_pk: int, version: int, state: State) -> None:
        self._states[game_pk] = (version, state)
        self._states.move_to_end(game_pk)
        while len(self._states) > _STATE_CACHE_SIZE:
            self._states.popitem(last=False)

    async def _load(self, session: AsyncSession, game_pk: int, lock: bool) -> _Loaded:
        game = await self._game_row(session, game_pk, lock=lock)
        seats = await self._seats(session, game_pk)
        module = _module(game.game_id)
        return _Loaded(game, seats, module, await self._state(session, game))

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

    # ------------------------------------------------------------------ notifications

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
        game = loaded.game
        pk = game.id
        target = self._target(game)
        rows: list[Outbox] = []
        if target is not None and (public or extra):
            payload: dict[str, Any] = {"type": "log", "game": pk, "version": version, "lines": public}
            if extra:
                payload.update(extra)
            rows.append(Outbox(game_pk=pk, kind="channel", recipient=str(target), payload=dumps(payload),
                               dedupe_key=f"g{pk}:v{version}:{payload['type']}:{payload.get('role', '')}"))
        for role in prompted:
            seat = loaded.seats.get(role)
            if seat is None or seat.is_bot or seat.user_id is None or result is not None:
                continue
            payload = {"type": "your_turn", "game": pk, "role": role, "version": version}
            rows.append(Outbox(game_pk=pk, kind="dm", recipient=str(seat.user_id), payload=dumps(payload),
                               dedupe_key=f"g{pk}:v{version}:turn:{role}"))
        if result is not None:
            if target is not None:
                payload = {"type": "finished", "game": pk, "version": version, "result": result}
                rows.append(Outbox(game_pk=pk, kind="channel", recipient=str(target), payload=dumps(payload),
                                   dedupe_key=f"g{pk}:finished:channel"))
            for seat in self._people(loaded):
                payload = {"type": "finished", "game": pk, "role": seat.role, "version": version, "result": result}
                rows.append(Outbox(game_pk=pk, kind="dm", recipient=str(seat.user_id), payload=dumps(payload),
                                   dedupe_key=f"g{pk}:finished:{seat.role}"))
        session.add_all(rows)

    # ------------------------------------------------------------------ the one way a state changes

    async def _record(
        self,
        session: AsyncSession,
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
        game, module, before = loaded.game, loaded.module, loaded.state
        assert game.id is not None
        text = dumps(new_state)
        version = game.version + 1
        now = utcnow()
        active_before = list(module.active(before))
        active = list(module.active(new_state))
        result = module.result(new_state)
        session.add(Move(game_pk=game.id, seq=version, role=role, user_id=user_id, action=dumps(action), kind=kind,
                         undoes_seq=undoes_seq, barrier=barrier, state_hash=state_hash(text), created_at=now))
        await session.execute(
            sa.update(GameState)
            .where(col(GameState.game_pk) == game.id)
            .values(version=version, state=text, updated_at=now)
        )
        game.version = version
        game.active = dumps(active)
        game.updated_at = now
        if result is not None:
            game.status = "finished"
            game.result = dumps(result)
        new_entries = _new_lines(before, new_state)
        public = [str(e.get("text", "")) for e in visible_log(new_entries, None)]
        prompted = [r for r in active if r not in active_before]
        if prompt_again and role in active and role not in prompted:
            # The role must act again: its next prompt is a notification like any other,
            # written with the step, so that a crash after this commit cannot lose it.
            prompted.append(role)
        self._notify(session, loaded, version, public, prompted, result, extra_notice)
        loaded.state = new_state
        return StepResult(game_pk=game.id, version=version, role=role, kind=kind, active=active, result=result,
                          log=visible_log(new_entries, role), barrier=barrier)

    async def _step(self, session: AsyncSession, loaded: _Loaded, role: str, action: dict[str, Any],
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

    # ------------------------------------------------------------------ games and seats

    async def create_game(
        self,
        game_id: str,
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        *,
        created_by: int | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        thread_id: int | None = None,
        pace: str | None = None,
    ) -> GameInfo:
        """A new game in status 'open' with its state set up (version 0) and no seats.

        ``options`` are checked against the game's ``OPTIONS`` (unknown names refused, defaults
        filled in); ``seed`` None draws one. Raises ServiceError for an unknown game.
        """
        module = _module(game_id)
        opts = self._options(module, options or {})
        if seed is None:
            seed = secrets.randbelow(_SEED_LIMIT)
        if not -_SEED_LIMIT <= seed < _SEED_LIMIT:
            raise ServiceError("The seed must fit in 64 bits.")
        state = module.setup(seed, clone(opts))
        text = dumps(state)
        async with self._write() as session:
            game = Game(game_id=game_id, seed=seed, options=dumps(opts), status="open", version=0,
                        active=dumps(list(module.active(state))), created_by=created_by, guild_id=guild_id,
                        channel_id=channel_id, thread_id=thread_id, pace=pace,
                        rules_version=rules_version(module), schema_revision=await self._schema_revision(session))
            session.add(game)
            await session.flush()
            assert game.id is not None
            session.add(GameState(game_pk=game.id, version=0, state=text))
            info = self._info(game, [])
        self._remember(info.id, 0, state)
        return info

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
    def _options(module: GameModule, given: dict[str, Any]) -> dict[str, Any]:
        spec: dict[str, dict[str, Any]] = dict(getattr(module, "OPTIONS", {}) or {})
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

    async def join(
        self,
        game_pk: int,
        user_id: int | None,
        display_name: str,
        role: str | None = None,
        *,
        is_bot: bool = False,
        announce: bool = False,
    ) -> SeatInfo:
        """Take a seat in an open game: ``role`` or, if None, the first free one.

        ``user_id`` None with ``is_bot`` False is a terminal seat; ``is_bot`` gives the seat
        to the built-in player. A user may hold several roles (solo testing). ``announce``
        writes a 'seated' notification for the game's public place in the same transaction.
        """
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            self._require_status(game, "open")
            roles = _module(game.game_id).roles(loads(game.options))
            seats = await self._seats(session, game_pk)
            if role is None:
                free = [r for r in roles if r not in seats]
                if not free:
                    raise NotAllowed(f"Every seat of game {game_pk} is taken.")
                role = free[0]
            elif role not in roles:
                raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
            elif role in seats:
                holder = seats[role].display_name or "someone"
                raise NotAllowed(f"The {role} seat is already taken by {holder}.")
            seat = Seat(game_pk=game_pk, role=role, user_id=user_id, display_name=display_name[:100],
                        is_bot=is_bot)
            session.add(seat)
            game.updated_at = utcnow()
            target = self._target(game)
            if announce and target is not None:
                await session.flush()
                payload = {"type": "seated", "game": game_pk, "version": game.version, "role": role,
                           "lines": [f"{seat.display_name or 'The built-in player'} takes the {role} seat."]}
                session.add(Outbox(game_pk=game_pk, kind="channel", recipient=str(target), payload=dumps(payload),
                                   dedupe_key=f"g{game_pk}:seat{seat.id}:{role}:joined"))
        return SeatInfo(role, user_id, seat.display_name, is_bot, {})

    async def leave(self, game_pk: int, role: str, user_id: int | None = None) -> None:
        """Give a seat back before the game starts."""
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            self._require_status(game, "open")
            seat = (await self._seats(session, game_pk)).get(role)
            if seat is None:
                raise NotAllowed(f"Nobody holds the {role} seat.")
            if not seat.is_bot and seat.user_id != user_id:
                raise NotAllowed(f"The {role} seat is not yours.")
            await session.delete(seat)
            game.updated_at = utcnow()

    async def set_prefs(self, game_pk: int, role: str, prefs: dict[str, Any], user_id: int | None = None) -> None:
        """Replace a seat's preferences (e.g. auto-pass choices), a JSON object."""
        async with self._write() as session:
            seat = (await self._seats(session, game_pk)).get(role)
            if seat is None:
                raise NotAllowed(f"Nobody holds the {role} seat.")
            if seat.user_id != user_id:
                raise NotAllowed(f"The {role} seat is not yours.")
            seat.prefs = dumps(prefs)

    async def set_place(self, game_pk: int, *, guild_id: int | None = None, channel_id: int | None = None,
                        thread_id: int | None = None) -> None:
        """Where the game's public posts go (e.g. the thread made after /game new). None keeps."""
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            if guild_id is not None:
                game.guild_id = guild_id
            if channel_id is not None:
                game.channel_id = channel_id
            if thread_id is not None:
                game.thread_id = thread_id
            game.updated_at = utcnow()

    async def set_schedule(self, game_pk: int, *, pace: str | None = None, deadline_at: datetime | None = None,
                           reminded_at: datetime | None = None, clear_deadline: bool = False) -> None:
        """Pace and deadline columns, for the scheduler. None keeps a value; ``clear_deadline``
        empties deadline and reminder."""
        async with self._write() as session:
            game = await self._game_row(session, game_pk, lock=True)
            if pace is not None:
                game.pace = pace
            if clear_deadline:
                game.deadline_at = None
                game.reminded_at = None
            if deadline_at is not None:
                game.deadline_at = deadline_at
            if reminded_at is not None:
                game.reminded_at = reminded_at

    async def start(self, game_pk: int, *, fill_with_bots: bool = False) -> GameInfo:
        """Open -> running once every role is seated (``fill_with_bots``: the built-in player
        takes the empty seats). Tells the active players it is their turn."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            game = loaded.game
            self._require_status(game, "open")
            roles = loaded.module.roles(loads(game.options))
            empty = [r for r in roles if r not in loaded.seats]
            if empty and not fill_with_bots:
                raise NotAllowed(f"Game {game_pk} still needs a player for: {', '.join(empty)}.")
            for role in empty:
                seat = Seat(game_pk=game_pk, role=role, user_id=None, display_name="built-in player", is_bot=True)
                session.add(seat)
                loaded.seats[role] = seat
            game.status = "running"
            game.updated_at = utcnow()
            public = [str(e.get("text", "")) for e in visible_log(loaded.state.get("log") or [], None)]
            active = list(loaded.module.active(loaded.state))
            self._notify(session, loaded, game.version, public, active, None, {"type": "started"})
            await session.flush()
            info = self._info(game, loaded.seats.values())
        return info

    async def abort(self, game_pk: int, reason: str = "abandoned") -> GameInfo:
        """Stop a game that will not be finished (no winner). The log stays."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            self._require_status(loaded.game, "open", "running")
            loaded.game.status = "aborted"
            loaded.game.result = dumps({"winner": None, "reason": reason, "score": {}})
            loaded.game.active = "[]"
            loaded.game.updated_at = utcnow()
            self._notify(session, loaded, loaded.game.version, [], [], None,
                         {"type": "aborted", "reason": reason})
            # Every player is told by DM, as after a resignation or a claim: the front end
            # then also closes the prompts that were waiting for him.
            for seat in self._people(loaded):
                payload = {"type": "aborted", "game": game_pk, "role": seat.role, "version": loaded.game.version,
                           "reason": reason}
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(seat.user_id), payload=dumps(payload),
                                   dedupe_key=f"g{game_pk}:aborted:{seat.role}"))
            return self._info(loaded.game, loaded.seats.values())

    @staticmethod
    def _people(loaded: _Loaded) -> list[Seat]:
        """The seats held by a person with an account, in the order of the game's roles."""
        order = {r: i for i, r in enumerate(loaded.module.roles(loads(loaded.game.options)))}
        return [s for s in sorted(loaded.seats.values(), key=lambda s: order.get(s.role, len(order)))
                if not s.is_bot and s.user_id is not None]

    async def resign(self, game_pk: int, role: str, user_id: int | None = None) -> GameInfo:
        """A player gives up. In a two-role game the other role wins, a solo game ends unwon;
        with more roles the built-in player takes the seat, the game goes on and the other
        players are told by a note of their own."""
        return await self._give_up(game_pk, role, user_id, reason=f"{role} resigned",
                                   event=f"{role} resigns", check_holder=True)

    async def forfeit(self, game_pk: int, role: str, reason: str) -> GameInfo:
        """A seat loses without its holder asking (a deadline claimed by the opponent): the
        same outcome as a resignation, but the result says why, and no holder check applies
        since the late player is not the one acting."""
        return await self._give_up(game_pk, role, None, reason=reason, event=reason, check_holder=False)

    async def _give_up(self, game_pk: int, role: str, user_id: int | None, *, reason: str, event: str,
                       check_holder: bool) -> GameInfo:
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            self._require_status(loaded.game, "running")
            roles = loaded.module.roles(loads(loaded.game.options))
            if role not in roles:
                raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
            seat = self._require_holder(loaded, role, user_id) if check_holder else loaded.seats.get(role)
            game = loaded.game
            game.updated_at = utcnow()
            if len(roles) <= 2:
                # Two seats: the other wins. One seat (a solo game): the game ends unwon.
                winner = next((r for r in roles if r != role), None)
                result: dict[str, Any] = {"winner": winner, "reason": reason, "score": {}}
                game.status = "finished"
                game.result = dumps(result)
                game.active = "[]"
                self._notify(session, loaded, game.version, [f"{event}."], [], result,
                             {"type": "resigned", "role": role, "reason": reason})
            else:
                if seat is not None:
                    seat.is_bot = True
                    seat.user_id = None
                    seat.display_name = "built-in player"
                self._notify(session, loaded, game.version, [f"{event}; the built-in player takes over."],
                             [], None, {"type": "resigned", "role": role, "reason": reason})
                # The other players are told where they read their prompts, not only in the thread.
                text = (f"{event} in game #{game_pk}; the built-in player takes the {role} seat and the "
                        "game goes on.")
                session.add_all(
                    Outbox(game_pk=game_pk, kind="dm", recipient=str(other.user_id),
                           payload=dumps({"type": "note", "game": game_pk, "role": other.role, "text": text}),
                           dedupe_key=f"g{game_pk}:v{game.version}:gaveup:{role}:to:{other.role}")
                    for other in self._people(loaded) if other.role != role)
            return self._info(game, loaded.seats.values())

    async def substitute(self, game_pk: int, role: str, user_id: int, display_name: str) -> GameInfo:
        """Hand a seat to another person (a server manager replacing a player who left).

        The game's course is untouched; only who may act for ``role`` changes, so the move log
        records the new holder's user id on the moves he makes from now on. The public notice
        and, when the seat must act now, the new holder's prompt are outbox rows of this
        transaction, like every other notification: a crash right after cannot lose them.
        """
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            game = loaded.game
            self._require_status(game, "open", "running")
            roles = loaded.module.roles(loads(game.options))
            if role not in roles:
                raise NotAllowed(f"There is no role {role!r} in this game; the roles are {', '.join(roles)}.")
            seat = loaded.seats.get(role)
            if seat is not None and seat.user_id == user_id and not seat.is_bot:
                raise NotAllowed(f"{seat.display_name or 'That player'} already holds the {role} seat.")
            if seat is None:
                seat = Seat(game_pk=game_pk, role=role, user_id=user_id, display_name=display_name[:100],
                            is_bot=False)
                session.add(seat)
                loaded.seats[role] = seat
            else:
                seat.user_id = user_id
                seat.display_name = display_name[:100]
                seat.is_bot = False
            game.updated_at = utcnow()
            key = f"g{game_pk}:v{game.version}:seat:{role}:u{user_id}"
            target = self._target(game)
            if target is not None:
                payload = {"type": "log", "game": game_pk, "version": game.version, "role": role,
                           "lines": [f"{seat.display_name} takes over the {role} seat."]}
                session.add(Outbox(game_pk=game_pk, kind="channel", recipient=str(target), payload=dumps(payload),
                                   dedupe_key=f"{key}:channel"))
            if game.status == "running" and role in loaded.module.active(loaded.state):
                payload = {"type": "your_turn", "game": game_pk, "role": role, "version": game.version}
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(user_id), payload=dumps(payload),
                                   dedupe_key=f"{key}:turn"))
            await session.flush()
            return self._info(game, loaded.seats.values())

    # ------------------------------------------------------------------ reading

    async def game(self, game_pk: int) -> GameInfo:
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            return self._info(game, (await self._seats(session, game_pk)).values())

    async def games(
        self,
        *,
        status: str | Sequence[str] | None = None,
        guild_id: int | None = None,
        channel_id: int | None = None,
        thread_id: int | None = None,
        user_id: int | None = None,
        paced: bool | None = None,
        limit: int | None = 50,
    ) -> list[GameInfo]:
        """Games matching every filter given, most recently changed first.

        ``paced`` True keeps only games with a pace (a clock), which is what the deadline
        scheduler walks; ``limit`` None returns them all."""
        query = sa.select(Game)
        if status is not None:
            statuses = [status] if isinstance(status, str) else list(status)
            query = query.where(col(Game.status).in_(statuses))
        if guild_id is not None:
            query = query.where(col(Game.guild_id) == guild_id)
        if channel_id is not None:
            query = query.where(col(Game.channel_id) == channel_id)
        if thread_id is not None:
            query = query.where(col(Game.thread_id) == thread_id)
        if user_id is not None:
            query = query.where(col(Game.id).in_(sa.select(col(Seat.game_pk)).where(col(Seat.user_id) == user_id)))
        if paced is not None:
            query = query.where(col(Game.pace).is_not(None) if paced else col(Game.pace).is_(None))
        query = query.order_by(col(Game.updated_at).desc(), col(Game.id).desc())
        if limit is not None:
            query = query.limit(limit)
        async with self._read() as session:
            rows = list((await session.execute(query)).scalars())
            if not rows:
                return []
            seats = (await session.execute(
                sa.select(Seat).where(col(Seat.game_pk).in_([g.id for g in rows]))
            )).scalars()
            by_game: dict[int, list[Seat]] = {}
            for seat in seats:
                by_game.setdefault(seat.game_pk, []).append(seat)
            return [self._info(g, by_game.get(g.id or 0, [])) for g in rows]

    async def state(self, game_pk: int) -> tuple[int, State]:
        """The version and a copy of the whole state (hidden parts included: not for players)."""
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            state = await self._state(session, game)
            self._remember(game_pk, game.version, state)
            return game.version, clone(state)

    async def view(self, game_pk: int, role: str | None, user_id: int | None = None) -> GameView:
        """What ``role`` may see (None: a spectator). With ``user_id``, refuses a role that
        user does not hold, so a front end cannot show one player another's hand."""
        async with self._read() as session:
            loaded = await self._load(session, game_pk, lock=False)
            game = loaded.game
            if role is not None and user_id is not None:
                seat = loaded.seats.get(role)
                if seat is None or seat.user_id != user_id:
                    raise NotAllowed(f"You do not hold the {role} seat.")
            view = clone(loaded.module.view(loaded.state, role))
            can_undo = False
            if role is not None and game.status == "running":
                can_undo = (await self._undo_refusal(session, game, role)) is None
            info = self._info(game, loaded.seats.values())
        self._remember(game_pk, game.version, loaded.state)
        return GameView(info, role, game.version, view, can_undo)

    async def moves(self, game_pk: int, since: int = 0) -> list[dict[str, Any]]:
        """The log after move ``since`` (the whole log by default), undo rows included: {seq,
        role, user_id, kind, action, undoes_seq, barrier, state_hash, created_at}. Holds
        actions, so not for players mid-game."""
        async with self._read() as session:
            await self._game_row(session, game_pk)
            rows = await self._move_rows(session, game_pk, since)
        return [
            {"seq": m.seq, "role": m.role, "user_id": m.user_id, "kind": m.kind, "action": loads(m.action),
             "undoes_seq": m.undoes_seq, "barrier": m.barrier, "state_hash": m.state_hash,
             "created_at": m.created_at}
            for m in rows
        ]

    @staticmethod
    async def _move_rows(session: AsyncSession, game_pk: int, since: int = 0) -> list[Move]:
        query = sa.select(Move).where(col(Move.game_pk) == game_pk, col(Move.seq) > since).order_by(col(Move.seq))
        return list((await session.execute(query)).scalars())

    # ------------------------------------------------------------------ playing

    async def apply(self, game_pk: int, role: str, action: dict[str, Any], expected_version: int,
                    user_id: int | None = None, *, prompt_again: bool = True) -> StepResult:
        """One step by ``role``: checks the seat belongs to ``user_id`` (None: terminal seat)
        and that the game is still at ``expected_version``, then asks the engine and writes
        move, state and notifications in one transaction.

        Raises StaleVersion (with the new version and prompt), NotAllowed, GameNotFound, or
        the engine's RuleError unchanged (show ``err.explain()``). Built-in players do not move
        here: call :meth:`play_bots` afterwards.

        When ``role`` must act again, a 'your_turn' row tells it so, as when a turn passes;
        ``prompt_again=False`` leaves it out, for a step a front end answers in place (the
        page turn of a long list of choices).
        """
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            self._require_status(loaded.game, "running")
            self._require_holder(loaded, role, user_id)
            self._require_version(loaded, expected_version, role)
            step = await self._step(session, loaded, role, action, user_id, prompt_again)
        self._remember(game_pk, step.version, loaded.state)
        return step

    async def play_bots(self, game_pk: int, max_steps: int | None = None, batch: int = 20) -> list[StepResult]:
        """Let the built-in player move for its seats until a human must act, the game ends,
        or ``max_steps`` moves were made.

        Up to ``batch`` consecutive bot moves share one transaction (each still has its own
        move row, hash and notifications): a game between built-in players would otherwise
        spend most of its time committing. Nobody can act in between anyway, since only
        bots are active; the lock is held for a few milliseconds per move.
        """
        steps: list[StepResult] = []
        while max_steps is None or len(steps) < max_steps:
            made: list[StepResult] = []
            async with self._write() as session:
                loaded = await self._load(session, game_pk, lock=True)
                while len(made) < batch and (max_steps is None or len(steps) + len(made) < max_steps):
                    if loaded.game.status != "running":
                        break
                    active = loaded.module.active(loaded.state)
                    bots = [r for r in active if (s := loaded.seats.get(r)) is not None and s.is_bot]
                    if not bots:
                        break
                    role = bots[0]
                    seed = _bot_seed(loaded.game.seed, loaded.game.version, role)
                    action = choose(loaded.module, loaded.state, role, seed)
                    made.append(await self._step(session, loaded, role, action, None))
            if not made:
                break
            self._remember(game_pk, made[-1].version, loaded.state)
            steps.extend(made)
        return steps

    async def waiting_for_bots(self, limit: int = 100) -> list[int]:
        """Running games where a built-in player must move (e.g. after a restart)."""
        query = (
            sa.select(col(Seat.game_pk), col(Seat.role), col(Game.active))
            .join(Game, col(Game.id) == col(Seat.game_pk))
            .where(col(Seat.is_bot) == sa.true(), col(Game.status) == "running")
            .order_by(col(Seat.game_pk))
        )
        async with self._read() as session:
            rows = (await session.execute(query)).all()
        waiting: list[int] = []
        for pk, role, active in rows:
            if role in (loads(active) or []) and pk not in waiting:
                waiting.append(pk)
        return waiting[:limit]

    # ------------------------------------------------------------------ undo

    @staticmethod
    async def _last_effective_step(session: AsyncSession, game_pk: int) -> Move | None:
        undone = sa.select(col(Move.undoes_seq)).where(col(Move.game_pk) == game_pk, col(Move.kind) == "undo")
        query = (
            sa.select(Move)
            .where(col(Move.game_pk) == game_pk, col(Move.kind) == "step")
            .where(col(Move.seq).not_in(undone.where(col(Move.undoes_seq).is_not(None))))
            .order_by(col(Move.seq).desc())
            .limit(1)
        )
        return (await session.execute(query)).scalar_one_or_none()

    async def _undo_refusal(self, session: AsyncSession, game: Game, role: str) -> str | None:
        assert game.id is not None
        last = await self._last_effective_step(session, game.id)
        if last is None:
            return "There is nothing to take back: no step has been made."
        if last.role != role:
            return f"You cannot take that back: {last.role} has acted since your last step."
        if last.barrier:
            return ("You cannot take back your last step: it drew at random or revealed hidden "
                    "information.")
        # Undo replays the log, and never across a rules upgrade (issue 14): it stops there
        # as it stops at a reveal.
        module = _module(game.game_id)
        upgrades = await self._upgrades(session, game.id)
        recorded = upgrades[-1].to_version if upgrades else game.rules_version
        installed = rules_version(module)
        if recorded != installed:
            return (f"You cannot take back your last step: the rules of {module.title} were updated "
                    f"(version {recorded} to {installed}) after it was made.")
        base = _upgrade_base(upgrades)
        if base is not None and last.seq <= base.seq:
            return (f"You cannot take back your last step: it was made before the rules of {module.title} "
                    f"were updated to version {base.to_version}.")
        return None

    async def can_undo(self, game_pk: int, role: str) -> str | None:
        """None if ``role`` may take back its last step now, else the sentence refusing it."""
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            if game.status != "running":
                return "The game is not running."
            return await self._undo_refusal(session, game, role)

    async def undo(self, game_pk: int, role: str, expected_version: int, user_id: int | None = None) -> StepResult:
        """Take back ``role``'s last step. Allowed while that step is the last one standing,
        was ``role``'s own, and drew nothing and revealed nothing (``engine.api.undo_barrier``);
        repeat to take back more. Writes an 'undo' row (the log stays append-only) and the
        state rebuilt by replaying the steps still standing from setup, or from the state
        stored at the last rules upgrade the log did not replay across (``bot.upgrade``):
        undo stops there as at a reveal. UndoRefused says why not.
        """
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            game = loaded.game
            self._require_status(game, "running")
            self._require_holder(loaded, role, user_id)
            self._require_version(loaded, expected_version, role)
            refusal = await self._undo_refusal(session, game, role)
            if refusal is not None:
                raise UndoRefused(refusal)
            rows = await self._move_rows(session, game_pk)
            standing = _standing_steps(rows)
            target = standing.pop()
            base = _upgrade_base(await self._upgrades(session, game_pk))
            if base is not None and base.state is not None:
                # The log before the rules upgrade does not replay: start from the state
                # stored at the upgrade (_undo_refusal kept the target after it).
                state = loads(base.state)
                standing = [m for m in standing if m.seq > base.seq]
            else:
                state = loaded.module.setup(game.seed, loads(game.options))
            for move in standing:
                state = loaded.module.apply(state, move.role, loads(move.action))
            expected_hash = standing[-1].state_hash if standing else None
            if expected_hash is not None and state_hash(dumps(state)) != expected_hash:
                raise ServiceError(f"Game {game_pk} does not replay (move {standing[-1].seq}); "
                                   "run `alcazaba replay-check` for details.")
            step = await self._record(session, loaded, role, user_id, state, kind="undo", action={},
                                      undoes_seq=target.seq, barrier=False,
                                      extra_notice={"type": "undo", "role": role, "undoes_seq": target.seq,
                                                    "lines": [f"{role} takes back a step."]})
        self._remember(game_pk, step.version, loaded.state)
        return step

    # ------------------------------------------------------------------ export, import, replay

    async def export(self, game_pk: int) -> dict[str, Any]:
        """The game as a file (format 1): ``{"format", "game", "title", "seed", "options",
        "rules_version", "schema_revision", "upgrades", "players", "status", "result",
        "state_hash", "moves": [{"seq", "role", "action", "hash"}]}``. Only the steps still
        standing are listed (taken-back steps and the undo rows are left out; their ``seq``
        numbers show as gaps), so the file replays with the engine alone; ``hash`` is the
        fingerprint of the state after each move. ``rules_version`` is the game's at creation;
        ``upgrades`` the rules upgrades met since (``seq``, ``from``, ``to``, ``outcome``, and
        for a log that did not replay across it the ``state`` there), so that a reader with
        newer rules verifies the moves after the last such upgrade."""
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            seats = await self._seats(session, game_pk)
            rows = await self._move_rows(session, game_pk)
            upgrades = await self._upgrades(session, game_pk)
            snapshot = (await session.execute(
                sa.select(col(GameState.state)).where(col(GameState.game_pk) == game_pk)
            )).scalar_one()
        info = self._info(game, seats.values())
        return {
            "format": EXPORT_FORMAT,
            "game": game.game_id,
            "title": info.title,
            "seed": game.seed,
            "options": loads(game.options),
            "rules_version": game.rules_version,
            "schema_revision": game.schema_revision,
            "upgrades": [{"seq": u.seq, "from": u.from_version, "to": u.to_version, "outcome": u.outcome,
                          "diverging_seq": u.diverging_seq, "report": u.report, "hash": u.state_hash,
                          "state": loads(u.state)} for u in upgrades],
            "players": [{"role": s.role, "name": s.display_name, "bot": s.is_bot} for s in info.seats],
            "status": game.status,
            "result": loads(game.result),
            "state_hash": state_hash(snapshot),
            "moves": [{"seq": m.seq, "role": m.role, "action": loads(m.action), "hash": m.state_hash}
                      for m in _standing_steps(rows)],
        }

    async def import_game(self, data: dict[str, Any], *, created_by: int | None = None) -> int:
        """Store an exported game as a new game and return its id.

        Every move is replayed through the engine; the first one that is not legal, or
        whose resulting state differs from the file's ``hash``, refuses the whole file
        (ImportRefused naming that move, and the rules version the file needs when it was
        recorded under another). A file whose log stopped replaying at a rules upgrade is
        verified from the state stored there. Seats come from ``players`` (terminal seats
        when absent); a game whose replay ends is 'finished', otherwise 'running'.
        """
        checked = _verify_file(data)  # raises ImportRefused
        module, options, moves, final = checked.module, checked.options, checked.moves, checked.final
        result = module.result(final)
        players = {p.get("role"): p for p in data.get("players") or [] if isinstance(p, dict)}
        roles = module.roles(options)
        renumber = {_seq(m, i): i for i, m in enumerate(moves, start=1)}
        async with self._write() as session:
            game = Game(game_id=module.id, seed=checked.seed, options=dumps(options),
                        status="finished" if result is not None else "running", version=len(moves),
                        active=dumps(list(module.active(final))), created_by=created_by,
                        result=dumps(result) if result is not None else None,
                        rules_version=checked.rules_version, schema_revision=await self._schema_revision(session))
            session.add(game)
            await session.flush()
            assert game.id is not None
            for role in roles:
                p = players.get(role, {})
                session.add(Seat(game_pk=game.id, role=role, user_id=None, display_name=str(p.get("name") or "")[:100],
                                 is_bot=bool(p.get("bot", False))))
            now = utcnow()
            session.add_all(
                Move(game_pk=game.id, seq=i, role=m["role"], user_id=None, action=dumps(strip_label(m["action"])),
                     kind="step", undoes_seq=None, barrier=barrier, state_hash=digest, created_at=now)
                for i, (m, (digest, barrier)) in enumerate(zip(moves, checked.steps, strict=True), start=1)
            )
            for up in checked.upgrades:
                # A file's seq numbers have gaps (taken-back steps); the stored log has none.
                seq = sum(1 for old in renumber if old <= up.seq)
                session.add(RulesUpgrade(game_pk=game.id, seq=seq, from_version=up.from_version,
                                         to_version=up.to_version, outcome=up.outcome,
                                         diverging_seq=renumber.get(up.diverging_seq or -1), report=up.report,
                                         state=up.state, state_hash=up.state_hash, created_at=now))
            session.add(GameState(game_pk=game.id, version=len(moves), state=dumps(final)))
            pk = game.id
        self._remember(pk, len(moves), final)
        return pk

    async def replay_check(self, source: int | dict[str, Any]) -> ReplayReport:
        """Replay a stored game (by id) or an exported file from setup.

        For a stored game every row is replayed (undo rows included) and each state is
        compared with the hash recorded with its move, then the final state with the stored
        snapshot, byte for byte. For a file, each move must be legal and match its ``hash``
        and the final state the file's ``state_hash``, when given. The report names the first
        move that fails. A log that stopped replaying at a rules upgrade is verified from the
        state stored there; a log recorded under other rules that fails names the version it
        needs.
        """
        if isinstance(source, dict):
            try:
                checked = _verify_file(source)
            except ImportRefused as exc:
                return ReplayReport(False, 0, str(exc), exc.seq, "log" if exc.seq is None else "fails")
            module, moves, final = checked.module, checked.moves, checked.final
            if source.get("state_hash") and state_hash(dumps(final)) != source["state_hash"]:
                return ReplayReport(False, len(moves), "The replay ends in a different state from the one exported.",
                                    None, "different")
            if "result" in source and source.get("status") == "finished" and module.result(final) != source["result"]:
                return ReplayReport(False, len(moves), "The replay ends with a different result from the one exported.",
                                    None, "different")
            if checked.base_seq is not None:
                return ReplayReport(True, len(moves), f"ok: the moves after move {checked.base_seq} replay under "
                                    f"{module.title} rules version {rules_version(module)} from the state stored at "
                                    f"the rules upgrade, to the exported state; the moves before it need rules "
                                    f"version {checked.needs}.")
            return ReplayReport(True, len(moves), f"ok: {len(moves)} moves replay to the exported state.")
        async with self._read() as session:
            game = await self._game_row(session, source)
            rows = await self._move_rows(session, source)
            upgrades = await self._upgrades(session, source)
            snapshot = (await session.execute(
                sa.select(col(GameState.state), col(GameState.version)).where(col(GameState.game_pk) == source)
            )).one()
        module = _module(game.game_id)
        report = _replay_rows(module, game, rows, snapshot.state, snapshot.version, _upgrade_base(upgrades))
        recorded = upgrades[-1].to_version if upgrades else game.rules_version
        return _name_version(report, module, recorded)

    # ------------------------------------------------------------------ outbox delivery

    async def claim_outbox(self, worker: str, limit: int = 20, lease_seconds: float = 60.0,
                           kinds: Sequence[str] | None = None, together: Sequence[str] = ()) -> list[OutboxItem]:
        """Claim up to ``limit`` notifications due for delivery, for ``lease_seconds``.

        Several workers (processes) may call this at once: a row is claimed by one only. A
        worker that dies leaves its claims to expire. Deliver, then :meth:`mark_sent` (or
        :meth:`mark_all_sent`) or :meth:`mark_failed`.

        Rows of the kinds in ``together`` are claimed a recipient at a time: none of a
        recipient's rows while another of its unsent rows is claimed by another worker or
        waits for a retry. A worker that posts them grouped (a game's thread) then holds
        every unsent row of that recipient, so what it posts comes in order and a dead
        worker's half-posted group is taken over whole, never re-formed with other members.
        """
        now = utcnow()
        expired = now - timedelta(seconds=lease_seconds)
        free = sa.or_(col(Outbox.claimed_at).is_(None), col(Outbox.claimed_at) < expired)
        query = (
            sa.select(col(Outbox.id))
            .where(col(Outbox.sent_at).is_(None), col(Outbox.failed_at).is_(None), col(Outbox.next_attempt_at) <= now,
                   free)
            .order_by(col(Outbox.id))
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        if kinds is not None:
            query = query.where(col(Outbox.kind).in_(list(kinds)))
        if together:
            other = aliased(Outbox)
            held_elsewhere = sa.exists().where(
                col(other.kind) == col(Outbox.kind), col(other.recipient) == col(Outbox.recipient),
                col(other.id) != col(Outbox.id), col(other.sent_at).is_(None), col(other.failed_at).is_(None),
                sa.or_(col(other.next_attempt_at) > now,
                       sa.and_(col(other.claimed_at) >= expired, col(other.claimed_by) != worker)))
            query = query.where(sa.or_(col(Outbox.kind).not_in(list(together)), ~held_elsewhere))
        claimed: list[OutboxItem] = []
        async with self._write() as session:
            ids = list((await session.execute(query)).scalars())
            for item_id in ids:
                done = await session.execute(
                    sa.update(Outbox)
                    .where(col(Outbox.id) == item_id, col(Outbox.sent_at).is_(None), free)
                    .values(claimed_by=worker, claimed_at=now)
                )
                if _rowcount(done) == 1:
                    row = (await session.execute(sa.select(Outbox).where(col(Outbox.id) == item_id))).scalar_one()
                    claimed.append(_outbox_item(row))
        return claimed

    async def mark_sent(self, item_id: int, worker: str) -> bool:
        """Record a delivery; False if the claim was lost (another worker took it over)."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(sent_at=utcnow())
            )
            return bool(_rowcount(done))

    async def mark_all_sent(self, item_ids: Sequence[int], worker: str) -> int:
        """Record the delivery of several rows sent as one (a grouped thread post) in one
        transaction, so that a crash cannot leave part of the group pending: a retry would
        make a group of the rest, under another nonce. The number of rows still this
        worker's claim, now marked."""
        if not item_ids:
            return 0
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id).in_(list(item_ids)), col(Outbox.claimed_by) == worker,
                       col(Outbox.sent_at).is_(None))
                .values(sent_at=utcnow())
            )
            return _rowcount(done)

    async def mark_failed(self, item_id: int, worker: str, error: str, retry_in_seconds: float = 30.0) -> bool:
        """Count a failed attempt and release the row for a retry after ``retry_in_seconds``."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(attempts=col(Outbox.attempts) + 1, last_error=error[:2000], claimed_by=None, claimed_at=None,
                        next_attempt_at=utcnow() + timedelta(seconds=retry_in_seconds))
            )
            return bool(_rowcount(done))

    async def mark_given_up(self, item_id: int, worker: str, error: str) -> bool:
        """Give a row up for good (Discord refuses it whatever we do): it is recorded with its
        last error and ``failed_at``, is never claimed again and holds nothing back."""
        async with self._write() as session:
            done = await session.execute(
                sa.update(Outbox)
                .where(col(Outbox.id) == item_id, col(Outbox.claimed_by) == worker, col(Outbox.sent_at).is_(None))
                .values(attempts=col(Outbox.attempts) + 1, last_error=error[:2000], claimed_by=None, claimed_at=None,
                        failed_at=utcnow())
            )
            return bool(_rowcount(done))

    async def tell_players(self, game_pk: int, text: str, key: str) -> int:
        """A DM row with ``text`` for every person seated in the game, once per ``key`` (a
        second call with the same key writes nothing). The number of rows written."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            written = 0
            for seat in self._people(loaded):
                dedupe = f"g{game_pk}:tell:{key}:{seat.role}"[:200]
                exists = (await session.execute(
                    sa.select(col(Outbox.id)).where(col(Outbox.dedupe_key) == dedupe))).first()
                if exists is not None:
                    continue
                payload = {"type": "note", "game": game_pk, "role": seat.role, "text": text}
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(seat.user_id), payload=dumps(payload),
                                   dedupe_key=dedupe))
                written += 1
            return written

    async def outbox(self, game_pk: int | None = None, pending_only: bool = False) -> list[OutboxItem]:
        """Notification rows (of one game), oldest first; for operators and tests."""
        query = sa.select(Outbox).order_by(col(Outbox.id))
        if game_pk is not None:
            query = query.where(col(Outbox.game_pk) == game_pk)
        if pending_only:
            query = query.where(col(Outbox.sent_at).is_(None), col(Outbox.failed_at).is_(None))
        async with self._read() as session:
            return [_outbox_item(r) for r in (await session.execute(query)).scalars()]


# --------------------------------------------------------------------------- replay helpers


def _rowcount(result: Any) -> int:
    """Rows an UPDATE touched (the conditional updates that claim rows depend on it)."""
    return int(getattr(result, "rowcount", 0) or 0)


def _outbox_item(row: Outbox) -> OutboxItem:
    assert row.id is not None
    return OutboxItem(row.id, row.game_pk, row.kind, row.recipient, loads(row.payload), row.attempts,
                      row.dedupe_key, row.created_at, row.sent_at, row.failed_at, row.last_error)


def _standing_steps(rows: Sequence[Move]) -> list[Move]:
    """The steps not taken back, in order (rows sorted by seq)."""
    undone = {m.undoes_seq for m in rows if m.kind == "undo"}
    return [m for m in rows if m.kind == "step" and m.seq not in undone]


def _parse_export(data: Any) -> tuple[GameModule, int, dict[str, Any], list[dict[str, Any]]]:
    if not isinstance(data, dict):
        raise ImportRefused("A game file is a JSON object.")
    if data.get("format") != EXPORT_FORMAT:
        raise ImportRefused(f"Unknown game file format {data.get('format')!r}; this server reads format {EXPORT_FORMAT}.")
    game_id = data.get("game")
    if not isinstance(game_id, str) or game_id not in engine.GAMES:
        raise ImportRefused(f"Unknown game {game_id!r}; known games: {', '.join(sorted(engine.GAMES))}.")
    seed = data.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not -_SEED_LIMIT <= seed < _SEED_LIMIT:
        raise ImportRefused("The file's seed must be a 64-bit integer.")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ImportRefused("The file's options must be a JSON object.")
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise ImportRefused("The file has no list of moves.")
    previous = None
    for index, move in enumerate(moves, start=1):
        if not isinstance(move, dict) or not isinstance(move.get("role"), str) or not isinstance(move.get("action"), dict):
            raise ImportRefused(f"Move #{index} must be an object with a role and an action.", _seq(move, index))
        seq = _seq(move, index)
        if previous is not None and seq <= previous:
            raise ImportRefused(f"Move {seq} comes after move {previous}: moves must be in increasing order.", seq)
        previous = seq
    return engine.get(game_id), seed, options, moves


def _seq(move: Any, index: int) -> int:
    if isinstance(move, dict) and isinstance(move.get("seq"), int) and not isinstance(move.get("seq"), bool):
        return int(move["seq"])
    return index


def _describe_move(seq: int, move: dict[str, Any]) -> str:
    return f"move {seq} ({move.get('role')}: {dumps(strip_label(move.get('action') or {}))})"


@dataclass(frozen=True)
class _FileUpgrade:
    seq: int
    from_version: int
    to_version: int
    outcome: str
    diverging_seq: int | None
    report: str
    state: str | None
    state_hash: str


@dataclass(frozen=True)
class _CheckedFile:
    """A game file that verified: what import stores. ``base_seq``: the move (file numbering)
    of the rules upgrade the check started from, None if it replayed from setup; ``needs``:
    the rules version the moves up to it were recorded under."""

    module: GameModule
    seed: int
    options: dict[str, Any]
    moves: list[dict[str, Any]]
    steps: list[tuple[str, bool]]
    final: State
    rules_version: int
    upgrades: list[_FileUpgrade]
    base_seq: int | None
    needs: int


def _file_upgrades(data: dict[str, Any]) -> list[_FileUpgrade]:
    out: list[_FileUpgrade] = []
    for up in data.get("upgrades") or []:
        try:
            state = up.get("state")
            out.append(_FileUpgrade(int(up["seq"]), int(up["from"]), int(up["to"]), str(up["outcome"]),
                                    up.get("diverging_seq") if isinstance(up.get("diverging_seq"), int) else None,
                                    str(up.get("report") or ""), None if state is None else dumps(state),
                                    str(up["hash"])))
        except (AttributeError, KeyError, TypeError, ValueError):
            raise ImportRefused("The file's upgrades must be objects with seq, from, to, outcome and hash.") from None
    return out


def _verify_file(data: Any) -> _CheckedFile:
    """Replay a game file under the installed rules: from setup, or, when its log stopped
    replaying at a rules upgrade to the installed version, from the state stored there (the
    moves before it keep their recorded hashes and count as barriers: undo never crosses
    them). ImportRefused names the first bad move and the rules version the file needs."""
    module, seed, options, moves = _parse_export(data)
    recorded = data.get("rules_version", 1)
    if not isinstance(recorded, int) or isinstance(recorded, bool):
        raise ImportRefused("The file's rules_version must be an integer.")
    upgrades = _file_upgrades(data)
    installed = rules_version(module)
    current = upgrades[-1].to_version if upgrades else recorded
    opaque = [u for u in upgrades if u.outcome != "identical"]
    base = opaque[-1] if opaque and opaque[-1].state is not None and opaque[-1].to_version == installed else None
    if base is not None:
        assert base.state is not None
        if state_hash(base.state) != base.state_hash:
            raise ImportRefused(f"The state stored at the rules upgrade after move {base.seq} does not match its hash.")
        before = [m for i, m in enumerate(moves, start=1) if _seq(m, i) <= base.seq]
        after = moves[len(before):]
        if before and before[-1].get("hash") is not None and _seq(before[-1], len(before)) == base.seq \
                and before[-1]["hash"] != base.state_hash:
            raise ImportRefused(f"The state stored at the rules upgrade is not the one move {base.seq} recorded.",
                                base.seq)
        steps, final = _replay_file(module, seed, options, after, start=loads(base.state), first=len(before) + 1)
        kept = [(str(m.get("hash") or ""), True) for m in before]
        return _CheckedFile(module, seed, options, moves, kept + steps, final, recorded, upgrades, base.seq,
                            base.from_version)
    try:
        steps, final = _replay_file(module, seed, options, moves)
    except ImportRefused as exc:
        if current == installed:
            raise
        raise ImportRefused(f"{exc} The file was recorded under {module.title} rules version {current}; this "
                            f"release has version {installed}: use a release whose {module.id} rules are version "
                            f"{current}.", exc.seq) from None
    if current != installed:
        # It replays identically under the installed rules: record that, so undo may go on.
        last = _seq(moves[-1], len(moves)) if moves else 0
        upgrades.append(_FileUpgrade(last, current, installed, "identical", None,
                                     f"The log replays identically under rules version {installed}.", None,
                                     steps[-1][0] if steps else state_hash(dumps(module.setup(seed, clone(options))))))
    return _CheckedFile(module, seed, options, moves, steps, final, recorded, upgrades, None, current)


def _replay_file(module: GameModule, seed: int, options: dict[str, Any], moves: list[dict[str, Any]],
                 start: State | None = None, first: int = 1) -> tuple[list[tuple[str, bool]], State]:
    """(hash, barrier) after each move of a file, and the final state; ImportRefused at the
    first bad move. Keeps one state at a time: a long game must not hold thousands.
    ``start``: the state before the first move (default: setup); ``first``: its index."""
    state = module.setup(seed, clone(options)) if start is None else start
    out: list[tuple[str, bool]] = []
    for index, move in enumerate(moves, start=first):
        seq = _seq(move, index)
        what = _describe_move(seq, move)
        role = move["role"]
        if module.result(state) is not None:
            raise ImportRefused(f"{what} comes after the end of the game.", seq)
        active = module.active(state)
        if role not in active:
            raise ImportRefused(f"{what} is not legal: it is not {role}'s turn (waiting for "
                                f"{', '.join(active) or 'nobody'}).", seq)
        try:
            new_state = module.apply(state, role, move["action"])
        except RuleError as exc:
            raise ImportRefused(f"{what} is not legal: {exc.explain()}", seq) from None
        digest = state_hash(dumps(new_state))
        if move.get("hash") is not None and move["hash"] != digest:
            raise ImportRefused(f"{what} does not lead to the state recorded in the file.", seq)
        out.append((digest, undo_barrier(state, new_state)))
        state = new_state
    return out, state


def _name_version(report: ReplayReport, module: GameModule, recorded: int) -> ReplayReport:
    """A replay that fails on a log recorded under other rules says which version it needs."""
    installed = rules_version(module)
    if report.ok or recorded == installed or report.problem == "log":
        return report
    return ReplayReport(False, report.moves, f"{report.message} The game was recorded under {module.title} rules "
                        f"version {recorded}; this release has version {installed}: replay it with a release whose "
                        f"{module.id} rules are version {recorded}.", report.seq, report.problem)


def _replay_rows(module: GameModule, game: Game, rows: Sequence[Move], snapshot: str, version: int,
                 base: RulesUpgrade | None = None) -> ReplayReport:
    """Replay a stored log, undo rows included (see GameService.replay_check).

    An undo row is checked against the undo rule and replayed as the service made it: the
    standing steps replayed from setup, or from ``base``, the state stored at a rules upgrade
    the log does not replay across (the rows up to it are then only checked for gaps).
    """
    options = loads(game.options)
    from_base = base is not None and base.state is not None
    base_seq = base.seq if base is not None and from_base else 0

    def start() -> State:
        if from_base:
            assert base is not None and base.state is not None
            return loads(base.state)
        return module.setup(game.seed, clone(options))

    state = start()
    standing: list[tuple[Move, bool]] = []  # (step row, was it a barrier)
    for expected_seq, move in enumerate(rows, start=1):
        done = expected_seq - 1
        what = f"move {move.seq} ({move.role}, {move.kind})"
        if move.seq != expected_seq:
            return ReplayReport(False, done, f"The log has a gap: {what} where move {expected_seq} was expected.",
                                move.seq, "log")
        if move.seq <= base_seq:
            if move.seq == base_seq and base is not None and move.state_hash != base.state_hash:
                return ReplayReport(False, done, f"The state stored at the rules upgrade is not the one {what} "
                                    "recorded.", move.seq, "log")
            continue
        if move.kind == "step":
            if move.role not in module.active(state):
                return ReplayReport(False, done, f"{what} is not legal: it is not {move.role}'s turn.", move.seq,
                                    "fails")
            try:
                new_state = module.apply(state, move.role, loads(move.action))
            except RuleError as exc:
                return ReplayReport(False, done, f"{what} is not legal: {exc.explain()}", move.seq, "fails",
                                    exc.rule)
            standing.append((move, undo_barrier(state, new_state)))
        elif move.kind == "undo":
            last = standing[-1] if standing else None
            if last is None or last[0].seq != move.undoes_seq or last[0].role != move.role or last[1]:
                return ReplayReport(False, done, f"{what} takes back move {move.undoes_seq}, which could not "
                                    "be taken back then.", move.seq, "fails")
            standing.pop()
            new_state = start()
            for step, _barrier in standing:
                new_state = module.apply(new_state, step.role, loads(step.action))
        else:
            return ReplayReport(False, done, f"{what} has an unknown kind.", move.seq, "log")
        if state_hash(dumps(new_state)) != move.state_hash:
            return ReplayReport(False, done, f"{what} leads to a different state from the one recorded.", move.seq,
                                "different")
        state = new_state
    if version != len(rows) or game.version != len(rows):
        return ReplayReport(False, len(rows), f"The stored version {version} does not match the {len(rows)} moves "
                            "logged.", None, "log")
    if dumps(state) != snapshot:
        return ReplayReport(False, len(rows), "The replay ends in a different state from the stored one.", None,
                            "different")
    if from_base:
        return ReplayReport(True, len(rows), f"ok: moves 1-{base_seq} were recorded under rules version "
                            f"{base.from_version if base else '?'} (that release replays them); moves "
                            f"{base_seq + 1}-{len(rows)} replay under version {base.to_version if base else '?'} "
                            "to the stored state.")
    return ReplayReport(True, len(rows), f"ok: {len(rows)} moves replay to the stored state.")
