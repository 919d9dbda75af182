"""Issue 14: a game started under one rules version finishes under the next.

The toy engine (tests/bot/toygame.py, rules version 1) is replaced, on purpose, by a version
2 in which "add 2" counts 3 points (a log with an "add 2" replays to another state), or a
version 3 in which "add 2" is no longer allowed (the log no longer replays).
"""

from __future__ import annotations

import importlib.util
import sqlite3
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory

import engine
from bot.db import alembic_config
from bot.service import GameService, ImportRefused, UndoRefused
from bot.upgrade import _rules_files, check_at_start, check_games, code_fingerprint
from engine.api import Action, RuleError, State, clone
from tests.bot import toygame

ANN, BOB = 101, 202
THREAD = 900
HEAD = ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()
"""The newest migration: what a game made now records as its schema revision."""


def toy_version(version: int, apply: Any, note: str) -> types.SimpleNamespace:
    module = types.SimpleNamespace(**{k: getattr(toygame, k) for k in (
        "id", "title", "OPTIONS", "roles", "setup", "active", "actions", "view", "result", "redeal")})
    module.apply = apply
    module.RULES_VERSION = version
    module.CHANGELOG = {version: note}
    return module


def apply_v2(state: State, role: str, action: Action) -> State:
    """Version 2: "add 2" counts 3."""
    new = toygame.apply(state, role, action)
    if action.get("type") == "add" and action.get("n") == 2:
        new = clone(new)
        new["pending"] += 1
    return new


def apply_v3(state: State, role: str, action: Action) -> State:
    """Version 3: "add 2" is gone."""
    if action.get("type") == "add" and action.get("n") == 2:
        raise RuleError("adding 2 is no longer allowed", "2")
    return toygame.apply(state, role, action)


@pytest.fixture
def upgrade_to() -> Iterator[Any]:
    def swap(version: int) -> None:
        engine.GAMES["toy"] = (toy_version(2, apply_v2, "Adding 2 now counts 3 points.") if version == 2
                               else toy_version(3, apply_v3, "Adding 2 is no longer allowed."))

    yield swap
    engine.GAMES["toy"] = toygame


