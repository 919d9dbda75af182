"""The upgrade check (issue 14): does every game still replay under the installed rules?

A campaign outlives releases. Each game records the ``RULES_VERSION`` of its engine at
creation; a release that changes what a log replays to bumps it. ``check_games`` replays every
game in progress and every finished game under the installed rules and reports, per game,
that it replays identically, replays to a different state (from which move, and which parts
of the public view differ), or fails (the move and the rule).

For a game still being played under a newer rules version the check records the upgrade
(``rules_upgrade``): 'identical' when the log still replays (undo carries on as before);
otherwise the stored state at that point, from which the game carries on under the new rules,
and from which undo and replay-check start: nothing before it is replayed under rules it was
not played by. Its players are told once, in the game's thread, what changed (the module's
``CHANGELOG``). ``alcazaba upgrade-check`` replays every game on demand. ``alcazaba run``
runs the check after migrating (``check_at_start``), on the games whose rules may have changed
since the last check: those of a game whose ``RULES_VERSION`` or rules code
(``code_fingerprint``) differs from what ``rules_check`` recorded, and any game still being
played whose recorded rules version is not the installed one (an imported game). Replaying
every stored game at every start kept a large server offline for minutes at each restart.

The public part of a report (``GameCheck.public``, the thread notice) names moves by number,
role and kind only, and differences by the names of spectator-view keys; the actions and the
state keys (which may be hidden) are in ``GameCheck.details``, for the operator.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlmodel import col

import engine
from bot.models import Game, Move, Outbox, RulesCheck, RulesUpgrade, dumps, loads, utcnow
from bot.service import GameService, ReplayReport, rules_version, state_hash
from bot.service.archive import _replay_rows
from bot.service.core import _module, _upgrade_base
from engine.api import GameModule, RuleError, RulesModule, State, adapt

__all__ = ["GameCheck", "UpgradeReport", "changes", "check_at_start", "check_games", "code_fingerprint",
           "files_digest", "record_checked"]

CHECKED_STATUSES = ("open", "running", "finished")
# Keys of a view that are about the asking seat or the moment, not the game's position.
_VIEW_NOISE = frozenset({"log", "prompt", "actions", "role", "active"})


@dataclass(frozen=True)
class GameCheck:
    """One game's line of the report. ``outcome``: 'identical', 'different' or 'fails';
    ``seq``: the first move that differs or fails; ``recorded``: the rules version the log
    was last checked under (or recorded at creation); ``recorded_upgrade``: this run wrote
    the game's rules upgrade."""

    game_pk: int
    game_id: str
    status: str
    recorded: int
    installed: int
    outcome: str
    seq: int | None
    public: str
    details: str = ""
    recorded_upgrade: bool = False
    notified: bool = False


@dataclass
class UpgradeReport:
    games: list[GameCheck] = field(default_factory=list)
    unchanged: int = 0
    """Games not replayed: their rules are the ones they were last checked under."""

    def count(self, outcome: str) -> int:
        return sum(1 for g in self.games if g.outcome == outcome)

    @property
    def ok(self) -> bool:
        return all(g.outcome == "identical" for g in self.games)

    def summary(self) -> str:
        parts = [f"{self.count('identical')} replay identically"]
        for outcome, words in (("different", "replay to a different state"), ("fails", "no longer replay")):
            games = [g for g in self.games if g.outcome == outcome]
            if games:
                named = ", ".join(f"game {g.game_pk} from move {g.seq}" if g.seq else f"game {g.game_pk}"
                                  for g in games)
                parts.append(f"{len(games)} {words} ({named})")
        upgraded = sum(1 for g in self.games if g.recorded_upgrade)
        if upgraded:
            parts.append(f"{upgraded} recorded as upgraded")
        count = len(self.games)
        line = f"upgrade-check: {count} game{'' if count == 1 else 's'}: " + "; ".join(parts) + "."
        if self.unchanged:
            line += (f" {self.unchanged} other game{' was' if self.unchanged == 1 else 's were'} not replayed: "
                     "their rules have not changed since they were last checked.")
        return line


