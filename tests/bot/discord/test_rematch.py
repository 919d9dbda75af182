"""``/game rematch`` with every seat offered again (issue 9): each previous player gets the next
seat kept for him; only he may take it until he declines it or the game starts without him.
Through the real bot and the stand-in, with Dirk Henn's Granada (2 to 6 seats)."""

from __future__ import annotations

from bot.service import GameInfo, GameService
from bot.service.levels import level_of
from tests.bot.discord.conftest import Harness, components, delivered
from tests.standin import Message


async def game_info(h: Harness, pk: int) -> GameInfo:
    svc = GameService.open(h.settings.db_url)
    try:
        return await svc.game(pk)
    finally:
        await svc.close()


def holders(info: GameInfo) -> dict[str, int | str | None]:
    """Who holds each seat: a user id, "bot" for the built-in player, None when free."""
    out: dict[str, int | str | None] = {}
    for role in info.roles:
        seat = info.seat(role)
        out[role] = None if seat is None else "bot" if seat.is_bot else seat.user_id
    return out


def newest_thread(h: Harness) -> int:
    return max(c.id for c in h.si.threads(h.channel))


def button(msg: Message, label: str) -> str:
    (found,) = [c["custom_id"] for c in components(msg) if c["label"] == label]
    return str(found)


async def refused(h: Harness, user: int, msg: Message, label: str) -> str:
    inter = await h.si.click(user, msg.id, button(msg, label))
    await h.settle(inter)
    answer = h.answers(inter)[-1]
    assert answer.ephemeral
    return answer.content


async def test_a_four_seat_rematch_keeps_each_players_next_seat_for_him(table: Harness) -> None:
    h = table
    dave = h.si.add_user("dave")
    h.si.add_member(h.guild, dave)
    await h.cmd(h.alice, "game new", game="granada_city", side="red", options="players=4")
    thread = newest_thread(h)
    for user, side in ((h.bob, "blue"), (h.carol, "green"), (dave, "yellow")):
        joined = await h.cmd(user, "game join", channel=thread, game=1, side=side)
        assert f"You play **{side}**" in h.answers(joined)[-1].content
    assert (await game_info(h, 1)).status == "running"
    await h.cmd(h.mod, "game abort", channel=thread)

    again = await h.cmd(h.bob, "game rematch", channel=thread)
    assert "Rematch: game #2" in h.answers(again)[-1].content
    # Everyone moves one seat on: red -> blue -> green -> yellow -> red. Bob, who asked, is
    # seated at once; the three others' next seats are kept for them.
    info = await game_info(h, 2)
    assert info.status == "open" and info.free_roles == ["red", "blue", "yellow"]
    assert holders(info) == {"red": None, "blue": None, "green": h.bob, "yellow": None}
    new_thread = newest_thread(h)
    lobby = h.si.channel_messages(new_thread)[0]
    for role, user in (("red", dave), ("blue", h.alice), ("yellow", h.carol)):
        assert f"**{role}**: free (reserved for <@{user}>)" in lobby.content
    assert "Decline my reserved seat" in [c["label"] for c in components(lobby)]
    notice = h.si.channel_messages(h.channel)[-1].content
    assert "rematch" in notice and f"<#{new_thread}>" in notice
    assert all(f"<@{u}>" in notice for u in (h.alice, h.carol, dave))

    # The reservations are rows, and the lobby's buttons persistent: a restart changes nothing.
    await h.stop()
    await h.start()
    # A third party's /game list says so.
    listed = await h.cmd(h.mod, "game list")
    assert "#2 Granada (Dirk Henn) · free: red (reserved), blue (reserved), yellow (reserved)" in \
        h.answers(listed)[-1].content
    # A seat kept for someone is his alone: not by its button, not by name, not at random.
    assert f"reserved for <@{dave}>" in await refused(h, h.carol, lobby, "Join as red")
    by_name = await h.cmd(h.mod, "game join", channel=new_thread, game=2, side="blue")
    assert f"The blue seat of game #2 is reserved for <@{h.alice}>" in h.answers(by_name)[-1].content
    at_random = await h.cmd(h.mod, "game join", channel=new_thread, game=2)
    assert "Every free seat of game #2 is reserved" in h.answers(at_random)[-1].content
    # Only a player a seat is kept for can decline one.
    assert "No free seat of game #2 is reserved for you" in await refused(h, h.mod, lobby, "Decline my reserved seat")
    assert (await game_info(h, 2)).seats == info.seats

    # Alice asks for "any" seat and gets the one kept for her.
    mine = await h.cmd(h.alice, "game join", channel=new_thread, game=2)
    assert "You play **blue** in game #2" in h.answers(mine)[-1].content

    # Dave declines: red is free for anyone, the lobby and the thread say so.
    declined = await h.si.click(dave, lobby.id, button(lobby, "Decline my reserved seat"))
    await h.settle(declined)
    assert "the red seat is free for anyone" in h.answers(declined)[-1].content
    await h.si.wait_message(lambda m: m.channel_id == new_thread and "dave declines the rematch" in m.content)
    lobby = await h.si.wait_message(lambda m: m.id == lobby.id and "**red**: free ·" in m.content
                                    and f"reserved for <@{dave}>" not in m.content)
    assert f"**yellow**: free (reserved for <@{h.carol}>)" in lobby.content
    taken = await h.si.click(h.mod, lobby.id, button(lobby, "Join as red"))
    await h.settle(taken)
    assert "You play **red** in game #2" in h.answers(taken)[-1].content

    # The last seat goes to the one it is kept for, and the full table starts.
    last = await h.si.click(h.carol, lobby.id, button(lobby, "Join as yellow"))
    await h.settle(last)
    info = await game_info(h, 2)
    assert info.status == "running"
    assert holders(info) == {
        "red": h.mod, "blue": h.alice, "green": h.bob, "yellow": h.carol}
    await h.cmd(h.mod, "game abort", channel=new_thread)
    assert h.si.violations == []


