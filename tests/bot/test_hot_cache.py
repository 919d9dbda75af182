"""The hot cache of the game service (issue 13): a view of a game kept hot reads one row and
takes the state, the undo facts and the engine's views from the cache, and a step writes
through the service's own SQLite connection. These tests hold what that must not change: a
second process (here a second service on the same file, which shares nothing in memory with
the first) that moves a game, changes a seat or records a rules upgrade is seen at the next
view; a view is never another role's; a caller cannot change what the next one is shown;
and a step stores the very values the ORM would."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest

import engine
from bot.service import GameService, NotAllowed, StaleVersion, storage
from bot.settings import sqlite_url
from tests.bot import toygame
from tests.bot.test_service import ANN, BOB, rows, two_player_game


@pytest.fixture
async def other(db_path: Path) -> AsyncIterator[GameService]:
    """A second service on the same database: another process as far as caches go."""
    svc = GameService.open(sqlite_url(db_path))
    yield svc
    await svc.close()


async def test_a_hot_view_follows_steps_made_elsewhere(service: GameService, other: GameService) -> None:
    pk = await two_player_game(service)
    first = await service.view(pk, "red", ANN)
    assert (first.version, first.view["pending"], first.can_undo) == (0, 0, False)
    assert (await service.view(pk, "red", ANN)).version == 0, "served hot at version 0"

    await other.apply(pk, "red", {"type": "add", "n": 2}, 0, ANN)
    seen = await service.view(pk, "red", ANN)
    assert (seen.version, seen.view["pending"], seen.game.version) == (1, 2, 1)
    assert seen.can_undo, "red's own step, nothing drawn: the undo facts were read again"

    await other.apply(pk, "red", {"type": "bank"}, 1, ANN)
    await other.apply(pk, "blue", {"type": "add", "n": 1}, 2, BOB)
    red, blue = await service.view(pk, "red", ANN), await service.view(pk, "blue", BOB)
    assert (red.version, red.can_undo, blue.can_undo) == (3, False, True)
    assert red.view["score"] == {"red": 2, "blue": 0} and blue.view["pending"] == 1

    # This service's hot state is at version 3; the other moves on; an order for version 3
    # is refused as stale, and writes nothing.
    await other.apply(pk, "blue", {"type": "add", "n": 2}, 3, BOB)
    with pytest.raises(StaleVersion) as stale:
        await service.apply(pk, "blue", {"type": "bank"}, 3, BOB)
    assert stale.value.version == 4
    step = await service.apply(pk, "blue", {"type": "bank"}, 4, BOB)
    assert step.version == 5
    version, state = await other.state(pk)
    assert version == 5 and state["score"] == {"red": 2, "blue": 3}
    assert (await other.replay_check(pk)).ok


async def test_hot_views_are_per_role_and_fresh_for_each_caller(service: GameService) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "draw"}, 0, ANN)
    _, state = await service.state(pk)
    red = await service.view(pk, "red", ANN)
    blue = await service.view(pk, "blue", BOB)
    spectator = await service.view(pk, None)
    toy = engine.get("toy")  # the contract adapter: the game's views, their actions marked
    assert red.view == toy.view(state, "red") and red.view != toygame.view(state, "red")
    assert blue.view == toy.view(state, "blue")
    assert spectator.view == toygame.view(state, None)
    drawn = state["hands"]["red"][-1]
    secret = f"You draw a {drawn}."
    assert secret in [line["text"] for line in red.view["log"]]
    for other_view in (blue.view, spectator.view):
        assert secret not in str(other_view) and other_view["hand"] != state["hands"]["red"]

    # What a caller does to its view reaches neither the next caller nor the state.
    red.view["hand"].append(99)
    red.view["log"].clear()
    red.view["prompt"] = "changed"
    again = await service.view(pk, "red", ANN)
    assert again.view == toy.view(state, "red")
    assert (await service.state(pk))[1] == state


async def test_a_seat_handed_over_elsewhere_reaches_a_hot_view(service: GameService, other: GameService) -> None:
    pk = await two_player_game(service)
    assert (await service.view(pk, "red", ANN)).game.seats[0].user_id == ANN
    for _ in range(2):  # the second one is served hot
        assert (await service.view(pk, None)).game.seats[0].user_id == ANN
    await other.hand_over(pk, "red", "The deadline passed")
    with pytest.raises(NotAllowed, match="You do not hold the red seat"):
        await service.view(pk, "red", ANN)
    seen = await service.view(pk, None)
    assert seen.version == 0, "no move was made: the version alone could not tell"
    assert [(s.role, s.is_bot, s.user_id) for s in seen.game.seats] == [("red", True, None), ("blue", False, BOB)]


async def test_a_step_reads_a_seat_handed_over_elsewhere(service: GameService, other: GameService) -> None:
    """A step reads its game's seats at every step and keeps their row objects while their
    rows stay the same (``Storage._look_kept``): a seat that changed hands in another process,
    at no new version, is the new holder's at the next step."""
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 1, ANN)  # the seats' objects kept
    await other.hand_over(pk, "red", "The deadline passed")
    with pytest.raises(NotAllowed, match="The built-in player holds the red seat"):
        await service.apply(pk, "red", {"type": "bank"}, 2, ANN)
    loaded = []
    for _ in range(2):  # and each step has a dict of its own
        async with service._write_step() as session:
            loaded.append(await service._load(session, pk, lock=True, attach=False))
    assert loaded[0].seats is not loaded[1].seats and loaded[0].seats["red"].is_bot