def changes(module: GameModule | RulesModule, since: int, to: int) -> list[str]:
    """What the module's ``CHANGELOG`` says changed after version ``since`` up to ``to``."""
    log = adapt(module).CHANGELOG
    return [f"version {v}: {log[v]}" for v in range(since + 1, to + 1) if v in log]


def _replayed_end(module: GameModule, game: Game, rows: Sequence[Move], base: RulesUpgrade | None) -> State | None:
    """The state the standing steps lead to under the installed rules, or None when one of
    them is refused (then there is no end to compare)."""
    from_base = base is not None and base.state is not None
    start: State | None = loads(base.state) if from_base and base is not None and base.state is not None else None
    undone = {m.undoes_seq for m in rows if m.kind == "undo"}
    standing = [(move.role, loads(move.action)) for move in rows if not (
        move.kind != "step" or move.seq in undone or (from_base and base is not None and move.seq <= base.seq))]
    try:
        return engine.replay_last(module, game.seed, loads(game.options), standing, start=start)
    except (RuleError, ValueError, KeyError, TypeError, IndexError):
        return None


def _differences(module: GameModule, replayed: State | None, stored: State) -> tuple[list[str], list[str]]:
    """(public view keys, state keys) that differ between the replayed and the stored end."""
    if replayed is None:
        return [], []
    seen, kept = module.view(replayed, None), module.view(stored, None)
    public = sorted(k for k in set(seen) | set(kept) if k not in _VIEW_NOISE and seen.get(k) != kept.get(k))
    private = sorted(k for k in set(replayed) | set(stored) if replayed.get(k) != stored.get(k))
    return public, private


def _describe(module: GameModule, game: Game, rows: Sequence[Move], report: ReplayReport, snapshot: str,
              base: RulesUpgrade | None) -> tuple[str, str]:
    """The public sentence and the operator's details of a replay that went wrong."""
    move = next((m for m in rows if m.seq == report.seq), None)
    which = f"move {move.seq} ({move.role}, {move.kind})" if move is not None else "the end of the log"
    if report.problem == "fails":
        rule = report.message.split(": ", 1)[1] if ": " in report.message else report.message
        # The rule's explanation may name what the role holds: public part says which move only.
        public = f"no longer replays: {which} is refused under the installed rules"
        if report.rule:
            public += f" (rule {report.rule})"
        details = f"{which}: {rule}"
    else:
        view_keys, state_keys = _differences(module, _replayed_end(module, game, rows, base), loads(snapshot))
        public = f"replays to a different state from {which}"
        if view_keys:
            public += f"; at the end the public view differs in: {', '.join(view_keys)}"
        details = f"state keys that differ at the end: {', '.join(state_keys) or 'none (the move hashes differ)'}"
    if move is not None:
        details += f"; the move: {move.action}"
    return public, details


async def _check_one(service: GameService, game_pk: int, record: bool) -> GameCheck | None:
    async with service.reading() as session:
        game = (await session.execute(sa.select(Game).where(col(Game.id) == game_pk))).scalar_one_or_none()
        if game is None or game.status not in CHECKED_STATUSES:
            return None
        rows = await GameService._move_rows(session, game_pk)
        upgrades = await GameService._upgrades(session, game_pk)
        latest, problem = await service._latest_text(session, game)  # a problem shows as a difference
    if game.game_id not in engine.GAMES:
        return GameCheck(game_pk, game.game_id, game.status, game.rules_version, 0, "fails", None,
                         f"its game {game.game_id!r} is not installed")
    module = _module(game.game_id)
    installed = rules_version(module)
    recorded = upgrades[-1].to_version if upgrades else game.rules_version
    base = _upgrade_base(upgrades)
    report = _replay_rows(module, game, rows, latest, game.version, base)
    title = f"Game {game_pk} ({module.title}, {game.status}, rules version {recorded}"
    title += f", installed {installed})" if recorded != installed else ")"
    if report.ok:
        check = GameCheck(game_pk, game.game_id, game.status, recorded, installed, "identical", None,
                          f"{title}: replays identically ({report.moves} moves).")
    else:
        public, details = _describe(module, game, rows, report, latest, base)
        if recorded == installed and report.problem != "log":
            public += (f" although its rules version is unchanged: a rules change without a RULES_VERSION bump "
                       f"in engine/{game.game_id}")
        outcome = "fails" if report.problem in ("fails", "log") else "different"
        check = GameCheck(game_pk, game.game_id, game.status, recorded, installed, outcome, report.seq,
                          f"{title}: {public}.", details)
    if record and problem is None and recorded != installed and game.status in ("open", "running"):
        # (a state that does not rebuild is never stored as the base of the new rules)
        check = await _record(service, module, game, latest, game.version, check, report)
    return check


