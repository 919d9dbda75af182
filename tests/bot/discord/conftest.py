"""The Discord tests' table: the stand-in on 127.0.0.1 with one server, a games channel, two
players, a spectator and a moderator, and the real bot (``bot.discord.client.serve``, what
``alcazaba run`` runs) connected to it over HTTP and the gateway."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import engine
from bot.discord import ids
from bot.discord.client import AlcazabaBot, Tuning, serve
from bot.models import utcnow
from bot.service import GameService
from bot.settings import Settings
from tests.standin import Interaction, Message, StandIn
from tests.standin.server import (
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE,
    DM,
    LOADING,
    MANAGE_GUILD,
    iter_components,
)

FAST = Tuning(group_seconds=0.3, group_max_seconds=1.0, outbox_poll_seconds=0.5, deadline_poll_seconds=0.5,
              rate_per_10s=1000)


class Harness:
    """The stand-in, the bot process, and the people on the server."""

    def __init__(self, si: StandIn, data_dir: Path, tuning: Tuning) -> None:
        self.si = si
        self.data_dir = data_dir
        self.tuning = tuning
        self.owner = si.add_user("owner")
        self.guild = si.add_guild("Alcazaba test server", self.owner)
        self.channel = si.add_text_channel(self.guild, "games")
        self.alice = si.add_user("alice")
        self.bob = si.add_user("bob")
        self.carol = si.add_user("carol")  # a spectator
        self.mod = si.add_user("mod")
        managers = si.add_role(self.guild, "moderators", MANAGE_GUILD)
        for user in (self.alice, self.bob, self.carol):
            si.add_member(self.guild, user)
        si.add_member(self.guild, self.mod, roles=[managers])
        self.task: asyncio.Task[int] | None = None
        self.bot: AlcazabaBot | None = None
        self.names = {self.alice: "alice", self.bob: "bob", self.carol: "carol", self.mod: "mod"}

    @property
    def settings(self) -> Settings:
        return Settings(_env_file=None, data_dir=self.data_dir, discord_token=self.si.token,  # type: ignore[call-arg]
                        discord_api_base=self.si.api_base, discord_gateway_url=self.si.gateway_url,
                        discord_dev_guild_id=self.guild, render_concurrency=2, log_level="INFO")

    async def start(self) -> None:
        mark = len(self.si.requests)
        self.task = asyncio.create_task(serve(self.settings, self.tuning, created=self._created))
        await self.si.wait_connected(timeout=30)
        await self.si.wait_for(lambda r: r.method == "PUT" and r.route.endswith(f"/guilds/{self.guild}/commands"),
                               timeout=30, start=mark)

    def _created(self, bot: AlcazabaBot) -> None:
        self.bot = bot

    async def __aenter__(self) -> Harness:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
            self.task = None

    # ---------------------------------------------------------------- acting as users

    async def open_game(self, game: str, **options: Any) -> int:
        """alice opens a game with bob as her opponent (``options`` as ``/game new`` takes
        them) and bob joins from the lobby; the game's thread."""
        await self.cmd(self.alice, "game new", game=game, opponent=self.bob, **options)
        thread = self.si.threads(self.channel)[-1].id
        lobby = self.si.channel_messages(thread)[0]
        await self.settle(await self.si.click(self.bob, lobby.id, components(lobby)[0]["custom_id"]))
        return thread

    async def cmd(self, user: int, path: str, channel: int | None = None, **options: Any) -> Interaction:
        inter = await self.si.slash(user, channel or self.channel, path, **options)
        await self.si.answered(inter)
        await self.settle(inter)
        return inter

    async def settle(self, inter: Interaction, timeout: float = 20.0) -> None:
        """Until the handler of this interaction finished: a "thinking" answer was filled in
        (or a deferred click was followed up), then nothing more for a moment."""
        await self.si.answered(inter, timeout)
        if inter.response_type == DEFERRED_CHANNEL_MESSAGE:
            await self.si.wait_message(lambda m: m.id == inter.original_id and not m.flags & LOADING, timeout)
        elif inter.response_type == DEFERRED_UPDATE:
            await self.si.wait_for(lambda r: r.route.startswith("/webhooks/") and inter.token in r.route, timeout)
        await self.si.wait_quiet(0.15, timeout)

    def answer(self, inter: Interaction) -> Message:
        """The message the interaction's answer made (the first followup after a defer)."""
        assert inter.original_id is not None, "the interaction got no message"
        msg = self.si.messages[inter.original_id]
        return msg

    def answers(self, inter: Interaction) -> list[Message]:
        ids = [i for i in [inter.original_id, *inter.followup_ids] if i is not None]
        return [self.si.messages[i] for i in ids]

    def dm_messages(self, user: int) -> list[Message]:
        ch = self.si.dm_channel(user)
        return [] if ch is None else self.si.channel_messages(ch.id)