async def test_the_builtin_player_moves_on_and_a_seat_kept_for_a_player_goes_to_it_at_the_start(
        table: Harness) -> None:
    """Three seats, one the built-in player's: it moves one seat on as everyone does and is
    seated at once; the seat kept for bob goes to it when the game is started without him."""
    h = table
    await h.cmd(h.alice, "game new", game="granada_city", side="red", options="players=3")
    thread = newest_thread(h)
    await h.cmd(h.bob, "game join", channel=thread, game=1, side="blue")
    started = await h.cmd(h.alice, "game start", channel=thread, bots=True)  # green: the built-in player
    assert "has started" in h.answers(started)[-1].content
    await h.cmd(h.mod, "game abort", channel=thread)

    await h.cmd(h.alice, "game rematch", channel=thread)
    info = await game_info(h, 2)
    # The built-in player moved on with the others (green -> red) and is seated; alice
    # (red -> blue) too; bob's next seat (green) is kept for him.
    assert holders(info) == {"red": "bot", "blue": h.alice, "green": None}
    new_thread = newest_thread(h)
    lobby = h.si.channel_messages(new_thread)[0]
    assert f"**green**: free (reserved for <@{h.bob}>)" in lobby.content
    assert f"<@{h.bob}>, your rematch is waiting." in h.si.channel_messages(h.channel)[-1].content
    assert f"reserved for <@{h.bob}>" in await refused(h, h.carol, lobby, "Join as green")

    # Started without him: the built-in player takes his seat; the lobby holds no button.
    go = await h.si.click(h.alice, lobby.id, button(lobby, "Start (built-in player fills empty seats)"))
    await h.settle(go)
    info = await game_info(h, 2)
    assert info.status == "running" and holders(info) == {"red": "bot", "blue": h.alice, "green": "bot"}
    lobby = await h.si.wait_message(lambda m: m.id == lobby.id and "under way" in m.content)
    assert "reserved" not in lobby.content and components(lobby) == []
    await h.cmd(h.mod, "game abort", channel=new_thread)
    assert h.si.violations == []


