"""``/tournament`` through the real bot and the Discord stand-in (issue 29): an 8-player Swiss
of 1212 over three rounds, its games ended by resignations in their threads; pairings,
standings and tie-breaks against the hand-worked values of tests/bot/test_pairing.py; the
refusals, ephemeral and with the reason."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest

from bot.service import GameService
from bot.service.tournaments import Table
from tests.bot.discord.conftest import Clock, Harness, components, png_ok


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 60.0) -> None:
    for _ in range(int(timeout * 10)):
        if await check():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def lobbies_first(h: Harness, svc: GameService, tables: list[Table], round_no: int) -> None:
    """Each table's thread opens with its lobby message, before the "begins" line of its start;
    the lobby names the game as the tournament's round (it has no creator)."""
    for t in tables:
        game = await svc.game(t.game_pk or 0)

        async def both(thread: int = game.thread_id or 0) -> bool:
            texts = [m.content for m in h.si.channel_messages(thread)]
            return any("Seats:" in c for c in texts) and any("begins." in c for c in texts)

        await until(both, f"the lobby and the start of game #{game.id}")
        first = h.si.channel_messages(game.thread_id or 0)[0]
        assert first.content.startswith(f"**{game.title} #{game.id}** — tournament #1, round {round_no}\n"), \
            first.content
        assert "Seats:" in first.content and first.components == []


def answer(h: Harness, inter: object) -> str:
    msg = h.answers(inter)[-1]  # type: ignore[arg-type]
    assert msg.ephemeral, msg.content
    return msg.content