async def delivered(h: Harness, svc: GameService, game_pk: int | None = None) -> None:
    """Until every notification written so far (of one game, or of all) is out: the starts,
    maps, seat lines and lobby edits, so that a count of messages taken next is settled."""
    for _ in range(600):
        if not await svc.outbox(game_pk, pending_only=True):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"the outbox was not delivered: {await svc.outbox(game_pk, True)}")
    await h.si.wait_quiet(0.5)


def components(msg: Message) -> list[dict[str, Any]]:
    return [c for c in iter_components(msg.components) if c.get("custom_id")]


def choices_of(msg: Message) -> list[tuple[str, str | None]]:
    """(custom_id, select value or None) for every choice a message offers, paging aside."""
    out: list[tuple[str, str | None]] = []
    for c in components(msg):
        cid = c["custom_id"]
        if cid.startswith("az:a:"):
            out.append((cid, None))
        elif cid.startswith("az:s:"):
            out += [(cid, o["value"]) for o in c.get("options", [])]
    return out


def offered_index(custom_id: str, value: str | None) -> int:
    """The index into the seat's actions a choice stands for (a button's id, a menu's value)."""
    return int(value) if value is not None else int(custom_id.split(":")[5])


def prompt_digest(msg: Message) -> str | None:
    """The digest of the choice set a prompt's components were made for (the bot's own
    fingerprint of a seat's prompt and actions, bot/discord/ids.py)."""
    return next((cid.rsplit(":", 1)[1] for cid, _ in choices_of(msg)), None)


def replay_states(exported: dict[str, Any]) -> list[dict[str, Any]]:
    """The state after each move of an exported game, from setup (a game without undo, so
    the list's index is the version)."""
    module = engine.get(exported["game"])
    state = module.setup(exported["seed"], dict(exported["options"]))
    states = [state]
    for move in exported["moves"]:
        state = module.apply(state, move["role"], move["action"])
        states.append(state)
    return states


def move_number(text: str) -> int:
    """The move a message names ("... · move 12")."""
    m = re.search(r"move (\d+)", text)
    assert m, text
    return int(m.group(1))