async def test_a_rules_upgrade_recorded_elsewhere_reaches_a_hot_views_undo(
        service: GameService, db_path: Path) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    assert (await service.view(pk, "red", ANN)).can_undo
    # What bot.upgrade records when a game's log does not replay under new rules: a row, and
    # no new version. Written here by another connection, as by another process.
    with sqlite3.connect(db_path) as conn:
        conn.execute(
            "INSERT INTO rules_upgrade (game_pk, seq, from_version, to_version, outcome, report, state, "
            "state_hash, created_at) VALUES (?, 1, 0, 1, 'different', 'rules changed', NULL, 'x', "
            "'2026-01-01 00:00:00.000000')", (pk,))
    seen = await service.view(pk, "red", ANN)
    assert seen.version == 1 and not seen.can_undo
    assert "before the rules of Toy race were updated to version 1" in (await service.can_undo(pk, "red") or "")


_STORED_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$")


async def test_a_step_stores_what_the_orm_stores(service: GameService, db_path: Path) -> None:
    pk = await two_player_game(service)
    step = await service.apply(pk, "red", {"type": "draw"}, 0, ANN)
    assert step.barrier
    (move,) = rows(db_path, "SELECT typeof(barrier), barrier, created_at, typeof(user_id), user_id, action "
                            "FROM move WHERE game_pk = ?", pk)
    assert move[:2] == ("integer", 1) and _STORED_TIME.match(move[2])
    assert move[3:] == ("integer", ANN, '{"type":"draw"}')
    # The game row was created through the ORM and changed by the step's own statements.
    (created, updated, active), = rows(db_path, "SELECT created_at, updated_at, active FROM game WHERE id = ?", pk)
    assert _STORED_TIME.match(created) and _STORED_TIME.match(updated) and updated >= created
    assert active == '["red"]'
    turn = rows(db_path, "SELECT attempts, created_at, next_attempt_at, sent_at, claimed_by FROM outbox "
                         "WHERE dedupe_key = ?", f"g{pk}:v1:turn:red")
    assert len(turn) == 1 and turn[0][0] == 0 and turn[0][3:] == (None, None), "the columns' defaults"
    assert _STORED_TIME.match(turn[0][1]) and _STORED_TIME.match(turn[0][2])
    listed = await service.outbox(pk)
    assert [o.attempts for o in listed if o.payload.get("type") == "your_turn" and o.payload["version"] == 1] == [0]