async def test_an_eight_player_swiss_of_1212(table: Harness) -> None:
    h = table
    people = [h.alice, h.bob, h.carol, h.mod]
    for name in ("dave", "erin", "fred", "gina"):
        user = h.si.add_user(name)
        h.si.add_member(h.guild, user)
        people.append(user)
    number = {user: i + 1 for i, user in enumerate(people)}  # sign-up order = the hand-worked players 1..8

    refused = answer(h, await h.cmd(h.alice, "tournament new", game="granada_city", format="swiss", rounds=3))
    assert refused.startswith("swiss pairs two players; Granada")
    opened = answer(h, await h.cmd(h.alice, "tournament new", game="navas", format="swiss", rounds=3, pace="7d"))
    assert opened.startswith("Tournament #1 is open for sign-up")
    thread = h.si.threads(h.channel)[-1].id
    signup = h.si.channel_messages(thread)[0]
    join = next(c["custom_id"] for c in components(signup) if c["label"] == "Join")
    for user in people:
        await h.settle(await h.si.click(user, signup.id, join))
    again = await h.si.click(h.bob, signup.id, join)
    await h.settle(again)
    assert answer(h, again) == "You are signed up for tournament #1 already."
    assert "Players (8): alice, bob, carol, mod, dave, erin, fred, gina" in h.si.messages[signup.id].content

    assert answer(h, await h.cmd(h.bob, "tournament start", tournament=1)) == \
        "Only the tournament's creator or a server manager can start it."
    assert answer(h, await h.cmd(h.alice, "tournament start", tournament=1)).startswith(
        "Tournament #1 has started: round 1 of 3.")
    assert not components(h.si.messages[signup.id])  # sign-up closed: the buttons are gone
    assert answer(h, await h.cmd(h.mod, "tournament start", tournament=1)) == "Tournament #1 has started already."
    outsider = h.si.add_user("hal")
    h.si.add_member(h.guild, outsider)
    assert answer(h, await h.cmd(outsider, "tournament withdraw", tournament=1)) == \
        "You are not playing in tournament #1."

    svc = GameService.open(h.settings.db_url)
    try:
        results = {1: {1, 4, 5, 8}, 2: {4, 5, 2, 7}, 3: {5, 1, 2, 6}}  # who wins each round (hand-worked)
        expected_pairs = {1: [[1, 2], [3, 4], [5, 6], [7, 8]], 2: [[4, 1], [8, 5], [2, 3], [6, 7]],
                          3: [[5, 4], [1, 8], [7, 2], [3, 6]]}
        for round_no in (1, 2, 3):
            async def opened_round(r: int = round_no) -> bool:
                tables = await svc.tables(1, r)
                games = [await svc.game(t.game_pk or 0) for t in tables]
                return bool(tables) and all(g.status == "running" and g.thread_id for g in games)

            await until(opened_round, f"round {round_no}'s games running in their threads")
            tables = await svc.tables(1, round_no)
            assert [[number[u] for u in t.players] for t in tables] == expected_pairs[round_no]
            if round_no == 1:
                await lobbies_first(h, svc, tables, round_no)
            for t in tables:
                game = await svc.game(t.game_pk or 0)
                assert game.seat("christian").user_id == t.players[0]  # type: ignore[union-attr]
                loser = next(u for u in t.players if number[u] not in results[round_no])
                await h.cmd(loser, "game resign", channel=game.thread_id)

            async def posted(r: int = round_no) -> bool:
                return any(f"standings after round {r}" in m.content or (r == 3 and "final standings" in m.content)
                           for m in h.si.channel_messages(thread))

            await until(posted, f"the standings of round {round_no}")
    finally:
        await svc.close()

    final = next(m for m in h.si.channel_messages(thread) if "final standings" in m.content)
    lines = final.content.splitlines()[1:9]
    # 5: 3 points. 1, 4, 2: 2 points; Buchholz 1: 2 + 2 + 1 = 5, 4: 0 + 2 + 3 = 5, 2: 2 + 0 + 1 = 3;
    # Sonneborn-Berger breaks 1 (beat 2 and 8: 2 + 1 = 3) over 4 (beat 3 and 1: 0 + 2 = 2).
    order = [(1, "dave", "3", "4 / 4"), (2, "alice", "2", "5 / 3"), (3, "mod", "2", "5 / 2"),
             (4, "bob", "2", "3 / 1"), (5, "gina", "1", "6 / 1"), (6, "fred", "1", "4 / 1"),
             (7, "erin", "1", "4 / 0"), (8, "carol", "0", "5 / 0")]
    for line, (rank, name, points, breaks) in zip(lines, order, strict=True):
        assert line == f"{rank}. {name} · **{points}** · 3 games · {breaks}", line
    (picture,) = final.files
    png_ok(picture.data)
    assert not any("hand" in m.content.casefold() for m in h.si.channel_messages(thread))

    shown = answer(h, await h.cmd(h.carol, "tournament standings", tournament=1))
    assert shown.splitlines()[1] == "1. dave · **3** · 3 games · 4 / 4"
    assert answer(h, await h.cmd(h.carol, "tournament withdraw", tournament=1)) == \
        "Tournament #1 is not under way."
    assert answer(h, await h.cmd(h.carol, "tournament standings", tournament=7)) == "There is no tournament #7."


