"""Nothing leaks: every slash command the bot registers, fed hostile arguments (empty and
very long strings, control characters, unicode, mentions, unknown game ids, other games'
pieces and actions, malformed compound orders), is answered once, privately, with a short
sentence that shows no internals, and changes no game.

HOW HYPOTHESIS RUNS HERE. The Harness (stand-in + bot) lives on pytest-asyncio's event loop
and is function-scoped, while ``@given`` wants a plain function it can call many times. So
each test runs a ``@given`` property in a worker thread (``asyncio.to_thread``); the property
submits one check per example to the test's loop (``run_coroutine_threadsafe``) and waits
for it. Hypothesis keeps its full generation (and reports the falsifying example); the
shrink phase is left out so that a failure costs seconds, not minutes, and ``derandomize``
makes every run draw the same examples.

The commands come from the bot's own command tree (as synced to the stand-in), so a new
command or option is fuzzed without touching this file.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import discord
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import engine
from bot.service import GameService
from tests.bot.discord.conftest import Harness, delivered
from tests.bot.discord.test_play import prompt_of, started

SUBCOMMAND, GROUP, STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
DISCORD_INT = 2**53
"""Discord's integer options are limited to ±2^53; it refuses anything beyond before the bot sees it."""
UNSET_MAX_LENGTH = 6000
"""A string option without max_length takes up to 6000 characters."""
SHORT = 400
LEAK = re.compile(r"Traceback|Error:|\b\w*(Error|Exception)\b|File \"|line \d+, in|Something went wrong")


def settings_for(n: int) -> settings:
    return settings(max_examples=n, deadline=None, database=None, derandomize=True,
                    phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


async def run_property(strategy: st.SearchStrategy[Any], check: Callable[[Any], Awaitable[None]], n: int) -> None:
    """Hypothesis in a worker thread, each example checked on the test's own loop."""
    loop = asyncio.get_running_loop()

    @settings_for(n)
    @given(strategy)
    def prop(case: Any) -> None:
        asyncio.run_coroutine_threadsafe(check(case), loop).result(timeout=90)

    await asyncio.to_thread(prop)


# ---------------------------------------------------------------------- what hostile input looks like


@cache
def other_games_words() -> list[str]:
    """Names a player might type into the wrong game: every real game's opening action labels
    for each seat, its block / unit ids, and its role names."""
    words: list[str] = []
    for gid in ("navas", "granada"):
        module = engine.get(gid)
        state = module.setup(1, {})
        for role in module.roles({}):
            words += [str(a.get("label", "")) for a in module.view(state, role).get("actions") or []]
            words.append(role)
        for key in ("blocks", "units"):
            found = state.get(key)
            if isinstance(found, dict):
                words += [str(k) for k in found][:40]
    return [w for w in words if w]


SPECIALS = [
    "", " ", "\u200b", "\x00", "\x07\x08\x1b[31m", "\r\n\t", "\u202eevil", "🏰" * 50, "<@123>", "<@!123>",
    "<@&1>", "<#1>", "@everyone", "@here", "a > > b", ">", " > > ", "> add 1", "add 1 >", ">>>>", "%s%n{0}{}",
    "'; DROP TABLE games; --", "random", "v0:99", "v99:0", "v-1:0", "v0:-1", "v:", "#1", "1", "-1", "None", "null",
    "{\"type\": \"add\"}", "ǅ" * 10, "\\", "`" * 3 + "py\nraise SystemExit\n" + "`" * 3,
]
GAME_IDS = [0, -1, 1, 2, 3, 4, 99, 2**31, 2**31 - 1, -(2**31), DISCORD_INT, -DISCORD_INT, DISCORD_INT - 1]


def fuzz_text(min_len: int, max_len: int) -> st.SearchStrategy[str]:
    def fit(s: str) -> str:
        s = s[:max_len]
        return s + "?" * (min_len - len(s)) if len(s) < min_len else s

    chars = st.characters(exclude_categories=("Cs",))  # Discord sends valid UTF-16 only
    return st.one_of(
        st.sampled_from(SPECIALS),
        st.sampled_from(other_games_words()),
        st.text(chars, max_size=60),
        st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "🏰", "\n", "> "]),
                  st.sampled_from([max_len, max_len - 1, max_len // 2, 101, 2001])),
        st.lists(st.sampled_from(other_games_words() + SPECIALS + ["add 1", "bank"]), min_size=2, max_size=6)
        .map(" > ".join),
    ).map(fit)


def fuzz_int(opt: dict[str, Any], avoid: frozenset[int]) -> st.SearchStrategy[int]:
    lo, hi = opt.get("min_value", -DISCORD_INT), opt.get("max_value", DISCORD_INT)
    edges = [v for v in [lo, hi, lo + 1, hi - 1, *GAME_IDS] if lo <= v <= hi]
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi)).filter(lambda v: v not in avoid)


