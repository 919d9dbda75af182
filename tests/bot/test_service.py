"""GameService on a real SQLite file, with the toy engine (tests/bot/toygame.py)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.models import dumps
from bot.service import (
    GameService,
    ImportRefused,
    NotAllowed,
    ServiceError,
    StaleVersion,
    UndoRefused,
    state_hash,
)
from bot.service.deltas import apply_delta
from bot.settings import sqlite_url
from engine.api import RuleError
from tests.bot import toygame
from tests.bot.boom import registered_boom
from tests.databases import migrated_sqlite

ANN, BOB, EVE = 101, 202, 303


async def two_player_game(service: GameService, *, seed: int = 7, channel: int | None = 900,
                          target: int = 12) -> int:
    info = await service.create_game("toy", {"target": target}, seed=seed, created_by=ANN, guild_id=1,
                                     channel_id=channel)
    await service.join(info.id, ANN, "Ann")
    await service.join(info.id, BOB, "Bob")
    await service.start(info.id)
    return info.id


def rows(db_path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as conn:
        return conn.execute(sql, params).fetchall()


# ----------------------------------------------------------------------------- games, seats


async def test_create_join_start(service: GameService) -> None:
    info = await service.create_game("toy", {}, seed=3, created_by=ANN)
    assert info.status == "open" and info.version == 0
    assert info.options == {"target": 12}, "defaults from OPTIONS are filled in"
    assert info.free_roles == ["red", "blue"]
    first = await service.join(info.id, ANN, "Ann")
    assert first.role == "red", "no role given: the first free one"
    with pytest.raises(NotAllowed, match="already taken by Ann"):
        await service.join(info.id, BOB, "Bob", "red")
    with pytest.raises(NotAllowed, match="still needs a player for: blue"):
        await service.start(info.id)
    started = await service.start(info.id, fill_with_bots=True)
    assert started.status == "running"
    blue = started.seat("blue")
    assert blue is not None and blue.is_bot
    assert started.active == ["red"]
    with pytest.raises(NotAllowed, match="already under way"):
        await service.join(info.id, EVE, "Eve")


async def test_create_refuses_unknown_game_and_option(service: GameService) -> None:
    with pytest.raises(ServiceError, match="unknown game 'chess'"):
        await service.create_game("chess", {})
    with pytest.raises(ServiceError, match="no option speed"):
        await service.create_game("toy", {"speed": 3})
    with pytest.raises(ServiceError, match="must be one of 5, 8, 12, 20"):
        await service.create_game("toy", {"target": 7})


async def test_games_filters(service: GameService) -> None:
    a = await two_player_game(service)
    b = await service.create_game("toy", {}, seed=1, channel_id=77)
    await service.join(b.id, EVE, "Eve")
    assert [g.id for g in await service.games(user_id=ANN)] == [a]
    assert [g.id for g in await service.games(user_id=EVE)] == [b.id]
    assert [g.id for g in await service.games(status="open")] == [b.id]
    assert [g.id for g in await service.games(channel_id=77)] == [b.id]
    assert {g.id for g in await service.games(status=["open", "running"])} == {a, b.id}
    await service.set_schedule(a, pace="24h")
    assert [g.id for g in await service.games(paced=True, limit=None)] == [a]
    assert [g.id for g in await service.games(paced=False)] == [b.id]
    assert len(await service.games(limit=1)) == 1


# ----------------------------------------------------------------------------- steps


async def test_apply_writes_move_state_and_version(service: GameService, db_path: Path) -> None:
    pk = await two_player_game(service)
    step = await service.apply(pk, "red", {"type": "add", "n": 2, "label": "whatever the client sent"}, 0, ANN)
    assert step.version == 1 and step.active == ["red"] and not step.barrier
    version, state = await service.state(pk)
    assert version == 1 and state["pending"] == 2
    moves = rows(db_path, "SELECT seq, role, user_id, action, kind FROM move WHERE game_pk=?", pk)
    assert moves == [(1, "red", ANN, '{"n":2,"type":"add"}', "step")], "labels are not stored"
    # The snapshot stays at version 0 (one every SNAPSHOT_EVERY moves, issue 13); the move
    # row holds what the step changed, and the hash of the state after it.
    snapshot, text = rows(db_path, "SELECT version, state FROM game_state WHERE game_pk=?", pk)[0]
    delta, digest = rows(db_path, "SELECT delta, state_hash FROM move WHERE game_pk=?", pk)[0]
    assert snapshot == 0 and json.loads(delta) == {"{": {"pending": {"=": 2}}}
    assert dumps(apply_delta(json.loads(text), json.loads(delta))) == dumps(state)
    assert digest == state_hash(dumps(state))


async def test_stale_version_is_refused_with_current_version_and_prompt(service: GameService) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    with pytest.raises(StaleVersion) as caught:
        await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    assert caught.value.version == 1 and caught.value.expected == 0
    assert caught.value.prompt == "Your turn: 1 points pending."
    assert "version 1" in str(caught.value)
    assert (await service.state(pk))[1]["pending"] == 1, "the stale order changed nothing"


async def test_seat_holder_and_turn_are_checked(service: GameService) -> None:
    pk = await two_player_game(service)
    with pytest.raises(NotAllowed, match="belongs to Ann"):
        await service.apply(pk, "red", {"type": "bank"}, 0, BOB)
    with pytest.raises(NotAllowed, match="not blue's turn; waiting for red"):
        await service.apply(pk, "blue", {"type": "bank"}, 0, BOB)
    with pytest.raises(NotAllowed, match="no role 'green'"):
        await service.apply(pk, "green", {"type": "bank"}, 0, BOB)


async def test_rule_error_passes_through_and_writes_nothing(service: GameService, db_path: Path) -> None:
    pk = await two_player_game(service)
    outbox_before = rows(db_path, "SELECT count(*) FROM outbox")[0][0]
    with pytest.raises(RuleError) as caught:
        await service.apply(pk, "red", {"type": "add", "n": 3}, 0, ANN)
    assert caught.value.rule == "2"
    assert "add 1" in caught.value.explain(), "the engine's own explanation, unchanged"
    assert rows(db_path, "SELECT count(*) FROM move")[0][0] == 0
    assert rows(db_path, "SELECT version FROM game WHERE id=?", pk)[0][0] == 0
    assert rows(db_path, "SELECT count(*) FROM outbox")[0][0] == outbox_before


@pytest.fixture
def boom_game() -> Iterator[None]:
    yield from registered_boom()


async def test_a_crash_mid_command_leaves_no_move_no_state_no_outbox(service: GameService, db_path: Path,
                                                                      boom_game: None) -> None:
    info = await service.create_game("boom", {}, seed=5, channel_id=900)
    await service.join(info.id, ANN, "Ann")
    await service.join(info.id, BOB, "Bob")
    await service.start(info.id)
    await service.apply(info.id, "red", {"type": "add", "n": 1}, 0, ANN)
    before = {t: rows(db_path, f"SELECT * FROM {t} ORDER BY 1") for t in ("game", "game_state", "move", "outbox")}
    with pytest.raises(RuntimeError, match="engine crashed"):
        await service.apply(info.id, "red", {"type": "add", "n": 2}, 1, ANN)
    after = {t: rows(db_path, f"SELECT * FROM {t} ORDER BY 1") for t in ("game", "game_state", "move", "outbox")}
    assert after == before
    # and the service still works on the stored state
    step = await service.apply(info.id, "red", {"type": "add", "n": 1}, 1, ANN)
    assert step.version == 2


async def test_concurrent_orders_on_the_same_version_one_wins(db_path: Path) -> None:
    first, second = GameService.open(sqlite_url(db_path)), GameService.open(sqlite_url(db_path))
    try:
        pk = await two_player_game(first)
        outcomes = await asyncio.gather(
            first.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN),
            second.apply(pk, "red", {"type": "add", "n": 2}, 0, ANN),
            return_exceptions=True,
        )
        stale = [o for o in outcomes if isinstance(o, StaleVersion)]
        done = [o for o in outcomes if not isinstance(o, BaseException)]
        assert len(stale) == 1 and len(done) == 1, outcomes
        assert rows(db_path, "SELECT count(*) FROM move WHERE game_pk=?", pk)[0][0] == 1
        assert (await second.replay_check(pk)).ok
    finally:
        await first.close()
        await second.close()


async def test_front_end_transactions_queue_with_the_service_writers(db_path: Path) -> None:
    """A front end's own rows (here the Discord front end's) are written through
    ``writing()``: it commits or rolls back as a whole, and a command arriving meanwhile waits
    its turn instead of failing with "database is locked" (the busy timeout is tiny here)."""
    from bot.models import DiscordUser

    service = GameService.open(sqlite_url(db_path), busy_timeout_ms=20)
    try:
        pk = await two_player_game(service)
        with pytest.raises(RuntimeError):
            async with service.writing() as session:
                session.add(DiscordUser(user_id=ANN))
                await session.flush()
                raise RuntimeError("the front end failed mid-way")

        async def bookkeeping() -> None:
            async with service.writing() as session:
                session.add(DiscordUser(user_id=BOB))
                await session.flush()
                await asyncio.sleep(0.3)  # holds SQLite's write lock well past the busy timeout

        held = asyncio.create_task(bookkeeping())
        await asyncio.sleep(0.05)
        step = await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
        await held
        assert step.version == 1
        async with service.reading() as session:
            assert await session.get(DiscordUser, BOB) is not None
            assert await session.get(DiscordUser, ANN) is None
    finally:
        await service.close()


async def test_moves_since_a_version(service: GameService) -> None:
    pk = await two_player_game(service)
    for version, n in enumerate((1, 2, 1)):
        await service.apply(pk, "red", {"type": "add", "n": n}, version, ANN)
    assert [m["seq"] for m in await service.moves(pk)] == [1, 2, 3]
    later = await service.moves(pk, since=1)
    assert [(m["seq"], m["action"]) for m in later] == [(2, {"type": "add", "n": 2}), (3, {"type": "add", "n": 1})]
    assert await service.moves(pk, since=3) == []


# ----------------------------------------------------------------------------- notifications


async def test_outbox_rows_follow_each_step_and_hide_private_lines(service: GameService) -> None:
    pk = await two_player_game(service)
    start_rows = await service.outbox(pk)
    assert [(o.kind, o.recipient, o.payload["type"]) for o in start_rows] == [
        ("channel", "900", "started"), ("dm", str(ANN), "your_turn")]
    assert start_rows[0].payload["lines"] == ["The race begins."], "setup's private draws stay out"
    await service.apply(pk, "red", {"type": "draw"}, 0, ANN)
    draw_rows = (await service.outbox(pk))[2:]
    assert [(o.kind, o.payload["type"], o.payload.get("lines")) for o in draw_rows] == [
        ("channel", "log", ["red draws a card."]), ("dm", "your_turn", None)]
    # red must act again: its next prompt is a row of the step too (lost to no crash)
    assert draw_rows[1].recipient == str(ANN)
    assert draw_rows[1].payload == {"type": "your_turn", "game": pk, "role": "red", "version": 1}
    await service.apply(pk, "red", {"type": "bank"}, 1, ANN)
    bank_rows = (await service.outbox(pk))[4:]
    assert [(o.kind, o.recipient, o.payload["type"]) for o in bank_rows] == [
        ("channel", "900", "log"), ("dm", str(BOB), "your_turn")]
    assert bank_rows[1].payload == {"type": "your_turn", "game": pk, "role": "blue", "version": 2}
    for row in await service.outbox(pk):
        if row.kind == "channel":
            assert not any("You draw" in line for line in row.payload.get("lines", [])), row


async def test_finished_game_notifies_channel_and_players(service: GameService) -> None:
    pk = await two_player_game(service, target=5)
    version = 0
    for action in ({"type": "add", "n": 2}, {"type": "add", "n": 2}, {"type": "add", "n": 1}, {"type": "bank"}):
        step = await service.apply(pk, "red", action, version, ANN)
        version = step.version
    assert step.finished and step.result == {"winner": "red", "reason": "red reached 5",
                                             "score": {"red": 5, "blue": 0}}
    info = await service.game(pk)
    assert info.status == "finished" and info.result == step.result and info.active == []
    finished = [(o.kind, o.recipient) for o in await service.outbox(pk) if o.payload["type"] == "finished"]
    assert finished == [("channel", "900"), ("dm", str(ANN)), ("dm", str(BOB))]
    with pytest.raises(NotAllowed, match="is over"):
        await service.apply(pk, "blue", {"type": "bank"}, version, BOB)


async def test_no_channel_no_channel_rows(service: GameService) -> None:
    pk = await two_player_game(service, channel=None)
    await service.apply(pk, "red", {"type": "bank"}, 0, ANN)
    assert {o.kind for o in await service.outbox(pk)} == {"dm"}


async def test_outbox_claims_are_exclusive_and_retried(service: GameService) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "bank"}, 0, ANN)
    total = len(await service.outbox(pk, pending_only=True))
    first = await service.claim_outbox("worker-a", limit=2)
    second = await service.claim_outbox("worker-b", limit=100)
    assert len(first) == 2 and len(second) == total - 2
    assert not {o.id for o in first} & {o.id for o in second}
    assert await service.claim_outbox("worker-c") == []
    assert await service.mark_sent(first[0].id, "worker-a")
    assert not await service.mark_sent(first[1].id, "worker-b"), "only the claimer may settle a row"
    assert await service.mark_failed(first[1].id, "worker-a", "HTTP 503", retry_in_seconds=0)
    retried = await service.claim_outbox("worker-c")
    assert [o.id for o in retried] == [first[1].id] and retried[0].attempts == 1
    # a dead worker's claim expires
    assert [o.id for o in await service.claim_outbox("worker-d", limit=100, lease_seconds=0)] != []
    pending = await service.outbox(pk, pending_only=True)
    assert first[0].id not in {o.id for o in pending}


# ----------------------------------------------------------------------------- undo


async def test_undo_own_steps_back_to_the_turn_start(service: GameService, db_path: Path) -> None:
    pk = await two_player_game(service)
    _, initial = await service.state(pk)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    await service.apply(pk, "red", {"type": "add", "n": 2}, 1, ANN)
    assert await service.can_undo(pk, "red") is None
    step = await service.undo(pk, "red", 2, ANN)
    assert step.kind == "undo" and step.version == 3
    assert (await service.state(pk))[1]["pending"] == 1
    await service.undo(pk, "red", 3, ANN)
    assert (await service.state(pk))[1] == initial
    with pytest.raises(UndoRefused, match="nothing to take back"):
        await service.undo(pk, "red", 4, ANN)
    log = rows(db_path, "SELECT seq, kind, undoes_seq FROM move WHERE game_pk=? ORDER BY seq", pk)
    assert log == [(1, "step", None), (2, "step", None), (3, "undo", 2), (4, "undo", 1)], "append-only"
    assert (await service.replay_check(pk)).ok
    notices = [o.payload for o in await service.outbox(pk) if o.payload["type"] == "undo"]
    assert [n["lines"] for n in notices] == [["Red takes back a step."]] * 2


async def test_undo_refused_after_a_random_draw(service: GameService) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    step = await service.apply(pk, "red", {"type": "draw"}, 1, ANN)
    assert step.barrier
    with pytest.raises(UndoRefused, match="drew at random or revealed"):
        await service.undo(pk, "red", 2, ANN)
    await service.apply(pk, "red", {"type": "add", "n": 2}, 2, ANN)
    await service.undo(pk, "red", 3, ANN)
    with pytest.raises(UndoRefused, match="drew at random or revealed"):
        await service.undo(pk, "red", 4, ANN)


async def test_undo_refused_after_a_reveal(service: GameService) -> None:
    pk = await two_player_game(service)
    _, state = await service.state(pk)
    card = state["hands"]["red"][0]
    step = await service.apply(pk, "red", {"type": "show", "card": card}, 0, ANN)
    assert step.barrier, "a reveal without any draw is a barrier too"
    _, after = await service.state(pk)
    assert after["rng"] == state["rng"]
    with pytest.raises(UndoRefused, match="revealed"):
        await service.undo(pk, "red", 1, ANN)


async def test_undo_refused_after_the_opponent_acted(service: GameService) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    await service.apply(pk, "red", {"type": "bank"}, 1, ANN)
    await service.apply(pk, "blue", {"type": "add", "n": 2}, 2, BOB)
    with pytest.raises(UndoRefused, match="blue has acted since"):
        await service.undo(pk, "red", 3, ANN)
    assert "blue has acted since" in str(await service.can_undo(pk, "red"))
    with pytest.raises(NotAllowed, match="belongs to Bob"):
        await service.undo(pk, "blue", 3, ANN)
    # Once blue takes his step back, red's bank is the last step standing again.
    await service.undo(pk, "blue", 3, BOB)
    await service.undo(pk, "red", 4, ANN)
    version, state = await service.state(pk)
    assert state["turn"] == "red" and state["pending"] == 1 and state["score"]["red"] == 0
    assert (await service.view(pk, "red", ANN)).can_undo
    assert (await service.replay_check(pk)).ok


async def test_undo_with_stale_version_is_refused(service: GameService) -> None:
    pk = await two_player_game(service)
    await service.apply(pk, "red", {"type": "add", "n": 1}, 0, ANN)
    with pytest.raises(StaleVersion):
        await service.undo(pk, "red", 0, ANN)


# ----------------------------------------------------------------------------- views


async def test_views_hide_what_a_role_may_not_see(service: GameService) -> None:
    pk = await two_player_game(service)
    _, state = await service.state(pk)
    red_card = state["hands"]["red"][0]
    red = await service.view(pk, "red", ANN)
    assert red.view["hand"] == [red_card]
    assert any(e["text"] == f"You draw a {red_card}." for e in red.view["log"])
    spectator = await service.view(pk, None)
    assert spectator.view["hand"] is None and all("to" not in e for e in spectator.view["log"])
    assert spectator.view["actions"] == []
    with pytest.raises(NotAllowed, match="do not hold the red seat"):
        await service.view(pk, "red", BOB)
    red.view["hand"].append(99)  # a front end scribbling on its copy must not reach the service
    assert (await service.view(pk, "red", ANN)).view["hand"] == [red_card]


# ----------------------------------------------------------------------------- built-in player


async def test_bots_move_until_a_human_must_act(service: GameService) -> None:
    info = await service.create_game("toy", {}, seed=11)
    await service.join(info.id, ANN, "Ann", "blue")
    await service.start(info.id, fill_with_bots=True)
    assert await service.waiting_for_bots() == [info.id]
    steps = await service.play_bots(info.id)
    assert steps and all(s.role == "red" for s in steps)
    assert steps[-1].active == ["blue"] or steps[-1].finished
    assert await service.waiting_for_bots() == []
    assert await service.play_bots(info.id) == []
    with pytest.raises(NotAllowed, match="built-in player holds the red seat"):
        await service.apply(info.id, "red", {"type": "bank"}, steps[-1].version, None)


async def test_bots_play_a_whole_game_deterministically(db_path: Path, tmp_path: Path) -> None:
    results = []
    for path in (db_path, migrated_sqlite(tmp_path / "other.db")):
        service = GameService.open(sqlite_url(path))
        info = await service.create_game("toy", {}, seed=4)
        await service.start(info.id, fill_with_bots=True)
        await service.play_bots(info.id)
        results.append(((await service.game(info.id)).result, (await service.export(info.id))["moves"]))
        await service.close()
    assert results[0][0] is not None
    assert results[0] == results[1]


# ----------------------------------------------------------------------------- resign, abort


async def test_resign_in_a_two_player_game(service: GameService) -> None:
    pk = await two_player_game(service)
    info = await service.resign(pk, "blue", BOB)
    assert info.status == "finished" and info.result is not None and info.result["winner"] == "red"
    kinds = [o.payload["type"] for o in await service.outbox(pk)]
    assert "resigned" in kinds and "finished" in kinds


async def test_forfeit_ends_the_game_with_its_reason(service: GameService) -> None:
    pk = await two_player_game(service)
    info = await service.forfeit(pk, "blue", reason="blue ran out of time")
    assert info.status == "finished"
    assert info.result == {"winner": "red", "reason": "blue ran out of time", "score": {}}
    resigned = [o.payload for o in await service.outbox(pk) if o.payload["type"] == "resigned"]
    assert resigned and resigned[0]["reason"] == "blue ran out of time"
    with pytest.raises(NotAllowed):
        await service.forfeit(pk, "red", reason="too late: the game is over")


async def test_substitute_hands_a_seat_to_another_player(service: GameService) -> None:
    pk = await two_player_game(service)
    newcomer = 999
    info = await service.substitute(pk, "blue", newcomer, "Cleo")
    assert info.status == "running"
    version, _ = await service.state(pk)
    step = await service.apply(pk, "red", {"type": "bank"}, version, ANN)  # red opens; now blue's turn
    with pytest.raises(NotAllowed, match="belongs to Cleo"):
        await service.apply(pk, "blue", {"type": "bank"}, step.version, BOB)
    after = await service.apply(pk, "blue", {"type": "bank"}, step.version, newcomer)
    assert after.version == step.version + 1
    assert [m["user_id"] for m in await service.moves(pk)][-1] == newcomer
    with pytest.raises(NotAllowed, match="no role"):
        await service.substitute(pk, "green", newcomer, "Cleo")
    with pytest.raises(NotAllowed, match="already holds"):
        await service.substitute(pk, "blue", newcomer, "Cleo")
    notices = [(o.kind, o.recipient, o.payload) for o in await service.outbox(pk)
               if o.dedupe_key.startswith(f"g{pk}:v0:seat:blue:u{newcomer}")]
    assert [(kind, payload.get("lines")) for kind, _, payload in notices] == [
        ("channel", ["Cleo takes over the blue seat."])], "blue was not to act: no prompt row"


async def test_substitute_for_the_seat_to_act_prompts_the_newcomer_through_the_outbox(service: GameService) -> None:
    pk = await two_player_game(service)
    assert (await service.game(pk)).active == ["red"]
    await service.substitute(pk, "red", 999, "Cleo")
    rows = {o.dedupe_key: (o.kind, o.recipient, o.payload["type"]) for o in await service.outbox(pk)
            if ":seat:red:u999" in o.dedupe_key}
    assert rows == {f"g{pk}:v0:seat:red:u999:channel": ("channel", "900", "log"),
                    f"g{pk}:v0:seat:red:u999:turn": ("dm", "999", "your_turn")}


async def test_abort(service: GameService) -> None:
    pk = await two_player_game(service)
    info = await service.abort(pk, "nobody came back")
    assert info.status == "aborted" and info.result == {"winner": None, "reason": "nobody came back", "score": {}}
    with pytest.raises(NotAllowed, match="abandoned"):
        await service.apply(pk, "red", {"type": "bank"}, 0, ANN)


# ----------------------------------------------------------------------------- export, import, replay


async def played_game(service: GameService) -> int:
    """A game with steps, undos and draws, played to its end."""
    pk = await two_player_game(service, target=8)
    version = 0
    plan: list[tuple[str, Any]] = [("red", {"type": "add", "n": 2}), ("red", "undo"), ("red", {"type": "draw"}),
            ("red", {"type": "add", "n": 1}), ("red", {"type": "bank"}), ("blue", {"type": "add", "n": 2}),
            ("blue", {"type": "add", "n": 2}), ("blue", "undo"), ("blue", {"type": "bank"})]
    users = {"red": ANN, "blue": BOB}
    for role, action in plan:
        if action == "undo":
            step = await service.undo(pk, role, version, users[role])
        else:
            step = await service.apply(pk, role, action, version, users[role])
        version = step.version
    while True:
        info = await service.game(pk)
        if info.status == "finished":
            return pk
        role = info.active[0]
        step = await service.apply(pk, role, {"type": "add", "n": 2}, version, users[role])
        step = await service.apply(pk, role, {"type": "bank"}, step.version, users[role])
        version = step.version


async def test_export_shape_leaves_out_taken_back_steps(service: GameService) -> None:
    pk = await played_game(service)
    data = await service.export(pk)
    assert data["format"] == 1 and data["game"] == "toy" and data["seed"] == 7
    assert data["options"] == {"target": 8} and data["status"] == "finished"
    assert data["players"] == [{"role": "red", "name": "Ann", "bot": False},
                               {"role": "blue", "name": "Bob", "bot": False}]
    seqs = [m["seq"] for m in data["moves"]]
    assert seqs[:5] == [3, 4, 5, 6, 9], "steps 1 and 7 were taken back; undo rows 2 and 8 are left out"
    assert all(set(m) == {"seq", "role", "action", "hash"} for m in data["moves"])
    assert data["moves"][0] == {"seq": 3, "role": "red", "action": {"type": "draw"}, "hash": data["moves"][0]["hash"]}


async def test_import_replays_to_the_same_state(service: GameService) -> None:
    pk = await played_game(service)
    data = await service.export(pk)
    new_pk = await service.import_game(data)
    assert new_pk != pk
    assert (await service.state(new_pk))[1] == (await service.state(pk))[1]
    info = await service.game(new_pk)
    assert info.status == "finished" and info.result == (await service.game(pk)).result
    assert [s.display_name for s in info.seats] == ["Ann", "Bob"]
    assert (await service.replay_check(new_pk)).ok
    again = await service.export(new_pk)
    assert [m["action"] for m in again["moves"]] == [m["action"] for m in data["moves"]]
    assert again["state_hash"] == data["state_hash"]


async def test_replay_check_of_a_file(service: GameService) -> None:
    pk = await played_game(service)
    data = await service.export(pk)
    report = await service.replay_check(data)
    assert report.ok and report.moves == len(data["moves"])


async def test_hand_edited_illegal_move_is_named(service: GameService) -> None:
    pk = await played_game(service)
    data = await service.export(pk)
    bad = data["moves"][3]
    bad["action"] = {"type": "add", "n": 5}
    report = await service.replay_check(data)
    assert not report.ok and report.seq == bad["seq"]
    assert f"move {bad['seq']} ({bad['role']}" in report.message and "not a legal order" in report.message
    with pytest.raises(ImportRefused) as caught:
        await service.import_game(data)
    assert caught.value.seq == bad["seq"]
    assert len(await service.games()) == 1, "a refused file stores nothing"


async def test_hand_edited_legal_but_different_move_is_named(service: GameService) -> None:
    pk = await played_game(service)
    data = await service.export(pk)
    changed = next(m for m in data["moves"] if m["action"] == {"type": "add", "n": 2})
    changed["action"] = {"type": "add", "n": 1}
    report = await service.replay_check(data)
    assert not report.ok and report.seq == changed["seq"]
    assert "does not lead to the state recorded" in report.message


async def test_file_moves_out_of_turn_and_after_the_end_are_named(service: GameService) -> None:
    pk = await played_game(service)
    data = await service.export(pk)
    data["moves"][1]["role"] = "blue"
    report = await service.replay_check(data)
    assert not report.ok and report.seq == data["moves"][1]["seq"] and "not blue's turn" in report.message
    data = await service.export(pk)
    data["moves"].append({"seq": 999, "role": "red", "action": {"type": "bank"}})
    report = await service.replay_check(data)
    assert not report.ok and report.seq == 999 and "after the end of the game" in report.message


async def test_bad_headers_are_refused(service: GameService) -> None:
    for data, message in (([], "JSON object"), ({"format": 2}, "format 2"),
                          ({"format": 1, "game": "chess"}, "Unknown game 'chess'"),
                          ({"format": 1, "game": "toy", "seed": "x"}, "seed"),
                          ({"format": 1, "game": "toy", "seed": 1, "moves": {}}, "moves must be a list")):
        with pytest.raises(ImportRefused, match=message):
            await service.import_game(data)  # type: ignore[arg-type]


async def test_replay_check_of_a_tampered_database_names_the_move(service: GameService, db_path: Path) -> None:
    pk = await played_game(service)
    assert (await service.replay_check(pk)).ok
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE move SET action=? WHERE game_pk=? AND seq=5", ('{"n":2,"type":"add"}', pk))
    report = await service.replay_check(pk)
    assert not report.ok and report.seq == 5 and "move 5 (red, step)" in report.message


async def test_replay_check_notices_a_tampered_snapshot(service: GameService, db_path: Path) -> None:
    pk = await played_game(service)
    with sqlite3.connect(db_path) as conn:
        text = conn.execute("SELECT state FROM game_state WHERE game_pk=?", (pk,)).fetchone()[0]
        conn.execute("UPDATE game_state SET state=? WHERE game_pk=?", (text.replace('"target":8', '"target":9'), pk))
    fresh = GameService.open(sqlite_url(db_path))
    try:
        report = await fresh.replay_check(pk)
    finally:
        await fresh.close()
    assert not report.ok and "different state from the stored one" in report.message


async def test_option_types_are_checked(service: GameService) -> None:
    typed = types.SimpleNamespace(**{k: getattr(toygame, k) for k in (
        "title", "roles", "setup", "active", "actions", "apply", "view", "result", "redeal")})
    typed.id = "typed"
    typed.OPTIONS = {"advanced": {"type": "bool", "default": False}, "rounds": {"type": "int", "default": 3}}
    engine.GAMES["typed"] = typed
    try:
        info = await service.create_game("typed", {"advanced": True})
        assert info.options == {"advanced": True, "rounds": 3}
        with pytest.raises(ServiceError, match="Option advanced must be a bool, not 'yes'"):
            await service.create_game("typed", {"advanced": "yes"})
        with pytest.raises(ServiceError, match="Option rounds must be an int, not True"):
            await service.create_game("typed", {"rounds": True})
    finally:
        engine.GAMES.pop("typed", None)


async def test_resign_with_more_than_two_roles_hands_the_seat_to_the_built_in_player(service: GameService) -> None:
    trio = types.SimpleNamespace(**{k: getattr(toygame, k) for k in (
        "title", "OPTIONS", "setup", "active", "actions", "apply", "view", "result", "redeal")})
    trio.id = "trio"
    trio.roles = lambda options: ["red", "blue", "green"]
    engine.GAMES["trio"] = trio
    try:
        info = await service.create_game("trio", {}, seed=1, channel_id=900)
        for user, name in ((ANN, "Ann"), (BOB, "Bob"), (EVE, "Eve")):
            await service.join(info.id, user, name)
        await service.start(info.id)
        after = await service.resign(info.id, "green", EVE)
        after = await service.resign(info.id, "blue", BOB)
        assert after.status == "running"
        assert [(s.role, s.is_bot, s.user_id) for s in after.seats] == [
            ("red", False, ANN), ("blue", True, None), ("green", True, None)]
        notices = [o.payload for o in await service.outbox(info.id) if o.payload["type"] == "resigned"]
        assert [n["role"] for n in notices] == ["green", "blue"]
        assert notices[0]["lines"] == ["green resigns; the built-in player takes over."]
    finally:
        engine.GAMES.pop("trio", None)