@pytest.mark.slow
async def test_seven_players_in_pods_of_dirk_henns_granada(table: Harness) -> None:
    """Tables of 4 and 3, grouped by standing and turned one seat a round. Every player resigns
    (the built-in player finishes the tables): of those who left, the last to leave places
    first, so the results are the order of the resignations."""
    h = table
    people = [h.alice, h.bob, h.carol, h.mod]
    for name in ("dave", "erin", "fred"):
        user = h.si.add_user(name)
        h.si.add_member(h.guild, user)
        people.append(user)
    number = {user: i + 1 for i, user in enumerate(people)}
    by_number = {n: u for u, n in number.items()}
    await h.cmd(h.alice, "tournament new", game="granada_city", format="pods", rounds=2, pace="7d",
                options="players=4")
    thread = h.si.threads(h.channel)[-1].id
    signup = h.si.channel_messages(thread)[0]
    join = next(c["custom_id"] for c in components(signup) if c["label"] == "Join")
    for user in people:
        await h.settle(await h.si.click(user, signup.id, join))
    await h.cmd(h.mod, "tournament start", tournament=1)  # a manager may start it

    svc = GameService.open(h.settings.db_url)
    try:
        # Who resigns when, per round: the last listed leaves last and places first.
        leaving = {1: [[4, 3, 2, 1], [7, 5, 6]], 2: [[5, 6, 2, 1], [3, 4, 7]]}
        expected = {1: [[1, 2, 3, 4], [5, 6, 7]],
                    # After round 1: 1 (1 point), 6 (1), 2 (2/3), 5 (1/2), 3 (1/3), 4 (0, Buchholz 2),
                    # 7 (0, Buchholz 1.5); each table turned one seat.
                    2: [[6, 2, 5, 1], [4, 7, 3]]}
        for round_no in (1, 2):
            async def opened_round(r: int = round_no) -> bool:
                tables = await svc.tables(1, r)
                games = [await svc.game(t.game_pk or 0) for t in tables]
                return bool(tables) and all(g.status == "running" and g.thread_id for g in games)

            await until(opened_round, f"round {round_no}'s games running")
            tables = await svc.tables(1, round_no)
            assert [[number[u] for u in t.players] for t in tables] == expected[round_no]
            for t, order in zip(tables, leaving[round_no], strict=True):
                game = await svc.game(t.game_pk or 0)
                assert [s.user_id for s in game.seats] == t.players and game.options["players"] == len(t.players)
                for n in order:
                    await h.cmd(by_number[n], "game resign", channel=game.thread_id)

            async def posted(r: int = round_no) -> bool:
                return any(f"standings after round {r}" in m.content or (r == 2 and "final standings" in m.content)
                           for m in h.si.channel_messages(thread))

            await until(posted, f"the standings of round {round_no}", timeout=300)
    finally:
        await svc.close()
    final = next(m for m in h.si.channel_messages(thread) if "final standings" in m.content)
    names = {1: "alice", 2: "bob", 3: "carol", 4: "mod", 5: "dave", 6: "erin", 7: "fred"}
    # 1: 2 points; 2 and 6: 4/3 (Buchholz 6.67 against 5.33); 7: 1; 4 and 5: 1/2 (Buchholz 5
    # against 7: 5 first); 3: 1/3.
    ranked = [line.split(". ", 1)[1].split(" · ")[:2] for line in final.content.splitlines()[1:8]]
    assert ranked == [[names[1], "**2**"], [names[2], "**1.33**"], [names[6], "**1.33**"], [names[7], "**1**"],
                      [names[5], "**0.5**"], [names[4], "**0.5**"], [names[3], "**0.33**"]]