def png_ok(data: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format in ("PNG", "GIF")
    return image.size


def is_dm(si: StandIn, msg: Message) -> bool:
    return si.channels[msg.channel_id].type == DM


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    si = StandIn()
    await si.start()
    yield si
    await si.stop()


@pytest.fixture
async def table(standin: StandIn, tmp_path: Path) -> AsyncIterator[Harness]:
    async with Harness(standin, tmp_path / "data", FAST) as h:
        yield h


class Clock:
    """The bot's clock in a test (``Tuning.now``): real time plus an offset the test moves."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def __call__(self) -> datetime:
        return utcnow() + self.offset


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def clocked_table(standin: StandIn, tmp_path: Path, clock: Clock) -> AsyncIterator[Harness]:
    """The table on the test's clock, polling deadlines more often."""
    async with Harness(standin, tmp_path / "data", replace(FAST, now=clock, deadline_poll_seconds=0.2)) as h:
        yield h


@pytest.fixture
def relay_registered() -> Iterator[None]:
    """The relay test game (tests/bot/discord/relay.py) among the registered games."""
    from tests.bot.discord import relay

    engine.GAMES[relay.id] = relay  # type: ignore[assignment]
    yield
    engine.GAMES.pop(relay.id, None)


@pytest.fixture
async def svc(table: Harness) -> AsyncIterator[GameService]:
    """The test's own connection to the bot's database (for setting up and reading back)."""
    s = GameService.open(table.settings.db_url)
    yield s
    await s.close()


@pytest.fixture
def rng() -> random.Random:
    return random.Random(1212)


Pick = Callable[[list[dict[str, Any]], random.Random], int]
"""A click policy: the index of the action to take among those a seat is offered."""


async def drive(h: Harness, game_pk: int, rng: random.Random, *, max_steps: int = 2000,
                on_step: Any = None, until: Any = None, pick: Pick | None = None) -> int:
    """Play a game to its end by clicking, as its players, the newest prompt each one got.
    Who must act is read from the database (the test's own reading); every move goes through
    a Discord interaction. ``until(state)`` stops it early. Returns the number of clicks.

    Without ``pick`` a click is a random choice among those the prompt shows. With ``pick``
    it is ``pick(actions, rng)``, an index into the actions the seat is offered (the list its
    prompt is made from), clicked on the prompt made for them, turning the prompt's pages
    when the choice is not on the first: the game then takes the course the engine alone
    takes under the same policy and generator."""
    svc = GameService.open(h.settings.db_url)
    si = h.si
    clicks = 0
    try:
        for _ in range(max_steps):
            info = await svc.game(game_pk)
            if info.status != "running":
                return clicks
            if until is not None and until((await svc.state(game_pk))[1]):
                return clicks
            role = info.active[0]
            seat = info.seat(role)
            assert seat is not None
            if seat.is_bot or seat.user_id is None:
                await asyncio.sleep(0.05)
                continue
            user = seat.user_id
            if pick is None:
                # The newest prompt with live choices (answered and refused prompts lose theirs).
                msg = await newest_prompt(h, user)
                cid, value = rng.choice(choices_of(msg))
            else:
                gv = await svc.view(game_pk, role, user)
                actions = list(gv.view["actions"])
                msg = await newest_prompt(h, user, ids.digest(gv.view))
                cid, value = await reveal(h, user, msg, pick(actions, rng))
            inter = await si.click(user, msg.id, cid, [value] if value else None)
            await si.answered(inter)
            await si.wait_for(lambda r, t=inter.token: t in r.route and r.method in ("POST", "PATCH")
                              and r.route.startswith("/webhooks"), timeout=20)
            clicks += 1
            if on_step is not None:
                await on_step(info, role, inter)
        raise AssertionError(f"game {game_pk} did not end within {max_steps} clicks")
    finally:
        await svc.close()


async def newest_prompt(h: Harness, user: int, digest: str | None = None) -> Message:
    """The user's newest message with live choices (made for the choice set ``digest``)."""
    si = h.si

    def live(m: Message) -> bool:
        return (si.visible_to(m, user) and m.ephemeral_to is None and bool(choices_of(m))
                and (digest is None or prompt_digest(m) == digest))

    await si.wait_message(live, timeout=20)
    return max((m for m in si.messages.values() if live(m)), key=lambda m: m.id)


async def reveal(h: Harness, user: int, msg: Message, index: int) -> tuple[str, str | None]:
    """The component of ``msg`` offering action ``index``, turning its pages until one does."""
    for _ in range(20):
        for cid, value in choices_of(msg):
            if offered_index(cid, value) == index:
                return cid, value
        turn = next((c["custom_id"] for c in components(msg) if c["custom_id"].startswith("az:p:")
                     and c.get("label") == "Next ▶"), None)
        assert turn is not None, f"no page of message {msg.id} offers choice {index}"
        await h.settle(await h.si.click(user, msg.id, turn))
        msg = h.si.messages[msg.id]
    raise AssertionError(f"message {msg.id} has too many pages")
