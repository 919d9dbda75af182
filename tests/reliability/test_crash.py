"""SIGKILL the bot at random points of scripted games (issue 6, "Nothing lost, nothing doubled").

The real bot runs as its own process (tests/reliability/botproc.py: what ``alcazaba run``
runs) against the Discord stand-in, over a SQLite file. Two players click through two games
of 1212 in their DMs. The process is killed with SIGKILL at random moments: a few
milliseconds after a click was dispatched (mid-command), while it delivers the notifications
of a step (mid-delivery), while it starts up and catches up, or idle. Each time it is
started again. At the end, after the outbox drained:

* no move lost: every click the bot confirmed ("✅" on the clicked prompt) is in the log;
* nothing doubled: every move in the log was sent by exactly one click;
* the stored state of each game is the replay of its log (``replay_check``);
* every notification delivered exactly once: no outbox row left, no two messages with one
  nonce in a channel, each DM row at most one message and the prompt still awaited exactly
  one, and each game's thread holds every public log line exactly once, in order;
* Discord's rules held (the stand-in's violations list is empty).

A second test kills the bot at one chosen point: after it took a player's step and told him
so on the clicked prompt, before it sent the next prompt of that same player. The prompt is
an outbox row written with the step, so the restarted bot sends it.

CI runs ALCAZABA_CRASH_KILLS=30 kills (under a minute); a manual run can ask for
hundreds, e.g. ``ALCAZABA_CRASH_KILLS=300 pytest tests/reliability/test_crash.py``, and
ALCAZABA_CRASH_SEED picks another random script.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import os
import random
import re
import signal
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.discord import nonces
from bot.service import GameInfo, GameService
from bot.service.forced import is_auto
from bot.settings import sqlite_url
from engine.api import strip_label
from tests.standin import Interaction, Message, StandIn
from tests.standin.server import DM, PRIVATE_THREAD, iter_components

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("ALCAZABA_CRASH_KILLS", "30"))
SEED = int(os.environ.get("ALCAZABA_CRASH_SEED", "6"))
ACTION_ID = re.compile(r"^az:([as]):(\d+):(\d+):(\d+):(\d+):[0-9a-f]{8}$")
BOT_LINE_MARKS = ("▶️", "↩️", "⛔", "🏁")
"""Lines the delivery worker writes itself around the engine's public lines."""


@dataclass
class Click:
    inter: Interaction
    message_id: int
    custom_id: str
    value: str | None
    user: int
    game: int
    version: int
    role_index: int
    index: int


class BotProcess:
    """The bot as a child process: start (and wait until it is on the gateway), SIGKILL, stop."""

    def __init__(self, si: StandIn, workdir: Path, guild: int) -> None:
        self.si = si
        self.workdir = workdir
        self.db = workdir / "bot.db"
        self.log = workdir / "bot.log"
        self.env = dict(os.environ)
        self.env.update({
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "DISCORD_TOKEN": si.token,
            "DISCORD_API_BASE": si.api_base,
            "DISCORD_GATEWAY_URL": si.gateway_url,
            "DISCORD_DEV_GUILD_ID": str(guild),
            "DATABASE_URL": sqlite_url(self.db),
            "DATA_DIR": str(workdir / "data"),
            "LOG_LEVEL": "INFO",
            "RENDER_CONCURRENCY": "2",
        })
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self) -> None:
        mark = len(self.si.requests)
        with self.log.open("ab") as log:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.reliability.botproc", cwd=str(self.workdir), env=self.env,
                stdout=log, stderr=log)
        self.starts += 1
        connected = asyncio.ensure_future(self.on_gateway())
        exited = asyncio.ensure_future(self.proc.wait())
        await asyncio.wait({connected, exited}, return_when=asyncio.FIRST_COMPLETED)
        if exited.done() or connected.exception() is not None:
            connected.cancel()
            raise AssertionError(f"{self.name} did not come up (start {self.starts}):\n{self.tail()}")
        exited.cancel()
        await self.si.wait_for(lambda r: r.method == "PUT" and r.route.endswith(self.commands_route),
                               timeout=60, start=mark)

    name = "the bot"
    commands_route = "/commands"
    """The end of the route of the bot's command registration, the last thing it does at start."""

    async def on_gateway(self) -> None:
        """Until the bot's process is on the stand-in's gateway."""
        await self.si.wait_connected(timeout=60)

    async def kill(self) -> None:
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()
        assert self.proc.returncode == -signal.SIGKILL, f"the bot had already exited:\n{self.tail()}"
        await self.si.disconnect_all()

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 20)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()

    def tail(self, lines: int = 60) -> str:
        if not self.log.exists():
            return "(no log)"
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