async def _record(service: GameService, module: GameModule, game: Game, snapshot: str, version: int,
                  check: GameCheck, report: ReplayReport) -> GameCheck:
    """Write the game's rules upgrade and, when its log no longer replays, the one notice in
    its thread. Skipped when the game moved on since it was read (the next check sees it)."""
    assert game.id is not None
    identical = check.outcome == "identical"
    async with service.writing() as session:
        current = (await session.execute(
            sa.select(Game).where(col(Game.id) == game.id).with_for_update())).scalar_one()
        if current.version != version:
            return check
        exists = (await session.execute(sa.select(col(RulesUpgrade.id)).where(
            col(RulesUpgrade.game_pk) == game.id, col(RulesUpgrade.to_version) == check.installed))).first()
        if exists is not None:
            return check
        session.add(RulesUpgrade(game_pk=game.id, seq=version, from_version=check.recorded,
                                 to_version=check.installed, outcome=check.outcome,
                                 diverging_seq=None if identical else report.seq,
                                 report=check.public, state=None if identical else snapshot,
                                 state_hash=state_hash(snapshot), created_at=utcnow()))
        notified = False
        target = GameService._target(current)
        if not identical and target is not None:
            what = changes(module, check.recorded, check.installed) or [f"version {check.installed}"]
            lines = [f"📜 The rules of {module.title} were updated: {'; '.join(what)}.",
                     "This game carries on from where it stands under the new rules; steps made before "
                     "the update can no longer be taken back."]
            payload: dict[str, Any] = {"type": "log", "game": game.id, "version": version, "lines": lines}
            session.add(Outbox(game_pk=game.id, kind="channel", recipient=str(target), payload=dumps(payload),
                               dedupe_key=f"g{game.id}:rules:v{check.installed}"))
            notified = True
    return GameCheck(check.game_pk, check.game_id, check.status, check.recorded, check.installed, check.outcome,
                     check.seq, check.public, check.details, recorded_upgrade=True, notified=notified)


async def check_games(service: GameService, *, record: bool = True) -> UpgradeReport:
    """Replay every game open, running or finished under the installed rules (one game at a
    time, each in its own read: a long check never holds a transaction). ``record``: write
    the rules upgrade of the games still being played (see the module docstring)."""
    async with service.reading() as session:
        pks = [int(pk) for pk in (await session.execute(
            sa.select(col(Game.id)).where(col(Game.status).in_(CHECKED_STATUSES)).order_by(col(Game.id))
        )).scalars() if pk is not None]
    report = UpgradeReport()
    for pk in pks:
        check = await _check_one(service, pk, record)
        if check is not None:
            report.games.append(check)
    return report


# --------------------------------------------------------------------------- at start

_ENGINE = Path(engine.__file__).resolve().parent


def _rules_files(module: GameModule | RulesModule) -> list[Path] | None:
    """The files that decide what a game's log replays to: its own package (code and data
    files; not its notes, ``*.md``) and the engine's shared modules beside it
    (``engine/*.py``; not the search player, ``engine/ai``, which replays never run). None for
    a module with no file of its own (a test double made at run time): such a game is always
    checked."""
    source = adapt(module).source
    if source is None:
        return None
    path = source.resolve()
    own: Iterable[Path] = path.parent.rglob("*") if path.name == "__init__.py" else [path]
    files = {p for p in own if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".md")}
    files.update(p for p in _ENGINE.glob("*.py") if p.is_file())
    return sorted(files)


