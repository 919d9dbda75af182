"""What the web pages read (``bot.web``): a game's public address, its public history move
by move, the spectator's view at any move of it, and the few settings the web pages keep
(listed servers, revoked personal links).

Hidden information: the history holds only the public log lines (a spectator's view), and
:meth:`WebCommands.view_at` returns the spectator's view, never a state. A step that was
taken back is not part of the history (as in :meth:`ArchiveCommands.export`): a position is
named by the ``seq`` of the last standing step before it, which no later undo can give to
another position, so a picture drawn for it may be kept for ever.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import col

from bot.models import Game, Seat, WebGame, WebGuild, WebMember, loads, new_public_id, utcnow
from bot.service.core import ServiceCore, _module, _standing_steps, _upgrade_base
from bot.service.types import GameInfo, GameNotFound
from engine.api import State, View, visible_log

#: A game's replay keeps the state every this many positions (and the last): drawing a past
#: position replays at most this many steps.
CHECKPOINT_EVERY = 32
#: Games whose replay is kept at once (the least recently used goes first; a Granada state is
#: some 0.2-0.5 MB of Python objects, shared in part between neighbouring positions).
KEPT_REPLAYS = 6


def change_stamp(version: int, status: str, updated_at: datetime, deadline_at: datetime | None) -> str:
    """A game's change stamp: it changes with everything a spectator's page shows of the
    game's row, so a live page refreshes on it. The version alone counts the moves only; a
    resignation, a forfeit or an abort ends the game without a move (its status, result and
    ``updated_at`` change), a seat that changes hands changes ``updated_at``, and the
    scheduler moves the deadline in a transaction of its own."""
    deadline = deadline_at.isoformat() if deadline_at is not None else "-"
    return f"{version}.{status}.{updated_at.isoformat()}.{deadline}"


def stamp_of(info: GameInfo) -> str:
    """The :func:`change_stamp` of a game read whole."""
    return change_stamp(info.version, info.status, info.updated_at, info.deadline_at)


@dataclass(frozen=True)
class HistoryStep:
    """One standing step of a game: its number in the public history (1, 2, ...), the
    ``seq`` of its row, who made it and the public log lines it wrote."""

    number: int
    seq: int
    role: str
    lines: list[str]


@dataclass(frozen=True)
class History:
    """A game's public history at ``version``: the lines written at setup, then each standing
    step. Positions are numbered 0 (setup) to ``len(steps)``; ``first`` is the first position
    that can be drawn (0, unless the log stops replaying at a rules upgrade)."""

    game_pk: int
    version: int
    setup_lines: list[str]
    steps: list[HistoryStep]
    first: int = 0

    def seq_at(self, position: int) -> int:
        """The ``seq`` naming a position (0: setup)."""
        return 0 if position == 0 else self.steps[position - 1].seq

    def position_of(self, seq: int) -> int | None:
        if seq == 0:
            return 0
        for step in self.steps:
            if step.seq == seq:
                return step.number
        return None


@dataclass
class _Replay:
    """A game's standing steps replayed once, with a state kept every CHECKPOINT_EVERY
    positions (and at the end), so that any position is a few steps away."""

    version: int
    steps: list[tuple[int, str, dict[str, Any]]]  # (seq, role, action) of each standing step
    history: History
    first: int
    checkpoints: dict[int, State] = field(default_factory=dict)


class WebCommands(ServiceCore):
    """Reads for the web pages, and the writes of their settings (from the Discord front end)."""

    def __init__(self, db: AsyncEngine) -> None:
        super().__init__(db)
        self._replays: OrderedDict[int, _Replay] = OrderedDict()  # game_pk -> its replay, LRU
        self._game_ids: dict[int, str] = {}
        self._replaying = asyncio.Lock()  # one replay built at a time: readers of a cold game wait for it

    # ------------------------------------------------------------------ addresses

    async def public_id(self, game_pk: int) -> str:
        """The game's web identifier (made here for a game that has none yet: one stored by
        a release before the web pages whose migration ran before it was created)."""
        async with self._write() as session:
            found = (await session.execute(
                sa.select(col(WebGame.public_id)).where(col(WebGame.game_pk) == game_pk))).scalar()
            if found is not None:
                return str(found)
            if (await session.get(Game, game_pk)) is None:
                raise GameNotFound(f"There is no game {game_pk}.")
            public = new_public_id()
            session.add(WebGame(game_pk=game_pk, public_id=public))
            return public

    async def game_of_public_id(self, public_id: str) -> int | None:
        """The game a web identifier names, or None."""
        async with self._read() as session:
            found = (await session.execute(
                sa.select(col(WebGame.game_pk)).where(col(WebGame.public_id) == public_id))).scalar()
        return None if found is None else int(found)

    async def change_stamps(self, game_pks: list[int]) -> dict[int, str]:
        """The :func:`change_stamp` of each game (one statement): what the live pages watch."""
        if not game_pks:
            return {}
        async with self._glance() as conn:
            rows = (await conn.execute(
                sa.select(col(Game.id), col(Game.version), col(Game.status), col(Game.updated_at),
                          col(Game.deadline_at)).where(col(Game.id).in_(game_pks)))).all()
        return {int(pk or 0): change_stamp(int(version), str(status), updated, deadline)
                for pk, version, status, updated, deadline in rows}

    async def version_of(self, game_pks: list[int]) -> dict[int, int]:
        """The current version of each game (one statement): what the live pages watch."""
        if not game_pks:
            return {}
        async with self._glance() as conn:
            rows = (await conn.execute(
                sa.select(col(Game.id), col(Game.version)).where(col(Game.id).in_(game_pks)))).all()
        return {int(pk or 0): int(version) for pk, version in rows}

    # ------------------------------------------------------------------ listing

    async def set_web_listed(self, guild_id: int, listed: bool) -> None:
        """List (or stop listing) a server's games on the web index page."""
        async with self._write() as session:
            row = await session.get(WebGuild, guild_id)
            if row is None:
                session.add(WebGuild(guild_id=guild_id, listed=listed))
            else:
                row.listed, row.updated_at = listed, utcnow()

    async def web_listed(self, guild_id: int) -> bool:
        async with self._read() as session:
            row = await session.get(WebGuild, guild_id)
        return bool(row is not None and row.listed)

    async def listed_games(self, limit: int = 100) -> list[tuple[str, GameInfo]]:
        """(web identifier, game) of the games of listed servers, most recently changed first;
        open games and aborted ones are left out (there is nothing to watch)."""
        async with self._read() as session:
            rows = (await session.execute(
                sa.select(Game, col(WebGame.public_id))
                .join(WebGame, col(WebGame.game_pk) == col(Game.id))
                .join(WebGuild, col(WebGuild.guild_id) == col(Game.guild_id))
                .where(col(WebGuild.listed).is_(True), col(Game.status).in_(["running", "finished"]))
                .order_by(col(Game.updated_at).desc(), col(Game.id).desc()).limit(limit))).all()
            pks = [g.id for g, _p in rows]
            seats: list[Seat] = list((await session.execute(
                sa.select(Seat).where(col(Seat.game_pk).in_(pks)))).scalars()) if pks else []
            by_game: dict[int, list[Seat]] = {}
            for seat in seats:
                by_game.setdefault(seat.game_pk, []).append(seat)
        return [(str(public), self._info(game, by_game.get(game.id or 0, []))) for game, public in rows]

    # ------------------------------------------------------------------ personal links

    async def web_revocations(self, user_id: int) -> int:
        """How many times the member revoked his personal links (0: never)."""
        async with self._read() as session:
            row = await session.get(WebMember, user_id)
        return 0 if row is None else row.revoked

    async def revoke_web_links(self, user_id: int) -> int:
        """Revoke every personal link the member holds; returns the new count."""
        async with self._write() as session:
            row = await session.get(WebMember, user_id)
            if row is None:
                row = WebMember(user_id=user_id, revoked=1)
                session.add(row)
            else:
                row.revoked += 1
            return row.revoked

    # ------------------------------------------------------------------ history

    async def public_history(self, game_pk: int) -> History:
        """The game's public history now (the spectator's log, move by move)."""
        return (await self._replay(game_pk)).history

    async def view_at(self, game_pk: int, seq: int) -> View | None:
        """The spectator's view at the position ``seq`` names (0: setup), or None when no
        standing step has that seq (taken back, never made, or before a rules upgrade the
        log does not replay across)."""
        replay = await self._replay(game_pk)
        position = replay.history.position_of(seq)
        if position is None or position < replay.first:
            return None
        return _module(self._game_ids[game_pk]).view(self._state_at(game_pk, replay, position), None)

    def _state_at(self, game_pk: int, replay: _Replay, position: int) -> State:
        base = max(p for p in replay.checkpoints if p <= position)
        state = replay.checkpoints[base]
        module = _module(self._game_ids[game_pk])
        for _seq, role, action in replay.steps[base:position]:
            state = module.apply(state, role, action)
        return state

    async def _replay(self, game_pk: int) -> _Replay:
        """The game's replay at its current version: kept while the game does not move, and
        extended (not redone) when it only gained steps."""
        versions = await self.version_of([game_pk])
        if game_pk not in versions:
            raise GameNotFound(f"There is no game {game_pk}.")
        kept = self._replays.get(game_pk)
        if kept is not None and kept.version == versions[game_pk]:
            self._replays.move_to_end(game_pk)
            return kept
        async with self._replaying:
            kept = self._replays.get(game_pk)
            if kept is not None and kept.version == versions[game_pk]:
                return kept  # another reader built it meanwhile
            return await self._build_replay(game_pk, kept)

    async def _build_replay(self, game_pk: int, kept: _Replay | None) -> _Replay:
        async with self._read() as session:
            game = await self._game_row(session, game_pk)
            rows = await self._move_rows(session, game_pk)
            upgrades = await self._upgrades(session, game_pk)
        module = _module(game.game_id)
        self._game_ids[game_pk] = game.game_id
        steps = [(m.seq, m.role, loads(m.action)) for m in _standing_steps(rows)]
        base = _upgrade_base(upgrades)
        first = 0
        if base is not None and base.state is not None:
            # The log before this upgrade does not replay under the installed rules: the
            # history starts at the state stored there.
            first = sum(1 for seq, _r, _a in steps if seq <= base.seq)
        if kept is not None and kept.first == first and kept.steps == steps[:len(kept.steps)]:
            replay = kept
        else:
            start = loads(base.state) if first and base is not None and base.state is not None else \
                module.setup(game.seed, loads(game.options))
            # Steps before ``first`` (a rules upgrade's stored state) are listed, not drawn.
            before = [HistoryStep(i, seq, role, []) for i, (seq, role, _a) in enumerate(steps[:first], start=1)]
            replay = _Replay(game.version, steps[:first], History(game_pk, game.version, _public_lines(start),
                                                                  before, first), first, {first: start})
        done = len(replay.steps)
        last = max(replay.checkpoints)
        state = replay.checkpoints[last]
        for _seq, role, action in replay.steps[last:done]:
            state = module.apply(state, role, action)
        seen = len(visible_log(state.get("log") or [], None))
        history_steps = list(replay.history.steps)
        for index in range(done, len(steps)):
            seq, role, action = steps[index]
            state = module.apply(state, role, action)
            position = index + 1
            if position % CHECKPOINT_EVERY == 0:
                replay.checkpoints[position] = state
            entries = visible_log(state.get("log") or [], None)
            lines = [str(e.get("text", "")) for e in entries[seen:] if str(e.get("text", "")).strip()]
            seen = len(entries)
            history_steps.append(HistoryStep(position, seq, role, lines))
        replay.version = game.version
        replay.steps = steps
        replay.history = History(game_pk, game.version, replay.history.setup_lines, history_steps, first)
        self._replays[game_pk] = replay
        self._replays.move_to_end(game_pk)
        while len(self._replays) > KEPT_REPLAYS:
            self._replays.popitem(last=False)
        return replay


def _public_lines(state: State) -> list[str]:
    """The public log lines of a state (what a spectator's view of it lists)."""
    return [str(e.get("text", "")) for e in visible_log(state.get("log") or [], None) if str(e.get("text", "")).strip()]