# --------------------------------------------------------------------------- the players


def choices_of(msg: Message) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = []
    for c in iter_components(msg.components):
        cid = c.get("custom_id") or ""
        if c.get("disabled"):
            continue
        if cid.startswith("az:a:"):
            out.append((cid, None))
        elif cid.startswith("az:s:"):
            out += [(cid, o["value"]) for o in c.get("options", [])]
    return out


class Table:
    """Two players, their games, and every click they made."""

    def __init__(self, si: StandIn, db: GameService, players: list[int], rng: random.Random, channel: int,
                 games: list[int]) -> None:
        self.si = si
        self.db = db
        self.players = players
        self.rng = rng
        self.channel = channel
        self.games = games
        self.clicks: list[Click] = []
        self.status_asked = 0

    def private(self, msg: Message) -> bool:
        """A prompt only its player sees: in his DMs, his private thread, or an ephemeral answer."""
        return msg.ephemeral_to is not None or self.si.channels[msg.channel_id].type in (DM, PRIVATE_THREAD)

    async def ask_status(self) -> None:
        """What a player does who has no buttons to click (the bot died between taking his step
        and sending the next prompt): ``/status`` answers with the prompt and its buttons."""
        for pk in self.games:
            info = await self.db.game(pk)
            for role in info.active:
                seat = info.seat(role)
                if seat is not None and seat.user_id in self.players:
                    inter = await self.si.slash(seat.user_id, self.channel, "status", game=pk)
                    self.status_asked += 1
                    try:
                        await self.si.answered(inter, 10)
                        await self.si.wait_for(lambda r, t=inter.token: t in r.route and r.method == "POST"
                                               and r.route.startswith("/webhooks"), timeout=10)
                    except TimeoutError:
                        pass

    async def click_once(self, *, wait: bool) -> Click | None:
        """One player clicks one choice of a prompt: mostly the prompt of the move the game
        is at, sometimes an older one (which the bot must refuse as stale)."""
        infos: dict[int, GameInfo] = {}
        offers: list[tuple[bool, Message, int, list[tuple[str, str | None]]]] = []
        for msg in list(self.si.messages.values()):
            if msg.deleted or not self.private(msg):
                continue
            options = choices_of(msg)
            if not options:
                continue
            m = ACTION_ID.match(options[0][0])
            assert m, options[0][0]
            game, version = int(m.group(2)), int(m.group(3))
            if game not in infos:
                infos[game] = await self.db.game(game)
            info = infos[game]
            for user in self.players:
                if self.si.visible_to(msg, user):
                    role = info.roles[int(m.group(4))]
                    seat = info.seat(role)
                    fresh = (version == info.version and role in info.active and seat is not None
                             and seat.user_id == user)
                    offers.append((fresh, msg, user, options))
        fresh = [o for o in offers if o[0]]
        if not fresh:
            await self.ask_status()
            return None
        pool = fresh if self.rng.random() < 0.9 else offers
        # The choices as the player saw them: the bot may have edited the message since (the
        # awaits above), and a click on what it took away is refused like any stale one.
        _, msg, user, options = self.rng.choice(pool)
        cid, value = self.rng.choice(options)
        try:
            inter = await self.si.click(user, msg.id, cid, [value] if value else None)
        except LookupError:
            return None
        m = ACTION_ID.match(cid)
        assert m is not None
        click = Click(inter, msg.id, cid, value, user, int(m.group(2)), int(m.group(3)), int(m.group(4)),
                      int(m.group(5)) if m.group(1) == "a" else int(value or -1))
        self.clicks.append(click)
        if wait:
            try:
                await self.si.answered(inter, 10)
                await self.si.wait_for(lambda r, t=inter.token: t in r.route and r.route.startswith("/webhooks"),
                                       timeout=10)
            except TimeoutError:
                pass
        return click

    async def play(self, clicks: int) -> None:
        for _ in range(clicks):
            if await self.click_once(wait=True) is None:
                await asyncio.sleep(0.2)


