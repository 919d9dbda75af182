"""What players read on Discord, as whole games played by clicks showed it wrong (issue 34):
one line per undo in the thread; a result that names its winner whoever he is (Sabika's Yusuf
holds no seat) in the thread, the lobby message and the last DM; a hand named in the game's
words, never by card ids; and no prompt left with live buttons once a newer one went out or
after a restart, when a crash came between storing a step and marking its prompt."""

from __future__ import annotations

import asyncio
import random
import re

from bot.discord import ids
from bot.discord.store import Store
from bot.discord.table import MOVED_ON, SUPERSEDED
from bot.service import GameService
from engine import sabika
from engine.api import strip_label
from tests.bot.discord.conftest import Harness, choices_of, delivered, newest_prompt, reveal
from tests.bot.discord.test_play import button, prompt_of, started
from tests.standin.server import DM

UNDO_WORDS = re.compile(r"takes back|took back")
CARD_ID = re.compile(r"\b[a-z]+-\d+-\d+\b")
"""A money card's id in Dirk Henn's Granada ("blue-1-3": currency, value, copy)."""


async def recorded_prompts(h: Harness, game_pk: int, expected: list[int]) -> list[int]:
    """The message ids of the game's recorded live prompts, once they are ``expected`` (the
    record of a closed prompt goes right after its edit), or as they stand after 10 s."""
    assert h.bot is not None
    got: list[int] = []
    for _ in range(100):
        got = [p.message_id for p in await h.bot.store.prompts(game_pk)]
        if got == expected:
            break
        await asyncio.sleep(0.1)
    return got


def thread_lines(h: Harness, thread: int) -> list[str]:
    return [line for m in h.si.channel_messages(thread) for line in m.content.split("\n")]


async def test_each_undo_is_one_line_in_the_thread(table: Harness, svc: GameService) -> None:
    h = table
    thread = await started(h)
    for label in ("add 1", "add 2"):
        dm = await prompt_of(h, h.alice)
        await h.settle(await h.si.click(h.alice, dm.id, button(dm, label)))
    for _ in range(2):
        await h.cmd(h.alice, "undo", channel=thread)
    assert (await svc.game(1)).version == 4
    await delivered(h, svc, 1)
    undone = [line for line in thread_lines(h, thread) if UNDO_WORDS.search(line)]
    assert undone == ["• Red takes back a step."] * 2
    assert h.si.violations == []


async def test_a_solo_sabika_game_lost_to_yusuf_names_him_the_winner_everywhere(
        table: Harness, svc: GameService) -> None:
    """Played by the engine's random picks (the service takes all but the last step, forced
    steps by itself, the last is a click): Yusuf wins, and the thread, the lobby message and the player's last DM
    say so from the result, never "No winner"."""
    h = table
    seed = 1
    await h.cmd(h.alice, "game new", game="sabika", side="blue", options="players=1", seed=seed, pace="live")
    thread = h.si.threads(h.channel)[-1].id
    lobby = h.si.channel_messages(thread)[0]
    await prompt_of(h, h.alice)
    # The game the engine plays alone with the same seed and picks.
    state, pick, steps = sabika.setup(seed, {"players": 1}), random.Random(seed), []
    while sabika.result(state) is None:
        action = pick.choice(sabika.actions(state, "blue"))
        steps.append(action)
        state = sabika.apply(state, "blue", action)
    result = sabika.result(state)
    assert result is not None and result["winner"] is None  # no seat won: Yusuf did
    assert result["score"]["yusuf"] > result["score"]["blue"]
    done = len(await svc.moves(1))  # the forced steps the start took
    while done < len(steps) - 1:
        step = await svc.apply(1, "blue", steps[done], (await svc.game(1)).version, h.alice)
        done += 1 + len(step.forced)  # a forced step, taken by the service, is the engine's only pick
    assert done == len(steps) - 1
    gv = await svc.view(1, "blue", h.alice)
    index = next(i for i, a in enumerate(gv.view["actions"]) if strip_label(a) == strip_label(steps[-1]))
    msg = await newest_prompt(h, h.alice, ids.digest(gv.view))
    cid, value = await reveal(h, h.alice, msg, index)
    await h.settle(await h.si.click(h.alice, msg.id, cid, [value] if value else None))
    assert (await svc.game(1)).status == "finished"
    await delivered(h, svc, 1)
    said = "**Yusuf** wins: Yusuf has the most Prestige Points"
    ends = [line for line in thread_lines(h, thread) if "🏁" in line]
    assert ends and all(said in line for line in ends), ends
    assert said in h.si.messages[lobby.id].content
    last = [m for m in h.dm_messages(h.alice) if "is over" in m.content]
    assert last and said in last[-1].content
    everything = [m.content for m in h.si.messages.values()]
    assert not [t for t in everything if "No winner" in t]
    assert (await svc.game(1)).result["winners"] == ["Yusuf"]  # type: ignore[index]
    assert h.si.violations == []