def files_digest(files: Iterable[Path], root: Path) -> str:
    """SHA-256 over ``files`` in order: each one's path from ``root`` (its name when it lies
    elsewhere) and its bytes. The one digest of rules files, here and in the data-hash test."""
    digest = hashlib.sha256()
    for path in files:
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        digest.update(name.encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def code_fingerprint(module: GameModule | RulesModule) -> str | None:
    """SHA-256 of the game's rules code and data (see ``_rules_files``), or None when the
    game has no files of its own. A release that touches them makes the next start replay
    that game's logs, so a rules change made without a ``RULES_VERSION`` bump is still
    caught (the check reports it as such)."""
    files = _rules_files(module)
    return None if files is None else files_digest(files, _ENGINE.parent)


def _installed() -> dict[str, tuple[int, str | None]]:
    return {gid: (rules_version(module), code_fingerprint(module)) for gid, module in ((g, engine.get(g)) for g in engine.GAMES)}


async def _games_to_check(service: GameService, stale: set[str],
                          installed: dict[str, tuple[int, str | None]]) -> tuple[list[int], int]:
    """The games ``check_at_start`` replays, and how many others it leaves alone."""
    last_upgrade = (sa.select(sa.func.max(col(RulesUpgrade.to_version)))
                    .where(col(RulesUpgrade.game_pk) == col(Game.id)).scalar_subquery())
    async with service.reading() as session:
        rows = (await session.execute(
            sa.select(col(Game.id), col(Game.game_id), col(Game.status),
                      sa.func.coalesce(last_upgrade, col(Game.rules_version)))
            .where(col(Game.status).in_(CHECKED_STATUSES)).order_by(col(Game.id)))).all()
    chosen: list[int] = []
    for pk, game_id, status, recorded in rows:
        known = installed.get(game_id)
        if (game_id in stale or known is None
                or (status in ("open", "running") and int(recorded) != known[0])):
            chosen.append(int(pk))
    return chosen, len(rows) - len(chosen)


async def _stale_games(service: GameService, installed: dict[str, tuple[int, str | None]]) -> set[str]:
    """The installed games whose rules version or rules code is not what their stored logs
    were last all replayed under."""
    async with service.reading() as session:
        checked = {row.game_id: (row.rules_version, row.code_hash)
                   for row in (await session.execute(sa.select(RulesCheck))).scalars()}
    return {gid for gid, (version, code) in installed.items() if code is None or checked.get(gid) != (version, code)}


async def record_checked(service: GameService, game_ids: Iterable[str] | None = None) -> None:
    """Record that the stored logs of ``game_ids`` (default: every installed game) were all
    replayed under the installed rules. A game without files of its own is never recorded."""
    installed = _installed()
    wanted = sorted(set(installed if game_ids is None else game_ids) & set(installed))
    now = utcnow()
    async with service.writing() as session:
        await session.execute(sa.delete(RulesCheck).where(col(RulesCheck.game_id).in_(wanted)))
        for gid in wanted:
            version, code = installed[gid]
            if code is not None:
                session.add(RulesCheck(game_id=gid, rules_version=version, code_hash=code, checked_at=now))


async def check_at_start(service: GameService) -> UpgradeReport:
    """What ``alcazaba run`` does before going online: ``check_games`` on the games whose rules
    may have changed since they were last checked (module docstring), then a record of the
    games whose logs are now all checked. Several processes starting at once may each check
    the same games: the rules upgrade is still written once (``_record``)."""
    installed = _installed()
    stale = await _stale_games(service, installed)
    pks, unchanged = await _games_to_check(service, stale, installed)
    report = UpgradeReport(unchanged=unchanged)
    for pk in pks:
        check = await _check_one(service, pk, True)
        if check is not None:
            report.games.append(check)
    # (another process starting at the same time may have recorded them first)
    with contextlib.suppress(sa.exc.IntegrityError):
        await record_checked(service, stale)
    return report