async def test_a_two_seat_rematch_swaps_sides_and_keeps_the_other_side_for_the_opponent(table: Harness) -> None:
    """The two-seat rematch as before: the asker takes the other side at once, the opponent's
    seat waits for him (nobody else may take it) and the game starts when he joins."""
    h = table
    await h.cmd(h.alice, "game new", game="granada_city", side="red", opponent=h.bob, options="players=2")
    thread = newest_thread(h)
    lobby = h.si.channel_messages(thread)[0]
    await h.settle(await h.si.click(h.bob, lobby.id, button(lobby, "Join as blue")))
    await h.cmd(h.alice, "game resign", channel=thread)
    assert (await game_info(h, 1)).status == "finished"

    await h.cmd(h.alice, "game rematch", channel=thread)
    info = await game_info(h, 2)
    assert holders(info) == {"red": None, "blue": h.alice}
    lobby = h.si.channel_messages(newest_thread(h))[0]
    assert f"**red**: free (reserved for <@{h.bob}>)" in lobby.content
    assert f"reserved for <@{h.bob}>" in await refused(h, h.carol, lobby, "Join as red")
    await h.settle(await h.si.click(h.bob, lobby.id, button(lobby, "Join as red")))
    info = await game_info(h, 2)
    assert info.status == "running" and holders(info) == {"red": h.bob, "blue": h.alice}
    await h.cmd(h.mod, "game abort", channel=newest_thread(h))
    assert h.si.violations == []


async def test_a_three_seat_rematch_of_three_people_invites_both_others(table: Harness) -> None:
    """Three people: the asker moves on and is seated, both others have their next seat kept;
    one takes his, the game is started without the other, whose seat the built-in player takes."""
    h = table
    await h.cmd(h.alice, "game new", game="granada_city", side="red", options="players=3")
    thread = newest_thread(h)
    await h.cmd(h.bob, "game join", channel=thread, game=1, side="blue")
    await h.cmd(h.carol, "game join", channel=thread, game=1, side="green")
    await h.cmd(h.mod, "game abort", channel=thread)

    await h.cmd(h.carol, "game rematch", channel=thread)
    info = await game_info(h, 2)
    assert holders(info) == {"red": h.carol, "blue": None, "green": None}
    new_thread = newest_thread(h)
    lobby = h.si.channel_messages(new_thread)[0]
    assert f"**blue**: free (reserved for <@{h.alice}>)" in lobby.content
    assert f"**green**: free (reserved for <@{h.bob}>)" in lobby.content
    notice = h.si.channel_messages(h.channel)[-1].content
    assert f"<@{h.alice}> <@{h.bob}>, your rematch is waiting." in notice
    assert f"reserved for <@{h.bob}>" in await refused(h, h.alice, lobby, "Join as green")
    await h.settle(await h.si.click(h.alice, lobby.id, button(lobby, "Join as blue")))
    started = await h.cmd(h.carol, "game start", channel=new_thread, bots=True)
    assert "has started" in h.answers(started)[-1].content
    info = await game_info(h, 2)
    assert info.status == "running" and holders(info) == {"red": h.carol, "blue": h.alice, "green": "bot"}
    await h.cmd(h.mod, "game abort", channel=new_thread)
    assert h.si.violations == []


async def test_a_rematch_against_the_built_in_player_keeps_its_level(table: Harness) -> None:
    """The level chosen at /game new is the game's: the rematch plays at it too."""
    h = table
    await h.cmd(h.alice, "game new", game="navas", side="muslim", opponent=h.bot.user.id, level="normal", seed=5)
    thread = newest_thread(h)
    assert level_of(await game_info(h, 1)) == "normal"
    await h.cmd(h.mod, "game abort", channel=thread)

    await h.cmd(h.alice, "game rematch", channel=thread)
    info = await game_info(h, 2)
    assert holders(info) == {"christian": h.alice, "muslim": "bot"}
    # No seat is free: the rematch starts at once, and its thread opens with its lobby, which
    # says so (the "begins" line comes after it).
    svc = GameService.open(h.settings.db_url)
    try:
        await delivered(h, svc, 2)
    finally:
        await svc.close()
    first, *rest = h.si.channel_messages(newest_thread(h))
    assert "Seats:" in first.content and "under way" in first.content and first.components == [], first.content
    assert any("begins." in m.content for m in rest)
    assert level_of(info) == "normal" and level_of(info, "muslim") == "normal"
    await h.cmd(h.mod, "game abort", channel=newest_thread(h))
    assert h.si.violations == []
