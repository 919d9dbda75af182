"""Commands that read and advance a running game: views, steps, built-in players, undo."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

import engine
from bot.models import Game, Outbox, Seat, dumps, loads, utcnow
from bot.service import orders, ratings
from bot.service.core import (
    ServiceCore,
    _bot_seed,
    _module,
    _standing_steps,
    _upgrade_base,
    state_hash,
    undo_refusal,
)
from bot.service.forced import is_auto
from bot.service.levels import PREF, check_level, game_level, seat_level
from bot.service.marks import Reached, marked_view
from bot.service.sql import (
    _GAME_FIELDS,
    _GAME_ID_AT,
    _MARK_AT,
    _OPTIONS_AT,
    _SEAT_ID_AT,
    _SEAT_ROLE_AT,
    _SEAT_USER_AT,
    _STATUS_AT,
    _VERSION_AT,
    _look_parts,
    _Sql,
)
from bot.service.storage import _Hot, _Loaded
from bot.service.types import (
    GameInfo,
    GameNotFound,
    GameView,
    NotAllowed,
    ServiceError,
    StepResult,
    UndoRefused,
)
from bot.thinking import Decision, InlineThinker, Thinking
from engine.api import Action, GameModule, RuleError, State, View, clone
from engine.players import choose
from engine.text import role_name

_GameColumns = namedtuple("_GameColumns", _GAME_FIELDS)  # type: ignore[misc]
"""A game's columns by name, from a row of ``_LOOK`` (:meth:`PlayCommands._info_of_look`)."""


