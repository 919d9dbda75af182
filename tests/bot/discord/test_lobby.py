"""``/game``: opening, joining, starting, listing, ending and rematching games, through the
real bot and the stand-in (the toy race stands in for a rules engine: it is fast)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.models import utcnow
from bot.service import GameService
from tests.bot.discord.conftest import Harness, components, delivered
from tests.standin.server import AUTOCOMPLETE_RESULT, DEFERRED_CHANNEL_MESSAGE, PUBLIC_THREAD


def texts(h: Harness, channel: int) -> list[str]:
    return [m.content for m in h.si.channel_messages(channel)]


async def open_toy(h: Harness, **options: object) -> int:
    """/game new by alice; the id of the game's thread."""
    before = {c.id for c in h.si.threads(h.channel)}
    inter = await h.cmd(h.alice, "game new", game="toy", **options)
    assert inter.response_type == DEFERRED_CHANNEL_MESSAGE and inter.ephemeral
    (thread,) = [c for c in h.si.threads(h.channel) if c.id not in before]
    return thread.id


async def test_new_game_gets_a_public_thread_with_join_buttons(table: Harness) -> None:
    h = table
    thread = await open_toy(h, side="red", opponent=h.bob, pace="24h", options="target=8")
    ch = h.si.channels[thread]
    assert ch.type == PUBLIC_THREAD and ch.name == "Toy race #1" and ch.parent_id == h.channel
    lobby = h.si.channel_messages(thread)[0]
    assert "target=8" in lobby.content and "24h per move" in lobby.content
    assert f"reserved for <@{h.bob}>" in lobby.content
    assert [c["label"] for c in components(lobby)] == ["Join as blue", "Start (built-in player fills empty seats)"]
    announce = h.si.channel_messages(h.channel)[-1].content
    assert f"<#{thread}>" in announce and f"<@{h.bob}>" in announce
    # The seat is reserved: carol may not take it, bob may.
    join = components(lobby)[0]["custom_id"]
    refused = await h.si.click(h.carol, lobby.id, join)
    await h.settle(refused)
    assert "reserved for" in h.answers(refused)[-1].content and h.answers(refused)[-1].ephemeral
    accepted = await h.si.click(h.bob, lobby.id, join)
    await h.settle(accepted)
    svc = GameService.open(h.settings.db_url)
    try:
        info = await svc.game(1)
        assert info.status == "running" and info.seat("blue").user_id == h.bob  # full: it starts
        assert info.options == {"target": 8} and info.pace == "24h" and info.thread_id == thread
    finally:
        await svc.close()
    await h.si.wait_message(lambda m: m.channel_id == thread and "begins" in m.content)
    assert h.si.violations == []


async def test_game_new_refuses_bad_input_with_a_short_ephemeral_sentence(table: Harness) -> None:
    h = table
    for options, words in [({"game": "chess"}, "There is no game"),
                           ({"game": "toy", "side": "green"}, "There is no side"),
                           ({"game": "toy", "options": "target=7"}, "target must be one of"),
                           ({"game": "toy", "options": "colour=red"}, "has no option colour"),
                           ({"game": "toy", "options": "nonsense"}, "key=value")]:
        inter = await h.cmd(h.alice, "game new", **options)
        (answer,) = h.answers(inter)
        assert words in answer.content and answer.ephemeral, answer.content
        assert "Traceback" not in answer.content and len(answer.content) < 300
    assert h.si.threads() == [] and h.si.violations == []


async def test_autocomplete_offers_games_sides_and_options(table: Harness) -> None:
    h = table
    inter = await h.si.autocomplete(h.alice, h.channel, "game new", "game", game="to")
    await h.si.answered(inter)
    assert inter.response_type == AUTOCOMPLETE_RESULT
    choices = inter.callbacks[0].json["data"]["choices"]
    assert {"name": "Toy race", "value": "toy"} in choices
    inter = await h.si.autocomplete(h.alice, h.channel, "game new", "side", game="toy", side="")
    await h.si.answered(inter)
    assert [c["value"] for c in inter.callbacks[0].json["data"]["choices"]] == ["random", "red", "blue"]
    inter = await h.si.autocomplete(h.alice, h.channel, "game new", "options", game="toy", options="tar")
    await h.si.answered(inter)
    assert [c["value"] for c in inter.callbacks[0].json["data"]["choices"]] == [
        "target=5", "target=8", "target=12", "target=20"]