@pytest.mark.slow
async def test_a_five_player_round_robin_of_granada(table: Harness) -> None:
    """Granada's basic game, the circle method (a bye each round), decisive results by
    resignation; the three players tied on points are ordered by their games among
    themselves."""
    h = table
    people = [h.alice, h.bob, h.carol, h.mod]
    dave = h.si.add_user("dave")
    h.si.add_member(h.guild, dave)
    people.append(dave)
    number = {user: i + 1 for i, user in enumerate(people)}
    await h.cmd(h.alice, "tournament new", game="granada", format="round_robin", rounds=1, pace="7d")
    thread = h.si.threads(h.channel)[-1].id
    signup = h.si.channel_messages(thread)[0]
    join = next(c["custom_id"] for c in components(signup) if c["label"] == "Join")
    for user in people:
        await h.settle(await h.si.click(user, signup.id, join))
    started = answer(h, await h.cmd(h.alice, "tournament start", tournament=1))
    assert started == "Tournament #1 has started: round 1 of 5."
    schedule = {1: [[5, 2], [3, 4], [1]], 2: [[5, 1], [2, 3], [4]], 3: [[1, 4], [3, 5], [2]],
                4: [[3, 1], [2, 4], [5]], 5: [[1, 2], [4, 5], [3]]}
    winners = {1: {5, 3}, 2: {1, 2}, 3: {4, 5}, 4: {1, 2}, 5: {2, 4}}
    svc = GameService.open(h.settings.db_url)
    try:
        for round_no in range(1, 6):
            async def opened_round(r: int = round_no) -> bool:
                tables = [t for t in await svc.tables(1, r) if t.game_pk]
                games = [await svc.game(t.game_pk or 0) for t in tables]
                return bool(tables) and all(g.status == "running" and g.thread_id for g in games)

            await until(opened_round, f"round {round_no}'s games running")
            tables = await svc.tables(1, round_no)
            assert [[number[u] for u in t.players] for t in tables] == schedule[round_no]
            for t in tables:
                if t.game_pk is None:
                    continue
                game = await svc.game(t.game_pk)
                loser = next(u for u in t.players if number[u] not in winners[round_no])
                await h.cmd(loser, "game resign", channel=game.thread_id)

            async def posted(r: int = round_no) -> bool:
                return any(f"standings after round {r}" in m.content or (r == 5 and "final standings" in m.content)
                           for m in h.si.channel_messages(thread))

            await until(posted, f"the standings of round {round_no}")
    finally:
        await svc.close()
    final = next(m for m in h.si.channel_messages(thread) if "final standings" in m.content)
    # Byes count 1. bob 3 wins + bye = 4. mod, alice, dave: 3 each; among them mod beat alice and
    # dave (2), alice beat dave (1), dave none (0). carol: 1 win + bye = 2.
    assert final.content.splitlines()[1:6] == [
        "1. bob · **4** · 4 games · 0 / 3", "2. mod · **3** · 4 games · 2 / 2", "3. alice · **3** · 4 games · 1 / 2",
        "4. dave · **3** · 4 games · 0 / 2", "5. carol · **2** · 4 games · 0 / 1"]


async def test_a_tournament_starts_at_its_time(clocked_table: Harness, clock: Clock) -> None:
    h = clocked_table
    bad = answer(h, await h.cmd(h.alice, "tournament new", game="navas", format="swiss", rounds=2,
                                starts="tomorrow"))
    assert bad == "starts: give YYYY-MM-DD HH:MM (UTC) or a delay such as 2h or 3d."
    await h.cmd(h.alice, "tournament new", game="navas", format="swiss", rounds=2, starts="in 2h")
    thread = h.si.threads(h.channel)[-1].id
    signup = h.si.channel_messages(thread)[0]
    assert "· starts " in signup.content
    join = next(c["custom_id"] for c in components(signup) if c["label"] == "Join")
    await h.settle(await h.si.click(h.bob, signup.id, join))
    svc = GameService.open(h.settings.db_url)
    try:
        clock.offset += timedelta(hours=2, minutes=1)

        async def told() -> bool:
            return any("could not start at its time" in m.content for m in h.si.channel_messages(thread))

        await until(told, "the note that one player is too few")
        assert (await svc.tournament(1)).status == "signup"
        await h.settle(await h.si.click(h.carol, signup.id, join))
        # Its time is gone: the creator starts it by hand.
        await h.cmd(h.alice, "tournament start", tournament=1)
        assert [t.players for t in await svc.tables(1, 1)] == [[h.bob, h.carol]]
        # A second one, with two players at its time, starts by itself.
        await h.cmd(h.mod, "tournament new", game="navas", format="swiss", rounds=1, starts="30m")
        second = h.si.threads(h.channel)[-1].id
        message = h.si.channel_messages(second)[0]
        for user in (h.alice, h.bob):
            await h.settle(await h.si.click(user, message.id, join.replace(":1:", ":2:")))
        clock.offset += timedelta(minutes=31)

        async def started() -> bool:
            return (await svc.tournament(2)).status == "running"

        await until(started, "the second tournament's start")
        assert [t.players for t in await svc.tables(2, 1)] == [[h.alice, h.bob]]
    finally:
        await svc.close()
