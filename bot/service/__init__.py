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

from bot.service.archive import ArchiveCommands
from bot.service.claims import Claim, ClaimCommands
from bot.service.core import EXPORT_FORMAT, _bot_seed, rules_version, state_hash
from bot.service.forced import CONFIRM_FORCED
from bot.service.lobby import LobbyCommands
from bot.service.outbox import OutboxCommands
from bot.service.play import PlayCommands
from bot.service.records import RecordCommands
from bot.service.tournaments import TournamentCommands
from bot.service.types import (
    GameInfo,
    GameNotFound,
    GameView,
    ImportRefused,
    NotAllowed,
    OutboxItem,
    ReplayReport,
    SeatInfo,
    ServiceError,
    StaleVersion,
    StepResult,
    UndoRefused,
)
from bot.service.web import History, HistoryStep, WebCommands
from engine.api import RuleError

__all__ = [
    "CONFIRM_FORCED",
    "EXPORT_FORMAT",
    "Claim",
    "GameInfo",
    "GameNotFound",
    "GameService",
    "GameView",
    "History",
    "HistoryStep",
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
    "_bot_seed",
    "rules_version",
    "state_hash",
]


class GameService(LobbyCommands, PlayCommands, ArchiveCommands, OutboxCommands, ClaimCommands, WebCommands,
                  RecordCommands, TournamentCommands):
    """All game commands over one database. Safe to share within one event loop; several
    processes may serve the same database (versions and locks keep them consistent).

    Create with ``GameService(async_engine)`` or ``GameService.open(url)`` (the database must
    be migrated: ``bot.db.migrate(url)``); ``await service.close()`` at the end. The commands
    are grouped by concern in the modules of this package (lobby, play, archive, outbox, claims) over
    one game flow (``bot.service.core``) over the games' storage (``bot.service.storage``): this
    class only puts them together.
    """