@dataclass(frozen=True)
class Call:
    path: str
    user: str
    where: str
    options: tuple[tuple[str, Any], ...]


def leaves(commands: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """(path, options schema) of every command a user can run."""
    out: list[tuple[str, list[dict[str, Any]]]] = []

    def walk(prefix: str, opts: list[dict[str, Any]]) -> None:
        subs = [o for o in opts if o["type"] in (SUBCOMMAND, GROUP)]
        if not subs:
            out.append((prefix, opts))
        for sub in subs:
            walk(f"{prefix} {sub['name']}", sub.get("options", []))

    for cmd in commands:
        if cmd.get("type", 1) == 1:
            walk(cmd["name"], cmd.get("options", []))
    return out


def calls(h: Harness, schema: list[tuple[str, list[dict[str, Any]]]], existing: frozenset[int]) -> st.SearchStrategy[Call]:
    """A command with hostile arguments, by carol (no seat anywhere: any game id) or by alice
    (a seat holder: only game ids that exist nowhere, so that no option can be a legal move of
    hers: her game is never reached)."""
    users = ["alice", "bob", "carol", "mod", "owner"]

    @st.composite
    def draw(d: st.DrawFn) -> Call:
        path, opts = d(st.sampled_from(schema))
        who = d(st.sampled_from(["carol", "alice"]))
        where = d(st.sampled_from(["thread", "channel"]))
        chosen: list[tuple[str, Any]] = []
        for opt in opts:
            forced = who == "alice" and opt["name"] == "game"
            if not (opt.get("required") or forced or d(st.booleans())):
                continue
            t = opt["type"]
            if opt.get("choices"):
                value: Any = d(st.sampled_from([c["value"] for c in opt["choices"]]))
            elif t == STRING:
                value = d(fuzz_text(opt.get("min_length", 0), opt.get("max_length", UNSET_MAX_LENGTH)))
            elif t == INTEGER:
                value = d(fuzz_int(opt, existing if who == "alice" and opt["name"] == "game" else frozenset()))
            elif t == NUMBER:
                value = d(st.floats(opt.get("min_value", -1e15), opt.get("max_value", 1e15), allow_nan=False))
            elif t == BOOLEAN:
                value = d(st.booleans())
            elif t == USER:
                value = d(st.sampled_from(users + ["bot"]))
            else:
                raise AssertionError(f"/{path}: option type {t} has no fuzzer yet; add one")
            chosen.append((opt["name"], value))
        if who == "alice" and not any(o["name"] == "game" for o in opts) and path not in SAFE_WITHOUT_GAME:
            who = "carol"  # a seat holder's command without a game option could act on her game
        return Call(path, who, where, tuple(chosen))

    return draw()


SAFE_WITHOUT_GAME = {"game new", "game list"}
"""Commands with no game option that cannot touch a running game, whatever a seat holder
types (``game new`` with a game name that exists nowhere is refused)."""


async def expect_refused_privately(h: Harness, inter: Any, label: str, *, short: bool) -> str:
    """The checks every hostile input must pass; the last answer's text."""
    assert h.si.violations == [], f"{label}: {h.si.violations}"
    answers = h.answers(inter)
    assert answers, f"{label}: no answer"
    for m in answers:
        assert m.ephemeral, f"{label}: answer not ephemeral: {m.content!r}"
        assert not LEAK.search(m.content), f"{label}: answer shows internals: {m.content!r}"
        if short:
            assert len(m.content) < SHORT, f"{label}: answer of {len(m.content)} characters: {m.content!r}"
    return answers[-1].content



async def snapshot(svc: GameService, pks: list[int]) -> list[tuple[int, str, int]]:
    out = []
    for pk in pks:
        info = await svc.game(pk)
        out.append((pk, info.status, info.version))
    return out


# ---------------------------------------------------------------------- the tests


async def test_every_command_refuses_hostile_arguments(table: Harness, svc: GameService) -> None:
    h = table
    thread = await started(h)
    await h.open_game("toy", side="blue")  # a second running game, alice and bob again
    await delivered(h, svc)
    assert h.bot is not None and h.bot.user is not None
    tree = {c.qualified_name for c in h.bot.tree.walk_commands()} | \
           {c.qualified_name for c in h.bot.tree.walk_commands(guild=discord.Object(h.guild))}
    schema = leaves(list(h.si.global_commands) + list(h.si.guild_commands.get(h.guild, [])))
    assert {p for p, _ in schema} <= tree and len(schema) >= 15, (sorted(tree), [p for p, _ in schema])
    pks = [1, 2]
    existing = frozenset(pks)
    people = {"alice": h.alice, "bob": h.bob, "carol": h.carol, "mod": h.mod, "owner": h.owner,
              "bot": h.bot.user.id}
    seen: set[str] = set()

    async def check(call: Call) -> None:
        before = await snapshot(svc, pks)
        public = len(h.si.public_messages())
        options = {k: people[v] if isinstance(v, str) and v in people and _is_user(schema, call.path, k) else v
                   for k, v in call.options}
        inter = await h.cmd(people[call.user], call.path, channel=thread if call.where == "thread" else h.channel,
                            **options)
        label = f"/{call.path} {options!r} by {call.user} in {call.where}"
        game = dict(call.options).get("game")
        unknown_game = isinstance(game, int) and game not in existing
        await expect_refused_privately(h, inter, label, short=unknown_game or call.user == "carol"
                                       and call.path not in LOOKS)
        assert await snapshot(svc, pks) == before, label
        assert len(h.si.public_messages()) == public, f"{label}: a public message appeared"
        seen.add(call.path)

    await run_property(calls(h, schema, existing), check, 60)
    assert len(seen) >= len(schema) // 2, f"only {sorted(seen)} were drawn"


LOOKS = {"status", "map", "log"}
"""Commands whose answer to a spectator is the game itself (long and legitimate), not a refusal."""


def _is_user(schema: list[tuple[str, list[dict[str, Any]]]], path: str, name: str) -> bool:
    opts = dict(schema)[path]
    return any(o["name"] == name and o["type"] == USER for o in opts)


async def test_play_refuses_orders_of_other_games_and_broken_compounds(table: Harness, svc: GameService) -> None:
    h = table
    navas = await h.open_game("navas", side="christian", pace="live", seed=16)
    granada = await h.open_game("granada", side="christian", pace="live", seed=3)
    toy = await h.open_game("toy", side="red", options="target=20")
    await prompt_of(h, h.alice)
    await delivered(h, svc)
    places = {1: ("navas", navas), 2: ("granada", granada), 3: ("toy", toy)}
    holders = {}
    for pk in places:
        info = await svc.game(pk)
        seat = info.seat(info.active[0])
        assert seat is not None and seat.user_id in (h.alice, h.bob)
        holders[pk] = seat.user_id
    granada_state = (await svc.state(2))[1]
    blocks = sorted(granada_state["blocks"])
    own_words: dict[int, set[str]] = {}
    for pk in places:
        info = await svc.game(pk)
        seat = info.seat(info.active[0])
        assert seat is not None
        own_words[pk] = {str(a.get("label")) for a in
                         (await svc.view(pk, info.active[0], seat.user_id)).view.get("actions") or []}
    words = other_games_words() + blocks + ["add 1", "add 2", "bank"]
    order = st.one_of(
        fuzz_text(1, 400),
        st.sampled_from(blocks),
        st.lists(st.sampled_from(words + ["", " ", ">"]), min_size=2, max_size=5).map(" > ".join),
        st.sampled_from(words).map(lambda w: f"{w} > > {w}"),
    )

    async def check(case: tuple[int, str]) -> None:
        pk, text = case
        before = await snapshot(svc, list(places))
        public = len(h.si.public_messages())
        inter = await h.cmd(holders[pk], "play", channel=places[pk][1], order=text)
        label = f"/play {text!r} in {places[pk][0]}"
        reply = await expect_refused_privately(h, inter, label, short=False)
        if reply.startswith("✅") or "\n✅" in reply or (text in own_words[pk] and "✅" in reply):
            return  # it was a legal order after all (the answer says it was played)
        assert len(reply) < SHORT or "Allowed:" in reply, f"{label}: {len(reply)} characters: {reply!r}"
        assert await snapshot(svc, list(places)) == before, f"{label}: changed the game; answer {reply!r}"
        assert len(h.si.public_messages()) == public, f"{label}: a public message appeared"

    await run_property(st.tuples(st.sampled_from(list(places)), order), check, 45)