async def test_join_start_with_bots_list_resign(table: Harness) -> None:
    h = table
    thread = await open_toy(h, side="blue", seed=1, options="target=20")
    listed = await h.cmd(h.bob, "game list")
    assert "#1 Toy race" in h.answers(listed)[0].content and "free: red" in h.answers(listed)[0].content
    start = await h.cmd(h.alice, "game start", channel=thread)
    assert "still needs a player for: red" in h.answers(start)[0].content
    start = await h.cmd(h.alice, "game start", channel=thread, bots=True)
    assert "has started" in h.answers(start)[0].content
    # The built-in player (red) moves first; then alice (blue) gets her turn by DM.
    await h.si.wait_message(lambda m: h.si.visible_to(m, h.alice) and "It is your turn" in m.content, timeout=20)
    mine = await h.cmd(h.alice, "game list")
    assert "your turn" in h.answers(mine)[0].content
    resign = await h.cmd(h.alice, "game resign", channel=thread)
    assert "You resigned game #1" in h.answers(resign)[0].content
    await h.si.wait_message(lambda m: m.channel_id == thread and "**red** wins" in m.content, timeout=20)
    assert h.si.violations == []


async def test_abort_is_for_the_creator_before_start_or_a_manager(table: Harness) -> None:
    h = table
    thread = await open_toy(h, side="red")
    refused = await h.cmd(h.bob, "game abort", channel=thread)
    assert "Only the creator" in h.answers(refused)[0].content
    done = await h.cmd(h.mod, "game abort", channel=thread)
    assert "is aborted" in h.answers(done)[0].content
    await h.si.wait_message(lambda m: m.channel_id == thread and "The game was stopped" in m.content, timeout=20)


async def test_rematch_swaps_sides_and_invites_the_opponent(table: Harness) -> None:
    h = table
    thread = await open_toy(h, side="red", opponent=h.bob)
    lobby = h.si.channel_messages(thread)[0]
    await h.settle(await h.si.click(h.bob, lobby.id, components(lobby)[0]["custom_id"]))
    await h.cmd(h.bob, "game resign", channel=thread)
    again = await h.cmd(h.bob, "game rematch", channel=thread)
    assert "Rematch: game #2" in h.answers(again)[0].content
    svc = GameService.open(h.settings.db_url)
    try:
        info = await svc.game(2)
        assert info.seat("red").user_id == h.bob and info.seat("blue") is None and info.status == "open"
    finally:
        await svc.close()
    new_thread = max(c.id for c in h.si.threads(h.channel))
    lobby2 = h.si.channel_messages(new_thread)[0]
    assert f"reserved for <@{h.alice}>" in lobby2.content


async def test_a_manager_hands_a_seat_to_another_member(table: Harness) -> None:
    h = table
    thread = await open_toy(h, side="red", opponent=h.bob, options="target=20")
    lobby = h.si.channel_messages(thread)[0]
    await h.settle(await h.si.click(h.bob, lobby.id, components(lobby)[0]["custom_id"]))
    refused = await h.cmd(h.alice, "game substitute", channel=thread, game=1, side="blue", member=h.carol)
    assert "Only a manager" in h.answers(refused)[-1].content and h.answers(refused)[-1].ephemeral
    wrong = await h.cmd(h.mod, "game substitute", channel=thread, game=1, side="green", member=h.carol)
    assert "There is no side 'green'" in h.answers(wrong)[-1].content
    done = await h.cmd(h.mod, "game substitute", channel=thread, game=1, side="blue", member=h.carol)
    assert "now holds the blue seat of game #1" in h.answers(done)[-1].content
    again = await h.cmd(h.mod, "game substitute", channel=thread, game=1, side="blue", member=h.carol)
    assert "already holds the blue seat" in h.answers(again)[-1].content
    await h.si.wait_message(lambda m: m.channel_id == thread and "carol takes over the blue seat." in m.content)
    svc = GameService.open(h.settings.db_url)
    try:
        assert (await svc.game(1)).seat("blue").user_id == h.carol
    finally:
        await svc.close()
    # Bob holds no seat any more; Carol now answers for blue.
    gone = await h.cmd(h.bob, "game resign", channel=thread)
    assert h.answers(gone)[-1].content == "You hold no seat in game #1." and h.answers(gone)[-1].ephemeral
    quit_ = await h.cmd(h.carol, "game resign", channel=thread)
    assert "You resigned game #1 (blue)" in h.answers(quit_)[-1].content
    assert h.si.violations == []