class PlayCommands(ServiceCore):
    """Reading a game and playing it: every state change goes through ``_step`` or, for
    undo, ``_record``."""

    async def state(self, game_pk: int) -> tuple[int, State]:
        """The version and a copy of the whole state (hidden parts included: not for players)."""
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            state = await self._state(session, game)
            self._remember(game_pk, game.version, state)
            return game.version, clone(state)

    async def view(self, game_pk: int, role: str | None, user_id: int | None = None) -> GameView:
        """What ``role`` may see (None: a spectator). With ``user_id``, refuses a role that
        user does not hold, so a front end cannot show one player another's hand.

        A game kept hot at its current version costs one statement (its row, seats and last
        rules upgrade, which say whether the cache is current, whoever moved the game): the
        state and the undo facts come from the cache, and the engine draws each caller's view
        afresh (a view shares nothing: no caller changes another's, or the state)."""
        rows = await self._quick_look(game_pk)
        if not rows:
            raise GameNotFound(f"There is no game {game_pk}.")
        first = rows[0]
        hot = self._states.get(game_pk)
        wants_undo = role is not None and first[_STATUS_AT] == "running"
        if hot is not None and hot.version == first[_VERSION_AT] and (
                not wants_undo or (hot.undo is not None and hot.mark == first[_MARK_AT])):
            self._states.move_to_end(game_pk)
            if role is not None and user_id is not None and not any(
                    r[_SEAT_ID_AT] is not None and r[_SEAT_ROLE_AT] == role and r[_SEAT_USER_AT] == user_id
                    for r in rows):
                raise NotAllowed(f"You do not hold the {role} seat.")
            if hot.info is None or hot.rows != rows:
                hot.info = self._info_of_look(rows, hot)
                hot.rows = rows
            return self._view_of(game_pk, hot, hot.info, _module(first[_GAME_ID_AT]), role, wants_undo)
        # Not hot at this version (or its undo facts unknown): read the rest in one snapshot.
        async with self._glance() as conn:
            rows = await self._look(conn, game_pk)
            game, seats, mark = _look_parts(rows)
            hot = self._states.get(game_pk)
            if hot is None or hot.version != game.version:
                state, snapshot = await self._state_and_snapshot(conn, game)
                hot = self._remember(game_pk, game.version, state, snapshot)
            else:
                self._states.move_to_end(game_pk)
            if role is not None and game.status == "running" and (hot.undo is None or hot.mark != mark):
                hot.mark, hot.undo = mark, await self._undo_facts(conn, game)
        if role is not None and user_id is not None:
            seat = seats.get(role)
            if seat is None or seat.user_id != user_id:
                raise NotAllowed(f"You do not hold the {role} seat.")
        info = self._info(game, seats.values())
        return self._view_of(game_pk, hot, info, _module(game.game_id), role,
                             role is not None and game.status == "running")

    def _info_of_look(self, rows: tuple[Any, ...], hot: _Hot) -> GameInfo:
        """The GameInfo of a hot game from the rows of ``_LOOK`` (as :meth:`_quick_look` read
        them). When only the game's own columns moved since the rows of ``hot.info`` (a step:
        its version, active roles, times), the seats, options and roles are that info's: a
        view after each step would otherwise make the game's and seats' row objects, parse
        the options and the seats' preferences and ask the engine for the roles again."""
        kept, before = hot.info, hot.rows
        first = rows[0]
        if (kept is None or len(before) != len(rows) or before[0][_OPTIONS_AT] != first[_OPTIONS_AT]
                or before[0][_GAME_ID_AT] != first[_GAME_ID_AT]
                or any(old[_MARK_AT + 1:] != new[_MARK_AT + 1:] for old, new in zip(before, rows, strict=True))):
            game, seats, _mark = _look_parts(self._typed(rows))
            return self._info(game, seats.values())
        columns = _GameColumns._make(self._typed(rows[:1])[0][:_MARK_AT])
        return self._info_with(columns, kept.title, kept.options, kept.roles, kept.seats)

    def _view_of(self, game_pk: int, hot: _Hot, info: GameInfo, module: GameModule, role: str | None, running: bool) -> GameView:
        """The GameView of ``role`` from a game kept hot. The engine makes a fresh view for each
        caller (the contract: a view shares nothing with the state or another view,
        engine/check.py), which costs no more than copying a kept one would. Its marking stays
        with the game (:meth:`_kept_reached`): the step that follows takes its state from the
        states it reached, and the next view of the same role at this version its marks."""
        can_undo = running and role is not None and hot.undo is not None and undo_refusal(hot.undo, role, module) is None
        known = hot.reached.get(role) if hot.reached is not None and role is not None else None
        seen, reached = marked_view(module, hot.state, role, known)
        if role is not None and reached is not None:
            self._kept_reached(game_pk, hot, role, reached)
        return GameView(info, role, hot.version, seen, can_undo)

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


    async def apply(self, game_pk: int, role: str, action: dict[str, Any], expected_version: int,
                    user_id: int | None = None, *, prompt_again: bool = True) -> StepResult:
        """One step by ``role``: checks the seat belongs to ``user_id`` (None: terminal seat)
        and that the game is still at ``expected_version``, then asks the engine and writes
        move, state and notifications in one transaction.

        Raises StaleVersion (with the new version and prompt), NotAllowed, GameNotFound, or
        the engine's RuleError unchanged (show ``err.explain()``). Built-in players do not move
        here: call :meth:`play_bots` afterwards.

        When ``role`` must act again, a 'your_turn' row tells it so, as when a turn passes;
        ``prompt_again=False`` leaves it out, for a step a front end answers in place.

        A page turn (``engine.api.is_nav``) is refused: navigation is the front end's and never
        a move, so it never reaches the log, undo, the deadlines or the clock.
        """
        async def block(session: _Sql) -> tuple[StepResult, _Loaded]:
            loaded = await self._load(session, game_pk, lock=True, attach=False)
            self._require_status(loaded.game, "running")
            self._require_holder(loaded, role, user_id)
            self._require_version(loaded, expected_version, role)
            if loaded.module.is_nav(action):
                raise RuleError("Turning the page of a list is no move: the front end pages the choices itself.")
            return await self._step(session, loaded, role, action, user_id, prompt_again), loaded
        return await self._stepping(block)

    async def apply_order(self, game_pk: int, role: str, text: str, expected_version: int | None = None,
                          user_id: int | None = None) -> list[StepResult]:
        """A typed order (one step named by a few words of its label, a chain ``a > b > c``,
        or the game's shorthand, ``bot.service.orders``) for ``role``, all or nothing: the
        whole chain is matched against the choices the seat's view shows, step after step on
        a copy of the state, and only then are its steps applied, in one transaction (each
        its own move, so undo takes them back one at a time). A chain that does not fit from
        start to end raises (RuleError, OrderRefused) and leaves the game as it was.

        ``expected_version`` (None: the game as it stands) and ``user_id`` are checked as by
        :meth:`apply`."""
        async def block(session: _Sql) -> tuple[list[StepResult], _Loaded]:
            loaded = await self._load(session, game_pk, lock=True, attach=False)
            self._require_status(loaded.game, "running")
            self._require_holder(loaded, role, user_id)
            if expected_version is not None:
                self._require_version(loaded, expected_version, role)
            markings: dict[int, Reached] = {}
            steps = orders.plan(loaded.module, loaded.state, role, text, self._order_view(loaded, markings),
                                self._order_after(loaded, role, markings))
            # The forced steps after the chain are taken by the service; those inside it were
            # typed, or the chain would not have fitted (``orders.plan`` checks it as it stands).
            # Each step takes the state its view's marking reached, as plan did.
            done = []
            for n, action in enumerate(steps):
                marking = markings.get(id(loaded.state))
                if marking is not None and marking.state is loaded.state:
                    loaded.reached = {**(loaded.reached or {}), role: marking}
                step = await self._step(session, loaded, role, action, user_id, settle=n == len(steps) - 1)
                done.append(replace(step, action=action))
            return done, loaded
        return await self._stepping(block)

    @staticmethod
    def _order_view(loaded: _Loaded, markings: dict[int, Reached]) -> Callable[[State, str], View]:
        """The seat's views a typed order is matched against (``orders.plan``), marked by the
        service's marking (bot/service/marks.py): the game's state as loaded takes the marks
        its last view found (no action applied again), and its marking is kept with the
        command's game, for the order's first step to take its state from (``_step``). Every
        marking goes into ``markings`` (by the id of its state, which it holds), for the
        states that follow (:meth:`_order_after`) and the order's steps."""
        def view(state: State, role: str) -> View:
            known = loaded.reached.get(role) if loaded.reached is not None else None
            seen, reached = marked_view(loaded.module, state, role, known)
            if reached is not None:
                markings[id(state)] = reached
                if state is loaded.state and reached is not known:
                    loaded.reached = {**(loaded.reached or {}), role: reached}
            return seen
        return view

    @staticmethod
    def _order_after(loaded: _Loaded, role: str, markings: dict[int, Reached]) -> Callable[[State, Action], State]:
        """The state an action of a typed order leads to (``orders.plan``): the one the
        marking of the view it was matched in reached (:meth:`_order_view`), else applied."""
        def after(state: State, action: Action) -> State:
            marking = markings.get(id(state))
            found = marking.after(state, action) if marking is not None else None
            return found if found is not None else loaded.module.apply(state, role, action)
        return after

    async def play_bots(self, game_pk: int, max_steps: int | None = None, batch: int = 20, *,
                        thinker: Thinking | None = None,
                        on_commit: Callable[[list[StepResult]], None] | None = None) -> list[StepResult]:
        """Let the built-in player move for its seats until a human must act, the game ends,
        or ``max_steps`` moves were made.

        ``easy`` seats move inside the write transaction: up to ``batch`` consecutive moves
        share one (each still has its own move row, hash and notifications), since a game
        between easy players would otherwise spend most of its time committing, and each move
        takes microseconds.

        A seat at a search level (``normal``, ``hard``) thinks for seconds, so it thinks
        outside any transaction: from the state at version v (read without a lock), by
        ``thinker`` (the bot's process pool; None: here, in this process), and the action is
        then applied as of version v. If the game moved meanwhile (a person acted, the seat
        changed hands) the decision is dropped and made again from the new state. The seed
        is the game's, the version's and the role's (``_bot_seed``), as for ``easy``: a game
        replays and a decision reproduces.

        ``on_commit(steps)`` is called after each commit with the moves it made, so that a
        front end delivers them while the built-in player thinks about the next one.
        """
        thinking: Thinking = thinker if thinker is not None else InlineThinker()
        steps: list[StepResult] = []
        while max_steps is None or len(steps) < max_steps:
            turn = await self._bot_turn(game_pk)
            if turn is None:
                break
            if turn.level == "easy":
                room = batch if max_steps is None else min(batch, max_steps - len(steps))
                made = await self._play_easy(game_pk, room)
            else:
                action = await thinking.decide(turn)
                made = await self._play_decision(turn, action)
            if made:
                steps.extend(made)
                if on_commit is not None:
                    on_commit(made)
        return steps

    def _next_bot(self, loaded: _Loaded) -> tuple[str, str] | None:
        """The first active seat the built-in player holds and its level, if any."""
        if loaded.game.status != "running":
            return None
        active = loaded.module.active(loaded.state)
        bots = [r for r in active if (s := loaded.seats.get(r)) is not None and s.is_bot]
        if not bots:
            return None
        return bots[0], self._level(loaded, bots[0])

    @staticmethod
    def _level(loaded: _Loaded, role: str) -> str:
        order = loaded.module.roles(loads(loaded.game.options))
        prefs = {r: loads(s.prefs) or {} for r, s in loaded.seats.items()}
        level = game_level(prefs.get(r) for r in order)
        return seat_level(prefs.get(role), level)

    async def _bot_turn(self, game_pk: int) -> Decision | None:
        """The decision the built-in player must make next (a snapshot, no lock held)."""
        async with self._read() as session:
            loaded = await self._load(session, game_pk, lock=False, attach=False)
        self._keep(loaded)
        found = self._next_bot(loaded)
        if found is None:
            return None
        role, level = found
        game = loaded.game
        return Decision(game_pk=game_pk, game_id=game.game_id, version=game.version, state=loaded.state,
                        role=role, seed=_bot_seed(game.seed, game.version, role), level=level)

    async def _play_easy(self, game_pk: int, limit: int) -> list[StepResult]:
        """Consecutive moves of ``easy`` seats in one transaction, until a person or a
        searching seat must act (or ``limit`` moves)."""
        async def block(session: _Sql) -> tuple[list[StepResult], _Loaded | None]:
            made: list[StepResult] = []
            loaded = await self._load(session, game_pk, lock=True, attach=False)
            while len(made) < limit:
                found = self._next_bot(loaded)
                if found is None or found[1] != "easy":
                    break
                role = found[0]
                seed = _bot_seed(loaded.game.seed, loaded.game.version, role)
                action = choose(loaded.module, loaded.state, role, seed)
                made.append(await self._step(session, loaded, role, action, None))
            return made, loaded if made else None
        return await self._stepping(block)

    async def _play_decision(self, decision: Decision, action: dict[str, Any]) -> list[StepResult]:
        """Apply a decision made outside the transaction, if the game is still where it was
        when the decision was asked for (else nothing: the caller asks again)."""
        async def block(session: _Sql) -> tuple[list[StepResult], _Loaded | None]:
            loaded = await self._load(session, decision.game_pk, lock=True, attach=False)
            if loaded.game.version != decision.version or self._next_bot(loaded) != (decision.role, decision.level):
                return [], None
            return [await self._step(session, loaded, decision.role, action, None)], loaded
        return await self._stepping(block)

    async def set_levels(self, game_pk: int, levels: dict[str, str]) -> GameInfo:
        """Record the level the built-in player plays (or would take over) each named seat at
        (``bot.service.levels``); a seat not named keeps its own, or the game's."""
        for level in levels.values():
            check_level(level)
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            self._require_status(loaded.game, "open", "running")
            for role, level in levels.items():
                seat = loaded.seats.get(role)
                if seat is None:
                    raise NotAllowed(f"Nobody holds the {role} seat.")
                prefs = loads(seat.prefs) or {}
                prefs[PREF] = level
                seat.prefs = dumps(prefs)
            await session.flush()
            return self._info(loaded.game, loaded.seats.values())

    async def hand_over(self, game_pk: int, role: str, reason: str) -> GameInfo:
        """Give a person's seat to the built-in player for the rest of the game (a deadline
        passed in a game that hands late seats over): it plays it at the seat's level, which is
        the game's unless the seat has its own. The thread reads ``reason`` and who took over;
        the late player is told by a note. Call :meth:`play_bots` afterwards."""
        async with self._write() as session:
            loaded = await self._load(session, game_pk, lock=True)
            game = loaded.game
            self._require_status(game, "running")
            seat = loaded.seats.get(role)
            if seat is None:
                raise NotAllowed(f"Nobody holds the {role} seat.")
            if seat.is_bot:
                raise NotAllowed(f"The built-in player already holds the {role} seat.")
            level = self._level(loaded, role)
            late_user = seat.user_id
            ratings.mark_departed(seat)
            seat.is_bot = True
            seat.user_id = None
            seat.display_name = "built-in player"
            game.updated_at = utcnow()
            line = f"{reason}; the built-in player ({level}) takes the {role} seat."
            self._notify(session, loaded, game.version, [line], [], None,
                         {"type": "handed_over", "role": role, "reason": reason})
            if late_user is not None:
                text = (f"{reason} in game #{game_pk}: the built-in player ({level}) plays the {role} seat "
                        "from now on.")
                session.add(Outbox(game_pk=game_pk, kind="dm", recipient=str(late_user),
                                   payload=dumps({"type": "note", "game": game_pk, "role": role, "text": text}),
                                   dedupe_key=f"g{game_pk}:v{game.version}:handover:{role}"))
            await session.flush()
            return self._info(game, loaded.seats.values())

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


    async def _undo_refusal(self, session: AsyncSession, game: Game, role: str) -> str | None:
        return undo_refusal(await self._undo_facts(session, game), role, _module(game.game_id))

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

        The forced steps the service took by itself after that step (``automatic``) are taken back
        with it, the latest first, an 'undo' row each: were only they taken back, the player
        would stand before the same forced step, which decides nothing, and not before his own
        choice. Only the last row notifies.
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
            targets = [standing.pop()]
            while is_auto(loads(targets[-1].action)):
                targets.append(standing.pop())
            base = _upgrade_base(await self._upgrades(session, game_pk))
            if base is not None and base.state is not None:
                # The log before the rules upgrade does not replay: start from the state
                # stored at the upgrade (_undo_refusal kept the target after it).
                start = loads(base.state)
                standing = [m for m in standing if m.seq > base.seq]
            else:
                start = None
            state = engine.replay_last(loaded.module, game.seed, loads(game.options),
                                       [(move.role, loads(move.action)) for move in standing], start=start)
            expected_hash = standing[-1].state_hash if standing else None
            if expected_hash is not None and state_hash(dumps(state)) != expected_hash:
                raise ServiceError(f"Game {game_pk} does not replay (move {standing[-1].seq}); "
                                   "run `alcazaba replay-check` for details.")
            # The states between: the step taken back and the forced steps after it, made again
            # from the state before them, each checked against the hash its move recorded.
            states = [state]
            for move in reversed(targets[1:]):
                states.append(loaded.module.apply(states[-1], move.role, loads(move.action)))
                if state_hash(dumps(states[-1])) != move.state_hash:
                    raise ServiceError(f"Game {game_pk} does not replay (move {move.seq}); "
                                       "run `alcazaba replay-check` for details.")
            for n, target in enumerate(targets):
                last = n == len(targets) - 1
                step = await self._record(session, loaded, role, user_id, states[-1 - n], kind="undo", action={},
                                          undoes_seq=target.seq, barrier=False, notify=last,
                                          extra_notice={"type": "undo", "role": role, "undoes_seq": target.seq,
                                                        "lines": [f"{role_name(role)} takes back a step."]})
        self._keep(loaded)
        return step