async def test_undo_facts_kept_hot_by_this_process_steps(service: GameService) -> None:
    """Each view below is served hot, from the undo facts this service's own steps kept up to
    date; ``can_undo`` (which reads the log) must agree with it every time."""
    pk = await two_player_game(service)
    expected = [
        ("red", {"type": "add", "n": 1}, {"red": True, "blue": False}),
        ("red", {"type": "draw"}, {"red": False, "blue": False}),  # a random draw
        ("red", {"type": "bank"}, {"red": True, "blue": False}),
        ("blue", {"type": "add", "n": 2}, {"red": False, "blue": True}),
    ]
    users = {"red": ANN, "blue": BOB}
    for role, user in users.items():
        assert not (await service.view(pk, role, user)).can_undo
    for version, (mover, action, may_undo) in enumerate(expected):
        await service.apply(pk, mover, action, version, users[mover])
        for role, user in users.items():
            seen = await service.view(pk, role, user)
            assert seen.version == version + 1
            assert seen.can_undo is may_undo[role], (action, role)
            assert (await service.can_undo(pk, role) is None) is may_undo[role]
    await service.undo(pk, "blue", 4, BOB)
    assert (await service.view(pk, "red", ANN)).can_undo, "red's bank stands last again"
    assert not (await service.view(pk, "blue", BOB)).can_undo