async def test_granada_optional_rules_are_autocompleted_with_their_description(table: Harness) -> None:
    """Issue 11: each optional rule of section 11 is offered at ``/game new options:``, with
    the engine's one-line description; ``all`` alone turns every one on; all are off by default."""
    import engine

    h = table
    spec = engine.get("granada").OPTIONS
    inter = await h.si.autocomplete(h.alice, h.channel, "game new", "options", game="granada", options="")
    await h.si.answered(inter)
    choices = inter.callbacks[0].json["data"]["choices"]
    offered = {c["value"].partition("=")[0] for c in choices}
    assert offered == set(spec)
    for c in choices:
        name = c["value"].partition("=")[0]
        assert len(c["name"]) <= 100 and c["name"].startswith(c["value"] + " · ")
        assert spec[name]["help"][:30] in c["name"]
    assert "all=true" in [c["value"] for c in choices]
    # Typing narrows the list, the words already typed are kept.
    inter = await h.si.autocomplete(h.alice, h.channel, "game new", "options", game="granada",
                                    options="sortie=true pap")
    await h.si.answered(inter)
    assert [c["value"] for c in inter.callbacks[0].json["data"]["choices"]] == ["sortie=true papal_bull=true"]
    # "all" alone, then the default: nothing on.
    await h.cmd(h.alice, "game new", game="granada", side="christian", options="all")
    await h.cmd(h.alice, "game new", game="granada", side="christian")
    svc = GameService.open(h.settings.db_url)
    try:
        assert (await svc.game(1)).options.get("all") is True
        assert not (await svc.game(2)).options.get("all")
    finally:
        await svc.close()
    assert h.si.violations == []


async def test_an_invitation_reserves_one_seat_of_many(table: Harness) -> None:
    """Four seats, bob invited: carol may take a seat while two others are free, not the last."""
    h = table
    await h.cmd(h.alice, "game new", game="granada_city", side="red", opponent=h.bob, options="players=3")
    thread = h.si.threads(h.channel)[-1].id
    joined = await h.cmd(h.carol, "game join", channel=thread, game=1, side="blue")
    assert "You play **blue**" in h.answers(joined)[-1].content
    await h.si.wait_message(lambda m: m.channel_id == thread and "**green**: free (reserved for" in m.content
                            and "**blue**: <@" in m.content, timeout=20)
    refused = await h.cmd(h.mod, "game join", channel=thread, game=1)
    assert f"reserved for <@{h.bob}>" in h.answers(refused)[-1].content
    joined = await h.cmd(h.bob, "game join", channel=thread, game=1)
    assert "You play **green**" in h.answers(joined)[-1].content
    svc = GameService.open(h.settings.db_url)
    try:
        assert (await svc.game(1)).status == "running"
    finally:
        await svc.close()
    assert h.si.violations == []


async def test_a_game_left_unstarted_after_its_lobby_is_started_once_by_the_next_process(
        table: Harness, svc: GameService, monkeypatch: pytest.MonkeyPatch) -> None:
    """Against the built-in player no seat is free: the lobby is posted (saying the game is
    under way), then the game starts. A process that died between the two leaves an open game
    with every seat taken; the next process's first pass (``finish_openings``) starts it, and
    posts no second lobby: the thread reads the lobby, then the start."""
    h = table
    assert h.bot is not None and h.bot.user is not None

    async def died(game_pk: int, *, fill_with_bots: bool) -> None:
        """The process stops here: the start is never made."""

    # (On the cog itself: discord.py loads each cog's module anew, its class is not the one
    # imported here.)
    monkeypatch.setattr(h.bot.lobby, "begin", died)
    thread = await open_toy(h, side="blue", opponent=h.bot.user.id, seed=4)
    assert (await svc.game(1)).status == "open"
    (lobby,) = h.si.channel_messages(thread)
    monkeypatch.undo()

    await h.bot.lobby.finish_openings(utcnow() + timedelta(minutes=1))
    await delivered(h, svc, 1)
    assert (await svc.game(1)).status == "running"
    first, *rest = h.si.channel_messages(thread)
    assert first.id == lobby.id and "under way" in first.content and first.components == []
    assert [m for m in rest if "Seats:" in m.content] == []
    assert len([m for m in rest if "begins." in m.content]) == 1
    # A second pass finds nothing left to do.
    await h.bot.lobby.finish_openings(utcnow() + timedelta(minutes=1))
    await delivered(h, svc, 1)
    assert len(h.si.channel_messages(thread)) == 1 + len(rest)
    assert h.si.violations == []
