"""Ratings (issue 29): what counts, how a result ranks the seats, the update in the result's
transaction, the rebuild that reproduces the stored values exactly, and migration 0010's
backfill of an older release's finished games."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command

from bot.db import alembic_config, migrate
from bot.models import dumps
from bot.service import GameService
from bot.service import ratings as rt
from bot.service.ratings import Placed, place_roles, ranking, shown
from bot.settings import sqlite_url

GUILD = 1
ANN, BOB, CID = 101, 102, 103
NAMES = {ANN: "Ann", BOB: "Bob", CID: "Cid"}


async def toy_game(service: GameService, red: int | None, blue: int | None, guild: int | None = GUILD) -> int:
    """A toy race (target 8) with ``red`` and ``blue`` seated (None: the built-in player)."""
    info = await service.create_game("toy", {"target": 8}, seed=7, guild_id=guild)
    for role, user in (("red", red), ("blue", blue)):
        await service.join(info.id, user, NAMES.get(user or 0, "built-in player"), role, is_bot=user is None)
    await service.start(info.id)
    return info.id


async def play_out(service: GameService, pk: int, winner: str) -> None:
    """Play until ``winner`` reaches the target: it banks 2 a turn, the other 1."""
    users = {s.role: s.user_id for s in (await service.game(pk)).seats}
    while True:
        version, state = await service.state(pk)
        if state["result"] is not None:
            return
        role = state["turn"]
        want = 2 if role == winner else 1
        action = {"type": "bank"} if state["pending"] >= want else {"type": "add", "n": 1}
        await service.apply(pk, role, action, version, users[role])


def stored(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT guild_id, game_id, entry, user_id, mu, sigma, games, wins, last_name "
                            "FROM rating ORDER BY guild_id, game_id, entry").fetchall()


# --------------------------------------------------------------------------- ranking (pure)


def test_a_result_ranks_winner_shared_win_and_scores() -> None:
    assert place_roles(["a", "b"], {"winner": "b", "score": {}}) == {"a": 2, "b": 1}
    assert place_roles(["a", "b"], {"winner": None, "score": {}}) == {"a": 1, "b": 1}  # a draw
    # Dirk Henn's Granada: a shared win, then the others by score (equal scores share a place).
    result = {"winner": None, "winners": ["b", "d"], "score": {"a": 30, "b": 41, "c": 30, "d": 41, "e": 12}}
    assert place_roles(["a", "b", "c", "d", "e"], result) == {"a": 2, "b": 1, "c": 2, "d": 1, "e": 3}
    # Sabika: no winner named, but every role scored: the score orders them.
    assert place_roles(["red", "blue", "green"], {"winner": None, "score": {"red": 9, "blue": 14, "green": 3}}) \
        == {"red": 2, "blue": 1, "green": 3}


class _Seat:
    def __init__(self, role: str, user_id: int | None, is_bot: bool = False, prefs: dict[str, Any] | None = None,
                 name: str = "") -> None:
        self.role, self.user_id, self.is_bot = role, user_id, is_bot
        self.display_name = name or ("built-in player" if is_bot else NAMES.get(user_id or 0, ""))
        self.prefs = dumps(prefs or {})


def test_what_is_not_rated() -> None:
    won = {"winner": "red", "score": {}}
    assert ranking("toy", [_Seat("red", ANN), _Seat("blue", None)], won, vs_bot=True) \
        == "a seat was played at the terminal table"
    assert ranking("toy", [_Seat("red", ANN), _Seat("blue", ANN)], won, vs_bot=True) \
        == "one member held two of its seats"
    assert ranking("toy", [_Seat("red", ANN), _Seat("blue", None, is_bot=True)], won, vs_bot=False) \
        == "games against the built-in player do not count on this server"
    # A solo game of Sabika is a game against Yusuf: rated only where games against the
    # built-in player count, then against the entry 'bot:yusuf'.
    solo = {"winner": None, "reason": "Yusuf has the most Prestige Points (40) and wins",
            "score": {"red": 31, "yusuf": 40}}
    assert isinstance(ranking("sabika", [_Seat("red", ANN)], solo, vs_bot=False), str)
    assert ranking("sabika", [_Seat("red", ANN)], solo, vs_bot=True) == [
        Placed("bot:yusuf", 1, None, "yusuf"), Placed("u:101", 2, ANN, "Ann")]


def test_levels_are_entries_and_a_departed_player_is_placed_last() -> None:
    seats = [_Seat("a", ANN), _Seat("b", None, is_bot=True, prefs={"level": "hard"}),
             _Seat("c", None, is_bot=True, prefs={"departed": {"user_id": BOB, "name": "Bob"}}),
             _Seat("d", None, is_bot=True)]
    result = {"winner": "c", "score": {"a": 20, "b": 25, "c": 30, "d": 10}}
    placed = ranking("granada_city", seats, result, vs_bot=True)
    # Bob left seat c (which then won): he is last; the built-in player who finished it is
    # not rated; seat d plays at the game's level (hard, the first recorded).
    assert placed == [Placed("bot:hard", 1, None, "hard"), Placed("u:101", 2, ANN, "Ann"),
                      Placed("u:102", 3, BOB, "Bob")]


def test_shown_scale_and_provisional() -> None:
    new = shown(rt.MODEL.mu, rt.MODEL.sigma)
    assert new.value == 1000 and new.provisional
    assert shown(30.0, 6.4).provisional is False and shown(30.0, 6.4).value == round(1000 + 40 * (30 - 19.2))


# --------------------------------------------------------------------------- the service


async def test_a_finished_game_counts_once_in_its_own_transaction(service: GameService, db_path: Path) -> None:
    pk = await toy_game(service, ANN, BOB)
    await play_out(service, pk, "red")
    ann, bob = (await service.ratings_of(GUILD, ANN))[0], (await service.ratings_of(GUILD, BOB))[0]
    assert (ann.rating.games, ann.rating.wins, bob.rating.games, bob.rating.wins) == (1, 1, 1, 0)
    assert ann.mu > rt.MODEL.mu > bob.mu and ann.rank == 1 and bob.rank == 2
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT game_pk FROM rated_game").fetchall() == [(pk,)]
    # Counting it again (a retried transaction, a manager's mark) changes nothing.
    assert await service.set_rated(pk, True) is None
    assert (await service.ratings_of(GUILD, ANN))[0].mu == ann.mu


async def test_resignation_counts_an_aborted_game_does_not(service: GameService) -> None:
    pk = await toy_game(service, ANN, BOB)
    await service.resign(pk, "red", ANN)
    assert [line.rating.wins for line in await service.ratings_of(GUILD, BOB)] == [1]
    other = await toy_game(service, ANN, CID)
    await service.abort(other)
    assert await service.ratings_of(GUILD, CID) == []


async def test_games_against_the_built_in_player_count_only_when_the_server_allows(service: GameService) -> None:
    pk = await toy_game(service, ANN, None)
    await service.resign(pk, "red", ANN)
    assert await service.ratings_of(GUILD, ANN) == []
    await service.set_ratings_vs_bot(GUILD, True)
    assert await service.ratings_vs_bot(GUILD)
    pk = await toy_game(service, ANN, None)
    await service.resign(pk, "red", ANN)
    board = await service.leaderboard(GUILD, "toy")
    assert [(line.entry, line.rating.games) for line in board.lines] == [("bot:easy", 1), ("u:101", 1)]


async def test_rebuild_reproduces_the_stored_ratings_exactly(service: GameService, db_path: Path) -> None:
    pairs = [(ANN, BOB, "red"), (BOB, CID, "blue"), (CID, ANN, "red"), (ANN, BOB, "blue"), (BOB, ANN, "red"),
             (CID, BOB, "red"), (ANN, CID, "blue")]
    for red, blue, winner in pairs:
        await play_out(service, await toy_game(service, red, blue), winner)
    resigned = await toy_game(service, BOB, CID)
    await service.resign(resigned, "blue", CID)
    await play_out(service, await toy_game(service, ANN, BOB, guild=2), "red")  # another server
    before = stored(db_path)
    assert len(before) == 5
    report = await service.rebuild_ratings()
    assert (report.games, report.ratings, report.differed) == (9, 5, [])
    assert stored(db_path) == before  # to the last bit of every float
    # A rebuild finds a rating that was tampered with, and puts it right.
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE rating SET mu = mu + 1e-9 WHERE entry = 'u:101' AND guild_id = 1")
    report = await service.rebuild_ratings()
    assert report.differed == ["1/toy/u:101"] and stored(db_path) == before


async def test_a_game_marked_unrated_stops_counting(service: GameService) -> None:
    first = await toy_game(service, ANN, BOB)
    await play_out(service, first, "red")
    second = await toy_game(service, ANN, BOB)
    await play_out(service, second, "blue")
    assert await service.set_rated(first, False) is None
    ann = (await service.ratings_of(GUILD, ANN))[0]
    assert (ann.rating.games, ann.rating.wins) == (1, 0)
    await service.set_rated(first, True)  # counted again, after the others
    ann = (await service.ratings_of(GUILD, ANN))[0]
    assert (ann.rating.games, ann.rating.wins) == (2, 1)


async def test_an_import_is_unrated_until_a_manager_rates_it(service: GameService) -> None:
    pk = await toy_game(service, ANN, BOB)
    await play_out(service, pk, "red")
    copy = await service.import_game(await service.export(pk))
    # The import's seats are nobody's accounts: a manager's mark cannot make it count.
    assert await service.set_rated(copy, True) == "a seat was played at the terminal table"
    assert (await service.ratings_of(GUILD, ANN))[0].rating.games == 1


async def test_history_and_stats(service: GameService) -> None:
    pk = await toy_game(service, ANN, BOB)
    await play_out(service, pk, "red")
    running = await toy_game(service, BOB, ANN)
    history = await service.history(GUILD, BOB)
    assert [(h.game_pk, h.outcome, h.role) for h in history] == [(pk, "lost", "blue")]
    assert history[0].change is not None and history[0].change < 0
    stats = await service.stats(GUILD, ANN)
    assert [(g.game_id, g.played, g.won) for g in stats.per_game] == [("toy", 1, 1)]
    assert stats.in_progress == 1 and stats.moves > 0 and stats.on_time == stats.moves
    assert stats.longest is not None and stats.longest[0] == pk
    assert stats.favourite_side is not None and stats.favourite_side[0] == "toy"
    assert running


# --------------------------------------------------------------------------- migration 0010


def test_migration_backfills_ratings_from_finished_games(tmp_path: Path) -> None:
    from tests.bot.test_migrations import ANN as M_ANN
    from tests.bot.test_migrations import BOB as M_BOB
    from tests.bot.test_migrations import _populated
    from tests.bot.upgrade_helpers import copy_rows

    source = tmp_path / "source.db"
    _populated(source)  # today's service: it rated the finished game as it ended
    with sqlite3.connect(source) as conn:
        live = conn.execute("SELECT entry, mu, sigma, games, wins FROM rating ORDER BY entry").fetchall()
    assert [r[0] for r in live] == [f"u:{M_ANN}", f"u:{M_BOB}"] or [r[0] for r in live] == [f"u:{M_BOB}",
                                                                                         f"u:{M_ANN}"]
    old = tmp_path / "old.db"
    url = sqlite_url(old)
    command.upgrade(alembic_config(url), "0009")
    copy_rows(source, url)  # what the release before campaigns left
    command.upgrade(alembic_config(url), "0010")
    with sqlite3.connect(old) as conn:
        backfilled = conn.execute("SELECT entry, mu, sigma, games, wins FROM rating ORDER BY entry").fetchall()
        assert conn.execute("SELECT count(*) FROM rated_game").fetchone() == (1,)
    assert backfilled == live  # the same numbers as counting it when it ended
    engine = sa.create_engine(f"sqlite:///{old}")
    with engine.begin() as conn:
        assert rt.rebuild_sync(conn).differed == []
    engine.dispose()
    migrate(url)
    command.downgrade(alembic_config(url), "0009")
    with sqlite3.connect(old) as conn:
        assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'rating'").fetchall()


@pytest.mark.postgres
async def test_ratings_on_postgresql(pg_service: GameService) -> None:
    for red, blue, winner in [(ANN, BOB, "red"), (BOB, CID, "blue"), (CID, ANN, "red")]:
        await play_out(pg_service, await toy_game(pg_service, red, blue), winner)
    # Two games finishing at once share an entry (Ann): each locks it, one after the other.
    first, second = await toy_game(pg_service, ANN, BOB), await toy_game(pg_service, CID, ANN)
    await asyncio.gather(pg_service.resign(first, "blue", BOB), pg_service.resign(second, "red", CID))
    lines = {line.entry: line for line in (await pg_service.leaderboard(GUILD, "toy")).lines}
    assert lines["u:101"].rating.games == 4
    report = await pg_service.rebuild_ratings()
    assert report.differed == [] and report.games == 5


# --------------------------------------------------------------------------- the command line


async def _resigned_games(db: Path, count: int) -> None:
    """``count`` finished toy games among eight members of two servers, each ended by a
    resignation (the quickest finish), in a fixed random order."""
    import random

    chooser = random.Random(29)
    service = GameService.open(sqlite_url(db))
    try:
        for _ in range(count):
            red, blue = chooser.sample(range(201, 209), 2)
            info = await service.create_game("toy", {"target": 8}, seed=1, guild_id=chooser.choice((1, 2)))
            await service.join(info.id, red, f"p{red}", "red")
            await service.join(info.id, blue, f"p{blue}", "blue")
            await service.start(info.id)
            loser = chooser.choice(("red", "blue"))
            await service.resign(info.id, loser, red if loser == "red" else blue)
    finally:
        await service.close()


@pytest.mark.slow
def test_cli_rebuild_of_a_thousand_games_reproduces_the_stored_ratings(
        db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bot.cli import main

    asyncio.run(_resigned_games(db_path, 1000))
    before = stored(db_path)
    assert len(before) == 16 and sum(r[6] for r in before) == 2000
    assert main(["ratings", "rebuild", "--db", str(db_path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == ("1000 rated games replayed, 16 ratings written, "
                                                      "0 differed from the stored values")
    assert stored(db_path) == before
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE rating SET wins = wins + 1 WHERE entry = 'u:201' AND guild_id = 2")
    assert main(["ratings", "rebuild", "--db", str(db_path)]) == 1
    assert "differed: 2/toy/u:201" in capsys.readouterr().out
    assert stored(db_path) == before


def test_of_those_who_left_the_last_to_leave_is_placed_first() -> None:
    early = {"departed": {"user_id": ANN, "name": "Ann", "at": "2026-11-27T10:00:00"}}
    late = {"departed": {"user_id": BOB, "name": "Bob", "at": "2026-11-27T11:00:00"}}
    seats = [_Seat("red", None, is_bot=True, prefs=early), _Seat("blue", None, is_bot=True, prefs=late),
             _Seat("green", CID)]
    result = {"winner": "red", "score": {"red": 30, "blue": 20, "green": 10}}
    assert ranking("granada_city", seats, result, vs_bot=True) == [
        Placed("u:103", 1, CID, "Cid"), Placed("u:102", 2, BOB, "Bob"), Placed("u:101", 3, ANN, "Ann")]


async def test_the_leaderboard_adds_the_callers_own_line(service: GameService) -> None:
    await play_out(service, await toy_game(service, ANN, BOB), "red")
    await play_out(service, await toy_game(service, CID, BOB), "red")
    board = await service.leaderboard(GUILD, "toy", BOB, top=2)
    assert [line.entry for line in board.lines] == ["u:101", "u:103"]  # Ann and Cid won their game each
    assert board.own is not None and (board.own.rank, board.own.entry, board.entries) == (3, "u:102", 3)
    assert len(board.own.trend) == 2 and board.own.trend[1] < board.own.trend[0]