async def test_dirk_henns_granada_hand_reads_as_money_never_card_ids(table: Harness, svc: GameService) -> None:
    h = table
    thread = await h.open_game("granada_city", side="red", pace="live", seed=5, options="players=2")
    await delivered(h, svc, 1)
    hands = [m for m in h.si.messages.values()
             if h.si.channels[m.channel_id].type == DM and "Your hand:" in m.content]
    assert hands, "no prompt showed a hand"
    _, state = await svc.state(1)
    for msg in hands:
        line = next(line for line in msg.content.split("\n") if "Your hand:" in line)
        assert not CARD_ID.search(line), line
        assert re.search(r"\b\d+ (blue|green|orange|yellow)\b", line), line
    look = await h.cmd(h.alice, "hand", channel=thread)
    text = h.answers(look)[-1].content
    assert "Your hand in" in text and not CARD_ID.search(text), text
    own = sorted(state["hands"]["red"])
    assert own and not any(cid in text for cid in own)
    assert h.si.violations == []


async def test_a_prompt_whose_step_was_stored_loses_its_buttons_when_the_next_one_goes_out(
        table: Harness, svc: GameService) -> None:
    """The process took the step but died before marking the prompt: here the step is
    stored from outside the bot, as the click's handler would have stored it. The seat's
    next prompt goes out, and the old one is closed with its record."""
    h = table
    await started(h)
    first = await prompt_of(h, h.alice)
    await svc.apply(1, "red", {"type": "add", "n": 1}, 0, h.alice)
    second = await prompt_of(h, h.alice, after=first.id)
    closed = await h.si.wait_message(lambda m: m.id == first.id and not m.components, timeout=20)
    assert closed.content.endswith(SUPERSEDED)
    assert choices_of(h.si.messages[second.id])
    assert await recorded_prompts(h, 1, [second.id]) == [second.id]
    assert h.si.violations == []


async def test_a_restart_closes_the_prompts_a_crash_left_live(table: Harness, svc: GameService) -> None:
    """red's turn ended by a step stored while the bot was down (it died before marking the
    prompt): at the restart, red's prompt, which asks nothing any more, loses its buttons."""
    h = table
    await started(h)
    first = await prompt_of(h, h.alice)
    await h.stop()
    await svc.apply(1, "red", {"type": "bank", "label": "bank 0 points"}, 0, h.alice)
    await h.start()
    closed = await h.si.wait_message(lambda m: m.id == first.id and not m.components, timeout=20)
    assert closed.content.endswith(MOVED_ON)
    asked = await prompt_of(h, h.bob)  # the game goes on: blue is asked
    assert await recorded_prompts(h, 1, [asked.id]) == [asked.id]
    assert h.si.violations == []


async def test_a_prompt_posted_but_never_recorded_before_a_restart_is_closed(
        table: Harness, svc: GameService) -> None:
    """The bot is stopped while Discord has made red's prompt but not yet answered (so the bot
    never recorded it), and red's turn ends while it is down: at the restart, the prompt's
    row asks for nothing any more, and the prompt its earlier try posted loses its buttons all
    the same."""
    h = table
    held = h.si.stall("POST", r"^/channels/\d+/messages$", contains="It is your turn", mode="after")
    await h.open_game("toy", side="red", options="target=20")
    await asyncio.wait_for(held.caught.wait(), 20)
    first = await prompt_of(h, h.alice)  # Discord made it; its answer is held
    await h.stop()
    held.release()
    assert await Store(svc).prompts(1) == []  # no record lists it
    await svc.apply(1, "red", {"type": "bank", "label": "bank 0 points"}, 0, h.alice)
    await h.start()
    closed = await h.si.wait_message(lambda m: m.id == first.id and not m.components, timeout=20)
    assert closed.content.endswith(MOVED_ON)
    asked = await prompt_of(h, h.bob)
    assert await recorded_prompts(h, 1, [asked.id]) == [asked.id]
    assert h.si.violations == []
