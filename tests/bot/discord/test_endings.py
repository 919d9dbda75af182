"""How games end on Discord (issue 16): every way a game ends (resignation, claim, the result
of play, abort) tells the players by DM, closes every prompt the players could still click
(no live button left: a line says how the game ended), keeps the lobby message true from the
first post to the last, and posts a spectator map only when it differs from the thread's
last one."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path

import pytest

from bot.service import GameService
from tests.bot.discord.conftest import Clock, Harness, choices_of, components, delivered, drive, newest_prompt
from tests.standin import Interaction, Message
from tests.standin.server import DM

pytestmark = pytest.mark.usefixtures("relay_registered")


@pytest.fixture
def table(clocked_table: Harness) -> Harness:
    """conftest's table on the test's clock (``clock`` moves it)."""
    return clocked_table


def game_components(msg: Message, game_pk: int) -> list[str]:
    """The custom ids of ``msg``'s components that act on game ``game_pk`` (choices, pages,
    undo, join, start)."""
    pattern = re.compile(rf"^az:[a-z]+:{game_pk}(:|$)")
    return [c["custom_id"] for c in components(msg) if pattern.match(c["custom_id"])]


def live_buttons(h: Harness, game_pk: int) -> list[Message]:
    """Messages anyone can still click that act on the game: every message but the ephemeral
    answers (which only their reader sees, and which the bot cannot edit later)."""
    return [m for m in h.si.messages.values() if not m.deleted and m.ephemeral_to is None
            and game_components(m, game_pk)]



def made_by(h: Harness, inter: Interaction) -> list[Message]:
    """Every message the bot made in answer to the interaction (its followups)."""
    return [m for m in h.si.messages.values() if m.interaction_id == inter.id and not m.flags & (1 << 7)]


async def test_abort_tells_every_player_ends_their_prompts_and_an_old_button_says_so(
        table: Harness, svc: GameService) -> None:
    """A 1212 game between two players, played to a prompt; a server manager aborts it."""
    h = table
    si = h.si
    thread = await h.open_game("navas", side="christian", pace="live", seed=16)
    clicks = iter(range(3))
    await drive(h, 1, __import__("random").Random(3), until=lambda _s: next(clicks, None) is None)
    info = await svc.game(1)
    assert info.status == "running"
    acting = info.seat(info.active[0])
    assert acting is not None and acting.user_id is not None
    prompt = await newest_prompt(h, acting.user_id)
    # The acting player also looked with /status in the thread: an ephemeral prompt, with
    # buttons, that nobody can edit afterwards.
    look = await h.cmd(acting.user_id, "status", channel=thread)
    ephemeral = next(m for m in h.answers(look) if choices_of(m))

    done = await h.cmd(h.mod, "game abort", channel=thread)
    assert "is aborted" in h.answers(done)[-1].content
    for user in (h.alice, h.bob):
        await si.wait_message(lambda m, u=user: si.channels[m.channel_id].type == DM and si.visible_to(m, u)
                              and "Game #1 was aborted by mod." in m.content and not m.components, timeout=20)
    await delivered(h, svc, 1)
    closed = si.messages[prompt.id]
    assert closed.components == [] and closed.content.endswith("⛔ Game #1 was aborted by mod.")
    assert live_buttons(h, 1) == []

    # A later click on a button of the game (the ephemeral prompt kept its own) says how the
    # game ended, and nothing else: no old prompt, no hand, no "⌛ ... nothing is asked of you".
    cid, value = choices_of(ephemeral)[0]
    click = await si.click(acting.user_id, ephemeral.id, cid, [value] if value else None)
    await h.settle(click)
    said = [m.content for m in made_by(h, click)]
    assert said == ["Game #1 was aborted by mod."], said
    assert (await svc.game(1)).version == info.version
    assert si.violations == []


async def test_no_button_outlives_its_game_whichever_way_it_ends(
        table: Harness, svc: GameService, clock: Clock, rng) -> None:
    """Four games, ended by a resignation, a claim after a deadline, play to the end, and an
    abort: afterwards no message of any of them (prompts, lobby) carries a button, and each
    player was told by DM how it ended."""
    h = table
    si = h.si
    # 1: resignation, mid-turn, with a live prompt.
    resigned = await h.open_game("toy", side="red", options="target=20", seed=1)
    await newest_prompt(h, h.alice)
    await h.cmd(h.alice, "game resign", channel=resigned)
    # 2: claim after the late player's deadline.
    claimed = await h.open_game("relay", side="north", pace="24h", at_deadline="claim", options="laps=2", seed=1)
    for _ in range(100):
        if (await svc.game(2)).deadline_at is not None:
            break
        await asyncio.sleep(0.1)
    clock.offset = timedelta(hours=25)
    await si.wait_message(lambda m: m.channel_id == claimed and "/game claim" in m.content, timeout=20)
    claim = await h.cmd(h.bob, "game claim", channel=claimed)
    assert "You claimed game #2" in h.answers(claim)[-1].content
    clock.offset = timedelta(0)
    # 3: played to the end, by clicking.
    await h.open_game("toy", side="red", options="target=5", seed=2)
    await drive(h, 3, rng)
    # 4: aborted by a manager while running.
    aborted = await h.open_game("toy", side="blue", options="target=20", seed=3)
    await newest_prompt(h, h.bob)
    await h.cmd(h.mod, "game abort", channel=aborted)

    ends = {1: "🏁 Game #1 is over. **blue** wins: red resigned.",
            2: "🏁 Game #2 is over. **south** wins: north ran out of time.",
            4: "⛔ Game #4 was aborted by mod."}
    for pk in (1, 2, 3, 4):
        await delivered(h, svc, pk)
        info = await svc.game(pk)
        assert info.status in ("finished", "aborted")
        assert live_buttons(h, pk) == [], [m.content for m in live_buttons(h, pk)]
        lobby = si.channel_messages(info.thread_id)[0]
        assert lobby.components == [] and "Take a free seat" not in lobby.content
        for user in (h.alice, h.bob):
            dms = [m for m in h.dm_messages(user) if f"#{pk}" in m.content and ("is over" in m.content
                                                                            or "aborted" in m.content)]
            assert dms, f"{h.names[user]} was not told that game {pk} ended"
        if pk in ends:
            assert ends[pk].split(" ", 1)[1] in lobby.content
            # The prompts that were live when it ended say how it ended.
            closed = [m for m in si.messages.values() if m.history and m.content.endswith(ends[pk])]
            assert closed, f"no prompt of game {pk} was closed"
    assert si.violations == []


async def test_the_lobby_of_a_game_against_the_built_in_player_is_true_from_the_start(
        table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    assert h.bot is not None and h.bot.user is not None
    await h.cmd(h.alice, "game new", game="toy", side="blue", opponent=h.bot.user.id, seed=4, options="target=20")
    thread = si.threads(h.channel)[-1].id
    lobby = si.channel_messages(thread)[0]
    assert (await svc.game(1)).status == "running"
    assert lobby.components == [], "no seat is free and the game has started: nothing to click"
    assert "Take a free seat" not in lobby.content and "under way" in lobby.content
    assert "**red**: built-in player" in lobby.content or "built-in player" in lobby.content
    await newest_prompt(h, h.alice)
    await h.cmd(h.alice, "game resign", channel=thread)
    await delivered(h, svc, 1)
    assert "**red** wins: blue resigned." in si.messages[lobby.id].content
    assert si.messages[lobby.id].components == []
    assert si.violations == []


async def test_the_lobby_follows_seats_and_the_start(table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    await h.cmd(h.alice, "game new", game="toy", side="red", opponent=h.bob, seed=5)
    thread = si.threads(h.channel)[-1].id
    lobby = si.channel_messages(thread)[0]
    assert [c["label"] for c in components(lobby)] == ["Join as blue", "Start (built-in player fills empty seats)"]
    await h.settle(await si.click(h.bob, lobby.id, components(lobby)[0]["custom_id"]))
    await delivered(h, svc, 1)
    now = si.messages[lobby.id]
    assert now.components == [] and "under way" in now.content and "Take a free seat" not in now.content
    assert f"<@{h.bob}>" in now.content and "reserved for" not in now.content
    # The seat is announced in the thread, through the outbox.
    assert [m for m in si.channel_messages(thread) if "bob takes the blue seat." in m.content]
    assert si.violations == []


async def test_a_resignation_does_not_post_the_same_map_again(table: Harness, svc: GameService) -> None:
    h = table
    si = h.si
    thread = await h.open_game("navas", side="christian", pace="live", seed=16)
    await si.wait_message(lambda m: m.channel_id == thread and m.content.startswith("🗺️"), timeout=30)
    await delivered(h, svc, 1)
    await h.cmd(h.alice, "game resign", channel=thread)
    await si.wait_message(lambda m: m.channel_id == thread and "🏁" in m.content, timeout=30)
    await delivered(h, svc, 1)
    maps = [m for m in si.channel_messages(thread) if m.content.startswith("🗺️")]
    pictures = [tuple(f.data for f in m.files) for m in maps]
    assert len(pictures) == len(set(pictures)), [m.content for m in maps]
    assert len(maps) == 1
    assert si.violations == []


async def test_a_seat_remembers_its_newest_prompts_only(tmp_path: Path) -> None:
    """A player who types every order leaves each prompt unclicked: the seat keeps the newest
    few for the end of the game to close, not one row per move of a long game."""
    from bot.discord.store import PROMPTS_KEPT, Store
    from tests.databases import migrated_sqlite

    url = f"sqlite+aiosqlite:///{migrated_sqlite(tmp_path / 'prompts.db')}"
    svc = GameService.open(url)
    try:
        info = await svc.create_game("toy", {}, 1)
        store = Store(svc)
        for n in range(1, 31):
            await store.add_prompt(info.id, "red", 5, 1000 + n, f"prompt {n}")
            await store.add_prompt(info.id, "blue", 6, 2000 + n, f"prompt {n}")
        await store.add_prompt(info.id, "red", 5, 1030, "prompt 30, page 2")  # the same message again
        red = [p for p in await store.prompts(info.id) if p.role == "red"]
        assert [p.message_id for p in red] == list(range(1031 - PROMPTS_KEPT, 1031))
        assert red[-1].content == "prompt 30, page 2"
        assert len(await store.prompts(info.id)) == 2 * PROMPTS_KEPT
    finally:
        await svc.close()
