"""Games of more seats (and of one) played through Discord only: Dirk Henn's Granada with
four seats (three people and the built-in player), a resignation in a three-seat game, and
Sabika alone against Yusuf. Every move is a click on a DM prompt; every public message and
picture is checked against what a spectator may know."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import engine
import render
from bot.service import GameService
from engine.api import visible_log
from tests.bot.discord.conftest import Harness, drive, is_dm, move_number, png_ok, replay_states

pytestmark = pytest.mark.slow


async def open_for(h: Harness, game: str, options: str, people: list[int], side: str) -> int:
    """alice opens ``game`` with ``options``; the other ``people`` take a seat each with
    ``/game join``; alice starts it, the built-in player taking the seats left (a game whose
    seats are all taken starts by itself). The thread."""
    await h.cmd(h.alice, "game new", game=game, side=side, pace="live", options=options, seed=3)
    thread = h.si.threads(h.channel)[-1].id
    for user in people:
        join = await h.cmd(user, "game join", channel=thread, game=1)
        assert "You play" in h.answers(join)[-1].content, h.answers(join)[-1].content
    if len(people) + 1 < int(options.removeprefix("players=")):
        start = await h.cmd(h.alice, "game start", channel=thread, game=1, bots=True)
        assert "has started" in h.answers(start)[-1].content, h.answers(start)[-1].content
    return thread


async def exported_game(h: Harness) -> tuple[dict[str, Any], Any]:
    svc = GameService.open(h.settings.db_url)
    try:
        await h.si.wait_quiet(0.5)
        info = await svc.game(1)
        assert (await svc.replay_check(1)).ok
        return await svc.export(1), info
    finally:
        await svc.close()


def drawn(game_id: str, kind: str, state: dict[str, Any], role: str | None) -> set[bytes]:
    """The picture ``kind`` of ``role``'s view of ``state``, drawn from the state the service
    may hold in memory and from the one it reads back from the database (JSON with sorted
    keys): both must be the same one picture (a Sabika view once listed cities in the order of
    the state's keys; engine/check.py now checks every game for it)."""
    module = engine.get(game_id)
    draw = getattr(render.module(game_id), kind)
    read_back = json.loads(json.dumps(state, sort_keys=True))
    pictures = {draw(module.view(state, role)), draw(module.view(read_back, role))}
    assert len(pictures) == 1, f"the {kind} picture of {role or 'a spectator'} depends on the state's key order"
    return pictures


def check_public(h: Harness, game_id: str, states: list[dict[str, Any]]) -> None:
    """Nothing private in public: no private log line in any public text, and every public
    picture is the one drawn from the spectator's view at the move its message names."""
    final = states[-1]
    public_lines = {e["text"] for e in visible_log(final["log"], None)}
    private = {e["text"] for e in final["log"] if "to" in e} - public_lines
    pictures = 0
    for msg in h.si.public_messages():
        for text in msg.texts():
            assert not any(p in text for p in private), text
        for f in msg.files:
            png_ok(f.data)
            kind = f.filename.removesuffix(".png")
            assert f.data in drawn(game_id, kind, states[move_number(msg.content)], None), \
                f"{f.filename} of {msg.content!r} is not the spectator's"
            pictures += 1
    assert pictures >= 2, "the thread showed the board"


def check_dms(h: Harness, game_id: str, states: list[dict[str, Any]], seats: dict[int, str]) -> None:
    """Each player's DMs: his own pictures, never another seat's private lines."""
    final = states[-1]
    for user, role in seats.items():
        dms = h.dm_messages(user)
        assert dms and all(is_dm(h.si, m) for m in dms)
        mine = {e["text"] for e in final["log"] if role in e.get("to", [role])}
        theirs = {e["text"] for e in final["log"] if "to" in e and role not in e["to"]} - mine
        for msg in dms:
            assert not any(t in msg.content for t in theirs)
        m, f = next((m, f) for m in dms for f in m.files if f.filename == "board.png")
        png_ok(f.data)
        assert f.data in drawn(game_id, "board", states[move_number(m.content)], role)


async def test_a_whole_game_of_granada_city_with_four_seats(table: Harness, rng: random.Random) -> None:
    h = table
    thread = await open_for(h, "granada_city", "players=4", [h.bob, h.carol], side="red")
    svc = GameService.open(h.settings.db_url)
    try:
        info = await svc.game(1)
    finally:
        await svc.close()
    assert info.roles == ["red", "blue", "green", "yellow"]
    seats = {s.user_id: s.role for s in info.seats if s.user_id is not None}
    assert seats[h.alice] == "red" and len(seats) == 3
    assert len([s for s in info.seats if s.is_bot]) == 1, "the seat left free went to the built-in player"

    await drive(h, 1, rng, max_steps=3000)
    await h.si.wait_message(lambda m: m.channel_id == thread and "🏁" in m.content, timeout=30)
    exported, info = await exported_game(h)
    assert info.status == "finished" and info.result is not None
    states = replay_states(exported)
    movers = {m["role"] for m in exported["moves"]}
    assert movers == {"red", "blue", "green", "yellow"}, "every seat played, the built-in one too"
    assert h.si.violations == []
    posts = h.si.channel_messages(thread)
    posted = {line[2:] for m in posts if m.content.startswith("• ") for line in m.content.split("\n")}
    assert {e["text"] for e in visible_log(states[-1]["log"], None)} <= posted
    check_public(h, "granada_city", states)
    check_dms(h, "granada_city", states, seats)
    for user in seats:
        assert any("is over" in m.content for m in h.dm_messages(user))


async def test_resign_in_a_three_seat_game_hands_the_seat_to_the_built_in_player(table: Harness) -> None:
    h = table
    thread = await open_for(h, "granada_city", "players=3", [h.bob, h.carol], side="red")
    svc = GameService.open(h.settings.db_url)
    try:
        before = await svc.game(1)
        bob_role = before.roles_of(h.bob)[0]
        gave_up = await h.cmd(h.bob, "game resign", channel=thread, game=1)
        assert "You resigned" in h.answers(gave_up)[-1].content
        await h.si.wait_message(lambda m: m.channel_id == thread and "built-in player takes over" in m.content,
                                timeout=20)
        info = await svc.game(1)
        assert info.status == "running"
        seat = info.seat(bob_role)
        assert seat is not None and seat.is_bot and seat.user_id is None
        # The others are told, each in his DMs; bob is not a player any more.
        for user in (h.alice, h.carol):
            await h.si.wait_message(lambda m, u=user: is_dm(h.si, m) and m.channel_id == h.si.dm_channel(u).id
                                    and f"{bob_role} resigns" in m.content and "built-in player" in m.content,
                                    timeout=20)
        assert info.roles_of(h.bob) == []
        # The game goes on: the others click on until the resigned seat's turn, which the
        # built-in player takes.
        module = engine.get("granada_city")
        # The built-in player may take that turn within the click that brought it, before the
        # drive looks again: stop at the turn, or at the first move it made.
        took: list[bool] = []

        async def note(_info: Any, _role: str, _inter: Any) -> None:
            if not took and any(m["role"] == bob_role and m["seq"] > before.version for m in await svc.moves(1)):
                took.append(True)

        await drive(h, 1, random.Random(7), until=lambda state: bool(took) or bob_role in module.active(state),
                    max_steps=200, on_step=note)
        moved: list[dict[str, Any]] = []
        for _ in range(200):
            moved = [m for m in await svc.moves(1) if m["role"] == bob_role and m["seq"] > before.version]
            if moved:
                break
            await h.si.wait_quiet(0.1)
        assert moved, "the built-in player took the resigned seat's turn"
    finally:
        await svc.close()
    assert h.si.violations == []


async def test_a_solo_game_of_sabika_against_yusuf(table: Harness, rng: random.Random) -> None:
    h = table
    await h.cmd(h.alice, "game new", game="sabika", options="players=1", pace="live", seed=5)
    thread = h.si.threads(h.channel)[-1].id
    svc = GameService.open(h.settings.db_url)
    try:
        info = await svc.game(1)
    finally:
        await svc.close()
    assert info.status == "running", "one seat: the game starts with its creator, nobody to wait for"
    assert info.roles == ["blue"] and info.seat("blue").user_id == h.alice  # type: ignore[union-attr]
    clicks = await drive(h, 1, rng)
    await h.si.wait_message(lambda m: m.channel_id == thread and "🏁" in m.content, timeout=30)
    exported, info = await exported_game(h)
    assert info.status == "finished" and info.result is not None
    chosen = [m for m in exported["moves"] if not m["action"].get("automatic")]
    assert clicks >= len(chosen), "a click for each step but those the player had no choice in"
    assert {m["role"] for m in exported["moves"]} == {"blue"}
    states = replay_states(exported)
    final_log = [e["text"] for e in visible_log(states[-1]["log"], None)]
    yusuf = [t for t in final_log if "Yusuf" in t]
    assert len(yusuf) >= 5, "Yusuf's turns are logged"
    posts = h.si.channel_messages(thread)
    posted = {line[2:] for m in posts if m.content.startswith("• ") for line in m.content.split("\n")}
    assert set(yusuf) <= posted, "and shown in the thread"
    assert h.si.violations == []
    check_public(h, "sabika", states)
    check_dms(h, "sabika", states, {h.alice: "blue"})


async def test_resigning_a_solo_game_ends_it_unwon(table: Harness) -> None:
    """One seat: nobody is left to win and no seat is handed to the built-in player."""
    h = table
    await h.cmd(h.alice, "game new", game="sabika", options="players=1", pace="live", seed=5)
    thread = h.si.threads(h.channel)[-1].id
    gave_up = await h.cmd(h.alice, "game resign", channel=thread, game=1)
    assert "You resigned" in h.answers(gave_up)[-1].content
    await h.si.wait_message(lambda m: m.channel_id == thread and "🏁 No winner: blue resigned" in m.content,
                            timeout=20)
    svc = GameService.open(h.settings.db_url)
    try:
        info = await svc.game(1)
    finally:
        await svc.close()
    assert info.status == "finished" and info.result is not None and info.result["winner"] is None
    assert not info.seats[0].is_bot
    assert h.si.violations == []
