"""The service's game flow: load a game, check a command (status, seat holder, expected
version, whether undo is allowed), apply it, record the move and notify (outbox rows), in one
transaction. Where states and rows are kept is ``bot.service.storage`` (over
``bot.service.transactions``, ``bot.service.sql`` and ``bot.service.deltas``)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from bot.models import Game, Move, Outbox, Seat, dumps, loads, utcnow
from bot.service import ratings
from bot.service.deltas import state_hash
from bot.service.forced import FORCED_LIMIT, _forced_tells, confirms_forced, is_auto
from bot.service.marks import Reached, forced_step
from bot.service.sql import (
    _INSERT_OUTBOX,
    _LAST_STANDING_STEPS,
    _UPGRADE_FACTS,
    _fetch,
    _run,
    _Sql,
)
from bot.service.storage import Storage, _Hot, _Loaded, _module, _UndoFacts
from bot.service.types import (
    GameInfo,
    NotAllowed,
    SeatInfo,
    ServiceError,
    StaleVersion,
    StepResult,
)
from engine.api import (
    Action,
    GameModule,
    RulesModule,
    State,
    adapt,
    clone,
    strip_label,
    undo_barrier,
    visible_log,
)
from engine.text import role_name

__all__ = [
    # what other modules import from here
    "EXPORT_FORMAT",
    "_SEED_LIMIT",
    "ServiceCore",
    "_bot_seed",
    "_module",
    "_standing_steps",
    "_upgrade_base",
    "rules_version",
    "state_hash",
    "undo_refusal",
]

EXPORT_FORMAT = 1

_SEED_LIMIT = 1 << 63

def _bot_seed(game_seed: int, version: int, role: str) -> int:
    # Deterministic, so that a game with built-in players replays and demos reproduce.
    salt = int(hashlib.sha256(role.encode()).hexdigest()[:8], 16)
    return (game_seed * 1_000_003 + version * 7919 + salt) % _SEED_LIMIT


_ROLES_KEPT = 256
_roles_kept: dict[tuple[int, str | None], tuple[GameModule, tuple[str, ...]]] = {}


def _roles_of(module: GameModule, options: str | None) -> tuple[str, ...]:
    """The roles of a game of ``module`` whose options are stored as the text ``options``.

    An engine's roles depend on the options alone, and every step asks for them (the seat
    holder's check): kept by engine and options text, they cost a lookup instead of parsing
    the options and calling the engine each time."""
    key = (id(module), options)
    found = _roles_kept.get(key)
    if found is None or found[0] is not module:
        if len(_roles_kept) >= _ROLES_KEPT:
            _roles_kept.clear()
        found = _roles_kept[key] = (module, tuple(module.roles(loads(options))))
    return found[1]


@lru_cache(maxsize=256)
def _roles_in(text: str | None) -> tuple[str, ...]:
    """The roles a game's stored ``active`` text names, parsed once per text: every view of a
    game kept hot builds its info anew, and a game's active roles are one of a few texts."""
    return tuple(loads(text) or ())


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


def _standing_steps(rows: Sequence[Move]) -> list[Move]:
    """The steps not taken back, in order (rows sorted by seq)."""
    undone = {m.undoes_seq for m in rows if m.kind == "undo"}
    return [m for m in rows if m.kind == "step" and m.seq not in undone]