def rows(db_path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as conn:
        return conn.execute(sql, params).fetchall()


async def started(service: GameService, seed: int = 7) -> int:
    info = await service.create_game("toy", {"target": 8}, seed=seed, created_by=ANN, guild_id=1, thread_id=THREAD)
    await service.join(info.id, ANN, "Ann")
    await service.join(info.id, BOB, "Bob")
    await service.start(info.id)
    return info.id


async def play(service: GameService, pk: int, moves: list[tuple[str, Action]]) -> None:
    for role, action in moves:
        version = (await service.game(pk)).version
        await service.apply(pk, role, action, version, ANN if role == "red" else BOB)


OPENING: list[tuple[str, Action]] = [
    ("red", {"type": "add", "n": 1}), ("red", {"type": "add", "n": 2}), ("red", {"type": "bank"}),
    ("blue", {"type": "add", "n": 1}), ("blue", {"type": "add", "n": 1}),
]


def rules_notices(db_path: Path, pk: int) -> list[str]:
    return [p for (p,) in rows(db_path, "SELECT payload FROM outbox WHERE game_pk = ? AND kind = 'channel' "
                                        "AND payload LIKE '%rules of%'", pk)]


async def test_a_game_records_its_rules_version_and_schema_revision(service: GameService, db_path: Path) -> None:
    pk = await started(service)
    assert rows(db_path, "SELECT rules_version, schema_revision FROM game WHERE id = ?", pk) == [(1, HEAD)]
    data = await service.export(pk)
    assert (data["rules_version"], data["schema_revision"], data["upgrades"]) == (1, HEAD, [])


@pytest.mark.rule("issue14:versions")
async def test_a_rules_change_the_game_carries_on_undo_stops_one_notice(
        service: GameService, db_path: Path, upgrade_to: Any) -> None:
    pk = await started(service)
    await play(service, pk, OPENING)
    finished = await started(service, seed=8)
    await play(service, finished, [("red", {"type": "add", "n": 2}), ("red", {"type": "add", "n": 2}),
                                   ("red", {"type": "add", "n": 2}), ("red", {"type": "add", "n": 2}),
                                   ("red", {"type": "bank"})])
    assert (await service.game(finished)).status == "finished"
    stored_before = (await service.state(pk))[1]

    upgrade_to(2)
    # Before the check has met the game under version 2, undo does not replay across.
    assert "updated (version 1 to 2)" in (await service.can_undo(pk, "blue") or "")

    report = await check_games(service)
    by_pk = {g.game_pk: g for g in report.games}
    running, done = by_pk[pk], by_pk[finished]
    assert (running.outcome, running.seq, running.recorded, running.installed) == ("different", 2, 1, 2)
    assert "from move 2 (red, step)" in running.public and "score" in running.public
    assert "hand" not in running.public and '"n"' not in running.public, "public part: no cards, no actions"
    assert '{"n":2,"type":"add"}' in running.details
    assert running.recorded_upgrade and running.notified
    assert (done.outcome, done.seq, done.recorded_upgrade) == ("different", 1, False)
    assert f"game {pk} from move 2" in report.summary() and not report.ok

    notices = rules_notices(db_path, pk)
    assert len(notices) == 1 and "Adding 2 now counts 3 points." in notices[0]
    assert rows(db_path, "SELECT recipient, kind FROM outbox WHERE payload LIKE '%rules of%'") == [(str(THREAD), "channel")]
    again = await check_games(service)
    assert {g.game_pk: g.outcome for g in again.games}[pk] == "identical", "replayed from the upgrade on"
    assert len(rules_notices(db_path, pk)) == 1, "told once"
    assert rules_notices(db_path, finished) == [], "a finished game is reported, its players not told"

    # The game carries on from its stored state under version 2: blue's "add 2" counts 3.
    assert (await service.state(pk))[1] == stored_before
    await play(service, pk, [("blue", {"type": "add", "n": 2})])
    assert (await service.state(pk))[1]["pending"] == 2 + 3
    # Undo takes back the step made after the upgrade, then stops there.
    version = (await service.game(pk)).version
    await service.undo(pk, "blue", version, BOB)
    assert (await service.state(pk))[1] == stored_before
    refusal = await service.can_undo(pk, "blue")
    assert refusal is not None and "before the rules of Toy race were updated to version 2" in refusal
    with pytest.raises(UndoRefused, match="before the rules"):
        await service.undo(pk, "blue", (await service.game(pk)).version, BOB)

    checked = await service.replay_check(pk)
    assert checked.ok and "moves 1-5 were recorded under rules version 1" in checked.message
    old = await service.replay_check(finished)
    assert not old.ok and old.seq == 1 and "rules version 1" in old.message and "this release has version 2" in old.message

    # Export/import: the part after the upgrade verifies, the rest names the version it needs.
    data = await service.export(pk)
    assert data["rules_version"] == 1 and [u["to"] for u in data["upgrades"]] == [2]
    file_check = await service.replay_check(data)
    assert file_check.ok and "need rules version 1" in file_check.message
    copy = await service.import_game(data)
    assert (await service.state(copy))[1] == (await service.state(pk))[1]
    assert (await service.replay_check(copy)).ok
    with pytest.raises(ImportRefused, match="recorded under Toy race rules version 1"):
        await service.import_game(await service.export(finished))

    # The game plays to its end under version 2.
    await play(service, pk, [("blue", {"type": "bank"}), ("red", {"type": "add", "n": 2}),
                             ("red", {"type": "add", "n": 2}), ("red", {"type": "bank"})])
    over = await service.game(pk)
    assert over.status == "finished" and over.result is not None
    assert over.result["score"] == {"red": 3 + 3 + 3, "blue": 2}, "version 1 scoring before, version 2 after"
    assert (await service.replay_check(pk)).ok


@pytest.mark.rule("issue14:versions")
async def test_a_log_that_no_longer_replays_is_reported_with_the_move_and_the_rule(
        service: GameService, db_path: Path, upgrade_to: Any) -> None:
    pk = await started(service)
    await play(service, pk, OPENING)
    upgrade_to(3)
    report = await check_games(service)
    (check,) = report.games
    assert (check.outcome, check.seq) == ("fails", 2)
    assert "move 2 (red, step) is refused under the installed rules (rule 2)" in check.public
    assert "adding 2 is no longer allowed" in check.details
    assert len(rules_notices(db_path, pk)) == 1
    # It keeps playing from its stored state; "add 2" is refused now with its rule.
    with pytest.raises(RuleError):
        await play(service, pk, [("blue", {"type": "add", "n": 2})])
    await play(service, pk, [("blue", {"type": "add", "n": 1}), ("blue", {"type": "bank"})])
    assert (await service.replay_check(pk)).ok


async def test_a_log_that_still_replays_lets_undo_go_on(service: GameService, db_path: Path,
                                                        upgrade_to: Any) -> None:
    pk = await started(service)
    await play(service, pk, [("red", {"type": "add", "n": 1}), ("red", {"type": "bank"}),
                             ("blue", {"type": "add", "n": 1}), ("blue", {"type": "add", "n": 1})])
    exported = await service.export(pk)
    upgrade_to(2)  # no "add 2" in the log: it replays identically
    copy = await service.import_game(exported)  # a version 1 file, verified whole under version 2
    assert (await service.export(copy))["upgrades"][0]["outcome"] == "identical"
    await service.undo(copy, "blue", (await service.game(copy)).version)
    report = await check_games(service)
    assert [(g.outcome, g.recorded_upgrade, g.notified) for g in report.games] == [("identical", True, False),
                                                                                  ("identical", False, False)]
    assert report.ok and rules_notices(db_path, pk) == []
    for _ in range(2):
        await service.undo(pk, "blue", (await service.game(pk)).version, BOB)
    assert (await service.state(pk))[1]["pending"] == 0


def test_run_checks_every_game_after_migrating_and_logs_the_summary(tmp_path: Path) -> None:
    """``alcazaba run`` (here opening the terminal table) replays the stored games first."""
    import asyncio

    from bot.db import migrate
    from bot.settings import sqlite_url
    from tests.bot.test_cli import run_in_terminal

    database = tmp_path / "data" / "alcazaba.db"
    migrate(sqlite_url(database))

    async def one_game() -> None:
        service = GameService.open(sqlite_url(database))
        try:
            pk = await started(service)
            await play(service, pk, OPENING)
        finally:
            await service.close()

    asyncio.run(one_game())
    done = run_in_terminal("toy", tmp_path, "run", answers="toy\n\nnone\n")
    assert done.returncode == 0, done.stderr
    assert "upgrade-check: 1 game: 1 replay identically." in done.stderr
    # The next start finds the rules unchanged: it replays nothing (the terminal table's own
    # game, played under these rules, included).
    again = run_in_terminal("toy", tmp_path, "run", answers="toy\n\nnone\n")
    assert again.returncode == 0, again.stderr
    assert ("upgrade-check: 0 games: 0 replay identically. 2 other games were not replayed: their rules "
            "have not changed since they were last checked.") in again.stderr


def toy_from_file(path: Path, extra: str = "") -> types.ModuleType:
    """The toy engine loaded from its own copy of tests/bot/toygame.py at ``path`` (with
    ``extra`` appended to the source): a game whose rules code can change under a server."""
    path.write_text(Path(toygame.__file__).read_text() + extra)
    spec = importlib.util.spec_from_file_location(f"toy_copy_{abs(hash(extra))}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.rule("issue14:versions")
async def test_a_start_replays_only_the_games_whose_rules_changed(service: GameService, db_path: Path,
                                                                  tmp_path: Path) -> None:
    """A restart with the same rules replays no game; a change of the rules code (here one
    more line in the game's module, without a RULES_VERSION bump) replays that game's logs
    again; a game being played whose recorded version is not the installed one (one
    imported from an older server) is replayed whatever the record says."""
    engine.GAMES["toy"] = toy_from_file(tmp_path / "toyrules.py")
    try:
        running = await started(service)
        await play(service, running, OPENING)
        other = await started(service, seed=9)

        first = await check_at_start(service)
        assert sorted(g.game_pk for g in first.games) == [running, other] and first.ok
        second = await check_at_start(service)
        assert (second.games, second.unchanged) == ([], 2)

        engine.GAMES["toy"] = toy_from_file(tmp_path / "toyrules.py", "\n# a rules fix\n")
        third = await check_at_start(service)
        assert sorted(g.game_pk for g in third.games) == [running, other] and third.ok
        assert (await check_at_start(service)).games == []

        rows(db_path, "UPDATE game SET rules_version = 0 WHERE id = ?", running)
        imported = await check_at_start(service)
        assert [(g.game_pk, g.recorded, g.installed, g.recorded_upgrade) for g in imported.games] == [
            (running, 0, 1, True)]
        assert imported.unchanged == 1
        assert (await check_at_start(service)).games == []  # its upgrade to version 1 is recorded now
    finally:
        engine.GAMES["toy"] = toygame


async def test_a_game_without_files_of_its_own_is_always_replayed_at_start(service: GameService,
                                                                           upgrade_to: Any) -> None:
    pk = await started(service)
    upgrade_to(2)  # a module made at run time: nothing to fingerprint
    assert code_fingerprint(engine.GAMES["toy"]) is None
    for _ in range(2):
        assert [g.game_pk for g in (await check_at_start(service)).games] == [pk]


def test_the_fingerprint_covers_a_games_data_files() -> None:
    """A data file beside the rules (a map, a card list) decides what a log replays to as
    much as the code does."""
    module = engine.get("granada")
    files = {p.name for p in (_rules_files(module) or [])}
    assert {"__init__.py", "api.py", "rng.py"} <= files
    assert any(name.endswith(".json") for name in files), sorted(files)