async def test_times_written_and_read_straight_on_sqlite_keep_the_orm_format(
        service: GameService, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A time on the whole second is where the driver's own format and SQLAlchemy's differ
    ('12:00:00' against '12:00:00.000000'); and a hot view turns the row's text back into
    times, as the ORM would."""
    import bot.service.core as core

    pk = await two_player_game(service)
    noon = datetime(2026, 1, 1, 12, 0, 0)
    monkeypatch.setattr(core, "utcnow", lambda: noon)  # a step's one clock reading (ServiceCore._record)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    assert rows(db_path, "SELECT created_at FROM move WHERE game_pk = ?", pk) == [("2026-01-01 12:00:00.000000",)]
    assert rows(db_path, "SELECT updated_at FROM game WHERE id = ?", pk) == [("2026-01-01 12:00:00.000000",)]
    deadline = datetime(2026, 1, 2, 8, 30, 0)
    await service.set_schedule(pk, pace="24h", deadline_at=deadline)
    for _ in range(2):  # the second view is served hot
        seen = await service.view(pk, None)
        assert seen.game.deadline_at == deadline and seen.game.updated_at == noon
        assert seen.game.created_at < datetime.now() and isinstance(seen.game.created_at, datetime)


async def test_a_step_after_a_view_takes_the_state_the_views_marking_reached(service: GameService) -> None:
    """A view's actions are marked by applying each of them (``final``, ``forced``); the step
    that sends one of them back takes the state that marking made (issue 33), which is the
    state applying it again makes."""
    pk = await two_player_game(service)
    seen = await service.view(pk, "red", ANN)
    chosen = seen.view["actions"][1]  # add 2, as the view lists it (label, marks)
    reached = service._states[pk].reached
    assert reached is not None and len(reached["red"].steps) == len(seen.view["actions"])
    taken = next(after for applied, after in reached["red"].steps if applied.get("n") == 2)
    _version, before = await service.state(pk)
    step = await service.apply(pk, "red", chosen, seen.version, ANN)
    assert service._states[pk].state is taken, "the state the view's marking reached"
    assert (await service.state(pk))[1] == toygame.apply(before, "red", {"type": "add", "n": 2})
    assert step.version == 1 and (await service.moves(pk))[-1]["action"] == {"type": "add", "n": 2}


async def test_a_view_action_a_front_end_changed_is_applied_as_it_is_sent(service: GameService) -> None:
    """The marking keeps a copy of each action it applied: a front end that reuses the view's
    own dict for another order is applied that order, not handed the state of the first."""
    pk = await two_player_game(service)
    seen = await service.view(pk, "red", ANN)
    action = seen.view["actions"][0]
    assert action["n"] == 1
    action["n"] = 2  # the view's own dict, now another order
    await service.apply(pk, "red", action, seen.version, ANN)
    assert (await service.state(pk))[1]["pending"] == 2
    assert (await service.moves(pk))[-1]["action"] == {"type": "add", "n": 2}


async def test_reached_states_are_kept_for_the_games_viewed_last_only(service: GameService,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The states a view's marking reached are kept for a few games (``_REACHED_GAMES``), not
    for every hot game; a game whose were dropped still steps, by applying the action."""
    monkeypatch.setattr(storage, "_REACHED_GAMES", 2)
    games = [await two_player_game(service) for _ in range(3)]
    views = [await service.view(pk, "red", ANN) for pk in games]
    assert [service._states[pk].reached is not None for pk in games] == [False, True, True]
    await service.apply(games[0], "red", views[0].view["actions"][1], views[0].version, ANN)
    assert (await service.state(games[0]))[1]["pending"] == 2


async def test_a_second_view_of_the_same_version_takes_the_first_views_marks(
        service: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """A role's view is marked once per version (bot/service/marks.py): the next view of the
    same role at that version is given the same marks without applying its actions again, a
    front end that changed the first view's actions changes nothing of the second's, and a
    step, which makes a new version, is marked afresh."""
    from bot.service import marks

    applied: list[int] = []
    real = marks.marked_steps

    def counted(*args: object, **kwargs: object) -> object:
        applied.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(marks, "marked_steps", counted)
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    first = await service.view(pk, "red", ANN)
    module = engine.get(toygame.id)
    expected = module.view((await service.state(pk))[1], "red")["actions"]
    assert any(a.get("final") for a in expected), "drawing a card is final: a mark to carry over"
    assert first.view["actions"] == expected
    first.view["actions"][0]["label"] = "changed by a front end"
    for a in first.view["actions"]:
        a.pop("final", None)
    second = await service.view(pk, "red", ANN)
    assert second.view["actions"] == expected and len(applied) == 1, "the first view's marks"
    assert second.view["actions"] is not first.view["actions"]
    other = await service.view(pk, "blue", BOB)
    assert len(applied) == 2 and other.view["actions"] == module.view((await service.state(pk))[1], "blue")["actions"]
    await service.apply(pk, "red", second.view["actions"][0], second.version, ANN)
    third = await service.view(pk, "red", ANN)
    assert third.view["actions"] == module.view((await service.state(pk))[1], "red")["actions"]
    assert len(applied) == 3, "a new version is marked afresh"


def test_the_services_marking_is_the_engines_without_its_memo() -> None:
    """The service marks a view's actions as the engine's adapter does (the same marks, and
    the states it reached equal to those ``engine.api.marked_steps`` reaches), over the states
    of a random Granada game, and leaves the engine's memo of markings as it was: the service
    keeps its markings itself, by the very state (bot/service/marks.py), and asks the engine
    not to remember (``remember=False``)."""
    from bot.service import marks
    from engine import api
    from tests.engine.games import random_game

    module = engine.get("granada")
    compared = 0
    for state in random_game("granada", 4, {}, stop=80):
        for role in module.active(state):
            memo = dict(api._MARKS)
            seen, reached = marks.marked_view(module, state, role)
            assert memo == api._MARKS, "the engine's memo untouched"
            assert reached is not None
            assert seen["actions"] == module.view(state, role)["actions"]
            offered = [dict(a) for a in module.own_view(state, role)["actions"]]
            afters = [after for after in api.marked_steps(module, state, role, offered) if after is not None]
            assert [after for _action, after in reached.steps] == afters
            compared += len(afters)
    assert compared > 100


def test_a_prepared_statements_parameters_are_those_sqlalchemy_would_bind() -> None:
    """A step's statements run on the driver with parameters made by ``_Prepared.params``:
    a column not given takes its default, a time is written in the ORM's format, None stays
    None, and a column with no default must be given."""
    import sqlalchemy as sa

    from bot.service.sql import _INSERT_OUTBOX, _Prepared

    given = {"game_pk": 3, "kind": "dm", "recipient": "7", "payload": "{}", "dedupe_key": "k",
             "created_at": datetime(2026, 1, 1, 12, 0, 0), "next_attempt_at": None}
    prepared = _Prepared(_INSERT_OUTBOX, sa.create_engine("sqlite://").dialect, sorted(given))
    values = dict(zip(prepared.names, prepared.params(given), strict=True))
    assert values == {**given, "created_at": "2026-01-01 12:00:00.000000", "attempts": 0}
    with pytest.raises(KeyError):
        prepared.params({k: v for k, v in given.items() if k != "kind"})