class ServiceCore(Storage):
    """The game flow every group of commands shares: the checks a command makes before it
    acts, and the one way a state changes (:meth:`_record`), which writes the move, the
    state and the notifications together (over :class:`bot.service.storage.Storage`)."""

    @staticmethod
    async def _undo_facts(conn: _Sql, game: Game) -> _UndoFacts:
        """The undo facts of the game as the database holds them (two indexed statements). The
        last step is the last one standing that a player (or the built-in player) chose: the
        forced steps the service took by itself after it go with it (``undo``), and make it
        final when one of them is."""
        found = await _fetch(conn, _LAST_STANDING_STEPS, {"pk": game.id})
        last = None
        barrier = False
        for row in found:
            barrier = barrier or bool(row.barrier)
            if '"automatic"' not in row.action or not is_auto(loads(row.action)):
                last = (int(row.seq), str(row.role), barrier)
                break
        upgrades = await _fetch(conn, _UPGRADE_FACTS, {"pk": game.id})
        recorded = int(upgrades[-1].to_version) if upgrades else int(game.rules_version)
        base = _upgrade_base(upgrades)
        return _UndoFacts(
            last=last,
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
        return self._info_with(game, module.title if module else game.game_id, options, roles, seat_infos)

    @staticmethod
    def _info_with(game: Any, title: str, options: dict[str, Any], roles: list[str],
                   seats: list[SeatInfo]) -> GameInfo:
        """The GameInfo of ``game`` (a Game, or any object with its columns as attributes) with
        the parts :meth:`_info` makes from its options and seats."""
        return GameInfo(
            id=game.id,
            game_id=game.game_id,
            title=title,
            seed=game.seed,
            options=options,
            status=game.status,
            version=game.version,
            roles=roles,
            active=list(_roles_in(game.active)),
            seats=seats,
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
            rematch_of=game.rematch_of,
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
        roles = _roles_of(loaded.module, loaded.game.options)
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
        now: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """The outbox rows of :meth:`_notify`, as column values. ``now``: the command's time
        (the move's, :meth:`_record`), else read once for its rows (the columns' own default)."""
        game = loaded.game
        pk = game.id
        target = self._target(game)
        rows: list[dict[str, Any]] = []
        if now is None:
            now = utcnow()

        def row(kind: str, recipient: object, payload: dict[str, Any], key: str) -> None:
            rows.append({"game_pk": pk, "kind": kind, "recipient": str(recipient), "payload": dumps(payload),
                         "dedupe_key": key, "created_at": now, "next_attempt_at": now})

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
        quiet: Collection[str] = (),
        notify: bool = True,
        note: str | None = None,
    ) -> StepResult:
        """Record one move: its rows and the game row (``Storage._write_move``), the rating of
        a game that ends, and the notifications, as Core statements (no ORM flush).

        ``quiet``: roles not told to act (their next step is a forced one the service takes
        next, so the prompt would be for nothing); ``notify=False``: no notification at all (a
        step of an undo that takes back several); ``note``: a public line before the step's
        own (a forced step says it was taken by the service)."""
        game, module, before = loaded.game, loaded.module, loaded.state
        assert game.id is not None
        active_before = list(module.active(before))
        active = list(module.active(new_state))
        result = module.result(new_state)
        now = utcnow()  # one clock reading for the move's rows and its notifications
        version, snapshot = await self._write_move(
            session, loaded, role, user_id, new_state, kind=kind, action=action, undoes_seq=undoes_seq,
            barrier=barrier, active=active, result=result, now=now)
        if result is not None:
            await self._rate(session, loaded, result)
        new_entries = _new_lines(before, new_state)
        if notify:
            public = [str(e.get("text", "")) for e in visible_log(new_entries, None)]
            if note is not None:
                public.insert(0, note)
            prompted = [r for r in active if r not in active_before]
            if prompt_again and role in active and role not in prompted:
                # The role must act again: its next prompt is a notification like any other,
                # written with the step, so that a crash after this commit cannot lose it.
                prompted.append(role)
            prompted = [r for r in prompted if r not in quiet]
            notices = self._notices(loaded, version, public, prompted, result, extra_notice, now)
            if notices:
                await _run(session, _INSERT_OUTBOX, notices)
        self._advance(session, loaded, version, new_state, snapshot)
        # A step stands last now; an undo brings back an older one, which the log will say.
        # A forced step the service took goes with the step before it (``_undo_facts``).
        if kind != "step" or loaded.undo is None:
            loaded.undo = None
        elif not is_auto(action):
            loaded.undo = replace(loaded.undo, last=(version, role, barrier))
        elif barrier and loaded.undo.last is not None:
            loaded.undo = replace(loaded.undo, last=(*loaded.undo.last[:2], True))
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
                    user_id: int | None, prompt_again: bool = True, *, settle: bool = True) -> StepResult:
        """One step of ``role``, then (``settle``) the forced steps that follow it, which the
        service takes by itself (:meth:`_forced_next`), each recorded as a move of its own in
        the same transaction; the result tells of them (``StepResult.forced``)."""
        module, state = loaded.module, loaded.state
        active = module.active(state)
        if role not in active:
            waiting = ", ".join(active) if active else "nobody"
            raise NotAllowed(f"It is not {role}'s turn; waiting for {waiting}.")
        reached = loaded.reached.get(role) if loaded.reached is not None else None
        new_state = reached.after(state, action) if reached is not None else None
        if new_state is None:  # not an action the role's view reached (bot/service/marks.py)
            new_state = module.apply(state, role, action)  # RuleError passes through, nothing written
        after = self._forced_next(loaded, new_state) if settle else None
        step = await self._record(session, loaded, role, user_id, new_state, kind="step",
                                  action=strip_label(action), undoes_seq=None,
                                  barrier=undo_barrier(state, new_state), prompt_again=prompt_again,
                                  quiet=() if after is None else (after[0],))
        taken = await self._take_forced(session, loaded, after, role, prompt_again)
        if not taken:
            return step
        last = taken[-1]
        lines = list(step.log)
        for done in taken:
            lines.extend(visible_log(done.log, role))
        return replace(step, version=last.version, active=last.active, result=last.result, log=lines,
                       forced=tuple(taken))

    async def take_forced(self, game_pk: int) -> list[StepResult]:
        """Take the forced steps waiting in a game, as the service does after every step
        (:meth:`_take_forced`): for a game whose first step is forced (``start`` calls it),
        or a seat that just stopped asking to confirm them. Nothing when none waits. Not for
        after an undo: undo takes a forced step back together with the step that led to it,
        so that none waits there unless the seat's preference changed meanwhile."""
        async def block(session: _Sql) -> tuple[list[StepResult], _Loaded | None]:
            loaded = await self._load(session, game_pk, lock=True, attach=False)
            if loaded.game.status != "running":
                return [], None
            taken = await self._take_forced(session, loaded, self._forced_next(loaded, loaded.state), None)
            return taken, loaded if taken else None
        return await self._stepping(block)

    async def _take_forced(self, session: _Sql, loaded: _Loaded, after: tuple[str, Action, State] | None,
                           role: str | None, prompt_again: bool = True) -> list[StepResult]:
        """Take the forced step ``after`` (:meth:`_forced_next`) and those that follow it, at most
        FORCED_LIMIT, each a move marked ``automatic`` with a public line saying it was taken
        automatically. ``role`` and ``prompt_again``: the command's, whose seat a front end
        may answer in place; every other seat is told to act by a prompt."""
        taken: list[StepResult] = []
        while after is not None and len(taken) < FORCED_LIMIT:
            who, forced, forced_state = after
            after = self._forced_next(loaded, forced_state) if len(taken) + 1 < FORCED_LIMIT else None
            seat = loaded.seats.get(who)
            done = await self._record(
                session, loaded, who, seat.user_id if seat is not None else None, forced_state, kind="step",
                action={**strip_label(forced), "automatic": True}, undoes_seq=None, barrier=False,
                prompt_again=prompt_again or who != role, quiet=() if after is None else (after[0],),
                note=f"{role_name(who)} had one choice, taken automatically.")
            taken.append(replace(done, automatic=True, action=forced))
        return taken

    @staticmethod
    def _forced_next(loaded: _Loaded, state: State) -> tuple[str, Action, State] | None:
        """The forced step the service takes by itself in ``state``, if any: that of the first
        role asked (``active``) whose seat a person holds and whose preference does not ask to
        confirm such steps (:data:`CONFIRM_FORCED`), with its action and the state after it.
        The built-in player's seats choose for themselves, as always. A step is left to the
        player when taking it at once would tell another seat something it cannot see
        (:func:`_forced_tells`).

        A role offered one action has it marked on the way (``marks.forced_step``): the marking
        goes with ``loaded`` (``_Loaded.reached``) and, once the state is the game's, with the
        game kept hot (:meth:`_keep`), for the view and the step that follow."""
        module = loaded.module
        marked: dict[str, Reached] | None = None
        for who in module.active(state):
            seat = loaded.seats.get(who)
            if seat is None or seat.is_bot or confirms_forced(seat.prefs):
                continue
            found, reached = forced_step(module, state, who)
            if found is not None and not _forced_tells(module, state, who, [r for r in loaded.seats if r != who],
                                                       _bot_seed(loaded.game.seed, loaded.game.version, who)):
                return who, found[0], found[1]
            if reached is not None:
                if marked is None:
                    kept = loaded.reached or {}
                    marked = loaded.reached = {r: m for r, m in kept.items() if m.state is state}
                marked[who] = reached
        return None

    def _keep(self, loaded: _Loaded) -> _Hot:
        """``Storage._keep``, with the markings a command made of the state it leaves the game
        in (:meth:`_forced_next`), which the next view of their role takes."""
        hot = super()._keep(loaded)
        if loaded.reached and loaded.game.id is not None:
            for role, reached in loaded.reached.items():
                if reached.state is hot.state and (hot.reached is None or role not in hot.reached):
                    self._kept_reached(loaded.game.id, hot, role, reached)
        return hot

    @staticmethod
    def _people(loaded: _Loaded) -> list[Seat]:
        """The seats held by a person with an account, in the order of the game's roles."""
        order = {r: i for i, r in enumerate(loaded.module.roles(loads(loaded.game.options)))}
        return [s for s in sorted(loaded.seats.values(), key=lambda s: order.get(s.role, len(order)))
                if not s.is_bot and s.user_id is not None]

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