async def open_games(si: StandIn, players: list[int], channel: int, count: int = 2) -> None:
    """Games of 1212 (two by default), each created by one player against the other, who joins."""
    for n, (host, guest) in enumerate([(players[0], players[1]), (players[1], players[0])][:count]):
        inter = await si.slash(host, channel, "game new", game="navas", opponent=guest, pace="live", seed=20 + n)
        await si.settle(inter, timeout=30)
        deadline = time.monotonic() + 60
        while len(si.threads(channel)) <= n or not si.channel_messages(si.threads(channel)[n].id):
            # a loaded machine may open the thread, and post its lobby, after a pause
            assert time.monotonic() < deadline, "the game's thread and its lobby were never posted"
            await asyncio.sleep(0.1)
        thread = si.threads(channel)[n].id
        lobby = si.channel_messages(thread)[0]
        join = next(c["custom_id"] for c in iter_components(lobby.components) if c.get("custom_id"))
        await si.settle(await si.click(guest, lobby.id, join), timeout=30)


async def drained(db: GameService, si: StandIn, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while await db.outbox(pending_only=True):
        assert time.monotonic() < deadline, "notifications still undelivered"
        await asyncio.sleep(0.25)
    await si.wait_quiet(1.5, timeout=60)


# --------------------------------------------------------------------------- checks


def confirmed(si: StandIn, click: Click) -> bool:
    """The bot told the player his click was taken: the clicked prompt now says ✅."""
    for rec in si.requests:
        if (rec.method == "PATCH" and click.inter.token in rec.route and isinstance(rec.json, dict)
                and "✅" in str(rec.json.get("content") or "")):
            return True
    return False


def states_along(module: Any, info: GameInfo, moves: list[dict[str, Any]]) -> list[Any]:
    """The game at each move of its log: ``states[v]`` is the state at move v."""
    states = [module.setup(info.seed, dict(info.options))]
    for m in moves:
        states.append(module.apply(states[-1], m["role"], m["action"]))
    return states


def click_problems(moves: list[dict[str, Any]], bots: set[str], clicks: list[Click], game: int, module: Any,
                   states: list[Any], info: GameInfo, si: StandIn) -> list[str]:
    """Nothing doubled and nothing lost between a game's clicks and its log: each move of a
    person (a role outside ``bots``) was sent by a click of its own, and each click the bot
    confirmed is a move. ``states[v]`` is the game at move v."""
    problems: list[str] = []
    sent: list[tuple[Click, str, dict[str, Any]]] = []
    for c in clicks:
        if c.game != game:
            continue
        if c.version >= len(states):
            problems.append(f"game {game}: a click at version {c.version} beyond the log ({len(moves)} moves)")
            continue
        role = info.roles[c.role_index]
        legal = module.actions(states[c.version], role)
        if 0 <= c.index < len(legal):
            sent.append((c, role, strip_label(legal[c.index])))
    used: set[int] = set()
    for i, m in enumerate(moves):
        if m["role"] in bots:
            continue
        if is_auto(m["action"]):
            # A forced step the service took by itself after a step (issue 38): no click sends
            # it, but it must be the one step the seat was offered then.
            forced = module.forced_step(states[i], m["role"])
            taken = {k: v for k, v in m["action"].items() if k != "automatic"}
            if forced is None or strip_label(forced[0]) != taken:
                problems.append(f"game {game}: move {m['seq']} ({m['role']} {m['action']}) was taken "
                                "automatically but was not a forced step")
            continue
        match = next((i for i, (c, role, action) in enumerate(sent) if i not in used and c.version < m["seq"]
                      and role == m["role"] and action == m["action"]), None)
        if match is None:
            problems.append(f"game {game}: move {m['seq']} ({m['role']} {m['action']}) was sent by no click")
        else:
            used.add(match)
    for c, role, action in sent:
        if confirmed(si, c) and not any(m["seq"] > c.version and m["role"] == role and m["action"] == action
                                        for m in moves):
            problems.append(f"game {game}: the confirmed click {c.custom_id} ({action}) is not in the log")
    return problems


async def check_moves(db: GameService, games: list[int], clicks: list[Click], si: StandIn) -> list[str]:
    problems: list[str] = []
    for pk in games:
        info = await db.game(pk)
        module = engine.get(info.game_id)
        report = await db.replay_check(pk)
        if not report.ok:
            problems.append(f"game {pk}: stored state is not the replay of the log: {report.message}")
        moves = await db.moves(pk)
        assert all(m["kind"] == "step" for m in moves), "the players never undo here"
        problems += click_problems(moves, set(), clicks, pk, module, states_along(module, info, moves), info, si)
    return problems


async def check_notifications(db: GameService, games: list[int], si: StandIn) -> list[str]:
    problems: list[str] = []
    # Nonces are unique across everything the bot sends (bot/discord/nonces.py): one message
    # per nonce, whatever the channel.
    posted = Counter(m.nonce for m in si.messages.values() if m.nonce is not None)
    twice = [k for k, n in posted.items() if n > 1]
    if twice:
        problems.append(f"messages posted twice under one nonce: {twice[:10]}")
    # DM rows are sent in the player's private channels (DM or private thread).
    private = (DM, PRIVATE_THREAD)
    by_nonce = Counter(m.nonce for m in si.messages.values()
                       if m.nonce is not None and si.channels[m.channel_id].type in private)
    for pk in games:
        info = await db.game(pk)
        rows = await db.outbox(pk)
        last_turn: dict[str, int] = {}
        for row in rows:
            if row.sent_at is None:
                problems.append(f"game {pk}: outbox row {row.id} was never delivered")
            if row.kind == "dm":
                count = by_nonce.get(nonces.outbox(row.id)(nonces.PRIVATE), 0)
                if count > 1:
                    problems.append(f"game {pk}: DM row {row.id} ({row.payload.get('type')}) sent {count} times")
                if row.payload.get("type") == "your_turn":
                    last_turn[str(row.payload.get("role"))] = row.id
        for role, row_id in last_turn.items():
            if info.status == "running" and role in info.active and by_nonce.get(nonces.outbox(row_id)(nonces.PRIVATE), 0) != 1:
                problems.append(f"game {pk}: {role} must act, but the your-turn DM (row {row_id}) was sent "
                                f"{by_nonce.get(nonces.outbox(row_id)(nonces.PRIVATE), 0)} times")
        per_row = [[str(line) for line in row.payload.get("lines") or [] if str(line).strip()]
                   for row in rows if row.kind == "channel"]
        expected = [line for lines in per_row for line in lines]
        thread = info.thread_id
        bases = {nonces.outbox(row.id).prefix for row in rows if row.kind == "channel"}
        posted: list[str] = []
        for msg in sorted((m for m in si.messages.values() if m.channel_id == thread and not m.deleted),
                          key=lambda m: m.id):
            text_post = re.match(r"^(.+)\.c\d+(?:~\d+)?$", msg.nonce or "")
            if text_post is None or text_post.group(1) not in bases:
                continue  # the lobby, maps, the final pictures
            for line in msg.content.split("\n"):
                text = line.removeprefix("• ")
                if text and not text.startswith(BOT_LINE_MARKS):
                    posted.append(text)
        if Counter(posted) != Counter(expected):
            extra, missing = Counter(posted) - Counter(expected), Counter(expected) - Counter(posted)
            where = {line: [(m.nonce, m.id) for m in si.messages.values() if m.channel_id == thread
                            and line in m.content.split("\n") or f"• {line}" in m.content.split("\n")]
                     for line in list(extra)[:5]}
            diff = "\n".join(difflib.unified_diff(expected, posted, "notified lines", "thread lines", lineterm="", n=1))
            problems.append(f"game {pk}: the thread does not hold each notified line exactly once: "
                            f"posted twice {dict(extra)} (in {where}), never posted {dict(missing)}\n{diff}")
        elif posted != expected:
            diff = "\n".join(difflib.unified_diff(expected, posted, "notified lines", "thread lines", lineterm="", n=1))
            problems.append(f"game {pk}: the thread holds each notified line once, but not in the order of the "
                            f"steps\n{diff}")
    return problems


def populate(si: StandIn) -> tuple[int, int, list[int]]:
    """A server with a games channel and two members who play: (guild, channel, players)."""
    owner = si.add_user("owner")
    guild = si.add_guild("crash test server", owner)
    channel = si.add_text_channel(guild, "games")
    players = [si.add_user("alice"), si.add_user("bob")]
    for user in players:
        si.add_member(guild, user)
    return guild, channel, players


@dataclass
class Rig:
    """The stand-in, its server (guild, games channel, two players), the bot's process
    (started) and the bot's database."""

    si: StandIn
    guild: int
    channel: int
    players: list[int]
    bot: BotProcess
    db: GameService


@asynccontextmanager
async def bot_with_games(tmp_path: Path, count: int) -> AsyncIterator[Rig]:
    """The bot on a server of its own, with ``count`` games opened by its two players;
    everything stopped at the end."""
    si = StandIn()
    await si.start()
    bot: BotProcess | None = None
    db: GameService | None = None
    try:
        guild, channel, players = populate(si)
        bot = BotProcess(si, tmp_path, guild)
        await bot.start()
        await open_games(si, players, channel, count=count)
        db = GameService.open(sqlite_url(bot.db))
        yield Rig(si, guild, channel, players, bot, db)
    finally:
        if db is not None:
            await db.close()
        if bot is not None:
            await bot.stop()
        await si.stop()


# --------------------------------------------------------------------------- the test


async def test_sigkill_at_random_points_loses_and_doubles_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    async with bot_with_games(tmp_path, 2) as rig:
        si, channel, players, bot, db = rig.si, rig.channel, rig.players, rig.bot, rig.db
        games = [g.id for g in await db.games(limit=10)]
        assert len(games) == 2
        assert [(await db.game(g)).status for g in games] == ["running", "running"]
        table = Table(si, db, players, rng, channel, games)
        modes: Counter[str] = Counter()
        for _ in range(KILLS):
            mode = rng.choice(["mid-command", "mid-command", "mid-delivery", "startup", "idle"])
            modes[mode] += 1
            if mode == "startup":
                await asyncio.sleep(rng.uniform(0, 0.8))
            else:
                await table.play(rng.randint(0, 6))
                if mode == "mid-command":
                    await table.click_once(wait=False)
                    await asyncio.sleep(rng.uniform(0, 0.12) ** 2 * 8)  # mostly within 30 ms
                elif mode == "mid-delivery":
                    await table.click_once(wait=False)
                    await asyncio.sleep(rng.uniform(0.25, 1.2))
                else:
                    await asyncio.sleep(rng.uniform(0, 1.5))
            await bot.kill()
            await bot.start()
        await table.play(5)
        await drained(db, si)
        await bot.stop()
        moved = 0
        for g in games:
            moved += len(await db.moves(g))
        assert moved >= KILLS // 2, f"only {moved} moves in {len(table.clicks)} clicks: the game barely ran"
        problems = await check_moves(db, games, table.clicks, si)
        problems += await check_notifications(db, games, si)
        problems += [f"Discord rule broken: {v}" for v in si.violations]
        summary = json.dumps({"kills": KILLS, "modes": modes, "clicks": len(table.clicks), "moves": moved,
                              "confirmed": sum(confirmed(si, c) for c in table.clicks),
                              "status_asked": table.status_asked})
        assert problems == [], f"{summary}\n" + "\n".join(problems[:40]) + f"\n--- bot log ---\n{bot.tail()}"
        print(summary)

async def test_a_kill_between_the_answer_and_the_next_prompt_loses_no_prompt(tmp_path: Path) -> None:
    """The bot took a step and marked the clicked prompt "✅", and the same player must act
    again; it dies before his next prompt reached Discord (here: Discord fails every post
    to his DMs and every interaction followup until then). Restarted, it sends that prompt,
    once, for the move the game is at."""
    rng = random.Random(SEED)
    async with bot_with_games(tmp_path, 1) as rig:
        si, bot, db = rig.si, rig.bot, rig.db
        (pk,) = [g.id for g in await db.games(limit=10)]

        async def live_prompt(user: int, version: int | None = None) -> Message:
            """The user's prompt with live choices in his DMs (answered ones lose theirs); made
            at move ``version``, if given."""
            def live(m: Message) -> bool:
                if m.deleted or si.channels[m.channel_id].type != DM or not si.visible_to(m, user):
                    return False
                options = choices_of(m)
                found = ACTION_ID.match(options[0][0]) if options else None
                return found is not None and (version is None or int(found.group(3)) == version)

            await si.wait_message(live, timeout=20)
            return max((m for m in si.messages.values() if live(m)), key=lambda m: m.id)

        async def answered(click: Interaction) -> None:
            await si.wait_for(lambda r: r.method == "PATCH" and click.token in r.route and isinstance(r.json, dict)
                              and "✅" in str(r.json.get("content") or ""), timeout=20)

        for _ in range(60):  # click on until a choice leaves its player to act again
            info = await db.game(pk)
            role = info.active[0]
            seat = info.seat(role)
            assert seat is not None and seat.user_id is not None
            module = engine.get(info.game_id)
            version, state = await db.state(pk)
            prompt = await live_prompt(seat.user_id)
            legal = module.actions(state, role)
            options = choices_of(prompt)
            again = [(cid, value) for cid, value in options
                     if role in module.active(module.apply(state, role, legal[int(value) if value else
                                                                              int(cid.split(":")[5])]))]
            if again:
                break
            cid, value = rng.choice(options)
            await answered(await si.click(seat.user_id, prompt.id, cid, [value] if value else None))
        else:
            raise AssertionError("no choice in 60 steps left its player to act again")
        dm = prompt.channel_id
        si.fault("POST", rf"^/channels/{dm}/messages$", mode="before", times=10_000)
        si.fault("POST", r"^/webhooks/", mode="before", times=10_000)
        cid, value = rng.choice(again)
        await answered(await si.click(seat.user_id, prompt.id, cid, [value] if value else None))
        await bot.kill()
        after = await db.game(pk)
        assert after.version == version + 1 and role in after.active, "the step was not taken before the kill"
        assert not [m for m in si.channel_messages(dm) if m.id > prompt.id], "the prompt got out before the kill"
        si.faults.clear()
        await bot.start()
        try:
            nxt = await live_prompt(seat.user_id, after.version)
        except TimeoutError:
            raise AssertionError(f"no prompt for move {after.version} after the restart\n{bot.tail()}") from None
        await drained(db, si)
        row = next(o for o in await db.outbox(pk) if o.payload.get("type") == "your_turn"
                   and o.payload.get("version") == after.version and o.payload.get("role") == role)
        assert nxt.nonce == nonces.outbox(row.id)(nonces.PRIVATE)
        prompts = [m for m in si.channel_messages(dm) if m.id > prompt.id and choices_of(m)]
        assert prompts == [nxt], [m.content for m in prompts]
        assert si.violations == []
