"""What the service's commands raise and return: plain values, so that a front end
never holds a database row."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


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
    rematch_of: int | None = None
    """The game this one is a rematch of (``/game rematch``), if it is one."""

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
    action: dict[str, Any] | None = None
    """The step's action as the engine listed it (label included), where the command knows it
    (``GameService.apply_order``: what each part of a typed order turned out to be)."""
    automatic: bool = False
    """A forced step the service took by itself (``engine.api.Game.forced_step``)."""
    forced: tuple[StepResult, ...] = ()
    """The forced steps the service then took by itself, in order (each ``automatic``). When
    there are some, ``version``, ``active`` and ``result`` are the game's after the last of
    them, and ``log`` holds the lines ``role`` may read of them all."""

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
