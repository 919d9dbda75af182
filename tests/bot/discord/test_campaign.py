"""Campaign records through the real bot and the Discord stand-in (issue 29): a finished
1212 game moves both players' ratings in the transaction of its result; ``/rating``,
``/leaderboard`` (a picture and a text), ``/stats``, ``/history``; the managers'
``/server ratings`` and ``/server rate``; refusals are ephemeral and say why; names are the
members' names of now, and the last known one for a member who left."""

from __future__ import annotations

from bot.service import GameService
from tests.bot.discord.conftest import Harness, png_ok


async def finished_navas(h: Harness, loser: int) -> int:
    """alice (opening) and bob play 1212; ``loser`` resigns it. The game's number."""
    thread = await h.open_game("navas")
    await h.cmd(loser, "game resign", channel=thread)
    svc = GameService.open(h.settings.db_url)
    try:
        games = await svc.games(status="finished")
    finally:
        await svc.close()
    return max(g.id for g in games)


def text_of(h: Harness, inter: object) -> str:
    answer = h.answers(inter)[-1]  # type: ignore[arg-type]
    assert answer.ephemeral, "every campaign answer is for the asker alone"
    return answer.content


async def test_ratings_records_and_leaderboard(table: Harness) -> None:
    h = table
    first = await finished_navas(h, h.bob)
    await finished_navas(h, h.bob)
    await finished_navas(h, h.alice)

    mine = text_of(h, await h.cmd(h.alice, "rating"))
    assert "1212" in mine and "3 games, 2 won" in mine and "#1" in mine and "?" in mine  # provisional
    theirs = text_of(h, await h.cmd(h.carol, "rating", member=h.bob))
    assert "3 games, 1 won" in theirs and "#2" in theirs
    nothing = text_of(h, await h.cmd(h.carol, "rating"))
    assert nothing == "carol has no rated game on this server yet."
    wrong = text_of(h, await h.cmd(h.alice, "leaderboard", game="chess"))
    assert wrong.startswith("There is no game 'chess'")

    # Bob is known by another name now: the board shows it.
    h.si.members[h.guild][h.bob]["nick"] = "Sir Bob"
    board = await h.cmd(h.carol, "leaderboard", game="navas")
    answer = h.answers(board)[-1]
    assert answer.ephemeral
    lines = answer.content.splitlines()
    assert lines[1].startswith("1. alice · **") and lines[2].startswith("2. Sir Bob · **")
    (picture,) = answer.files
    width, height = png_ok(picture.data)
    assert width == 760 and height > 100

    # Bob leaves the server: his last known name stays on the board.
    del h.si.members[h.guild][h.bob]
    after = h.answers(await h.cmd(h.alice, "leaderboard", game="navas"))[-1].content.splitlines()
    assert after[1].startswith("▶ 1. alice") and after[2].startswith("2. bob (left)")

    stats = text_of(h, await h.cmd(h.alice, "stats"))
    assert "1212" in stats and "3 played, 2 won" in stats and "In progress: 0" in stats
    history = text_of(h, await h.cmd(h.alice, "history"))
    assert history.count("• #") == 3 and "**lost**" in history and "**won**" in history
    assert f"#{first} " in history and "rating +" in history and "<#" in history

    # A manager takes a game out of the ratings; a player may not.
    refused = text_of(h, await h.cmd(h.alice, "server rate", game=first, rated=False))
    assert refused == "Only a server manager (Manage Server) can change that."
    done = text_of(h, await h.cmd(h.mod, "server rate", game=first, rated=False))
    assert done == f"Game #{first} does not count for ratings now."
    assert "2 games, 1 won" in text_of(h, await h.cmd(h.alice, "rating", game="navas"))


async def test_games_against_the_built_in_player_count_when_a_manager_allows(table: Harness) -> None:
    h = table
    bot_user = h.bot.user.id if h.bot is not None and h.bot.user is not None else 0

    async def against_the_bot() -> None:
        await h.cmd(h.alice, "game new", game="navas", opponent=bot_user)
        thread = h.si.threads(h.channel)[-1].id
        await h.cmd(h.alice, "game resign", channel=thread)

    await against_the_bot()
    assert "no rated game" in text_of(h, await h.cmd(h.alice, "rating"))
    refused = text_of(h, await h.cmd(h.bob, "server ratings", vs_bot=True))
    assert refused == "Only a server manager (Manage Server) can change that."
    assert text_of(h, await h.cmd(h.bob, "server ratings")) == \
        "Games against the built-in player do not count for ratings on this server."
    assert text_of(h, await h.cmd(h.mod, "server ratings", vs_bot=True)) == \
        "Games against the built-in player count for ratings on this server from now on."
    await against_the_bot()
    board = h.answers(await h.cmd(h.alice, "leaderboard", game="navas"))[-1].content.splitlines()
    assert board[1].startswith("1. built-in player (easy) · **") and board[2].startswith("▶ 2. alice")
